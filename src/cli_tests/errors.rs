//! Exit codes and error messages: a clean run, usage errors, missing tools
//! and files, and batches that go on past a broken (or crashing) file.

use std::process::Command;

use crate::support::{clasp, copy_fixture, HELPER_UNIT};

#[test]
fn analyze_clean_file_exits_zero() {
    let (code, stdout, stderr) = clasp(&["analyze", "fixtures/analyze/helpers_per_space.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("function sum_g"), "{stdout}");
    assert!(stderr.contains("1 file analysed, 0 errors"), "{stderr}");
}

#[test]
fn broken_file_in_the_middle_of_a_batch() {
    let (code, stdout, stderr) =
        clasp(&["analyze", "fixtures/analyze/atomics.cl", "fixtures/analyze/broken.cl", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 2);
    // The error names file, line and column; the files around it are still analysed.
    assert!(stderr.contains("fixtures/analyze/broken.cl:10:32: error:"), "{stderr}");
    assert!(stdout.contains("fixtures/analyze/atomics.cl\n"), "{stdout}");
    assert!(stdout.contains("fixtures/analyze/flows.cl\n"), "{stdout}");
    assert!(!stdout.contains("broken.cl"), "{stdout}");
    assert!(stderr.contains("2 files analysed, 1 error"), "{stderr}");
}

#[test]
fn missing_paths_and_binary_files_are_errors() {
    let (code, _, stderr) = clasp(&["analyze", "fixtures/analyze/no_such.cl", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("fixtures/analyze/no_such.cl:1:1: error: no such file or directory"), "{stderr}");

    // Files are read as bytes (a Latin-1 comment is fine): binary junk is
    // one error at its start (`actionable_errors` has more).
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("binary.cl");
    std::fs::write(&binary, [0xffu8, 0xfe, 0x00, 0x01]).unwrap();
    let (code, _, stderr) = clasp(&["analyze", binary.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("binary.cl:1:1: error: not a text file (NUL byte at offset 2;"), "{stderr}");
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
    // (No PATH is no error: it means `.`, see `shell`.)
    let (code, _, stderr) = clasp(&["analyse", "x.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unrecognized subcommand 'analyse'"), "{stderr}");
    let (code, _, stderr) = clasp(&["analyze", "--std", "CL9.9", "x.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown OpenCL C standard"), "{stderr}");
    // An unknown flag is a usage error before any file is read: the path named does not exist.
    let (code, stdout, stderr) = clasp(&["migrate", "--no-such-flag", "no_such.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unexpected argument '--no-such-flag'"), "{stderr}");
    assert!(!stderr.contains("no_such.cl"), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
}

#[test]
fn check_exits_one_when_changes_are_pending_and_zero_when_none() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.starts_with("--- a/fixtures/migrate/chain.cl"), "--check prints the diff: {stdout}");
    let (code, _, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/already_generic.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2);
}

#[test]
fn a_broken_file_changes_nothing_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let good = copy_fixture(dir.path(), "single_space.cl");
    let bad = copy_fixture(dir.path(), "syntax_error.cl");
    let before = std::fs::read_to_string(&bad).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--write", bad.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("syntax_error.cl:8:21: error: expected ']'"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), before);
    assert!(std::fs::read_to_string(&good).unwrap().contains("void clamp01(float *p, int n)"));
}

#[test]
fn check_exits_two_when_a_file_is_unanalysable() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.starts_with("--- a/fixtures/migrate/chain.cl") && !stdout.contains("syntax_error"), "{stdout}");
    assert!(stderr.contains(", 1 unanalysable, 1 error"), "{stderr}");
}

#[test]
fn a_file_that_crashes_clang_while_parsing_is_an_error_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // clang's own test hook: its front end crashes on purpose where it reads this.
    std::fs::write(dir.path().join("a.cl"), "#pragma clang __debug crash\nkernel void k(global int *p) { p[0] = 1; }\n").unwrap();
    std::fs::write(dir.path().join("b.cl"), HELPER_UNIT).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("a.cl:1:1: error:"), "{stderr}");
    assert!(stdout.contains("+float first(const float *v)"), "{stdout}");
    assert!(stderr.contains("1 unanalysable, 1 error"), "{stderr}");
}

#[test]
fn mllvm_is_refused_once_up_front_in_process_and_honoured_by_a_clang_process() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.cl", "b.cl"] {
        std::fs::write(dir.path().join(name), crate::support::HELPER_UNIT).unwrap();
    }
    let args = ["migrate", "--check", "a.cl", "b.cl", "--", "-mllvm", "-inline-threshold=0"];
    let (code, stdout, stderr) = crate::support::clasp_in(dir.path(), &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    let expected = "clasp: error: -mllvm sets LLVM's process-wide options, which the in-process clang cannot do for one unit: set CLASP_CLANG=clang-19 to run clang as a process, which honours it";
    assert_eq!(stderr.matches(expected).count(), 1, "{stderr}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(args)
        .current_dir(dir.path())
        .env("CLASP_CLANG", "clang-19")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("2 functions"), "{stderr}");
}
