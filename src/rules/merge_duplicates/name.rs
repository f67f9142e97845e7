//! Naming: the merged helper's name is the words its members' names share
//! (`dot_g`, `dot_l` -> `dot`) when that name is free, else the survivor's.

use std::collections::BTreeSet;

use super::Member;
use crate::front::unit::Unit;
use crate::support::ids::UnitId;

/// The group's common name: the words (split at `_` and at camelCase
/// humps) the names share at their start and end: `dot_g`, `dot_l` -> `dot`;
/// `load_global_f`, `load_local_f` -> `load_f`; `copyGlobal`, `copyLocal` ->
/// `copy`; one-word names share letters instead (`gscale`, `lscale` -> `scale`).
/// None when the names share too little, or are the same (an overload set keeps its name).
pub(super) fn stem(members: &[Member]) -> Option<String> {
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    stem_of(&names)
}

/// The words `names` share at start and end (see `stem`).
pub(super) fn stem_of(names: &[&str]) -> Option<String> {
    let first = *names.first()?;
    if names.iter().all(|n| *n == first) {
        return None;
    }
    let words: Vec<Vec<&str>> = names.iter().map(|n| words_of(n)).collect();
    let shortest = words.iter().map(|w| w.len()).min().unwrap_or(0);
    let head = (0..shortest).take_while(|&i| words.iter().all(|w| w[i] == words[0][i])).count();
    let from_end = |w: &Vec<&str>, i: usize| w[w.len() - 1 - i].to_string();
    let tail = (0..shortest - head).take_while(|&i| words.iter().all(|w| from_end(w, i) == from_end(&words[0], i))).count();
    let stem = if head + tail > 0 {
        let ours = &words[0];
        let (front, back) = (&ours[..head], &ours[ours.len() - tail..]);
        let mut stem: String = front.concat();
        let joined_by_underscore = stem.ends_with('_') || back.first().is_some_and(|w| w.starts_with('_'));
        stem = stem.trim_end_matches('_').to_string();
        let rest = back.concat();
        let rest = rest.trim_start_matches('_');
        if !stem.is_empty() && !rest.is_empty() && joined_by_underscore {
            stem.push('_');
        }
        stem.push_str(rest);
        stem
    } else if shortest == 1 {
        // One word each: the letters they share at the end (`gsum`, `lsum`), or the start.
        let suffix = names.iter().fold(first.len(), |n, name| common_suffix(&first[first.len() - n..], name));
        let prefix = names.iter().fold(first.len(), |n, name| common_prefix(&first[..n], name));
        let longer = if suffix >= prefix { &first[first.len() - suffix..] } else { &first[..prefix] };
        if longer.len() < 3 {
            return None;
        }
        longer.to_string()
    } else {
        return None;
    };
    let valid = stem.len() >= 2
        && !stem.starts_with("__")
        && stem.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(stem)
}

/// A name's words, each with the `_`s before it: `load_global_f` -> `load`,
/// `_global`, `_f`; `copyGlobal` -> `copy`, `Global`.
fn words_of(name: &str) -> Vec<&str> {
    let bytes = name.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..bytes.len() {
        let underscore = bytes[i] == b'_' && bytes[i - 1] != b'_';
        let hump = bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase();
        if underscore || hump {
            out.push(&name[start..i]);
            start = i;
        }
    }
    out.push(&name[start..]);
    out
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &str, b: &str) -> usize {
    a.bytes().rev().zip(b.bytes().rev()).take_while(|(x, y)| x == y).count()
}

/// The survivor's name: the shared name of an overload set; else the common
/// stem when no unit seeing the group writes it anywhere, it is no keyword or
/// builtin, and no other merge took it; else the survivor's own.
pub(super) fn new_name(
    survivor: &Member,
    stem: Option<&str>,
    taken: &BTreeSet<String>,
    claimed: &BTreeSet<String>,
    units: &[Unit],
    seeing: &BTreeSet<UnitId>,
) -> String {
    match stem {
        Some(stem)
            if !taken.contains(stem)
                && !claimed.contains(stem)
                && seeing.iter().all(|&u| !units[u].syntax.identifiers.contains(stem)) =>
        {
            stem.to_string()
        }
        _ => survivor.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::ids::{DeclKey, FileId};
    use std::path::PathBuf;

    fn members(names: &[&str]) -> Vec<Member> {
        names
            .iter()
            .map(|n| Member {
                name: n.to_string(),
                file: PathBuf::new(),
                line: 0,
                col: 0,
                key: DeclKey::new(FileId(0), 0),
                link_name: n.to_string(),
                unit_file: PathBuf::new(),
            })
            .collect()
    }

    #[test]
    fn stems_drop_what_the_names_do_not_share() {
        let cases = [
            (vec!["dot_g", "dot_l"], Some("dot")),
            (vec!["dot_g", "dot_l", "dot_p"], Some("dot")),
            (vec!["load_global_f", "load_local_f"], Some("load_f")),
            (vec!["gsum", "lsum"], Some("sum")),
            (vec!["memcpy_pg", "memcpy_gp"], Some("memcpy")),
            (vec!["copyGlobal", "copyLocal"], Some("copy")),
            (vec!["f", "g"], None),
            (vec!["a_g", "a_l"], None),
            (vec!["vload_g", "vload_l"], Some("vload")),
            (vec!["reduce_g_f4", "reduce_l_f4"], Some("reduce_f4")),
            (vec!["g_reduce", "l_reduce"], Some("reduce")),
            (vec!["sumG", "sumL"], Some("sum")),
            (vec!["same", "same"], None),
        ];
        for (names, expected) in cases {
            assert_eq!(stem(&members(&names)).as_deref(), expected, "{names:?}");
        }
    }
}
