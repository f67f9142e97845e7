//! Calls to a declared function that compares by name (a library builtin,
//! a function proven on its own), given an offset flat pointer, rewritten
//! so the offset is taken in the named space first.
//!
//! Such a function takes flat parameters on one side where the other
//! passed a named pointer or a flat one cast earlier: a merged helper
//! proven on its own stands for several originals (its `__global` and
//! `__local` members), and a 2.0 build declares only the generic overload
//! of `vload8`, so a helper made generic hands it `p - n` computed on the
//! flat pointer where the original cast `p - n` of its `__local` pointer.
//! Once InferAddressSpaces has run, the migrated side computes
//! `getelementptr (addrspacecast p to flat), -n`. InferAddressSpaces cannot
//! take the cast past the offset (a call's parameter type is not its to
//! change), so the call reads differently from the original's
//! `call f(addrspacecast (getelementptr p, -n))` though it passes the same
//! address. Between the two halves of the pipeline
//! (`pipeline::optimise_for_equivalence`), each such argument is rebuilt as
//! `addrspacecast (getelementptr p, 4) to flat` where the flat offset was taken: the
//! same address (an offset commutes with a cast from a named space to
//! flat, the rule InferAddressSpaces rests on), the offset now in the named
//! space, where early CSE and GVN merge it with the original's own, and the
//! cast looked through as for any such call (`canonical.rs`).
//!
//! An FFI boundary module: it rewrites instructions through llvm-sys.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

use super::canonical::compares_by_name;
use crate::front::lower::LoadedModule;

/// Rewrites every offset flat argument of a call to a function that compares
/// by name (see the module's doc).
pub(super) fn offsets_in_named_spaces(module: &LoadedModule<'_>) {
    // SAFETY: the module is alive and not otherwise borrowed; every handle
    // comes from it; the builder is disposed of.
    unsafe {
        let context = LLVMGetModuleContext(module.module().as_mut_ptr());
        let builder = LLVMCreateBuilderInContext(context);
        let mut function = LLVMGetFirstFunction(module.module().as_mut_ptr());
        while !function.is_null() {
            let mut block = LLVMGetFirstBasicBlock(function);
            while !block.is_null() {
                let mut instruction = LLVMGetFirstInstruction(block);
                while !instruction.is_null() {
                    if !LLVMIsACallInst(instruction).is_null() && compares_by_name(instruction) {
                        rewrite_arguments(builder, instruction);
                    }
                    instruction = LLVMGetNextInstruction(instruction);
                }
                block = LLVMGetNextBasicBlock(block);
            }
            function = LLVMGetNextFunction(function);
        }
        LLVMDisposeBuilder(builder);
    }
}

/// Each argument of `call` that is a chain of offsets from a cast to flat
/// of a named-space pointer, rebuilt as the offsets in that space, then the cast.
///
/// SAFETY: `call` is a live call instruction; `builder` belongs to its context.
unsafe fn rewrite_arguments(builder: LLVMBuilderRef, call: LLVMValueRef) {
    let arguments = LLVMGetNumArgOperands(call);
    for index in 0..arguments {
        let argument = LLVMGetOperand(call, index);
        let Some((named, offsets)) = offsets_from_named(argument) else { continue };
        // Where the flat offset was taken, as the original took its own there.
        LLVMPositionBuilderBefore(builder, offsets[0]);
        let mut pointer = named;
        for gep in offsets.iter().rev() {
            let mut indices: Vec<LLVMValueRef> = (1..LLVMGetNumOperands(*gep) as u32).map(|i| LLVMGetOperand(*gep, i)).collect();
            let ty = LLVMGetGEPSourceElementType(*gep);
            pointer = LLVMBuildGEP2(builder, ty, pointer, indices.as_mut_ptr(), indices.len() as u32, c"".as_ptr());
            if !LLVMIsAGetElementPtrInst(pointer).is_null() {
                LLVMSetIsInBounds(pointer, LLVMIsInBounds(*gep));
            }
        }
        let flat = LLVMBuildAddrSpaceCast(builder, pointer, LLVMTypeOf(argument), c"".as_ptr());
        LLVMSetOperand(call, index, flat);
    }
}

/// When `value` is one or more `getelementptr`s over a cast to flat of a
/// pointer of a named space: that pointer, and the offsets (outermost first).
///
/// SAFETY: `value` is a live value.
unsafe fn offsets_from_named(value: LLVMValueRef) -> Option<(LLVMValueRef, Vec<LLVMValueRef>)> {
    let mut offsets = Vec::new();
    let mut current = value;
    while !LLVMIsAGetElementPtrInst(current).is_null() {
        offsets.push(current);
        current = LLVMGetOperand(current, 0);
    }
    if offsets.is_empty()
        || LLVMIsAInstruction(current).is_null()
        || LLVMGetInstructionOpcode(current) != LLVMOpcode::LLVMAddrSpaceCast
    {
        return None;
    }
    let named = LLVMGetOperand(current, 0);
    let space = LLVMGetPointerAddressSpace(LLVMTypeOf(named));
    (space != LLVMGetPointerAddressSpace(LLVMTypeOf(current))).then_some((named, offsets))
}
