//! `clasp rule [CODE]`: every code of the registry with its documentation,
//! as text (snapshots) and JSON, and the hint when `--explain` is given a code.

use crate::support::clasp;

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn rule_lists_every_code_with_its_summary() {
    let (code, stdout, stderr) = clasp(&["rule"]);
    assert_eq!(code, 0, "{stderr}");
    snapshot("rule_list", &stdout);
}

#[test]
fn rule_code_prints_its_documentation_under_headings() {
    let (code, stdout, stderr) = clasp(&["rule", "builtin-pin"]);
    assert_eq!(code, 0, "{stderr}");
    snapshot("rule_builtin_pin", &stdout);
    let (code, stdout, stderr) = clasp(&["rule", "generic-param"]);
    assert_eq!(code, 0, "{stderr}");
    snapshot("rule_generic_param", &stdout);
}

#[test]
fn rule_json_has_every_code_and_every_heading() {
    let (code, stdout, stderr) = clasp(&["rule", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let all: Vec<serde_json::Value> = serde_json::from_str(&stdout).expect("JSON");
    let (_, listing, _) = clasp(&["rule"]);
    assert_eq!(all.len(), listing.lines().filter(|l| l.starts_with("  ")).count());
    for doc in &all {
        for field in ["code", "kind", "summary", "what", "why", "example", "refuses", "safety"] {
            assert!(doc[field].as_str().is_some_and(|s| !s.is_empty()), "{field} of {doc}");
        }
    }
    let (code, one, _) = clasp(&["rule", "constant-space", "--format", "json"]);
    assert_eq!(code, 0);
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!((one["code"].as_str(), one["kind"].as_str()), (Some("constant-space"), Some("reason")));
}

#[test]
fn an_unknown_code_is_an_error() {
    let (code, stdout, stderr) = clasp(&["rule", "no-such-code"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr, "clasp: error: unknown code `no-such-code`; `clasp rule` lists every code\n");
}

#[test]
fn explain_given_a_code_points_to_clasp_rule() {
    let (code, _, stderr) = clasp(&["migrate", "--explain", "builtin-pin"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("clasp: error: `builtin-pin` is a code, not a path: `clasp rule builtin-pin` explains it"),
        "{stderr}"
    );
    // A file of that name is a path like any other.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("builtin-pin"), crate::support::HELPER_UNIT).unwrap();
    let (code, stdout, stderr) = crate::support::clasp_in(dir.path(), &["migrate", "--explain", "builtin-pin"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(String::from_utf8(stdout).unwrap().contains("+float first(const float *v)"));
}
