//! Types of a loaded module, as `verify` reads them: pointer spaces,
//! integer widths, struct bodies, function signatures, printed text.
//!
//! A `Ty` borrows its module like a `Val`; types belong to the module's
//! context, so one may be handed to another module of the same context
//! (`edit.rs` checks that it is before it builds with it).

use std::marker::PhantomData;

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;

use super::print::take_message;
use super::LoadedModule;

/// A type of a loaded module's context.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Ty<'m> {
    pub(super) raw: LLVMTypeRef,
    _module: PhantomData<&'m ()>,
}

impl std::fmt::Debug for Ty<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ty({})", self.print())
    }
}

/// A named struct's body (see `Ty::struct_body`).
pub(crate) enum StructBody<'m> {
    /// Declared without a body.
    Opaque,
    /// Its element types, in order, and whether it is packed.
    Elements { elements: Vec<Ty<'m>>, packed: bool },
}

/// A function type's parts (see `Ty::signature`).
pub(crate) struct Signature<'m> {
    pub(crate) returns: Ty<'m>,
    pub(crate) params: Vec<Ty<'m>>,
    pub(crate) var_arg: bool,
}

impl<'m> Ty<'m> {
    /// A handle on `raw`, a type of a context that `'m` keeps alive.
    pub(super) fn of(raw: LLVMTypeRef) -> Ty<'m> {
        Ty { raw, _module: PhantomData }
    }

    fn kind(&self) -> LLVMTypeKind {
        // SAFETY: a valid type.
        unsafe { LLVMGetTypeKind(self.raw) }
    }

    /// `ptr addrspace(N)`'s N, when the type is a pointer.
    pub(crate) fn pointer_space(&self) -> Option<u32> {
        // SAFETY: the kind is checked before the space is read.
        (self.kind() == LLVMTypeKind::LLVMPointerTypeKind).then(|| unsafe { LLVMGetPointerAddressSpace(self.raw) })
    }

    /// Whether the type is `void`.
    pub(crate) fn is_void(&self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVoidTypeKind
    }

    /// An integer type's width in bits; `None` for any other type.
    pub(crate) fn int_width(&self) -> Option<u32> {
        // SAFETY: the kind is checked before the width is read.
        (self.kind() == LLVMTypeKind::LLVMIntegerTypeKind).then(|| unsafe { LLVMGetIntTypeWidth(self.raw) })
    }

    /// A struct type's body; `None` for any other type.
    pub(crate) fn struct_body(&self) -> Option<StructBody<'m>> {
        if self.kind() != LLVMTypeKind::LLVMStructTypeKind {
            return None;
        }
        // SAFETY: a struct type; indices are below its element count.
        unsafe {
            if LLVMIsOpaqueStruct(self.raw) != 0 {
                return Some(StructBody::Opaque);
            }
            let elements = (0..LLVMCountStructElementTypes(self.raw)).map(|i| Ty::of(LLVMStructGetTypeAtIndex(self.raw, i)));
            Some(StructBody::Elements { elements: elements.collect(), packed: LLVMIsPackedStruct(self.raw) != 0 })
        }
    }

    /// A function type's return type, parameter types and whether it takes
    /// varargs; `None` for any other type.
    pub(crate) fn signature(&self) -> Option<Signature<'m>> {
        if self.kind() != LLVMTypeKind::LLVMFunctionTypeKind {
            return None;
        }
        // SAFETY: a function type; `params` has room for its parameter count.
        unsafe {
            let mut params = vec![std::ptr::null_mut(); LLVMCountParamTypes(self.raw) as usize];
            LLVMGetParamTypes(self.raw, params.as_mut_ptr());
            Some(Signature {
                returns: Ty::of(LLVMGetReturnType(self.raw)),
                params: params.into_iter().map(Ty::of).collect(),
                var_arg: LLVMIsFunctionVarArg(self.raw) != 0,
            })
        }
    }

    /// The type as LLVM prints it (`ptr addrspace(1)`, `%struct.T`).
    pub(crate) fn print(&self) -> String {
        // SAFETY: a valid type; the message is LLVM's to dispose of, which `take_message` does.
        unsafe { take_message(LLVMPrintTypeToString(self.raw)) }
    }

    /// The context the type belongs to.
    pub(super) fn context(&self) -> LLVMContextRef {
        // SAFETY: a valid type.
        unsafe { LLVMGetTypeContext(self.raw) }
    }
}

impl LoadedModule<'_> {
    /// The named type (`struct.T` for `%struct.T`) of the module's context, if there is one.
    pub(crate) fn named_type(&self, name: &str) -> Option<Ty<'_>> {
        let c_name = std::ffi::CString::new(name).ok().filter(|_| !name.is_empty())?;
        // SAFETY: the module's context is alive; the name is NUL-terminated.
        let ty = unsafe { LLVMGetTypeByName2(self.context(), c_name.as_ptr()) };
        (!ty.is_null()).then(|| Ty::of(ty))
    }

    /// The width in bytes of a pointer of address space `space`, by the module's data layout.
    pub(crate) fn pointer_size(&self, space: u32) -> u32 {
        // SAFETY: the data layout is the module's and alive.
        unsafe { llvm_sys::target::LLVMPointerSizeForAS(self.target_data().as_mut_ptr(), space) }
    }

    /// Whether `other` was loaded in the same context (so one's types are the other's).
    pub(crate) fn shares_context(&self, other: &LoadedModule<'_>) -> bool {
        self.context() == other.context()
    }

    /// The module's context.
    pub(super) fn context(&self) -> LLVMContextRef {
        // SAFETY: the module is alive.
        unsafe { LLVMGetModuleContext(self.module().as_mut_ptr()) }
    }
}
