//! The changed programs as a device compiler would be given them, kept for
//! `--device-check`: each unit that a kept change touches, with every file
//! it reads, its main text first. Real files are named only (their bytes
//! are the migration's changes, or on disk); an embedded kernel's or a
//! `[[program]]`'s virtual text is kept, before and after, because its
//! change is written back into host literals and source files later.

use std::collections::BTreeMap;
use std::path::Path;

use crate::front::unit::Unit;
use crate::migrate::report::{ChangedProgram, FileChange, ProgramFile};

/// Every unit with a changed file, in unit order.
pub fn collect(units: &[Unit], changes: &[FileChange]) -> Vec<ChangedProgram> {
    let changed: BTreeMap<&Path, &FileChange> = changes.iter().map(|c| (c.canonical.as_path(), c)).collect();
    units
        .iter()
        .filter(|u| u.canonical_paths().any(|p| changed.contains_key(p)))
        .map(|unit| {
            let files = reading_order(unit)
                .into_iter()
                .map(|i| {
                    let canonical = unit.canonical(i).to_path_buf();
                    let change = changed.get(canonical.as_path());
                    let virtual_text = virtual_text(unit, i).map(|text| match change {
                        Some(c) => (c.original.clone(), Some(c.migrated.clone())),
                        None => (text, None),
                    });
                    ProgramFile { canonical, virtual_text }
                })
                .collect();
            // An embedded kernel's errors are its host file's (its own path is a virtual `host.c:LINE`).
            let path = unit.embedded.as_ref().map_or_else(|| unit.path.clone(), |e| e.host.clone());
            ChangedProgram { label: unit.label(), path, compile: unit.compile.clone(), files }
        })
        .collect()
}

/// The unit's files, its main text first: an embedded kernel's or a
/// program's virtual file, not the wrapper clang is given (which includes
/// it by its absolute virtual name, which no device could open).
fn reading_order(unit: &Unit) -> Vec<usize> {
    let virtual_path = match (&unit.embedded, &unit.program) {
        (Some(e), _) => Some(&e.virtual_path),
        (_, Some(p)) => Some(&p.virtual_path),
        _ => None,
    };
    let Some(main) = virtual_path.and_then(|v| unit.syntax.files.iter().position(|f| f == v)) else {
        return (0..unit.syntax.files.len()).collect();
    };
    std::iter::once(main).chain((1..unit.syntax.files.len()).filter(|i| *i != main)).collect()
}

/// The text of an embedded kernel's or a program's virtual file, which is
/// not on disk (and whose change becomes a host file's or source files'
/// changes later); `None` for a real file, read when the check runs.
fn virtual_text(unit: &Unit, file: usize) -> Option<Vec<u8>> {
    let name = &unit.syntax.files[file];
    match (&unit.embedded, &unit.program) {
        (Some(e), _) if *name == e.virtual_path => Some(e.text.as_bytes().to_vec()),
        (_, Some(p)) if *name == p.virtual_path => Some(p.text.clone()),
        _ => None,
    }
}
