//! The host side of a batch. Before loading: every host file is scanned
//! (tree-sitter, `crate::host`); each kernel embedded in one becomes a unit
//! (`embedded`), compiled through a VFS overlay under a virtual name beside
//! its host file, with the options of the build call that builds it; a
//! literal that is a generated copy of a kernel file of the batch is not a
//! unit but that file's copy (`copies`); a kernel file gets the options of
//! the build calls that build it (`file_options`); the files a host
//! `#include`s as one program's sources are that program (`included`), no
//! units or host files of their own. After settling: the embedded
//! kernels' edits are written back into their literals in the literal's own
//! form, copies follow their files' edits in lockstep, and every build call
//! is decided by the rule `host-build-options` (`build_calls`). A host file
//! with edits becomes one more changed file, checked by scanning it again:
//! each literal must decode to exactly the migrated kernel.

mod build_calls;
mod copies;
mod embedded;
mod file_options;
mod included;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use crate::front::unit::Unit;
use crate::host::{scan, HostFacts, HostLanguage};
use crate::input::config::Job;
use crate::input::source::Embedded;
use crate::migrate::report::{FileError, Migration};
use crate::rules::host_build_options::{Helpers, HostInput};
use crate::rules::Fix;
use crate::settings::options::MigrateOptions;
use crate::settings::root::canonical;
use copies::Copy;

/// What the host side carries from before loading to after settling.
pub struct HostBatch {
    hosts: Vec<HostInput>,
    /// The calls of helpers that create programs from what their callers pass.
    helpers: Helpers,
    embedded: Vec<Arc<Embedded>>,
    copies: Vec<Copy>,
    /// The files of the programs hosts gather by `#include` (canonical).
    parts: BTreeSet<PathBuf>,
}

/// Scans `host_files` and returns the batch's host side and the jobs of the
/// embedded kernels (to load with the kernel files' `jobs`); the kernel
/// files' jobs gain the options their hosts build them with
/// (`file_options`). A file the batch also loads as a kernel unit is not host code.
pub fn prepare(
    pool: &rayon::ThreadPool,
    host_files: &[PathBuf],
    jobs: &mut Vec<Job>,
    scratch: Option<&std::path::Path>,
    options: &MigrateOptions,
    result: &mut Migration,
) -> (HostBatch, Vec<Job>) {
    let units: BTreeSet<PathBuf> = jobs.iter().map(|j| canonical(&j.path)).collect();
    let files: Vec<&PathBuf> = host_files.iter().filter(|path| !units.contains(&canonical(path))).collect();
    let mut hosts = scan_all(pool, &files, result);
    let (included_jobs, parts) = included::find(&hosts, jobs, options, result);
    // A wrapped file a host includes as a program's source is no host file of its own.
    hosts.retain(|h| !parts.contains(&canonical(&h.path)));
    let helpers = crate::support::timings::time("host: helpers", || helpers(pool, &hosts));
    file_options::apply(&hosts, &helpers, jobs, result);
    let copies = copies::find(&hosts, jobs);
    let (embedded, mut embedded_jobs) = match scratch {
        Some(dir) => embedded::jobs(&hosts, &copies, dir, options, result),
        None => (Vec::new(), Vec::new()),
    };
    embedded_jobs.extend(included_jobs);
    (HostBatch { hosts, helpers, embedded, copies, parts }, embedded_jobs)
}

impl HostBatch {
    /// The host files read, as named.
    pub fn files(&self) -> impl Iterator<Item = &std::path::Path> {
        self.hosts.iter().map(|host| host.path.as_path())
    }

    /// Whether a kernel file is a source of a program a host gathers by
    /// `#include` (then it is no unit of its own: it only compiles in its program).
    pub fn is_included_part(&self, job: &Job) -> bool {
        job.program.is_none() && job.embedded.is_none() && self.parts.contains(&canonical(&job.path))
    }
}

/// A note at a place of a host file (a build call's vendor option clasp
/// ignores), unless it is there already: one call may build several programs.
fn note_at(result: &mut Migration, host: &std::path::Path, (line, col): (u32, u32), message: String) {
    let note = crate::rules::Warning::at(host.to_path_buf(), line, col, message);
    if !result.notes.contains(&note) {
        result.notes.push(note);
    }
}

/// Per host file (its index in the batch), the fixes to write into it.
type HostFixes = BTreeMap<usize, Vec<Fix>>;

/// What a literal group must decode to once the host file is written: its
/// literals (indexes, in order), the text, and whether whitespace counts
/// (a generated copy equals its file's migrated text whitespace aside).
pub(super) struct Expected {
    pub host: usize,
    pub literals: Vec<usize>,
    pub text: Vec<u8>,
    pub exact: bool,
}

/// Writes the embedded kernels' and copies' edits back into their host
/// files, decides every build call, and adds the host changes and reports.
pub fn finish(batch: &HostBatch, units: &[Unit], options: &MigrateOptions, result: &mut Migration) {
    let mut fixes = HostFixes::new();
    let mut expected = Vec::new();
    let mut migrated = embedded::write_back(&batch.hosts, &batch.embedded, result, &mut fixes, &mut expected);
    migrated.extend(copies::lockstep(&batch.hosts, &batch.copies, result, &mut fixes, &mut expected));
    // The kernel files left changed (embedded kernels' and copies' changes are the hosts' now).
    let changed: BTreeSet<&std::path::Path> = result.changes.iter().map(|c| c.canonical.as_path()).collect();
    migrated.extend(including_changed_files(&batch.hosts, units, &changed));
    let programs = changed_programs(units, &changed);
    let variables = migrated_variables(batch, &migrated);
    // A header the kernels include is kernel code, whatever its extension.
    let included: BTreeSet<&std::path::Path> =
        units.iter().filter(|u| u.embedded.is_none()).flat_map(|u| u.canonical_paths()).collect();
    let hosts: Vec<usize> =
        (0..batch.hosts.len()).filter(|h| !included.contains(canonical(&batch.hosts[*h].path).as_path())).collect();
    result.host.files = hosts.len();
    // Every kernel file: a unit's main file, or each source of a `[[program]]`.
    let kernel_files: Vec<PathBuf> = units
        .iter()
        .filter(|u| u.embedded.is_none())
        .flat_map(|u| match &u.program {
            Some(program) => program.map.segments().iter().map(|s| canonical(&s.file)).collect(),
            None => vec![u.canonical(0).to_path_buf()],
        })
        .collect();
    let kernel_variables = kernel_variables(batch);
    let changed = build_calls::Migrated {
        programs: &programs,
        kernel_files: &kernel_files,
        literals: &migrated,
        variables: &variables,
        kernel_variables: &kernel_variables,
        helpers: &batch.helpers,
    };
    build_calls::decide_all(&batch.hosts, &hosts, &changed, options, result, &mut fixes);
    follow_whole_programs(units, result);
    build_calls::apply(&batch.hosts, fixes, &expected, options, result);
}

/// Each edited build call follows every changed file of the programs it
/// builds, not only their main files: a program changed through a header
/// alone is written in that header, and its build call stands or falls with it.
fn follow_whole_programs(units: &[Unit], result: &mut Migration) {
    let changed: BTreeSet<PathBuf> = result.changes.iter().map(|c| c.canonical.clone()).collect();
    for call in result.host.build_calls.iter_mut().filter(|c| !c.follows.is_empty()) {
        let mut files: BTreeSet<PathBuf> = BTreeSet::new();
        for followed in &call.follows {
            let builds = |u: &&Unit| match &u.program {
                Some(program) => program.map.segments().iter().any(|s| canonical(&s.file) == *followed),
                None => u.embedded.is_none() && u.canonical(0) == followed.as_path(),
            };
            files.extend(units.iter().filter(builds).flat_map(|u| u.canonical_paths().map(PathBuf::from)));
            files.insert(followed.clone());
        }
        call.follows = files.into_iter().filter(|f| changed.contains(f)).collect();
    }
}

/// The variables holding a migrated literal (an embedded kernel, a generated
/// copy), by name, with how reports name the program: a host may build from
/// one another file declares (a generated header it includes).
fn migrated_variables(batch: &HostBatch, migrated: &BTreeSet<(usize, usize)>) -> BTreeMap<String, (PathBuf, PathBuf)> {
    // A name several host files give to a kernel literal says nothing about which one a host builds.
    let mut hosts_naming: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (h, host) in batch.hosts.iter().enumerate() {
        for literal in host.facts.literals.iter().filter(|l| l.declares_kernel) {
            if let Some(variable) = &literal.variable {
                hosts_naming.entry(variable.as_str()).or_default().insert(h);
            }
        }
    }
    let mut out = BTreeMap::new();
    for &(h, l) in migrated {
        let host = &batch.hosts[h];
        let literal = &host.facts.literals[l];
        let Some(variable) = literal.variable.as_ref().filter(|v| hosts_naming.get(v.as_str()).is_none_or(|h| h.len() == 1))
        else {
            continue;
        };
        let name = match batch.copies.iter().find(|c| c.host == h && c.literal == l) {
            Some(copy) => copy.file.clone(),
            None => PathBuf::from(format!("{}:{}", host.path.display(), literal.start.line)),
        };
        out.insert(variable.clone(), (name, canonical(&host.path)));
    }
    out
}

/// Every variable a host file's kernel literal initialises.
fn kernel_variables(batch: &HostBatch) -> BTreeSet<String> {
    let literals = batch.hosts.iter().flat_map(|h| h.facts.literals.iter());
    literals.filter(|l| l.declares_kernel).filter_map(|l| l.variable.clone()).collect()
}

/// The calls, in every host file, of the helpers some host file creates a
/// program in from what its callers pass (`crate::host::helper_calls`).
fn helpers(pool: &rayon::ThreadPool, hosts: &[HostInput]) -> Helpers {
    use rayon::prelude::*;
    let creations = hosts.iter().flat_map(|h| h.facts.programs.iter());
    let names: BTreeSet<String> = creations.filter_map(|c| c.through.as_ref()).map(|t| t.function.clone()).collect();
    let mut helpers = Helpers::default();
    if names.is_empty() {
        return helpers;
    }
    let found: Vec<(PathBuf, crate::host::HelperCalls)> = pool.install(|| {
        (hosts.par_iter()).map(|h| (canonical(&h.path), crate::host::helper_calls(&h.text, h.facts.language, &names))).collect()
    });
    for (host, calls) in found {
        for name in calls.defines {
            helpers.definers.entry(name).or_default().insert(host.clone());
        }
        helpers.sites.extend(calls.calls.into_iter().map(|call| (host.clone(), call)));
    }
    helpers
}

/// The programs the migration changed: the main file (canonical, and as
/// reported) of every kernel-file unit one of whose files changed (a
/// header's change changes every program including it).
fn changed_programs(units: &[Unit], changed: &BTreeSet<&std::path::Path>) -> Vec<(PathBuf, PathBuf)> {
    let mut out: Vec<(PathBuf, PathBuf)> = units
        .iter()
        .filter(|u| u.embedded.is_none() && u.program.is_none() && u.canonical_paths().any(|p| changed.contains(p)))
        .map(|u| (u.canonical(0).to_path_buf(), u.path.clone()))
        .collect();
    // A program's sources (a host names them to read and concatenate them),
    // when one of them or a header the program includes changed.
    for unit in units.iter().filter(|u| u.program.is_some()) {
        let Some(program) = &unit.program else { continue };
        let sources: Vec<(PathBuf, PathBuf)> =
            program.map.segments().iter().map(|s| (canonical(&s.file), s.file.clone())).collect();
        if sources.iter().any(|(c, _)| changed.contains(c.as_path())) || unit.canonical_paths().any(|p| changed.contains(p)) {
            out.extend(sources);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The literals of the embedded kernels whose own text is unchanged but
/// that include a file the migration changed (a header): their programs
/// changed, so their builds must ask for the target. As (host index, literal index).
fn including_changed_files(
    hosts: &[HostInput],
    units: &[Unit],
    changed: &BTreeSet<&std::path::Path>,
) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    for unit in units.iter().filter(|u| u.canonical_paths().any(|p| changed.contains(p))) {
        let Some(kernel) = &unit.embedded else { continue };
        if let Some(h) = hosts.iter().position(|h| h.path == kernel.host) {
            out.extend(kernel.literals.iter().map(|(l, _)| (h, *l)));
        }
    }
    out
}

/// Reads and scans the host files (on the workers, results in order); an
/// unreadable one is an error for it. A text several files share (a vendored
/// header copied into each sample's directory) is scanned once: facts depend
/// on the text and the grammar only.
fn scan_all(pool: &rayon::ThreadPool, files: &[&PathBuf], result: &mut Migration) -> Vec<HostInput> {
    use rayon::prelude::*;
    let read: Vec<(&PathBuf, HostLanguage, std::io::Result<Vec<u8>>)> = pool.install(|| {
        (files.par_iter())
            .filter_map(|path| HostLanguage::of(path).map(|language| (*path, language, crate::support::overlay::read(path))))
            .collect()
    });
    let mut distinct: HashMap<(HostLanguage, &[u8]), usize> = HashMap::new();
    let mut first_of = Vec::new();
    for (i, (_, language, text)) in read.iter().enumerate() {
        if let Ok(text) = text {
            first_of.push(*distinct.entry((*language, text.as_slice())).or_insert(i));
        } else {
            first_of.push(i);
        }
    }
    // Largest first, so that a big file does not start last on a worker.
    let mut order: Vec<usize> = distinct.into_values().collect();
    order.sort_by_key(|&i| std::cmp::Reverse(read[i].2.as_ref().map_or(0, Vec::len)));
    let scanned: HashMap<usize, HostFacts> = pool.install(|| {
        (order.par_iter().with_max_len(1))
            .map(|&i| {
                let (path, language, text) = &read[i];
                let text = text.as_deref().unwrap_or_default();
                (i, crate::support::timings::time("host: scan", || scan(path, text, *language)))
            })
            .collect()
    });
    let mut hosts = Vec::new();
    for (i, (path, _, text)) in read.into_iter().enumerate() {
        match text {
            Ok(text) => {
                let facts = HostFacts { path: path.clone(), ..scanned[&first_of[i]].clone() };
                hosts.push(HostInput { path: path.clone(), text, facts });
            }
            Err(e) => result
                .errors
                .push(FileError { path: path.clone(), message: format!("{}: error: cannot read: {e}", path.display()) }),
        }
    }
    hosts
}
