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
//! An FFI boundary module, like `pipeline.rs`: it prints functions (with
//! one slot tracker per module, `src/native/function_print.cpp`), makes
//! declarations and replaces uses through llvm-sys, where inkwell has no API.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMAttributeFunctionIndex;

use super::canonical::canonical_type_names;
use crate::lower::{string_of, LoadedModule, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

extern "C" {
    fn clasp_slot_tracker_new(module: LLVMModuleRef) -> *mut std::ffi::c_void;
    fn clasp_print_value(tracker: *mut std::ffi::c_void, value: LLVMValueRef) -> *mut std::os::raw::c_char;
    fn clasp_slot_tracker_free(tracker: *mut std::ffi::c_void);
}

/// One module's values printed as `LLVMPrintValueToString` prints them,
/// numbered once for the whole module instead of once per value printed.
struct Printer(*mut std::ffi::c_void);

impl Printer {
    /// SAFETY: `module` is alive, outlives the printer and does not change while it lives.
    unsafe fn new(module: LLVMModuleRef) -> Printer {
        Printer(clasp_slot_tracker_new(module))
    }

    /// `value`'s text; `LLVMPrintValueToString`'s when no tracker could be made.
    ///
    /// SAFETY: `value` belongs to the printer's module.
    unsafe fn print(&self, value: LLVMValueRef) -> String {
        let (text, free): (_, unsafe fn(*mut std::os::raw::c_char)) = if self.0.is_null() {
            (LLVMPrintValueToString(value), |text| LLVMDisposeMessage(text))
        } else {
            (clasp_print_value(self.0, value), |text| libc::free(text.cast()))
        };
        if text.is_null() {
            return String::new();
        }
        let printed = std::ffi::CStr::from_ptr(text).to_string_lossy().into_owned();
        free(text);
        printed
    }
}

impl Drop for Printer {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by `clasp_slot_tracker_new`, freed once.
            unsafe { clasp_slot_tracker_free(self.0) }
        }
    }
}

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
    let printer = Printer::new(module.module().as_mut_ptr());
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
        // A struct prints as its name and its body: two layouts never read alike.
        let printed = (printer.print(function).lines())
            .map(|line| canonical_type_names(&without_numbering(line), context, &mut structs))
            .collect::<Vec<_>>()
            .join("\n");
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
    use super::{without_numbering, Printer};
    use crate::lower::{load, Context};
    use llvm_sys::core::*;

    /// Printing with one tracker for the module reads exactly as printing
    /// each function on its own: numbered values, attribute groups,
    /// metadata attachments, structs and unnamed globals alike.
    #[test]
    fn one_tracker_prints_what_one_print_per_function_prints() {
        let ir = "%struct.T = type { float, i32 }\n\
             @0 = private addrspace(1) constant [2 x i32] [i32 1, i32 2]\n\
             @table = addrspace(1) global %struct.T zeroinitializer\n\
             define internal float @h(ptr addrspace(1) %p, i32 %i) #0 {\n  \
               %q = getelementptr inbounds %struct.T, ptr addrspace(1) %p, i32 %i\n  \
               %1 = load float, ptr addrspace(1) %q, align 4, !tbaa !0\n  \
               %2 = load i32, ptr addrspace(1) @0, align 4\n  \
               %3 = sitofp i32 %2 to float\n  \
               %4 = fadd float %1, %3\n  \
               ret float %4\n}\n\
             define amdgpu_kernel void @k(ptr addrspace(1) %out) #1 {\n  \
               %v = call float @h(ptr addrspace(1) @table, i32 1) #0\n  \
               store float %v, ptr addrspace(1) %out, align 4, !tbaa !0\n  \
               ret void\n}\n\
             attributes #0 = { nounwind \"x\"=\"y\" }\n\
             attributes #1 = { convergent }\n\
             !0 = !{!1, !1, i64 0}\n!1 = !{!\"float\", !2}\n!2 = !{!\"tbaa root\"}\n";
        let context = Context::create();
        let module = load(&context, ir.as_bytes(), "t.ll").expect("the test IR parses");
        // SAFETY: the module is alive and unchanged while the printer lives.
        unsafe {
            let raw = module.module().as_mut_ptr();
            let printer = Printer::new(raw);
            assert!(!printer.0.is_null());
            let mut function = LLVMGetFirstFunction(raw);
            let mut printed = 0;
            while !function.is_null() {
                let alone = LLVMPrintValueToString(function);
                let expected = std::ffi::CStr::from_ptr(alone).to_string_lossy().into_owned();
                LLVMDisposeMessage(alone);
                assert_eq!(printer.print(function), expected);
                printed += 1;
                function = LLVMGetNextFunction(function);
            }
            assert_eq!(printed, 2);
        }
    }

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
