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
//! An FFI boundary module, like `pipeline.rs`: it walks instructions and
//! call sites through llvm-sys.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use super::opaque::{is_kernel, name_of};
use crate::front::lower::LoadedModule;

/// The kernel of `module` whose inlined size is largest, with that size
/// (instructions, saturating); `None` without kernels.
pub(super) fn largest_inlined_kernel(module: &mut LoadedModule<'_>) -> Option<(String, u64)> {
    let mut sizes = HashMap::new();
    let mut largest: Option<(String, u64)> = None;
    // SAFETY: the module is alive and not otherwise borrowed; every handle comes from it.
    unsafe {
        let mut function = LLVMGetFirstFunction(module.module().as_mut_ptr());
        while !function.is_null() {
            if LLVMCountBasicBlocks(function) > 0 && is_kernel(function) {
                let size = inlined_size(function, &mut sizes);
                if largest.as_ref().is_none_or(|(_, most)| size > *most) {
                    largest = Some((name_of(function), size));
                }
            }
            function = LLVMGetNextFunction(function);
        }
    }
    largest
}

/// `function`'s instructions, each call of a defined non-kernel function
/// counting that function's inlined size too (memoised in `sizes`; a
/// function met again while being counted, which OpenCL C forbids, costs
/// nothing more).
///
/// SAFETY: `function` belongs to a live module.
unsafe fn inlined_size(function: LLVMValueRef, sizes: &mut HashMap<LLVMValueRef, u64>) -> u64 {
    if let Some(size) = sizes.get(&function) {
        return *size;
    }
    sizes.insert(function, 0);
    let mut size: u64 = 0;
    let mut block = LLVMGetFirstBasicBlock(function);
    while !block.is_null() {
        let mut instruction = LLVMGetFirstInstruction(block);
        while !instruction.is_null() {
            size = size.saturating_add(1);
            if !LLVMIsACallInst(instruction).is_null() {
                let callee = LLVMIsAFunction(LLVMGetCalledValue(instruction));
                if !callee.is_null() && LLVMCountBasicBlocks(callee) > 0 && !is_kernel(callee) {
                    size = size.saturating_add(inlined_size(callee, sizes));
                }
            }
            instruction = LLVMGetNextInstruction(instruction);
        }
        block = LLVMGetNextBasicBlock(block);
    }
    sizes.insert(function, size);
    size
}
