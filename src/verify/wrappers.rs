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
//! An FFI boundary module, like `opaque.rs`: it builds functions through
//! llvm-sys, where inkwell's builder would need the two modules' types
//! re-derived by hand.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;

use super::opaque::{defined, is_kernel};
use crate::front::lower::{string_of, LoadedModule, AMDGPU_KERNEL_CC};

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
    // SAFETY: both modules are alive, share one context (checked), and are
    // not otherwise borrowed; every handle comes from them.
    unsafe {
        let (before, after) = (original.module().as_mut_ptr(), migrated.module().as_mut_ptr());
        if LLVMGetModuleContext(before) != LLVMGetModuleContext(after) {
            return wrapped;
        }
        for (name, result) in pairs {
            let (Some(f_before), Some(f_after)) = (helper(before, name), helper(after, result)) else { continue };
            let Some(params) = original_parameters(f_before, f_after) else { continue };
            add_wrapper(before, f_before, name, &params);
            add_wrapper(after, f_after, name, &params);
            wrapped.push((name.clone(), result.clone()));
        }
    }
    wrapped
}

/// `name`, when the module defines it and it is no kernel.
///
/// SAFETY: `module` is alive.
unsafe fn helper(module: LLVMModuleRef, name: &str) -> Option<LLVMValueRef> {
    defined(module, name).filter(|function| !is_kernel(*function))
}

/// The original's parameter types, when the two definitions differ at most
/// by pointers made generic and return the same type.
///
/// SAFETY: both are functions of live modules of one context.
unsafe fn original_parameters(before: LLVMValueRef, after: LLVMValueRef) -> Option<Vec<LLVMTypeRef>> {
    let (type_before, type_after) = (LLVMGlobalGetValueType(before), LLVMGlobalGetValueType(after));
    let count = LLVMCountParamTypes(type_before);
    if LLVMGetReturnType(type_before) != LLVMGetReturnType(type_after)
        || count != LLVMCountParamTypes(type_after)
        || LLVMIsFunctionVarArg(type_before) != 0
        || LLVMIsFunctionVarArg(type_after) != 0
    {
        return None;
    }
    let mut params_before = vec![std::ptr::null_mut(); count as usize];
    let mut params_after = vec![std::ptr::null_mut(); count as usize];
    LLVMGetParamTypes(type_before, params_before.as_mut_ptr());
    LLVMGetParamTypes(type_after, params_after.as_mut_ptr());
    let made_generic = |b: LLVMTypeRef, a: LLVMTypeRef| {
        LLVMGetTypeKind(b) == LLVMTypeKind::LLVMPointerTypeKind
            && LLVMGetTypeKind(a) == LLVMTypeKind::LLVMPointerTypeKind
            && LLVMGetPointerAddressSpace(b) != 0
            && LLVMGetPointerAddressSpace(a) == 0
    };
    params_before.iter().zip(&params_after).all(|(&b, &a)| b == a || made_generic(b, a)).then_some(params_before)
}

/// A kernel `clasp.proof.NAME` taking `params` (and, for a function
/// returning a value, a global pointer it stores that value to) and
/// calling `function` with them, each cast to the type `function` takes.
///
/// SAFETY: `module` is alive and defines `function`; `params` are types of its context.
unsafe fn add_wrapper(module: LLVMModuleRef, function: LLVMValueRef, name: &str, params: &[LLVMTypeRef]) {
    let context = LLVMGetModuleContext(module);
    let callee_type = LLVMGlobalGetValueType(function);
    let returned = LLVMGetReturnType(callee_type);
    let returns_value = LLVMGetTypeKind(returned) != LLVMTypeKind::LLVMVoidTypeKind;
    let mut wrapper_params = params.to_vec();
    if returns_value {
        wrapper_params.push(LLVMPointerTypeInContext(context, 1));
    }
    let wrapper_type =
        LLVMFunctionType(LLVMVoidTypeInContext(context), wrapper_params.as_mut_ptr(), wrapper_params.len() as u32, 0);
    let Ok(wrapper_name) = std::ffi::CString::new(format!("{WRAPPER_PREFIX}{name}")) else { return };
    let wrapper = LLVMAddFunction(module, wrapper_name.as_ptr(), wrapper_type);
    LLVMSetFunctionCallConv(wrapper, AMDGPU_KERNEL_CC);
    let entry = LLVMAppendBasicBlockInContext(context, wrapper, c"entry".as_ptr());
    let builder = LLVMCreateBuilderInContext(context);
    LLVMPositionBuilderAtEnd(builder, entry);
    let mut callee_params = vec![std::ptr::null_mut(); params.len()];
    LLVMGetParamTypes(callee_type, callee_params.as_mut_ptr());
    let mut args: Vec<LLVMValueRef> = (0..params.len())
        .map(|i| {
            let param = LLVMGetParam(wrapper, i as u32);
            if callee_params[i] == params[i] {
                param
            } else {
                LLVMBuildAddrSpaceCast(builder, param, callee_params[i], c"".as_ptr())
            }
        })
        .collect();
    let call = LLVMBuildCall2(builder, callee_type, function, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(function));
    if returns_value {
        LLVMBuildStore(builder, call, LLVMGetParam(wrapper, params.len() as u32));
    }
    LLVMBuildRetVoid(builder);
    LLVMDisposeBuilder(builder);
}

/// Makes every program-scope variable a declaration (its initialiser
/// dropped, external): a proof then holds whatever data the variables hold
/// (the kernels' comparison compares the data itself), so it is kept by the
/// functions' texts and the variables' declarations alone.
pub(super) fn without_initialisers(module: &mut LoadedModule<'_>) {
    // SAFETY: the module is alive and not otherwise borrowed; only its own globals are changed.
    unsafe {
        let mut global = LLVMGetFirstGlobal(module.module().as_mut_ptr());
        while !global.is_null() {
            let mut len = 0usize;
            let name = string_of(LLVMGetValueName2(global, &mut len), len);
            if !LLVMGetInitializer(global).is_null() && !name.starts_with("llvm.") {
                LLVMSetInitializer(global, std::ptr::null_mut());
                LLVMSetLinkage(global, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
            }
            global = LLVMGetNextGlobal(global);
        }
    }
}
