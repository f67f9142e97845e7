//! End-to-end tests of the built `clasp` binary: exit codes, error
//! messages, and a batch that goes on past a broken file.

use std::path::Path;
use std::process::Command;

fn clasp(args: &[&str]) -> (i32, String, String) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_clasp")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run clasp");
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

fn copy_fixture(dir: &Path, name: &str) -> std::path::PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate").join(name);
    let copy = dir.join(name);
    std::fs::copy(&source, &copy).unwrap();
    copy
}

#[test]
fn check_exits_one_when_changes_are_pending_and_zero_when_none() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty(), "--check prints no diff: {stdout}");
    let (code, _, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/already_generic.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2);
}

#[test]
fn write_applies_in_place_keeps_permissions_and_then_nothing_is_pending() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("void scale_elem(float *e, float s)"), "{text}");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
    let (code, _, stderr) = clasp(&["migrate", "--check", "--std", "CL2.0", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn diff_applies_with_git_apply() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "return_pointer.cl");
    let (code, diff, stderr) = clasp(&["migrate", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.starts_with("--- a/"), "{diff}");
    let patch = dir.path().join("p.diff");
    // Paths in the diff are as given (absolute here): apply from the root.
    std::fs::write(&patch, &diff).unwrap();
    let status = Command::new("git")
        .args(["apply", "--unsafe-paths", "--directory=/", "-p1", "--check"])
        .arg(&patch)
        .current_dir("/")
        .status()
        .unwrap();
    assert!(status.success(), "git apply rejected:\n{diff}");
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
    assert_eq!(stdout, "");
    assert!(stderr.contains(", 1 unanalysable, 1 error"), "{stderr}");
}

#[test]
fn allow_unverified_keeps_a_change_the_equivalence_check_rejects() {
    let fixture = "fixtures/migrate/verify_not_equivalent.cl";
    let pin = ["--test-ignore-pin", "sizeof-pointer"];
    let (code, stdout, stderr) = clasp(&[&["migrate"][..], &pin, &[fixture]].concat());
    assert_eq!((code, stdout.as_str()), (0, ""), "withdrawn by default: {stderr}");
    assert!(stderr.contains("1 refused (1 not-equivalent)"), "{stderr}");

    let (code, stdout, stderr) = clasp(&[&["migrate", "--allow-unverified"][..], &pin, &[fixture]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("+int pointer_bytes(int *slot)"), "{stdout}");
    assert!(stderr.contains("warning: kept unverified: kernel `report` is not equivalent"), "{stderr}");
    assert!(stderr.contains("1 function migrated (not verified)"), "{stderr}");
}

#[test]
fn json_accounts_for_every_function() {
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "fixtures/demo", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let accounts: Vec<String> = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let reason = f["reason"].as_str().map(|r| format!(" ({r})")).unwrap_or_default();
            let verified = f["verified"].as_bool().map(|v| format!(" verified={v}")).unwrap_or_default();
            format!(
                "{}:{} {} {}{reason}{verified}",
                f["file"].as_str().unwrap(),
                f["line"],
                f["name"].as_str().unwrap(),
                f["status"].as_str().unwrap()
            )
        })
        .collect();
    let unanalysable = report["unanalysable"].clone();
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("migrate_json_accounting", format!("{}\nunanalysable: {unanalysable}", accounts.join("\n")));
    });
}
