//! End-to-end tests of the built `clasp` binary: exit codes, error
//! messages, and a batch that goes on past a broken file.

use std::path::Path;
use std::process::Command;

fn clasp(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run clasp");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn analyze_clean_file_exits_zero() {
    let (code, stdout, stderr) = clasp(&["analyze", "fixtures/analyze/helpers_per_space.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("function sum_g"), "{stdout}");
    assert!(stderr.contains("1 file analysed, 0 errors"), "{stderr}");
}

#[test]
fn broken_file_in_the_middle_of_a_batch() {
    let (code, stdout, stderr) = clasp(&[
        "analyze",
        "fixtures/analyze/atomics.cl",
        "fixtures/analyze/broken.cl",
        "fixtures/analyze/flows.cl",
    ]);
    assert_eq!(code, 2);
    // The error names file, line and column; the files around it are still analysed.
    assert!(stderr.contains("fixtures/analyze/broken.cl:10:32: error:"), "{stderr}");
    assert!(stdout.contains("fixtures/analyze/atomics.cl\n"), "{stdout}");
    assert!(stdout.contains("fixtures/analyze/flows.cl\n"), "{stdout}");
    assert!(!stdout.contains("broken.cl"), "{stdout}");
    assert!(stderr.contains("2 files analysed, 1 error"), "{stderr}");
}

#[test]
fn missing_and_unreadable_paths_are_errors() {
    let (code, _, stderr) = clasp(&["analyze", "fixtures/analyze/no_such.cl", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("fixtures/analyze/no_such.cl: error: no such file or directory"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("binary.cl");
    std::fs::write(&binary, [0xffu8, 0xfe, 0x00, 0x01]).unwrap();
    let (code, _, stderr) = clasp(&["analyze", binary.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("binary.cl: error: cannot read"), "{stderr}");
}

#[test]
fn missing_clang_is_a_clear_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["analyze", "fixtures/analyze/flows.cl"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CLASP_CLANG", "/nonexistent/clang-19")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("cannot run /nonexistent/clang-19"), "{stderr}");
}

#[test]
fn usage_errors_exit_two() {
    let (code, _, stderr) = clasp(&["analyze"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("PATH"), "{stderr}");
    let (code, _, stderr) = clasp(&["analyze", "--std", "CL9.9", "x.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown OpenCL C standard"), "{stderr}");
    assert!(Path::new(env!("CARGO_BIN_EXE_clasp")).exists());
}
