//! The shell conventions users of ruff, black and clang-tidy reach for: no
//! PATH means `.`, `--exit-zero`, shell completions and a man page from the
//! same definitions as `--help`.

use crate::support::{clasp_in, HELPER_UNIT};

/// A directory holding one unit that clasp changes (`k.cl`) and a git repository around it.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::support::repository(dir.path(), &["k.cl"]);
    dir
}

#[test]
fn migrate_without_a_path_works_on_the_current_directory() {
    let dir = project();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--no-cache"]);
    let (dot_code, dot, _) = clasp_in(dir.path(), &["migrate", "--check", "--no-cache", "."]);
    assert_eq!((code, dot_code), (1, 1), "{stderr}");
    assert_eq!(stdout, dot, "no PATH is `.`");
    assert!(String::from_utf8_lossy(&stdout).starts_with("--- a/k.cl\n+++ b/k.cl\n"), "{stderr}");
}

#[test]
fn analyze_without_a_path_works_on_the_current_directory() {
    let dir = project();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["analyze", "--json"]);
    let (dot_code, dot, _) = clasp_in(dir.path(), &["analyze", "--json", "."]);
    assert_eq!((code, dot_code), (0, 0), "{stderr}");
    assert_eq!(stdout, dot, "no PATH is `.`");
    assert!(String::from_utf8_lossy(&stdout).contains("k.cl"), "{}", String::from_utf8_lossy(&stdout));
}

#[test]
fn compile_commands_still_stands_for_the_paths() {
    // `.` is only the default when nothing else names the units.
    let dir = project();
    std::fs::write(dir.path().join("other.cl"), HELPER_UNIT).unwrap();
    std::fs::write(dir.path().join("units.json"), r#"[{"file": "k.cl", "options": ""}]"#).unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--compile-commands", "units.json"]);
    assert_eq!(code, 0, "{stderr}");
    let stdout = String::from_utf8_lossy(&stdout);
    assert!(stdout.contains("+++ b/k.cl") && !stdout.contains("other.cl"), "{stdout}");
}

#[test]
fn exit_zero_keeps_pending_changes_at_0_and_the_report_as_it_is() {
    let dir = project();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--no-cache", "k.cl"]);
    assert_eq!(code, 1, "{stderr}");
    let (zero_code, zero_stdout, zero_stderr) =
        clasp_in(dir.path(), &["migrate", "--check", "--exit-zero", "--no-cache", "k.cl"]);
    assert_eq!(zero_code, 0, "{zero_stderr}");
    assert_eq!(zero_stdout, stdout, "the same diff");
    // The result cache replays the run with the code of --check alone: --exit-zero still applies.
    clasp_in(dir.path(), &["migrate", "--check", "-q", "k.cl"]);
    let (cached_code, _, cached_stderr) = clasp_in(dir.path(), &["migrate", "--check", "-q", "--exit-zero", "k.cl"]);
    assert_eq!(cached_code, 0, "{cached_stderr}");
}

#[test]
fn exit_zero_still_exits_2_on_an_error() {
    let dir = project();
    std::fs::write(dir.path().join("broken.cl"), "__kernel void k(__global float *p) { p[0] = ; }\n").unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--exit-zero", "--no-cache", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("broken.cl:1:"), "{stderr}");
}
