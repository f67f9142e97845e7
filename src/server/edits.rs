//! Workspace edits from the migration's own results: a file's text as read
//! and as migrated (`FileChange`, what `--write` writes), turned into line
//! replacements, never re-derived from the rules. Each file's edit names the
//! version of the open document it was computed against, so a client
//! refuses it once the document has changed since (files not open name no
//! version).

use lsp_types::{
    DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier, Position, Range, TextDocumentEdit, TextEdit, Uri,
    WorkspaceEdit,
};

use super::documents::{uri_of, utf16_len, Versions};
use crate::migrate::report::FileChange;

/// The edit that turns every file of `changes` from its original text into
/// its migrated one; `versions` are the open documents' (by URI) the texts
/// were read at. With `versioned` (the client takes `documentChanges`) each
/// file's edit names its version, else the edits go by URI alone.
pub fn workspace_edit(changes: &[&FileChange], versions: &Versions, versioned: bool) -> WorkspaceEdit {
    let files: Vec<(Uri, Vec<TextEdit>)> = changes
        .iter()
        .map(|change| (uri_of(&change.canonical), line_edits(&change.original, &change.migrated)))
        .filter(|(_, edits)| !edits.is_empty())
        .collect();
    if !versioned {
        return WorkspaceEdit {
            changes: Some(files.into_iter().collect::<std::collections::HashMap<_, _>>()),
            ..Default::default()
        };
    }
    let edits = files
        .into_iter()
        .map(|(uri, edits)| TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { version: versions.get(&uri).copied(), uri },
            edits: edits.into_iter().map(OneOf::Left).collect(),
        })
        .collect();
    WorkspaceEdit { document_changes: Some(DocumentChanges::Edits(edits)), ..Default::default() }
}

/// The replacements of whole lines that turn `original` into `migrated`
/// (a run of changed lines is one edit), in order.
pub fn line_edits(original: &[u8], migrated: &[u8]) -> Vec<TextEdit> {
    let (old, new) = (String::from_utf8_lossy(original), String::from_utf8_lossy(migrated));
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let old_lines: Vec<&str> = diff.old_slices().to_vec();
    let new_lines: Vec<&str> = diff.new_slices().to_vec();
    let mut edits = Vec::new();
    for op in diff.ops() {
        if let similar::DiffOp::Equal { .. } = op {
            continue;
        }
        let (old_range, new_range) = (op.old_range(), op.new_range());
        let range = Range { start: line_start(&old_lines, old_range.start), end: line_start(&old_lines, old_range.end) };
        edits.push(TextEdit { range, new_text: new_lines[new_range].concat() });
    }
    merge_adjacent(edits)
}

/// Where line `index` of `lines` (each with its newline, the last maybe
/// without) starts: past the last line, the end of the text.
fn line_start(lines: &[&str], index: usize) -> Position {
    match lines.last() {
        Some(last) if index >= lines.len() && !last.ends_with('\n') => {
            Position { line: lines.len() as u32 - 1, character: utf16_len(last) }
        }
        _ => Position { line: index as u32, character: 0 },
    }
}

/// Edits of which one ends where the next starts, joined (a replace is a delete and an insert).
fn merge_adjacent(edits: Vec<TextEdit>) -> Vec<TextEdit> {
    let mut merged: Vec<TextEdit> = Vec::new();
    for edit in edits {
        match merged.last_mut() {
            Some(last) if last.range.end == edit.range.start => {
                last.range.end = edit.range.end;
                last.new_text.push_str(&edit.new_text);
            }
            _ => merged.push(edit),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with `edits` (sorted, disjoint, from `line_edits`) applied: what a client does with them.
    fn applied(text: &str, edits: &[TextEdit]) -> String {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let offset = |p: Position| -> usize {
            let start: usize = lines.iter().take(p.line as usize).map(|l| l.len()).sum();
            let line = lines.get(p.line as usize).copied().unwrap_or("");
            start
                + line
                    .char_indices()
                    .scan(0u32, |units, (i, c)| {
                        let at = *units;
                        *units += c.len_utf16() as u32;
                        Some((at, i))
                    })
                    .find(|(units, _)| *units >= p.character)
                    .map_or(line.len(), |(_, i)| i)
        };
        let mut out = String::new();
        let mut done = 0;
        for edit in edits {
            let (start, end) = (offset(edit.range.start), offset(edit.range.end));
            out.push_str(&text[done..start]);
            out.push_str(&edit.new_text);
            done = end;
        }
        out.push_str(&text[done..]);
        out
    }

    #[test]
    fn line_edits_rebuild_the_migrated_text() {
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb\nc", "a\nb\nC"),
            ("a\nb", "a\nb\nc\n"),
            ("x😀\n__global float *p;\nend", "x😀\nfloat *p;\nend\n"),
            ("", "new\n"),
            ("same\n", "same\n"),
        ];
        for (old, new) in cases {
            let edits = line_edits(old.as_bytes(), new.as_bytes());
            assert_eq!(applied(old, &edits), new, "{old:?} -> {new:?}: {edits:?}");
            assert_eq!(edits.is_empty(), old == new);
        }
    }

    #[test]
    fn a_versioned_edit_names_the_open_documents_version() {
        let change = FileChange {
            path: "/w/k.cl".into(),
            canonical: "/w/k.cl".into(),
            original: b"__global float *p;\n".to_vec(),
            migrated: b"float *p;\n".to_vec(),
            fixes: Vec::new(),
            configurations: Vec::new(),
        };
        let versions: Versions = [(uri_of(std::path::Path::new("/w/k.cl")), 7)].into_iter().collect();
        let edit = workspace_edit(&[&change], &versions, true);
        let Some(DocumentChanges::Edits(edits)) = edit.document_changes else { panic!("document changes") };
        assert_eq!(edits[0].text_document.version, Some(7));
        let unversioned = workspace_edit(&[&change], &Versions::new(), false);
        assert_eq!(unversioned.changes.unwrap().len(), 1);
    }
}
