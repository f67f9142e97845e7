//! The long help (`--help`) of `clasp migrate`'s own options: what it
//! changes, how it checks, writes and reports. Each text starts with what
//! `-h` says; `args.rs` attaches them.

/// `--write`.
pub const WRITE: &str = r#"Apply the changes in place (atomically).

Each file is written through a temporary file beside it and a rename,
its permissions kept. Like cargo fix, --write is refused (exit 2,
nothing written) when a file it would write has uncommitted changes in
its git work tree (modified, staged or untracked: git status
--porcelain), listing them, or when git cannot tell (git missing, or
refusing the repository as of "dubious ownership", for a file in what
looks like one: a .git with a HEAD, or a .git file); files outside git
work trees are fine. --allow-dirty writes them anyway.

With `-` (standard input, see --stdin-filename) nothing is written: the
whole new text is printed on stdout instead.

A batch is written whole or not at all. Every new file is first staged
in a temporary file beside it (.clasp-*, synced, with the file's
permissions), each file checked unchanged since it was read; each is
checked again, and only then are they all renamed over the files,
which takes milliseconds. Each of these is an error naming the file
and the cause, and leaves the file as it was and no temporary file
behind: a full disk or any I/O error while writing (`cannot write: No
space left on device (os error 28); the file is left as it was`), a
read-only file or directory (judged from the permission bits, so root
is refused too), a file deleted, changed, turned into a directory, or
replaced by a symbolic link since it was read (a symbolic link is
never written through). The files that share a change set with it are
not written either (`not written: its changes go with those of ./h.h,
which could not be written`), since their edits stand or fall
together. A host file's build-call edit stands or falls with every
changed file of the programs it builds: if one of them is not written,
the call is not switched to -cl-std=CL2.0 (nor anything else in that
host file). The rest of the batch is written, and the summary counts
what was written: merges, program-scope variables and build calls
edited only where their files were written, and the functions of files
not written are `not written` (`1 function migrated (verified), 2 not
written`; "status": "not-written" in the JSON report), never
`migrated`.

Three errors stop every write of the batch: uncommitted changes in a
file --write would touch, a device rejecting a result with
--device-check, and, with --interactive, a skipped change the kept
declarations cannot hold. A [[program]] source shared by programs that
disagree stops the writes of those programs only. Interruptions: see
ERRORS, WRITES AND INTERRUPTS below."#;

/// `--interactive`.
pub const INTERACTIVE: &str = r#"Show each change set (its diff and evidence) and ask whether to apply
it; then verify the accepted sets again and write them in place
(answers from stdin).

Each change set's diff is shown on stdout and its evidence (the
--explain lines) on stderr, with the question `[y]es, [n]o, [a]ll the
rest, [q]uit (skip the rest)`; the end of the input skips the rest.
Answers are read from stdin, so a script can pipe them. Then the batch
is migrated and verified again with the skipped sets' declarations
kept as they are (suppressed, "skipped in the --interactive review"),
and the result is written in place as with --write, or, with
--out-dir, as copies under it, with no work tree checked. In place,
uncommitted changes in any file the batch would change are refused
(unless --allow-dirty) before the first question, not after the last
answer.

A change set is the declarations linked by pointer flows, across the
batch: each one stands or falls whole, and independently of the others
(verification withdraws sets one at a time for the same reason), which
is what makes accepting some and not others sound. Two cases are kept
out rather than written unreviewed: a change that appears only once
others are skipped (a helper a skipped merge would have deleted, which
could become generic on its own) is kept as it is too, and a skipped
change the kept declarations cannot hold (a program-scope table the
__constant budget moves, a program-scope variable written with no
address space) stops the run with an error before anything is written.
Changes inside embedded kernels and [[program]]s are reviewed like any
other.

What you review is what is written. Each set's diff is rendered from
the very edits, and by the very code, that write the files when that
set alone is accepted: every file it changes (a merge's deleted copy,
its renamed survivor and the calls renamed in every file; a kernel
written back into a host file's literal; a [[program]]'s sources), and
the host build call that must then ask for -cl-std=CL2.0 (build calls
follow the kernels they build: shown with the set, not asked about on
their own). Each diff is against the files as they are, so two sets
changing one file show two diffs of it; accepting both writes both,
and accepting every set writes what --write writes.

Some edits follow only from several sets together: a build call whose
program may be any of several files (a helper called with "a.cl" and
"b.cl") asks for -cl-std=CL2.0 only once all of them changed, so no
set's diff holds it. Once the answers are in, such edits are shown as
one more diff, after the line `clasp: these edits follow from the sets
you accepted together; they are written with them:`, each with its
evidence line ending `(follows from the sets you accepted)`, before
anything is written. The diffs of the accepted sets and that one are,
together, exactly what is written; to leave such an edit out, skip one
of the sets it follows from. A file shown is left as it is only with
an error naming it: skipping a set its unit requires (its evidence
says `required`) leaves that unit unchanged, and the stop above writes
nothing."#;

/// `--allow-dirty`.
pub const ALLOW_DIRTY: &str = r#"With --write (or --interactive), also overwrite files that have
uncommitted changes in their git work tree."#;

/// `--statistics`.
pub const STATISTICS: &str = r#"Print counts per rule and per refusal reason instead of the diff.

As ruff prints them: one line `count  code  kind`, kind `fixed`
(declarations changed: a table in a shared header moving in two
programs counts once), `refused` (declarations), `not merged`
(duplicate groups) or `withdrawn` (functions whose changes
verification withdrew), plus a `partly-migrated functions` row and the
host warnings (untraced-options, unlinked-build); by count, most
frequent first, then code. Exit codes as without it."#;

/// `--check`.
pub const CHECK: &str = r#"Write nothing: print the diff that would be applied (with --quiet,
only the files that would change) and exit 1 when changes are pending.

As `black --check --diff` and `cargo fmt --check` do; --check --format
diff is the same. It also exits 1 when a host build call must be
changed by hand (an untraced-options or unlinked-build warning), not
for a file outside the edit root that would change (a warning: see
--root). With -q, the files that would change are listed one per line,
named as the diff names them. A repeated --check over unchanged files is
replayed from the result cache (see --no-cache). A second run over
clasp's own output changes nothing, with no flag: `clasp migrate --check
PATHS` after `clasp migrate --write PATHS` exits 0."#;

/// `--exit-zero`.
pub const EXIT_ZERO: &str = r#"Exit 0 even when changes are pending (with --check); errors still exit 2.

As ruff's --exit-zero: a CI step or hook that shows the pending diff
without failing on it. The report is the same; only exit code 1 becomes 0.
Pending host build calls (see --check) are covered too."#;

/// `--out-dir DIR`.
pub const OUT_DIR: &str = r#"Write migrated copies under DIR, mirroring paths from the edit root.

Each changed file is written at its path relative to the edit root (see
--root), wherever clasp runs: run in kernels/, a kernel a/k.cl and the
header ../include/h.h it includes go to DIR/kernels/a/k.cl and
DIR/include/h.h (a note says so when the root is not the current
directory). Only files under the root change, so each copy has its own
place; a file named through a symbolic link is mirrored where it lies. A
copy that would replace a file the run migrates (DIR inside the root,
laid over its files) is an error, and is not written. No work tree is
checked for uncommitted changes. clasp run-check --migrated DIR pairs the
copies the same way."#;

/// `-j N`.
pub const JOBS: &str = r#"Worker threads (default: one per core); the output is the same for any
number.

Workers load the units and run their first verification; results are
taken in unit order, so the output is byte-identical whatever N. At
least 1 (-j 0 is refused)."#;

/// `--root DIR`.
pub const ROOT: &str = r#"Only files under DIR are edited (default: the enclosing git work tree
of the paths, else their deepest common directory).

The edit root: --root DIR when given (or clasp.toml's `root`), else
the git work tree that encloses the paths (the nearest directory above
their deepest common directory that holds .git), else that deepest
common directory (a single file's own directory). Headers under the
root that a unit includes, beside, below or above it, are analysed and
edited with the units that include them, repairs included; files
outside it (system and SDK headers, another tree) are never edited,
and their declarations are refused as outside-root; so is a change
whose function has a prototype in a file outside the root (the
prototype could not change with it). A file outside the root that would
change (a helper there could become generic, or holds such a prototype)
is a warning naming it and the --root that takes it in; --check does not
count it as pending, as no run with this root could apply it. Functions
are accounted for in every file under the root that a unit includes.
Diff paths are tidied (kernels/../include/a.h shows as include/a.h).
Reports (--json, SARIF, --explain, analyze) name every file under the
current directory relative to it, however clang reached it (an absolute
-I or -include included), and other files as given. No file found under
the root is a warning and exit 2. The result cache lives in
.clasp_cache/ under the root."#;

/// `--explain`.
pub const EXPLAIN: &str = r#"Explain every change and refusal (on stderr).

One line per change and per refusal on stderr: `file:line:col: rule:
evidence` (rules: generic-param, generic-local, generic-return,
array-param-to-pointer, merge-duplicates, constant-to-global,
infer-program-scope-space, host-build-options), `file:line:col:
refused CODE: ...`, `not merged CODE`, `cannot repair CODE`,
`partly-migrated: f keeps named p (builtin-pin)`, and one line per
host build call left as it is and per host edit. It takes no value:
`clasp rule CODE` explains a code (`clasp migrate --explain
builtin-pin`, where no file builtin-pin exists, is an error that says
so)."#;

/// `--json` of `migrate`.
pub const JSON: &str = r#"Print a JSON report instead of the diff (as --format json)."#;

/// `--format` of `migrate`.
pub const FORMAT: &str = r#"What to print on stdout: diff (default), json (every file, change,
refusal, evidence and configuration) or sarif (SARIF 2.1.0).

json (or --json): the whole migration as JSON instead of the diff:
first "version": {"format": 1, "clasp": "<its version>"} (the layout's
version, raised when a field changes meaning or goes away, and
clasp's), then changes (with their fixes at line and col, evidence,
edits and the configurations they were checked in), refusals, merges
(name, place, members, members kept with why, verified) and unmerged
(members, reason, detail), errors, warnings (those about one place
carry "line" and "col"), every function's outcome under "functions"
(file, line, name, kernel, status = migrated with verified,
partly-migrated with verified and kept (name, reason, detail of each
parameter keeping its space), unchanged, refused with reason and
detail, or not-written), "unanalysable", how each changed unit was
proven ("proofs": unit, method = functions, kernels or whole-kernels,
functions), kernels still accessing memory through generic pointers
("residual_generic": unit, path, line, col, kernel, accesses,
original, detail; see `clasp rule residual-generic`), a moved or
inferred program-scope variable as its fix's
"variable" object (name, size_bytes, space, because: merge,
over-budget, prefer-global or inferred, needed_by, constant_bytes,
budget_bytes, performance), "discovered" configurations, "host" (see
HOST CODE below) and "device_check" (see --device-check). Two runs
over the same input print the same bytes (times are left out unless
asked for: --timings).

sarif: a SARIF 2.1.0 log for code-scanning UIs: each fix a `note`
result with its edits as a SARIF fix (byte ranges of the original
file), each refusal a result with rule refused/<reason>, each
residual-generic kernel a `note` at its definition, errors and
warnings as such; every result at its line and column (startLine,
startColumn; an error at each place it names, a whole-file warning or
error at its file), and every rule with shortDescription,
fullDescription and help from `clasp rule`."#;

/// `--no-cache`.
pub const NO_CACHE: &str = r#"Do not read or store the result cache (`.clasp_cache/` under the edit
root).

A run that writes nothing (a diff, --check, --json, SARIF,
--statistics) stores what it printed under the edit root, in
.clasp_cache/ (which holds a .gitignore of `*`, so git never sees it),
keyed by everything that decides the output: this build of clasp, the
arguments, the working directory, the project's units and options,
colour and clang's executable. It records the contents of every file
the batch read (units, every header they include, host files, program
sources) and the names in every directory those files and the include
paths are in. An identical run over unchanged files replays the stored
stdout, stderr and exit code, byte for byte, without parsing,
compiling or verifying anything: a second clasp migrate --check in CI
or a pre-commit hook costs a process start and a read of the files.
Any change (an edited file, a new file beside one, which could shadow
an included header, another option) means clasp works again. A batch
with an error is not stored, nor a run that writes (--write,
--out-dir, --interactive) or reports its times. --target device and
--device-check runs are not stored either: what they print depends on
the installed drivers.

The same directory keeps every unit's verdicts, for any run (writing
ones too): each check of a unit with some of its changes, named by the
SHA-256 of what decides it (this build of clasp by its source, clang's
version, the bytes of every file the unit reads, its clang arguments,
the texts checked). A run after editing one file compiles and compares
again only the units that read it. --no-cache turns both off."#;

/// `--cache-dir`.
pub const CACHE_DIR: &str = r#"The cache directory (default: .clasp_cache under the edit root).

It holds ac/ and cas/, the layout of the Bazel HTTP remote-cache
protocol: each entry is a record (ac/<key>) naming its payload
(cas/<sha256>). Every entry is checked when read (the record answers its
key, the payload has the size and digest it names): a truncated or
corrupt entry is ignored and computed again, never trusted. Entries are
written whole (a temporary file renamed), so runners may share one
directory, and the directory is bounded (--cache-size). `clasp cache
clean` removes it."#;

/// `--remote-cache`.
pub const REMOTE_CACHE: &str = r#"Also keep and read verdicts on a cache server speaking the Bazel HTTP
remote-cache protocol: GET and PUT of URL/ac/<key> and URL/cas/<sha256>.

Any such server serves: bazel-remote (started with
--disable_http_ac_validation, as its records are clasp's, not Bazel's
action results), nginx or Apache with WebDAV PUT, BuildBuddy. A verdict
found there is checked as a local one is and copied to the cache
directory. A server that cannot be reached, does not answer in time (5 s
to connect, 15 s for an answer) or answers an error is a warning, once:
the run goes on with its directory alone and prints what it would have
printed without a server. A server that refuses a PUT (read-only for
this runner) is said once too, and still read.

Whoever may PUT to the server decides what the runs reading it print (as
with any Bazel remote cache): give write access to trusted runners only.

Keys name files by their paths: runners share entries when they check
the tree out at the same path and spell the paths alike (`clasp migrate
.` from the top of the checkout). Kernels embedded in host code and
[[program]]s are compiled from scratch copies made for each run: they
are loaded and verified every run.
Shards of a CI matrix (--shard) share their verdicts this way."#;

/// `--cache-size`.
pub const CACHE_SIZE: &str = r#"The cache directory's bound in MiB.

At the end of a run that stored entries, the entries least recently used
(read or written) are removed until the directory holds at most three
quarters of the bound. 0 keeps nothing past the run."#;

/// `--shard`.
pub const SHARD: &str = r#"Verify only the K-th of N parts of the batch and keep the verdicts in
the cache; print no diff.

Every shard reads and plans the whole batch alike (units sharing a
header must agree), then verifies the units in its part (unit i of the
batch, in its order, is in part i mod N) and stores their verdicts in
the cache directory and on the --remote-cache server. A later run
without --shard over the same tree, with the same options, finds the
verdicts there and prints the diff, the JSON or the SARIF a run without
shards prints, byte for byte; it verifies again only what no shard
stored (a unit checked again because a change was withdrawn in a unit
of another part). A shard exits 0 when it ran, 2 on errors (which the
final run reports too). Shards that do not share a directory share
through --remote-cache."#;

/// `--timings`.
pub const TIMINGS: &str = r#"The wall time per stage: on stderr, and in the JSON report (left out
otherwise, so that two runs print the same JSON). As CLASP_TIMINGS=1.

The wall time and calls per stage (libclang parse, IR facts, clang for
the equivalence triple, the equivalence pipeline, recompiles; summed
over the workers) and the resident memory after loading, after
verification and at the end, on stderr; the stages' times (not the
memory) also go into the JSON report as "timings" (stage, seconds,
calls), and only then, since times differ from run to run.
CLASP_TIMINGS=1 in the environment does the same. Such a run is not
cached."#;

/// `--no-verify`.
pub const NO_VERIFY: &str = r#"Skip verification (recompiling as the target, kernel equivalence).

Migrated functions then count as "not verified". See VERIFICATION
below."#;

/// `--no-merge`.
pub const NO_MERGE: &str = r#"Do not merge helpers duplicated per address space (each still becomes
generic on its own).

Turns rule merge-duplicates off (`clasp rule merge-duplicates`)."#;

/// `--constant-budget BYTES`.
pub const CONSTANT_BUDGET: &str = r#"A program's __constant data over BYTES moves to __global, largest
variables first.

Devices only guarantee 64 KiB of __constant memory. A program (a unit)
whose __constant data, summed from the IR's sizes, is over BYTES moves
its largest movable tables to __global const until the rest fits (rule
constant-to-global). Under --target cl3.0-nogeneric nothing moves, and
a program over the budget gets a warning."#;

/// `--proof-limit N`.
pub const PROOF_LIMIT: &str = r#"Verification optimises no kernel over about N instructions once its
changed helpers are inlined (estimated before it runs); a change set
whose proof would need more is withdrawn as proof-too-large instead of
running for minutes. 0: no limit.

The size is estimated before it runs: a kernel's instructions, each
call of a defined helper counting that helper's inlined size again;
helpers both sides define alike, and changed helpers proven on their
own, cost nothing. The change set is found by bisection (like
not-equivalent), so the others stand; a function's own proof over the
limit is not made (it is inlined instead)."#;

/// `--discover-configurations N`.
pub const DISCOVER: &str = r#"Build each unit in at most N more configurations, derived from the #if
conditions of code every given configuration skips where a helper's
pointer is used (`-DFAST` for `#ifdef FAST`); a change must hold in
each. 0: none.

Code #if skips in every configuration a unit is built in, where a
helper's pointer is used other than to reach what it points to (a
branch for another device family passing it on), is built too: from
the condition of the directive opening it (#ifdef FAST, #if defined(X)
&& MODE == 2, #ifndef SLOW, #elif), clasp chooses one -D or -U that
makes the condition true under the unit's own options (-DFAST=1,
-DMODE=2 in place of a given -DMODE=1, -USLOW), and loads the unit
again with it as one more configuration of its file, named `discovered
-DFAST=1` (or `plain + -DFAST=1` after a configuration's name). It is
then a configuration like any other: a declaration changes only if it
can there too (else refused as configuration, naming it), and every
change is verified in it.

A unit takes at most N such builds; code needing more stays skipped,
and its skipped-if refusal says the bound was hit. A discovered
configuration that does not compile, or does not compile the code it
was derived for, is dropped. --explain names each one tried at the
skipped code (`configuration `discovered -DFAST=1` of k.cl discovered
for the code #if skips here: analysed ...` or `... dropped: it does
not compile: ...`), and --json lists them under "discovered" (unit,
configuration, options, enables, analysed, detail).

A condition is read as the preprocessor reads it: the source's own
macros are expanded, function-like ones too (#if
newer_wide(DEVICE_FLAGS) with #define newer_wide(f) (((f) &
FAMILY_NEWER) && is_wide(f))), and defined(M) of a macro that only
other skipped code #defines reads as that code's condition. For a
macro holding flags, clasp tries the value the options give with up to
three of the condition's masks added (-DDEVICE_FLAGS=2 becomes
-DDEVICE_FLAGS=530: the two bits the test needs). Where the options
cannot settle a condition (a macro redefined, one pasting tokens), the
first candidate they cannot rule out is tried; the build decides.

Each branch of skipped code is its own candidate: #elif B after a
skipped #if A reads !(A) && (B), and #else after an #ifdef X the build
takes reads !(defined X) (-UX), the tests written before the skipped
code included.
Embedded kernels and [[program]]s are not given discovered
configurations."#;

/// `--globals POLICY`.
pub const GLOBALS: &str = r#"Which program-scope variables move to __global: as-needed (over the
budget) or prefer-global (all that can).

as-needed (the default): program-scope __constant variables move only
for the budget (--constant-budget) or for a merge that needs them;
prefer-global moves every one that can. Under --target cl3.0-nogeneric
nothing moves (no-program-scope-globals). `clasp rule
constant-to-global` says which tables can move."#;

/// `-q` of `migrate`.
pub const QUIET: &str = r#"No progress bar (it is only drawn when stderr is a terminal anyway);
with --check, the names of the files that would change instead of
their diff.

The bar (stage, units done, planned changes, current file) is drawn on
stderr only when stderr is a terminal, and never on stdout."#;

/// `--allow-unverified`.
pub const ALLOW_UNVERIFIED: &str = r#"Keep changes whose kernels could not be proven equivalent, marked
unverified.

They are counted as unverified, with a warning. This also keeps the
changes of a unit whose original does not compile for the equivalence
triple (it is recompiled for spir64 instead)."#;

/// `--select CODES`.
pub const SELECT: &str = r#"Only these rules change code (comma-separated or repeated; `clasp
rule` lists them): generic-param, generic-local, generic-return,
array-param-to-pointer, merge-duplicates.

Only those five can be chosen; the program-scope and host rules follow
the changes they serve. clasp.toml takes select = [...] and ignore =
[...] too: the command line's --select replaces clasp.toml's, ignored
rules add up; a [[file]] entry's select and ignore leave rules out of its
files only (see CLASP.TOML). What is kept is refused with the reason code suppressed
in every report (--explain, the summary, --statistics, JSON and
SARIF); declarations whose values flow into a kept one stay named too
(flows-to-pinned), and a kept declaration that must change for its
unit to compile as the target is an error (cannot repair suppressed)."#;

/// `--ignore CODES`.
pub const IGNORE: &str = r#"These rules change nothing (as --select takes them); a `// clasp:
keep` comment before a declaration or function keeps just that one.

A `// clasp: keep` comment, alone on the line just before a
declaration, keeps that declaration's address space; on the line just
before a function's name, every pointer of the function (parameters,
locals, return type), so it is not merged with its duplicates either.
`// clasp: keep(generic-param)` keeps it from the rules named (several
codes separated by commas); a code clasp does not know keeps it from
every rule, so a typing error never changes code meant to be kept.
Kept code is refused as suppressed (--explain: `k.cl:13:34: refused
suppressed: `v` of `sum_l`: kept by // clasp: keep (line 12)`); see
--select for the other reports."#;
