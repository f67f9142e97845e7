//! `clasp run-check`'s long help: the command's reference.

pub const RUN_CHECK_ABOUT: &str = r#"Run the user's own program before and after migration, on the user's own
device, and compare what its kernels compute.

clasp runs COMMAND (with its arguments, working directory and environment)
three times under an interception library it ships and preloads
(LD_PRELOAD): twice as it is, to learn which results vary from run to run on
their own (atomics, races, data from the clock), and once with every
program source that clasp migrates replaced, at clCreateProgramWithSource,
by clasp's verified result (matched by the source's content, so nothing is
written to the tree), and that program's -cl-std= replaced by -cl-std=CL2.0
at clBuildProgram and clCompileProgram. The migrated sources come from
clasp migrate over PATHS (a temporary --out-dir; clasp.toml is read as
migrate reads it), or from --migrated DIR.

Compared, step by step: every kernel launch in order (kernel name, offset,
global and local sizes, scalar arguments, __local sizes); after each launch
the whole of every __global argument that is not const (read back with a
blocking read); every clEnqueueReadBuffer the host makes. What differs
between the two original runs is reported as nondeterministic and left out
of the verdict. A difference names the kernel, its launch, the argument,
the first differing element and both values; a launch sequence that
diverges is reported as such. Elements are read by the argument's OpenCL C
type (every build gets -cl-kernel-arg-info for that).

Timed: each launch's device time from its profiling event (profiling is
turned on for every queue); per kernel the median of the migrated run over
that of the original runs, beside the spread of the two original runs;
slower by more than twice the spread and by 5% or more is flagged.

What the interceptor adds to the program: after each launch it waits for it
and reads its writable buffers, and it waits for a non-blocking
clEnqueueReadBuffer; each process (a forked one too) writes its own trace.
The program's output is captured and shown only when a run fails. Each run
gets PYOPENCL_NO_CACHE=1, so that pyopencl builds from source rather than
from its binary cache (a program made from a binary cannot be substituted).

Exit codes: 0 every deterministic result identical, 1 something differs, 2
an error: a run that could not start, crashed, or exited otherwise than the
first original run (clasp says which run), or a first original run that
failed."#;

pub const RUN_CHECK_PATHS: &str = r#"Kernel files or folders to migrate, as for clasp migrate (its clasp.toml is
read). Not with --migrated."#;

pub const RUN_CHECK_MIGRATED: &str = r#"Take the migrated sources from DIR, a tree written by clasp migrate
--out-dir DIR (paths mirrored relative to the current directory, absolute
ones whole), instead of migrating PATHS."#;

pub const RUN_CHECK_TOLERANCE: &str = r#"Accept float and double elements that differ by at most ULPS units in the
last place (default 0: bit for bit), for vendor compilers that reassociate.
Other types are always compared bit for bit."#;

pub const RUN_CHECK_FORMAT: &str = r#"text (default: the summary line, the per-kernel table, then each difference)
or json (one object: "verdict", "migrated_sources", "substituted",
"comparison" with its counts, "kernels", "nondeterministic",
"differences", "divergence", and "timing" per kernel)."#;

pub const RUN_CHECK_COMMAND: &str = r#"The program to run and its arguments, after --, as you run it."#;
