//! The migration's report as one open file's diagnostics: each change
//! clasp would make (information, with its rule code and evidence), each
//! refusal (a hint, a warning when it keeps the file from compiling as the
//! target; `suppressed` never), the `residual-generic` lint, and the
//! warnings and errors placed in the file. Every code links
//! (`codeDescription`) to its documentation as `clasp rule CODE` prints it.

use std::path::{Path, PathBuf};

use lsp_types::{CodeDescription, Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range, Uri};

use super::documents::{position, uri_of, word_end};
use crate::codes::Code;
use crate::migrate::report::{Fix, Migration};

/// Where the server writes each code's documentation (`clasp rule CODE`),
/// the target of its diagnostics' links; removed when the server ends.
pub struct RuleDocs {
    dir: tempfile::TempDir,
}

impl RuleDocs {
    pub fn new() -> std::io::Result<RuleDocs> {
        Ok(RuleDocs { dir: tempfile::Builder::new().prefix("clasp-rules-").tempdir()? })
    }

    /// The link to `code`'s documentation, written on first use.
    pub fn href(&self, code: Code) -> Option<Uri> {
        let path: PathBuf = self.dir.path().join(format!("{code}.txt"));
        if !path.exists() {
            std::fs::write(&path, crate::commands::rule::document(code)).ok()?;
        }
        Some(uri_of(&path))
    }
}

/// What the diagnostics are built for: one open file and how to show it.
pub struct Place<'a> {
    /// The file, canonical (as the report's files are compared).
    pub canonical: &'a Path,
    /// Its text, as analysed.
    pub text: &'a str,
    pub refusals: bool,
    pub docs: &'a RuleDocs,
}

impl Place<'_> {
    /// Whether `file` (as the report names it) is this file.
    pub fn is(&self, file: &Path) -> bool {
        crate::support::overlay::canonical(file) == self.canonical
    }

    /// The range of the word at a 1-based `line` and byte `col`.
    pub fn range(&self, line: u32, col: u32) -> Range {
        let start = position(self.text, line, col);
        Range { start, end: word_end(self.text, start) }
    }

    fn diagnostic(&self, range: Range, severity: DiagnosticSeverity, code: Option<Code>, message: String) -> Diagnostic {
        Diagnostic {
            range,
            severity: Some(severity),
            code: code.map(|c| NumberOrString::String(c.to_string())),
            code_description: code.and_then(|c| self.docs.href(c)).map(|href| CodeDescription { href }),
            source: Some("clasp".to_string()),
            message,
            ..Default::default()
        }
    }
}

/// A fix's diagnostic: its message, then its evidence, a line each.
pub fn of_fix(place: &Place, fix: &Fix, set: Option<usize>) -> Diagnostic {
    let mut message = fix.message.clone();
    for evidence in &fix.evidence {
        message.push_str(&format!("\n{} from {} ({})", evidence.space.keyword(), evidence.from, evidence.at));
    }
    let mut diagnostic =
        place.diagnostic(place.range(fix.line, fix.col), DiagnosticSeverity::INFORMATION, Some(fix.rule), message);
    diagnostic.data = set.map(|set| serde_json::json!({ "changeSet": set }));
    diagnostic
}

/// The diagnostics of everything but the fixes (those come with their change sets).
pub fn others(place: &Place, migration: &Migration) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if place.refusals {
        for refusal in migration.refusals.iter().filter(|r| r.reason != Code::Suppressed && place.is(&r.file)) {
            let severity = if refusal.blocking { DiagnosticSeverity::WARNING } else { DiagnosticSeverity::HINT };
            let message = format!("`{}` of `{}` stays: {}", refusal.name, refusal.function, refusal.detail);
            out.push(place.diagnostic(place.range(refusal.line, refusal.col), severity, Some(refusal.reason), message));
        }
    }
    for lint in migration.residual_generic.iter().filter(|r| place.is(&r.path)) {
        let range = place.range(lint.line, lint.col);
        out.push(place.diagnostic(range, DiagnosticSeverity::INFORMATION, Some(Code::ResidualGeneric), lint.message()));
    }
    for warning in migration.warnings.iter().filter(|w| place.is(&w.path)) {
        let range = place.range(warning.line.unwrap_or(1), warning.col.unwrap_or(1));
        out.push(place.diagnostic(range, DiagnosticSeverity::WARNING, None, warning.message.clone()));
    }
    for error in migration.errors.iter().filter(|e| !e.path.as_os_str().is_empty() && place.is(&e.path)) {
        let located = error.located();
        let (line, col) = located_at(&located, &error.path).unwrap_or((1, 1));
        out.push(place.diagnostic(place.range(line, col), DiagnosticSeverity::ERROR, None, located));
    }
    out
}

/// An error about no file in particular (`clasp: error: ...`), shown at the file's start.
pub fn of_stop(place: &Place, message: &str) -> Diagnostic {
    let start = Position { line: 0, character: 0 };
    place.diagnostic(Range { start, end: start }, DiagnosticSeverity::ERROR, None, message.to_string())
}

/// The line and column an error's first line gives for its own file
/// (`file:line:col: error: ...`, as `FileError::located` places it).
fn located_at(located: &str, path: &Path) -> Option<(u32, u32)> {
    let first = located.lines().next()?;
    let rest = first.strip_prefix(&path.display().to_string())?.strip_prefix(':')?;
    let mut numbers = rest.splitn(3, ':');
    Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_placed_at_its_line_and_column() {
        let path = Path::new("/w/k.cl");
        assert_eq!(located_at("/w/k.cl:3:9: error: expected ';'\nnote", path), Some((3, 9)));
        assert_eq!(located_at("/w/other.cl:3:9: error: x", path), None);
        assert_eq!(located_at("clasp: error: x", path), None);
    }

    #[test]
    fn a_rule_link_holds_what_clasp_rule_prints() {
        let docs = RuleDocs::new().unwrap();
        let href = docs.href(Code::GenericParam).unwrap();
        let path = super::super::documents::path_of(&href).unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), crate::commands::rule::document(Code::GenericParam));
    }
}
