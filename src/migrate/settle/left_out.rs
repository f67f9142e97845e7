//! Which function definitions a unit's equivalence compiles leave out of
//! code generation.
//!
//! Why: on big-header code every unit includes headers defining hundreds of
//! helpers that no change of the unit touches. Compiling them to IR for the
//! baseline and for every result, loading them and finding them alike was
//! most of a check. Left out, each is still parsed and checked by clang (an
//! error in one still fails the compile), and a call to one emits the same
//! declaration on both sides, which the comparison treats as any call.
//!
//! Why it is sound: the baseline and every result of a unit are compiled
//! with the same arguments. When every edit of the unit's change sets lies
//! inside one function definition, and touches no preprocessor directive,
//! the text outside those definitions is the same on both sides, so a
//! definition with no edit whose direct callees have none (a changed
//! callee's declaration changes the call) compiles alike, and leaving it
//! out on both sides loses nothing the comparison could see. A unit with
//! an edit anywhere else (a program-scope variable, a declaration outside a
//! function), or with required repairs (its baseline is a repaired text),
//! compiles whole. As a check on the reasoning, each compile reports clang's
//! ODR hash of every definition it left out, and a check whose two compiles
//! disagree compiles both whole (`check.rs`).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::facts::syntax::Function;
use crate::front::unit::Unit;
use crate::migrate::plan::Plan;
use crate::rules::Edit;
use crate::support::ids::UnitId;

/// The definitions unit `u`'s equivalence compiles may leave out (C
/// names), or `None` when the unit compiles whole.
pub(super) fn left_out(unit: &Unit, plan: &Plan, u: UnitId) -> Option<Arc<BTreeSet<String>>> {
    if !plan.required[u].is_empty() {
        return None;
    }
    let definitions: Vec<&Function> = unit.syntax.functions.iter().map(|f| f.as_ref()).filter(|f| f.is_definition).collect();
    let mut touched = BTreeSet::new();
    for id in &plan.unit_sets[u] {
        let set = &plan.sets[*id];
        touched.extend(set.link_names());
        for (file, edits) in &set.edits {
            let Some(index) = (0..unit.syntax.files.len()).find(|i| unit.canonical(*i) == file.as_path()) else {
                continue; // A file of another unit: this unit's compiles do not read it.
            };
            let text = unit.text(index);
            for edit in edits {
                let replaced = text.get(edit.start as usize..edit.end as usize)?;
                if replaced.contains(&b'#') || edit.replacement.contains('#') {
                    return None;
                }
                touched.extend(edited_definitions(&definitions, index, edit, replaced)?);
            }
        }
    }
    // A caller of a changed function calls it through its new declaration.
    let callers = unit.ir.functions.iter().filter(|f| f.calls.iter().any(|callee| touched.contains(callee)));
    touched.extend(callers.map(|f| f.name.clone()).collect::<Vec<_>>());
    let names: BTreeSet<String> = (definitions.iter())
        .filter(|f| !f.is_kernel && !f.is_overloadable && !f.name.is_empty() && !touched.contains(&f.link_name))
        .map(|f| f.name.clone())
        .collect();
    (!names.is_empty()).then(|| Arc::new(names))
}

/// The link names of the definitions `edit` (of file `index`, replacing
/// `replaced`) changes, or `None` when it changes text outside them: an
/// edit inside one definition, or one deleting whole definitions and the
/// blank space around them (a merged duplicate's).
fn edited_definitions(definitions: &[&Function], index: usize, edit: &Edit, replaced: &[u8]) -> Option<Vec<String>> {
    let in_file = |f: &&&Function| f.extent.file == index && f.in_macro.is_none();
    if let Some(one) = (definitions.iter().filter(in_file)).find(|f| f.extent.start <= edit.start && edit.end <= f.extent.end) {
        return Some(vec![one.link_name.clone()]);
    }
    if !edit.replacement.trim().is_empty() {
        return None;
    }
    let overlapping: Vec<&&Function> =
        (definitions.iter().filter(in_file)).filter(|f| f.extent.start < edit.end && edit.start < f.extent.end).collect();
    let outside_all = |offset: u32| !overlapping.iter().any(|f| f.extent.start <= offset && offset < f.extent.end);
    let blank_elsewhere =
        (edit.start..edit.end).zip(replaced).all(|(offset, byte)| byte.is_ascii_whitespace() || !outside_all(offset));
    (blank_elsewhere && !overlapping.is_empty()).then(|| overlapping.iter().map(|f| f.link_name.clone()).collect())
}
