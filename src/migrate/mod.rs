//! `migrate`: the pipeline from facts to verified new text for a batch.
//!
//! Takes the jobs (`input`), the units (`front`), decisions (`infer`),
//! fixes (`rules`) and verification (`verify`); gives a `report::Migration`:
//! the changed files, every refusal and warning, the host's build calls and
//! an account of every function, which `output` renders and writes.
//!
//! load (every unit parsed and lowered) -> plan (inferred until units
//! sharing a header agree; fixes grouped into change sets of declarations
//! linked by pointer flows) -> settle (each unit recompiled as the target
//! and its kernels compared; the change sets responsible for a failure are
//! found by bisection and withdrawn) -> the changed files and an account of
//! every function.

mod account;
mod device_programs;
mod discovered;
mod host;
mod plan;
mod programs;
pub mod report;
mod reused;
mod settle;
mod written;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::codes::Code;
use crate::front::unit::{Unit, Workbench};
use crate::input::config::Job;
pub use crate::migrate::report::*;
use crate::rules::merge_duplicates::{Detected, Withdrawn};
pub use crate::settings::options::MigrateOptions;
use crate::support::ids::Files;
/// Edits applied to a text (what every changed file is made by; `--interactive` renders its follow-up diff with it).
pub use plan::apply_edits;
use plan::{FailedFiles, Plan, SetId};
use settle::Settled;

/// Migrates a batch: load -> plan -> settle -> changes and accounting ->
/// the host files' build calls (`host_files`: C, C++ and Python files).
pub fn migrate(bench: &Workbench, jobs: &[Job], host_files: &[PathBuf], options: &MigrateOptions) -> Migration {
    let mut result = Migration::default();
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(options.jobs.max(1)).build() {
        Ok(pool) => pool,
        Err(e) => {
            result.errors.push(FileError { path: PathBuf::new(), message: format!("clasp: error: cannot start workers: {e}") });
            return result;
        }
    };
    // Embedded kernels' and programs' texts, overlays and wrappers live here as long as the batch.
    let scratch = tempfile::tempdir().map_err(|e| {
        let message = format!("clasp: error: no scratch directory for embedded kernels and programs: {e}");
        result.errors.push(FileError { path: PathBuf::new(), message });
    });
    let scratch_dir = scratch.as_ref().ok().map(|d| d.path());
    let mut jobs: Vec<Job> = jobs.to_vec();
    let (host, embedded_jobs) = crate::support::timings::time("host: prepare", || {
        host::prepare(&pool, host_files, &mut jobs, scratch_dir, options, &mut result)
    });
    jobs.retain(|j| !host.is_included_part(j));
    jobs.extend(embedded_jobs);
    programs::prepare(&mut jobs, scratch_dir, &mut result);
    // A file built in several configurations is one file; an embedded kernel counts as one.
    result.files_seen = jobs.iter().map(|j| &j.path).collect::<BTreeSet<_>>().len();
    // Equal facts of the batch's units are held once (`front::stored::Interner`): those
    // read back from the store, and a header's IR facts in units of different include sets.
    let interner = std::sync::Mutex::new(crate::front::stored::Interner::default());
    let loading = Loading { pool: &pool, options, interner: &interner };
    let (mut units, unit_jobs, failed) = crate::support::timings::time("load", || load_units(&loading, &jobs, &mut result));
    let unit_jobs: Vec<&Job> = unit_jobs.iter().map(|i| &jobs[*i]).collect();
    let mut files = intern_files(&mut units);
    skipped_only_where_no_unit_compiles(&mut units);
    // Code still skipped is what no given configuration builds: discovery's input.
    let given = units.len();
    discover_configurations(&loading, &mut units, &unit_jobs, &mut result);
    // Every unit is read: what reading them back, walking their headers and
    // reading their headers' facts shares is held by the units now.
    drop(interner);
    crate::front::stored::forget_read();
    crate::front::parse::forget_walks();
    crate::front::lower::preamble::forget_fact_preambles();
    crate::front::lower::release_freed_memory();
    if units.len() > given {
        files = intern_files(&mut units);
        skipped_only_where_no_unit_compiles(&mut units);
    }
    result.inputs = inputs(&jobs, host_files, &units);
    result.files_read = files_read(&jobs, &units, &host, &options.root);
    crate::support::timings::note_memory("after load");
    let (plan, settled) = plan_and_settle(bench, &pool, &units, &files, &failed, options);
    crate::support::timings::note_memory("after settle");
    result.merges = merge_reports(&plan, &settled, options.verify);
    result.unmerged = plan.unmerged.clone();
    result.warnings.extend(plan.warnings.iter().cloned());
    result.warnings.extend(crate::support::timings::time("outside root", || plan::outside_root_warnings(&units, &plan, options)));
    let kept = |id: SetId| settled.kept(id);
    result.changes = crate::support::timings::time("changes", || written::changes(&units, &plan, &kept, &mut result.errors));
    result.programs = device_programs::collect(&units, &result.changes);
    result.errors.extend(settled.errors.iter().cloned());
    result.warnings.extend(settled.warnings.iter().cloned());
    result.proofs = settled.proofs.clone();
    result.residual_generic = settled.residual_generic.clone();
    result.residual_generic.sort();
    result.functions =
        crate::support::timings::time("account", || account::account(&units, &options.root, &plan, &settled, options.verify));
    result.refusals = plan.refusals.clone();
    crate::support::timings::time("host", || written::into_files(&units, &host, options, &mut result));
    if options.each_set {
        result.set_changes = written::each_set_alone(&units, &plan, &kept, &host, options, &result.unanalysable);
    }
    // What the compiles read besides the units' files (a header only the target's build
    // includes): a stored result holds them too. Not what clasp laid for its compiles.
    let laid =
        |path: &Path| scratch_dir.is_some_and(|dir| path.starts_with(dir)) || crate::front::lower::preamble::made_here(path);
    let read = crate::support::reads::all().into_iter().filter(|path| !laid(path));
    result.inputs.extend(read.map(|path| crate::support::overlay::canonical(&path)));
    crate::support::timings::note_memory("at the end");
    result
}

/// Every file the batch reads: the jobs' files and program sources, the host
/// files, and every file of every unit (the headers it includes).
fn inputs(jobs: &[Job], host_files: &[PathBuf], units: &[Unit]) -> BTreeSet<PathBuf> {
    let sources = jobs.iter().flat_map(|j| j.program.iter().flat_map(|p| p.files.iter()));
    let files = units.iter().flat_map(|u| u.syntax.files.iter());
    jobs.iter().map(|j| &j.path).chain(sources).chain(host_files).chain(files).cloned().collect()
}

/// The files the batch read as code, each once: kernel files, the headers
/// under the edit root they include, programs' sources, and host files (one
/// however many kernels it holds). The summary counts these, so every file
/// a run lists as changed is among those it counts.
fn files_read(jobs: &[Job], units: &[Unit], host: &host::HostBatch, root: &Path) -> usize {
    let mut files: BTreeSet<PathBuf> = BTreeSet::new();
    for job in jobs.iter().filter(|job| job.embedded.is_none()) {
        match &job.program {
            Some(program) => files.extend(program.files.iter().map(|source| crate::settings::root::canonical(source))),
            None => {
                files.insert(crate::settings::root::canonical(&job.path));
            }
        }
    }
    for unit in units {
        // An embedded kernel's or a program's text is a virtual file (its bytes are counted
        // above); the wrapper clang compiles, outside the root, is clasp's own.
        let virtual_path = match (&unit.embedded, &unit.program) {
            (Some(embedded), _) => Some(crate::settings::root::canonical(&embedded.virtual_path)),
            (None, Some(program)) => Some(crate::settings::root::canonical(&program.virtual_path)),
            (None, None) => None,
        };
        let included = unit.canonical_paths().filter(|path| crate::settings::root::is_under(root, path));
        files.extend(included.filter(|path| virtual_path.as_deref() != Some(*path)).map(Path::to_path_buf));
    }
    files.extend(host.files().map(crate::settings::root::canonical));
    files.len()
}

/// Plans and settles; when verification withdraws a merge of duplicates, plans
/// again without it (its members' generic rewrites may stand on their own) and
/// settles again, until every planned merge stands.
fn plan_and_settle(
    bench: &Workbench,
    pool: &rayon::ThreadPool,
    units: &[Unit],
    files: &Files,
    failed: &FailedFiles,
    options: &MigrateOptions,
) -> (Plan, Settled) {
    let target_args = options.compile.clang_args(Some(&options.target.std_flags()));
    // Names are checked once per batch, whatever the rounds of planning.
    let known: std::cell::RefCell<BTreeMap<String, bool>> = Default::default();
    let probe = |names: &[String]| -> Result<BTreeSet<String>, crate::front::parse::ParseError> {
        let new: Vec<String> = names.iter().filter(|n| !known.borrow().contains_key(*n)).cloned().collect();
        let taken = bench.parser.taken_names(&new, &target_args)?;
        known.borrow_mut().extend(new.into_iter().map(|n| (n.clone(), taken.contains(&n))));
        Ok(names.iter().filter(|n| known.borrow().get(*n) == Some(&true)).cloned().collect())
    };
    let mut withdrawn = Withdrawn::new();
    // Duplicate groups depend only on the units and the root: found once per batch.
    let detected = crate::support::timings::time("plan: duplicates", || pool.install(|| Detected::new(units, &options.root)));
    let memo = settle::Memo::default();
    loop {
        let mut plan = crate::support::timings::time("plan", || plan::plan(units, files, &detected, options, &probe, &withdrawn));
        plan.refuse_failed_files(units, failed);
        let settled = crate::support::timings::time("settle", || settle::settle(pool, units, &plan, options, &memo));
        let mut again = false;
        for (i, (merge, id)) in plan.merges.iter().enumerate() {
            // A unit that cannot be repaired keeps nothing, merged or not: planning again would not help.
            let Some(why) = settled.withdrawn.get(id).filter(|w| w.reason != Code::UnrepairableUnit) else { continue };
            // A set may hold merges that others call into: the callers go first, so a
            // merge that did nothing wrong gets its own round.
            let called_by_another = plan.merges.iter().any(|(other, other_id)| other_id == id && other.depends_on.contains(&i));
            if called_by_another {
                continue;
            }
            // A set planning withheld (a file a failed unit stands on) was never verified.
            let detail = match why.reason {
                Code::FailedUnit => why.detail.clone(),
                _ => format!("the merge was withdrawn by verification: {}", why.detail),
            };
            for member in &merge.members {
                withdrawn.insert(member.key, (why.reason, detail.clone()));
            }
            again = true;
        }
        if !again {
            return (plan, settled);
        }
    }
}

/// The merges that stand, each once: the same definitions merged in every
/// program that shares their source are one merge (members name real places).
fn merge_reports(plan: &Plan, settled: &Settled, verify: bool) -> Vec<MergeReport> {
    let mut seen = BTreeSet::new();
    let places = |merge: &crate::rules::merge_duplicates::Merge| -> Vec<(String, PathBuf, u32, u32)> {
        merge.members.iter().map(|m| (m.name.clone(), m.file.clone(), m.line, m.col)).collect()
    };
    plan.merges
        .iter()
        .filter(|(_, id)| settled.kept(*id))
        .filter(|(merge, _)| seen.insert(places(merge)))
        .map(|(merge, id)| MergeReport {
            name: merge.name.clone(),
            file: merge.fix.file.clone(),
            line: merge.fix.line,
            members: merge.members.clone(),
            kept: merge.kept.iter().map(|k| KeptMember { member: k.member.clone(), why: k.why.clone() }).collect(),
            verified: verify && !settled.unverified.contains(id),
        })
        .collect()
}

/// Reads, parses and lowers every file (once per configuration), in parallel
/// (a libclang index and an LLVM context per worker); one that fails is an
/// error and the batch goes on. Also returns the files a failed unit stands
/// on (`FailedFiles`): nothing in them changes.
fn load_units(loading: &Loading, jobs: &[Job], result: &mut Migration) -> (Vec<Unit>, Vec<usize>, FailedFiles) {
    loading.options.progress.stage("loading", jobs.len());
    let loaded = load_each(loading, jobs);
    let mut units = Vec::new();
    let mut unit_jobs = Vec::new();
    let mut failed = FailedFiles::default();
    for (index, (job, unit)) in jobs.iter().zip(loaded).enumerate() {
        if let Err(failure) = &unit {
            note_failed_files(job, failure, &mut failed);
        }
        match unit {
            Ok(unit) => {
                // What the unit's own edits are keyed by: its file, or its embedded kernel's or program's virtual file.
                let program = job.program.as_ref().and_then(|p| p.prepared.as_ref());
                let own = job.embedded.as_ref().map(|e| &e.virtual_path).or(program.map(|p| &p.virtual_path));
                let own = own.unwrap_or(&job.path);
                // A virtual file names its edits as it is named (`plan::real_files`), a file by its canonical path.
                failed.loaded.extend([own.clone(), crate::settings::root::canonical(own)]);
                units.push(unit);
                unit_jobs.push(index);
            }
            Err(failure) => record_failure(job, failure, result),
        }
    }
    (units, unit_jobs, failed)
}

/// What a failed unit stands on, in `failed` (`plan::FailedFiles`): its own
/// file (even where another configuration of it loaded), every file its
/// parses read, and when those are not all it reads, the unit itself.
fn note_failed_files(job: &Job, failure: &Failed, failed: &mut FailedFiles) {
    let label = match job.program.as_ref() {
        Some(program) => format!("program `{}`", program.name),
        None => crate::settings::paths::shown_path(&job.path),
    };
    let (unit, own) = match &job.configuration {
        Some(name) => (format!("{label} (in configuration `{name}`)"), format!("has errors in configuration `{name}`")),
        None => (label, "has errors".to_string()),
    };
    let canonical = crate::settings::root::canonical;
    match &job.program {
        // A program's own text is its sources: each stands on the program too.
        Some(program) => {
            for source in &program.files {
                failed.read.entry(canonical(source)).or_insert_with(|| format!("{unit} reads, and {unit} has errors"));
            }
        }
        None if job.embedded.is_none() => {
            failed.read.insert(canonical(&job.path), own);
        }
        None => {}
    }
    let (files, complete) = match failure {
        Failed::Load { files, complete, .. } => (&files[..], *complete),
        Failed::Isolated(_) => (&[][..], false),
    };
    for file in files {
        let why = || format!("{unit} reads, and {unit} has errors");
        failed.read.entry(crate::settings::root::canonical(file)).or_insert_with(why);
    }
    if !complete {
        failed.unknown.push(unit);
    }
}

/// What loading the batch's units needs.
struct Loading<'a> {
    pool: &'a rayon::ThreadPool,
    options: &'a MigrateOptions,
    interner: &'a std::sync::Mutex<crate::front::stored::Interner>,
}

/// Each job's unit (in the job's configuration), or why it has none: loaded in parallel.
fn load_each(loading: &Loading, jobs: &[Job]) -> Vec<Result<Unit, Failed>> {
    use rayon::prelude::*;
    let options = loading.options;
    let groups = WalkGroups::of(loading, jobs);
    loading.pool.install(|| {
        jobs.par_iter()
            .zip(&groups.each)
            .map_init(Workbench::new, |bench, (job, group)| {
                let label = job.label();
                let unit = match (bench, crate::isolation::exclusion_error(&label, &job.path)) {
                    (_, Some(message)) => Err(Failed::Isolated(message)),
                    (Ok(bench), None) => crate::isolation::for_unit(&label, || load_or_reuse(bench, job, options)),
                    (Err(message), None) => {
                        Err(Failed::Load { message: format!("clasp: error: {message}"), files: Vec::new(), complete: false })
                    }
                };
                options.progress.done(&job.path, "");
                groups.done(*group);
                let unit = unit.map(|mut unit| {
                    unit.configuration = job.configuration.clone();
                    if let Ok(mut interner) = loading.interner.lock() {
                        interner.intern(&mut unit);
                    }
                    unit
                });
                // What the parse and the compiles freed goes back now: the units'
                // facts, kept between, would otherwise pin it for the run.
                crate::front::lower::release_freed_memory();
                unit
            })
            .collect()
    })
}

/// The preamble each job's header walks are kept under (`Workbench::walk_group`),
/// and how many jobs left to load have each: a preamble's walks are let go of
/// when its last job is loaded (what its units share, they hold).
struct WalkGroups {
    each: Vec<Option<u64>>,
    left: std::sync::Mutex<std::collections::HashMap<u64, usize>>,
}

impl WalkGroups {
    fn of(loading: &Loading, jobs: &[Job]) -> WalkGroups {
        use rayon::prelude::*;
        let plain = |job: &Job| job.embedded.is_none() && job.program.is_none();
        let each: Vec<Option<u64>> = loading.pool.install(|| {
            jobs.par_iter()
                .map(|job| plain(job).then(|| Workbench::walk_group(&job.path, &job.compile, loading.options.target)).flatten())
                .collect()
        });
        let mut left = std::collections::HashMap::new();
        for group in each.iter().flatten() {
            *left.entry(*group).or_insert(0) += 1;
        }
        WalkGroups { each, left: left.into() }
    }

    /// Counts a job of `group` loaded (whatever the load gave), letting go of
    /// the group's walks after its last.
    fn done(&self, group: Option<u64>) {
        let Some(group) = group else { return };
        let Ok(mut left) = self.left.lock() else { return };
        let count = left.entry(group).or_insert(1);
        *count = count.saturating_sub(1);
        if *count == 0 {
            crate::front::parse::forget_walks_of(group);
        }
    }
}

/// The job's unit as a run before left it in the store when its files are
/// unchanged (`reused`), else loaded, and left there for the next run.
fn load_or_reuse(bench: &Workbench, job: &Job, options: &MigrateOptions) -> Result<Unit, Failed> {
    if let Some(found) = crate::support::timings::time("load: read back", || reused::find(job, options)) {
        // Only a failure whose files are all known is stored.
        return found.map_err(|(message, files)| Failed::Load { message, files, complete: true });
    }
    let loaded = load_job(bench, job, options);
    crate::support::timings::time("load: kept", || reused::keep(job, options, &loaded));
    loaded.map_err(|e| {
        let (files, complete) = e.files_read();
        Failed::Load { message: e.to_string(), files: files.to_vec(), complete }
    })
}

/// Configuration discovery (`discovered`): the units of the configurations
/// derived for code `#if` skips that load and compile that code join the
/// batch; each one tried is reported, dropped or not.
fn discover_configurations(loading: &Loading, units: &mut Vec<Unit>, jobs: &[&Job], result: &mut Migration) {
    let options = loading.options;
    let (candidates, bounded) = discovered::candidates(units, jobs, options.discover_configurations);
    for (u, bound) in bounded {
        units[u].discovery_bound = Some(bound);
    }
    if candidates.is_empty() {
        return;
    }
    let extra: Vec<Job> = candidates.iter().map(|c| c.job.clone()).collect();
    options.progress.stage("loading discovered configurations", extra.len());
    let loaded = crate::support::timings::time("load: discovered", || load_each(loading, &extra));
    for (candidate, load) in candidates.iter().zip(loaded) {
        let load = load.map_err(|failure| match failure {
            Failed::Load { message, .. } | Failed::Isolated(message) => message,
        });
        let failed = load.as_ref().err().is_some_and(|message| discovered::a_change_could_fix(message));
        let (unit, report) = discovered::judge(candidate, load);
        if failed {
            // Code no configuration compiles as written, for a reason a change of
            // spaces could remove: what it calls keeps its spaces (else the next run differs).
            let targets = discovered::targets_in(candidate, &units[candidate.from]);
            units[candidate.from].unbuildable.extend(targets);
        }
        units.extend(unit);
        result.discovered.push(report);
    }
}

/// A job with no unit: an error (a warning for an embedded kernel clang
/// rejects: a literal clasp took for a kernel may need options it could not trace).
fn record_failure(job: &Job, failure: Failed, result: &mut Migration) {
    // A file is unanalysable once, however many of its configurations failed.
    if !result.unanalysable.contains(&job.path) {
        result.unanalysable.push(job.path.clone());
    }
    let (message, isolated) = match failure {
        Failed::Isolated(message) => (message, true),
        Failed::Load { message, .. } => (message, false),
    };
    let message = match &job.configuration {
        Some(name) => format!("{message}\n{}: note: in configuration `{name}`", job.path.display()),
        None => message,
    };
    match &job.embedded {
        // A unit that crashed or hung clang is an error, embedded or not.
        Some(e) if !isolated => {
            let first = message.lines().next().unwrap_or_default();
            let message = format!("the embedded kernel is left as it is: clasp cannot analyse it: {first}");
            result.warnings.push(Warning::at(e.host.clone(), e.line, e.col, message));
        }
        _ => result.errors.push(FileError { path: failure_path(job, &message), message }),
    }
}

/// The file a failed job's error is reported under: a `[[program]]`'s source
/// the message starts at (else its first source), never the program's
/// virtual name; any other job's own path.
fn failure_path(job: &Job, message: &str) -> PathBuf {
    let Some(program) = &job.program else { return job.path.clone() };
    let starts_at = |file: &&PathBuf| {
        [crate::settings::paths::shown_path(file), file.display().to_string()]
            .iter()
            .any(|name| message.starts_with(&format!("{name}:")))
    };
    program.files.iter().find(starts_at).or(program.files.first()).cloned().unwrap_or_else(|| job.path.clone())
}

/// Why a job has no unit.
enum Failed {
    /// It could not be read, parsed or lowered: the message, the files its
    /// parses read, and whether they are all it reads (`UnitError::files_read`).
    Load { message: String, files: Vec<PathBuf>, complete: bool },
    /// The supervisor took it out of the batch (it crashed or hung clang): the message.
    Isolated(String),
}

/// Reads, parses and lowers one job.
fn load_job(bench: &Workbench, job: &Job, options: &MigrateOptions) -> Result<Unit, crate::front::unit::UnitError> {
    match (&job.embedded, job.program.as_ref().and_then(|p| p.prepared.as_ref())) {
        (Some(embedded), _) => bench.load_embedded(embedded, &job.compile, options.target),
        (None, Some(program)) => bench.load_program(program, &job.compile, options.target),
        (None, None) => bench.load(&job.path, &job.compile, options.target),
    }
}

/// Every unit file's canonical path, interned once for the batch (ids in path
/// order, as keys were ordered by path); each unit learns its files' ids.
fn intern_files(units: &mut [Unit]) -> Files {
    let paths: BTreeSet<PathBuf> = units.iter().flat_map(|u| u.canonical_paths().map(Path::to_path_buf)).collect();
    let files = Files::new(paths);
    for unit in units.iter_mut() {
        unit.intern(&files);
    }
    files
}

/// Code `#if` skips in one unit but another unit of the batch compiles (the
/// same file in another configuration, a header another program includes
/// with other macros, a source two `[[program]]`s or host programs share) is
/// not unknown: the unit compiling it analyses it, and units agree on shared
/// declarations. Only ranges every unit reading that code skips stay skipped
/// (so `skipped-if` means no unit compiles it). Units are compared in the
/// real files (`Unit::origin`): a program's virtual text is its sources'.
fn skipped_only_where_no_unit_compiles(units: &mut [Unit]) {
    type Ranges = Vec<std::ops::Range<u32>>;
    // Per real file, per unit reading it: the range of it the unit reads, and those it skips.
    let mut readers: BTreeMap<PathBuf, Vec<(std::ops::Range<u32>, Ranges)>> = BTreeMap::new();
    for unit in units.iter() {
        for id in 0..unit.syntax.files.len() {
            for (file, read) in unit.origins_of(id) {
                let skipped = unit.syntax.skipped.iter().filter(|s| s.range.file == id);
                let here = skipped.filter_map(|s| unit.origin(id, s.range.start..s.range.end)).filter(|(f, _)| *f == file);
                let skipped_here: Ranges =
                    here.map(|(_, range)| range).filter(|r| read.start <= r.start && r.end <= read.end).collect();
                readers.entry(file.to_path_buf()).or_default().push((read, skipped_here));
            }
        }
    }
    let covered = |ranges: &Ranges, r: &std::ops::Range<u32>| ranges.iter().any(|a| a.start <= r.start && r.end <= a.end);
    for unit in units.iter_mut() {
        let keep: Vec<bool> = unit
            .syntax
            .skipped
            .iter()
            .map(|s| match unit.origin(s.range.file, s.range.start..s.range.end) {
                // Skipped where every unit reading these bytes skips them.
                Some((file, r)) => readers[file]
                    .iter()
                    .filter(|(read, _)| read.start <= r.start && r.end <= read.end)
                    .all(|(_, skipped)| covered(skipped, &r)),
                None => true,
            })
            .collect();
        let mut keep = keep.into_iter();
        unit.syntax.skipped.retain(|_| keep.next().unwrap_or(true));
    }
}
