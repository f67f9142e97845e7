//! The survivor: the member every unit seeing the group defines before its
//! first use, reading through `const` wherever another member does.

use std::collections::BTreeSet;

use super::detect::UnitView;
use super::Member;
use crate::facts::syntax::Function;
use crate::front::unit::Unit;
use crate::support::ids::{DeclKey, UnitId};

/// The member to keep: defined in every unit that sees the group, and declared
/// there before every function that uses a member (the others' uses will call
/// it); among those, the first reading through `const` pointers wherever a
/// member does (a `__constant` member's callers pass read-only data).
pub(super) fn survivor(units: &[Unit], views: &[UnitView], merging: &[Member], seeing: &BTreeSet<UnitId>) -> Option<Member> {
    let valid = survivors(units, views, merging, seeing);
    valid.iter().find(|s| merging.iter().all(|m| covers_const(views, seeing, s, m))).or(valid.first()).cloned()
}

/// Whether `survivor` points to read-only data wherever `member` does.
pub(super) fn covers_const(views: &[UnitView], seeing: &BTreeSet<UnitId>, survivor: &Member, member: &Member) -> bool {
    let read_only =
        |m: &Member| seeing.iter().find_map(|u| views[*u].defs.get(&m.key)).map(|d| d.read_only.clone()).unwrap_or_default();
    let (s, m) = (read_only(survivor), read_only(member));
    m.iter().enumerate().all(|(i, ro)| !ro || s.get(i) == Some(&true))
}

/// The members that could survive, in order: see `survivor`.
pub(super) fn survivors(units: &[Unit], views: &[UnitView], merging: &[Member], seeing: &BTreeSet<UnitId>) -> Vec<Member> {
    let links: BTreeSet<&str> = merging.iter().map(|m| m.link_name.as_str()).collect();
    let keys: BTreeSet<&DeclKey> = merging.iter().map(|m| &m.key).collect();
    merging
        .iter()
        .filter(|s| {
            seeing.iter().all(|&u| {
                let view = &views[u];
                let functions = &units[u].syntax.functions;
                if !view.defs.contains_key(&s.key) {
                    return false;
                }
                let first_declared = functions.iter().position(|f| f.link_name == s.link_name);
                let deleted = |f: &Function| f.is_definition && keys.contains(&units[u].key(f.pos.file, f.pos.offset));
                let first_use = units[u]
                    .syntax
                    .references
                    .iter()
                    .filter(|r| links.contains(r.link_name.as_str()))
                    .filter_map(|r| functions.iter().position(|f| f.is_definition && f.link_name == r.caller && !deleted(f)))
                    .min();
                match (first_declared, first_use) {
                    (Some(d), Some(use_at)) => d < use_at,
                    (Some(_), None) => true,
                    (None, _) => false,
                }
            })
        })
        .cloned()
        .collect()
}
