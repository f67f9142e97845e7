//! The documentation of the reasons a host's build call is left alone.

use super::Doc;

pub const UNTRACED_OPTIONS: Doc = Doc {
    summary: "A build call's options are computed where clasp cannot follow them, so the host is not edited.",
    what: "Reports a warning at the call's file, line and column naming the program it may build and the exact option to \
add (`-cl-std=CL2.0`); the host file is not edited for it.",
    why: "Options assembled at run time (`snprintf`, `strcat`, `std::string` operations, `getenv`, a function \
parameter, a variable written in any function) have no single literal clasp could edit safely; nor has a fixed-size array the \
flag may not fit in, or a variable that is also the options of a call clasp leaves alone.",
    example: r#"char options[256];
snprintf(options, sizeof options, "-DTILE=%d", tile);
clBuildProgram(program, 0, NULL, options, NULL, NULL);   // untraced-options"#,
    refuses: "When the options argument of a call building a changed program is neither a string literal, \
`NULL`/`nullptr`/`0`, absent, a Python string or list of strings, nor a variable initialised from one of those in the same \
function or at file scope and not assigned again; also for a building constructor (`cl::Program(ctx, src, true)`) whose program \
is stored in no variable, or that reports to anything but `&name`. `--check` exits 1 on it, and the summary counts it \
(`(1 untraced, 0 unlinked)` after the build calls). Options computed at run time add nothing to the options the kernel file \
is analysed with.",
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
build call in another function than the program's creation, a source or file name computed at run time such as \
`getenv(\"KERNEL_FILE\")`, `cfg.kernel` or `os.environ[\"K\"]`, a helper whose callers pass a name clasp cannot trace or are \
not in the batch), or when it may build a changed and an unchanged program (several creations reach it, or its function names \
kernel files clasp changed and others it did not), while the batch has migrated kernels. `--check` exits 1 on it and the \
summary counts it; in a batch that changes no kernel (a run after `--write`) it is neither warned nor counted, and `--check` \
exits 0.",
    safety: "Pass `-cl-std=CL2.0` (or `CL3.0`) in that call if it builds a migrated program, then run clasp again.",
};
