//! `--format sarif`: the migration as a SARIF 2.1.0 log, for code-scanning
//! user interfaces (GitHub code scanning, IDE SARIF viewers).
//!
//! Every fix is a result at level `note` with its rule, message and
//! location (line and column), and its edits as a SARIF `fix` (byte ranges
//! of the original file, so a viewer can apply them); every refusal is a
//! `note` too (ruleId `refused/<reason>`), as is every function whose
//! change was withdrawn (verification, a failed unit), every kernel of the lint
//! `residual-generic` (at its definition), every error an `error` at each
//! place it names and every warning a `warning`. Each rule carries its
//! summary, description and help from the code registry. Paths are
//! relative URIs as clasp prints them.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use crate::codes::Code;
use crate::migrate::report::{FileError, Migration, Outcome, Refusal, Warning};
use crate::rules::Fix;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The id of the rule errors are reported under, and of warnings.
const ERROR_RULE: &str = "error";
const WARNING_RULE: &str = "warning";

/// The SARIF log of a migration: fixes, then refusals, warnings and errors.
pub fn log(migration: &Migration) -> Value {
    let mut rules: BTreeSet<RuleId> = BTreeSet::new();
    let mut results = Vec::new();
    for fix in migration.changes.iter().flat_map(|change| &change.fixes) {
        rules.insert(RuleId::Fix(fix.rule));
        results.push(fix_result(fix));
    }
    for r in &migration.refusals {
        rules.insert(RuleId::Refused(r.reason));
        results.push(refusal_result(r));
    }
    for f in &migration.functions {
        let Outcome::Refused { reason, detail } = &f.outcome else { continue };
        if reason.withdraws() {
            rules.insert(RuleId::Refused(*reason));
            results.push(json!({
                "ruleId": RuleId::Refused(*reason).id(),
                "level": "note",
                "message": { "text": format!("`{}` stays: {detail}", f.name) },
                "locations": [location(&f.file, Some((f.line, f.col)))],
            }));
        }
    }
    for r in &migration.residual_generic {
        rules.insert(RuleId::Lint(Code::ResidualGeneric));
        results.push(json!({
            "ruleId": Code::ResidualGeneric,
            "level": "note",
            "message": { "text": r.message() },
            "locations": [location(&r.path, Some((r.line, r.col)))],
        }));
    }
    results.extend(migration.warnings.iter().map(warning_result));
    results.extend(migration.errors.iter().flat_map(error_results));
    rules.insert(RuleId::Warning);
    rules.insert(RuleId::Error);
    envelope(rules, results)
}

/// A rule a result names: a fix rule, a reason something was refused, a
/// lint, or the catch-alls for warnings and errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum RuleId {
    Fix(Code),
    Refused(Code),
    Lint(Code),
    Warning,
    Error,
}

impl RuleId {
    fn id(self) -> String {
        match self {
            RuleId::Fix(code) | RuleId::Lint(code) => code.to_string(),
            RuleId::Refused(code) => format!("refused/{code}"),
            RuleId::Warning => WARNING_RULE.to_string(),
            RuleId::Error => ERROR_RULE.to_string(),
        }
    }

    /// The rule's `reportingDescriptor`, its texts from the code registry.
    fn descriptor(self) -> Value {
        let (short, full, help) = match self {
            RuleId::Fix(code) | RuleId::Refused(code) | RuleId::Lint(code) => {
                let doc = crate::rules::registry::doc(code);
                let help = format!("{}\n\n{}\n\n`clasp rule {code}` shows the whole documentation.", doc.why, doc.safety);
                (doc.summary.to_string(), doc.what.to_string(), help)
            }
            RuleId::Warning => (
                "Something to know about the migration that is not an error.".to_string(),
                "A change kept unverified or withdrawn, a host build call clasp could not edit, or a kernel it left alone."
                    .to_string(),
                "Read the message: it says what clasp did and what is left to do.".to_string(),
            ),
            RuleId::Error => (
                "A file clasp could not read, analyse, migrate or write.".to_string(),
                "The file is left unchanged; the other files are still processed.".to_string(),
                "Fix what the message names (often clang's own diagnostic) and run clasp again.".to_string(),
            ),
        };
        json!({
            "id": self.id(),
            "shortDescription": { "text": short },
            "fullDescription": { "text": full },
            "help": { "text": help },
        })
    }
}

/// A fix as a `note` result carrying its edits.
/// (A fix whose edit another fix lists, one macro argument for several
/// parameters, carries none: SARIF wants at least one change per fix.)
fn fix_result(fix: &Fix) -> Value {
    let mut result = json!({
        "ruleId": fix.rule,
        "level": "note",
        "message": { "text": fix.message },
        "locations": [location(&fix.file, Some((fix.line, fix.col)))],
    });
    if !fix.edits.is_empty() {
        result["fixes"] = json!([{ "description": { "text": fix.message }, "artifactChanges": artifact_changes(fix) }]);
    }
    result
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

/// A refusal's result: an `error` when it blocks, else a `note`.
fn refusal_result(r: &Refusal) -> Value {
    let subject = if r.function.is_empty() { format!("`{}`", r.name) } else { format!("`{}` of `{}`", r.name, r.function) };
    json!({
        "ruleId": RuleId::Refused(r.reason).id(),
        "level": if r.blocking { "error" } else { "note" },
        "message": { "text": format!("{subject} stays: {}", r.detail) },
        "locations": [location(&r.file, Some((r.line, r.col)))],
    })
}

/// A warning at its place, or about its whole file.
fn warning_result(w: &Warning) -> Value {
    let at = w.line.map(|line| (line, w.col.unwrap_or(1)));
    json!({ "ruleId": WARNING_RULE, "level": "warning", "message": { "text": w.message }, "locations": [location(&w.path, at)] })
}

/// A file, line and column an error names.
type Place = (String, u32, u32);

/// An error as results: one per place its lines name (`file:line:col: error: ...`),
/// the lines after each kept with it; an error about no place has no location.
fn error_results(error: &FileError) -> Vec<Value> {
    let message = crate::output::render::error_message(error);
    let mut placed: Vec<(Option<Place>, String)> = Vec::new();
    for line in message.lines() {
        match (split_location(line), placed.last_mut()) {
            (Some((file, l, c, text)), _) => placed.push((Some((file.to_string(), l, c)), text.to_string())),
            (None, Some((_, text))) => {
                text.push('\n');
                text.push_str(line);
            }
            (None, None) => placed.push((None, line.trim_start_matches("clasp: error: ").to_string())),
        }
    }
    placed
        .into_iter()
        .map(|(at, text)| {
            let locations: Vec<Value> = at.map(|(file, l, c)| location(Path::new(&file), Some((l, c)))).into_iter().collect();
            json!({ "ruleId": ERROR_RULE, "level": "error", "message": { "text": text }, "locations": locations })
        })
        .collect()
}

/// `path:12:5: error: text` -> (`path`, 12, 5, `text`).
fn split_location(line: &str) -> Option<(&str, u32, u32, &str)> {
    let (at, text) = line.split_once(": error: ")?;
    let mut parts = at.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line_no = parts.next()?.parse().ok()?;
    let file = parts.next().filter(|f| !f.is_empty())?;
    Some((file, line_no, col, text))
}

/// The log around the results: schema, version, and the tool with every rule a result names.
fn envelope(rules: BTreeSet<RuleId>, results: Vec<Value>) -> Value {
    let rules: Vec<Value> = rules.into_iter().map(RuleId::descriptor).collect();
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
    crate::settings::paths::shown_path(path).replace('\\', "/")
}

/// A physical location: the file, and the line and column when the result is about one place.
fn location(path: &Path, at: Option<(u32, u32)>) -> Value {
    let artifact = json!({ "uri": uri(path) });
    match at {
        Some((line, col)) => json!({ "physicalLocation": {
            "artifactLocation": artifact,
            "region": { "startLine": line.max(1), "startColumn": col.max(1) },
        } }),
        None => json!({ "physicalLocation": { "artifactLocation": artifact } }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_placed_at_each_location_it_names() {
        let error = FileError {
            path: "k.cl".into(),
            message: "k.cl:3:7: error: expected ';'\nk.cl:9:2: error: unknown type\n  note: here".into(),
        };
        let results = error_results(&error);
        let places: Vec<(u64, u64)> = results
            .iter()
            .map(|r| {
                let region = &r["locations"][0]["physicalLocation"]["region"];
                (region["startLine"].as_u64().unwrap(), region["startColumn"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(places, [(3, 7), (9, 2)]);
        assert_eq!(results[1]["message"]["text"], "unknown type\n  note: here");
        let whole_file = error_results(&FileError { path: "k.cl".into(), message: "k.cl: error: cannot read".into() });
        assert_eq!(whole_file[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 1);
        let clasp = error_results(&FileError { path: "".into(), message: "clasp: error: no workers".into() });
        assert_eq!(
            (clasp[0]["message"]["text"].as_str(), clasp[0]["locations"].as_array().map(Vec::len)),
            (Some("no workers"), Some(0))
        );
    }
}
