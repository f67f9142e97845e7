//! Functions the two compilations of a check share unchanged are kept out of
//! the equivalence pipeline: their bodies are dropped on both sides, and the
//! kernels compare their calls to them as calls.
//!
//! A kernel is compared with every helper inlined, so a change inside one
//! helper used to cost the optimisation of the whole kernel with everything
//! it calls (a hash kernel's rounds, a big codebase's shared headers). A
//! function whose unoptimised IR is the same on both sides (same
//! instructions, same callees, same globals, same address spaces) behaves
//! the same on both sides, so calling it is the same on both sides: it needs
//! neither inlining nor optimisation. Only what differs (the changed
//! helpers, their callers whose calls changed, functions reading a moved
//! table) is inlined and optimised, as before.
//!
//! An FFI boundary module, like `pipeline.rs`: it prints functions, makes
//! declarations and replaces uses through llvm-sys, where inkwell has no API.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMAttributeFunctionIndex;

use super::canonical::canonical_type_names;
use crate::lower::{string_of, LoadedModule, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

/// The prefix a shared function's declaration is renamed with on both
/// sides: no `_Z` prefix, so the canonical printer never mistakes it for a
/// library builtin (whose flat casts it looks through).
const SHARED_PREFIX: &str = "clasp.same.";

/// Drops the body of every non-kernel function defined alike in `original`
/// and `migrated`, on both sides; returns how many.
pub(super) fn share_identical(original: &mut LoadedModule<'_>, migrated: &mut LoadedModule<'_>) -> usize {
    // SAFETY: both modules are alive and not otherwise borrowed; every
    // handle comes from them; strings LLVM allocates are disposed of.
    unsafe {
        let before = fingerprints(original);
        let after = fingerprints(migrated);
        let mut shared: HashSet<&String> =
            before.iter().filter(|(name, (print, _))| after.get(*name).map(|(p, _)| p) == Some(print)).map(|(n, _)| n).collect();
        // A function calling one that differs differs too (its calls do
        // something else), whatever its own text: shared only with every
        // function it calls, to the leaves.
        loop {
            let differing: Vec<&String> = (shared.iter().copied())
                .filter(|name| before[*name].1.iter().chain(&after[*name].1).any(|callee| !shared.contains(callee)))
                .collect();
            if differing.is_empty() {
                break;
            }
            for name in differing {
                shared.remove(name);
            }
        }
        for name in &shared {
            declare_only(original, name);
            declare_only(migrated, name);
        }
        shared.len()
    }
}

/// Every defined non-kernel function the kernels reach, by name: its IR as
/// printed (metadata attachments and attribute-group numbers left out, they
/// are numbered per module; each struct as its name without the context's
/// suffix, then its body), and the defined functions it calls.
///
/// SAFETY: the module is alive.
unsafe fn fingerprints(module: &mut LoadedModule<'_>) -> HashMap<String, (String, Vec<String>)> {
    let mut out = HashMap::new();
    let context = LLVMGetModuleContext(module.module().as_mut_ptr());
    let mut structs = HashMap::new();
    // Only what the kernels reach: the rest is never inlined into anything compared.
    let mut pending: Vec<LLVMValueRef> = Vec::new();
    let mut function = LLVMGetFirstFunction(module.module().as_mut_ptr());
    while !function.is_null() {
        let cc = LLVMGetFunctionCallConv(function);
        if LLVMCountBasicBlocks(function) > 0 && (cc == AMDGPU_KERNEL_CC || cc == SPIR_KERNEL_CC) {
            pending.extend(defined_callees(function));
        }
        function = LLVMGetNextFunction(function);
    }
    while let Some(function) = pending.pop() {
        let cc = LLVMGetFunctionCallConv(function);
        let name = name_of(function);
        if cc == AMDGPU_KERNEL_CC || cc == SPIR_KERNEL_CC || out.contains_key(&name) {
            continue;
        }
        let callees = defined_callees(function);
        let text = LLVMPrintValueToString(function);
        // A struct prints as its name and its body: two layouts never read alike.
        let printed = (std::ffi::CStr::from_ptr(text).to_string_lossy().lines())
            .map(|line| canonical_type_names(&without_numbering(line), context, &mut structs))
            .collect::<Vec<_>>()
            .join("\n");
        LLVMDisposeMessage(text);
        out.insert(name, (printed, callees.iter().map(|c| name_of(*c)).collect()));
        pending.extend(callees);
    }
    out
}

/// SAFETY: `value` is a valid value.
unsafe fn name_of(value: LLVMValueRef) -> String {
    let mut len = 0usize;
    string_of(LLVMGetValueName2(value, &mut len), len)
}

/// The functions with a body that `function` calls (kernels included).
///
/// SAFETY: `function` is a defined function of a live module.
unsafe fn defined_callees(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut callees = Vec::new();
    let mut block = LLVMGetFirstBasicBlock(function);
    while !block.is_null() {
        let mut inst = LLVMGetFirstInstruction(block);
        while !inst.is_null() {
            if !LLVMIsACallInst(inst).is_null() {
                let callee = LLVMGetCalledValue(inst);
                if !LLVMIsAFunction(callee).is_null() && LLVMCountBasicBlocks(callee) > 0 {
                    callees.push(callee);
                }
            }
            inst = LLVMGetNextInstruction(inst);
        }
        block = LLVMGetNextBasicBlock(block);
    }
    callees
}

/// A printed IR line without what is numbered per module: metadata
/// attachments (`, !tbaa !12`) and attribute groups (`#3`). (Struct names,
/// numbered per context, are `canonical_type_names`' job.)
fn without_numbering(line: &str) -> String {
    let line = line.split(", !").next().unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            out.push('#');
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// Replaces the definition of `name` with a declaration of the same type,
/// calling convention and function attributes, renamed `clasp.same.NAME`.
///
/// SAFETY: the module is alive and defines `name`.
unsafe fn declare_only(module: &mut LoadedModule<'_>, name: &str) {
    let raw = module.module().as_mut_ptr();
    let Ok(cname) = std::ffi::CString::new(name) else { return };
    let function = LLVMGetNamedFunction(raw, cname.as_ptr());
    if function.is_null() {
        return;
    }
    let Ok(shared) = std::ffi::CString::new(format!("{SHARED_PREFIX}{name}")) else { return };
    let declaration = LLVMAddFunction(raw, shared.as_ptr(), LLVMGlobalGetValueType(function));
    LLVMSetFunctionCallConv(declaration, LLVMGetFunctionCallConv(function));
    let count = LLVMGetAttributeCountAtIndex(function, LLVMAttributeFunctionIndex);
    let mut attributes: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); count as usize];
    LLVMGetAttributesAtIndex(function, LLVMAttributeFunctionIndex, attributes.as_mut_ptr());
    for attribute in attributes {
        LLVMAddAttributeAtIndex(declaration, LLVMAttributeFunctionIndex, attribute);
    }
    LLVMReplaceAllUsesWith(function, declaration);
    LLVMDeleteFunction(function);
}

#[cfg(test)]
mod tests {
    use super::without_numbering;

    #[test]
    fn numbering_per_module_is_left_out() {
        assert_eq!(
            without_numbering("  %3 = load float, ptr addrspace(1) %2, align 4, !tbaa !12"),
            "  %3 = load float, ptr addrspace(1) %2, align 4"
        );
        assert_eq!(without_numbering("define internal float @f(ptr %p) #3 {"), "define internal float @f(ptr %p)  {");
        assert_eq!(without_numbering("  %add.1 = fadd float %x.0, 1.0"), "  %add.1 = fadd float %x.0, 1.0");
        assert_eq!(without_numbering("  call void @g(i32 7) #5"), "  call void @g(i32 7) ");
    }
}
