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
use llvm_sys::{LLVMAttributeFunctionIndex, LLVMAttributeReturnIndex};

use super::canonical::canonical_type_names;
use super::ProofScope;
use super::PROVEN_PREFIX;
use crate::front::lower::{string_of, LoadedModule, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

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

/// What `share_identical` found.
pub(super) struct Sharing {
    /// Functions defined alike, now declared only on both sides.
    pub(super) shared: usize,
    /// Functions the original defines that the result defines differently
    /// (or merged into another), each a candidate for a proof of its own.
    pub(super) changed: Vec<Candidate>,
}

/// A function of the original and the result's function its callers call
/// instead (itself, or the survivor of a merge), with what a proof of the
/// two depends on.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub(super) original: String,
    pub(super) result: String,
    pub(super) key: ProofKey,
}

/// What a function-level proof depends on: both names and, on each side,
/// every function it runs, by name, with its text and the declarations of
/// the program-scope variables it names (their initialisers are no part of a proof).
pub(super) type ProofKey = (String, String, Closure, Closure);
pub(super) type Closure = std::collections::BTreeMap<String, (String, Vec<String>)>;

/// A function's text (see `fingerprints`), the defined functions it calls,
/// and the program-scope variables it names, as declared.
struct Fingerprint {
    print: String,
    callees: Vec<String>,
    globals: Vec<String>,
}

/// Drops the body of every non-kernel function defined alike in `original`
/// and `migrated`, on both sides; returns how many, and the functions
/// `scope` lets be proven on their own that are defined differently.
pub(super) fn share_identical(original: &mut LoadedModule<'_>, migrated: &mut LoadedModule<'_>, scope: &ProofScope) -> Sharing {
    // SAFETY: both modules are alive and not otherwise borrowed; every
    // handle comes from them; strings LLVM allocates are disposed of.
    unsafe {
        let before = fingerprints(original);
        let after = fingerprints(migrated);
        let mut shared: HashSet<&String> = (before.iter())
            .filter(|(name, mark)| after.get(*name).map(|m| &m.print) == Some(&mark.print))
            .map(|(n, _)| n)
            .collect();
        // A function calling one that differs differs too (its calls do
        // something else), whatever its own text: shared only with every
        // function it calls, to the leaves.
        loop {
            let differing: Vec<&String> = (shared.iter().copied())
                .filter(|name| before[*name].callees.iter().chain(&after[*name].callees).any(|callee| !shared.contains(callee)))
                .collect();
            if differing.is_empty() {
                break;
            }
            for name in differing {
                shared.remove(name);
            }
        }
        let changed = changed(&before, &after, &shared, scope);
        for name in &shared {
            declare_only(original, name, &format!("{SHARED_PREFIX}{name}"));
            declare_only(migrated, name, &format!("{SHARED_PREFIX}{name}"));
        }
        Sharing { shared: shared.len(), changed }
    }
}

/// The functions of the original (that the kernels reach) that `scope`
/// lets be proven and that are not shared, with the result's function
/// replacing them (the same name, or the survivor of a merge) when the
/// kernels reach it, each with a key: the texts of
/// both and of everything they call, to the leaves. Two checks giving a
/// pair the same key would prove it alike, so a proof is kept by that key.
/// A function reaching a kernel (whose text `fingerprints` does not keep) is none.
fn changed(
    before: &HashMap<String, Fingerprint>,
    after: &HashMap<String, Fingerprint>,
    shared: &HashSet<&String>,
    scope: &ProofScope,
) -> Vec<Candidate> {
    let closure = |side: &HashMap<String, Fingerprint>, name: &String| {
        let mut seen = std::collections::BTreeMap::new();
        let mut pending = vec![name];
        while let Some(next) = pending.pop() {
            let mark = side.get(next)?;
            if !seen.contains_key(next) {
                seen.insert(next.clone(), (mark.print.clone(), mark.globals.clone()));
                pending.extend(&mark.callees);
            }
        }
        Some(seen)
    };
    let mut out: Vec<Candidate> = (before.keys())
        .filter(|name| (scope.every_function || scope.shared.contains(*name)) && !shared.contains(name))
        .filter_map(|name| {
            let result = scope.merged.get(name).filter(|r| after.contains_key(*r)).unwrap_or(name);
            let key = (name.clone(), result.clone(), closure(before, name)?, closure(after, result)?);
            Some(Candidate { original: name.clone(), result: result.clone(), key })
        })
        .collect();
    out.sort_by(|a, b| a.original.cmp(&b.original));
    out
}

/// Declares the functions proven on their own only, on both sides, by the
/// result's name (LLVM numbers a second original proven against the same
/// result function: `canonical.rs` reads the name without that number).
/// A result function standing for one original only is declared with the
/// original's parameters, its calls casting their flat pointers back to the
/// named space: InferAddressSpaces then folds each pair of casts, through
/// any offsets taken in between, and the call reads as the original's. (A
/// cast it cannot fold, the pointer coming from elsewhere, stays a line of
/// its own, and the kernels differ.)
pub(super) fn declare_proven(original: &mut LoadedModule<'_>, migrated: &mut LoadedModule<'_>, proven: &[Candidate]) {
    let mut standing_for: HashMap<&str, usize> = HashMap::new();
    for pair in proven {
        *standing_for.entry(pair.result.as_str()).or_default() += 1;
    }
    for pair in proven {
        let declared = format!("{PROVEN_PREFIX}{}", pair.result);
        // SAFETY: both modules are alive, share one context, and are not otherwise borrowed.
        unsafe {
            let original_type = declare_only(original, &pair.original, &declared);
            match original_type {
                Some(original_type) if standing_for[pair.result.as_str()] == 1 => {
                    declare_with_type(migrated, &pair.result, &declared, original_type)
                }
                // Declared once however many originals it stands for (then no longer defined).
                _ => drop(declare_only(migrated, &pair.result, &declared)),
            }
        }
    }
}

/// Every defined non-kernel function the kernels reach, by name: its IR as
/// printed (metadata attachments and attribute-group numbers left out, they
/// are numbered per module; each struct as its name without the context's
/// suffix, then its body), the defined functions it calls, and the
/// program-scope variables it names.
///
/// SAFETY: the module is alive.
unsafe fn fingerprints(module: &mut LoadedModule<'_>) -> HashMap<String, Fingerprint> {
    let mut out = HashMap::new();
    let context = LLVMGetModuleContext(module.module().as_mut_ptr());
    let mut structs = HashMap::new();
    let printer = Printer::new(module.module().as_mut_ptr());
    // Only what the kernels reach: the rest is never inlined into anything compared.
    let mut pending: Vec<LLVMValueRef> = Vec::new();
    let mut function = LLVMGetFirstFunction(module.module().as_mut_ptr());
    while !function.is_null() {
        if LLVMCountBasicBlocks(function) > 0 && is_kernel(function) {
            pending.extend(defined_callees(function));
        }
        function = LLVMGetNextFunction(function);
    }
    while let Some(function) = pending.pop() {
        let name = name_of(function);
        if is_kernel(function) || out.contains_key(&name) {
            continue;
        }
        let callees = defined_callees(function);
        // A struct prints as its name and its body: two layouts never read alike.
        let printed = (printer.print(function).lines())
            .map(|line| canonical_type_names(&without_numbering(line), context, &mut structs))
            .collect::<Vec<_>>()
            .join("\n");
        let globals = (named_globals(function).into_iter())
            .map(|g| canonical_type_names(&global_declaration(g), context, &mut structs))
            .collect();
        out.insert(name, Fingerprint { print: printed, callees: callees.iter().map(|c| name_of(*c)).collect(), globals });
        pending.extend(callees);
    }
    out
}

/// The program-scope variables `function`'s instructions name, directly or
/// inside constant expressions, in order of first use.
///
/// SAFETY: `function` is a defined function of a live module.
unsafe fn named_globals(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut found = Vec::new();
    for inst in instructions(function) {
        let mut pending: Vec<LLVMValueRef> =
            (0..LLVMGetNumOperands(inst).max(0) as u32).map(|i| LLVMGetOperand(inst, i)).collect();
        while let Some(value) = pending.pop() {
            if value.is_null() {
                continue;
            }
            if !LLVMIsAGlobalVariable(value).is_null() {
                if !found.contains(&value) {
                    found.push(value);
                }
            } else if !LLVMIsAConstantExpr(value).is_null() {
                pending.extend((0..LLVMGetNumOperands(value).max(0) as u32).map(|i| LLVMGetOperand(value, i)));
            }
        }
    }
    found
}

/// `function`'s instructions, block by block.
///
/// SAFETY: `function` is a defined function of a live module.
unsafe fn instructions(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut block = LLVMGetFirstBasicBlock(function);
    while !block.is_null() {
        let mut inst = LLVMGetFirstInstruction(block);
        while !inst.is_null() {
            out.push(inst);
            inst = LLVMGetNextInstruction(inst);
        }
        block = LLVMGetNextBasicBlock(block);
    }
    out
}

/// A program-scope variable as a declaration reads: name, space, type,
/// whether constant, alignment (not its initialiser).
///
/// SAFETY: `global` is a global variable of a live module.
unsafe fn global_declaration(global: LLVMValueRef) -> String {
    let ty = LLVMPrintTypeToString(LLVMGlobalGetValueType(global));
    let type_text = std::ffi::CStr::from_ptr(ty).to_string_lossy().into_owned();
    LLVMDisposeMessage(ty);
    format!(
        "@{} addrspace({}) {} {type_text} align {}",
        name_of(global),
        LLVMGetPointerAddressSpace(LLVMTypeOf(global)),
        if LLVMIsGlobalConstant(global) != 0 { "constant" } else { "global" },
        LLVMGetAlignment(global)
    )
}

/// SAFETY: `value` is a valid value.
pub(super) unsafe fn name_of(value: LLVMValueRef) -> String {
    let mut len = 0usize;
    string_of(LLVMGetValueName2(value, &mut len), len)
}

/// The functions with a body that `function` calls (kernels included).
///
/// SAFETY: `function` is a defined function of a live module.
unsafe fn defined_callees(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    (instructions(function).into_iter())
        .filter(|inst| !LLVMIsACallInst(*inst).is_null())
        .map(|call| LLVMGetCalledValue(call))
        .filter(|callee| !LLVMIsAFunction(*callee).is_null() && LLVMCountBasicBlocks(*callee) > 0)
        .collect()
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
/// calling convention and function attributes, named `declared`; returns its type.
///
/// SAFETY: the module is alive.
unsafe fn declare_only(module: &mut LoadedModule<'_>, name: &str, declared: &str) -> Option<LLVMTypeRef> {
    let function = defined(module.module().as_mut_ptr(), name)?;
    let function_type = LLVMGlobalGetValueType(function);
    let declaration = declaration_like(module, function, declared, function_type)?;
    LLVMReplaceAllUsesWith(function, declaration);
    LLVMDeleteFunction(function);
    Some(function_type)
}

/// Replaces the definition of `name` with a declaration of `declared_type`
/// (the same return type, pointers of named spaces where `name` takes flat
/// ones), each call casting its flat pointers to the declared spaces. When
/// `name` is used other than called, it is declared as it is.
///
/// SAFETY: the module is alive; `declared_type` is a function type of its context.
unsafe fn declare_with_type(module: &mut LoadedModule<'_>, name: &str, declared: &str, declared_type: LLVMTypeRef) {
    let Some(function) = defined(module.module().as_mut_ptr(), name) else { return };
    let calls = callers(function);
    if calls.is_none() || LLVMCountParamTypes(declared_type) != LLVMCountParams(function) {
        declare_only(module, name, declared);
        return;
    }
    let Some(declaration) = declaration_like(module, function, declared, declared_type) else { return };
    let mut params = vec![std::ptr::null_mut(); LLVMCountParamTypes(declared_type) as usize];
    LLVMGetParamTypes(declared_type, params.as_mut_ptr());
    let context = LLVMGetModuleContext(module.module().as_mut_ptr());
    let builder = LLVMCreateBuilderInContext(context);
    for call in calls.unwrap_or_default() {
        LLVMPositionBuilderBefore(builder, call);
        let mut args: Vec<LLVMValueRef> = (params.iter().enumerate())
            .map(|(i, &param)| {
                let arg = LLVMGetOperand(call, i as u32);
                if LLVMTypeOf(arg) == param {
                    arg
                } else {
                    LLVMBuildAddrSpaceCast(builder, arg, param, c"".as_ptr())
                }
            })
            .collect();
        let replacement = LLVMBuildCall2(builder, declared_type, declaration, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
        LLVMSetInstructionCallConv(replacement, LLVMGetInstructionCallConv(call));
        copy_call_attributes(call, replacement, params.len());
        LLVMReplaceAllUsesWith(call, replacement);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(builder);
    LLVMDeleteFunction(function);
}

/// The call-site attributes of `from` (the function's, the result's and
/// each of `params` parameters') given to `to`, so the call claims what
/// clang's call claimed.
///
/// SAFETY: both are calls of a live module, with `params` arguments each.
unsafe fn copy_call_attributes(from: LLVMValueRef, to: LLVMValueRef, params: usize) {
    let indices = [LLVMAttributeFunctionIndex, LLVMAttributeReturnIndex].into_iter().chain(1..=params as u32);
    for index in indices {
        let count = LLVMGetCallSiteAttributeCount(from, index);
        let mut attributes: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); count as usize];
        LLVMGetCallSiteAttributes(from, index, attributes.as_mut_ptr());
        for attribute in attributes {
            LLVMAddCallSiteAttribute(to, index, attribute);
        }
    }
}

/// `name`'s definition in the module.
///
/// SAFETY: `module` is alive.
pub(super) unsafe fn defined(module: LLVMModuleRef, name: &str) -> Option<LLVMValueRef> {
    let cname = std::ffi::CString::new(name).ok()?;
    let function = LLVMGetNamedFunction(module, cname.as_ptr());
    (!function.is_null() && LLVMCountBasicBlocks(function) > 0).then_some(function)
}

/// Whether `function` is a kernel (SPIR's or amdgcn's calling convention).
///
/// SAFETY: `function` is a function of a live module.
pub(super) unsafe fn is_kernel(function: LLVMValueRef) -> bool {
    matches!(LLVMGetFunctionCallConv(function), AMDGPU_KERNEL_CC | SPIR_KERNEL_CC)
}

/// Every call of `function`, when calling is all that is done with it.
///
/// SAFETY: `function` is a function of a live module.
unsafe fn callers(function: LLVMValueRef) -> Option<Vec<LLVMValueRef>> {
    let mut calls = Vec::new();
    let mut used = LLVMGetFirstUse(function);
    while !used.is_null() {
        let user = LLVMGetUser(used);
        if LLVMIsACallInst(user).is_null() || LLVMGetCalledValue(user) != function {
            return None;
        }
        calls.push(user);
        used = LLVMGetNextUse(used);
    }
    Some(calls)
}

/// A declaration named `declared` of `function_type`, with `function`'s
/// calling convention and function attributes.
///
/// SAFETY: the module is alive; `function` is one of its functions.
unsafe fn declaration_like(
    module: &mut LoadedModule<'_>,
    function: LLVMValueRef,
    declared: &str,
    function_type: LLVMTypeRef,
) -> Option<LLVMValueRef> {
    let name = std::ffi::CString::new(declared).ok()?;
    let declaration = LLVMAddFunction(module.module().as_mut_ptr(), name.as_ptr(), function_type);
    LLVMSetFunctionCallConv(declaration, LLVMGetFunctionCallConv(function));
    let count = LLVMGetAttributeCountAtIndex(function, LLVMAttributeFunctionIndex);
    let mut attributes: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); count as usize];
    LLVMGetAttributesAtIndex(function, LLVMAttributeFunctionIndex, attributes.as_mut_ptr());
    for attribute in attributes {
        LLVMAddAttributeAtIndex(declaration, LLVMAttributeFunctionIndex, attribute);
    }
    Some(declaration)
}

#[cfg(test)]
mod tests {
    use super::{without_numbering, Printer};
    use crate::front::lower::{load, Context};
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
