//! `clasp migrate --help`'s HOST CODE section: how host code is read,
//! which build calls are edited and how, embedded kernels, generated
//! copies, and what the reports say about them.

pub const HOST_CODE: &str = r#"HOST CODE

A migration is only done when the host builds the kernels as the target
standard: without -cl-std, drivers build the highest 1.x version they support,
and generic helpers fail to build at run time. So clasp migrate also reads the
host code under the PATHs: C, C++ (.c .cc .cpp .cxx .h .hh .hpp .hxx) and
Python (.py) files, found by the same walk as the kernels (.gitignore, hidden
files, --exclude, --glob, clasp.toml's exclude). They are parsed with
tree-sitter (the C, C++ and Python grammars: error-tolerant, no build
configuration needed); kernel analysis stays with libclang and clang. A header
the kernels include is kernel code, whatever its extension. --no-host (or host
= false in clasp.toml) turns this off.

Build options (rule host-build-options). Every call of clBuildProgram,
clCompileProgram, cl::Program::build/compile (any overload, on any object that
may be a program: one a creation of the file is stored in, one declared with a
type naming Program, or one declared in another file when this one names a
Program type; a tree's bvh->build(mesh) is not a build call) and pyopencl's
Program(...).build(...)/compile is found, with its options argument. When the
call builds a program clasp changed (its kernel file, one of its sources, its
embedded text, or a header any of them #includes), its options are edited to
ask for the target's standard (-cl-std=CL2.0, -cl-std=CL3.0 for the cl3.0
targets), every other option kept:

- a string literal: the flag added; an existing -cl-std=CL1.x replaced
  ("-DTILE=16 -cl-std=CL1.2" -> "-DTILE=16 -cl-std=CL2.0");
- NULL, nullptr, 0 (also cast), Python None: replaced by "-cl-std=CL2.0";
- absent: build(), compile(), build(devices) or build(device) (before a
  callback's arguments too: build(devices, nullptr, cb, data) has nullptr
  replaced), pyopencl build() or build(devices=...): added, as
  build("-cl-std=CL2.0"), compile("-cl-std=CL2.0"), build(devices,
  "-cl-std=CL2.0"), pyopencl build(options=["-cl-std=CL2.0"]),
  build(devices=..., options=["-cl-std=CL2.0"]);
- none, a constructor that builds (cl::Program program(ctx, src, true, &err);
  with the default context, cl::Program program(src, true), too): the flag
  turned off and the build done right after the statement that stores the
  program: cl::Program program(ctx, src, false, &err); then err =
  program.build("-cl-std=CL2.0"); on the next line (program.build(...) alone
  without an error pointer); likewise after an assignment (program_ =
  cl::Program(ctx, src, true);); for a member initializer (Blur(...) :
  program_(ctx, src, true) {), first in the constructor's body. A building
  constructor whose program is stored in no variable, or reporting to anything
  but &name, is an untraced-options warning;
- a Python list of strings: the flag appended as an item;
- a variable initialised from one of those, in the same function or at file
  scope, never assigned again: its initialiser edited.

The bindings have no constructor from source with a device list: their
cl::Program(ctx, devices, binaries, ...) and cl::Program(ctx, devices,
kernel_names) create a program from no source, and clasp reads none of their
arguments as kernel text.

A call's verdict is what clasp knows of every program it may build. It is
edited only when each of them was migrated and verified in this run; a program
whose kernel file was excluded, failed to parse or compile, was withdrawn, or
is not in the batch is never switched. It is `unchanged` only when clasp
traced what it builds and that program did not change. clasp traces a program
from its creation (clCreateProgramWithSource, cl::Program(ctx, ...),
pyopencl's Program(ctx, src), or chained as cl.Program(ctx, src).build()) in
the call's function, or, for a program stored in a member of the class whose
method builds it (self.prg, this->program_, a field program_), from every
creation stored in that member in any method or member initializer of the
class: to an embedded kernel, to a variable another host file declares holding
one (a generated header), to the files the host #includes as its sources (see
[[program]] under CLASP.TOML), or to the kernel file its source is read from.
That file is the one a string literal names where the source is read
(read_text("kernels/scale.cl"), directly or through a variable, also when the
reader call is the source argument itself: cl::Program(ctx, readAll(file))),
else any kernel file named in the same function, unless a source of that
function is read from a file whose name is computed at run time
(slurp(getenv("KERNEL_FILE")), cfg.kernel, kernel_name(), os.environ["K"]):
such a program is none of the files the function names. It is resolved as the
host would at run time, from the host's directory or any directory above it.
When the file name comes from a caller, as in a helper CreateProgram(context,
device, "k.cl") that reads the file its parameter names and builds it, clasp
follows the name through the helper's parameter to every call of the helper in
the batch (in the same file or another; a call binds to the nearest file
defining the helper). The program is then the files those calls name, and the
helper's build call is edited when all of them changed.

A call whose options are computed where clasp cannot follow them (snprintf,
strcat, std::string operations, getenv, a parameter, a variable written in any
function, a fixed-size array the flag may not fit in, or a variable that is
also the options of a call clasp leaves alone) is a warning (untraced-options)
at its file:line:col with the program it builds and the exact option to add. A
call whose program clasp cannot trace, in a batch that changed kernels, is a
warning too (unlinked-build, with the reason and the option to add): its
source or file name is computed at run time, a helper's caller passes a name
clasp cannot trace (its own parameter, a getenv) or no call of the helper is
in the batch, or it may build a changed and an unchanged program (several
creations reach it, or its function names kernel files clasp changed and
others it did not). Both are pending manual work: --check exits 1 on them, and
the summary counts them (`0 build calls would change (0 untraced, 1
unlinked)`). The summary counts only those pending, each with its warning: an
unlinked call in a batch that changes no kernel (a run after --write) is
neither warned nor counted, and --check exits 0 on it. A newer standard
already asked for (-cl-std=CL3.0 when 2.0 is the target) stays. When kernels
changed and no build call was found at all, the summary is preceded by a note
saying which option the host must pass.

Kernel files are analysed with their host's options. A build call traced to a
kernel file of the batch (as above: where the source is read, or through a
helper's callers) whose options clasp can read adds them to the options that
file is analysed with: -D and -U (in order), -I and -include, and the
-cl-*/-w/-g options clang accepts (another -cl-*, a vendor option, is left
out with a note at the call). So clBuildProgram(p, 1, &dev, "-DTILE=16
-Iinclude", NULL, NULL) reading kernels/tile.cl analyses tile.cl with
-DTILE=16 and include/. The same holds for a [[program]] a host gathers by
#include (relative paths from the host's directory). A relative -I or -include
is relative to the working directory of the host's process, which clasp cannot
know: it takes the directory from which the host's file name for the kernel
resolves (where the process must run to open it), else the host's own
directory or the nearest one above it holding the path. The host's -cl-std= is
not used (clasp reads the input as 1.2, else as the target, unless you declare
std; and it edits the host's option to the target), nor is -Werror (a driver's
warnings are not clang's). What you declare for the file (clasp.toml: options,
its configuration, a [[file]] entry; the command line) comes on top and wins:
a host -DTILE=16 against a declared -DTILE=8 is a warning at the build call
naming both, and the file is analysed with -DTILE=8. Calls building one file
with different options are that many configurations of it (named after the
call: host.c:51, `fp32, host.c:51` with a declared one), and a change must
verify in every one. Options computed at run time (an untraced-options call),
or that clasp cannot read (an option it does not know: a warning), add
nothing: a file only such calls build is analysed as before. So do a call's
options when its program may be one of several kernel files (its function
names them all and reads one where clasp does not follow).

Embedded kernels. A string literal whose text is OpenCL C (it declares a
__kernel/kernel void, or it is passed to a program-creation call, directly or
through a variable or array initialised in the same file) is a unit of the
batch, named host.cpp:LINE in every report (host.cpp:LINE:COL when another
kernel starts on the same line). Recognised forms: C/C++ ordinary literals
with escapes and adjacent-literal concatenation ("...\n" lines), raw strings
with any delimiter (R"CLC(...)CLC"), Python single- and triple-quoted, raw and
concatenated strings, and the argument of a stringify macro (#define STR(A)
#A). A literal with a piece clasp cannot decode (a macro piece such as "..."
STR(x) "...", a %s format piece, an f-string) is a warning at its
file:line:col and is left alone. The kernel is compiled under a virtual name
beside its host file (through a clang VFS overlay), so its #include "..."s
resolve as for a file in that directory, with the batch's options plus those
of the build call that builds it, where they can be traced (-DN=4 from
build(options=["-DN=4"])); one clasp cannot analyse (it needs options computed
at run time) is a warning and is left alone. It is analysed, migrated and
verified like any kernel file; its edits are then written back inside the
literal in the literal's own form (escaped in an escaped literal, \n" line
ends and indentation kept, verbatim in a raw string), and the edited host file
is scanned again: every literal must decode to exactly the verified migrated
kernel (a generated copy to its file's text, whitespace aside; a stringified
one token for token), else the host file is an error and nothing is written to
it.

Several literals given to one clCreateProgramWithSource (an array of strings,
each traced to a literal of the file) are one program: their texts
concatenated are one unit, whose edits go back into the literal holding their
bytes. A program whose sources are files is declared in clasp.toml
([[program]], see CLASP.TOML).

Generated copies. A host literal whose decoded text is the same program as a
kernel file of the batch (whitespace aside) is that file's copy, not a unit:
it gets the file's edits in lockstep, so regenerating it from the migrated
file gives the same text, and --explain says `generated copy of
kernels/foo.cl`.

Reports: --explain has a line per host edit and per build call left as it is;
the summary counts build calls (`1 build call edited (0 untraced, 0
unlinked)`); --statistics counts host-build-options fixes and the
untraced-options/unlinked-build warnings; SARIF carries the warnings at their
line; --json gains "host": {"files", "build_calls": [{"file", "line", "col",
"api", "status": "edited"|"unchanged"|"untraced"|"unlinked", "program"?,
"detail", "pending"?}], "embedded": [{"file", "line", "status":
"migrated"|"unchanged"|"refused"|"undecodable", "copy_of"?, "detail"}]}
(absent when the batch read no host file; an inferred program is listed under
"programs" with "inferred": true), and warnings about one place carry "line"
and "col".

Limits: a build call in another function than the program's creation (a helper
that builds any program it is given) is an unlinked-build warning, and a file
name is followed through one level of calls. Every place clasp names in an
embedded kernel or a program (a fix, a refusal, --explain evidence in text,
--json and SARIF, a compiler error and its notes, an unrepairable unit's
causes) is in the file that holds the code: the host file, line and column
inside the literal, or the [[program]] source (inside its raw string or
escaped literals), named relative to the current directory like every other
file, never the virtual name the unit is compiled under."#;
