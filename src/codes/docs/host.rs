//! The documentation of the host side: the build options a host passes
//! when it builds a migrated program, and why a build call is left alone.

use super::Doc;

pub(super) const HOST_BUILD_OPTIONS: Doc = Doc {
    summary: "A host's build call for a migrated program asks for the target's OpenCL C standard.",
    what: "Edits the options argument of `clBuildProgram`, `clCompileProgram`, `cl::Program::build`/`compile` (any \
object, any overload) and pyopencl's `Program(...).build(...)` so that it passes `-cl-std=CL2.0` (`-cl-std=CL3.0` for the \
`cl3.0` targets): added to a string literal, replacing an existing `-cl-std=CL1.x`, every other option kept; a `NULL`, \
`nullptr` or `0` becomes the literal; an absent argument is added; a Python list gains an element; a variable initialised \
from a literal in the same function or at file scope has its initialiser edited.",
    why: "Without `-cl-std`, drivers build the highest 1.x version they support (AMD, Intel, PoCL), so a migrated \
program's generic helpers fail to build at run time; only some drivers default to 3.0. The migration is only done when the \
host asks for the standard the kernels were migrated to.",
    example: r#"// before (host.c)
fread(source, 1, size, fopen("kernels/scale.cl", "rb"));
program = clCreateProgramWithSource(context, 1, &src, NULL, &err);
clBuildProgram(program, 0, NULL, NULL, NULL, NULL);

// after: kernels/scale.cl was migrated
clBuildProgram(program, 0, NULL, "-cl-std=CL2.0", NULL, NULL);"#,
    refuses: "Only a call every program of which clasp changed in this run is edited: the program's source is a kernel \
file clasp changed (named where the source is read, else by a string literal in the same function, or by every caller of a \
helper that reads the file its parameter names; resolved from the host's directory or one above it) or an embedded kernel \
clasp migrated. A call building a program clasp left unchanged (excluded, unanalysable, withdrawn, outside the batch) is \
never switched. A call whose options cannot be traced is `untraced-options`; one \
whose program cannot be found is `unlinked-build`. Options that already ask for the standard are left as they are.",
    safety: "The edit changes only the options string the host passes; the kernels it builds were verified as the target \
standard. A second run finds the flag and changes nothing. Review the host diff like any other: it is shown with the kernels'.",
};

pub(super) const UNTRACED_OPTIONS: Doc = Doc {
    summary: "A build call's options are computed where clasp cannot follow them, so the host is not edited.",
    what: "Reports a warning at the call's file, line and column naming the program it may build and the exact option to \
add (`-cl-std=CL2.0`); the host file is not edited for it.",
    why: "Options assembled at run time (`snprintf`, `strcat`, `std::string` operations, an environment variable, a \
function parameter) have no single literal clasp could edit safely.",
    example: r#"char options[256];
snprintf(options, sizeof options, "-DTILE=%d", tile);
clBuildProgram(program, 0, NULL, options, NULL, NULL);   // untraced-options"#,
    refuses: "When the options argument is neither a string literal, `NULL`/`nullptr`/`0`, absent, a Python string or list \
of strings, nor a variable initialised from one of those in the same function or at file scope and not assigned again.",
    safety: "Add the option where the host assembles its options (for example append \" -cl-std=CL2.0\" to the format \
string), then run clasp again: the kernels are already migrated and nothing else changes.",
};

pub(super) const UNLINKED_BUILD: Doc = Doc {
    summary: "A build call's program cannot be traced to its source, so clasp cannot tell whether it needs 2.0.",
    what: "Reports a warning at the call's file, line and column with the option the host must pass if the program it \
builds is one clasp migrated; the host file is not edited for it.",
    why: "Editing the options of a program clasp did not migrate would switch 1.x code to 2.0 for no reason (and 2.0 is not \
always accepted), so only calls linked to a migrated program are edited.",
    example: r#"cl_program build_named(cl_context ctx, const char *path)   // the file name is a parameter
{
    cl_program program = load_program(ctx, path);
    clBuildProgram(program, 0, NULL, NULL, NULL, NULL);     // unlinked-build
    return program;
}"#,
    refuses: "When the program the call builds cannot be traced to its kernels (a program passed in as a parameter, a \
source or file name computed at run time, a helper whose callers pass a name clasp cannot trace or are not in the batch), or \
when it may build a changed and an unchanged program, while the batch has migrated kernels. `--check` exits 1 on it.",
    safety: "Pass `-cl-std=CL2.0` (or `CL3.0`) in that call if it builds a migrated program, then run clasp again.",
};
