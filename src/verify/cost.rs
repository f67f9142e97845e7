//! What an equivalence comparison would cost, estimated before it runs.
//!
//! The pipeline inlines every helper a kernel still defines, so its time
//! and memory follow the kernel's *inlined* size: each call site costs its
//! callee's whole inlined size again. A megakernel calling a few thousand
//! helpers, which call others, inlines to millions of instructions, and
//! the pipeline then runs for many minutes and gigabytes. The estimate
//! counts, per kernel, its instructions plus, at each call of a defined
//! non-kernel function, that function's estimate (kernels stay calls);
//! functions kept out of the pipeline (declared: alike on both sides, or
//! proven on their own) cost nothing. It is exact for unoptimised IR
//! before inlining, an upper bound of what inlining makes.
//!
//! It walks instructions and call sites through `lower`'s IR view: no
//! `unsafe` here.

use std::collections::HashMap;

use crate::front::lower::{LoadedModule, Val};

/// The kernel of `module` whose inlined size is largest, with that size
/// (instructions, saturating); `None` without kernels.
pub(super) fn largest_inlined_kernel(module: &mut LoadedModule<'_>) -> Option<(String, u64)> {
    let mut sizes = HashMap::new();
    let mut largest: Option<(String, u64)> = None;
    for function in module.function_values() {
        if function.is_defined_function() && function.is_kernel() {
            let size = inlined_size(function, &mut sizes);
            if largest.as_ref().is_none_or(|(_, most)| size > *most) {
                largest = Some((function.name(), size));
            }
        }
    }
    largest
}

/// `function`'s instructions, each call of a defined non-kernel function
/// counting that function's inlined size too (memoised in `sizes`; a
/// function met again while being counted, which OpenCL C forbids, costs
/// nothing more).
fn inlined_size<'m>(function: Val<'m>, sizes: &mut HashMap<Val<'m>, u64>) -> u64 {
    if let Some(size) = sizes.get(&function) {
        return *size;
    }
    sizes.insert(function, 0);
    let mut size: u64 = 0;
    for instruction in function.instructions() {
        size = size.saturating_add(1);
        if let Some(callee) = instruction.called_function() {
            if callee.is_defined_function() && !callee.is_kernel() {
                size = size.saturating_add(inlined_size(callee, sizes));
            }
        }
    }
    sizes.insert(function, size);
    size
}
