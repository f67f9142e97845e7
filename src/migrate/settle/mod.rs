//! Settling: which change sets stand after verification.
//!
//! Each unit is checked with every change set it touches: the result must
//! compile as the target, and its kernels must be equivalent to the
//! original's. When a unit fails, the sets responsible are found by
//! bisection (a half that passes is kept, a half that fails is split again;
//! a single set that fails is withdrawn with the reason), so one wrong
//! decision costs its own set, not the unit. Before bisecting, what the
//! failed check knows narrows the suspects: sets reaching no kernel that
//! differs, then sets whose changed functions were all proven on their
//! own, are tried together first; sets changing a function whose own proof
//! failed are then checked one by one (in a megakernel each check costs a
//! whole-kernel comparison, and those are the sets that fail). The sets a unit *requires*
//! (2.0 rejects the unit without them) are all-or-nothing: if they fail,
//! or one of them is withdrawn elsewhere, the unit cannot be repaired and
//! keeps nothing. A set withdrawn in one unit is withdrawn in every unit
//! touching it, so those units are checked again, until nothing changes.

use std::collections::{BTreeMap, BTreeSet};

mod check;
mod left_out;
mod stored;
mod unrepairable;

use super::plan::{Plan, SetId};
use super::{FileError, MigrateOptions, Warning};
use crate::codes::Code;
use crate::front::lower::Context;
use crate::front::unit::Unit;
use crate::support::ids::UnitId;
pub use check::Memo;
use check::{Baseline, Checked, Checker, Failure, Original, Passed};
use unrepairable::Cause;

/// Why a change set was withdrawn.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Withdrawal {
    pub reason: Code,
    pub detail: String,
}

/// The outcome of settling.
#[derive(Debug, Default)]
pub struct Settled {
    pub withdrawn: BTreeMap<SetId, Withdrawal>,
    /// Sets kept without proof of equivalence.
    pub unverified: BTreeSet<SetId>,
    pub errors: Vec<FileError>,
    pub warnings: Vec<Warning>,
    /// How each unit keeping changes was proven equivalent.
    pub proofs: Vec<crate::migrate::report::UnitProof>,
    /// Kernels of units keeping changes with more generic accesses than the original's.
    pub residual_generic: Vec<crate::migrate::report::ResidualGeneric>,
}

impl Settled {
    pub fn kept(&self, id: SetId) -> bool {
        !self.withdrawn.contains_key(&id)
    }
}

struct Settler<'a> {
    checker: Checker<'a>,
    /// Per unit: the original's canonical kernels.
    originals: Vec<Original>,
    /// Per unit: the first pass's check of all its sets, done in parallel.
    prefetched: Vec<Option<Checked>>,
    /// Per unit: the sets last found to pass together, and what that check found.
    settled: Vec<Option<(BTreeSet<SetId>, Passed)>>,
    /// Units that cannot be repaired: they keep nothing.
    failed: BTreeSet<UnitId>,
    /// Units to check (again).
    pending: BTreeSet<UnitId>,
    out: Settled,
}

/// Checks every unit, withdrawing what fails, until every unit passes with the sets that remain.
pub fn settle(pool: &rayon::ThreadPool, units: &[Unit], plan: &Plan, options: &MigrateOptions, memo: &Memo) -> Settled {
    let mut settler = Settler {
        checker: Checker::new(units, plan, options, memo),
        originals: vec![None; units.len()],
        prefetched: vec![None; units.len()],
        settled: vec![None; units.len()],
        failed: BTreeSet::new(),
        pending: UnitId::all(units.len()).filter(|u| in_shard(options, *u)).collect(),
        out: Settled::default(),
    };
    for (id, (reason, detail)) in &plan.withheld {
        settler.out.withdrawn.insert(*id, Withdrawal { reason: *reason, detail: detail.clone() });
    }
    settler.refuse_blocked_units();
    settler.first_pass(pool);
    while let Some(u) = settler.pending.pop_first() {
        if !settler.failed.contains(&u) {
            settler.settle_unit(u);
        }
    }
    settler.report_kept();
    settler.out
}

/// Whether this run checks unit `u`: every unit, or a shard's own (`--shard`),
/// whose verdicts the store keeps for the final run.
fn in_shard(options: &MigrateOptions, u: UnitId) -> bool {
    options.shard.is_none_or(|shard| shard.owns(u.0))
}

impl Settler<'_> {
    /// A unit with a declaration that keeps it from compiling as the target
    /// whatever changes cannot be repaired: it keeps nothing.
    fn refuse_blocked_units(&mut self) {
        for (u, blocking) in UnitId::enumerate(&self.checker.plan.blocking) {
            if blocking.is_empty() {
                continue;
            }
            let causes: Vec<Cause> = blocking.iter().map(Cause::blocking).collect();
            self.unrepairable(u, causes);
        }
    }

    fn candidates(&self, u: UnitId) -> BTreeSet<SetId> {
        self.checker.plan.unit_sets[u].iter().copied().filter(|id| self.out.kept(*id)).collect()
    }

    /// Every unit's first check (all its sets), in parallel: most units pass it, and it is
    /// most of the time spent.
    fn first_pass(&mut self, pool: &rayon::ThreadPool) {
        use rayon::prelude::*;
        let work: Vec<(UnitId, BTreeSet<SetId>)> = (self.pending.iter().copied())
            .filter(|u| !self.failed.contains(u))
            .map(|u| (u, self.candidates(u)))
            .filter(|(_, sets)| !sets.is_empty())
            .collect();
        let checker = &self.checker;
        let progress = &checker.options.progress;
        progress.stage("verifying", work.len());
        let done: Vec<(UnitId, Original, Checked)> = pool.install(|| {
            work.into_par_iter()
                .map(|(u, sets)| {
                    // A context per check: a context keeps every constant and type
                    // it ever made, so one per worker would grow with the batch.
                    let context = Context::create();
                    let mut original = None;
                    let label = checker.units[u].label();
                    let result = crate::isolation::for_unit(&label, || checker.check(&context, u, &mut original, &sets));
                    // Dropped here, not with the pass's results: every unit's would be held at once.
                    let original = original.filter(|baseline| Baseline::still_needed(baseline, &result));
                    drop(context);
                    crate::front::lower::release_freed_memory();
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
    fn check(&mut self, u: UnitId, sets: &BTreeSet<SetId>) -> Result<Passed, Failure> {
        if let Some((prefetched, result)) = self.prefetched[u].take() {
            if &prefetched == sets {
                return result;
            }
        }
        self.checker.check(&Context::create(), u, &mut self.originals[u], sets)
    }

    fn settle_unit(&mut self, u: UnitId) {
        let label = self.checker.units[u].label();
        crate::isolation::for_unit(&label, || self.settle_unit_alone(u));
    }

    fn settle_unit_alone(&mut self, u: UnitId) {
        let candidates = self.candidates(u);
        if candidates.is_empty() || self.settled[u].as_ref().map(|(s, _)| s) == Some(&candidates) {
            return;
        }
        if let Some(gone) = self.checker.plan.required[u].iter().find(|id| !candidates.contains(id)) {
            let why = &self.out.withdrawn[gone];
            let detail =
                format!("a change it requires ({}) was withdrawn: {}", self.checker.plan.sets[*gone].functions(), why.detail);
            self.unrepairable(u, vec![Cause::detail(&detail)]);
            return;
        }
        let first_failure = match self.check(u, &candidates) {
            Ok(passed) => {
                self.settled[u] = Some((candidates, passed));
                return;
            }
            Err(failure) => failure,
        };
        if first_failure.why.reason == Code::UnrepairableUnit {
            self.unrepairable(u, vec![Cause::detail(&first_failure.why.detail)]);
            return;
        }
        let Some((mut keep, mut last)) = self.repairs_alone(u, &candidates, &first_failure) else { return };
        let mut suspects: Vec<SetId> = candidates.difference(&keep).copied().collect();
        // Sets that reach no differing kernel, then sets whose changed
        // functions were all proven on their own, are tried together first.
        let unrelated = |id: SetId| self.checker.kernels_of_set(u, id).is_disjoint(&first_failure.differing);
        let innocent: Vec<bool> = suspects.iter().map(|id| !first_failure.differing.is_empty() && unrelated(*id)).collect();
        suspects = self.clear_first(u, &mut keep, &mut last, suspects, &innocent);
        let innocent: Vec<bool> = suspects.iter().map(|id| self.proven_alone(*id, &first_failure)).collect();
        let proofs_told = innocent.iter().any(|i| *i);
        suspects = self.clear_first(u, &mut keep, &mut last, suspects, &innocent);
        let all_but_one_passed = suspects.len() == 1 && keep.len() + 1 == candidates.len();
        if all_but_one_passed {
            self.withdraw(u, suspects[0], first_failure.why);
        } else if proofs_told {
            // Each left changes a function whose own proof failed: most
            // fail, and one check each costs less than bisecting them.
            for id in suspects {
                self.bisect(u, &mut keep, &mut last, &[id]);
            }
        } else {
            let (a, b) = suspects.split_at(suspects.len() / 2);
            self.bisect(u, &mut keep, &mut last, a);
            self.bisect(u, &mut keep, &mut last, b);
        }
        self.settled[u] = Some((keep, last));
    }

    /// Whether every function set `id` changes was proven on its own in
    /// the check that failed (a set changing program-scope data never is).
    fn proven_alone(&self, id: SetId, failure: &Failure) -> bool {
        let set = &self.checker.plan.sets[id];
        !failure.proven_alone.is_empty()
            && !set.changes_program_scope_data()
            && set.link_names().iter().all(|name| failure.proven_alone.contains(name))
    }

    /// After a failed check of all of unit `u`'s sets: its required sets, checked on
    /// their own (all-or-nothing: if they fail, the unit is unrepairable and `None`).
    fn repairs_alone(&mut self, u: UnitId, candidates: &BTreeSet<SetId>, failure: &Failure) -> Option<(BTreeSet<SetId>, Passed)> {
        let required = self.checker.plan.required[u].clone();
        if &required == candidates {
            self.unrepairable(u, vec![Cause::detail(&format!("its required changes fail verification: {}", failure.why.detail))]);
            return None;
        }
        if required.is_empty() {
            return Some((required, Passed::default()));
        }
        match self.check(u, &required) {
            Ok(passed) => Some((required, passed)),
            Err(failure) => {
                self.unrepairable(
                    u,
                    vec![Cause::detail(&format!("its required changes fail verification: {}", failure.why.detail))],
                );
                None
            }
        }
    }

    /// The `suspects` marked `innocent` (the least likely cause of a
    /// failure) are tried together first, kept if they pass, bisected if
    /// not; the others are returned. Nothing is tried when all or none are.
    fn clear_first(
        &mut self,
        u: UnitId,
        keep: &mut BTreeSet<SetId>,
        last: &mut Passed,
        suspects: Vec<SetId>,
        innocent: &[bool],
    ) -> Vec<SetId> {
        let cleared: Vec<SetId> = suspects.iter().zip(innocent).filter(|(_, i)| **i).map(|(id, _)| *id).collect();
        if cleared.is_empty() || cleared.len() == suspects.len() {
            return suspects;
        }
        self.bisect(u, keep, last, &cleared);
        suspects.into_iter().zip(innocent).filter(|(_, i)| !**i).map(|(id, _)| id).collect()
    }

    /// Keeps `trial` if it passes with `keep`; else splits it, down to single sets, which are withdrawn.
    fn bisect(&mut self, u: UnitId, keep: &mut BTreeSet<SetId>, last: &mut Passed, trial: &[SetId]) {
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
    fn withdraw(&mut self, u: UnitId, id: SetId, why: Withdrawal) {
        if self.out.withdrawn.contains_key(&id) {
            return;
        }
        let path = self.checker.units[u].path.clone();
        let message = format!("change withdrawn ({}): {}: {}", why.reason, self.checker.plan.sets[id].functions(), why.detail);
        self.out.warnings.push(Warning::new(path, message));
        self.out.withdrawn.insert(id, why);
        self.recheck_units_touching(id, u);
    }

    /// Every unit but `except` that touches set `id` is checked again (the set was withdrawn).
    fn recheck_units_touching(&mut self, id: SetId, except: UnitId) {
        for (other, sets) in UnitId::enumerate(&self.checker.plan.unit_sets) {
            if other != except && sets.contains(&id) && in_shard(self.checker.options, other) {
                self.pending.insert(other);
            }
        }
    }

    /// Unit `u` cannot compile as the target: an error, and none of its sets stand.
    fn unrepairable(&mut self, u: UnitId, causes: Vec<Cause>) {
        if !self.failed.insert(u) {
            return;
        }
        let unit = &self.checker.units[u];
        let target = self.checker.options.target.name();
        let message = unrepairable::message(unit, target, &causes);
        self.out.errors.push(FileError { path: unit.path.clone(), message });
        let why = Withdrawal { reason: Code::UnrepairableUnit, detail: format!("{} cannot compile as {target}", unit.label()) };
        self.settled[u] = None;
        let sets: Vec<SetId> = self.checker.plan.unit_sets[u].iter().copied().collect();
        for id in sets {
            if self.out.kept(id) {
                self.out.withdrawn.insert(id, why.clone());
                self.recheck_units_touching(id, u);
            }
        }
    }

    /// What is said about what is kept: residual generic accesses (a
    /// warning and the lint's entry), changes kept unverified (a warning).
    fn report_kept(&mut self) {
        self.prove_kept_repairs();
        for (u, settled) in UnitId::enumerate(&self.settled) {
            let Some((sets, passed)) = settled else { continue };
            if sets.is_empty() || self.failed.contains(&u) {
                continue;
            }
            let path = &self.checker.units[u].path;
            for flat in &passed.flat_regressions {
                let message = format!(
                    "kernel `{}` has {} flat (generic) memory accesses after migration, {} before: slower on GPUs ({})",
                    flat.kernel,
                    flat.after,
                    flat.before,
                    Code::ResidualGeneric
                );
                self.out.warnings.push(Warning::new(path.clone(), message));
                self.out.residual_generic.push(residual_generic(&self.checker.units[u], flat));
            }
            if let Some(detail) = &passed.unverified {
                self.out.warnings.push(Warning::new(path.clone(), format!("kept unverified: {detail}")));
                self.out.unverified.extend(sets.iter().copied());
            }
            if let Some(method) = passed.proof {
                let (unit, functions) = (self.checker.units[u].label(), passed.proven_functions.clone());
                self.out.proofs.push(crate::migrate::report::UnitProof { unit, method, functions });
            }
        }
    }
}

/// The lint's entry for a flat regression of `unit`, placed at the kernel's definition.
fn residual_generic(unit: &Unit, flat: &crate::verify::FlatRegression) -> crate::migrate::report::ResidualGeneric {
    let defined = unit.syntax.functions.iter().find(|f| f.is_kernel && f.is_definition && f.link_name == flat.kernel);
    let (path, line, col) = match defined {
        Some(kernel) => {
            let place = unit.position(kernel.pos);
            (place.file, place.line, place.col)
        }
        None => (unit.path.clone(), 1, 1),
    };
    crate::migrate::report::ResidualGeneric {
        unit: unit.label(),
        path,
        line,
        col,
        kernel: flat.kernel.clone(),
        accesses: flat.after,
        original: flat.before,
        detail: flat.detail.clone(),
    }
}

impl Settler<'_> {
    /// Units that compile as the target only with their repairs were verified against
    /// the repaired unit; the repairs themselves are compared with the original as it
    /// was read. They are kept whatever that finds (without them the unit does not
    /// compile as the target at all), marked unverified with the reason when it differs.
    fn prove_kept_repairs(&mut self) {
        for u in UnitId::all(self.checker.units.len()) {
            let required = &self.checker.plan.required[u];
            let kept = self.settled[u].as_ref().is_some_and(|(sets, _)| !sets.is_empty() && required.is_subset(sets));
            // A baseline dropped after a pass was not repaired (`Baseline::still_needed`).
            let dropped = self.originals[u].is_none() && self.checker.options.store.is_none();
            if required.is_empty() || !kept || dropped || self.failed.contains(&u) {
                continue;
            }
            if let Some(why) = self.checker.repairs_unproven(&Context::create(), u, &mut self.originals[u]) {
                let path = self.checker.units[u].path.clone();
                self.out.warnings.push(Warning::new(path, format!("repairs kept unverified: {why}")));
                self.out.unverified.extend(required.iter().copied());
            }
        }
    }
}
