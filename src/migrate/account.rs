//! Accounting: every function definition under the edit root, once, with
//! how it ended: migrated (one of its change sets stands, and no parameter
//! naming a space generic could hold is left), partly migrated (some stand,
//! but such parameters keep their space: each listed with why), refused
//! (its change sets were withdrawn, or one of its declarations was
//! refused), or unchanged. Once means once in the real files: a definition
//! in a header several kernel files include, or in a source several
//! programs share, is one function, however many units read it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::plan::Plan;
use super::settle::Settled;
use crate::facts::syntax::{DeclKind, Function, PointerDecl, Space, Spelling};
use crate::front::unit::Unit;
use crate::migrate::report::{FunctionAccount, KeptParameter, Outcome, Refusal};
use crate::support::ids::SetId;

pub fn account(units: &[Unit], root: &Path, plan: &Plan, settled: &Settled, verify: bool) -> Vec<FunctionAccount> {
    let mut seen: BTreeSet<(PathBuf, String)> = BTreeSet::new();
    let mut out: Vec<FunctionAccount> = Vec::new();
    // A definition's origin in the real files (and its name: one macro use
    // may define several functions) -> its place in `out`.
    let mut by_origin: HashMap<(&std::ffi::OsStr, u32, String), usize> = HashMap::new();
    // (file, function) -> its refusals, in order (refusals are sorted).
    let mut refusals: HashMap<(&Path, &str), Vec<&Refusal>> = HashMap::new();
    for r in &plan.refusals {
        refusals.entry((r.canonical.as_path(), r.function.as_str())).or_default().push(r);
    }
    for unit in units {
        for function in unit.syntax.functions.iter().filter(|f| f.is_definition) {
            let key = (unit.canonical(function.pos.file).to_path_buf(), function.name.clone());
            if !crate::settings::root::is_under(root, &key.0) || !seen.insert(key.clone()) {
                continue;
            }
            let sets: Vec<SetId> = plan.planned.get(&key).into_iter().flatten().copied().collect();
            let kept: Vec<SetId> = sets.iter().copied().filter(|id| settled.kept(*id)).collect();
            let withdrawn = sets.iter().find_map(|id| settled.withdrawn.get(id));
            let own_refusals = refusals.get(&(key.0.as_path(), function.name.as_str())).map(Vec::as_slice).unwrap_or_default();
            let outcome = if !kept.is_empty() {
                let verified = verify && !kept.iter().any(|id| settled.unverified.contains(id));
                let kept_parameters = Facts { unit, function, plan, settled, sets: &sets, refusals: own_refusals }.kept(&kept);
                // A kernel's parameters always name their space (the host decides it).
                if kept_parameters.is_empty() || function.is_kernel {
                    Outcome::Migrated { verified }
                } else {
                    Outcome::PartlyMigrated { verified, kept: kept_parameters }
                }
            } else if let Some(w) = withdrawn {
                Outcome::Refused { reason: w.reason, detail: w.detail.clone() }
            } else if let Some(r) = own_refusals.first() {
                Outcome::Refused { reason: r.reason, detail: format!("`{}`: {}", r.name, r.detail) }
            } else {
                Outcome::Unchanged
            };
            let origin = unit.origin(function.pos.file, function.pos.offset..function.pos.offset);
            let origin = origin.map(|(file, at)| (file.as_os_str(), at.start, function.name.clone()));
            if let Some(&i) = origin.as_ref().and_then(|key| by_origin.get(key)) {
                out[i].outcome = combined(&out[i].outcome, outcome);
                continue;
            }
            if let Some(key) = origin {
                by_origin.insert(key, out.len());
            }
            let crate::input::source::Place { file, line, col } = unit.position(function.pos);
            out.push(FunctionAccount { file, line, col, name: function.name.clone(), kernel: function.is_kernel, outcome });
        }
    }
    out.sort_by(|a, b| (&a.file, a.line, a.col, &a.name).cmp(&(&b.file, b.line, b.col, &b.name)));
    out
}

/// How one definition ended, of two units reading it: refused in either is
/// refused (its file is not changed for the other either), else partly
/// migrated in either is partly migrated, else migrated in either is
/// migrated (verified where every migration was).
fn combined(first: &Outcome, second: Outcome) -> Outcome {
    match (first, second) {
        (Outcome::Refused { .. }, _) => first.clone(),
        (_, refused @ Outcome::Refused { .. }) => refused,
        (Outcome::PartlyMigrated { .. }, _) => first.clone(),
        (_, partly @ Outcome::PartlyMigrated { .. }) => partly,
        (Outcome::Migrated { verified: a }, Outcome::Migrated { verified: b }) => Outcome::Migrated { verified: *a && b },
        (Outcome::Migrated { .. }, _) => first.clone(),
        (_, second) => second,
    }
}

/// What is known of one changed function: its sets and its refusals.
struct Facts<'a> {
    unit: &'a Unit,
    function: &'a Function,
    plan: &'a Plan,
    settled: &'a Settled,
    /// Every set changing the function, kept or withdrawn.
    sets: &'a [SetId],
    refusals: &'a [&'a Refusal],
}

impl Facts<'_> {
    /// The parameters naming a space generic could hold that no kept set
    /// changes, each with why: matched to its refusal or withdrawal by
    /// declaration (file and position), never by name alone.
    fn kept(&self, kept: &[SetId]) -> Vec<KeptParameter> {
        let changed: BTreeSet<(PathBuf, u32)> = kept.iter().flat_map(|id| self.declarations(*id)).collect();
        let here = |d: &PointerDecl| (self.unit.canonical(d.pos.file).to_path_buf(), d.pos.offset);
        self.function
            .pointers
            .iter()
            .filter(|d| matches!(d.kind, DeclKind::Param(_)) && names_generic_space(d) && !changed.contains(&here(d)))
            .map(|d| self.why(d))
            .collect()
    }

    /// The declarations a set changes in this function: (canonical file, offset).
    fn declarations(&self, id: SetId) -> impl Iterator<Item = (PathBuf, u32)> + '_ {
        let fixes = self.plan.sets[id].fixes.iter().filter(|fix| fix.function == self.function.name);
        fixes.map(|fix| (crate::settings::root::canonical(&fix.file), fix.decl.offset))
    }

    fn why(&self, decl: &PointerDecl) -> KeptParameter {
        let name = decl.name.clone();
        let here = (self.unit.canonical(decl.pos.file).to_path_buf(), decl.pos.offset);
        let withdrawn = self.sets.iter().filter_map(|id| self.settled.withdrawn.get(id).map(|w| (id, w)));
        for (id, w) in withdrawn {
            if self.declarations(*id).any(|d| d == here) {
                return KeptParameter { name, reason: Some(w.reason), detail: w.detail.clone() };
            }
        }
        let crate::input::source::Place { line, col, .. } = self.unit.position(decl.pos);
        match self.refusals.iter().find(|r| r.name == decl.name && r.line == line && r.col == col) {
            Some(r) => KeptParameter { name, reason: Some(r.reason), detail: r.detail.clone() },
            None => KeptParameter { name, reason: None, detail: "no change was planned for it".into() },
        }
    }
}

/// A parameter pointing into a space the generic space includes, as
/// written: `__global`, `__local`, or a spelled `__private` (an unqualified
/// pointee is already generic under 2.0; `__constant` never can be).
fn names_generic_space(decl: &PointerDecl) -> bool {
    decl.levels.first().is_some_and(|level| match level.space {
        Space::Global | Space::Local => true,
        Space::Private => !matches!(level.spelling, Spelling::Unqualified),
        Space::Constant | Space::Generic => false,
    })
}
