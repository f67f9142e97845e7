//! Settling: which change sets stand after verification.
//!
//! Each unit is checked with every change set it touches: the result must
//! compile as the target, and its kernels must be equivalent to the
//! original's. When a unit fails, the sets responsible are found by
//! bisection (a half that passes is kept, a half that fails is split again;
//! a single set that fails is withdrawn with the reason), so one wrong
//! decision costs its own set, not the unit. The sets a unit *requires*
//! (2.0 rejects the unit without them) are all-or-nothing: if they fail,
//! or one of them is withdrawn elsewhere, the unit cannot be repaired and
//! keeps nothing. A set withdrawn in one unit is withdrawn in every unit
//! touching it, so those units are checked again, until nothing changes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use super::plan::{apply, Plan, SetId};
use super::{
    FileError, MigrateOptions, Warning, NOT_EQUIVALENT, OUTSIDE_ROOT, OVERLAPPING_EDITS, UNREPAIRABLE_UNIT, VERIFY_FAILED,
};
use crate::lower::Context;
use crate::unit::Unit;
use crate::verify::{FlatRegression, KernelBody, EQUIVALENCE_TRIPLE};

/// Why a change set was withdrawn.
#[derive(Debug, Clone)]
pub struct Withdrawal {
    pub reason: &'static str,
    pub detail: String,
}

/// A failed check: why, and which kernels compared different (none for a compile failure).
#[derive(Debug, Clone)]
struct Failure {
    why: Withdrawal,
    differing: BTreeSet<String>,
}

impl From<Withdrawal> for Failure {
    fn from(why: Withdrawal) -> Failure {
        Failure { why, differing: BTreeSet::new() }
    }
}

/// What a passing check leaves to report about the changes it kept.
#[derive(Debug, Clone, Default)]
struct Passed {
    flat_regressions: Vec<FlatRegression>,
    /// Kept with `--allow-unverified` although not proven equivalent: why.
    unverified: Option<String>,
}

/// The outcome of settling.
#[derive(Debug, Default)]
pub struct Settled {
    pub withdrawn: BTreeMap<SetId, Withdrawal>,
    /// Sets kept without proof of equivalence.
    pub unverified: BTreeSet<SetId>,
    pub errors: Vec<FileError>,
    pub warnings: Vec<Warning>,
}

impl Settled {
    pub fn kept(&self, id: SetId) -> bool {
        !self.withdrawn.contains_key(&id)
    }
}

/// Checks already made, kept across rounds of planning (see `Checker::check`).
#[derive(Default)]
pub struct Memo {
    /// (unit, hash of the kernels compared and the texts checked) -> the check's result.
    results: std::sync::Mutex<HashMap<(usize, u64), Result<Passed, Failure>>>,
    /// (unit, kernels compared) -> what they were compared with.
    baselines: std::sync::Mutex<HashMap<(usize, BTreeSet<String>), Original>>,
}

/// What checking a unit needs; shared by the worker threads of the first pass.
struct Checker<'a> {
    memo: &'a Memo,
    units: &'a [Unit],
    plan: &'a Plan,
    options: &'a MigrateOptions,
    /// Per unit (its own options: a configuration's): clang arguments as the target, for spir64 and for the equivalence triple.
    target_args: Vec<Vec<String>>,
    result_args: Vec<Vec<String>>,
    /// Per unit: its files' canonical paths.
    files: Vec<BTreeSet<PathBuf>>,
    /// Per unit: the kernels that run a function any of its sets changes (the others cannot differ).
    kernels: Vec<BTreeSet<String>>,
}

/// What a unit's results are compared with, compiled once (when verification first needs it).
type Original = Option<Result<Baseline, String>>;

/// The kernels results are compared with.
#[derive(Debug, Clone)]
struct Baseline {
    /// Shared: the memo and the settler hold the same baseline, and every check clones it.
    kernels: std::sync::Arc<Vec<KernelBody>>,
    /// The unit does not compile unchanged as the target: these are the kernels of the
    /// unit with its required repairs applied (compiled as the target), so the other
    /// changes are proven against them, and the repairs on their own (`prove_repairs`).
    repaired: bool,
    /// Neither the original nor its repairs compile as the target: clang's error.
    /// No change can make the unit compile as the target; it is an error.
    uncompilable: Option<String>,
}

/// A check of some of a unit's sets, and what it found.
type Checked = (BTreeSet<SetId>, Result<Passed, Failure>);

struct Settler<'a> {
    checker: Checker<'a>,
    /// Per unit: the original's canonical kernels.
    originals: Vec<Original>,
    /// Per unit: the first pass's check of all its sets, done in parallel.
    prefetched: Vec<Option<Checked>>,
    /// Per unit: the sets last found to pass together, and what that check found.
    settled: Vec<Option<(BTreeSet<SetId>, Passed)>>,
    /// Units that cannot be repaired: they keep nothing.
    failed: BTreeSet<usize>,
    /// Units to check (again).
    pending: BTreeSet<usize>,
    out: Settled,
}

/// Checks every unit, withdrawing what fails, until every unit passes with the sets that remain.
pub fn settle(pool: &rayon::ThreadPool, units: &[Unit], plan: &Plan, options: &MigrateOptions, memo: &Memo) -> Settled {
    let target_flags = options.target.std_flags();
    let checker = Checker {
        memo,
        units,
        plan,
        options,
        target_args: units.iter().map(|u| u.compile.clang_args(Some(&target_flags))).collect(),
        result_args: units.iter().map(|u| u.compile.clang_args_for(Some(&target_flags), EQUIVALENCE_TRIPLE)).collect(),
        files: units.iter().map(|u| (0..u.syntax.files.len()).map(|id| u.canonical(id).to_path_buf()).collect()).collect(),
        kernels: units
            .iter()
            .zip(&plan.unit_sets)
            .map(|(unit, sets)| {
                let changed = sets.iter().flat_map(|id| plan.sets[*id].link_names()).collect();
                unit.ir.kernels_reaching(&changed)
            })
            .collect(),
    };
    let mut settler = Settler {
        checker,
        originals: vec![None; units.len()],
        prefetched: vec![None; units.len()],
        settled: vec![None; units.len()],
        failed: BTreeSet::new(),
        pending: (0..units.len()).collect(),
        out: Settled::default(),
    };
    // A prototype outside the edit root cannot change with its definition: the set stays.
    for (id, file) in &plan.outside_root {
        let detail = format!("it would edit {}, outside the edit root", file.display());
        settler.out.withdrawn.insert(*id, Withdrawal { reason: OUTSIDE_ROOT, detail });
    }
    for (u, blocking) in plan.blocking.iter().enumerate() {
        if !blocking.is_empty() {
            let lines: Vec<String> = blocking
                .iter()
                .map(|r| {
                    format!(
                        "{}:{}: error: `{}` of `{}`: {} ({})",
                        r.file.display(),
                        r.line,
                        r.name,
                        r.function,
                        r.detail,
                        r.reason
                    )
                })
                .collect();
            settler.unrepairable(u, &lines.join("\n"));
        }
    }
    settler.first_pass(pool);
    while let Some(u) = settler.pending.pop_first() {
        if !settler.failed.contains(&u) {
            settler.settle_unit(u);
        }
    }
    settler.report_kept();
    settler.out
}

impl Settler<'_> {
    fn candidates(&self, u: usize) -> BTreeSet<SetId> {
        self.checker.plan.unit_sets[u].iter().copied().filter(|id| self.out.kept(*id)).collect()
    }

    /// Every unit's first check (all its sets), in parallel: most units pass it, and it is
    /// most of the time spent.
    fn first_pass(&mut self, pool: &rayon::ThreadPool) {
        use rayon::prelude::*;
        let work: Vec<(usize, BTreeSet<SetId>)> = (0..self.checker.units.len())
            .filter(|u| !self.failed.contains(u))
            .map(|u| (u, self.candidates(u)))
            .filter(|(_, sets)| !sets.is_empty())
            .collect();
        let checker = &self.checker;
        let progress = &checker.options.progress;
        progress.stage("verifying", work.len());
        let done: Vec<(usize, Original, Checked)> = pool.install(|| {
            work.into_par_iter()
                .map(|(u, sets)| {
                    // A context per check: a context keeps every constant and type
                    // it ever made, so one per worker would grow with the batch.
                    let context = Context::create();
                    let mut original = None;
                    let result = checker.check(&context, u, &mut original, &sets);
                    let note = format!("{} planned changes, ", checker.plan.sets.len());
                    progress.done(&checker.units[u].path, &note);
                    (u, original, (sets, result))
                })
                .collect()
        });
        for (u, original, checked) in done {
            self.originals[u] = original;
            self.prefetched[u] = Some(checked);
        }
    }

    /// Checks unit `u` with `sets`, using the first pass's result when it checked the same.
    fn check(&mut self, u: usize, sets: &BTreeSet<SetId>) -> Result<Passed, Failure> {
        if let Some((prefetched, result)) = self.prefetched[u].take() {
            if &prefetched == sets {
                return result;
            }
        }
        self.checker.check(&Context::create(), u, &mut self.originals[u], sets)
    }

    fn settle_unit(&mut self, u: usize) {
        let candidates = self.candidates(u);
        if candidates.is_empty() || self.settled[u].as_ref().map(|(s, _)| s) == Some(&candidates) {
            return;
        }
        if let Some(gone) = self.checker.plan.required[u].iter().find(|id| !candidates.contains(id)) {
            let why = &self.out.withdrawn[gone];
            let detail =
                format!("a change it requires ({}) was withdrawn: {}", self.checker.plan.sets[*gone].functions(), why.detail);
            self.unrepairable(u, &detail);
            return;
        }
        let first_failure = match self.check(u, &candidates) {
            Ok(passed) => {
                self.settled[u] = Some((candidates, passed));
                return;
            }
            Err(failure) => failure,
        };
        if first_failure.why.reason == UNREPAIRABLE_UNIT {
            self.unrepairable(u, &first_failure.why.detail);
            return;
        }
        let Some((mut keep, mut last)) = self.repairs_alone(u, &candidates, &first_failure) else { return };
        let suspects: Vec<SetId> = candidates.difference(&keep).copied().collect();
        let suspects = self.clear_unrelated(u, &mut keep, &mut last, suspects, &first_failure);
        if suspects.len() == 1 {
            self.withdraw(u, suspects[0], first_failure.why);
        } else {
            let (a, b) = suspects.split_at(suspects.len() / 2);
            self.bisect(u, &mut keep, &mut last, a);
            self.bisect(u, &mut keep, &mut last, b);
        }
        self.settled[u] = Some((keep, last));
    }

    /// After a failed check of all of unit `u`'s sets: its required sets, checked on
    /// their own (all-or-nothing: if they fail, the unit is unrepairable and `None`).
    fn repairs_alone(&mut self, u: usize, candidates: &BTreeSet<SetId>, failure: &Failure) -> Option<(BTreeSet<SetId>, Passed)> {
        let required = self.checker.plan.required[u].clone();
        if &required == candidates {
            self.unrepairable(u, &format!("its required changes fail verification: {}", failure.why.detail));
            return None;
        }
        if required.is_empty() {
            return Some((required, Passed::default()));
        }
        match self.check(u, &required) {
            Ok(passed) => Some((required, passed)),
            Err(failure) => {
                self.unrepairable(u, &format!("its required changes fail verification: {}", failure.why.detail));
                None
            }
        }
    }

    /// When kernels compared different, only the sets that reach one of them can be
    /// responsible: the others are tried together first (kept if they pass), and the
    /// sets left to bisect are returned.
    fn clear_unrelated(
        &mut self,
        u: usize,
        keep: &mut BTreeSet<SetId>,
        last: &mut Passed,
        suspects: Vec<SetId>,
        failure: &Failure,
    ) -> Vec<SetId> {
        if failure.differing.is_empty() {
            return suspects;
        }
        let (reaching, unrelated): (Vec<SetId>, Vec<SetId>) =
            suspects.iter().partition(|id| !self.checker.kernels_of_set(u, **id).is_disjoint(&failure.differing));
        if unrelated.is_empty() || reaching.is_empty() {
            return suspects;
        }
        self.bisect(u, keep, last, &unrelated);
        reaching
    }

    /// Keeps `trial` if it passes with `keep`; else splits it, down to single sets, which are withdrawn.
    fn bisect(&mut self, u: usize, keep: &mut BTreeSet<SetId>, last: &mut Passed, trial: &[SetId]) {
        if trial.is_empty() {
            return;
        }
        let with: BTreeSet<SetId> = keep.iter().chain(trial).copied().collect();
        let failure = match self.check(u, &with) {
            Ok(passed) => {
                *keep = with;
                *last = passed;
                return;
            }
            Err(failure) => failure,
        };
        if trial.len() == 1 {
            self.withdraw(u, trial[0], failure.why);
            return;
        }
        let (a, b) = trial.split_at(trial.len() / 2);
        self.bisect(u, keep, last, a);
        self.bisect(u, keep, last, b);
    }

    /// Withdraws set `id` everywhere, found failing in unit `u`; the other units touching it are checked again.
    fn withdraw(&mut self, u: usize, id: SetId, why: Withdrawal) {
        if self.out.withdrawn.contains_key(&id) {
            return;
        }
        let path = self.checker.units[u].path.clone();
        let message = format!("change withdrawn ({}): {}: {}", why.reason, self.checker.plan.sets[id].functions(), why.detail);
        self.out.warnings.push(Warning { path, message });
        self.out.withdrawn.insert(id, why);
        self.recheck_units_touching(id, u);
    }

    /// Every unit but `except` that touches set `id` is checked again (the set was withdrawn).
    fn recheck_units_touching(&mut self, id: SetId, except: usize) {
        for (other, sets) in self.checker.plan.unit_sets.iter().enumerate() {
            if other != except && sets.contains(&id) {
                self.pending.insert(other);
            }
        }
    }

    /// Unit `u` cannot compile as the target: an error, and none of its sets stand.
    fn unrepairable(&mut self, u: usize, detail: &str) {
        if !self.failed.insert(u) {
            return;
        }
        let unit = &self.checker.units[u];
        let target = self.checker.options.target.name();
        let message = format!("{}: error: cannot make this file compile as {target}, left unchanged:\n{detail}", unit.label());
        self.out.errors.push(FileError { path: unit.path.clone(), message });
        let why = Withdrawal { reason: UNREPAIRABLE_UNIT, detail: format!("{} cannot compile as {target}", unit.label()) };
        self.settled[u] = None;
        let sets: Vec<SetId> = self.checker.plan.unit_sets[u].iter().copied().collect();
        for id in sets {
            if self.out.kept(id) {
                self.out.withdrawn.insert(id, why.clone());
                self.recheck_units_touching(id, u);
            }
        }
    }

    /// Warnings about what is kept: flat-access regressions, changes kept unverified.
    fn report_kept(&mut self) {
        self.prove_kept_repairs();
        for (u, settled) in self.settled.iter().enumerate() {
            let Some((sets, passed)) = settled else { continue };
            if sets.is_empty() || self.failed.contains(&u) {
                continue;
            }
            let path = &self.checker.units[u].path;
            for flat in &passed.flat_regressions {
                self.out.warnings.push(Warning {
                    path: path.clone(),
                    message: format!(
                        "kernel `{}` has {} flat (generic) memory accesses after migration, {} before: slower on GPUs",
                        flat.kernel, flat.after, flat.before
                    ),
                });
            }
            if let Some(detail) = &passed.unverified {
                self.out.warnings.push(Warning { path: path.clone(), message: format!("kept unverified: {detail}") });
                self.out.unverified.extend(sets.iter().copied());
            }
        }
    }
}

impl Settler<'_> {
    /// Units that compile as the target only with their repairs were verified against
    /// the repaired unit; the repairs themselves are compared with the original as it
    /// was read. They are kept whatever that finds (without them the unit does not
    /// compile as the target at all), marked unverified with the reason when it differs.
    fn prove_kept_repairs(&mut self) {
        for u in 0..self.checker.units.len() {
            let required = &self.checker.plan.required[u];
            let Some(Some(Ok(baseline))) = self.originals.get(u) else { continue };
            let kept = self.settled[u].as_ref().is_some_and(|(sets, _)| !sets.is_empty() && required.is_subset(sets));
            if !baseline.repaired || !kept || self.failed.contains(&u) {
                continue;
            }
            if let Some(why) = self.checker.prove_repairs(&Context::create(), u, baseline) {
                let path = self.checker.units[u].path.clone();
                self.out.warnings.push(Warning { path, message: format!("repairs kept unverified: {why}") });
                self.out.unverified.extend(required.iter().copied());
            }
        }
    }
}

impl Checker<'_> {
    /// What unit `u`'s results are compared with: the original compiled as the target
    /// when it compiles so (the same preprocessor view: code under `#if
    /// __OPENCL_C_VERSION__` is the same on both sides, so only the edits can differ);
    /// else, for a unit that needs repairs, the unit with its required repairs applied,
    /// compiled as the target; else the original as it was read.
    fn baseline(&self, context: &Context, u: usize) -> Result<Baseline, String> {
        let unit = &self.units[u];
        let only = Some(&self.kernels[u]);
        let none = BTreeMap::new();
        let as_target = |replaced: &BTreeMap<PathBuf, Vec<u8>>| {
            crate::verify::optimised_kernels(context, &unit.path, &self.result_args[u], replaced, only)
        };
        let mut target_error = match as_target(&none) {
            Ok(kernels) => return Ok(Baseline { kernels: kernels.into(), repaired: false, uncompilable: None }),
            Err(message) => message,
        };
        let required = &self.plan.required[u];
        if !required.is_empty() {
            match apply(self.plan, required, &self.files[u]).and_then(|repaired| as_target(&repaired)) {
                Ok(kernels) => return Ok(Baseline { kernels: kernels.into(), repaired: true, uncompilable: None }),
                Err(message) => target_error = message,
            }
        }
        let as_read = unit.compile.clang_args_for(Some(&unit.standard.flags), EQUIVALENCE_TRIPLE);
        let kernels = crate::verify::optimised_kernels(context, &unit.path, &as_read, &none, only)?;
        // The original compiles for the triple as it was read, not as the target: the
        // target is what is missing (had the triple been, the as-read compile would fail too).
        Ok(Baseline { kernels: kernels.into(), repaired: false, uncompilable: Some(target_error) })
    }

    /// For a unit whose baseline is repaired: are the repairs alone equivalent to the
    /// original as it was read? `Some(why not)` when they cannot be proven (the 1.x
    /// build differs in more than the edits: an unqualified pointer stored in memory
    /// is private and 4 bytes there, generic and 8 bytes under 2.0).
    fn prove_repairs(&self, context: &Context, u: usize, baseline: &Baseline) -> Option<String> {
        let unit = &self.units[u];
        let only = Some(&self.kernels[u]);
        let as_read = unit.compile.clang_args_for(Some(&unit.standard.flags), EQUIVALENCE_TRIPLE);
        let found = crate::verify::optimised_kernels(context, &unit.path, &as_read, &BTreeMap::new(), only)
            .map(|original| crate::verify::compare(&original, &baseline.kernels));
        match found {
            Ok(found) => found.different.first().map(|d| {
                format!(
                    "kernel `{}` is not equivalent to its {} build at {}: `{}` became `{}`",
                    d.kernel,
                    unit.standard.std.name(),
                    EQUIVALENCE_TRIPLE,
                    d.original,
                    d.migrated
                )
            }),
            Err(message) => Some(format!("cannot compare kernels with the {} build: {message}", unit.standard.std.name())),
        }
    }

    /// The kernels of unit `u` that run a function set `id` changes.
    fn kernels_of_set(&self, u: usize, id: SetId) -> BTreeSet<String> {
        let changed = self.plan.sets[id].link_names();
        self.units[u].ir.kernels_reaching(&changed)
    }

    /// Recompiles unit `u` with `sets` applied and compares its kernels with the original's.
    /// Checks are remembered by the unit's resulting texts (and the kernels compared), so
    /// planning again (a merge withdrawn) re-verifies only the units whose result changed.
    fn check(&self, context: &Context, u: usize, original: &mut Original, sets: &BTreeSet<SetId>) -> Result<Passed, Failure> {
        let replaced = apply(self.plan, sets, &self.files[u])
            .map_err(|detail| Failure::from(Withdrawal { reason: OVERLAPPING_EDITS, detail }))?;
        if !self.options.verify {
            return Ok(Passed::default());
        }
        let baseline_key = (u, self.kernels[u].clone());
        if original.is_none() {
            *original = self.memo.baselines.lock().ok().and_then(|b| b.get(&baseline_key).cloned()).flatten();
        }
        let key = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (&self.kernels[u], &replaced).hash(&mut hasher);
            (u, hasher.finish())
        };
        if let Some(known) = self.memo.results.lock().ok().and_then(|r| r.get(&key).cloned()) {
            return known;
        }
        let result = self.check_replaced(context, u, original, &replaced);
        if let (Some(baseline), Ok(mut baselines)) = (original.as_ref(), self.memo.baselines.lock()) {
            baselines.entry(baseline_key).or_insert_with(|| Some(baseline.clone()));
        }
        if let Ok(mut results) = self.memo.results.lock() {
            results.insert(key, result.clone());
        }
        result
    }

    fn check_replaced(
        &self,
        context: &Context,
        u: usize,
        original: &mut Original,
        replaced: &BTreeMap<PathBuf, Vec<u8>>,
    ) -> Result<Passed, Failure> {
        let unit = &self.units[u];
        let target = self.options.target.name();
        let verify_failed = |message: String| {
            Failure::from(Withdrawal {
                reason: VERIFY_FAILED,
                detail: format!("the result does not compile as {target}: {message}"),
            })
        };
        let only = Some(&self.kernels[u]);
        let original = original.get_or_insert_with(|| self.baseline(context, u)).clone();
        if let Ok(Baseline { uncompilable: Some(message), .. }) = &original {
            let detail = format!("it does not compile as {target}, and clasp found no repair that makes it: {message}");
            return Err(Failure { why: Withdrawal { reason: UNREPAIRABLE_UNIT, detail }, differing: BTreeSet::new() });
        }
        let compared = match original {
            // Compiling the result as the target for the equivalence triple is the recompile too:
            // clang rejects it there as it would for spir64 (the same language rules).
            Ok(before) => {
                let after = crate::verify::optimised_kernels(context, &unit.path, &self.result_args[u], replaced, only)
                    .map_err(verify_failed)?;
                Ok(crate::verify::compare(&before.kernels, &after))
            }
            // Nothing to compare with (the original does not compile for the equivalence
            // triple): the recompile as the target (spir64) is all the proof there is.
            Err(message) => {
                crate::verify::compiles(&unit.path, &self.target_args[u], replaced).map_err(verify_failed)?;
                Err(message)
            }
        };
        let difference = match &compared {
            Ok(found) => found.different.first().map(|d| {
                format!(
                    "kernel `{}` is not equivalent at {}: `{}` became `{}`",
                    d.kernel, EQUIVALENCE_TRIPLE, d.original, d.migrated
                )
            }),
            Err(message) => Some(format!("cannot compare kernels at {EQUIVALENCE_TRIPLE} -O2: {message}")),
        };
        let (flat_regressions, differing) = match compared {
            Ok(found) => (found.flat_regressions, found.different.into_iter().map(|d| d.kernel).collect()),
            Err(_) => (Vec::new(), BTreeSet::new()),
        };
        match difference {
            None => Ok(Passed { flat_regressions, unverified: None }),
            Some(detail) if self.options.allow_unverified => Ok(Passed { flat_regressions, unverified: Some(detail) }),
            Some(detail) => Err(Failure { why: Withdrawal { reason: NOT_EQUIVALENT, detail }, differing }),
        }
    }
}
