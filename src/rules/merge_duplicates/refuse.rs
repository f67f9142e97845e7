//! Refusals: the checks that keep a whole group from merging (a use clasp
//! cannot rename, a unit that disagrees, a member only declared where it is
//! called), and the members that stay as their own functions (a pointer that
//! cannot become generic, a call into a group that does not merge, `const`
//! that a merge would lose).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::detect::{Detected, Index, UnitView};
use super::survivor::{covers_const, survivors};
use super::{Candidate, Kept, Member, Withdrawn};
use crate::codes::Code;
use crate::facts::syntax::{ByteRange, Space};
use crate::front::unit::Unit;
use crate::infer::{Decision, Decisions};
use crate::support::ids::{DeclKey, UnitId};

/// The checks that refuse a whole group, whatever the inference decides: the
/// units declaring a member without defining it, and the refusal if any.
pub(super) fn batch_refusal(
    units: &[Unit],
    detected: &Detected,
    group: &BTreeSet<DeclKey>,
    members: &[Member],
    seeing: &BTreeSet<UnitId>,
    root: &Path,
    withdrawn: &Withdrawn,
) -> (BTreeSet<UnitId>, Option<(Code, String)>) {
    let (declaring, calling_elsewhere) = declared_elsewhere(units, &detected.views, &detected.index, members, seeing);
    let refused = calling_elsewhere
        .or_else(|| disagreement(units, &detected.per_unit, group, seeing))
        .or_else(|| other_definition(units, members, group, seeing))
        .or_else(|| unrenameable(units, members, seeing, root))
        .or_else(|| named_where_no_build_sees(units, members, seeing))
        .or_else(|| members.iter().find_map(|m| withdrawn.get(&m.key)).map(|(r, d)| (*r, d.clone())));
    (declaring, refused)
}

/// Units that declare a member without defining it (a header's prototypes), and,
/// if one of them calls a member, the refusal: its program links the definition
/// from another unit, which clasp would have to rename in step.
fn declared_elsewhere(
    units: &[Unit],
    views: &[UnitView],
    index: &Index,
    members: &[Member],
    seeing: &BTreeSet<UnitId>,
) -> (BTreeSet<UnitId>, Option<(Code, String)>) {
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    let mut declaring = BTreeSet::new();
    // Only units that name a member at all (the index), in order.
    let naming: BTreeSet<UnitId> = links.iter().flat_map(|l| index.naming.get(l).into_iter().flatten().copied()).collect();
    for u in naming.into_iter().filter(|u| !seeing.contains(u)) {
        let unit = &units[u];
        let syntax = &unit.syntax;
        // A unit defining its own function of that name is about another function.
        if views[u].defs.values().any(|d| links.contains(d.function.link_name.as_str()))
            || syntax.functions.iter().any(|f| f.is_definition && links.contains(f.link_name.as_str()))
        {
            continue;
        }
        if let Some(call) = syntax.references.iter().find(|r| links.contains(r.link_name.as_str())) {
            let detail = format!(
                "{} calls `{}` without defining it (its program links another unit's definition)",
                unit.label(),
                call.callee
            );
            return (declaring, Some((Code::DeclaredElsewhere, detail)));
        }
        if syntax.functions.iter().any(|f| links.contains(f.link_name.as_str())) {
            declaring.insert(u);
        }
    }
    (declaring, None)
}

/// A unit that sees a member and defines another function of a member's name
/// (the other branch of an `#if` in a shared header, built with other options):
/// its calls of that name reach that other function, which renaming them to
/// the survivor would replace.
fn other_definition(
    units: &[Unit],
    members: &[Member],
    group: &BTreeSet<DeclKey>,
    seeing: &BTreeSet<UnitId>,
) -> Option<(Code, String)> {
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    for &u in seeing {
        let unit = &units[u];
        for f in unit.syntax.functions.iter().filter(|f| f.is_definition && links.contains(f.link_name.as_str())) {
            let key = unit.key(f.pos.file, f.pos.offset);
            if !group.contains(&key) {
                let at = unit.position(f.pos).file_line();
                let detail = format!(
                    "compiled as part of {}, `{}` is another definition ({at}), which its calls there reach",
                    unit.label(),
                    f.name,
                );
                return Some((Code::Configuration, detail));
            }
        }
    }
    None
}

/// A unit that sees two members but does not find them duplicates (another
/// configuration of a shared header: different macros, different `#if`s).
fn disagreement(
    units: &[Unit],
    per_unit: &[BTreeMap<DeclKey, usize>],
    group: &BTreeSet<DeclKey>,
    seeing: &BTreeSet<UnitId>,
) -> Option<(Code, String)> {
    for &u in seeing {
        let classes: BTreeSet<usize> = group.iter().filter_map(|k| per_unit[u].get(k)).copied().collect();
        if classes.len() > 1 {
            let detail = format!("compiled as part of {}, they differ in more than address spaces", units[u].label());
            return Some((Code::Configuration, detail));
        }
    }
    None
}

/// A use of a member clasp cannot rename, or a member named where it cannot see.
fn unrenameable(units: &[Unit], members: &[Member], seeing: &BTreeSet<UnitId>, root: &Path) -> Option<(Code, String)> {
    for &u in seeing {
        let unit = &units[u];
        let syntax = &unit.syntax;
        for m in members {
            // `file:line` of a reference, where it is for people (see `Unit::place`).
            let place_line = |range: &ByteRange| unit.place(range.file, range.start).file_line();
            for r in syntax.references.iter().filter(|r| r.link_name == m.link_name) {
                // Placed only for a message (lines counted from the file's start, for every call
                // of every member of every group, were most of a big program's planning).
                if !r.called {
                    return Some((
                        Code::AddressTaken,
                        format!("the address of `{}` is taken at {}", m.name, place_line(&r.range)),
                    ));
                }
                if !r.spelled {
                    let detail = format!("`{}` is called through a macro at {}", m.name, place_line(&r.range));
                    return Some((Code::Macro, detail));
                }
                if !crate::settings::root::is_under(root, unit.canonical(r.range.file)) {
                    let detail = format!("`{}` is called at {}, outside the edit root", m.name, place_line(&r.range));
                    return Some((Code::OutsideRoot, detail));
                }
            }
            if let Some(macro_name) = syntax.macro_bodies.get(&m.name) {
                return Some((Code::Macro, format!("`{}` is named in the body of macro `{macro_name}`", m.name)));
            }
            if let Some(skipped) = syntax.skipped.iter().find(|s| s.identifiers.contains(&m.name)) {
                let at = crate::infer::skipped_at(unit, skipped);
                return Some((Code::SkippedIf, format!("`{}` is named in code skipped by #if at {at}", m.name)));
            }
        }
    }
    None
}

/// A member named in `#if`-skipped code of a unit that does not see it: in a
/// build that takes that code the unit may include the member's header (its
/// `#include` skipped too) and call it by the name a merge would change.
fn named_where_no_build_sees(units: &[Unit], members: &[Member], seeing: &BTreeSet<UnitId>) -> Option<(Code, String)> {
    let unseeing = UnitId::enumerate(units).filter(|(u, _)| !seeing.contains(u)).map(|(_, unit)| unit);
    for unit in unseeing {
        for skipped in &unit.syntax.skipped {
            if let Some(m) = members.iter().find(|m| skipped.identifiers.contains(&m.name)) {
                let at = crate::infer::skipped_at(unit, skipped);
                let detail = format!("`{}` is named in code skipped by #if at {at}, which may include it and call it", m.name);
                return Some((Code::SkippedIf, detail));
            }
        }
    }
    None
}

/// Members that stay as they are: one of their qualified pointers cannot become
/// generic in some unit (`__constant`, a builtin pin, ...), with why.
pub(super) fn unmergeable_members(
    units: &[Unit],
    views: &[UnitView],
    decisions: &[Decisions],
    members: &[Member],
    seeing: &BTreeSet<UnitId>,
    constant_stays: &BTreeMap<DeclKey, String>,
) -> Vec<Kept> {
    let mut kept = Vec::new();
    'member: for m in members {
        for &u in seeing {
            let Some(f) = views[u].defs.get(&m.key).map(|d| d.function) else { continue };
            for decl in f.pointers.iter().filter(|d| d.array.is_none()) {
                let Some(level) = decl.levels.first().filter(|l| l.spelling.range().is_some()) else { continue };
                let decision = decisions[u].iter().find(|d| {
                    d.link_name == f.link_name && d.decl.pos == decl.pos && units[u].file_id(d.decl.pos.file) == m.key.file
                });
                // A __constant pointer is generic only when the tables it receives move to __global.
                let generic = matches!(decision.map(|d| &d.decision), Some(Decision::Generic { .. }));
                if level.space == Space::Constant && !generic {
                    let why = match constant_stays.get(&m.key) {
                        Some(why) => format!("takes a __constant pointer whose data cannot move to __global: {why}"),
                        None => format!("takes a __constant pointer (`{}`) whose data cannot move to __global", decl.name),
                    };
                    kept.push(Kept { member: m.clone(), code: Code::ConstantSpace, why });
                    continue 'member;
                }
                match decision.map(|d| &d.decision) {
                    Some(Decision::Generic { .. }) => {}
                    Some(Decision::Refused { reason, detail } | Decision::Impossible { reason, detail }) => {
                        let why = format!("keeps `{}` named: {reason} ({detail})", decl.name);
                        kept.push(Kept { member: m.clone(), code: *reason, why });
                        continue 'member;
                    }
                    _ => {
                        kept.push(Kept { member: m.clone(), code: Code::Pinned, why: format!("keeps `{}` named", decl.name) });
                        continue 'member;
                    }
                }
            }
        }
    }
    kept
}

/// A member that calls a duplicate which does not merge must stay: after the
/// merge it would call the survivor of another group than its twins do. To a fixpoint.
pub(super) fn drop_calls_to_unmerged(detected: &Detected, in_groups: &BTreeSet<DeclKey>, candidates: &mut [Candidate]) {
    let (views, index) = (&detected.views, &detected.index);
    loop {
        let merging: BTreeSet<DeclKey> =
            candidates.iter().filter(|c| c.merging().len() > 1).flat_map(|c| c.merging().into_iter().map(|m| m.key)).collect();
        let mut changed = false;
        for candidate in candidates.iter_mut() {
            for m in candidate.merging() {
                let stray = detected
                    .callees(std::slice::from_ref(&m))
                    .into_iter()
                    .find(|k| in_groups.contains(k) && !merging.contains(k) && *k != m.key);
                if let Some(k) = stray {
                    let defined = index.defining.get(&k).and_then(|us| views[us[0]].defs.get(&k)).map(|d| d.function);
                    let name = defined.map(|f| f.name.clone()).unwrap_or_default();
                    let why = format!("calls `{name}`, whose group does not merge");
                    candidate.kept.push(Kept { member: m.clone(), code: Code::CallsUnmerged, why });
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Members that would lose `const` in the merge (no member that could
/// survive reads through `const` pointers wherever they do) stay as they are.
pub(super) fn keep_what_would_lose_const(units: &[Unit], views: &[UnitView], candidates: &mut [Candidate]) {
    for candidate in candidates.iter_mut() {
        let merging = candidate.merging();
        let valid = survivors(units, views, &merging, &candidate.seeing);
        let Some(first) = valid.first() else { continue };
        if valid.iter().any(|s| merging.iter().all(|m| covers_const(views, &candidate.seeing, s, m))) {
            continue;
        }
        for m in merging.iter().filter(|m| !covers_const(views, &candidate.seeing, first, m)) {
            let why =
                format!("reads through const pointers where `{}`, the member defined before every use, does not", first.name);
            // Counted with the pins: only the survivor's `const` is missing.
            candidate.kept.push(Kept { member: m.clone(), code: Code::Pinned, why });
        }
    }
}
