//! The changed programs as a device compiler would be given them, kept for
//! `--device-check`: each unit that a kept change touches, with its main
//! text and every file it reads, before and after (taken when the changes
//! are known, while embedded kernels and `[[program]]`s still have their
//! own virtual files: later they are written back into host literals and
//! source files).

use std::collections::BTreeMap;
use std::path::Path;

use crate::report::{ChangedProgram, FileChange, ProgramFile};
use crate::unit::Unit;

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
                    let (original, migrated) = match changed.get(canonical.as_path()) {
                        Some(c) => (c.original.clone(), Some(c.migrated.clone())),
                        None => (text(unit, i), None),
                    };
                    ProgramFile { canonical, original, migrated }
                })
                .collect();
            ChangedProgram { label: unit.label(), path: unit.path.clone(), compile: unit.compile.clone(), files }
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

/// A file's bytes as the unit reads them: an embedded kernel's or a
/// program's virtual file is not on disk.
fn text(unit: &Unit, file: usize) -> Vec<u8> {
    let name = &unit.syntax.files[file];
    match (&unit.embedded, &unit.program) {
        (Some(e), _) if *name == e.virtual_path => e.text.as_bytes().to_vec(),
        (_, Some(p)) if *name == p.virtual_path => p.text.clone(),
        _ => unit.text(file).to_vec(),
    }
}
