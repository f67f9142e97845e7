//! Per-file selection: clasp.toml's `[[file]]` entries with `select` and
//! `ignore` leave rules out of the files their globs match (as ruff's
//! per-file-ignores), reported as `suppressed` like a `--ignore`d rule.

use std::path::Path;

use crate::support::{clasp_in, clasp_stdin};

/// A helper whose parameter (generic-param) and local (generic-local) become generic.
const UNIT: &str = "float first(__global const float *v) { __global const float *q = v; return q[0]; }\n\
                    __kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n";

/// A project with `kernels/a.cl` and `kernels/b.cl` (each `UNIT`) and `clasp.toml` holding `config`.
fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("kernels")).unwrap();
    for name in ["a.cl", "b.cl"] {
        std::fs::write(dir.path().join("kernels").join(name), UNIT).unwrap();
    }
    std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
    dir
}

fn migrate(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let (code, stdout, stderr) = clasp_in(dir, &[&["migrate", "--no-cache", "--explain"][..], args].concat());
    (code, String::from_utf8(stdout).unwrap(), stderr)
}

/// The diff's hunks for one file (from its `--- a/NAME` line to the next file's).
fn diff_of<'d>(diff: &'d str, name: &str) -> &'d str {
    let Some(start) = diff.find(&format!("--- a/{name}\n")) else { return "" };
    let rest = &diff[start + 1..];
    &diff[start..start + 1 + rest.find("\n--- a/").map_or(rest.len(), |end| end + 1)]
}

#[test]
fn a_file_entry_ignoring_a_rule_keeps_that_files_change_and_not_the_other_files() {
    let dir = project("[[file]]\npath = \"kernels/a*.cl\"\nignore = [\"generic-param\"]\n");
    let (code, diff, stderr) = migrate(dir.path(), &["."]);
    assert_eq!(code, 0, "{stderr}");
    let (a, b) = (diff_of(&diff, "kernels/a.cl"), diff_of(&diff, "kernels/b.cl"));
    assert!(a.contains("+float first(__global const float *v) { const float *q = v;"), "a keeps its parameter: {diff}");
    assert!(b.contains("+float first(const float *v) { const float *q = v;"), "b changes whole: {diff}");
    let why = "generic-param is ignored (`ignore` of [[file]] `kernels/a*.cl` in ";
    assert!(stderr.contains(&format!("kernels/a.cl:1:35: refused suppressed: `v` of `first`: {why}")), "{stderr}");
    assert!(stderr.contains("2 functions would migrate (verified), 1 of them partly"), "{stderr}");
    // Reported as a --ignore'd rule is: a suppressed refusal, with why.
    let (_, json, _) = migrate(dir.path(), &["--json", "."]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let refusals = report["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1, "{json}");
    assert_eq!(
        (&refusals[0]["file"], &refusals[0]["name"], &refusals[0]["reason"]),
        (&"kernels/a.cl".into(), &"v".into(), &"suppressed".into())
    );
    assert!(refusals[0]["detail"].as_str().unwrap().starts_with(why), "{json}");
}

#[test]
fn a_file_entry_selecting_rules_leaves_the_others_out_of_its_files_only() {
    let dir = project("[[file]]\npath = \"kernels/b.cl\"\nselect = [\"generic-local\"]\n");
    let (code, diff, stderr) = migrate(dir.path(), &["."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff_of(&diff, "kernels/a.cl").contains("+float first(const float *v)"), "{diff}");
    assert!(diff_of(&diff, "kernels/b.cl").contains("+float first(__global const float *v) { const float *q"), "{diff}");
    assert!(
        stderr.contains("generic-param is not selected (`select` of [[file]] `kernels/b.cl` in ")
            && stderr.contains("clasp.toml: generic-local)"),
        "{stderr}"
    );
    // What the batch leaves out stays out: a [[file]]'s select never brings a rule back
    // (`v` flows into `q`, so with `q` kept neither changes).
    let (code, diff, stderr) = migrate(dir.path(), &["--ignore", "generic-local", "."]);
    assert_eq!((code, diff.as_str()), (0, ""), "{stderr}");
    let why = "kernels/b.cl:1:62: refused suppressed: `q` of `first`: generic-local is ignored (--ignore generic-local)";
    assert!(stderr.contains(why), "{stderr}");
}

#[test]
fn a_file_entry_matching_a_header_keeps_the_header_and_the_unit_changes() {
    let dir = project("[[file]]\npath = \"include/*.h\"\nignore = [\"generic-param\"]\n");
    std::fs::create_dir(dir.path().join("include")).unwrap();
    let header = "float second(__global const float *v) { return v[1]; }\n";
    std::fs::write(dir.path().join("include/h.h"), header).unwrap();
    let unit = format!("#include \"../include/h.h\"\n{}", UNIT.replace("first(in);", "first(in) + second(in);"));
    std::fs::write(dir.path().join("kernels/a.cl"), &unit).unwrap();
    let (code, diff, stderr) = migrate(dir.path(), &["--no-host", "--root", ".", "kernels/a.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!diff.contains("--- a/include/h.h"), "{diff}");
    assert!(diff.contains("+float first(const float *v)"), "{diff}");
    let why =
        "include/h.h:1:36: refused suppressed: `v` of `second`: generic-param is ignored (`ignore` of [[file]] `include/*.h`";
    assert!(stderr.contains(why), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.path().join("include/h.h")).unwrap(), header);
}

#[test]
fn a_file_entry_with_a_code_it_cannot_take_is_an_error_at_its_line_and_column() {
    let dir = project("[[file]]\npath = \"kernels/*.cl\"\nignore = [\"generic-parm\"]\n");
    let (code, diff, stderr) = migrate(dir.path(), &["--write", "."]);
    assert_eq!((code, diff.as_str()), (2, ""), "{stderr}");
    assert!(
        stderr.contains(
            "clasp.toml:3:12: error: [[file]] `kernels/*.cl`: unknown code `generic-parm`; `clasp rule` lists every code"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("kernels/a.cl")).unwrap(), UNIT, "nothing written");
    // merge-duplicates joins helpers across files: the batch's to choose.
    std::fs::write(
        dir.path().join("clasp.toml"),
        "[[file]]\npath = \"kernels/*.cl\"\n\nselect = [\n  \"generic-param\", \"merge-duplicates\"]\n",
    )
    .unwrap();
    let (code, _, stderr) = migrate(dir.path(), &["."]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "clasp.toml:5:21: error: [[file]] `kernels/*.cl`: `merge-duplicates` cannot be selected or ignored per file"
        ),
        "{stderr}"
    );
    // A reason is no rule at all.
    std::fs::write(dir.path().join("clasp.toml"), "[[file]]\npath = \"kernels/*.cl\"\nignore = [\"builtin-pin\"]\n").unwrap();
    let (code, _, stderr) = migrate(dir.path(), &["."]);
    assert_eq!(code, 2);
    assert!(stderr.contains("clasp.toml:3:12: error: [[file]] `kernels/*.cl`: `builtin-pin` cannot be selected or ignored per file; these rules can: generic-param, generic-local, generic-return, array-param-to-pointer"), "{stderr}");
}

#[test]
fn a_subfolder_with_its_own_clasp_toml_matches_its_globs_from_there() {
    let dir = project("[[file]]\npath = \"kernels/a.cl\"\nignore = [\"generic-local\"]\n");
    std::fs::write(dir.path().join("kernels/clasp.toml"), "[[file]]\npath = \"b.cl\"\nignore = [\"generic-local\"]\n").unwrap();
    // Run on the subfolder: its clasp.toml applies (b.cl keeps its local, and so the
    // parameter flowing into it), the top one does not (a.cl changes).
    let (code, diff, stderr) = migrate(dir.path(), &["kernels"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff_of(&diff, "kernels/a.cl").contains("+float first(const float *v) { const float *q"), "{diff}");
    assert_eq!(diff_of(&diff, "kernels/b.cl"), "", "{diff}");
    assert!(
        stderr.contains(
            "kernels/b.cl:1:62: refused suppressed: `q` of `first`: generic-local is ignored (`ignore` of [[file]] `b.cl` in "
        ),
        "{stderr}"
    );
    // From the top, the top clasp.toml applies instead.
    let (code, diff, stderr) = migrate(dir.path(), &["."]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(diff_of(&diff, "kernels/a.cl"), "", "{diff}");
    assert!(diff_of(&diff, "kernels/b.cl").contains("+float first(const float *v) { const float *q"), "{diff}");
}

#[test]
fn a_file_entry_applies_to_the_text_on_stdin_by_its_filename() {
    let dir = project("[[file]]\npath = \"kernels/a*.cl\"\nignore = [\"generic-param\", \"generic-local\"]\n");
    let no_env: &[(&str, &str)] = &[];
    let run = |name: &str| {
        let args = ["migrate", "--check", "--no-cache", "-", "--stdin-filename", name];
        let (code, stdout, stderr) = clasp_stdin(dir.path(), &args, UNIT.as_bytes(), no_env);
        (code, String::from_utf8(stdout).unwrap(), stderr)
    };
    let (code, diff, stderr) = run("kernels/a2.cl");
    assert_eq!((code, diff.as_str()), (0, ""), "every rule of the file is ignored: {stderr}");
    assert!(stderr.contains("0 functions would migrate, 1 refused (1 suppressed)"), "{stderr}");
    let (code, diff, stderr) = run("kernels/c.cl");
    assert_eq!(code, 1, "{stderr}");
    assert!(diff.starts_with("--- a/kernels/c.cl\n"), "{diff}");
}
