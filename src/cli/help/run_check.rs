//! `clasp run-check`'s long help: the command's reference.

pub const RUN_CHECK_ABOUT: &str = r#"Run the user's own program before and after migration, on the user's own
device, and compare what its kernels compute.

clasp runs COMMAND (with its arguments, working directory and environment)
under an interception library it ships and preloads (LD_PRELOAD): once as it
is, then once migrated, then as it is again (--runs N original runs in all,
default 2), to learn which results vary from run to run on their own
(atomics, races, data from the clock). In the migrated run, every source
clasp migrates is put in its place at clCreateProgramWithSource, matched by
content: a kernel file, or a kernel embedded in host code as string
literals, found whole in the program's text (so a host that prepends its
own #defines or joins several files still gets each migrated file in its
place); a program that #includes a migrated header gets the migrated
header's folder searched first. Such a program's -cl-std= is replaced by
the target's (-cl-std=CL2.0; CL3.0 for --target cl3.0) at clBuildProgram
and clCompileProgram. Nothing is written to the tree: the migrated sources
come from clasp migrate over PATHS (a temporary --out-dir, with the same
options and clasp.toml as migrate), or from --migrated DIR.

Compared, step by step: every kernel launch in order (kernel name, offset,
global and local sizes, scalar arguments, __local sizes; clEnqueueTask too);
after each launch the whole of every __global argument that is not const;
every read the host makes (clEnqueueReadBuffer, clEnqueueReadBufferRect,
clEnqueueMapBuffer for reading). Each thread of each process is compared on
its own, paired across runs by the process's command line and by what the
thread did (threads and processes may start in another order each run).
What differs between the original runs is reported as nondeterministic and
left out of the verdict, element by element: the other elements of that
buffer are still compared, and an element that varies after one launch of
a kernel's argument is left out of every launch of it. A difference names
the kernel, its launch, the argument, the first differing element and both
values; a launch sequence that diverges is reported as such. When something
differs, the program runs once more with the original sources built with the
migrated options, and each difference says whether the options alone make
it. Elements are read by the argument's OpenCL C type (every build gets
-cl-kernel-arg-info for that). A build of a migrated program that fails is
an error, shown with the end of the driver's log.

Timed: each launch's device time from its profiling event (profiling is
turned on for every queue); per kernel the median of the migrated run over
that of the original runs, beside the spread of the original runs' medians;
slower by more than twice the spread and by 5% or more is flagged, for a
kernel launched at least 3 times in every run (one or two launches are
mostly start-up noise; the table says so). A slower kernel whose migrated
code still makes memory accesses through generic pointers (clasp's
residual-generic lint, from the migration of PATHS) gets a note naming them;
the JSON report gives the lint's entry for every kernel it lists.

What the interceptor adds to the program: no wait. After each launch, each
buffer the kernel may write is copied into the interceptor's memory by a
non-blocking read enqueued behind the launch (one device-to-host copy per
writable buffer per launch); a non-blocking host read or map is copied by a
read enqueued just before it. The copies are written out once complete,
checked at each OpenCL call the program makes and waited for at exit; only
when more than CLASP_RUNCHECK_PENDING_MB megabytes (default 1024) of copies
are pending does the interceptor wait for the oldest. Each process (a forked
one too) writes its own trace. The program's output is captured and shown
only when a run fails. Each run gets PYOPENCL_NO_CACHE=1, so that pyopencl
builds from source rather than from its binary cache (a program made from a
binary cannot be substituted).

A run-check that is killed takes the program it started with it; the
scratch folder it leaves (under $TMPDIR, holding the copied buffers) is
removed by the next run-check.

Not followed: images, SVM pointers, programs made from binaries or IL.

Exit codes: 0 every deterministic result identical, 1 something differs, 2
an error: a run that could not start, crashed, or exited otherwise than the
first original run (clasp says which run), a first original run that
failed, a migrated build that failed, or nothing checked (no launch, every
buffer varying, or migrated sources that no program was created from)."#;

pub const RUN_CHECK_PATHS: &str = r#"Kernel files or folders to migrate, as for clasp migrate (its clasp.toml is
read). Not with --migrated."#;

pub const RUN_CHECK_MIGRATED: &str = r#"Take the migrated sources from DIR, a tree written by clasp migrate
--out-dir DIR, instead of migrating PATHS. The tree mirrors paths from the
edit root of that migrate run, so each file under DIR is paired with the
original at the same path from that root: --root names it, else it is the
current directory or the nearest folder above it under which the most of
the tree's files are found (none found is an error). Migrate on one
machine and run-check on another (a GPU node without LLVM) this way."#;

pub const RUN_CHECK_ROOT: &str = r#"The edit root, as for clasp migrate: only files under it are migrated
(default: the enclosing git work tree of PATHS, else their deepest common
directory). With --migrated: the edit root the tree was written from (the
folder whose paths it mirrors), when that is not the current directory or
a folder above it."#;

pub const RUN_CHECK_RUNS: &str = r#"How many times the original program runs (default 2, at least 2). A result
that differs between any two of them is nondeterministic and left out of the
verdict; a racy kernel may agree with itself twice by chance, so give more
runs for code with races."#;

pub const RUN_CHECK_TARGET: &str = r#"What the migrated code must compile as, as for clasp migrate: cl2.0
(default), cl3.0, cl3.0-nogeneric or device[:NAME,...]. A program that gets
migrated text is built with -cl-std=CL3.0 for the cl3.0 targets, else
-cl-std=CL2.0."#;

pub const RUN_CHECK_TOLERANCE: &str = r#"Accept float and double elements that differ by at most ULPS units in the
last place (default 0: bit for bit), for vendor compilers that reassociate.
Other types are always compared bit for bit."#;

pub const RUN_CHECK_FORMAT: &str = r#"text (default: the summary line, the per-kernel table, then each difference)
or json (one object: "verdict", "migrated_sources", "substituted",
"comparison" with its counts, "kernels", "nondeterministic",
"differences" (each with "options_alone" when the options-only run was
made), "divergence", and "timing" per kernel)."#;

pub const RUN_CHECK_COMMAND: &str = r#"The program to run and its arguments, after --, as you run it."#;
