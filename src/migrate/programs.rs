//! `[[program]]`s: before loading, each program's sources are read and
//! concatenated into a virtual unit; after settling, the program's verified
//! edits are split back into its source files through its source map (a
//! source wrapped as a C++ raw string keeps its wrapper: only its content
//! is ever edited).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::codes::Code;
use crate::front::unit::Unit;
use crate::input::config::Job;
use crate::input::source::Program;
use crate::migrate::report::{FileChange, FileError, Migration, Outcome};
use crate::rules::{Edit, Fix};
use crate::settings::root::canonical;

/// Prepares every program job's text and scratch files; a program whose
/// sources cannot be read is an error and is not loaded.
pub fn prepare(jobs: &mut Vec<Job>, scratch: Option<&Path>, result: &mut Migration) {
    jobs.retain_mut(|job| {
        let Some(sources) = job.program.as_mut() else { return true };
        let prepared = scratch.map(|dir| Program::prepare(dir, &job.path, &sources.name, &sources.files));
        match prepared {
            Some(Ok(program)) => {
                sources.prepared = Some(Arc::new(program));
                true
            }
            Some(Err(e)) => {
                let message = format!("{}: error: program `{}`: cannot read its sources: {e}", job.path.display(), sources.name);
                result.errors.push(FileError { path: job.path.clone(), message });
                false
            }
            None => false,
        }
    });
}

/// Splits each changed program's change into changes of its source files.
/// A source shared by programs must come out the same in all of them (a
/// program that leaves it as it is counts): when they disagree it is an
/// error, and those programs' changes are all left out (a program's edits
/// stand or fall together); identical edits count once.
pub fn write_back(units: &[Unit], result: &mut Migration) {
    let programs: Vec<&Program> = units.iter().filter_map(|u| u.program.as_deref()).collect();
    let mut split_changes: BTreeMap<String, Vec<FileChange>> = BTreeMap::new();
    for program in &programs {
        let Some(i) = result.changes.iter().position(|c| c.canonical == program.virtual_path) else { continue };
        let change = result.changes.remove(i);
        match split(program, change) {
            Ok(changes) => {
                split_changes.insert(program.label(), changes);
            }
            Err(error) => result.errors.push(FileError { path: program.virtual_path.clone(), message: error.to_string() }),
        }
    }
    let conflicting = conflicts(&programs, &split_changes, result);
    let mut written = BTreeSet::new();
    for (label, changes) in split_changes {
        if conflicting.contains_key(&label) {
            continue;
        }
        for change in changes {
            if written.insert(change.canonical.clone()) {
                result.changes.push(change);
            }
        }
    }
    result.changes.sort_by(|a, b| a.canonical.cmp(&b.canonical));
    left_as_they_are(&programs, &conflicting, result);
}

/// What the reports count of the programs left out for a conflict: their
/// merges are not made, and a function of theirs whose file is not written
/// (no program agreeing on it writes it) is not migrated but refused.
fn left_as_they_are(programs: &[&Program], conflicting: &BTreeMap<String, String>, result: &mut Migration) {
    let left: Vec<&&Program> = programs.iter().filter(|p| conflicting.contains_key(&p.label())).collect();
    let virtual_paths: BTreeSet<PathBuf> = left.iter().map(|p| canonical(&p.virtual_path)).collect();
    result.merges.retain(|m| !virtual_paths.contains(&canonical(&m.file)));
    let written: BTreeSet<&PathBuf> = result.changes.iter().map(|c| &c.canonical).collect();
    let mut why: BTreeMap<PathBuf, &String> = BTreeMap::new();
    for program in &left {
        for segment in program.map.segments() {
            why.entry(canonical(&segment.file)).or_insert(&conflicting[&program.label()]);
        }
    }
    for function in &mut result.functions {
        let file = canonical(&function.file);
        let Some(detail) = why.get(&file).filter(|_| !written.contains(&file)) else { continue };
        if function.outcome.changed() {
            function.outcome = Outcome::Refused { reason: Code::HeaderConflict, detail: (*detail).clone() };
        }
    }
}

/// The programs that disagree on a source they share, each disagreement
/// reported: by label, what leaves the program as it is.
fn conflicts(
    programs: &[&Program],
    split_changes: &BTreeMap<String, Vec<FileChange>>,
    result: &mut Migration,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let changed_files: BTreeSet<&PathBuf> = split_changes.values().flatten().map(|c| &c.canonical).collect();
    for file in changed_files {
        // What each program including the file makes of it: its change, or nothing.
        let sharing: Vec<(String, Option<&FileChange>)> = programs
            .iter()
            .filter(|p| p.map.segments().iter().any(|s| canonical(&s.file) == *file))
            .map(|p| {
                let label = p.label();
                let change = split_changes.get(&label).and_then(|cs| cs.iter().find(|c| &c.canonical == file));
                (label, change)
            })
            .collect();
        let first = sharing[0].1.map(|c| &c.migrated);
        if sharing.iter().all(|(_, c)| c.map(|c| &c.migrated) == first) {
            continue;
        }
        let names: Vec<&str> = sharing.iter().map(|(l, _)| l.as_str()).collect();
        let conflict = format!("a source of {}, which would not all leave it the same", names.join(" and "));
        let message = format!("{}: error: {conflict}: those programs are left as they are", file.display());
        result.errors.push(FileError { path: file.clone(), message });
        for (label, _) in sharing {
            out.entry(label).or_insert_with(|| format!("{}: {conflict}", file.display()));
        }
    }
    out
}

/// Why a program's change could not be split into its sources' changes.
#[derive(Debug, thiserror::Error)]
enum SplitError {
    /// An edit that maps into no source, or cuts an escape sequence of one.
    #[error("{label}: error: an edit of bytes {start}..{end} is outside its text or cuts an escape sequence of a source")]
    Unmapped { label: String, start: u32, end: u32 },
    /// A source cannot be read.
    #[error("{}: error: cannot read: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    /// The mapped edits do not apply.
    #[error(transparent)]
    Apply(#[from] super::plan::ApplyError),
}

/// The program's change as changes of its sources: every edit mapped into
/// the sources holding its bytes and spelled in their form (one that cuts
/// an escape sequence is an error).
fn split(program: &Program, change: FileChange) -> Result<Vec<FileChange>, SplitError> {
    let mut per_file: BTreeMap<PathBuf, Vec<Fix>> = BTreeMap::new();
    for fix in change.fixes {
        let mut by_file: BTreeMap<PathBuf, Vec<Edit>> = BTreeMap::new();
        for edit in fix.edits.iter().filter(|e| e.file == program.virtual_path) {
            let unmapped = || SplitError::Unmapped { label: program.label(), start: edit.start, end: edit.end };
            let pieces = program.map.to_files(edit.start..edit.end).ok_or_else(unmapped)?;
            // The replacement goes in the first source; the rest of the range is deleted, but
            // for blanks only (a deletion tidying blank lines): they stay, so no source's first
            // line joins the last one of the source before it.
            for (i, at) in pieces.into_iter().enumerate() {
                let own = &program.text[at.unit.start as usize..at.unit.end as usize];
                if i > 0 && own.iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                let (range, replacement) = at.spelled(if i == 0 { &edit.replacement } else { "" });
                let file = at.file.to_path_buf();
                by_file.entry(file.clone()).or_default().push(Edit { file, start: range.start, end: range.end, replacement });
            }
        }
        for (file, edits) in by_file {
            let mut mapped = fix.clone();
            mapped.file = file.clone();
            mapped.edits = edits;
            mapped.message = format!("in {}: {}", program.label(), fix.message);
            per_file.entry(file).or_default().push(mapped);
        }
    }
    per_file.into_iter().map(|(file, fixes)| source_change(&file, fixes)).collect()
}

/// A source file with its fixes' edits applied.
fn source_change(file: &Path, fixes: Vec<Fix>) -> Result<FileChange, SplitError> {
    let original = crate::support::overlay::read(file).map_err(|source| SplitError::Read { path: file.to_path_buf(), source })?;
    let mut fixes = fixes;
    for fix in fixes.iter_mut() {
        // The line of the fix's first edit in this source.
        let offset = fix.edits.first().map_or(0, |e| e.start as usize).min(original.len());
        fix.line = 1 + original[..offset].iter().filter(|b| **b == b'\n').count() as u32;
        fix.col = crate::support::text::column(&original, offset);
    }
    let edits: std::collections::BTreeSet<&Edit> = fixes.iter().flat_map(|f| f.edits.iter()).collect();
    let migrated = super::plan::apply_edits(file, &original, edits)?;
    Ok(FileChange {
        path: file.to_path_buf(),
        canonical: crate::settings::root::canonical(file),
        original,
        migrated,
        fixes,
        configurations: Vec::new(),
    })
}
