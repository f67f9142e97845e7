//! The `--help` sections on what a run reads: the PATHs' walk, the host
//! build options, clasp.toml (programs, configurations) and
//! compile_commands.json. Shared by `clasp analyze` and `clasp migrate`.

pub const PATHS: &str = r#"PATHS

PATHs (none with --compile-commands, which names the units) are files (taken
whatever their extension and the ignore rules), or directories, walked as git
would see them (the ignore crate, ripgrep's walker): .gitignore, .ignore and
.git/info/exclude are honoured, also in a tree that is not a git repository;
hidden files and directories are skipped; symbolic links are not followed
(--follow-links follows them); a directory named x.cl is walked like any
directory. Units are *.cl, *.ocl and *.opencl (--ext clh adds an extension:
.clh files are usually headers, so not units by default); C, C++ and Python
files are host files (clasp migrate reads them for build calls and embedded
kernels, see HOST CODE in `clasp migrate --help`; --no-host leaves them out;
clasp analyze skips them); --exclude GLOB skips and --glob GLOB selects files
(see their help). The files are sorted.

A run with nothing to work on is a warning and exit 2, not a quiet success: no
unit under the PATHs (an empty directory, a --glob matching nothing, host
files without a kernel, a --compile-commands list with no OpenCL C entry), or
no file found under the edit root (--root)."#;

pub const HOST_OPTIONS: &str = r#"HOST BUILD OPTIONS

What a host passes to clBuildProgram is accepted as it is written:

  -I DIR, -IDIR, -D NAME[=VALUE], -DNAME   as for clang
  -U NAME, -UNAME                          as for clang
  -include FILE (or --include FILE)        include FILE before the unit
  -cl-std=CL1.2                            as --std CL1.2
  -cl-*                                    passed to clang when clang 19 accepts it
  -w, -Werror, -g                          passed to clang
  --build-options "STRING"                 a host's whole option string
  PATHS -- ARGS...                         everything after -- goes to clang verbatim

-cl-* options clang 19 accepts (-cl-mad-enable, -cl-fast-relaxed-math,
-cl-denorms-are-zero, -cl-finite-math-only, -cl-ext=..., ...) are passed to
clang; any other (vendor options such as -cl-nv-verbose) is ignored with a
one-line note on stderr, wherever it is given (in clasp.toml the note is at
its element, from host code at the build call). --build-options "STRING"
takes a host's whole option string, split as a shell would (quotes,
backslashes); each word must be one of the options above. Everything after
-- goes to clang verbatim (clasp migrate src -- -fno-builtin). Any other
single-dash option is an error (exit 2) that names --.

These options reach every compilation: libclang's parse, the IR lowering, the
recompile as the target and both sides of the equivalence check (a driver
option meaningless for the triple clasp compiles for, such as
-cl-denorms-are-zero for spir64, is not a warning there). An option clang
itself rejects (-- -fno-such-option) is one error before any unit is read:
clasp compiles a one-line kernel with each distinct set of options first.
-mllvm (LLVM's process-wide options, which cannot differ per unit in one
process) is refused once, up front, with a message naming
CLASP_CLANG=clang-19, which runs clang as a process and honours it."#;

pub const CLASP_TOML: &str = r#"CLASP.TOML

clasp migrate and clasp analyze read the nearest clasp.toml in the first
path's directory or above (--config FILE names one, --no-config ignores it;
--compile-commands reads none). Its relative paths are relative to its own
directory; command-line options come after its options, so they win. Every key
is optional:

  root = "."                      # the edit root (as --root)
  include = ["include"]           # -I directories
  options = ["-DTILE=16", "-cl-mad-enable"]   # host build options, as on the command line
  std = "auto"                    # as --std
  target = "cl2.0"                # as --target (not "device": a command-line choice)
  exclude = ["third_party/**"]    # globs of files not migrated (unless named on the command line)
  host = true                     # read host code (C, C++, Python); false as --no-host
  timeout = 300                   # seconds, as --timeout
  ignore = ["generic-local"]      # rules that change nothing (as --ignore); select = [...] as --select

  [[configuration]]               # each build the host makes of every kernel file
  name = "plain"
  options = ["-DUSE_ATOMICS=0"]

  [[configuration]]
  name = "atomics"
  options = ["-DUSE_ATOMICS=1"]

  [[file]]                        # per-file options, as hosts pass per kernel
  path = "kernels/m*.cl"
  options = ["-DKERN_TYPE=1"]
  configurations = ["plain"]      # optional: only these configurations build it
  ignore = ["generic-param"]      # optional: rules left out of these files; select = [...] too

  [[program]]                     # a program built from several sources, in order
  name = "gemm"
  sources = ["kernels/common.opencl", "kernels/level3.opencl", "kernels/gemm_part1.opencl"]
  options = ["-DPRECISION=32"]
  configurations = ["plain"]      # optional, as for [[file]]

Options. Each options array reads as one command line: an option's value may
be the next element (["-I", "include", "-D", "TILE=16"], as hosts list their
options) or in the same one ("-I include", "-DTILE=16"), and an element is
split as a shell would, so a value with a space is quoted inside it ("-D
'MSG=hello world'"; the error for the word a space split off says so). An
option left without its value, or one clasp does not read, is an error at its
element's line and column; a vendor -cl-* option clang does not accept is
ignored with a note there (clasp.toml:LINE:COL: note: ...). Every other error
in clasp.toml is at the line and column of the value it is about.

Per-file rules. A [[file]]'s select and ignore (the rules --select takes but
merge-duplicates, which joins helpers across files) leave rules out of the
files its glob matches, headers included: a declaration there is kept as
--ignore keeps it (refused as suppressed, saying which [[file]] of which
clasp.toml). They add to what the batch leaves out, never bring a rule back; a
file matched by several entries has all of theirs left out. An unknown code
is an error at its line and column in clasp.toml.

Globs. exclude and [[file]] path read globs as --exclude does, anchored at
clasp.toml's directory: b.cl or *.cl (no `/`) matches that name at any
depth, kernels/deep (a `/`) only that path, and covers the files under it;
`*` does not cross `/`, `**` does. A [[file]] whose path matches no file of
a batch that covers clasp.toml's directory is a warning
(clasp.toml:LINE:COL: warning: ...), so a typo does not silently turn it off.

Programs. A [[program]] is what a host makes when it hands
clCreateProgramWithSource several strings: its sources concatenated in order,
as one unit (named program `gemm` in reports), analysed, migrated and verified
as one program, whose edits are then split back into each source file. A
source wrapped as a C++ raw string literal (R"delim( ... )delim", any
delimiter, so the host can #include it) is read as its content; comments (a
licence block, a note), blank lines and preprocessor lines such as #pragma
once may come before and after the wrapper, and they and the wrapper stay byte
for byte: edits land inside it. The file is read with tree-sitter-cpp, so an
R"( in a comment is no wrapper. C has no raw strings, so a C host's source
file may instead be one run of adjacent escaped literals ("kernel void
k(__global float *y)\n", "{\n", ...; comments may stand between them, a
literal may end mid-line, CRLF line ends are fine): it is read as the text the
compiler decodes from it, and an edit is written back inside the literals,
escaped (\", \n, \t), with a deletion of whole literal lines taking the lines.
Adjacent raw strings (a long kernel split in several, as compilers bound one
literal's length: MSVC at 16 KB), alone or mixed with escaped literals, are
read the same way, their contents joined. Such a file named on its own (not
through its host or a [[program]]) is one error at its first line saying so,
not clang's errors over the wrapper. A file with code beside its literals (a
;, a declaration, a macro among the literals) is no wrapper: it is read as it
is.

Programs gathered by #include. A host that #includes wrapped files where
source strings are expected (static const char *sources[] = {, #include
"common.opencl", ",", #include "axpy.opencl", }; passed to
clCreateProgramWithSource, a cl::Program::Sources list, a const char *src =
initialised by one, a std::vector<std::string> whose elements' .c_str() fill a
pointer array, by index or in a loop) makes one program of them, its files'
contents in order (elements written at literal indices in the order of the
indices). It is the [[program]] declaring those sources in that order, if one
does; otherwise clasp infers it (named host.cpp:LINE after the creation,
compiled with the options of the build call that builds it, listed in the JSON
report's host.programs with "inferred": true). Its files are not units or host
files of their own, an #include line is never read as an embedded kernel, and
the build call building the program is linked to it and edited when the
program changed. A creation mixing literals and #included files is not traced.

A file that is a source of a program is not a unit of its own (nor a host
file), so parts that do not compile alone are never migrated alone. An edit
that straddles two sources (a deletion tidying the blank lines between them)
is split at the boundary; blanks it would delete at the start of a later
source are kept, so no source's first line joins the last line of the one
before. A source that is not a file is an error at its line in clasp.toml. A
source shared by several programs is treated like a header several kernel
files include: its declarations are decided the same in every program (one a
program keeps named is refused in all, as header-conflict naming that program
and its reason), a definition in it is one function in the summary and in
--json, a refusal one refusal, a merge one merge. It must come out the same in
each program (one that leaves it as it is counts): when they disagree, it is
an error naming them, and none of those programs is written.

Configurations. With configurations, each file is loaded once per
configuration that applies to it, as its own unit, and the configurations are
intersected: a declaration changes only if every configuration's unit finds it
can (else it is refused with code configuration, naming the configuration that
keeps it and why), and every change is verified in every configuration that
builds the file. Code #if skips in one configuration but another compiles is
analysed by the one that compiles it, not refused as skipped-if (which means:
no unit of the batch compiles it); the same holds for a header two programs
include with different macros, and for a source two programs share (#ifdef PIN
defined by another source of one). In --json, each changed file lists the
configurations its changes were checked in; errors in one configuration name
it. clasp analyze reports each file once per configuration (histogram.cl
[atomics], and "configuration" in its JSON), under the configuration's
options. Code every configuration skips gets discovered configurations (see
--discover-configurations)."#;

pub const COMPILE_COMMANDS: &str = r#"COMPILE COMMANDS

--compile-commands FILE takes the units from a JSON list instead, with no
PATHs (giving some too is an error) and no clasp.toml. It reads clang's
compile_commands.json, as CMake (CMAKE_EXPORT_COMPILE_COMMANDS) or Bear write
it:

  [
    {"directory": "/src/app", "file": "kernels/scale.cl",
     "arguments": ["clang-19", "-x", "cl", "-cl-std=CL1.2", "-DTILE=16", "-O2", "-c", "kernels/scale.cl", "-o", "scale.o"]},
    {"directory": "/src/app", "file": "host.cpp", "command": "c++ -O2 -c host.cpp -o host.o"}
  ]

OpenCL C entries are units (a .cl, .ocl or .opencl file, or one compiled with
-x cl); C, C++ and Python entries are host files of the batch, read for build
calls and embedded kernels as under HOST CODE. file and relative options are
relative to directory, and arguments or command (split as a shell would) give
the options. What a host passes to clBuildProgram is taken as such (-D, -I,
-isystem, -include, -cl-std= or clang's -std=CL2.0, -cl-*, -U, -w, -Werror, -g,
and -Xclang -finclude-default-header as --full-header); every other argument
reaches clang as it would after -- on the command line (-Xclang
-cl-ext=-cl_khr_fp64, -W..., -f...), and one clang rejects is an error naming
it. Only what names the invocation rather than the compile is dropped: the
compiler, the input file, -c, -o, -x, the dependency-file options (-M...),
-target (clasp compiles for the target's triples), -O levels (clasp reads
unoptimised IR) and a C or C++ -std=. Diffs name files as for any other input
(from the current directory, or from the edit root with a note), whatever
paths the list holds.

clasp's own form, which users can write from their host's build logs, is a
list of files with their host options:

  [
    {"file": "kernels/histogram.cl", "options": ["-DUSE_ATOMICS=0"], "configuration": "plain"},
    {"file": "kernels/histogram.cl", "options": "-DUSE_ATOMICS=1 -cl-mad-enable"},
    {"file": "kernels/scale.cl"}
  ]

options is a list of words or one host string; relative files are relative to
the list's directory; a file listed twice is built in two configurations
(named by configuration, else #<position>), intersected as under CLASP.TOML."#;
