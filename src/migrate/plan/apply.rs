//! Applying a plan: the texts of files with the edits of some change sets.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{Plan, SetId};
use crate::rules::Edit;

/// The texts of `files` with the edits of `sets` applied (files no set
/// touches are left out). Fails on overlapping edits or an unreadable file.
pub fn apply(plan: &Plan, sets: &BTreeSet<SetId>, files: &BTreeSet<PathBuf>) -> Result<BTreeMap<PathBuf, Vec<u8>>, String> {
    let mut by_file: BTreeMap<&PathBuf, BTreeSet<&Edit>> = BTreeMap::new();
    for &id in sets {
        for (file, edits) in plan.sets[id].edits.iter().filter(|(f, _)| files.contains(*f)) {
            by_file.entry(file).or_default().extend(edits.iter());
        }
    }
    let mut out = BTreeMap::new();
    for (file, edits) in by_file {
        let (path, original) = &plan.originals[file];
        if original.is_empty() {
            return Err(format!("{}: error: cannot read", path.display()));
        }
        // By position: the edits of one file may spell its path differently (merges use the canonical one).
        let mut edits: Vec<&Edit> = edits.into_iter().collect();
        edits.sort_by_key(|e| (e.start, e.end, &e.replacement));
        edits.dedup_by_key(|e| (e.start, e.end, &e.replacement));
        out.insert(file.clone(), apply_edits(path, original, edits)?);
    }
    Ok(out)
}

/// Applies sorted, non-overlapping edits to `original`.
pub(in crate::migrate) fn apply_edits<'e>(
    path: &Path,
    original: &[u8],
    edits: impl IntoIterator<Item = &'e Edit>,
) -> Result<Vec<u8>, String> {
    let mut migrated = Vec::with_capacity(original.len());
    let mut cursor = 0usize;
    for edit in edits {
        let (start, end) = (edit.start as usize, edit.end as usize);
        if start < cursor || end > original.len() || start > end {
            return Err(format!("{}: error: overlapping or invalid edits at byte {start}", path.display()));
        }
        migrated.extend_from_slice(&original[cursor..start]);
        migrated.extend_from_slice(edit.replacement.as_bytes());
        cursor = end;
    }
    migrated.extend_from_slice(&original[cursor..]);
    Ok(migrated)
}
