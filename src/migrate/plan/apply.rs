//! Applying a plan: the texts of files with the edits of some change sets.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{Plan, SetId};
use crate::rules::Edit;

/// Why edits could not be applied to a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The file's text could not be read when the plan was made.
    #[error("{}: error: cannot read", path.display())]
    Unreadable { path: PathBuf },
    /// Two edits overlap, or one lies outside the text (at byte `start`).
    #[error("{}: error: overlapping or invalid edits at byte {start}", path.display())]
    InvalidEdits { path: PathBuf, start: usize },
}

/// The texts of `files` with the edits of `sets` applied (files no set
/// touches are left out). Fails on overlapping edits or an unreadable file.
pub fn apply(plan: &Plan, sets: &BTreeSet<SetId>, files: &BTreeSet<PathBuf>) -> Result<BTreeMap<PathBuf, Vec<u8>>, ApplyError> {
    let mut by_file: BTreeMap<&PathBuf, BTreeSet<&Edit>> = BTreeMap::new();
    for &id in sets {
        for (file, edits) in plan.sets[id].edits.iter().filter(|(f, _)| files.contains(*f)) {
            by_file.entry(file).or_default().extend(edits.iter());
        }
    }
    let mut out = BTreeMap::new();
    for (file, edits) in by_file {
        let (path, original) = &plan.originals[file];
        let original = crate::support::ids::bytes(original);
        if original.is_empty() {
            return Err(ApplyError::Unreadable { path: path.clone() });
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
pub fn apply_edits<'e>(path: &Path, original: &[u8], edits: impl IntoIterator<Item = &'e Edit>) -> Result<Vec<u8>, ApplyError> {
    let mut migrated = Vec::with_capacity(original.len());
    let mut cursor = 0usize;
    for edit in edits {
        let (start, end) = (edit.start as usize, edit.end as usize);
        if start < cursor || end > original.len() || start > end {
            return Err(ApplyError::InvalidEdits { path: path.to_path_buf(), start });
        }
        migrated.extend_from_slice(&original[cursor..start]);
        migrated.extend_from_slice(edit.replacement.as_bytes());
        cursor = end;
    }
    migrated.extend_from_slice(&original[cursor..]);
    Ok(migrated)
}

#[cfg(test)]
mod tests {
    //! The invariant behind `overlapping-edits`: the planner applies change
    //! sets only while their edits are disjoint, and refuses (never merges)
    //! two that overlap. Ordinary code never makes such sets (identical
    //! edits count once), so the invariant is tested here, not by a fixture.

    use super::*;
    use crate::migrate::plan::ChangeSet;

    const TEXT: &[u8] = b"float f(__global float *p) { return p[0]; }\n";

    fn edit(start: u32, end: u32, replacement: &str) -> Edit {
        Edit { file: PathBuf::from("k.cl"), start, end, replacement: replacement.to_string() }
    }

    /// A plan over `k.cl` with one set per list of edits.
    fn plan(sets: &[&[Edit]]) -> Plan {
        let file = PathBuf::from("/k.cl");
        let mut plan = Plan::default();
        plan.originals.insert(file.clone(), (PathBuf::from("k.cl"), std::sync::Arc::new(TEXT.to_vec().into())));
        for edits in sets {
            let edits = BTreeMap::from([(file.clone(), edits.iter().cloned().collect())]);
            plan.sets.push(ChangeSet { edits, ..ChangeSet::default() });
        }
        plan
    }

    fn applied(plan: &Plan, sets: &[usize]) -> Result<Vec<u8>, ApplyError> {
        let ids = sets.iter().map(|&i| SetId(i)).collect();
        apply(plan, &ids, &BTreeSet::from([PathBuf::from("/k.cl")])).map(|mut texts| texts.remove(Path::new("/k.cl")).unwrap())
    }

    #[test]
    fn overlapping_change_sets_are_refused_never_merged() {
        // `__global ` is bytes 8..17; the second set's edit starts inside it.
        let plan = plan(&[&[edit(8, 17, "")], &[edit(12, 23, "float")]]);
        assert_eq!(applied(&plan, &[0]).unwrap(), b"float f(float *p) { return p[0]; }\n");
        assert!(applied(&plan, &[1]).is_ok(), "each set alone applies");
        let refused = applied(&plan, &[0, 1]).unwrap_err();
        assert_eq!(refused, ApplyError::InvalidEdits { path: PathBuf::from("k.cl"), start: 12 });
        assert_eq!(refused.to_string(), "k.cl: error: overlapping or invalid edits at byte 12");
    }

    #[test]
    fn identical_edits_count_once_and_adjacent_ones_both_apply() {
        let plan = plan(&[&[edit(8, 17, "")], &[edit(8, 17, "")], &[edit(17, 22, "double")]]);
        assert_eq!(applied(&plan, &[0, 1]).unwrap(), b"float f(float *p) { return p[0]; }\n");
        assert_eq!(applied(&plan, &[0, 1, 2]).unwrap(), b"float f(double *p) { return p[0]; }\n");
    }

    #[test]
    fn an_edit_past_the_end_or_an_unreadable_file_is_refused() {
        let past = plan(&[&[edit(40, 60, "")]]);
        assert_eq!(applied(&past, &[0]).unwrap_err().to_string(), "k.cl: error: overlapping or invalid edits at byte 40");
        let mut unreadable = plan(&[&[edit(8, 17, "")]]);
        unreadable.originals.get_mut(Path::new("/k.cl")).unwrap().1 = Default::default();
        assert_eq!(applied(&unreadable, &[0]).unwrap_err().to_string(), "k.cl: error: cannot read");
    }
}
