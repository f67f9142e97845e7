//! Accounting: every function definition under the edit root, once, with
//! how it ended: migrated (one of its change sets stands), refused (its
//! change sets were withdrawn, or one of its declarations was refused), or
//! unchanged.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::plan::Plan;
use super::settle::Settled;
use crate::ids::SetId;
use crate::report::{FunctionAccount, Outcome, Refusal};
use crate::unit::Unit;

pub fn account(units: &[Unit], root: &Path, plan: &Plan, settled: &Settled, verify: bool) -> Vec<FunctionAccount> {
    let mut seen: BTreeSet<(PathBuf, String)> = BTreeSet::new();
    let mut out = Vec::new();
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
            let (file, line, col) = unit.position(function.pos);
            out.push(FunctionAccount { file, line, col, name: function.name.clone(), kernel: function.is_kernel, outcome });
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}
