//! The code actions for a range of an analysed file: each verified change
//! set with a fix on the range's lines (its whole edit, other files
//! included), every change set at once (`source.fixAll`), and
//! `// clasp: keep` above each fixed declaration on those lines. Each
//! action's title says its proof status; an unverified set is never offered.

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Diagnostic, Range};

use super::analysis::{FileAnalysis, SetAction};

/// The kind of the keep action: a quick fix of its own kind, so a client may filter it.
const KEEP: &str = "quickfix.clasp.keep";

/// The actions `params` asks for, from `analysis` (a current one).
pub fn code_actions(analysis: &FileAnalysis, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let wanted = |kind: &CodeActionKind| match &params.context.only {
        None => true,
        Some(only) => only.iter().any(|o| kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str()))),
    };
    let mut actions = Vec::new();
    if wanted(&CodeActionKind::QUICKFIX) {
        for set in analysis.sets.iter().filter(|s| s.verified && s.diagnostics.iter().any(|d| on_lines(d, params.range))) {
            actions.push(action(set, CodeActionKind::QUICKFIX, true));
        }
    }
    let fix_all = CodeActionKind::SOURCE_FIX_ALL;
    if let Some(all) = analysis.all.as_ref().filter(|_| wanted(&fix_all)) {
        actions.push(action(all, fix_all, false));
    }
    if wanted(&CodeActionKind::from(KEEP)) {
        for keep in analysis.keeps.iter().filter(|k| on_lines(&k.diagnostic, params.range)) {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: keep.title.clone(),
                kind: Some(CodeActionKind::from(KEEP)),
                diagnostics: Some(vec![keep.diagnostic.clone()]),
                edit: Some(keep.edit.clone()),
                ..Default::default()
            }));
        }
    }
    actions
}

fn action(set: &SetAction, kind: CodeActionKind, preferred: bool) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title: set.title.clone(),
        kind: Some(kind),
        diagnostics: Some(set.diagnostics.clone()).filter(|d| !d.is_empty()),
        edit: Some(set.edit.clone()),
        is_preferred: Some(preferred),
        ..Default::default()
    })
}

/// Whether the diagnostic's line is among those of `range`.
fn on_lines(diagnostic: &Diagnostic, range: Range) -> bool {
    (range.start.line..=range.end.line).contains(&diagnostic.range.start.line)
}
