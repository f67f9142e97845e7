//! Keeping code as it is: `// clasp: keep` before a declaration or a
//! function (or `keep(CODES)` for some rules), `--select`/`--ignore` and
//! clasp.toml's `select`/`ignore`; reported as `suppressed` everywhere.

use crate::support::clasp_in;

/// Two helpers in one unit (not duplicates, so never merged); `before_sum_l` is put on the line before `sum_l`.
fn unit(before_sum_l: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "float sum_g(__global const float *v, int n) {{ float s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }}\n\
         {before_sum_l}\n\
         float sum_l(__local const float *v, int n) {{ float s = 1; for (int i = 0; i < n; i++) s *= v[i]; return s; }}\n\
         __kernel void k(__global const float *in, __local float *t, __global float *out) {{ t[0] = in[0]; out[0] = sum_g(in, 4) + sum_l(t, 1); }}\n"
    );
    std::fs::write(dir.path().join("k.cl"), text).unwrap();
    dir
}

fn run(dir: &tempfile::TempDir, args: &[&str]) -> (i32, String, String) {
    let (code, stdout, stderr) = clasp_in(dir.path(), &[&["migrate", "-q"][..], args, &["k.cl"]].concat());
    (code, String::from_utf8(stdout).unwrap(), stderr)
}

#[test]
fn a_keep_comment_keeps_the_function_and_says_so_in_every_output() {
    let dir = unit("// clasp: keep");
    let (code, diff, stderr) = run(&dir, &["--explain"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.contains("+float sum_g(const float *v, int n)") && !diff.contains("sum_l(const"), "{diff}");
    assert!(stderr.contains("k.cl:3:34: refused suppressed: `v` of `sum_l`: kept by `// clasp: keep` (line 2)"), "{stderr}");
    assert!(stderr.contains("1 refused (1 suppressed)"), "{stderr}");
    let (_, statistics, _) = run(&dir, &["--statistics"]);
    assert!(statistics.contains("1  suppressed     refused"), "{statistics}");
    let (_, json, _) = run(&dir, &["--json"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["refusals"][0]["reason"], "suppressed");
    let (_, sarif, _) = run(&dir, &["--format", "sarif"]);
    assert!(sarif.contains("\"ruleId\": \"refused/suppressed\""), "{sarif}");
}

#[test]
fn a_keep_comment_naming_rules_keeps_only_from_those() {
    let (code, diff, stderr) = run(&unit("// clasp: keep(generic-local, generic-return)"), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.contains("+float sum_l(const float *v, int n)"), "generic-param is not kept: {diff}");
    let (code, diff, stderr) = run(&unit("// clasp: keep(generic-param)"), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!diff.contains("sum_l(const"), "{diff}");
    // An unknown code keeps from every rule: a typing error never changes code meant to be kept.
    let (code, diff, stderr) = run(&unit("// clasp: keep(generic-parm)"), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!diff.contains("sum_l(const"), "{diff}");
    // Not a whole-line comment: no effect.
    let (_, diff, _) = run(&unit("int unrelated; // clasp: keep"), &[]);
    assert!(diff.contains("+float sum_l(const float *v, int n)"), "{diff}");
}

#[test]
fn ignore_and_select_leave_rules_out() {
    let dir = unit("");
    let (code, diff, stderr) = run(&dir, &["--ignore", "generic-param"]);
    assert_eq!((code, diff.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("2 refused (2 suppressed)"), "{stderr}");
    let (_, diff, stderr) = run(&dir, &["--select", "generic-local,merge-duplicates", "--explain"]);
    assert_eq!(diff, "", "{stderr}");
    assert!(stderr.contains("generic-param is not selected (--select generic-local,merge-duplicates)"), "{stderr}");
    let (_, diff, _) = run(&dir, &["--select", "generic-param"]);
    assert!(diff.contains("+float sum_g(const float *v, int n)"), "{diff}");
    let (code, _, stderr) = run(&dir, &["--ignore", "builtin-pin"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--ignore: `builtin-pin` cannot be selected or ignored; these rules can: generic-param"), "{stderr}");
}

#[test]
fn clasp_toml_selects_and_ignores_too() {
    let dir = unit("");
    std::fs::write(dir.path().join("clasp.toml"), "ignore = [\"generic-param\"]\n").unwrap();
    let (code, diff, stderr) = run(&dir, &["--explain"]);
    assert_eq!((code, diff.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("generic-param is ignored (`ignore` in ") && stderr.contains("clasp.toml)"), "{stderr}");
    std::fs::write(dir.path().join("clasp.toml"), "select = [\"generic-local\"]\n").unwrap();
    let (_, diff, _) = run(&dir, &[]);
    assert_eq!(diff, "");
    // The command line's --select wins over clasp.toml's.
    let (_, diff, _) = run(&dir, &["--select", "generic-param"]);
    assert!(diff.contains("+float sum_g(const float *v, int n)"), "{diff}");
}

#[test]
fn a_kept_duplicate_is_not_merged() {
    let dir = tempfile::tempdir().unwrap();
    let stencil =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/stencil.cl")).unwrap();
    std::fs::write(dir.path().join("k.cl"), stencil.replace("float tap_local(", "// clasp: keep\nfloat tap_local(")).unwrap();
    let (code, diff, stderr) = run(&dir, &["--explain"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!diff.contains("+float tap(") && diff.contains("+float tap_global(const float *row"), "{diff}");
    assert!(stderr.contains("not merged pinned: `tap_global`, `tap_local`"), "{stderr}");
}
