//! Writing a batch whole or not at all.
//!
//! Every new file is first staged (a synced temporary file beside it, the
//! file checked unchanged since it was read); then each file is checked
//! again and only then are they all renamed, which takes milliseconds.
//! Interrupting signals are deferred from the first temporary file on
//! (`isolation::signals`): one received while staging removes every
//! temporary file and ends the run with nothing written; one received once
//! the renames have begun waits for them to finish. Nothing is written
//! unless the supervisor that started this worker is still its parent.
//!
//! A file that cannot be written (read-only, changed since it was read, ...)
//! keeps its error, and so do the files it shares a change set with
//! (`group`): their edits stand or fall together, so none of them is written
//! and the rest of the batch is.
//!
//! `CLASP_TEST_WRITE_PAUSE_MS` (for tests) pauses that long after each file
//! staged and each renamed, so that a test can interrupt either phase.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{stage, Staged};
use crate::isolation::signals::{self, Deferral};

/// One file to write.
pub struct Planned<'a> {
    /// Where the new bytes go (the file itself, or its copy under `--out-dir`).
    pub destination: PathBuf,
    pub bytes: &'a [u8],
    /// The bytes the file must still hold (in place), or none (a copy).
    pub expected: Option<&'a [u8]>,
    /// Files of one group are written together or not at all.
    pub group: usize,
    /// Why it may not be written at all (its `--out-dir` place is not its
    /// own): its error, and it fails its group as a failed write does.
    pub refused: Option<String>,
}

/// Writes `files`; returns, for each file not written, its index and the error.
/// Ends the process instead when interrupted (see the module doc).
pub fn write_all(files: &[Planned]) -> BTreeMap<usize, String> {
    let deferral = begin();
    let mut failed: BTreeMap<usize, String> = BTreeMap::new();
    let mut staged: BTreeMap<usize, Staged> = BTreeMap::new();
    for (index, file) in files.iter().enumerate() {
        if let Some(why) = &file.refused {
            failed.insert(index, why.clone());
            continue;
        }
        match stage(&file.destination, file.bytes, file.expected) {
            Ok(s) => {
                staged.insert(index, s);
            }
            Err(e) => {
                failed.insert(index, e.to_string());
            }
        }
        staged = staged_or_ended(&deferral, staged);
        test_pause();
    }
    fail_groups(files, &mut failed, &mut staged);
    // Checked again just before the renames: staging a big batch takes a while.
    for (index, s) in &staged {
        if let Err(e) = s.check() {
            failed.insert(*index, e.to_string());
        }
    }
    fail_groups(files, &mut failed, &mut staged);
    let staged = staged_or_ended(&deferral, staged);
    if !staged.is_empty() {
        crate::isolation::renaming();
    }
    for (index, s) in staged {
        if let Err(e) = s.rename() {
            failed.insert(index, e.to_string());
        }
        test_pause();
    }
    if let Some(signal) = deferral.pending() {
        signals::end_interrupted(signal, true);
    }
    failed
}

/// The pause `CLASP_TEST_WRITE_PAUSE_MS` asks for, if any.
fn test_pause() {
    static PAUSE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    let pause = PAUSE.get_or_init(|| std::env::var("CLASP_TEST_WRITE_PAUSE_MS").ok()?.parse().ok());
    if let Some(ms) = pause {
        std::thread::sleep(std::time::Duration::from_millis(*ms));
    }
}

/// Defers interrupting signals, once the supervisor is known to be there.
fn begin() -> Deferral {
    if !crate::isolation::supervisor_alive() {
        signals::end_interrupted(libc::SIGTERM, false);
    }
    match signals::defer() {
        Some(deferral) => deferral,
        // A signal's handler is ending the process right now.
        None => signals::end_interrupted(signals::received().unwrap_or(libc::SIGTERM), false),
    }
}

/// `staged`, unless a signal came or the supervisor is gone: then every
/// temporary file is removed and the process ends, nothing written.
fn staged_or_ended<'a>(deferral: &Deferral, staged: BTreeMap<usize, Staged<'a>>) -> BTreeMap<usize, Staged<'a>> {
    let signal = deferral.pending().or_else(|| (!crate::isolation::supervisor_alive()).then_some(libc::SIGTERM));
    if let Some(signal) = signal {
        drop(staged);
        signals::end_interrupted(signal, false);
    }
    staged
}

/// Every file of a group with a failed file fails too, its temporary removed.
fn fail_groups(files: &[Planned], failed: &mut BTreeMap<usize, String>, staged: &mut BTreeMap<usize, Staged>) {
    let mut cause: BTreeMap<usize, &Path> = BTreeMap::new();
    for index in failed.keys() {
        cause.entry(files[*index].group).or_insert(&files[*index].destination);
    }
    for (index, file) in files.iter().enumerate() {
        let Some(because) = cause.get(&file.group) else { continue };
        if failed.contains_key(&index) {
            continue;
        }
        staged.remove(&index);
        let message = format!(
            "{}: error: not written: its changes go with those of {}, which could not be written",
            file.destination.display(),
            because.display()
        );
        failed.insert(index, message);
    }
}

/// Groups of files linked by the change sets they share (`sets[i]`: file `i`'s
/// sets): each file's group number, the smallest index in its group.
pub fn groups(sets: &[Vec<usize>]) -> Vec<usize> {
    let mut group: Vec<usize> = (0..sets.len()).collect();
    let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for (file, file_sets) in sets.iter().enumerate() {
        for set in file_sets {
            let other = *owner.entry(*set).or_insert(file);
            let (a, b) = (root(&mut group, file), root(&mut group, other));
            group[a.max(b)] = a.min(b);
        }
    }
    (0..sets.len()).map(|i| root(&mut group, i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_sharing_a_change_set_are_one_group_even_through_a_third() {
        // 0 and 2 share set 7; 2 and 3 share set 9; 1 and 4 share nothing.
        let sets = vec![vec![7], vec![1], vec![7, 9], vec![9], vec![]];
        assert_eq!(groups(&sets), vec![0, 1, 0, 0, 4]);
    }

    #[test]
    fn a_failed_file_fails_its_group_and_removes_the_groups_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let planned = |name: &str, group: usize| Planned {
            destination: dir.path().join(name),
            bytes: b"new\n",
            expected: None,
            group,
            refused: None,
        };
        let files = vec![planned("a.cl", 0), planned("h.h", 0), planned("c.cl", 2)];
        let mut staged: BTreeMap<usize, Staged> =
            files.iter().enumerate().skip(1).map(|(i, f)| (i, stage(&f.destination, f.bytes, None).unwrap())).collect();
        let mut failed: BTreeMap<usize, String> = [(0, "a.cl: error: is read-only; not written".to_string())].into();
        fail_groups(&files, &mut failed, &mut staged);
        assert_eq!(staged.keys().collect::<Vec<_>>(), [&2]);
        let because = format!("its changes go with those of {}, which could not be written", dir.path().join("a.cl").display());
        assert!(failed[&1].ends_with(&because), "{}", failed[&1]);
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names.len(), 1, "only c.cl's temporary is left: {names:?}");
        drop(staged);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
