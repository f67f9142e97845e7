//! The long descriptions of the commands (`clasp migrate --help`'s text
//! above the options and its reference sections below them, `clasp
//! analyze --help`'s, `clasp devices --help`'s, `clasp rule --help`'s).

pub const MIGRATE_ABOUT: &str = r#"Rewrite helpers to OpenCL C 2.0 generic pointers; prints a unified diff.

clasp migrate prints a unified diff on stdout (--- a/<path>, +++ b/<path>,
accepted by git apply) and a summary line on stderr. Nothing is written unless
--write, --out-dir or --interactive asks, and the summary says so:

  clasp: 3 files, 5 functions would migrate (verified), 1 refused (1 builtin-pin), 3 unchanged, 0 unanalysable, 0 errors

and, once written, `5 functions migrated (verified)`. `3 files` counts every
file the run read as code, each once: the kernel files, the headers under the
edit root they include, a [[program]]'s sources, and the host files (one
however many kernels it holds). So every file the run lists as changed
(--check -q, the diff) is among those counted. With duplicates, `, 1 duplicate
group would merge (2 definitions to delete), 0 not merged` (`merged (2
definitions deleted)` once written) follows the functions; program-scope
variables and host build calls are counted after them.

Every file of a diff is named from one directory: the current one when all the
files shown are under it, else the edit root (a header in a sibling directory,
clasp migrate ..), and then a note on stderr names it (`clasp: note: the diff
names files from /x/proj (the edit root): apply it there`), since git apply
refuses ../ paths. --check -q lists files the same way.

Files are bytes, whatever their encoding (a Latin-1 comment is fine): edits
are byte ranges, every byte outside them is kept as it was, the diff carries
each line's own bytes (printed raw on stdout, so git apply reproduces exactly
what --write writes), and --write refuses a file whose bytes changed since
they were read.

What each rule and reason code means: `clasp rule CODE` (`clasp rule` lists
them). The sections after the options: PATHS, HOST BUILD OPTIONS, HOST CODE,
CLASP.TOML, COMPILE COMMANDS, VERIFICATION, ERRORS, WRITES AND INTERRUPTS,
ENVIRONMENT, EXIT CODES."#;

pub const VERIFICATION: &str = r#"VERIFICATION

Every function definition in a file under the edit root is counted once in the
summary (and in --json under "functions"). A helper is migrated only when no
parameter of it still names __global, __local or __private; one whose changes
stand while some such parameter keeps its space is partly-migrated, and "kept"
lists each of those parameters (name, reason, detail). The summary counts it
among the migrated (`2 functions would migrate (verified), 1 of them partly`),
--explain adds `partly-migrated: `f` keeps named `p` (builtin-pin)` and
--statistics a `partly-migrated functions` row; files clang cannot parse or
compile are unanalysable (listed under "unanalysable", and errors), and nothing
changes in them or in a header such a unit reads (withdrawn as failed-unit: an
edit there, a merge renaming a helper it calls, could break it unseen). Each
unit that would change is verified before anything is shown:

- Recompile: the unit, with the migrated files laid over the originals through
  a clang VFS overlay, must compile as the target. A unit whose original does
  not compile for the equivalence triple is recompiled for spir64 instead, and
  its changes are kept only with --allow-unverified.
- Equivalence: the original and the result (as the target) are compiled for
  amdgcn-amd-amdhsa -nogpulib -O2 -Xclang -disable-llvm-passes, each module
  goes through the same fixed pass pipeline (every helper inlined, LLVM's
  InferAddressSpaces turning generic pointers back into the spaces they come
  from, a scalar clean-up), and every kernel's canonical body must come out
  identical. Functions both sides define alike are kept out of it, and a
  changed function in a shared header (or in a unit whose largest kernel
  inlines to more than 20,000 instructions) is proven on its own once per
  batch, then called; when the kernels still differ, the check runs again with
  the changed helpers inlined, then with every helper inlined, and that
  verdict stands. --json says how each unit keeping a change was proven, under
  "proofs": unit, method (functions: some changed functions proven on their
  own, listed under functions; kernels: the changed helpers inlined;
  whole-kernels: every helper inlined). The original is compiled as the target
  when it compiles so, else as it was read (a unit that needs a repair), so
  code under #if __OPENCL_C_VERSION__ is the same on both sides and only
  clasp's edits can make a difference.

Changes are verified in change sets: the fixes of declarations linked by a
pointer flow (a generic parameter and the parameter it passes its value on to,
a helper's generic result and the kernel local receiving it), across every
unit of the batch. Removing a whole set leaves every other flow legal, so sets
stand or fall independently. Each unit is checked with all its sets; when it
fails, the sets responsible are found by bisection and withdrawn, and the rest
is kept, so one wrong decision costs its own set, not the unit. A withdrawn
set is withdrawn in every unit that touches it (a shared header), and those
units are checked again, to a fixpoint. Withdrawn functions are refused with
verify-failed or not-equivalent, and a warning on stderr names the set's
functions and clang's message or the first differing lines (`store i32 4, ...`
became `store i32 8, ...`); other withdrawal codes: overlapping-edits,
proof-too-large (see --proof-limit), failed-unit. A unit's required sets (repairs without
which it cannot compile as the target) are all-or-nothing: if they fail, or
one is withdrawn by another unit, the unit is an error and keeps nothing
(unrepairable-unit). Repairs that cannot be proven against the 1.2 original
(an unqualified pointer kept in memory is 4 bytes under 1.2 and 8 under 2.0)
are kept, marked unverified, with a warning `repairs kept unverified: ...`.

A kernel whose kept result has more flat (generic) memory accesses than the
original compiled as the target (counted over loads, stores, atomics, memory
copies and builtin calls, after the pipeline) gets a warning and the lint
residual-generic (--explain says where and why, JSON lists it under
"residual_generic"): it is slower on GPUs even when equivalent. With every
helper inlined and address spaces inferred this is rare; a helper the source
marks noinline with a generic pointer parameter is counted out of line, as a
GPU compiler keeps it (both sides optimised once more from the same bitcode);
builtins called through their 2.0 generic overloads count on both sides.
Nothing is said about flat accesses of a change that was withdrawn.

The comparison is syntactic after canonicalisation, so it can only prove,
never disprove, and it errs on the safe side: anything the pipeline does not
make identical is withdrawn as not-equivalent; --allow-unverified keeps it. A
helper that subtracts or orders its pointers (ptrtoint) is not proven
equivalent once generic. With -nogpulib no builtin library is linked, so a
builtin's body is never compared, only its call. A kernel called from another
kernel is compared as a call, not inlined. --no-verify skips all of this. The
crate documentation (cargo doc) describes the pipeline and canonical form in
full."#;

pub const ERRORS: &str = r#"ERRORS, WRITES AND INTERRUPTS

Every error about a file starts `file:line:col: error:` (one about a whole
file, such as one that cannot be read, at file:1:1), on stderr, in --json and
in SARIF alike, so editors' and CI's problem matchers find them; errors about
the run itself (a bad option, uncommitted changes) start `clasp: error:`. A
unit that cannot be made to compile as the target has a line per cause, at the
declaration that blocks it or at clang's own diagnostic. A file with an error
is left untouched and the other files are still processed, and written with
--write or --out-dir. Each of these is such an error:

- a missing include: one error at its #include line, and the unit stops there,
  as clang does (k.cl:1:10: error: 'absent.h' file not found);
- a file that is not text: more than 1 in 32 of its first 8 KiB are control
  bytes (NUL and the C0 controls but tab, line feed, vertical tab, form feed,
  carriage return and escape; DEL), as an object file, an image or UTF-16 has
  (blob.cl:1:1: error: not a text file (NUL byte at offset 2; ...)); text in
  UTF-8 or any 8-bit encoding is read as it is, and a stray NUL byte in a
  comment is kept;
- what clang says about the options (a bad -D, a missing -include file),
  placed at the unit's first line (k.cl:1:1: error: <command line>: 'nosuch.h'
  file not found), and its "too many errors emitted" at the error before it;
- a unit including itself (#include nested too deeply), an unreadable file
  (cannot read: Permission denied), an #error in one configuration only (the
  error, then note: in configuration `fast`; the file changes in no
  configuration, its change sets withdrawn as configuration);
- a unit that crashes or hangs clang: libclang and clang run in a worker
  process, so a crash (one clang's own recovery did not catch; one it caught,
  after which clasp does not trust clang's state; a panic), or a phase that
  outlives --timeout, costs that unit only: the batch runs again in a new
  worker without it, and the other units are migrated and verified exactly as
  if it were absent:

    ./crash.cl:1:1: error: clang crashed on this unit (libclang crashed while parsing); nothing of this unit is written
    ./hang.cl:1:1: error: parsing took longer than the time limit of 2 s (--timeout); nothing of this unit is written

The summary counts what happened: a file that fails in several configurations
is one unanalysable file, and a function whose file could not be written is
`not written`, not counted as migrated. A 10 MB unit (a table of a million
floats) is migrated. A crash outside any unit (reading host code, say) ends
the batch with exit 2. Nothing is written before every unit has been parsed,
compiled and verified; writes are whole or not at all (see --write).

Interruptions. Ctrl-C, or SIGINT, SIGTERM or SIGHUP to clasp alone (as a
tool's timeout sends), is forwarded to the worker and waited for: before the
renames, every temporary file is removed and nothing is written; once they
have begun, they finish. The run ends with 128 + the signal's number (130,
143, 129) and one line, `clasp: interrupted (SIGINT); nothing was written` (or
`once the changes were written, all of them`). The same holds with
CLASP_NO_ISOLATION=1, and from the first moment clasp's own code runs, before
libclang's and LLVM's initializers; only a signal while the dynamic loader is
still mapping and relocating those libraries, right after exec, kills clasp by
itself. The worker never acts on its own: it gets SIGTERM when clasp dies,
even by SIGKILL, and writes nothing unless clasp is still its parent. A clasp
killed outright leaves its scratch folder (clasp-supervisor-PID-START-* in the
temp directory; a folder of a process still running, told apart from a later
one with the same pid by its start time, is kept), and the next run removes
it, with any temporary file its worker was staging. One case is beyond any
program: SIGKILL to every clasp process at once (kill -9 to the process group)
in the milliseconds of the renames leaves some files renamed and some not,
each file whole."#;

pub const ENVIRONMENT: &str = r#"ENVIRONMENT

  NO_COLOR, CLICOLOR_FORCE   colour off, or on even on a pipe (see --color)
  CLASP_TIMINGS=1            as --timings
  CLASP_CLANG=/path/to/clang run that executable as a process for every compile
  CLASP_NO_ISOLATION=1       run everything in one process, no worker
  CLASP_OPENCL_LIBRARY=PATH  the OpenCL ICD loader to open (see clasp devices --help)
  OCL_ICD_VENDORS            the loader's own choice of drivers

clang 19 compiles in clasp's own process (its library, libclang-cpp); clang-19
on PATH (else /usr/lib/llvm-19/bin/clang) is still what locates its resource
directory (OpenCL's default header). CLASP_CLANG=/path/to/clang runs that
executable as a process for every compile instead (slower: about 28 ms of
start-up each); it also honours -mllvm."#;

pub const EXIT_CODES: &str = r#"EXIT CODES

  0  nothing to change, or every change written (--write, --out-dir, the accepted ones with --interactive)
  1  --check: changes are pending (the diff, or with -q the files, is on stdout), or a host build call
     must be changed by hand (an untraced-options or unlinked-build warning); 0 instead with --exit-zero
  2  an error: a file that cannot be read, parsed, compiled or repaired (file:line:col: error: ...),
     a bad option or clasp.toml, an option clang rejects, clang 19 or libclang missing, a write
     refused, or nothing to work on (no unit found, no file under the edit root: a warning)
  128 + N  interrupted by signal N (130 for SIGINT)

  A --shard run exits 0 once its verdicts are kept, whatever is pending (the final run
  without --shard exits 1 with --check), and 2 on an error."#;

/// `clasp analyze`'s exit codes.
pub const ANALYZE_EXIT_CODES: &str = r#"EXIT CODES

  0  every unit analysed (the report is on stdout)
  2  an error: a file that cannot be read, parsed or compiled (file:line:col: error: ...), a bad
     option or clasp.toml, an option clang rejects, clang 19 or libclang missing, or nothing to
     analyse (no unit found: a warning)
  128 + N  interrupted by signal N (130 for SIGINT)"#;

pub const ANALYZE_ABOUT: &str = r#"Show, for every pointer declaration, the address spaces that reach it.

clasp analyze reads kernel files and [[program]]s only: host code, the kernels
embedded in it and the options its build calls pass are read by clasp migrate
(give analyze a host's options with -D/-I to see a file as that host builds
it). It changes nothing.

It first says whether the unit compiles as its input standard (the one --std
auto chose) and whether it compiles unchanged as the target (--target, default
cl2.0), with clang's first error when not: 1.2 code that passes an unqualified
pointer to a __private or array parameter compiles as 1.2 and fails as 2.0,
and is exactly what clasp migrate repairs. It then lists, per function, every
pointer declaration (params, locals, return): the address space it points to
and how that is spelled (keyword, macro use, unqualified, hidden in a typedef
or macro), every value that reaches it (<-: space, source, file:line of the
call site or assignment, and where the value ultimately originates), and every
builtin, memory store or integer cast it reaches (->, through other
declarations). Program-scope variables are listed with their size in bytes;
one written with no address space is marked ("no address space"). With
configurations, each file is reported once per configuration (histogram.cl
[atomics])."#;

pub const ANALYZE_REPORT: &str = r#"REPORT

--json prints the same data as {"files": [{"path", "status":
"analysed"|"error", "error"?, "compiles": {"as_input": {"standard", "ok",
"error"?}, "unchanged_as_target"?: {...}}, "functions": [{"name", "kernel",
"file", "line", "pointers": [{"decl", "name", "line", "col", "declared":
[space...], "spelled", "array"?, "receives": [{"space", "from", "at",
"origins"}], "reaches": [{"target", "space", "at", "via"}]}]}],
"program_vars": [{"name", "line", "space", "type", "size_bytes"}]}]}, in
source order, spaces in lower case, after "version": {"format": 1, "clasp":
"<its version>"} (as in migrate's JSON); a file with configurations has
"configuration". A file clang rejects has "status": "error" and "compiles":
{"as_input": {"ok": false, ...}}. Exit codes: 0, or 2 on an error."#;

pub const DEVICES_ABOUT: &str = r#"List the installed OpenCL platforms and devices, and which clasp target fits
each.

Whether migrated code runs depends on the driver that builds it at run time,
and drivers disagree; a device's version says little (Debian 12's PoCL is an
OpenCL 3.0 device whose compiler takes OpenCL C 1.2 and no generic address
space). clasp devices lists every installed OpenCL platform and device,
through the ICD loader (libOpenCL.so.1, opened at run time: without it, or
without any driver, clasp says so in a note and exits 0;
CLASP_OPENCL_LIBRARY=/path/libOpenCL.so.1 names another loader, and the
loader's own OCL_ICD_VENDORS chooses its drivers). Per device: name, vendor,
driver version, the OpenCL C versions it compiles
(CL_DEVICE_OPENCL_C_ALL_VERSIONS where the device answers it, else 1.x up to
CL_DEVICE_OPENCL_C_VERSION), its OpenCL C features (whether
__opencl_c_generic_address_space and __opencl_c_program_scope_global_variables
are among CL_DEVICE_OPENCL_C_FEATURES),
CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, the -cl-std values it takes and the
clasp target that fits it.

Which target fits, from what the driver advertises only: cl2.0 when it
compiles OpenCL C 2.0 (the generic address space is part of 2.0); cl3.0 when
it compiles OpenCL C 3.0 and lists both features; cl3.0-nogeneric (1.2 rules:
nothing becomes generic) when it compiles 3.0 or 1.2 without them; none
without a compiler (CL_DEVICE_COMPILER_AVAILABLE) or below OpenCL C 1.2. clasp
migrate --target device takes the first of cl2.0, cl3.0, cl3.0-nogeneric that
every selected device takes (a 2.0-only device and a 3.0-only one share
cl3.0-nogeneric). A driver that compiles generic code without advertising it
is not guessed at: clasp migrate --device-check shows what it does."#;

pub const DEVICES_AFTER: &str = r#"JSON

--format json (or --json) prints {"platforms": [{"name", "vendor", "version",
"error", "devices": [{"name", "vendor", "driver_version", "version",
"opencl_c_version", "opencl_c_all_versions", "opencl_c_features",
"compiler_available", "generic_address_space_support", "fit": {"target",
"targets", "cl_std", "generic", "program_scope_globals", "why"?}}]}], "note"}.

THE DEVICE WORKER

Every OpenCL call runs in a child process, clasp-device-worker (built and
installed beside clasp), which answers one JSON request: a driver brings its
own compiler into the process calling it, and PoCL's is clang 15, whose
libclang-cpp, like clang 19's, exports its functions without symbol versions.
In a process of clasp, which is linked to libclang-cpp 19, PoCL's calls bind
to clang 19's functions: listing devices works, the first build crashes
(SIGSEGV, measured on Debian 12). The worker is linked to neither clang nor
libclang-cpp (libLLVM 19 stays, whose symbols are versioned, and PoCL's LLVM
15 loads beside it), and any driver crash there is an error of the run, not
the end of clasp.

KNOWN DRIVERS

What the known driver families support, and the options to pass (the host's
option, and clasp's --target):

- PoCL 3.1 (Debian 12 pocl-opencl-icd, CPU): advertises OpenCL 3.0; OpenCL C
  1.0-1.2 and 3.0, neither feature, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT
  false. Generic code is rejected (changes address space of pointer), with
  -cl-std=CL2.0 too (PoCL 3.1 takes -cl-std=CL2.0 without complaint and builds
  the parameters as __private). Options: none (--target cl3.0-nogeneric:
  nothing migrated). Source: clasp devices and --device-check on Debian 12;
  PoCL's doc/sphinx/source/conformance.rst (3.x) lists Generic Address Space
  and Program Scope Global Variables as unsupported.
- PoCL 4 and 5 (CPU): OpenCL 3.0 with generic address space and program-scope
  variables. Accepted as OpenCL C 3.0; -cl-std=CL2.0 is rejected. Options:
  -cl-std=CL3.0 (--target cl3.0). Source: PoCL 4.0 release notes ("Support for
  generic address space", "Support for program-scope variables", CPU driver);
  the -cl-std=CL2.0 rejection is reported, not verified here.
- NVIDIA (OpenCL 3.0 drivers, 466 and later; 580 reported): OpenCL 3.0 with
  CL_DEVICE_OPENCL_C_VERSION OpenCL C 1.2, no generic feature listed. Reported
  accepted, with -cl-std=CL3.0 and with no option, without the feature
  advertised. Options: -cl-std=CL3.0 after --device-check confirms it
  (--target device chooses cl3.0-nogeneric from what it advertises). Source:
  ILGPU pull request 464 (NVIDIA 466.11 reports OpenCL C 1.2 on an OpenCL 3.0
  device); acceptance is reported, not verified here: run --device-check.
- Intel Graphics Compute Runtime (NEO): OpenCL 3.0; the generic and
  program-scope features are listed only where the device's OpenCL 2.1 feature
  set is on (supportsOcl21Features), else OpenCL C 1.2. Accepted where listed.
  Options: -cl-std=CL3.0 where listed (--target cl3.0), else none. Source:
  intel/compute-runtime shared/source/compiler_interface/oclc_extensions.cpp
  (getOpenclCFeaturesList).
- Mesa rusticl: OpenCL 3.0 with OpenCL C 1.2,
  CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT false. Rejected. Options: none
  (--target cl3.0-nogeneric). Source: Mesa
  src/gallium/frontends/rusticl/api/device.rs
  (CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT answered false)."#;

/// `--json` of `devices`.
pub const DEVICES_JSON: &str = r#"Print JSON instead of text (as --format json)."#;

/// `--format` of `devices`.
pub const DEVICES_FORMAT: &str = r#"text (default) or json.

The JSON layout is described under JSON below."#;

pub const RULE_ABOUT: &str = r#"Explain a rule or reason code (`clasp rule builtin-pin`), or list every code.

clasp rule lists every rule and reason code with its one-line summary; clasp
rule CODE prints its documentation: what it does, why, an example, when it
applies (when it refuses, for a rule) and what to do (how the change is
proven, for a rule). --format json prints the same as JSON ({"code", "kind",
"summary", "what", "why", "example", "refuses", "safety"}, a list without
CODE). SARIF rules (clasp migrate --format sarif) carry the same texts."#;

/// The `CODE` argument of `rule`.
pub const RULE_CODE: &str = r#"The code to explain (a rule such as generic-param, or a reason such as
builtin-pin); without it, every code with its summary."#;

/// `--format` of `rule`.
pub const RULE_FORMAT: &str = r#"text (default) or json."#;

pub const COMPLETIONS_ABOUT: &str = r#"Print the completion script for a shell (bash, zsh, fish, elvish, powershell).

The script completes subcommands, options and their values, generated
from the same definitions as --help. Install it where the shell looks:

  clasp completions bash > ~/.local/share/bash-completion/completions/clasp
  clasp completions zsh > ~/.zfunc/_clasp       (with ~/.zfunc in $fpath)
  clasp completions fish > ~/.config/fish/completions/clasp.fish

scripts/man writes the man pages (clasp(1), clasp-migrate(1), ...) from the
same definitions."#;

/// `SHELL` of `clasp completions`.
pub const COMPLETIONS_SHELL: &str = r#"The shell: bash, zsh, fish, elvish or powershell."#;

/// `clasp server`'s long help.
pub const SERVER_ABOUT: &str = r#"Run the language server over stdio: diagnostics and verified code actions in editors.

Started by an editor's LSP client (Neovim, VS Code, Helix: see the README's
"In the editor"). Each open file (OpenCL C, and a host file clasp reads) is
analysed as `clasp migrate FILE` would, against the editor's unsaved text
(every open buffer is laid over its file), with the clasp.toml found above
it, in a worker thread: at once when opened or saved, 300 ms after the last
edit. A result computed for an older text is dropped, never shown.

Diagnostics:
  information  each change clasp would make: its rule code (linked to the
               text `clasp rule CODE` prints), message and evidence
  hint         each refusal (warning when it keeps the file from compiling
               as the target); `suppressed` (`// clasp: keep`) is not shown
  information  the residual-generic lint; warnings and errors in the file

Code actions (offered only for change sets recompiled and proven
equivalent; each title says so):
  quickfix          apply this change set: its whole edit, other files included
  source.fixAll     apply all change sets of the file's analysis
  quickfix.clasp.keep
                    insert `// clasp: keep` above the declaration
A code action asked while the file's result is stale waits for a fresh
analysis; each edit names the document version it was computed for, and
clients refuse it if the document changed since.

initializationOptions (JSON, all optional):
  "refusals": true     show refusals (false: only changes and errors)
  "debounceMs": 300    wait after the last edit before analysing again
  "args": [...]        `clasp migrate` options for every analysis, e.g.
                       ["--target", "cl3.0"] or
                       ["--compile-commands", "build/compile_commands.json"]
                       (paths relative to the server's working directory)

The server logs each analysis and its time to stderr. A crash of clang in
an analysis ends the server; the editor starts it again."#;

/// `clasp cache`.
pub const CACHE_ABOUT: &str = r#"Remove what clasp keeps across runs.

`clasp cache clean [PATH]` removes the cache directory of the project at
PATH (default: the current directory): .clasp_cache under its edit root
(the enclosing git work tree, else PATH), or the directory --cache-dir
names. It says how many entries and bytes it removed. A cache server
(--remote-cache) keeps its own entries: its own tools clean it."#;
