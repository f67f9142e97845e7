//! `clasp rule [CODE]`: every code of the registry with its documentation,
//! as text (snapshots) and JSON, and the hint when `--explain` is given a code.

use clasp::codes::{Code, Kind};
use clasp::rules::registry;

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

/// The headings `clasp rule CODE` prints, in order: a rule's, or a reason's.
fn standard_headings(kind: Kind) -> [&'static str; 5] {
    match kind {
        Kind::Rule => ["What it does", "Why", "Example", "When it refuses", "Fix safety"],
        Kind::Reason | Kind::Lint => ["What it does", "Why", "Example", "When it applies", "What to do"],
    }
}

#[test]
fn every_code_of_the_table_is_listed_and_printed_under_the_standard_headings() {
    let (status, listing, stderr) = clasp(&["rule"]);
    assert_eq!(status, 0, "{stderr}");
    for &code in Code::ALL {
        let doc = registry::doc(code);
        let listed = listing.lines().find(|l| l.split_whitespace().next() == Some(code.as_str()));
        assert!(listed.is_some_and(|l| l.ends_with(doc.summary)), "`clasp rule` lists {code} with its summary");
        let (status, text, stderr) = clasp(&["rule", code.as_str()]);
        assert_eq!(status, 0, "{code}: {stderr}");
        let kind = match code.kind() {
            Kind::Rule => "rule",
            Kind::Reason => "reason",
            Kind::Lint => "lint",
        };
        assert!(text.starts_with(&format!("{code} ({kind})\n\n{}\n", doc.summary)), "{code}:\n{text}");
        let sections = doc.sections(code.kind());
        assert_eq!(sections.map(|(heading, _)| heading), standard_headings(code.kind()), "{code}");
        let mut rest = text.as_str();
        for (heading, body) in sections {
            assert!(!body.trim().is_empty(), "{code}: `{heading}` is empty");
            let at = rest.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("{code}: no `{heading}` in\n{text}"));
            rest = &rest[at + heading.len() + 2..];
            // Each line of the text follows its heading (an example's indented as code).
            let first = body.lines().find(|l| !l.is_empty()).unwrap();
            let shown = if heading == "Example" { format!("    {first}") } else { first.to_string() };
            assert!(rest.starts_with(&shown), "{code}: `{heading}` is not followed by its text:\n{text}");
        }
    }
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
