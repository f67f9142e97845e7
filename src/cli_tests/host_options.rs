//! A kernel file is analysed with the options its host builds it with,
//! beside what the user declared: declared options win, with a warning
//! naming both; options the host computes at run time add nothing.

use std::path::Path;

use crate::support::clasp_in;

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A helper clasp makes generic, in a kernel that needs `SCALE` and, with
/// `tile`, `TILE` to be 8.
fn kernel(tile: bool) -> String {
    let check = if tile { "#if TILE != 8\n#error \"TILE must be 8 here\"\n#endif\n" } else { "" };
    format!(
        "{check}float first(__global const float *v) {{ return v[0] * SCALE; }}\n\
         __kernel void k(__global const float *in, __global float *out) {{ out[0] = first(in); }}\n"
    )
}

/// A host building `kernels/tile.cl` with `tile_options` (C source text)
/// and `kernels/other.cl` with options it writes at run time.
fn host(tile_options: &str) -> String {
    format!(
        "#include <CL/cl.h>\n#include <stdio.h>\nchar *read_text(const char *path);\n\
         void run(cl_context ctx, int scale) {{\n\
         char *t = read_text(\"kernels/tile.cl\");\n\
         cl_program pt = clCreateProgramWithSource(ctx, 1, (const char **)&t, NULL, NULL);\n\
         clBuildProgram(pt, 0, NULL, {tile_options}, NULL, NULL);\n\
         char opts[64];\n\
         snprintf(opts, sizeof opts, \"-DSCALE=%d\", scale);\n\
         char *o = read_text(\"kernels/other.cl\");\n\
         cl_program po = clCreateProgramWithSource(ctx, 1, (const char **)&o, NULL, NULL);\n\
         clBuildProgram(po, 0, NULL, opts, NULL, NULL);\n}}\n"
    )
}

#[test]
fn options_declared_for_a_file_win_over_its_hosts_with_a_warning_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("kernels/tile.cl", &kernel(true)),
            ("kernels/other.cl", &kernel(false)),
            ("host/main.c", &host("\"-DTILE=16 -DSCALE=2\"")),
            ("clasp.toml", "exclude = [\"kernels/other.cl\"]\n[[file]]\npath = \"kernels/tile.cl\"\noptions = [\"-DTILE=8\"]\n"),
        ],
    );
    let (code, diff, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    let diff = String::from_utf8_lossy(&diff);
    assert_eq!(code, 1, "changes pending:\n{stderr}");
    // TILE from the declaration (the file's #error holds), SCALE from the host.
    assert!(diff.contains("+float first(const float *v)"), "{diff}\n{stderr}");
    let warning = stderr.lines().find(|l| l.contains("declared options win")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        warning.starts_with("./host/main.c:7:1: warning: clBuildProgram builds kernels/tile.cl with `-DTILE=16`"),
        "{warning}"
    );
    assert!(warning.contains("`-DTILE=8` is declared for it"), "{warning}");
    assert!(!stderr.contains("error:"), "{stderr}");
}

#[test]
fn options_computed_at_run_time_add_nothing_to_the_file_they_build() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("kernels/tile.cl", &kernel(false)), ("kernels/other.cl", &kernel(false)), ("host/main.c", &host("\"-DSCALE=2\""))],
    );
    let (code, diff, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    let diff = String::from_utf8_lossy(&diff);
    assert_eq!(code, 2, "other.cl is unanalysable:\n{stderr}");
    // tile.cl gets its host's literal options; other.cl, built with a snprintf'd string, is analysed as before: without SCALE.
    assert!(diff.contains("--- a/kernels/tile.cl") && !diff.contains("--- a/kernels/other.cl"), "{diff}");
    assert!(stderr.contains("./kernels/other.cl:1:54: error: use of undeclared identifier 'SCALE'"), "{stderr}");
    assert!(stderr.contains("1 unanalysable"), "{stderr}");
    assert!(diff.contains("clBuildProgram(pt, 0, NULL, \"-DSCALE=2 -cl-std=CL2.0\", NULL, NULL);"), "{diff}");
    assert!(!diff.contains("-clBuildProgram(po"), "the untraced call is not edited:\n{diff}");
}

/// A vendor option a host passes (`-cl-nv-verbose`) is left out of the
/// analysis with a note at the build call, as on the command line: for a
/// kernel file and for an embedded kernel alike.
#[test]
fn a_hosts_vendor_option_is_left_out_with_a_note_at_its_call() {
    let dir = tempfile::tempdir().unwrap();
    let embedded = "#include <CL/cl.h>\nconst char *src = \"__kernel void e(__global float *p) { p[0] = 1.0f; }\";\n\
                    void build(cl_context ctx) {\n  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);\n\
                    \x20 clBuildProgram(p, 0, NULL, \"-cl-amd-fast -DX=1\", NULL, NULL);\n}\n";
    write(
        dir.path(),
        &[
            ("kernels/tile.cl", &kernel(false)),
            ("kernels/other.cl", &kernel(false)),
            ("host/main.c", &host("\"-DSCALE=2 -cl-nv-verbose\"")),
            ("host/embedded.c", embedded),
            ("clasp.toml", "exclude = [\"kernels/other.cl\"]\n"),
        ],
    );
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(code, 1, "changes pending:\n{stderr}");
    // SCALE from the host: tile.cl compiled with the rest of the call's options.
    assert!(!stderr.contains("error:"), "{stderr}");
    let notes: Vec<&str> = stderr.lines().filter(|l| l.contains(": note: ignoring build option")).collect();
    assert_eq!(
        notes,
        [
            "./host/main.c:7:1: note: ignoring build option `-cl-nv-verbose`: clang does not accept it",
            "./host/embedded.c:5:3: note: ignoring build option `-cl-amd-fast`: clang does not accept it",
        ],
        "{stderr}"
    );
}
