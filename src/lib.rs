//! clasp: migrates OpenCL C 1.x kernels to OpenCL C 2.0 generic address spaces, and shows every
//! change as a unified diff.
//!
//! This is the contributor's documentation: the pipeline, its stages and the invariants the code
//! keeps. What clasp does for a user is in the README and in `clasp migrate --help` (the option
//! reference, in `cli`'s help texts); what each rule and reason code means is in `clasp rule CODE`
//! (the `codes` registry). Each module's own `//!` documentation says what it takes and gives.
//!
//! # The pipeline
//!
//! Data flows one way; each stage is a module that hands the next owned, plain data, and no stage
//! calls back into an earlier one.
//!
//! ```text
//! discover  paths -> sorted unit files and host files; clasp.toml or compile_commands.json -> jobs
//! parse     libclang -> KernelSyntax: functions, pointer declarations, how each space is spelled
//! lower     clang 19 -> LLVM IR (spir64 -O0 -g) -> inkwell -> IrFacts: flows, calls, builtins, stores
//! host      tree-sitter over C, C++ and Python -> HostFacts: build calls, embedded kernels, programs
//! infer     decisions with evidence and reason codes, per declaration
//! plan      rules -> Fixes (sorted byte-range Edits), Refusals, Warnings; change sets by union-find
//! settle    verify each unit (recompile as the target, kernel equivalence at amdgcn); bisect and
//!           withdraw failing change sets to a fixpoint
//! render    the report: unified diff, --explain, --statistics, JSON, SARIF, the summary line
//! write     the batch written whole or not at all (atomic renames), or nothing without --write
//! ```
//!
//! `run` (what the binary's worker and the tests call) parses the arguments and drives one command;
//! `main.rs` is the supervisor that runs it in a worker process (see *Isolation*).
//!
//! # Code map
//!
//! By layer (see *Layers*: a folder uses only the folders above it).
//!
//! ```text
//! entry      src/main.rs, lib.rs   the supervisor (isolation/) running `clasp::run` in a worker;
//!                                  mimalloc is the whole process's allocator (Rust's, clang's, LLVM's)
//! support/   ids, text, exit codes, timings, progress, colour, a run's shared stores, git status,
//!            texts laid over files (overlay.rs: standard input's, read by every reader of unit text),
//!            store/ (results kept across runs and runners: a directory, a Bazel-protocol server)
//! isolation/ supervisor and worker processes, signals, phases, scratch files
//! codes/     the code registry: table.rs, one row per code (a rule: its module and scope, which give
//!            --select/--ignore and keep(...); a reason: its documentation and whether it withdraws)
//! settings/  options and targets, host build-option spellings, the edit root, paths as shown
//! facts/     syntax.rs (KernelSyntax), ir.rs (IrFacts), flowgraph.rs (queries over flows)
//! host/      tree-sitter facts of host files: literals decoded, program creations, build calls
//! input/     the walk (ignore crate), clasp.toml, [[program]]s, compile_commands.json, `#if`
//!            conditions for discovered configurations; source maps and wrapped sources
//! front/     parse/ (libclang's safe RAII wrappers in parse/libclang/, the walk, macros and their
//!            expansions, skipped branches, shared parses and walks), lower/ (clang in process, the
//!            safe IR view lower/llvm/, facts, targets), precompiled preambles, unit.rs (one unit),
//!            stored.rs (a loaded unit as bytes and back, equal facts of read units shared again)
//! verify/    recompile through a VFS overlay; kernel equivalence (pipeline, canonical form,
//!            comparison), functions kept out or proven on their own, cost
//! infer/     decisions and pins with evidence; describe.rs: source words
//! rules/     a rule's detection, edits and documentation (its module's `DOC`); registry.rs
//! migrate/   the batch driver: load -> plan/ -> settle/ -> written.rs -> account.rs; host/:
//!            embedded kernels, generated copies, build calls edited; report.rs: the report
//! output/    render, summary, SARIF, analysis, write/ (atomic writes, a batch whole or not at all)
//! devices/   the OpenCL ICD loader (ffi.rs), the device worker (bin/), --device-check
//! trace/     run-check: the interceptor's traces read, paired by thread and process,
//!            compared element by element and timed, the report
//! cli/       clap structs and help texts (help/), project resolution
//! commands/  each command (analyze, migrate, devices, rule), preflight, selection, --interactive,
//!            the result cache
//! server/    `clasp server`: the LSP main loop, open documents, the analysis worker (a dry run of
//!            `commands::migrate` with the buffers laid over their files), diagnostics, code actions
//! native/    the C++ shim: in-process clang, preamble lexing, function printing; and
//!            `intercept/`, run-check's preloaded C library (built by `native/build.rs`,
//!            embedded in the binary by `trace::interceptor`)
//! tests      cli_tests/, fixture_tests.rs, host_tests/, fuzz_tests/, layers_tests.rs
//! ```
//!
//! # Invariants
//!
//! - No stage calls back into an earlier one, and modules import one way: no import cycle between
//!   modules (a rule never imports the batch driver, `render` never imports the CLI, `infer` never
//!   imports a report, `lower` never imports `verify`, `cli` never imports `commands`); `infer`,
//!   `rules` and `render` never touch libclang or LLVM.
//! - Every code printed anywhere (`--explain`, `--statistics`, `--json`, SARIF) is a `codes::Code`;
//!   no reason is chosen by matching text. Every code has its summary and documentation under fixed
//!   headings (a unit test checks each one, a CLI test that `clasp rule CODE` prints it). A rule is
//!   its module and one row of `codes/table.rs`; a lint (a note about a kept result) its
//!   documentation in `codes/lints.rs` and one row.
//! - Duplicate detection depends only on the units and the edit root: it runs once per batch,
//!   whatever the rounds of planning.
//! - Edits are byte ranges into the original bytes; change sets whose edits overlap are withdrawn
//!   (`overlapping-edits`), identical edits from units sharing a header count once. Only files
//!   under the edit root are edited.
//! - Every reader of a unit's or host file's text (the parse, clang's compiles through a VFS
//!   overlay laid first, programs, host copies, the device check, the cache's hashes) reads it
//!   through `support::overlay`, so a text read from standard input (`-`) stands for its file
//!   everywhere; such a run writes no file, and changes only that text.
//! - No source file is written without `--write`, `--out-dir` or `--interactive` (the store writes
//!   only in a directory of its own, *Kept across runs*); writes are atomic and never to a file
//!   that changed since it was read.
//! - A result read from the store is what computing it again would give: a key holds everything
//!   that decides its entry, and an entry that does not read back whole is computed again.
//! - Every change is recompiled as the target and its unit's kernels proven equivalent at amdgcn
//!   (equivalence pipeline) before it is shown (unless `--no-verify` or `--allow-unverified`, which
//!   mark it unverified); what fails is withdrawn a change set at a time, with the reason, and
//!   every unit touching a withdrawn set is verified again (to a fixpoint).
//! - A change set (declarations linked by pointer flows, across the batch) stands or falls whole; a
//!   unit's required sets stand or fall together. A merge of duplicates joins its members' sets and
//!   those of the merges it calls into; edits inside a deleted copy go with it.
//! - Every function definition in a file under the edit root is accounted for exactly once.
//! - A unit with a required change that cannot be made, or whose required changes fail
//!   verification, changes nothing and is an error (exit 2).
//! - Text a macro produces is edited only where it is written: a qualifier spelled by a macro use
//!   at the declaration is removed at the use; one written inside a macro's body or in the
//!   argument of a use is edited there only when every expansion, in every unit and
//!   configuration, puts it at the first level of a pointer declaration that becomes generic
//!   (else refused as `hidden-qualifier` or `macro`).
//! - A unit that crashes or hangs clang (or panics) costs that unit only: the batch runs again
//!   without it, in a fresh worker process, so no state of a crashed clang reaches the result. A
//!   file whose own unit fails in one configuration changes in none, nor does any file a unit
//!   clang rejects read (`migrate::FailedFiles`).
//! - Output is sorted and deterministic, whatever the number of workers (`-j`): loading and first
//!   checks run in parallel, results are taken in unit order, and bisection runs in order after
//!   them.
//! - What `--interactive` shows for a change set is rendered from the very edits, by the very code
//!   (`migrate/written.rs`), that write the files when that set alone is accepted.
//!
//! # Unsafe code and the native boundary
//!
//! The only files with `unsafe` code are `parse/libclang/` (libclang), `lower/llvm.rs`,
//! `lower/in_process.rs`, the `verify/` modules that reach llvm-sys where inkwell has no API
//! (`pipeline.rs`, `opaque.rs`, `wrappers.rs`, `cost.rs`, `known_calls.rs`, `canonical.rs`),
//! `devices/ffi.rs` (the OpenCL ICD loader), `isolation/exit.rs` (`libc::_exit`) and
//! `isolation/signals.rs` (`sigaction`, `kill`, `prctl`, `_exit`): RAII wrappers (index,
//! translation unit, module) that free themselves; cursors and values borrow their parent; the
//! in-process compiler hands back two malloc'd buffers, copied and freed once. libclang is loaded
//! at run time (clang-sys `runtime`) so a missing libclang is a clear error; libclang-cpp and
//! libLLVM are linked (the `clang-19` package brings both).
//!
//! In-process compilation: a `clang-19` process spends about 28 ms loading and relocating its
//! libraries before a 3 ms compile of a kernel file, and clasp compiles a changed unit three times
//! (the facts, the original and the result for the equivalence triple), so clang runs in clasp's
//! process: the shim (`native/clang_compile.cpp`, built by `native/build.rs`, linked to
//! libclang-cpp) builds the cc1 invocation with clang's own driver from the same argument list (so
//! the resource directory, the default OpenCL header and every option mean what they mean to
//! `clang-19`; the bitcode is byte for byte what `clang-19 ... -o -` writes, tested), frees what
//! cc1 would leak at exit (`-disable-free`), keeps diagnostics in memory (uncoloured) and catches a
//! crash inside clang (CrashRecoveryContext, as libclang does for parsing) and every C++ exception
//! (the shim is built with exceptions on for that). It registers every LLVM target, as the
//! `clang-19` executable does, so its amdgcn output is byte for byte `clang-19`'s (tested, for
//! verification's compile and for clang's whole `-O2` pipeline). clang's state after a crash is not
//! guaranteed (a deliberate crash, `#pragma clang __debug crash`, in a compile left a debug test
//! process's heap corrupted), so under the supervisor the worker ends at once and the batch runs
//! again without the unit. Each compile has its own compiler instance and LLVM context, so workers
//! compile in parallel; LLVM's target registry, a global list that registration would corrupt if
//! two threads raced (lookups then spin forever), is filled once before any of them runs
//! (`targets.rs`), and libclang's indexes are created one at a time; each unit's IR is read in a
//! fresh LLVM context too (a context keeps every constant and type it ever made). `$CLASP_CLANG`
//! runs an executable instead.
//!
//! # Isolation
//!
//! The `clasp` a user starts, for `migrate` and `analyze`, is a supervisor
//! (`isolation/supervisor.rs`): it runs the batch in a worker process (`clasp` again, loading LLVM
//! once) and reads what each worker thread is doing from a log the worker appends to (this unit,
//! this phase: parsing, compiling, optimising; `isolation/worker.rs`). When the worker dies (a
//! crash clang's own recovery did not catch; a crash it caught, after which the worker ends at once
//! through `_exit`, no destructor running; a panic), or a phase outlives `--timeout` (the worker is
//! killed), the unit at fault is known, and the batch runs again in a new worker without it.
//! Nothing is written before every unit has been parsed, compiled and verified, so a worker that
//! dies has written nothing, and its output is held back so that each report is printed once (not
//! with `--interactive`, whose questions show as they are asked); the journal of staged temporaries
//! lets the next run remove what a killed worker was staging (`isolation/scratch.rs`). When several
//! units were in flight at a crash that names none, the next run uses one thread, so that the one
//! after names it. Signals (`isolation/signals.rs`): SIGINT, SIGTERM and SIGHUP are forwarded to
//! the worker, deferred while renaming, and the worker dies with its parent. `CLASP_NO_ISOLATION=1`
//! runs everything in one process, as does `clasp::run`, which the tests call. The cost is in
//! `scripts/README.md`.
//!
//! # Verification
//!
//! `verify` compiles the original and the result (as the target) for `amdgcn-amd-amdhsa -nogpulib
//! -O2 -Xclang -disable-llvm-passes` (-O2 code generation, no LLVM pass), and runs each module
//! through the same fixed pipeline with inkwell (`EQUIVALENCE_PIPELINE`, inliner threshold
//! 1,000,000):
//! `globalopt,cgscc(inline),function(sroa,infer-address-spaces,early-cse,infer-address-spaces,instcombine<no-verify-fixpoint>,simplifycfg,sroa,early-cse<memssa>,gvn,instcombine<no-verify-fixpoint>,simplifycfg,adce),globaldce`
//! (a scalar clean-up rather than the whole `default<O2>`: the same verdicts on every corpus
//! project at about 60% of the pipeline time, no loop passes, no vectorisers). The result's compile
//! for that triple is also its recompile as the target (the language rules are the same); a unit
//! whose original does not compile for it is recompiled for spir64.
//!
//! - Helpers no change touches are left out before that (`migrate/settle/left_out.rs`): when every
//!   edit of a unit lies inside a function definition (or deletes whole definitions and the blank
//!   space around them) and touches no directive, the baseline and each result compile with the
//!   same text around their changed functions, so a helper with no edit that calls no changed
//!   function compiles alike on both sides. Both compiles leave such helpers out of code
//!   generation (`native/clang_compile.cpp`'s `DroppingConsumer`: parsed and checked, a call to
//!   one emits a declaration), each reported with clang's ODR hash; the check compiles both sides
//!   whole when the two compiles left out other helpers or the same ones unlike, and whenever the
//!   comparison finds a difference (its fallbacks inline helpers a comparison kept as calls). On
//!   big-header code, where each unit includes hundreds of header helpers, this is most of a
//!   check's compile and pipeline.
//! - Functions both compilations define alike are kept out (`opaque.rs`): a non-kernel function
//!   whose unoptimised IR is the same on both sides (instructions, callees, globals and address
//!   spaces; metadata and attribute-group numbers aside) and that calls only such functions, to the
//!   leaves, becomes a declaration on both sides, so the kernels call it instead of inlining and
//!   optimising it again. A function calling one that differs is never kept out, whatever its own
//!   text, and structs compare by layout. Which functions are alike is read from LLVM's own
//!   printer, with one slot tracker per module (`native/function_print.cpp`).
//! - A changed function defined in a file other units read too (a shared header), and every changed
//!   function of a unit whose largest kernel inlines to more than 20,000 instructions (a
//!   megakernel), is proven on its own, once per batch (`functions.rs`, `wrappers.rs`). Proofs go
//!   callees first: a function is proven with the changed functions it calls that are already
//!   proven called as such, so its proof costs its own body and composes through theirs. A wrapper
//!   kernel on each side calls it as the original's callers did: with the original's parameter
//!   types, each pointer the result made generic cast from the space the original named; for a
//!   merged member, the result's side calls the survivor, so each member is proven in its own
//!   space. Both wrappers go through the same pipeline, with the program-scope variables made
//!   declarations (the proof holds whatever data they hold: the kernels' comparison compares the
//!   data), and must come out identical. The kernels then call a proven function as a declaration
//!   of the original's type, each generic pointer cast back to the named space (InferAddressSpaces
//!   folds the two casts, through any offset taken between them; `known_calls.rs` moves an offset a
//!   caller takes into the named space before the cast); a call reads as the original's only when
//!   the pointer came from the space proven. A proof applies when the result's function returns the
//!   same type and takes the same parameters but for pointers made generic; a function reaching a
//!   kernel, or changed otherwise, is inlined, and so is a helper reading `sizeof` of its pointer
//!   (4 bytes for `__local` at amdgcn, 8 generic), subtracting its pointers, or behaving
//!   differently in one member's space.
//! - A proof's verdict is kept by the SHA-256 of everything it depends on, each part
//!   length-prefixed (`verify::functions::digest`): both names, and on both sides the printed text of the function and of every function it runs, with
//!   the declarations of the program-scope data they name. Which functions are proven so is the
//!   plan's to say (those in files several units read, and merged members), never the order the
//!   checks ran in, so the report is the same at any `-j`. A proven function is only ever called,
//!   never trusted where a pointer reaches it from another space than the one proven: such a call
//!   reads differently and the kernel is compared again with helpers inlined.
//! - When the kernels differ, the check runs again with the changed helpers inlined, then with
//!   every helper inlined (an opaque call can hide a shared struct from SROA; `whole.rs`), and that
//!   verdict stands. In a unit whose largest kernel inlines to more than 20,000 instructions the
//!   middle step is skipped and the original's whole kernels are optimised once for all the unit's
//!   checks. When a check fails, the change sets whose functions were all proven on their own are
//!   tried together first, then each set changing a function whose own proof failed is checked
//!   alone, instead of bisecting them all; when kernels compared different, the sets whose
//!   functions reach none of those kernels are tried together first. Before each comparison the
//!   size of the largest kernel it would optimise is estimated (`cost.rs`; each call of a defined
//!   helper counts that helper's inlined size again); over `--proof-limit` the set is withdrawn as
//!   `proof-too-large`.
//! - For the last comparison every other non-kernel function is made `alwaysinline` and internal
//!   (`noinline`/`optnone` removed), and every initialised program-scope variable is made internal:
//!   no host API writes one, so `globalopt` marks a variable no kernel stores to as read-only data
//!   on both sides alike, whatever its space, and `globaldce` removes on both sides a table whose
//!   every load folded. SROA turns arguments back into the kernel's values, and InferAddressSpaces
//!   turns generic pointers back into the spaces they come from at once, before early CSE (which
//!   forwards a load past a `__global` store when the load is from `__local`, but not from a
//!   generic pointer: run first, a helper's loop over `__local` memory would fold in the original
//!   only, a false "not equivalent"), and again after it, before the passes that react to pointer
//!   width run. InferAddressSpaces does not look through `ptrtoint`, so a helper that subtracts or
//!   orders its pointers is not proven equivalent once generic.
//! - Only the kernels that run a changed function are optimised and compared (every kernel of the
//!   unit when a change set moves or gives a space to a program-scope variable: kernels read
//!   variables directly). Every kernel is read with inkwell and compared canonically
//!   (`canonical.rs`, `compare.rs`): values, blocks and arguments renamed by position, metadata and
//!   attribute-group numbers dropped, named struct types printed as their name without LLVM's
//!   numeric suffix followed by their body (`%struct.T.2` reads `%struct.T{ float, i32 }`, so two
//!   different layouts never compare alike), a call to a library builtin compared by its demangled
//!   name (the 2.0 generic overload after an `addrspacecast` to flat equals the named overload),
//!   and an index into a 32-bit address space (local, private) compared by its low 32 bits. The
//!   program-scope variables are compared too, as one more body (`(program-scope data)`: each definition with its
//!   initialiser), and amdgcn's constant space (4) reads as its global one (1): read-only data
//!   reads the same from either, so a table moved from `__constant` to `__global` compares equal
//!   while a changed initialiser does not. `optimised_kernels` gives one compilation's canonical
//!   kernels and `compare` compares two, so a caller trying several results for one unit compiles
//!   the original once.
//! - Residual generic accesses (the lint `residual-generic`, `residual.rs`) are counted in the
//!   canonical kernels every comparison already makes (loads, stores, atomics, `llvm.mem*` and
//!   builtin calls through flat pointers, by cause), and, only when the result keeps a source
//!   `noinline` helper with a generic pointer parameter, in one more run of the pipeline over the
//!   same bitcode that leaves such helpers out of line (nothing is compiled again); a passing
//!   check's kernels with more than the original's become the report's `residual_generic`.
//! - The original is compiled as the target when it compiles so, else as it was read (a unit that
//!   needs a repair; its other changes are then proven against the unit with its repairs applied):
//!   with the same language standard on both sides, code under `#if __OPENCL_C_VERSION__` is the
//!   same in both, so only clasp's edits can make a difference. Running every helper through the
//!   same inlining and address-space inference first is what makes correct migrations come out
//!   identical: plain `-O2` lets its cost model inline a generic helper in one version and not the
//!   other, and schedules index arithmetic differently for a generic pointer (a `__local` helper
//!   indexed by a truncated `get_local_id`, `fixtures/migrate/unprefixed.cl`, is verified).
//!
//! # Sharing across units
//!
//! - Shared preambles (`lower/preamble.rs`, `precompiled.rs`): a unit's preamble is its leading
//!   comments and directives, ended at a line start with every `#if` closed (found by clang's raw
//!   lexer, `native/preamble.cpp`). Units whose preambles are the same text once comments are set
//!   aside, in the same directory, compiled with the same arguments over the same replaced files,
//!   share one precompiled header of it, built in process when a second compile asks for it and the
//!   first found the headers heavy (for one compile it would cost more than it saves) and deleted
//!   with the run. Its text is compiled as if in the unit's directory (a VFS overlay lays it there;
//!   nothing is written beside the user's files), so its quoted includes find what the unit's do,
//!   and each unit's compile skips its own preamble bytes (`-preamble-bytes`): its lines, offsets
//!   and the declarations it sees are those of the whole file. It serves the facts' compile and
//!   both compiles of each equivalence check. The facts' one is precompiled with function bodies
//!   skipped (clang's `SkipFunctionBodies`, set by the shim): a unit's compile against it defines
//!   the unit's own functions only, and `lower` takes every header function's facts from the
//!   preamble compiled alone, once per batch, unless one of them calls a function the unit defines
//!   (a flow into it would read as an external call): that unit compiles whole. A compile clang
//!   rejects against a shared preamble is compiled whole again, so every error reads as for the
//!   unit alone; with `-include`, `-imacros` or `$CLASP_CLANG`, and for a preamble including a file
//!   only an overlay provides (an embedded kernel's text), units compile whole. Every file a
//!   precompiling read is stamped (size, modification time): one changed since (a run after
//!   `--interactive` wrote its answers) makes the preamble stale, and it is built again.
//! - Shared parses (`parse/preamble.rs`): libclang parses the units of one preamble against one
//!   precompiled header of it, saved with its preprocessing record. The walk sees the same cursors
//!   in the same order; the preamble's own places (its directives, a macro it defines, text its
//!   `#if` leaves out) are in the precompiled text, comments one space each, and are read back into
//!   the unit's text (offset, line and column) through the comments' ranges. A preamble clang says
//!   anything about is not precompiled (the units' diagnostics stay their own), a unit whose parse
//!   against it has an error is parsed whole again, and a header changed since makes it stale.
//! - Shared walks (`parse/memo.rs`): what walking a function of a header the preamble includes adds
//!   to a unit's syntax (files met, references, `sizeof` and cast targets, the function, its
//!   `static` variables, its words), and what walking one of its program-scope variables adds, is
//!   kept by the first unit that walks it and replayed, in the same order, by the others whose
//!   context is the same: the preamble's identity (its normalised text, directory and arguments),
//!   the unit's other files as they are on disk (size and modification time), every macro the unit
//!   defines and the files met so far. A unit whose own code includes a header after its first
//!   declaration, an embedded kernel and a unit whose options lay files over the disk are walked
//!   whole.
//! - Facts a big codebase repeats in every unit are kept once per batch: a header helper's tokens
//!   (`parse/function.rs`), its words for duplicate detection (`rules/merge_duplicates/detect.rs`),
//!   each shared by content, a header's bytes once a unit reads them (`ids::Files`), a header
//!   function's IR facts and flows in every unit compiled against its preamble (`lower/facts.rs`),
//!   and every inference decision equal to one already made (`infer::Interned`). Shared values are
//!   never changed after they are made, so sharing one is the same as holding a copy. A unit's
//!   functions are shared values too, and so are the references a replayed walk recorded
//!   (`syntax::References`), the words of the header walks a unit met (`syntax::Identifiers`), its
//!   `#if`-skipped ranges, its helper definitions as duplicate detection reads them
//!   (`detect::Def`), and its clang arguments and shared-function names in the checker
//!   (`ids::intern_value`). A unit holds lists of pointers to them, its own code's syntax and
//!   facts, and what checking it left. The memory and time this saves are measured in
//!   `scripts/README.md`.
//!
//! # Kept across runs
//!
//! `support::store` keeps results in a directory (`.clasp_cache/` under the edit root, or
//! `--cache-dir`) and, with `--remote-cache`, on a server speaking the Bazel HTTP remote-cache
//! protocol: each entry a record `ac/<key>` naming its payload `cas/<sha256>`, checked on read
//! (a record answering another key, a payload of another size or digest is a miss, never a
//! result), written whole (renamed into place), the directory bounded (least recently used go).
//! Every key starts with the build's stamp: the digest of clasp's source (`CLASP_SOURCE_DIGEST`,
//! `native/build.rs`), `clang --version`, and the include directories of the environment.
//!
//! - A run's output (`commands/cache.rs`): replayed when the arguments that decide the output,
//!   every file the batch read, the names in every directory searched, and every path at which a
//!   new file would shadow one it read (`store::shadowing_candidates`) are as they were.
//! - A loaded unit (`migrate/reused.rs`, `front/stored.rs`): the job names the files its load
//!   read; those files' bytes and the shadowing paths' absence name the unit, read back instead of
//!   parsed and lowered, and interned so that units read back share as loaded ones do. Kernels
//!   embedded in host code and `[[program]]`s compile from a run's scratch copies: loaded anew.
//! - A verdict (`migrate/settle/stored.rs`): a check of a unit with some change sets, named by
//!   what every check of the unit shares (its files' bytes, its clang arguments, the required
//!   repairs' texts, the kernels compared, the helpers left out) and by the texts checked and the
//!   proof's scope. A verdict holds names and messages only (no id of the run), so a stored one is
//!   what the check would find again; `--shard K/N` checks its part of the units and stores
//!   their verdicts for a final run.
//!
//! # What the front end records
//!
//! - `parse` records, for every pointer declaration level, clang's address space and where the
//!   qualifier is spelled (token byte range, macro use and macro name, or hidden). It also records
//!   what the IR cannot show: `sizeof(p)`, explicit casts that name a space (`(__global T *)(p +
//!   1)`, attributed through pointer arithmetic, element addresses, steps and other casts to the
//!   declaration the operand derives from), call arguments cast to an unqualified pointer type,
//!   and, per `#if`-skipped range, its identifiers, those used as more than `p[i]`/`p->f`, and
//!   whether it spells `__constant`. Program variables include `static` ones in functions, with
//!   their IR name, whether they are initialised and where a missing qualifier would go. For
//!   merging it keeps each helper's tokens as written (with the definition of every macro used),
//!   every use of a function's name (called or not, spelled or produced by a macro), the
//!   identifiers of every macro body, and every identifier the unit's files write.
//! - `lower` follows pointer values at -O0 through loads/stores of variable slots, GEPs, casts and
//!   selects back to a declaration, global, private object or memory; debug records are switched to
//!   `llvm.dbg.declare` calls to link allocas to source variables. It records which globals a
//!   function stores into directly, and direct calls, so verification optimises only the kernels
//!   that run a changed function. clang is asked to emit every definition (unused `static` and
//!   plain C99 `inline` ones included, with `-femit-all-decls -fgnu89-inline`).
//! - Kernels are what the IR says (calling convention), so a kernel stamped out by a macro is one.
//!
//! # Tests
//!
//! `scripts/test` runs `cargo fmt --check`, clippy and `cargo test --all-targets` with `CI=true`
//! (insta fails on a missing or changed snapshot). Tests that need clang, or PoCL, fail, never
//! skip, when it is missing. To review snapshot changes: `cargo insta review` (never accept
//! blindly). There are five test crates:
//!
//! - lib, the unit tests inside `src/`: `verify/` compiles hand-written 1.2/2.0 pairs and checks
//!   the equivalence verdict both ways (`functions.rs`: what a function-level proof must prove and
//!   must not); `lower/in_process.rs` tests that the in-process compile writes byte for byte the
//!   bitcode `clang-19` writes, reports clang's errors with file, line and column (driver errors
//!   too), and gives the same output on parallel threads; `lower/facts.rs` and `parse/preamble.rs`
//!   that a unit's facts and syntax against a shared precompiled preamble are those of the unit
//!   alone (comments of every shape in the preamble, a header changed since precompiling),
//!   `parse/memo.rs` that a replayed walk is the whole walk, `infer/` that equal decisions of two
//!   units are one shared value; `host/tests_builds.rs`, `tests_literals.rs` and
//!   `tests_programs.rs` cover host code; `devices/tests.rs` which target fits which driver;
//!   `write/` every refused write (the full disk through an injected writer); `codes/` and
//!   `rules/registry.rs` that every code has its documentation under the fixed headings and that
//!   one declaration rule applies to each declaration.
//! - cli (`src/cli_tests/`, a file per theme) runs the built binary: exit codes, a generated
//!   megakernel program proven function by function and its fallback refused as `proof-too-large`
//!   under a low `--proof-limit` (`big_programs.rs`, python3 running `scripts/gen_big_program.py`),
//!   a broken file in a batch, `--write`, `git apply`, host build options, a second run with no
//!   flags, a Latin-1 file kept byte for byte, directory walks with `.gitignore`, `.ignore`, globs,
//!   extensions and symlinks, `--write` in temporary git repositories with modified, staged,
//!   untracked and renamed files and with a git that refuses the repository, `--statistics`,
//!   `--check` and its file list, colour and `NO_COLOR`/`CLICOLOR_FORCE`, error lines at
//!   `file:line:col`, `// clasp: keep`, `--select`/`--ignore` and `[[file]]`'s (`file_rules.rs`), standard input
//!   with `--stdin-filename` (`stdin.rs`), clang's `compile_commands.json`,
//!   runs with nothing to work on, JSON that is the same in two runs, `--interactive` answered on a
//!   pipe and on a pseudo-terminal (util-linux `script`), the result cache replayed and missed, and
//!   `clasp rule`, whose listing and two codes' pages are snapshots; isolation: a crashing and a
//!   hanging unit beside good ones, the diff compared with that of the batch without them at `-j1`
//!   and `-j2`; interruptions: a `--write` run killed at 20 random moments (`kill.rs`: seeded,
//!   printed, `CLASP_KILL_SEED` replays; SIGKILL, SIGTERM or SIGINT, to clasp alone or to its
//!   process group; each time every file is the original or the finished result, all of one side
//!   unless the renames had begun, and no temporary file, scratch folder or clasp process is left),
//!   a worker outliving no supervisor, 128 + the signal, signals while the batch is staged and
//!   while it is renamed (`CLASP_TEST_WRITE_PAUSE_MS` widens both windows), a dead supervisor's
//!   folder removed (`interrupts.rs`); bad input: a 10 MB unit, a NUL byte, an unreadable file run
//!   as `nobody`, a missing include, a self-include, an `#error` in one configuration; a read-only
//!   file and a read-only header shared with another file in a `--write` batch; `-mllvm`; a merge,
//!   a program-scope move and a signature rewrite that come out the same whichever build of an
//!   empty attribute macro clasp analyses; the README (`readme.rs`: its length, and every option it
//!   names present in the commands' `--help`, every option with help text). `devices.rs` drives the
//!   real PoCL driver (`clasp devices`, `--target device`, `--device-check` on `fixtures/demo`, an
//!   embedded kernel and a changed header), each run seeing PoCL alone through the loader's
//!   `OCL_ICD_VENDORS`. `run_check.rs` drives `clasp run-check` on Intel's CPU OpenCL
//!   runtime (`scripts/setup` installs it from PyPI into `.tools/`) with a C host and a pyopencl
//!   host of `fixtures/run_check/`: identical results, a wrong substitution planted through the
//!   testing-only `CLASP_TEST_RUNCHECK_EDIT`, a nondeterministic kernel, failing runs. The SARIF
//!   log is validated (`jsonschema`) against
//!   `fixtures/sarif/sarif-2.1.0-subset.schema.json`, a schema written for these tests from the
//!   SARIF 2.1.0 standard: every object clasp emits, its required properties and only the property
//!   names the standard defines (so a misspelt name fails); the OASIS schema file itself is not in
//!   the repository, its terms being the OASIS IPR policy rather than an open-source licence.
//! - fixtures (`src/fixture_tests.rs`): every `.cl` under `fixtures/<command>/` (one small file per
//!   behaviour; an optional first line `// clasp-args: ...` adds options) is run through that
//!   command and its stdout, stderr and exit code compared with `snapshots/`. Each directory under
//!   `fixtures/migrate/` is one batch (programs sharing a header; options in its `clasp-args`
//!   file). For every migrate fixture the harness also checks, on a copy migrated with `--write`,
//!   that the input compiles as CL1.2, the output compiles as the target, a second run (no flags)
//!   changes nothing, and a fixture whose unit is an error keeps every file as it was. The
//!   `verify_*` and `withdraw_minimal` fixtures use the testing-only (hidden) `--test-ignore-pin
//!   CODE` to force a wrong change and show the recompile and the equivalence check withdrawing it
//!   (alone: the independent changes beside it are kept). `fixtures/roots/` is the edit-root tree:
//!   the test copies it, makes it a git work tree and checks that headers beside, below and above
//!   the kernels change and one outside never does.
//! - host (`src/host_tests/`): host programs end to end. Each directory under `fixtures/host/` is a
//!   small C, C++ or Python host with its kernels (a kernel file built with `NULL` options, a C++
//!   raw-string kernel built with `-cl-std=CL1.2`, escaped adjacent literals with options from
//!   `snprintf`, a pyopencl triple-quoted kernel, a stringify macro, a generated copy in a header,
//!   options from a Python list, a program clasp does not change). The harness copies the fixture,
//!   builds the host with `cc`/`c++` against a stub OpenCL library written for the tests
//!   (`fixtures/host/stub/`: C API, a C++ bindings subset and a `pyopencl` module) that records
//!   each program's source and build options, runs it, and compiles what was recorded with
//!   clang-19: as CL1.2 before clasp, and, after `clasp migrate --write`, as CL2.0 with the options
//!   the migrated host passes (which must ask for CL2.0 exactly where clasp changed the program); a
//!   second clasp run must change nothing.
//! - fuzz (`src/fuzz_tests/`): the fuzzer (`scripts/fuzz`, described in `scripts/README.md`): the
//!   cases kept under `fixtures/fuzz/`, then 160 fixed cases in CI (`scripts/fuzz SECONDS` for
//!   longer).
//!
//! # Layers
//!
//! Each top-level module is a stage folder, and a module
//! uses only the stages before its own, in this order (the layering test,
//! `src/layers_tests.rs`, holds the same table and fails on any path that
//! goes the other way, and on any cycle among the files of a folder):
//!
//! | layer       | takes                     | gives                                              |
//! |-------------|---------------------------|----------------------------------------------------|
//! | `support`   | nothing                   | ids, wording, exit codes, timings, colour, stores  |
//! | `isolation` | support                   | the supervisor and worker processes, phases        |
//! | `codes`     | nothing                   | every rule and reason code, with its documentation |
//! | `settings`  | the above                 | options, targets, build options, the edit root     |
//! | `facts`     | the above                 | syntax and IR facts as plain data, flow queries    |
//! | `host`      | the above                 | host code's facts (tree-sitter)                    |
//! | `input`     | the above                 | unit files, `clasp.toml` jobs, source maps         |
//! | `front`     | the above                 | a `Unit`: libclang's syntax and clang's IR facts   |
//! | `verify`    | the above                 | recompiles and equivalence proofs                  |
//! | `infer`     | the above                 | decisions with evidence                            |
//! | `rules`     | the above                 | fixes, refusals, warnings                          |
//! | `migrate`   | the above                 | the batch planned, settled, as a `report`          |
//! | `output`    | the above                 | diffs, summaries, SARIF, analysis, atomic writes   |
//! | `devices`   | the above                 | the user's OpenCL devices, `--device-check`        |
//! | `trace`     | the above                 | run-check's traces, compared and timed, its report |
//! | `cli`       | the above                 | the arguments parsed, the project resolved         |
//! | `commands`  | the above                 | `run`: each command driven, its exit code          |
//! | `server`    | everything                | `clasp server`: the language server over stdio     |
//!
//! `main.rs` hands `run` to `isolation::main`; each folder's `mod.rs` says
//! what it takes and gives.

pub(crate) mod cli;
pub mod codes;
pub(crate) mod commands;
pub mod devices;
pub(crate) mod facts;
pub mod front;
pub(crate) mod host;
pub(crate) mod infer;
pub(crate) mod input;
pub mod isolation;
pub(crate) mod migrate;
pub mod output;
pub mod rules;
pub(crate) mod server;
pub mod settings;
pub mod support;
pub(crate) mod trace;
pub mod verify;

/// Runs clasp with `args` (including the program name) and returns the exit
/// code: `clasp server` in `server`, every other command in `commands`.
pub fn run(args: Vec<String>, stdout: &mut dyn std::io::Write, stderr: &mut dyn std::io::Write) -> i32 {
    let cli = match cli::parse(args, stdout, stderr) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match cli.command {
        cli::args::Command::Server(args) => server::run(&args, stderr),
        _ => commands::run(cli, stdout, stderr),
    }
}

#[cfg(test)]
mod layers_tests;
