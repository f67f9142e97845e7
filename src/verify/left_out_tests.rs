//! Definitions left out of an equivalence compile's code generation
//! (`compile_for_equivalence_leaving_out`): declared, not defined, in the
//! bitcode, each reported with clang's ODR hash, which follows the body
//! as clang parsed it, macros expanded.

use super::*;
use crate::settings::options::{CompileOptions, Target};

const SOURCE: &str = r#"
#ifndef SCALE
#define SCALE 3
#endif
int twice(int x) { return 2 * x; }
int scaled(int x) { return SCALE * twice(x); }
__attribute__((overloadable)) int pick(int x) { return x; }
__kernel void run(__global int *out) { out[0] = scaled(out[0]) + pick(1); }
"#;

/// `SOURCE` (with `defines`) compiled for the equivalence triple as 2.0,
/// leaving out `names`: its functions (name -> defined) and what was left out.
fn compiled(defines: &[&str], names: &[&str]) -> (BTreeMap<String, bool>, LeftOut) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unit.cl");
    std::fs::write(&path, SOURCE).unwrap();
    let mut args = CompileOptions::default().clang_args_for(Some(&Target::Cl20.std_flags()), EQUIVALENCE_TRIPLE);
    args.extend(defines.iter().map(|d| d.to_string()));
    let names: BTreeSet<String> = names.iter().map(|n| n.to_string()).collect();
    let compiled = compile_for_equivalence_leaving_out(&path, &args, &BTreeMap::new(), Some(&names))
        .expect("clang-19 compiles it (scripts/setup)");
    let context = Context::create();
    let module = load(&context, &compiled.bitcode, "unit.cl").unwrap();
    let functions = module.functions().into_iter().map(|f| (f.name.clone(), f.is_definition)).collect();
    (functions, compiled.left_out.expect("a compile told what to leave out says what it left out"))
}

#[test]
fn a_left_out_definition_is_declared_and_reported_with_its_hash() {
    let (functions, left_out) = compiled(&[], &["scaled", "run", "pick", "absent"]);
    assert_eq!(functions.get("scaled"), Some(&false), "declared: {functions:?}");
    // Not named: defined as before, though only what was left out calls it.
    assert_eq!(functions.get("twice"), Some(&true), "{functions:?}");
    // A kernel and an overloadable function are always emitted.
    assert_eq!(functions.get("run"), Some(&true), "{functions:?}");
    assert!(functions.iter().any(|(name, defined)| name.contains("pick") && *defined), "{functions:?}");
    assert_eq!(left_out.helpers.keys().collect::<Vec<_>>(), ["scaled"]);
    let (whole, none) = compiled(&[], &[]);
    assert_eq!((whole.get("scaled"), whole.get("twice")), (Some(&true), Some(&true)), "{whole:?}");
    assert!(none.helpers.is_empty(), "only the context: {none:?}");
    assert_eq!(none.context, left_out.context, "leaving a definition out leaves the context as it was");
}

#[test]
fn the_hash_follows_the_body_as_the_preprocessor_gave_it() {
    let (_, plain) = compiled(&[], &["scaled", "twice"]);
    let (_, again) = compiled(&[], &["scaled", "twice"]);
    let (_, other) = compiled(&["-DSCALE=4"], &["scaled", "twice"]);
    assert_eq!(plain, again);
    assert_eq!(plain.helpers["twice"], other.helpers["twice"]);
    assert_eq!(plain.context, other.context, "SCALE is in no declaration");
    assert_ne!(plain.helpers["scaled"], other.helpers["scaled"], "SCALE expands to another literal");
}
