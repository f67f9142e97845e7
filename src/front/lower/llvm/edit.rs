//! The edits `verify` makes to a loaded module before it optimises and
//! compares it: a definition replaced by a declaration (its calls rebuilt
//! for another signature), a kernel that calls a function added, a
//! program-scope variable made a declaration, instructions built before
//! another (`IrBuilder`), an unused function deleted, the pass options.
//!
//! What frees IR takes `&mut LoadedModule` and names, so no `Val` or
//! `Ty` borrowed from the module is alive when it runs. What only adds IR
//! or changes a value in place takes `&self`. Types and values handed in
//! are checked to belong to the module (or its context) before anything is
//! built with them: a proof's wrapper kernels and declarations take types
//! from the other module of a check, which is loaded in the same context.

use std::marker::PhantomData;

use inkwell::passes::PassBuilderOptions;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAttributeFunctionIndex, LLVMAttributeReturnIndex};

use super::{LoadedModule, Ty, Val, AMDGPU_KERNEL_CC};

/// Pass options with the inliner threshold set (inkwell 0.11 has no setter for it).
pub(crate) fn pass_options(inliner_threshold: i32) -> PassBuilderOptions {
    let options = PassBuilderOptions::create();
    // SAFETY: `options` is alive.
    unsafe {
        llvm_sys::transforms::pass_builder::LLVMPassBuilderOptionsSetInlinerThreshold(options.as_mut_ptr(), inliner_threshold)
    };
    options
}

impl<'ctx> LoadedModule<'ctx> {
    /// Replaces the definition of `name` with a declaration of the same type,
    /// calling convention and function attributes, named `declared`; returns
    /// its type (`None` when the module defines no `name`).
    pub(crate) fn replace_with_declaration(&mut self, name: &str, declared: &str) -> Option<Ty<'ctx>> {
        let function = self.defined_function(name)?.raw;
        // SAFETY: a defined function of this module, which no handle outlives
        // (`&mut self`); the declaration has the same type, so it takes every use.
        unsafe {
            let function_type = LLVMGlobalGetValueType(function);
            let declaration = self.declaration_like(function, declared, function_type)?;
            LLVMReplaceAllUsesWith(function, declaration);
            LLVMDeleteFunction(function);
            Some(Ty::of(function_type))
        }
    }

    /// Replaces the definition of `name` with a declaration named `declared`
    /// of `declared_type` (the same return type, pointers of other spaces
    /// where `name` takes others), each call casting its pointers to the
    /// declared spaces. When `name` is used other than called, or the types
    /// differ otherwise (or belong to another context), it is declared as it is.
    pub(crate) fn replace_with_declaration_of_type(&mut self, name: &str, declared: &str, declared_type: Ty<'_>) {
        let Some(function) = self.defined_function(name) else { return };
        let calls: Option<Vec<LLVMValueRef>> =
            function.users().map(|user| (user.called_function() == Some(function)).then_some(user.raw)).collect();
        let params = match (calls.as_ref(), self.castable_signature(function, declared_type)) {
            (Some(_), Some(params)) => params,
            _ => {
                self.replace_with_declaration(name, declared);
                return;
            }
        };
        let function = function.raw;
        // SAFETY: `function` is a defined function of this module, called
        // only by `calls` (each with one argument per parameter); the new calls
        // take the same arguments, cast between pointer spaces only, and
        // return the same type; no handle outlives the deletions (`&mut self`).
        unsafe {
            let Some(declaration) = self.declaration_like(function, declared, declared_type.raw) else { return };
            let builder = LLVMCreateBuilderInContext(self.context());
            for call in calls.unwrap_or_default() {
                LLVMPositionBuilderBefore(builder, call);
                let mut args: Vec<LLVMValueRef> = (params.iter().enumerate())
                    .map(|(i, param)| {
                        let arg = LLVMGetOperand(call, i as u32);
                        if LLVMTypeOf(arg) == param.raw {
                            arg
                        } else {
                            LLVMBuildAddrSpaceCast(builder, arg, param.raw, c"".as_ptr())
                        }
                    })
                    .collect();
                let replacement =
                    LLVMBuildCall2(builder, declared_type.raw, declaration, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
                LLVMSetInstructionCallConv(replacement, LLVMGetInstructionCallConv(call));
                copy_call_attributes(call, replacement, params.len());
                LLVMReplaceAllUsesWith(call, replacement);
                LLVMInstructionEraseFromParent(call);
            }
            LLVMDisposeBuilder(builder);
            LLVMDeleteFunction(function);
        }
    }

    /// `declared_type`'s parameters, when it is a function type of this
    /// module's context that differs from `function`'s type only by the
    /// spaces of pointer parameters.
    fn castable_signature<'t>(&self, function: Val<'_>, declared_type: Ty<'t>) -> Option<Vec<Ty<'t>>> {
        let declared = declared_type.signature().filter(|_| declared_type.context() == self.context())?;
        let own = function.function_type()?.signature()?;
        let castable = |a: &Ty<'_>, b: &Ty<'t>| a.raw == b.raw || (a.pointer_space().is_some() && b.pointer_space().is_some());
        let alike = own.returns.raw == declared.returns.raw
            && !own.var_arg
            && !declared.var_arg
            && own.params.len() == declared.params.len()
            && own.params.iter().zip(&declared.params).all(|(a, b)| castable(a, b));
        alike.then_some(declared.params)
    }

    /// A declaration named `declared` of `function_type`, with `function`'s
    /// calling convention and function attributes.
    ///
    /// SAFETY: `function` is a function of this module; `function_type` a function type of its context.
    unsafe fn declaration_like(
        &self,
        function: LLVMValueRef,
        declared: &str,
        function_type: LLVMTypeRef,
    ) -> Option<LLVMValueRef> {
        let name = std::ffi::CString::new(declared).ok()?;
        let declaration = LLVMAddFunction(self.module().as_mut_ptr(), name.as_ptr(), function_type);
        LLVMSetFunctionCallConv(declaration, LLVMGetFunctionCallConv(function));
        let count = LLVMGetAttributeCountAtIndex(function, LLVMAttributeFunctionIndex);
        let mut attributes: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); count as usize];
        LLVMGetAttributesAtIndex(function, LLVMAttributeFunctionIndex, attributes.as_mut_ptr());
        for attribute in attributes {
            LLVMAddAttributeAtIndex(declaration, LLVMAttributeFunctionIndex, attribute);
        }
        Some(declaration)
    }

    /// Deletes the function `name` when nothing uses it; whether it did.
    pub(crate) fn delete_unused_function(&mut self, name: &str) -> bool {
        let Ok(c_name) = std::ffi::CString::new(name) else { return false };
        // SAFETY: the module is alive; the function is deleted only when
        // unused, and no handle outlives the deletion (`&mut self`).
        unsafe {
            let function = LLVMGetNamedFunction(self.module().as_mut_ptr(), c_name.as_ptr());
            if function.is_null() || !LLVMGetFirstUse(function).is_null() {
                return false;
            }
            LLVMDeleteFunction(function);
        }
        true
    }

    /// Adds a kernel named `kernel` taking `params` (and, for a function
    /// returning a value, a global pointer it stores that value to) that
    /// calls `function` with them, each pointer cast to the space
    /// `function` takes. Adds nothing (and says so) when `function` is no
    /// function of this module, a type belongs to another context, or
    /// `params` differ from `function`'s parameters otherwise.
    pub(crate) fn add_calling_kernel(&self, kernel: &str, function: Val<'_>, params: &[Ty<'_>]) -> bool {
        let Some(signature) = function.function_type().and_then(|t| t.signature()) else { return false };
        // SAFETY: a function; its parent module is read to compare.
        let ours = unsafe { LLVMGetGlobalParent(function.raw) } == self.module().as_mut_ptr();
        let castable = |given: &Ty<'_>, taken: &Ty<'_>| {
            given.context() == self.context()
                && (given.raw == taken.raw || (given.pointer_space().is_some() && taken.pointer_space().is_some()))
        };
        let Ok(name) = std::ffi::CString::new(kernel) else { return false };
        if !ours || signature.var_arg || signature.params.len() != params.len() {
            return false;
        }
        if !params.iter().zip(&signature.params).all(|(given, taken)| castable(given, taken)) {
            return false;
        }
        // SAFETY: `function` is a function of this module; every type is of its
        // context; each argument is cast only between pointer spaces.
        unsafe { self.build_calling_kernel(&name, function.raw, params, &signature.params, !signature.returns.is_void()) };
        true
    }

    /// See `add_calling_kernel`.
    ///
    /// SAFETY: as `add_calling_kernel` checks.
    unsafe fn build_calling_kernel(
        &self,
        name: &std::ffi::CStr,
        function: LLVMValueRef,
        params: &[Ty<'_>],
        taken: &[Ty<'_>],
        returns_value: bool,
    ) {
        let context = self.context();
        let mut wrapper_params: Vec<LLVMTypeRef> = params.iter().map(|p| p.raw).collect();
        if returns_value {
            wrapper_params.push(LLVMPointerTypeInContext(context, 1));
        }
        let wrapper_type =
            LLVMFunctionType(LLVMVoidTypeInContext(context), wrapper_params.as_mut_ptr(), wrapper_params.len() as u32, 0);
        let wrapper = LLVMAddFunction(self.module().as_mut_ptr(), name.as_ptr(), wrapper_type);
        LLVMSetFunctionCallConv(wrapper, AMDGPU_KERNEL_CC);
        let entry = LLVMAppendBasicBlockInContext(context, wrapper, c"entry".as_ptr());
        let builder = LLVMCreateBuilderInContext(context);
        LLVMPositionBuilderAtEnd(builder, entry);
        let mut args: Vec<LLVMValueRef> = (0..params.len())
            .map(|i| {
                let param = LLVMGetParam(wrapper, i as u32);
                if taken[i].raw == params[i].raw {
                    param
                } else {
                    LLVMBuildAddrSpaceCast(builder, param, taken[i].raw, c"".as_ptr())
                }
            })
            .collect();
        let callee_type = LLVMGlobalGetValueType(function);
        let call = LLVMBuildCall2(builder, callee_type, function, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
        LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(function));
        if returns_value {
            LLVMBuildStore(builder, call, LLVMGetParam(wrapper, params.len() as u32));
        }
        LLVMBuildRetVoid(builder);
        LLVMDisposeBuilder(builder);
    }

    /// A builder of instructions in this module.
    pub(crate) fn builder(&self) -> IrBuilder<'_> {
        // SAFETY: the module's context is alive; the builder is disposed of when dropped.
        let raw = unsafe { LLVMCreateBuilderInContext(self.context()) };
        IrBuilder { raw, context: self.context(), _module: PhantomData }
    }
}

impl Val<'_> {
    /// Makes a program-scope variable a declaration: its initialiser
    /// dropped, its linkage external. Any other value is left as it is.
    pub(crate) fn drop_initializer(&self) {
        if self.has_initializer() {
            // SAFETY: a global variable with an initialiser (a constant, uniqued in its context, not freed).
            unsafe {
                LLVMSetInitializer(self.raw, std::ptr::null_mut());
                LLVMSetLinkage(self.raw, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
            }
        }
    }
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

/// Builds instructions into one module (see `LoadedModule::builder`).
pub(crate) struct IrBuilder<'m> {
    raw: LLVMBuilderRef,
    context: LLVMContextRef,
    _module: PhantomData<&'m ()>,
}

impl<'m> IrBuilder<'m> {
    /// Panics unless `value` is of the builder's context (building with another's is undefined).
    fn check(&self, value: Val<'m>) -> LLVMValueRef {
        assert!(value.ty().context() == self.context, "a value of another context");
        value.raw
    }

    /// Builds what comes next just before `instruction`.
    pub(crate) fn position_before(&self, instruction: Val<'m>) {
        assert!(instruction.opcode().is_some(), "a builder is positioned before an instruction");
        // SAFETY: an instruction of this context.
        unsafe { LLVMPositionBuilderBefore(self.raw, self.check(instruction)) };
    }

    /// `getelementptr [inbounds] element, pointer, indices...` (a constant when all are).
    pub(crate) fn gep(&self, element: Ty<'m>, pointer: Val<'m>, indices: &[Val<'m>], in_bounds: bool) -> Val<'m> {
        assert!(element.context() == self.context, "a type of another context");
        let mut indices: Vec<LLVMValueRef> = indices.iter().map(|i| self.check(*i)).collect();
        // SAFETY: every operand is of this context; the result is checked to be an instruction before it is marked.
        unsafe {
            let built = LLVMBuildGEP2(
                self.raw,
                element.raw,
                self.check(pointer),
                indices.as_mut_ptr(),
                indices.len() as u32,
                c"".as_ptr(),
            );
            if !LLVMIsAGetElementPtrInst(built).is_null() {
                LLVMSetIsInBounds(built, i32::from(in_bounds));
            }
            Val::of(built)
        }
    }

    /// `addrspacecast value to ty`.
    pub(crate) fn address_space_cast(&self, value: Val<'m>, ty: Ty<'m>) -> Val<'m> {
        assert!(ty.context() == self.context, "a type of another context");
        // SAFETY: both are of this context.
        Val::of(unsafe { LLVMBuildAddrSpaceCast(self.raw, self.check(value), ty.raw, c"".as_ptr()) })
    }
}

impl Drop for IrBuilder<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `LLVMCreateBuilderInContext`, disposed of once.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}
