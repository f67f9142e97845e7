//! The kernels that state a function-level proof: for a function a check
//! changed, one kernel on each side that calls it as the original's callers
//! did (with the original's parameter types) and stores what it returns.
//!
//! On the original's side the wrapper passes its parameters as they are; on
//! the result's side it casts each pointer the result made generic from the
//! space the original's parameter names (as every caller in the original
//! did, implicitly). Both then go through the equivalence pipeline with the
//! function inlined: equal canonical wrappers prove that calling the
//! result's function with a pointer of that space does what calling the
//! original's did.
//!
//! It builds the wrappers through `lower`'s IR view
//! (`LoadedModule::add_calling_kernel`), which takes one module's types
//! into the other's after checking they share a context: no `unsafe` here.

use crate::front::lower::{LoadedModule, Ty, Val};

/// The prefix of a wrapper kernel's name: no `_Z`, no C identifier can spell it.
pub(super) const WRAPPER_PREFIX: &str = "clasp.proof.";

/// Adds a wrapper kernel `clasp.proof.ORIGINAL` for each pair (the
/// original's function, the result's function its callers call instead)
/// whose definitions can be compared this way, to both modules (loaded in
/// the same context); returns those pairs. A pair qualifies when both are
/// defined (not as kernels), return the same type, and take the same
/// parameters but for pointers the result made generic (a named space in
/// the original, the flat space in the result).
pub(super) fn add_wrappers(
    original: &mut LoadedModule<'_>,
    migrated: &mut LoadedModule<'_>,
    pairs: &[(String, String)],
) -> Vec<(String, String)> {
    let mut wrapped = Vec::new();
    if !original.shares_context(migrated) {
        return wrapped;
    }
    for (name, result) in pairs {
        let (Some(f_before), Some(f_after)) = (helper(original, name), helper(migrated, result)) else { continue };
        let Some(params) = original_parameters(f_before, f_after) else { continue };
        let kernel = format!("{WRAPPER_PREFIX}{name}");
        if original.add_calling_kernel(&kernel, f_before, &params) && migrated.add_calling_kernel(&kernel, f_after, &params) {
            wrapped.push((name.clone(), result.clone()));
        }
    }
    wrapped
}

/// `name`, when the module defines it and it is no kernel.
fn helper<'m>(module: &'m LoadedModule<'_>, name: &str) -> Option<Val<'m>> {
    module.defined_function(name).filter(|function| !function.is_kernel())
}

/// The original's parameter types, when the two definitions differ at most
/// by pointers made generic and return the same type.
fn original_parameters<'m>(before: Val<'m>, after: Val<'_>) -> Option<Vec<Ty<'m>>> {
    let (before, after) = (before.function_type()?.signature()?, after.function_type()?.signature()?);
    if before.returns != after.returns || before.params.len() != after.params.len() || before.var_arg || after.var_arg {
        return None;
    }
    let made_generic = |b: &Ty<'_>, a: &Ty<'_>| b.pointer_space().is_some_and(|space| space != 0) && a.pointer_space() == Some(0);
    let alike = before.params.iter().zip(&after.params).all(|(b, a)| b == a || made_generic(b, a));
    alike.then_some(before.params)
}

/// Makes every program-scope variable a declaration (its initialiser
/// dropped, external): a proof then holds whatever data the variables hold
/// (the kernels' comparison compares the data itself), so it is kept by the
/// functions' texts and the variables' declarations alone.
pub(super) fn without_initialisers(module: &mut LoadedModule<'_>) {
    for global in module.global_values() {
        if global.has_initializer() && !global.name().starts_with("llvm.") {
            global.drop_initializer();
        }
    }
}
