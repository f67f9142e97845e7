//! The result cache: a second identical run over unchanged files replays
//! the first byte for byte (`--test-cache-only` fails unless it does), and
//! any change to what the batch read, a new file beside it, `--no-cache`,
//! an error or a run that writes means clasp works again.

use std::path::Path;

use crate::support::clasp_in;

/// A copy of the demo (kernels and host), outside any git work tree.
fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    for entry in std::fs::read_dir(demo).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

fn replayed(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    clasp_in(dir, &[&["migrate", "--test-cache-only"][..], args].concat())
}

#[test]
fn a_warm_run_replays_the_cold_one_byte_for_byte() {
    let dir = demo();
    for args in [&["--check", "."][..], &["--json", "."], &["--explain", "--format", "sarif", "."]] {
        let cold = clasp_in(dir.path(), &[&["migrate"][..], args].concat());
        let warm = replayed(dir.path(), args);
        assert_eq!(warm, cold, "{args:?}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join(".clasp_cache/.gitignore")).unwrap(), "*\n");
}

#[test]
fn any_change_to_what_the_batch_read_is_a_miss() {
    let dir = demo();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(code, 1, "{stderr}");
    let mut reduce = std::fs::read_to_string(dir.path().join("reduce.cl")).unwrap();
    reduce = reduce.replace("float sum_l(__local const float *v, int n)", "float sum_l(const float *v, int n)");
    std::fs::write(dir.path().join("reduce.cl"), &reduce).unwrap();
    let (code, _, stderr) = replayed(dir.path(), &["--check", "."]);
    assert_eq!(code, 2, "an edited unit is a miss");
    assert!(stderr.contains("no stored result for this run"), "{stderr}");
    let (_, diff, _) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert!(!String::from_utf8(diff).unwrap().contains("-float sum_l"), "worked again, on the new text");
    // A new file where the batch's files are (it could shadow an included header).
    std::fs::write(dir.path().join("new.h"), "#define X 1\n").unwrap();
    assert_eq!(replayed(dir.path(), &["--check", "."]).0, 2, "a new file beside them is a miss");
    // Other arguments are another run.
    clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(replayed(dir.path(), &["--check", "."]).0, 1);
    assert_eq!(replayed(dir.path(), &["--check", "--explain", "."]).0, 2);
}

#[test]
fn no_cache_errors_and_writes_are_never_replayed() {
    let dir = demo();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--check", "."]);
    assert_eq!(code, 1, "{stderr}");
    // A miss, not any exit 2: the run went as far as looking for a stored result.
    assert_missed(replayed(dir.path(), &["--no-cache", "--check", "."]), "--no-cache never replays");
    assert!(!dir.path().join(".clasp_cache").exists(), "--no-cache stores nothing");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/syntax_error.cl"), dir.path().join("broken.cl"))
        .unwrap();
    let (code, _, _) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(code, 2);
    // A stored batch with an error would replay as exit 2 too: only the miss's message tells them apart.
    assert_missed(replayed(dir.path(), &["--check", "."]), "a batch with an error is not stored");
    std::fs::remove_file(dir.path().join("broken.cl")).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    // Over the written tree a second `--write` changes nothing: were it stored, the files it read are unchanged and it would replay.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert_missed(replayed(dir.path(), &["--write", "."]), "a run that writes is never replayed");
    // The control: the same tree, the same run without writing, is stored and replayed.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = replayed(dir.path(), &["--check", "."]);
    assert_eq!(code, 0, "a run that only reads is replayed: {stderr}");
}

/// `--test-cache-only` found no stored result (exit 2 with its message, nothing on stdout).
fn assert_missed((code, stdout, stderr): (i32, Vec<u8>, String), why: &str) {
    assert_eq!(code, 2, "{why}: {stderr}");
    assert!(stderr.contains("no stored result for this run (--test-cache-only)"), "{why}: {stderr}");
    assert!(stdout.is_empty(), "{why}: replayed {}", String::from_utf8_lossy(&stdout));
}
