//! `--format sarif`: the migration as a SARIF 2.1.0 log, for code-scanning
//! user interfaces (GitHub code scanning, IDE SARIF viewers).
//!
//! Every fix is a result at level `note` with its rule, message and
//! location, and its edits as a SARIF `fix` (byte ranges of the original
//! file, so a viewer can apply them); every refusal is a `note` too (ruleId
//! `refused/<reason>`), every error an `error` and every warning a
//! `warning`. Paths are relative URIs as clasp prints them.

use serde_json::{json, Value};

use crate::report::Migration;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log of a migration.
pub fn log(migration: &Migration) -> Value {
    let mut rules: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut results = Vec::new();
    for change in &migration.changes {
        for fix in &change.fixes {
            rules.insert(fix.rule.to_string());
            let replacements: Vec<Value> = fix
                .edits
                .iter()
                .map(|e| {
                    json!({
                        "deletedRegion": { "byteOffset": e.start, "byteLength": e.end - e.start },
                        "insertedContent": { "text": e.replacement },
                    })
                })
                .collect();
            // One artifact change per file the fix edits (a merge edits several).
            let mut files: Vec<&std::path::Path> = fix.edits.iter().map(|e| e.file.as_path()).collect();
            files.dedup();
            let changes: Vec<Value> = files
                .iter()
                .map(|file| {
                    let here: Vec<&Value> =
                        fix.edits.iter().zip(&replacements).filter(|(e, _)| e.file.as_path() == *file).map(|(_, r)| r).collect();
                    json!({ "artifactLocation": { "uri": uri(file) }, "replacements": here })
                })
                .collect();
            results.push(json!({
                "ruleId": fix.rule,
                "level": "note",
                "message": { "text": fix.message },
                "locations": [location(&fix.file, fix.line)],
                "fixes": [{ "description": { "text": fix.message }, "artifactChanges": changes }],
            }));
        }
    }
    for r in &migration.refusals {
        let rule = format!("refused/{}", r.reason);
        rules.insert(rule.clone());
        let subject = if r.function.is_empty() { format!("`{}`", r.name) } else { format!("`{}` of `{}`", r.name, r.function) };
        results.push(json!({
            "ruleId": rule,
            "level": if r.blocking { "error" } else { "note" },
            "message": { "text": format!("{subject} stays: {}", r.detail) },
            "locations": [location(&r.file, r.line)],
        }));
    }
    for w in &migration.warnings {
        results.push(json!({ "ruleId": "warning", "level": "warning", "message": { "text": w.message }, "locations": [location(&w.path, 1)] }));
    }
    for e in &migration.errors {
        results.push(
            json!({ "ruleId": "error", "level": "error", "message": { "text": e.message }, "locations": [location(&e.path, 1)] }),
        );
    }
    rules.insert("warning".to_string());
    rules.insert("error".to_string());
    let rules: Vec<Value> = rules.into_iter().map(|id| json!({ "id": id })).collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "clasp",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            } },
            "results": results,
        }],
    })
}

fn uri(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn location(path: &std::path::Path, line: u32) -> Value {
    json!({ "physicalLocation": { "artifactLocation": { "uri": uri(path) }, "region": { "startLine": line.max(1) } } })
}
