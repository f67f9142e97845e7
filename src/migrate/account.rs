//! Accounting: every function definition under the edit root, once, with
//! how it ended: migrated (one of its change sets stands), refused (its
//! change sets were withdrawn, or one of its declarations was refused), or
//! unchanged. Once means once in the real files: a definition in a header
//! several kernel files include, or in a source several programs share, is
//! one function, however many units read it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::plan::Plan;
use super::settle::Settled;
use crate::ids::SetId;
use crate::report::{FunctionAccount, Outcome, Refusal};
use crate::unit::Unit;

pub fn account(units: &[Unit], root: &Path, plan: &Plan, settled: &Settled, verify: bool) -> Vec<FunctionAccount> {
    let mut seen: BTreeSet<(PathBuf, String)> = BTreeSet::new();
    let mut out: Vec<FunctionAccount> = Vec::new();
    // A definition's origin in the real files -> its place in `out`.
    let mut by_origin: HashMap<(&std::ffi::OsStr, u32), usize> = HashMap::new();
    // (file, function) -> its first refusal (refusals are sorted).
    let mut refusals: HashMap<(&Path, &str), &Refusal> = HashMap::new();
    for r in &plan.refusals {
        refusals.entry((r.canonical.as_path(), r.function.as_str())).or_insert(r);
    }
    for unit in units {
        for function in unit.syntax.functions.iter().filter(|f| f.is_definition) {
            let key = (unit.canonical(function.pos.file).to_path_buf(), function.name.clone());
            if !crate::root::is_under(root, &key.0) || !seen.insert(key.clone()) {
                continue;
            }
            let sets = plan.planned.get(&key);
            let kept: Vec<SetId> = sets.into_iter().flatten().copied().filter(|id| settled.kept(*id)).collect();
            let withdrawn = sets.into_iter().flatten().find_map(|id| settled.withdrawn.get(id));
            let refusal = refusals.get(&(key.0.as_path(), function.name.as_str()));
            let outcome = if !kept.is_empty() {
                Outcome::Migrated { verified: verify && !kept.iter().any(|id| settled.unverified.contains(id)) }
            } else if let Some(w) = withdrawn {
                Outcome::Refused { reason: w.reason, detail: w.detail.clone() }
            } else if let Some(r) = refusal {
                Outcome::Refused { reason: r.reason, detail: format!("`{}`: {}", r.name, r.detail) }
            } else {
                Outcome::Unchanged
            };
            let origin = unit.origin(function.pos.file, function.pos.offset..function.pos.offset);
            if let Some(&i) = origin.as_ref().and_then(|(file, at)| by_origin.get(&(file.as_os_str(), at.start))) {
                out[i].outcome = combined(&out[i].outcome, outcome);
                continue;
            }
            if let Some((file, at)) = origin {
                by_origin.insert((file.as_os_str(), at.start), out.len());
            }
            let crate::source::Place { file, line, col } = unit.position(function.pos);
            out.push(FunctionAccount { file, line, col, name: function.name.clone(), kernel: function.is_kernel, outcome });
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// How one definition ended, of two units reading it: refused in either is
/// refused (its file is not changed for the other either), else migrated in
/// either is migrated (verified where every migration was).
fn combined(first: &Outcome, second: Outcome) -> Outcome {
    match (first, second) {
        (Outcome::Refused { .. }, _) => first.clone(),
        (_, refused @ Outcome::Refused { .. }) => refused,
        (Outcome::Migrated { verified: a }, Outcome::Migrated { verified: b }) => Outcome::Migrated { verified: *a && b },
        (Outcome::Migrated { .. }, _) => first.clone(),
        (_, second) => second,
    }
}
