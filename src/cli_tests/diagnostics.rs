//! What editors' and CI's problem matchers read: every error line starts
//! `file:line:col: error:`, `--explain` lines carry a column, odd options
//! get a clear message, and `analyze` takes `migrate`'s `--format` and `-q`.

use crate::support::clasp;

/// Whether `line` starts `path:line:col: ` (numbers for line and column).
fn located(line: &str) -> bool {
    let mut parts = line.splitn(4, ':');
    let (file, line_no, col, rest) = (parts.next(), parts.next(), parts.next(), parts.next());
    let number = |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    file.is_some_and(|f| !f.is_empty()) && number(line_no) && number(col) && rest.is_some_and(|r| r.starts_with(' '))
}

#[test]
fn every_error_line_starts_with_its_location() {
    let (code, _, stderr) = clasp(&[
        "migrate",
        "fixtures/migrate/repair_impossible.cl",
        "fixtures/migrate/repair_unknown_flow.cl",
        "fixtures/migrate/syntax_error.cl",
        "fixtures/migrate/no_such.cl",
    ]);
    assert_eq!(code, 2, "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
    // repair_impossible's blocker, repair_unknown_flow's, the syntax error's, the missing file's.
    assert!(errors.len() >= 4, "{stderr}");
    for line in &errors {
        assert!(located(line) && line.contains(": error: "), "not located: {line}");
        assert_eq!(line.matches("error:").count(), 1, "one error per line: {line}");
    }
    assert!(errors.contains(&"fixtures/migrate/no_such.cl:1:1: error: no such file or directory"), "{stderr}");
    // The compiler's own diagnostic is where the unit's error is placed.
    assert!(
        errors.iter().any(|l| l.starts_with("fixtures/migrate/repair_unknown_flow.cl:22:38: error: cannot make")),
        "{stderr}"
    );
}

#[test]
fn explain_lines_have_columns() {
    let (code, _, stderr) = clasp(&["migrate", "--explain", "fixtures/demo/blur.cl"]);
    assert_eq!(code, 0, "{stderr}");
    // `float row3(__global const float *row, ...`: the name `row` starts at column 34.
    assert!(stderr.contains("fixtures/demo/blur.cl:6:34: generic-param: `row` of `row3`"), "{stderr}");
    assert!(stderr.contains("fixtures/demo/blur.cl:6:64: refused constant-space: `w` of `row3`"), "{stderr}");
    let explained: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("clasp:")).collect();
    assert!(!explained.is_empty() && explained.iter().all(|l| located(l)), "{stderr}");
}

#[test]
fn zero_jobs_says_what_to_do() {
    let (code, _, stderr) = clasp(&["migrate", "-j", "0", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("at least 1 worker thread is needed; leave -j out for one per core"), "{stderr}");
}

#[test]
fn analyze_takes_format_and_quiet_as_migrate_does() {
    let (code, stdout, stderr) = clasp(&["analyze", "-q", "--format", "json", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(report["files"][0]["status"], "analysed");
    assert_eq!(stderr, "", "-q leaves out the count");
    let (code, text, stderr) = clasp(&["analyze", "--format", "diff", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let (_, plain, _) = clasp(&["analyze", "fixtures/analyze/flows.cl"]);
    assert_eq!(text, plain, "`diff` is the text report, as migrate's default");
    assert!(stderr.contains("1 file analysed"), "{stderr}");
}
