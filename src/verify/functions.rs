//! Function-level proofs: a changed function proven once, by content, then
//! called opaquely from every kernel that runs it.
//!
//! A kernel is compared with its helpers inlined, so a helper a migration
//! changed in a header every unit includes was optimised again inside
//! every kernel of every unit. Instead, each function both sides define
//! differently is proven on its own first: a wrapper kernel calls it as the
//! original's callers did (`wrappers.rs`), both wrappers go through the
//! equivalence pipeline, and equal canonical wrappers prove that the
//! result's function, given the original's pointers cast to generic, does
//! what the original's did. The kernels then call it as a declaration on
//! both sides, and compare their calls by name and arguments
//! (`canonical.rs`): a kernel's proof goes through its callees'.
//!
//! A proof depends on the texts of the function and of everything it runs
//! on both sides, and the declarations of the data they name (`ProofKey`):
//! the verdict is kept by that key's digest for the whole batch (the session), so
//! units including the same header prove its functions once. Functions
//! defined in a file other units read too are proven so (`ProofScope`):
//! which those are is the plan's to say, so the report says the same
//! whatever order the checks run in. In a unit whose largest kernel
//! inlines to more than `PROVE_EVERY_FUNCTION_ABOVE` instructions every
//! changed function is (the unit's own size says so, whatever the order):
//! elsewhere a function only one unit runs costs less inlined. Proofs go
//! callees first (`prove_bottom_up`), each round calling the callees
//! proven before, so a proof costs the function's own body and composes
//! through its callees' proofs; one whose wrappers would be over
//! `ProofScope::limit` is not made. A function the proof does not apply to (its
//! signature changed otherwise, or it reaches a kernel), or whose proof
//! fails, is inlined as before; a kernel still differing is compared again
//! with the changed helpers inlined, then with every helper inlined, and
//! that verdict stands (`verify::compare_compiled`).

use std::collections::{BTreeSet, HashMap};

use super::opaque::{Candidate, ProofKey};
use super::{canonical, opaque, pipeline, wrappers};
use crate::front::lower::{load, Context};
use crate::support::session::Shared;
use crate::support::store::{Key, KeyBuilder};

/// Verdicts by the digest of their key, for the batch: a key holds the
/// texts of the functions proven and of their callees on both sides (tens
/// of kilobytes for a round function), and a batch of big headers keeps
/// hundreds of verdicts.
static VERDICTS: Shared<HashMap<Key, bool>> = Shared::new();

/// The digest `VERDICTS` keeps a verdict by: every part of the key, each
/// length-prefixed (`KeyBuilder`), so equal digests mean equal keys.
fn digest((original, result, before, after): &ProofKey) -> Key {
    let mut builder = KeyBuilder::new("proof", &[]);
    builder.bytes(original.as_bytes()).bytes(result.as_bytes());
    for closure in [before, after] {
        builder.bytes(&(closure.len() as u64).to_le_bytes());
        for (name, (text, globals)) in closure {
            builder.bytes(name.as_bytes()).bytes(text.as_bytes()).bytes(&(globals.len() as u64).to_le_bytes());
            for global in globals {
                builder.bytes(global.as_bytes());
            }
        }
    }
    builder.finish()
}

/// Which of the `changed` functions of a check (original and result
/// bitcode) are proven on their own: kept verdicts, and proofs made now for
/// the others (kept too). A proof whose wrappers would inline more than
/// `limit` instructions is not made (the function is then inlined where it
/// is called, and the kernels' comparison meets the bound).
pub(super) fn proven(
    context: &Context,
    original: &[u8],
    migrated: &[u8],
    name: &str,
    changed: Vec<Candidate>,
    limit: Option<u64>,
) -> Vec<Candidate> {
    let digests: Vec<Key> = changed.iter().map(|c| digest(&c.key)).collect();
    let known: Vec<Option<bool>> = match VERDICTS.lock() {
        Some(verdicts) => digests.iter().map(|d| verdicts.get(d).copied()).collect(),
        None => return Vec::new(),
    };
    let made = if known.iter().all(Option::is_some) {
        BTreeSet::new()
    } else {
        let modules = Modules { context, original, migrated, name, limit };
        crate::support::timings::time("verify: function proofs", || prove_bottom_up(&modules, &changed, &known))
    };
    let mut out = Vec::new();
    let mut unproven = BTreeSet::new();
    let mut verdicts = VERDICTS.lock();
    for ((candidate, known), digest) in changed.into_iter().zip(known).zip(digests) {
        let verdict = known.unwrap_or_else(|| made.contains(&candidate.original));
        if let Some(verdicts) = verdicts.as_mut() {
            verdicts.insert(digest, verdict);
        }
        if verdict {
            out.push(candidate);
        } else {
            unproven.insert(candidate.result);
        }
    }
    // The result's function is declared for all its callers or none: one
    // original it replaces left inlined (a merged member not proven) would
    // compare its body with a call.
    out.retain(|c| !unproven.contains(&c.result));
    out
}

/// The two compilations of a check, and the bound on a proof's size.
struct Modules<'a> {
    context: &'a Context,
    original: &'a [u8],
    migrated: &'a [u8],
    name: &'a str,
    limit: Option<u64>,
}

/// Proves the candidates not `known`, callees first: a round proves those
/// whose changed callees are all decided, calling the ones proven (as the
/// kernels do) and inlining the others. So a helper at the top of a deep
/// call tree costs its own body, not the whole tree inlined, and its proof
/// composes through its callees'. Returns the original functions proven.
fn prove_bottom_up(modules: &Modules<'_>, changed: &[Candidate], known: &[Option<bool>]) -> BTreeSet<String> {
    let candidates: BTreeSet<&str> = changed.iter().map(|c| c.original.as_str()).collect();
    fn callees<'c>(c: &'c Candidate, candidates: &BTreeSet<&str>) -> Vec<&'c str> {
        c.key.2.keys().map(String::as_str).filter(|f| *f != c.original && candidates.contains(f)).collect()
    }
    let mut proven: Vec<Candidate> =
        (changed.iter().zip(known)).filter(|(_, k)| **k == Some(true)).map(|(c, _)| c.clone()).collect();
    let mut decided: BTreeSet<&str> =
        (changed.iter().zip(known)).filter(|(_, k)| k.is_some()).map(|(c, _)| c.original.as_str()).collect();
    let mut made = BTreeSet::new();
    loop {
        let round: Vec<&Candidate> = (changed.iter())
            .filter(|c| !decided.contains(c.original.as_str()) && callees(c, &candidates).iter().all(|f| decided.contains(f)))
            .collect();
        if round.is_empty() {
            return made;
        }
        let pairs: Vec<(String, String)> = round.iter().map(|c| (c.original.clone(), c.result.clone())).collect();
        let now = prove(modules, &pairs, &proven);
        for candidate in round {
            decided.insert(&candidate.original);
            if now.contains(&candidate.original) {
                proven.push(candidate.clone());
                made.insert(candidate.original.clone());
            }
        }
    }
}

/// Proves the `pairs` (original function, the result's function replacing
/// it) on fresh copies of both modules: the kernels dropped, the data made
/// declarations, a wrapper per pair, every function defined alike kept
/// out, the functions `proven` before called as proven; returns the
/// original functions proven.
fn prove(modules: &Modules<'_>, pairs: &[(String, String)], proven: &[Candidate]) -> BTreeSet<String> {
    let attempt = || -> Option<BTreeSet<String>> {
        let mut before = load(modules.context, modules.original, modules.name).ok()?;
        let mut after = load(modules.context, modules.migrated, modules.name).ok()?;
        for module in [&mut before, &mut after] {
            pipeline::keep_only_kernels(module, &BTreeSet::new());
            wrappers::without_initialisers(module);
        }
        let wrapped = wrappers::add_wrappers(&mut before, &mut after, pairs);
        if wrapped.is_empty() {
            return Some(BTreeSet::new());
        }
        // Callees defined alike kept out, callees proven before called as proven.
        opaque::share_identical(&mut before, &mut after, &super::ProofScope::default());
        // (Not one whose result function a pair proven now runs: a merge's
        // member proven before, its sibling now.)
        let callees: Vec<Candidate> =
            proven.iter().filter(|c| !pairs.iter().any(|(o, r)| *o == c.original || *r == c.result)).cloned().collect();
        opaque::declare_proven(&mut before, &mut after, &callees);
        if super::within_limit(&mut before, &mut after, modules.limit, "").is_err() {
            return Some(BTreeSet::new());
        }
        pipeline::optimise_for_equivalence(&mut before, pipeline::Inlining::Every).ok()?;
        pipeline::optimise_for_equivalence(&mut after, pipeline::Inlining::Every).ok()?;
        let found = super::compare(&canonical::canonical_kernels(&mut before), &canonical::canonical_kernels(&mut after));
        let equal: BTreeSet<&str> = found.equal.iter().filter_map(|k| k.strip_prefix(wrappers::WRAPPER_PREFIX)).collect();
        Some(wrapped.into_iter().map(|(original, _)| original).filter(|f| equal.contains(f.as_str())).collect())
    };
    attempt().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::front::lower::Context;
    use crate::settings::options::{CompileOptions, Target};
    use crate::verify::{compare_compiled, compile_for_equivalence, Equivalence, ProofScope, EQUIVALENCE_TRIPLE};

    /// A verdict is kept by its key's digest: keys that differ only in where
    /// one text ends and the next begins, or in which side holds a callee,
    /// have digests of their own; equal keys have one.
    #[test]
    fn keys_told_apart_by_their_parts_have_digests_of_their_own() {
        let closure = |entries: &[(&str, &str, &[&str])]| -> super::super::opaque::Closure {
            entries.iter().map(|(n, t, g)| (n.to_string(), (t.to_string(), g.iter().map(|g| g.to_string()).collect()))).collect()
        };
        let key = |a: &str, b: &str, before, after| (a.to_string(), b.to_string(), before, after);
        let base = key("f", "f", closure(&[("f", "ret 1", &["t"])]), closure(&[("f", "ret 1", &["t"])]));
        let others = [
            key("f", "f", closure(&[("f", "ret 1t", &[])]), closure(&[("f", "ret 1", &["t"])])),
            key("f", "f", closure(&[("f", "ret", &["1", "t"])]), closure(&[("f", "ret 1", &["t"])])),
            key("f", "f", closure(&[("f", "ret 1", &["t"]), ("g", "", &[])]), closure(&[("f", "ret 1", &["t"])])),
            key("f", "f", closure(&[("f", "ret 1", &["t"])]), closure(&[("f", "ret 1", &["t"]), ("g", "", &[])])),
            key("ff", "", closure(&[("f", "ret 1", &["t"])]), closure(&[("f", "ret 1", &["t"])])),
        ];
        let digest = super::digest(&base);
        assert_eq!(digest, super::digest(&base.clone()));
        for other in &others {
            assert_ne!(digest, super::digest(other), "{other:?}");
        }
        let distinct: std::collections::BTreeSet<_> = others.iter().map(super::digest).collect();
        assert_eq!(distinct.len(), others.len());
    }

    /// Compiles `original` as OpenCL C 1.2 and `migrated` as 2.0 (laid over
    /// it) for the equivalence triple, and compares them twice, as two units
    /// including the same code would (the second reusing the first's
    /// proofs): the second's verdict, and the first's proven functions.
    /// Needs clang-19: fails, never skips, without it.
    fn compared(original: &str, migrated: &str, merged: &[(&str, &str)], shared: &[&str]) -> (Equivalence, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unit.cl");
        std::fs::write(&path, original).unwrap();
        let options = CompileOptions::default();
        let replaced = BTreeMap::from([(path.clone(), migrated.as_bytes().to_vec())]);
        let compile = |args: &[String], replaced: &BTreeMap<_, _>| {
            compile_for_equivalence(&path, args, replaced)
                .expect("both sides compile (clang-19 must be installed: scripts/setup)")
        };
        let before = compile(&options.clang_args_for(None, EQUIVALENCE_TRIPLE), &BTreeMap::new());
        let after = compile(&options.clang_args_for(Some(&Target::Cl20.std_flags()), EQUIVALENCE_TRIPLE), &replaced);
        let scope = ProofScope {
            merged: merged.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
            shared: std::sync::Arc::new(shared.iter().map(|s| s.to_string()).collect()),
            ..ProofScope::default()
        };
        let context = Context::create();
        let first = compare_compiled(&context, &before, &after, "unit.cl", None, &scope).unwrap();
        (compare_compiled(&context, &before, &after, "unit.cl", None, &scope).unwrap(), first.proven_functions)
    }

    /// `helpers`, then a kernel given `__global` and `__local` memory making `calls`.
    fn with_kernel(helpers: &str, calls: &str) -> String {
        format!("{helpers}\n__kernel void k(__global int *g, __local int *l) {{\n  l[0] = g[1];\n{calls}}}\n")
    }

    #[test]
    fn a_changed_helper_others_share_is_proven_once_and_called_opaquely() {
        let original = with_kernel(
            "int fp_scale(__global const int *p, int i) { int s = 0; for (int j = 0; j < i; j++) s += p[j] * 3; return s; }",
            "  g[0] = fp_scale(g, 4) + fp_scale(g + 2, 3);\n",
        );
        let migrated = original.replace("int fp_scale(__global const int *p", "int fp_scale(const int *p");
        // Only one unit's: inlined.
        let (alone, _) = compared(&original, &migrated, &[], &[]);
        assert!(alone.different.is_empty() && alone.proven_functions.is_empty(), "{alone:?}");
        // Shared: proven on its own, and the kernel calls it (an offset pointer too), twice alike.
        let (found, first) = compared(&original, &migrated, &[], &["fp_scale"]);
        assert!(found.different.is_empty(), "{found:?}");
        assert_eq!((found.proven_functions, first), (vec!["fp_scale".to_string()], vec!["fp_scale".to_string()]));
        assert!(!found.whole_kernels);
    }

    #[test]
    fn a_helper_reading_the_size_of_its_pointer_is_not_proven() {
        // A `__local` pointer is 4 bytes at amdgcn, a generic one 8.
        let original = with_kernel("int fp_width(__local int *p) { return (int) sizeof(p) + p[0]; }", "  g[0] = fp_width(l);\n");
        let migrated = original.replace("int fp_width(__local int *p)", "int fp_width(int *p)");
        let (found, _) = compared(&original, &migrated, &[], &["fp_width"]);
        assert!(found.proven_functions.is_empty(), "{found:?}");
        assert_eq!(found.different.len(), 1, "{found:?}");
    }

    #[test]
    fn a_merge_whose_behaviour_changes_in_one_callers_space_is_not_proven() {
        // The survivor does what the `__global` member did; the `__local` member added one.
        let original = with_kernel(
            "int fp_first_g(__global int *p) { return p[0]; }\nint fp_first_l(__local int *p) { return p[0] + 1; }",
            "  g[0] = fp_first_g(g) + fp_first_l(l);\n",
        );
        let migrated = with_kernel("int fp_first(int *p) { return p[0]; }", "  g[0] = fp_first(g) + fp_first(l);\n");
        let merged = [("fp_first_g", "fp_first"), ("fp_first_l", "fp_first")];
        let members = ["fp_first_g", "fp_first_l"];
        let (found, _) = compared(&original, &migrated, &merged, &members);
        assert!(found.proven_functions.is_empty(), "{found:?}");
        assert_eq!(found.different.len(), 1, "{found:?}");
        // The same merge of members that did the same is proven, both spaces.
        let original = original.replace("p[0] + 1", "p[0]");
        let (found, _) = compared(&original, &migrated, &merged, &members);
        assert!(found.different.is_empty(), "{found:?}");
        assert_eq!(found.proven_functions, members);
    }

    #[test]
    fn a_pointer_given_from_another_space_than_proven_is_caught() {
        // Proven for `__global` pointers (as the original took them), then
        // called with a `__local` one: equal pointers now, never before.
        let original =
            with_kernel("int fp_same(__global int *a, __global int *b) { return a == b; }", "  g[0] = fp_same(g, g + 1);\n");
        let migrated = with_kernel("int fp_same(int *a, int *b) { return a == b; }", "  g[0] = fp_same(g, l);\n");
        let (found, _) = compared(&original, &migrated, &[], &["fp_same"]);
        assert_eq!(found.different.len(), 1, "{found:?}");
    }
}
