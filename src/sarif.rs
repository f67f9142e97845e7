//! `--format sarif`: the migration as a SARIF 2.1.0 log, for code-scanning
//! user interfaces (GitHub code scanning, IDE SARIF viewers).
//!
//! Every fix is a result at level `note` with its rule, message and
//! location, and its edits as a SARIF `fix` (byte ranges of the original
//! file, so a viewer can apply them); every refusal is a `note` too (ruleId
//! `refused/<reason>`), every error an `error` and every warning a
//! `warning`. Paths are relative URIs as clasp prints them.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use crate::report::{Migration, Refusal};
use crate::rules::Fix;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log of a migration: fixes, then refusals, warnings and errors.
pub fn log(migration: &Migration) -> Value {
    let mut rules: BTreeSet<String> = BTreeSet::new();
    let mut results = Vec::new();
    for fix in migration.changes.iter().flat_map(|change| &change.fixes) {
        rules.insert(fix.rule.to_string());
        results.push(fix_result(fix));
    }
    for r in &migration.refusals {
        let (rule, result) = refusal_result(r);
        rules.insert(rule);
        results.push(result);
    }
    for w in &migration.warnings {
        let at = location(&w.path, w.line.unwrap_or(1));
        results.push(json!({ "ruleId": "warning", "level": "warning", "message": { "text": w.message }, "locations": [at] }));
    }
    for e in &migration.errors {
        results.push(
            json!({ "ruleId": "error", "level": "error", "message": { "text": e.message }, "locations": [location(&e.path, 1)] }),
        );
    }
    rules.insert("warning".to_string());
    rules.insert("error".to_string());
    envelope(rules, results)
}

/// A fix as a `note` result carrying its edits.
fn fix_result(fix: &Fix) -> Value {
    json!({
        "ruleId": fix.rule,
        "level": "note",
        "message": { "text": fix.message },
        "locations": [location(&fix.file, fix.line)],
        "fixes": [{ "description": { "text": fix.message }, "artifactChanges": artifact_changes(fix) }],
    })
}

/// One artifact change per file the fix edits (a merge edits several), each with its replacements in order.
fn artifact_changes(fix: &Fix) -> Vec<Value> {
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
    let mut files: Vec<&Path> = fix.edits.iter().map(|e| e.file.as_path()).collect();
    files.dedup();
    files
        .iter()
        .map(|file| {
            let here: Vec<&Value> =
                fix.edits.iter().zip(&replacements).filter(|(e, _)| e.file.as_path() == *file).map(|(_, r)| r).collect();
            json!({ "artifactLocation": { "uri": uri(file) }, "replacements": here })
        })
        .collect()
}

/// A refusal's rule (`refused/<reason>`) and its result: an `error` when it blocks, else a `note`.
fn refusal_result(r: &Refusal) -> (String, Value) {
    let rule = format!("refused/{}", r.reason);
    let subject = if r.function.is_empty() { format!("`{}`", r.name) } else { format!("`{}` of `{}`", r.name, r.function) };
    let result = json!({
        "ruleId": rule,
        "level": if r.blocking { "error" } else { "note" },
        "message": { "text": format!("{subject} stays: {}", r.detail) },
        "locations": [location(&r.file, r.line)],
    });
    (rule, result)
}

/// The log around the results: schema, version, and the tool with every rule a result names.
fn envelope(rules: BTreeSet<String>, results: Vec<Value>) -> Value {
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

fn uri(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn location(path: &Path, line: u32) -> Value {
    json!({ "physicalLocation": { "artifactLocation": { "uri": uri(path) }, "region": { "startLine": line.max(1) } } })
}
