//! The documentation of the reasons a host's build call is left alone.

use super::Doc;

pub const UNTRACED_OPTIONS: Doc = Doc {
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

pub const UNLINKED_BUILD: Doc = Doc {
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
