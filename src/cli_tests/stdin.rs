//! `-` with `--stdin-filename PATH`: a unit's text from standard input,
//! analysed as PATH's (its clasp.toml, its directory's includes), the diff
//! or the new text on stdout, and no file written.

use std::path::Path;

use crate::support::{clasp_stdin, HELPER_UNIT};

/// `HELPER_UNIT` as clasp migrates it.
const MIGRATED_UNIT: &str = "float first(const float *v) { return v[0]; }\n__kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n";

const NO_ENV: &[(&str, &str)] = &[];

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The names in `dir` (not below it), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn stdin_prints_the_diff_labelled_with_the_stdin_filename_which_need_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let args = ["migrate", "--no-cache", "-", "--stdin-filename", "sub/k.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "{stderr}");
    let diff = text(&stdout);
    assert!(diff.starts_with("--- a/sub/k.cl\n+++ b/sub/k.cl\n@@ -1,2 +1,2 @@\n"), "{diff}");
    assert!(diff.contains("\n+float first(const float *v) { return v[0]; }\n"), "{diff}");
    assert!(listing(&dir.path().join("sub")).is_empty(), "nothing is written beside it");
    // The same through a clang process ($CLASP_CLANG), which compiles a wrapper including the path.
    let (code, process, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), &[("CLASP_CLANG", "clang-19")]);
    assert_eq!((code, text(&process)), (0, diff.clone()), "{stderr}");
    // And in one process, as `CLASP_NO_ISOLATION` runs it (no supervisor buffering standard input).
    let (code, alone, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), &[("CLASP_NO_ISOLATION", "1")]);
    assert_eq!((code, text(&alone)), (0, diff), "{stderr}");
}

#[test]
fn stdin_text_takes_the_place_of_an_existing_file_which_stays_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), "this is not OpenCL C\n").unwrap();
    let args = ["migrate", "--no-cache", "-", "--stdin-filename", "k.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "the text on disk is never read: {stderr}");
    assert!(text(&stdout).contains("-float first(__global const float *v)"), "{}", text(&stdout));
    assert_eq!(std::fs::read_to_string(dir.path().join("k.cl")).unwrap(), "this is not OpenCL C\n");
}

#[test]
fn stdin_write_prints_the_whole_new_text_and_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), HELPER_UNIT).unwrap();
    let before = listing(dir.path());
    let args = ["migrate", "--write", "-", "--stdin-filename", "k.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (0, MIGRATED_UNIT.to_string()), "{stderr}");
    assert!(stderr.contains("1 function migrated (verified)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.path().join("k.cl")).unwrap(), HELPER_UNIT, "the file is untouched");
    assert_eq!(listing(dir.path()), before, "no file written, no temporary file left");
    // Text with nothing to change comes back as it came.
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, MIGRATED_UNIT.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (0, MIGRATED_UNIT.to_string()), "{stderr}");
}

#[test]
fn stdin_check_exits_1_when_the_text_would_change_and_0_when_not() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["migrate", "--check", "--no-cache", "-", "--stdin-filename", "k.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!(code, 1, "{stderr}");
    assert!(text(&stdout).starts_with("--- a/k.cl\n"), "{}", text(&stdout));
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, MIGRATED_UNIT.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (0, String::new()), "{stderr}");
    // --quiet lists the file by the name given.
    let quiet = ["migrate", "--check", "--quiet", "--no-cache", "-", "--stdin-filename", "k.cl"];
    let (code, stdout, _) = clasp_stdin(dir.path(), &quiet, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (1, "k.cl\n".to_string()));
}

/// A project whose kernels need `REAL` from clasp.toml, with a subfolder
/// that has its own clasp.toml (another `REAL`) and a header beside it.
fn configured_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("kernels/half")).unwrap();
    std::fs::write(root.join("clasp.toml"), "[[file]]\npath = \"kernels/k*.cl\"\noptions = [\"-DREAL=float\"]\n").unwrap();
    std::fs::write(root.join("kernels/half/clasp.toml"), "options = [\"-DREAL=int\", \"-DSCALE=2\"]\n").unwrap();
    std::fs::write(root.join("kernels/half/scale.h"), "#define SCALED(x) ((x) * SCALE)\n").unwrap();
    dir
}

const NEEDS_REAL: &str =
    "REAL first(__global const REAL *v) { return v[0]; }\n__kernel void k(__global REAL *out) { out[0] = first(out); }\n";

#[test]
fn stdin_takes_the_options_clasp_toml_gives_its_filename() {
    let dir = configured_project();
    let run = |name: &str, input: &str| {
        let args = ["migrate", "--no-cache", "-", "--stdin-filename", name];
        clasp_stdin(dir.path(), &args, input.as_bytes(), NO_ENV)
    };
    let (code, stdout, stderr) = run("kernels/k1.cl", NEEDS_REAL);
    assert_eq!(code, 0, "the [[file]] entry defines REAL: {stderr}");
    assert!(text(&stdout).contains("+REAL first(const REAL *v)"), "{}", text(&stdout));
    // A name no [[file]] entry matches: REAL is undefined, and the error names the file at line:col.
    let (code, _, stderr) = run("kernels/other.cl", NEEDS_REAL);
    assert_eq!(code, 2);
    assert!(stderr.contains("kernels/other.cl:1:1: error: unknown type name 'REAL'"), "{stderr}");
    // A file in a subfolder takes that folder's own clasp.toml, and its quoted includes are looked up beside it.
    let scaled = format!("#include \"scale.h\"\n{}", NEEDS_REAL.replace("v[0]", "SCALED(v[0])"));
    let (code, stdout, stderr) = run("kernels/half/h.cl", &scaled);
    assert_eq!(code, 0, "{stderr}");
    assert!(text(&stdout).starts_with("--- a/kernels/half/h.cl\n"), "{}", text(&stdout));
    assert!(text(&stdout).contains("+REAL first(const REAL *v) { return SCALED(v[0]); }"), "{}", text(&stdout));
}

#[test]
fn stdin_with_a_syntax_error_names_its_filename_at_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let broken = "float first(__global const float *v) {\n  return v[0]\n}\n";
    let args = ["migrate", "--no-cache", "-", "--stdin-filename", "src/bad.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, broken.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (2, String::new()), "{stderr}");
    assert!(stderr.contains("src/bad.cl:2:14: error: expected ';' after return statement"), "{stderr}");
    // With --write, the text comes back as it came (an editor's buffer is kept), and it is still an error.
    let write = ["migrate", "--write", "-", "--stdin-filename", "src/bad.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &write, broken.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (2, broken.to_string()), "{stderr}");
    assert!(!dir.path().join("src/bad.cl").exists());
}

#[test]
fn stdin_goes_alone_and_only_with_commands_that_print() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), HELPER_UNIT).unwrap();
    let refused = |args: &[&str], wanted: &str| {
        let (code, stdout, stderr) = clasp_stdin(dir.path(), args, HELPER_UNIT.as_bytes(), NO_ENV);
        assert_eq!((code, text(&stdout)), (2, String::new()), "{args:?}: {stderr}");
        assert!(stderr.contains(wanted), "{args:?}: {stderr}");
    };
    refused(
        &["migrate", "-", "k.cl"],
        "clasp: error: `-` reads one unit from standard input: give no other PATH beside it (`k.cl` was given)",
    );
    refused(&["migrate", "k.cl", "-"], "give no other PATH beside it (`k.cl` was given)");
    refused(&["analyze", "-", "."], "give no other PATH beside it (`.` was given)");
    refused(&["migrate", "k.cl", "--stdin-filename", "k.cl"], "--stdin-filename k.cl names the text read from standard input");
    refused(&["migrate", "-", "--out-dir", "out"], "--out-dir writes files: it cannot take `-`");
    refused(&["migrate", "-", "--interactive"], "--interactive writes files: it cannot take `-`");
    refused(&["migrate", "-", "--stdin-filename", "."], "--stdin-filename `.` must name a file");
    assert!(!dir.path().join("out").exists());
}

#[test]
fn stdin_without_a_filename_is_stdin_cl_and_a_filename_alone_reads_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &["migrate", "--no-cache", "-"], HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "{stderr}");
    assert!(text(&stdout).starts_with("--- a/stdin.cl\n+++ b/stdin.cl\n"), "{}", text(&stdout));
    // As ruff: --stdin-filename and no PATH reads standard input (not `.`).
    std::fs::write(dir.path().join("other.cl"), HELPER_UNIT).unwrap();
    let args = ["migrate", "--no-cache", "--stdin-filename", "mine.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "{stderr}");
    assert!(text(&stdout).starts_with("--- a/mine.cl\n") && !text(&stdout).contains("other.cl"), "{}", text(&stdout));
}

#[test]
fn stdin_changes_only_its_own_text_and_a_change_its_header_needs_is_withheld() {
    let dir = tempfile::tempdir().unwrap();
    let header = "float second(__global const float *v) { return v[1]; }\n";
    std::fs::write(dir.path().join("h.h"), header).unwrap();
    let unit = format!("#include \"h.h\"\n{}", HELPER_UNIT.replace("first(in);", "first(in) + second(in);"));
    let args = ["migrate", "--write", "--explain", "-", "--stdin-filename", "k.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, unit.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(text(&stdout), unit.replace("float first(__global const float *v)", "float first(const float *v)"));
    assert!(stderr.contains("outside-root") && stderr.contains("only that text changes"), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.path().join("h.h")).unwrap(), header);
}

#[test]
fn a_header_on_stdin_is_the_unit_analysed() {
    let dir = tempfile::tempdir().unwrap();
    let header = "float helper(__global float *p) { return p[1]; }\n__kernel void k(__global float *o) { o[0] = helper(o); }\n";
    // A .h is a host file unless --no-host, as it is when named on disk; a .clh is kernel code.
    for (name, extra) in [("inc/k.h", Some("--no-host")), ("inc/k.clh", None)] {
        std::fs::create_dir_all(dir.path().join("inc")).unwrap();
        let mut args = vec!["migrate", "--no-cache", "-", "--stdin-filename", name];
        args.extend(extra);
        let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, header.as_bytes(), NO_ENV);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(text(&stdout).starts_with(&format!("--- a/{name}\n")), "{name}: {}", text(&stdout));
        assert!(text(&stdout).contains("+float helper(float *p)"), "{name}: {}", text(&stdout));
    }
}

#[test]
fn analyze_reads_stdin_as_its_filename() {
    let dir = configured_project();
    let args = ["analyze", "-", "--stdin-filename", "kernels/k2.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, NEEDS_REAL.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "{stderr}");
    assert!(text(&stdout).starts_with("kernels/k2.cl\n"), "{}", text(&stdout));
    assert!(text(&stdout).contains("param `v` (1:33): points to __global"), "{}", text(&stdout));
}

#[test]
fn stdin_results_are_cached_by_the_texts_content() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["migrate", "-", "--stdin-filename", "k.cl"];
    let cached = ["migrate", "--test-cache-only", "-", "--stdin-filename", "k.cl"];
    let (code, first, stderr) = clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!(code, 0, "{stderr}");
    let (code, replayed, stderr) = clasp_stdin(dir.path(), &cached, HELPER_UNIT.as_bytes(), NO_ENV);
    assert_eq!((code, replayed), (0, first), "the same text replays: {stderr}");
    // Another text under the same name (and the same time stamps: there is no file) is a new run.
    let other = HELPER_UNIT.replace("v[0]", "v[1]");
    let (code, _, stderr) = clasp_stdin(dir.path(), &cached, other.as_bytes(), NO_ENV);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no stored result for this run"), "{stderr}");
}

#[test]
fn a_unit_on_stdin_that_crashes_clang_is_an_error_naming_its_filename() {
    let dir = tempfile::tempdir().unwrap();
    let crashing = "kernel void k(global int *p) { p[0] = 1; }\n#pragma clang __debug crash\n";
    let args = ["migrate", "--no-cache", "-", "--stdin-filename", "crash.cl"];
    let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, crashing.as_bytes(), NO_ENV);
    assert_eq!((code, text(&stdout)), (2, String::new()), "{stderr}");
    assert!(stderr.contains("crash.cl") && stderr.contains("crashed"), "{stderr}");
}

#[test]
fn a_kernel_embedded_in_a_host_file_on_stdin_is_part_of_that_file() {
    // A C literal and a C++ raw string: the embedded kernel's virtual file
    // (`host.c:2`) is written in the text standard input stands for.
    let c_host = "#include <CL/cl.h>\nstatic const char *src = \"float g(__global float *p){return p[0];}\\n__kernel void k(__global float *o){o[0]=g(o);}\\n\";\nvoid build(cl_context c, cl_device_id d) {\n  cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, NULL);\n  clBuildProgram(p, 1, &d, \"\", NULL, NULL);\n}\n";
    let cpp_host = "#include <CL/cl.h>\nvoid build(cl_context c, cl_device_id d) {\n  const char *src = R\"CLC(\n// helper\nfloat g(__global float *p) { return p[0]; }\n__kernel void k(__global float *o) { o[0] = g(o); }\n)CLC\";\n  cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, NULL);\n  clBuildProgram(p, 1, &d, \"-cl-std=CL1.2\", NULL, NULL);\n}\n";
    for (name, host) in [("host.c", c_host), ("src/host.cpp", cpp_host)] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        let args = ["migrate", "--no-cache", "--explain", "-", "--stdin-filename", name];
        let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, host.as_bytes(), NO_ENV);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(!stderr.contains("outside-root"), "{name}: {stderr}");
        // What the file saved on disk gives, diff for diff.
        std::fs::write(dir.path().join(name), host).unwrap();
        let (code, on_disk, stderr) = crate::support::clasp_in(dir.path(), &["migrate", "--no-cache", name]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert_eq!(text(&stdout), text(&on_disk), "{name}");
        assert!(text(&stdout).contains("+") && text(&stdout).contains("float g("), "{name}: {}", text(&stdout));
    }
}

#[test]
fn a_h_file_on_stdin_without_a_kernel_says_it_was_taken_as_host_code() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "float helper(__global float *p) { return p[1]; }\n";
    let args = ["migrate", "--check", "-q", "-", "--stdin-filename", "k.h"];
    let (code, _, stderr) = clasp_stdin(dir.path(), &args, kernel.as_bytes(), NO_ENV);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no OpenCL C unit found in k.h"), "{stderr}");
    assert!(stderr.contains("; k.h is taken as host code (C, C++ or Python), not as OpenCL C"), "{stderr}");
    assert!(stderr.contains("give --no-host or name it *.clh"), "{stderr}");
    // Several host files on disk: named, a few of them.
    for name in ["a.c", "b.cpp", "c.py", "d.h"] {
        std::fs::write(dir.path().join(name), "int unused;\n").unwrap();
    }
    let (code, _, stderr) = crate::support::clasp_in(dir.path(), &["migrate", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(", and 1 more are taken as host code"), "{stderr}");
}
