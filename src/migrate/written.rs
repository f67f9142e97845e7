//! From kept change sets to the files written: each file's edits applied
//! (`plan::apply`), a program's change split into its sources, embedded
//! kernels written back into their host files, and the build calls of the
//! changed programs edited. One path from edits to text, taken for the
//! batch's result and, for `--interactive`, for each change set on its own,
//! so that the diff a reviewer accepts is rendered from exactly the edits,
//! and by exactly the code, that write it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::host::{self, HostBatch};
use super::plan::{self, Plan, SetId};
use super::programs;
use crate::front::unit::Unit;
use crate::migrate::report::{FileChange, FileError, Migration};
use crate::rules::{Fix, FixOrigin};
use crate::settings::options::MigrateOptions;

/// The changed kernel files (and headers, and programs' virtual texts, split
/// later by `into_files`): the edits of the sets `kept` keeps applied, with
/// the fixes touching each file.
pub(super) fn changes(units: &[Unit], plan: &Plan, kept: &dyn Fn(SetId) -> bool, errors: &mut Vec<FileError>) -> Vec<FileChange> {
    // File -> the kept sets editing it (each file looks at its own sets only: a batch has thousands).
    let mut by_file: BTreeMap<PathBuf, BTreeSet<SetId>> = BTreeMap::new();
    for id in (0..plan.sets.len()).map(SetId).filter(|id| kept(*id)) {
        for file in plan.sets[id].edits.keys() {
            by_file.entry(file.clone()).or_default().insert(id);
        }
    }
    let configured = units.iter().any(|u| u.configuration.is_some());
    let mut out = Vec::new();
    for (file, touching) in by_file {
        let only: BTreeSet<PathBuf> = [file.clone()].into();
        let migrated = match plan::apply(plan, &touching, &only) {
            Ok(mut texts) => texts.remove(&file).unwrap_or_default(),
            Err(message) => {
                errors.push(FileError { path: plan.originals[&file].0.clone(), message: message.to_string() });
                continue;
            }
        };
        let (path, original) = &plan.originals[&file];
        let mut fixes: Vec<Fix> = touching
            .iter()
            .flat_map(|id| {
                let here = plan.sets[*id].edits.get(&file);
                let fixes = plan.sets[*id].fixes.iter();
                fixes.filter(move |fix| fix.edits.iter().any(|e| here.is_some_and(|es| es.contains(e)))).map(|fix| {
                    let decl = (crate::settings::root::canonical(&fix.file), fix.decl.offset);
                    Fix { origin: Some(FixOrigin { set: id.0, decl }), ..fix.clone() }
                })
            })
            .collect();
        // An edit several fixes make (a qualifier one macro argument writes
        // for several parameters) is listed by the first: the file's edits
        // stay disjoint, and every fix still explains its declaration.
        let mut listed = BTreeSet::new();
        for fix in &mut fixes {
            fix.edits.retain(|e| listed.insert((e.file.clone(), e.start, e.end, e.replacement.clone())));
        }
        let configurations: BTreeSet<String> = units
            .iter()
            .zip(&plan.unit_sets)
            .filter(|(unit, sets)| configured && unit.configuration.is_some() && !sets.is_disjoint(&touching))
            .filter_map(|(unit, _)| unit.configuration.clone())
            .collect();
        out.push(FileChange {
            path: path.clone(),
            canonical: file.clone(),
            original: crate::support::ids::bytes(original).to_vec(),
            migrated,
            fixes,
            configurations: configurations.into_iter().collect(),
        });
    }
    out
}

/// `result.changes` as files on disk: programs' changes split into their
/// sources, embedded kernels written back into their host files, and the
/// build calls of the changed programs decided (host files join the changes).
pub(super) fn into_files(units: &[Unit], host: &HostBatch, options: &MigrateOptions, result: &mut Migration) {
    programs::write_back(units, result);
    host::finish(host, units, options, result);
}

/// For `--interactive`: each set `kept` keeps, with the files it alone
/// writes (host files and build calls included), by set number. Rendered
/// by `changes` and `into_files`, as the batch's own result is.
pub(super) fn each_set_alone(
    units: &[Unit],
    plan: &Plan,
    kept: &dyn Fn(SetId) -> bool,
    host: &HostBatch,
    options: &MigrateOptions,
    unanalysable: &[PathBuf],
) -> BTreeMap<usize, Vec<FileChange>> {
    let mut out = BTreeMap::new();
    for id in (0..plan.sets.len()).map(SetId).filter(|id| kept(*id)) {
        // A report of its own, thrown away but for its files: the batch's carries the diagnostics.
        let mut alone = Migration { unanalysable: unanalysable.to_vec(), ..Migration::default() };
        alone.changes = changes(units, plan, &|other| other == id, &mut alone.errors);
        into_files(units, host, options, &mut alone);
        out.insert(id.0, alone.changes);
    }
    out
}
