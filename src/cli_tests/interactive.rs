//! `clasp migrate --interactive` driven on a pipe: each change set shown
//! and answered, only the accepted ones written, after the batch is
//! migrated and verified again without the skipped ones.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A copy of the demo's kernels (no host file), outside any git work tree.
fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    for name in ["blur.cl", "histogram.cl", "reduce.cl", "stencil.cl"] {
        std::fs::copy(demo.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// Runs `clasp migrate --interactive .` in `dir` with `answers` on stdin.
fn interactive(dir: &Path, answers: &str, extra: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args([&["migrate", "--interactive"][..], extra, &["."]].concat())
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(answers.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn only_the_accepted_change_sets_are_written() {
    let dir = demo();
    // The sets in order: blur's helpers, bin_of, sum_g, sum_l, the merge of tap_global and tap_local.
    let (code, stdout, stderr) = interactive(dir.path(), "y\nn\ny\nq\n", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("--- a/blur.cl\n+++ b/blur.cl\n"), "each set's diff is shown: {stdout}");
    assert!(stderr.contains("blur.cl:6:34: generic-param: `row` of `row3`"), "and its evidence: {stderr}");
    assert!(stderr.contains("[1/5] apply this change? [y]es, [n]o, [a]ll the rest, [q]uit (skip the rest): y\n"), "{stderr}");
    assert!(!stderr.contains("[5/5]"), "q skips the rest without asking: {stderr}");
    assert!(read(dir.path(), "blur.cl").contains("float row3(const float *row"));
    assert!(read(dir.path(), "histogram.cl").contains("int bin_of(__global const uchar *px"), "skipped");
    let reduce = read(dir.path(), "reduce.cl");
    assert!(reduce.contains("float sum_g(const float *v") && reduce.contains("float sum_l(__local const float *v"), "{reduce}");
    // The merge was skipped: neither copy changes, not even `tap_local`, whose own change was never shown.
    let stencil = read(dir.path(), "stencil.cl");
    let original = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/stencil.cl")).unwrap();
    assert_eq!(stencil, original);
    assert!(stderr.contains("3 functions migrated (verified)") && stderr.contains("suppressed"), "{stderr}");
    // What was written is what a plain run keeps of it: the skipped sets are still pending.
    let (code, _, _) = crate::support::clasp_in(dir.path(), &["migrate", "--check", "-q", "."]);
    assert_eq!(code, 1);
}

#[test]
fn all_accepts_the_rest_and_the_end_of_input_skips_it() {
    let dir = demo();
    let (code, _, stderr) = interactive(dir.path(), "a\n", &[]);
    assert_eq!(code, 0, "{stderr}");
    let written = demo();
    let (code, _, stderr) = crate::support::clasp_in(written.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    for name in ["blur.cl", "histogram.cl", "reduce.cl", "stencil.cl"] {
        assert_eq!(read(dir.path(), name), read(written.path(), name), "{name}: as --write");
    }
    let untouched = demo();
    let (code, _, stderr) = interactive(untouched.path(), "", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("0 functions migrated"), "{stderr}");
    for name in ["blur.cl", "histogram.cl", "reduce.cl", "stencil.cl"] {
        let original = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo").join(name)).unwrap();
        assert_eq!(read(untouched.path(), name), original, "{name}");
    }
}

#[test]
fn an_answer_not_offered_is_asked_again_and_allow_dirty_needs_a_writing_mode() {
    let dir = demo();
    let (code, _, stderr) = interactive(dir.path(), "maybe\nn\nq\n", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.matches("[1/5] apply this change?").count(), 2, "{stderr}");
    let (code, _, stderr) = crate::support::clasp(&["migrate", "--allow-dirty", "fixtures/demo"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--allow-dirty"), "{stderr}");
}

#[test]
fn on_a_terminal_the_review_is_coloured_and_answered_the_same() {
    // A pseudo-terminal through util-linux's `script`: clasp's stdin, stdout and stderr are a terminal.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/reduce.cl"), dir.path().join("reduce.cl")).unwrap();
    let command = format!("{} migrate --interactive .", env!("CARGO_BIN_EXE_clasp"));
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs clasp on a pseudo-terminal");
    child.stdin.take().unwrap().write_all(b"y\nn\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    assert_eq!(transcript.matches("apply this change?").count(), 2, "{transcript}");
    assert!(transcript.contains("\x1b[32m+float sum_g(const float *v, int n, int stride)\x1b[0m"), "coloured: {transcript}");
    let reduce = read(dir.path(), "reduce.cl");
    assert!(reduce.contains("float sum_g(const float *v") && reduce.contains("float sum_l(__local const float *v"), "{reduce}");
}

#[test]
fn with_out_dir_the_accepted_changes_go_to_copies() {
    let dir = demo();
    let (code, _, stderr) = interactive(dir.path(), "y\nq\n", &["--out-dir", "out"]);
    assert_eq!(code, 0, "{stderr}");
    let original = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/blur.cl")).unwrap();
    assert_eq!(read(dir.path(), "blur.cl"), original, "the file itself is left as it is");
    assert!(read(&dir.path().join("out"), "blur.cl").contains("float row3(const float *row"), "the accepted set, copied");
    assert!(!dir.path().join("out/histogram.cl").exists(), "a skipped file is not copied");
}

#[test]
fn each_prompt_shows_before_its_answer_is_given() {
    // As a person at a terminal sees it: the first question arrives while stdin is still open and empty.
    use std::io::Read;
    let dir = demo();
    let mut child = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["migrate", "--interactive", "."])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut byte = [0u8; 1];
        while stderr.read(&mut byte).unwrap_or(0) == 1 {
            seen.push(byte[0]);
            if seen.ends_with(b"[q]uit (skip the rest): ") {
                let _ = sender.send(String::from_utf8_lossy(&seen).into_owned());
                return;
            }
        }
    });
    let asked = receiver.recv_timeout(std::time::Duration::from_secs(60));
    child.stdin.take().unwrap().write_all(b"q\n").unwrap();
    let status = child.wait().unwrap();
    let asked = asked.expect("no question on stderr while the answer was awaited");
    assert!(asked.contains("[1/"), "{asked}");
    assert_eq!(status.code(), Some(0));
}
