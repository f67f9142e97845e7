//! The long help (`--help`) of the options that say what to read and how
//! to compile it, shared by `clasp analyze` and `clasp migrate`: the full
//! option reference the README points to. Each text starts with what `-h`
//! says; `args.rs` attaches them.

/// `-I DIR`.
pub const INCLUDE_DIR: &str = r#"Add a directory to the include search path, as for clang. Also spelled
-IDIR, as a host passes it to clBuildProgram. A relative DIR is
relative to the current directory (in clasp.toml, to clasp.toml's
directory)."#;

/// `-D NAME[=VALUE]`.
pub const DEFINE: &str = r#"Define a macro (NAME or NAME=VALUE), as for clang. Also spelled
-DNAME[=VALUE].

Example: clasp migrate -I include -DTILE=16 -DUSE_ATOMICS kernels"#;

/// `--include FILE`.
pub const PREINCLUDE: &str = r#"Include FILE before the unit (host spelling: -include FILE). As for
clang, a relative FILE is looked for in the current directory first,
then on the -I path.

The flag is --include, not a file filter: to select files, use --glob."#;

/// `--std`.
pub const STD: &str = r#"The OpenCL C standard of the input: auto (per unit, CL1.2 if it
compiles so, else the target's), or CL1.0 ... CL3.0.

auto (the default): per unit, CL1.2 when it compiles so, else the
target's standard (CL2.0, or CL3.0 with the target's features) when it
compiles as that, else the unit is unanalysable with clang's 1.2
errors. So clasp's own output (2.0 code) is read as 2.0. A unit's
standard is found with one parse when it is 1.2 code; a second parse,
as the target, only happens when 1.2 rejects it.

CL1.0, CL1.1, CL1.2, CL2.0, CL3.0 force the input's standard. Host
spelling: -cl-std=CL1.2. clasp.toml: std = "auto"."#;

/// `--full-header`.
pub const FULL_HEADER: &str = r#"Include the full opencl-c.h instead of the driver's lazily declared
builtins (slower). In a compile_commands.json, `-Xclang
-finclude-default-header` means the same."#;

/// `--color`.
pub const COLOR: &str = r#"Colour: auto (on a terminal, unless NO_COLOR is set; CLICOLOR_FORCE
forces it), always, never.

auto (the default) colours the diff, --explain lines, errors, warnings
and notes on a terminal; NO_COLOR (set, not empty) turns it off and
CLICOLOR_FORCE on, even on a pipe; always and never say so. Output on
a pipe or in a file is plain unless forced. Every command takes it
(clasp devices, clasp rule too), as does clasp itself before the
command."#;

/// `--ext`.
pub const EXTENSIONS: &str = r#"Also take files with this extension as units (cl, ocl and opencl are;
clh files are usually headers).

Example: --ext clh (repeatable). A file named on the command line is
taken whatever its extension."#;

/// `--exclude`.
pub const EXCLUDE: &str = r#"Skip files matching this gitignore-style glob (relative to the walked
directory).

Repeatable. As in .gitignore (and ruff): a glob without `/` (b.cl, *.cl,
deep) matches a file or directory name at any depth; a glob with `/`
(kernels/deep, kernels/*.cl) is anchored at the walked directory; a glob
naming a directory covers the files under it; `*` does not cross `/`,
`**` does (kernels/**/*.cl). clasp.toml's `exclude` and `[[file]] path`
read globs the same way, anchored at the clasp.toml's directory (a file
named on the command line is still taken). A bad glob is an error (exit 2)."#;

/// `--glob`.
pub const GLOB: &str = r#"Only take files matching this gitignore-style glob (relative to the
walked directory; `!GLOB` takes matches out). It narrows the walk:
ignored and hidden files stay out.

Repeatable; globs read as --exclude's do (see its help): a name matches
at any depth, a `/` anchors, a directory covers its files.
Unlike ripgrep's -g, it never brings back an ignored or hidden file;
--glob '!GLOB' takes matches out again (alone, it selects everything
else). The flag is --glob, not --include, because --include FILE is
the host option -include FILE. A bad glob is an error (exit 2); a glob
matching nothing leaves nothing to work on (a warning, exit 2)."#;

/// `--follow-links`.
pub const FOLLOW_LINKS: &str = r#"Follow symbolic links while walking directories (by default they are
not followed)."#;

/// `--no-host`.
pub const NO_HOST: &str = r#"Leave host code alone: no C, C++ or Python file is read for build
calls or embedded kernels.

migrate: no host file is read for build calls or embedded kernels (see
HOST CODE below). For both commands, a host file named on the command
line is then taken as a unit. analyze never reads host code: kernels
embedded in host files are not analysed. clasp.toml: host = false."#;

/// `--config FILE`.
pub const CONFIG: &str = r#"The project's settings and configurations (default: the nearest
clasp.toml in the first path's directory or above).

Its keys are listed under CLASP.TOML below. Its relative paths are
relative to its own directory; command-line options come after its
options, so they win."#;

/// `--no-config`.
pub const NO_CONFIG: &str = r#"Ignore any clasp.toml."#;

/// `--compile-commands FILE`.
pub const COMPILE_COMMANDS: &str = r#"The units, from clang's compile_commands.json (its OpenCL C entries)
or a JSON list of {"file", "options", "configuration"?}; instead of
PATHs and clasp.toml.

Giving PATHs too is an error; no clasp.toml is read. See COMPILE
COMMANDS below for both forms and which arguments are taken."#;

/// `--timeout SECONDS`.
pub const TIMEOUT: &str = r#"The time limit, in seconds, on parsing a unit and on each compile of
it: a unit that takes longer is an error and the batch goes on without
it (default: 300, or clasp.toml's `timeout`), changing no header it may
include (failed-unit).

It also bounds each optimisation of a unit's kernels for the
equivalence check. The unit is named in the error (`./hang.cl:1:1:
error: parsing took longer than the time limit of 2 s (--timeout);
nothing of this unit is written`) and the batch runs again in a fresh
worker without it. With --device-check, a device build that takes
longer ends the batch with an error."#;

/// `--target` of `migrate`.
pub const TARGET: &str = r#"What the result must compile as: cl2.0 (default), cl3.0 (with the
generic and program-scope-global features), cl3.0-nogeneric, or
device[:NAME,...] (the strongest target every installed device, or the
named ones, supports).

cl2.0 (the default, or clasp.toml's `target`): OpenCL C 2.0. cl3.0
assumes __opencl_c_generic_address_space and
__opencl_c_program_scope_global_variables. cl3.0-nogeneric refuses
every generic change (reason target-without-generic) and moves no
program-scope variable (no-program-scope-globals).

device: the strongest target every installed OpenCL device takes;
device:NAME[,NAME...] only the devices whose name or platform name
contains a NAME, case aside. The choice is said on stderr before the
summary (`clasp: target cl3.0-nogeneric, chosen for the devices:
...`), with a line naming each device that takes no generic target and
why. A device no target fits is an error naming it, and so is --target
device with no device at all. target = "device" is not read from
clasp.toml: it is a command-line choice. `clasp devices --help` says
which target fits which device.

The host's build calls are edited to ask for the target's standard:
-cl-std=CL2.0, or -cl-std=CL3.0 for the cl3.0 targets."#;

/// `--target` of `analyze`.
pub const ANALYZE_TARGET: &str = r#"The target each unit is also compiled as, unchanged: cl2.0 (default,
or clasp.toml's), cl3.0, cl3.0-nogeneric, or device[:NAME,...] (the
devices').

The report says whether each unit compiles unchanged as that target,
with clang's first error when not. The targets are those of `clasp
migrate --target` (see `clasp migrate --help`)."#;

/// `--device-check[=MODE]`.
pub const DEVICE_CHECK: &str = r#"After verification, build every changed program with each device's
compiler (the selected devices with --target device:NAME, else all): a
result a device rejects while it builds the original is an error,
unless =report.

--device-check (or =error, the default mode) builds, after
verification, every program a kept change touches (each unit: a kernel
file, an embedded kernel, a [[program]], in each configuration) with
each selected device's compiler (clCreateProgramWithSource +
clBuildProgram, one context per device): the original with the options
the host gives it (-D, -include, a -cl-std it names, the -cl-*, -w and
-Werror options clBuildProgram defines; clang-only arguments are left
out), the result with the options clasp proposes for the host (the
same, with the target's -cl-std).

Per device: accepted, or rejected with the first lines of its build
log. A result a device rejects while it builds the original is an
error for that unit (exit 2), and then nothing of the batch is written
(--write, --out-dir). With --device-check=report it is only a warning
and the exit code is the migration's. A device that rejects the
original too says nothing about clasp's change, and is only reported.
The summary gets a line per device (`clasp: device check: NAME
(PLATFORM): originals built 4/4, results built 0/4, rejected after the
migration 4`), and --json a "device_check": {"devices", "programs":
[{"unit", "path", "original_options", "result_options", "devices":
[{"device", "original": {"accepted", "log"}, "result": {...}}]}]} (the
options as the host would pass them, without the scratch tree).

A device compiles a string, not a file, so each side's files (the unit
and every header it reads, the result's as migrated) are laid out in a
scratch directory at their own absolute paths, and the include path
names that tree first, then the unit's real directory and the -I
directories (a header only the device's own macros select is still
found). The builds run in the scratch directory (PoCL compiles a
source as a file of the current directory, whose headers would
otherwise win), and each source ends with a comment line holding a
digest of its files, so a driver's build cache (keyed by source and
options, not by headers) never answers for a side whose headers
changed. Every OpenCL call runs in the clasp-device-worker process
(see `clasp devices --help`). A --device-check run is not stored in
the result cache: what it prints depends on the installed drivers."#;

/// The `PATH` arguments.
pub const PATHS: &str = r#"Files, or directories searched for *.cl (default: the current directory).

None with --compile-commands, which names the units. Without either,
the current directory is walked (`clasp migrate` is `clasp migrate .`,
as ruff and black take it). Files are taken
whatever their extension and the ignore rules; directories are walked
as described under PATHS below.

`-` reads one unit's text from standard input, named by
--stdin-filename (see there); it takes no other PATH beside it."#;

/// `--stdin-filename PATH`.
pub const STDIN_FILENAME: &str = r#"With PATH `-` (or no PATH): the unit's text is read from standard input and
stands for this file, whose options and clasp.toml apply (default: stdin.cl).

The text is analysed as if it were PATH's (which need not exist; if it
does, the text on standard input takes its place): the nearest
clasp.toml above PATH, its [[file]] entries and configurations, its
quoted #includes (looked up beside PATH; included files are read from
disk), and messages name PATH with its line and column. Without
--stdin-filename the text is named stdin.cl in the current directory.

Only the text on standard input changes: a change that would also
edit another file (a header it includes) is withheld as outside-root.
migrate prints the diff (labelled PATH); with --write it prints the
whole new text on stdout (the text as it came when nothing changes or
the unit has errors) and writes no file; --check exits 1 when the text
would change. --out-dir and --interactive need files. As editors use
black and ruff:

  cat k.cl | clasp migrate - --stdin-filename src/k.cl
  clasp migrate --write --quiet --stdin-filename src/k.cl < k.cl > k.new"#;

/// `--json` of `analyze`.
pub const ANALYZE_JSON: &str = r#"Print JSON instead of text (as --format json)."#;

/// `--format` of `analyze`.
pub const ANALYZE_FORMAT: &str = r#"What to print on stdout: text (default; `diff` is accepted for it, as
`migrate` takes it) or json.

The JSON layout is described under REPORT below."#;

/// `-q` of `analyze`.
pub const ANALYZE_QUIET: &str = r#"No count of the files analysed on stderr (errors are still printed)."#;
