//! `--check` as CI uses it: the would-be diff (or, with `--quiet`, the
//! files that would change) and exit 1, with a summary that never says a
//! file was migrated when nothing was written.

use crate::support::{clasp, copy_fixture};

#[test]
fn check_prints_the_diff_it_would_apply_and_exits_1() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 1, "{stderr}");
    let (plain_code, plain, _) = clasp(&["migrate", "fixtures/migrate/chain.cl"]);
    assert_eq!(plain_code, 0);
    assert!(stdout.starts_with("--- a/fixtures/migrate/chain.cl\n+++ b/fixtures/migrate/chain.cl\n"), "{stdout}");
    assert_eq!(stdout, plain, "--check shows the same diff as a plain run");
    assert!(stderr.contains("functions would migrate (verified)"), "{stderr}");
    assert!(!stderr.lines().last().unwrap().contains(" migrated"), "nothing was written: {stderr}");
    let (code, with_format, _) = clasp(&["migrate", "--check", "--format", "diff", "fixtures/migrate/chain.cl"]);
    assert_eq!((code, with_format.as_str()), (1, plain.as_str()));
}

#[test]
fn check_quiet_lists_only_the_files_that_would_change() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "-q", "fixtures/demo"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        "fixtures/demo/blur.cl\nfixtures/demo/histogram.cl\nfixtures/demo/host.c\nfixtures/demo/reduce.cl\nfixtures/demo/stencil.cl\n"
    );
}

#[test]
fn summary_says_migrated_only_when_files_were_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    let out = dir.path().join("out");
    let (code, _, stderr) = clasp(&["migrate", "--out-dir", out.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("functions migrated (verified)"), "{stderr}");
    let (code, _, stderr) = clasp(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("functions migrated (verified)"), "{stderr}");
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "--std", "CL2.0", file.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("0 functions would migrate"), "{stderr}");
}
