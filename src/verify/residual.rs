//! Residual generic accesses (the lint `residual-generic`): the memory
//! accesses of a kernel that still go through flat (generic, amdgcn address
//! space 0) pointers after the equivalence pipeline, by kind and by where
//! the pointer comes from.
//!
//! They are counted in two places, from the bitcode the check already has
//! (nothing is compiled again):
//!
//! - in every canonical kernel a comparison makes (`canonical.rs` records
//!   each access through `flat::record_access`): every helper inlined, address
//!   spaces inferred, so what stays flat is a pointer whose space depends
//!   on data (a `select` or `phi` between spaces) or one kept in memory;
//! - when a result keeps a helper out of line (`noinline` in the source)
//!   with a generic pointer parameter, which a GPU compiler honours and
//!   the comparison does not (it inlines every helper, so that a source
//!   `noinline` cannot keep a parameter opaque on one side only): both
//!   sides are optimised once more with such helpers left out of line
//!   (`out_of_line_regressions`), and a helper's accesses count in every
//!   kernel that calls it.
//!
//! The equivalence IR is compiled without debug info (`-g0`), so the
//! cause is said by the helper's name or the instruction that made the
//! pointer, not by a source line.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use inkwell::attributes::{Attribute, AttributeLoc};

use super::flat::{record_access, AccessKind, FlatAccesses, FLAT_SPACE};
use super::{within_limit, FlatRegression, VerifyError};
use crate::front::lower::{Context, LoadedModule, Val};

/// The defined helpers (not kernels) of `module` whose source marks them
/// `noinline` and that take a generic pointer: a GPU compiler keeps them
/// out of line, where that pointer stays generic.
pub(super) fn generic_helpers_kept_out_of_line(module: &LoadedModule<'_>) -> BTreeSet<String> {
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    let marked = module.module().get_functions().filter(|f| f.get_enum_attribute(AttributeLoc::Function, noinline).is_some());
    let names = marked.map(|f| f.get_name().to_string_lossy().into_owned());
    names
        .filter(|name| {
            let helper = module.defined_function(name).filter(|f| !f.is_kernel());
            helper.is_some_and(|f| f.params().iter().any(|p| p.ty().pointer_space() == Some(FLAT_SPACE)))
        })
        .collect()
}

/// Each kernel's accesses through flat pointers in a module optimised with
/// helpers kept out of line: its own, and those of every defined function
/// it calls (counted at each call, under the helper's name).
fn kernels_with_helpers(module: &LoadedModule<'_>) -> BTreeMap<String, FlatAccesses> {
    let mut helpers: HashMap<Val<'_>, FlatAccesses> = HashMap::new();
    let mut out = BTreeMap::new();
    for function in module.function_values().filter(|f| f.is_kernel() && f.is_defined_function()) {
        out.insert(function.name(), accesses_with_helpers(function, &mut helpers));
    }
    out
}

/// `function`'s accesses through flat pointers, each call of a defined
/// non-kernel function adding that function's (memoised in `helpers`; one
/// met again while counted, which OpenCL C forbids, adds nothing).
fn accesses_with_helpers<'m>(function: Val<'m>, helpers: &mut HashMap<Val<'m>, FlatAccesses>) -> FlatAccesses {
    if let Some(known) = helpers.get(&function) {
        return known.clone();
    }
    helpers.insert(function, FlatAccesses::default());
    let mut flat = FlatAccesses::default();
    for inst in function.instructions() {
        record_access(inst, &mut flat);
        let Some(callee) = inst.called_function() else { continue };
        if callee.is_defined_function() && !callee.is_kernel() {
            let name = callee.name();
            let helper = accesses_with_helpers(callee, helpers);
            flat.add_out_of_line(crate::facts::ir::demangled_base(&name), &helper);
        } else if callee.name().starts_with("_Z") {
            for argument in inst.arguments() {
                flat.record_if_flat(AccessKind::Builtin, argument);
            }
        }
    }
    helpers.insert(function, flat.clone());
    flat
}

/// When the result (`migrated`, unoptimised bitcode) keeps a helper with a
/// generic pointer parameter out of line: both sides optimised with such
/// helpers left out of line, and the kernels with more flat accesses in
/// the result than in the original. `None` when it keeps none (the
/// comparison's counts stand), or when a side is over `limit`.
pub(super) fn out_of_line_regressions(
    context: &Context,
    (original, migrated): (&[u8], &[u8]),
    name: &str,
    only: Option<&BTreeSet<String>>,
    limit: Option<u64>,
) -> Result<Option<Vec<FlatRegression>>, VerifyError> {
    let mut after = super::loaded(context, migrated, name, only)?;
    if generic_helpers_kept_out_of_line(&after).is_empty() {
        return Ok(None);
    }
    let mut before = super::loaded(context, original, name, only)?;
    if within_limit(&mut before, &mut after, limit, "").is_err() {
        return Ok(None);
    }
    let counted = |module: &mut LoadedModule<'_>| -> Result<BTreeMap<String, FlatAccesses>, VerifyError> {
        super::pipeline::optimise_for_equivalence(module, super::pipeline::Inlining::HonouringNoinline)?;
        Ok(kernels_with_helpers(module))
    };
    let (before, after) = (counted(&mut before)?, counted(&mut after)?);
    Ok(Some(regressions(&before, &after)))
}

/// The kernels with more flat accesses in `after` than in `before` (a kernel
/// missing from `before` had none).
pub(super) fn regressions(
    before: &BTreeMap<String, FlatAccesses>,
    after: &BTreeMap<String, FlatAccesses>,
) -> Vec<FlatRegression> {
    let none = FlatAccesses::default();
    (after.iter())
        .filter_map(|(kernel, flat)| {
            let original = before.get(kernel).unwrap_or(&none).total();
            (flat.total() > original).then(|| FlatRegression {
                kernel: kernel.clone(),
                before: original,
                after: flat.total(),
                detail: flat.describe(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::canonical_kernels_from_bitcode;

    const LAYOUT: &str = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9";

    /// The flat accesses of kernel `k` (textual amdgcn IR, `body` spliced in), as a comparison counts them.
    fn counted(body: &str) -> FlatAccesses {
        let ir = format!(
            "target datalayout = \"{LAYOUT}\"\ntarget triple = \"amdgcn-amd-amdhsa\"\n\
             declare void @llvm.memcpy.p0.p1.i64(ptr, ptr addrspace(1), i64, i1)\n\
             declare ptr @pick(ptr addrspace(1))\n\
             define amdgpu_kernel void @k(ptr addrspace(1) %g, ptr addrspace(3) %l, ptr addrspace(1) %pp, i1 %c) {{\n{body}\n}}\n"
        );
        let context = Context::create();
        let kernels = canonical_kernels_from_bitcode(&context, ir.as_bytes(), "t.ll").expect("valid IR");
        kernels.into_iter().find(|k| k.name == "k").unwrap().flat
    }

    #[test]
    fn each_access_is_counted_by_kind_and_by_where_its_flat_pointer_comes_from() {
        let flat = counted(
            "entry:\n  %fg = addrspacecast ptr addrspace(1) %g to ptr\n  %fl = addrspacecast ptr addrspace(3) %l to ptr\n  \
             %s = select i1 %c, ptr %fg, ptr %fl\n  %x = load float, ptr %s, align 4\n  \
             %at = getelementptr float, ptr %s, i64 1\n  store float %x, ptr %at, align 4\n  \
             %kept = load ptr, ptr addrspace(1) %pp, align 8\n  %old = atomicrmw add ptr %kept, i32 1 seq_cst, align 4\n  \
             call void @llvm.memcpy.p0.p1.i64(ptr %fl, ptr addrspace(1) %g, i64 4, i1 false)\n  \
             %r = call ptr @pick(ptr addrspace(1) %g)\n  store i32 0, ptr %r, align 4\n  \
             store float %x, ptr addrspace(1) %g, align 4\n  br i1 %c, label %a, label %b\n\
             a:\n  br label %m\nb:\n  br label %m\n\
             m:\n  %p = phi ptr [ %fg, %a ], [ %fl, %b ]\n  %z = load float, ptr %p, align 4\n  ret void",
        );
        // The store through the named global pointer is no flat access.
        assert_eq!(flat.total(), 6);
        assert_eq!(
            flat.describe(),
            "1 load, 1 store through a pointer chosen by a select; 1 load through a pointer merged by a phi; \
             1 atomic through a pointer loaded from memory; 1 store through a pointer returned by a call; \
             1 memory copy through a pointer cast to generic"
        );
    }

    #[test]
    fn named_accesses_count_nothing_and_regressions_name_only_kernels_with_more() {
        let named = counted(
            "entry:\n  %x = load float, ptr addrspace(3) %l, align 4\n  store float %x, ptr addrspace(1) %g, align 4\n  ret void",
        );
        assert_eq!((named.total(), named.describe().as_str()), (0, ""));
        let select = counted(
            "entry:\n  %fg = addrspacecast ptr addrspace(1) %g to ptr\n  %fl = addrspacecast ptr addrspace(3) %l to ptr\n  \
             %s = select i1 %c, ptr %fg, ptr %fl\n  %x = load float, ptr %s, align 4\n  ret void",
        );
        let before = BTreeMap::from([("k".to_string(), select.clone()), ("same".to_string(), select.clone())]);
        let after =
            BTreeMap::from([("k".to_string(), named), ("same".to_string(), select.clone()), ("new".to_string(), select.clone())]);
        // Fewer (`k`) or as many (`same`) are no regression; a kernel the original lacks had none.
        let found = regressions(&before, &after);
        assert_eq!(
            found,
            [FlatRegression {
                kernel: "new".into(),
                before: 0,
                after: 1,
                detail: "1 load through a pointer chosen by a select".into()
            }]
        );
    }
}
