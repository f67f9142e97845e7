//! One open file's result, from the migration of its analysis: its
//! diagnostics and the edits its code actions carry (each change set with
//! a fix in the file, all of them, and a `// clasp: keep` above each fixed
//! declaration). Built on the worker thread from the report's own data
//! (`Migration::changes`, `set_changes`, `functions`, `proofs`): the edit of
//! a change set is the text `--interactive` writes when it alone is accepted.

use std::collections::BTreeMap;

use lsp_types::{Diagnostic, Position, Range, TextEdit, WorkspaceEdit};

use super::diagnostics::{self, Place};
use super::documents::{uri_of, Versions};
use super::edits::workspace_edit;
use crate::migrate::report::{Fix, Migration, Outcome};

/// What the code actions of one change set need.
#[derive(Debug, Clone)]
pub struct SetAction {
    pub title: String,
    /// Recompiled and its kernels proven equivalent: only then is it offered.
    pub verified: bool,
    pub edit: WorkspaceEdit,
    /// Its fixes' diagnostics in this file (the lines they are on say where it is offered).
    pub diagnostics: Vec<Diagnostic>,
}

/// Inserting `// clasp: keep` above a fixed declaration.
#[derive(Debug, Clone)]
pub struct KeepAction {
    pub title: String,
    pub edit: WorkspaceEdit,
    pub diagnostic: Diagnostic,
}

/// One file's result.
#[derive(Debug, Clone, Default)]
pub struct FileAnalysis {
    pub diagnostics: Vec<Diagnostic>,
    pub sets: Vec<SetAction>,
    /// Every change set of the analysis, when each is verified (else none).
    pub all: Option<SetAction>,
    pub keeps: Vec<KeepAction>,
}

/// How the edits are addressed: the open documents' versions the analysis
/// read, and whether the client takes versioned `documentChanges`.
pub struct Addressing<'a> {
    pub versions: &'a Versions,
    pub versioned: bool,
}

/// The result for the file at `place` of a migration of it.
pub fn file_analysis(place: &Place, migration: &Migration, addressing: &Addressing) -> FileAnalysis {
    let mut analysis = FileAnalysis { diagnostics: diagnostics::others(place, migration), ..FileAnalysis::default() };
    let proofs = proof_methods(migration);
    for (set, fixes) in change_sets(migration) {
        let here: Vec<&Fix> = fixes.iter().copied().filter(|f| place.is(&f.file)).collect();
        if here.is_empty() {
            continue;
        }
        let diagnostics: Vec<Diagnostic> = here.iter().map(|f| diagnostics::of_fix(place, f, set)).collect();
        analysis.diagnostics.extend(diagnostics.iter().cloned());
        for (fix, diagnostic) in here.iter().zip(&diagnostics) {
            analysis.keeps.push(keep_action(place, fix, diagnostic.clone(), addressing));
        }
        let Some(set) = set else { continue };
        let files: Vec<_> = migration.set_changes.get(&set).map(|c| c.iter().collect()).unwrap_or_default();
        let verified = verified(migration, &fixes);
        let rules: std::collections::BTreeSet<String> = fixes.iter().map(|f| f.rule.to_string()).collect();
        let title = format!(
            "clasp: apply this change set ({}; {})",
            rules.into_iter().collect::<Vec<_>>().join(", "),
            proof_words(verified, &proofs)
        );
        analysis.sets.push(SetAction {
            title,
            verified,
            edit: workspace_edit(&files, addressing.versions, addressing.versioned),
            diagnostics,
        });
    }
    analysis.keeps.dedup_by_key(|k| k.diagnostic.range.start.line);
    analysis.all = all_action(migration, &analysis.sets, &proofs, addressing);
    analysis
}

/// The kept fixes by change set (`None`: a fix that belongs to no set), in report order.
fn change_sets(migration: &Migration) -> Vec<(Option<usize>, Vec<&Fix>)> {
    let mut by_set: BTreeMap<Option<usize>, Vec<&Fix>> = BTreeMap::new();
    let mut order = Vec::new();
    for fix in migration.changes.iter().flat_map(|c| c.fixes.iter()) {
        let set = fix.origin.as_ref().map(|o| o.set);
        if !by_set.contains_key(&set) {
            order.push(set);
        }
        by_set.entry(set).or_default().push(fix);
    }
    order.into_iter().map(|set| (set, by_set.remove(&set).unwrap_or_default())).collect()
}

/// Whether every function a set's fixes change was recompiled and proven
/// equivalent (a fix outside any function, a program-scope variable, stands
/// on its unit's proof).
fn verified(migration: &Migration, fixes: &[&Fix]) -> bool {
    fixes.iter().all(|fix| {
        let account = migration.functions.iter().find(|a| {
            a.name == fix.function && crate::support::overlay::canonical(&a.file) == crate::support::overlay::canonical(&fix.file)
        });
        match account.map(|a| &a.outcome) {
            Some(Outcome::Migrated { verified } | Outcome::PartlyMigrated { verified, .. }) => *verified,
            Some(_) => false,
            None => !migration.proofs.is_empty(),
        }
    })
}

/// How the analysis' units were proven equivalent, each way once (`UnitProof::method`).
fn proof_methods(migration: &Migration) -> Vec<String> {
    use crate::migrate::report::ProofMethod;
    let mut methods: Vec<String> = Vec::new();
    for proof in &migration.proofs {
        let words = match proof.method {
            ProofMethod::Functions => "functions and kernels proven equivalent",
            ProofMethod::Kernels => "kernels proven equivalent",
            ProofMethod::WholeKernels => "whole kernels proven equivalent",
        };
        if !methods.iter().any(|m| m == words) {
            methods.push(words.to_string());
        }
    }
    methods
}

/// The proof status as an action's title says it.
fn proof_words(verified: bool, methods: &[String]) -> String {
    match verified {
        true => format!("verified: recompiled, {}", methods.join("; ")),
        false => "unverified".to_string(),
    }
}

/// Applying every change set, when there is one and each is verified.
fn all_action(migration: &Migration, sets: &[SetAction], proofs: &[String], addressing: &Addressing) -> Option<SetAction> {
    let every_verified = sets.iter().all(|s| s.verified) && sets.iter().any(|s| s.verified);
    let fixes: Vec<&Fix> = migration.changes.iter().flat_map(|c| c.fixes.iter()).collect();
    if !every_verified || !verified(migration, &fixes) {
        return None;
    }
    let files: Vec<_> = migration.changes.iter().collect();
    let count = change_sets(migration).iter().filter(|(set, _)| set.is_some()).count();
    let noun = if count == 1 { "change set" } else { "change sets" };
    Some(SetAction {
        title: format!("clasp: apply all {count} {noun} ({})", proof_words(true, proofs)),
        verified: true,
        edit: workspace_edit(&files, addressing.versions, addressing.versioned),
        diagnostics: Vec::new(),
    })
}

/// `// clasp: keep` on a line of its own above the fix's line, indented as it.
fn keep_action(place: &Place, fix: &Fix, diagnostic: Diagnostic, addressing: &Addressing) -> KeepAction {
    let line_text = place.text.split('\n').nth(fix.line.saturating_sub(1) as usize).unwrap_or("");
    let indent: String = line_text.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let at = Position { line: fix.line.saturating_sub(1), character: 0 };
    let insert = TextEdit { range: Range { start: at, end: at }, new_text: format!("{indent}// clasp: keep\n") };
    let uri = uri_of(place.canonical);
    let edit = match addressing.versioned {
        true => WorkspaceEdit {
            document_changes: Some(lsp_types::DocumentChanges::Edits(vec![lsp_types::TextDocumentEdit {
                text_document: lsp_types::OptionalVersionedTextDocumentIdentifier {
                    version: addressing.versions.get(&uri).copied(),
                    uri,
                },
                edits: vec![lsp_types::OneOf::Left(insert)],
            }])),
            ..Default::default()
        },
        false => WorkspaceEdit { changes: Some([(uri, vec![insert])].into_iter().collect()), ..Default::default() },
    };
    let title = format!("clasp: keep line {} as it is (insert `// clasp: keep` above it)", fix.line);
    KeepAction { title, edit, diagnostic }
}
