//! What `verify` reads of a value, beyond what `lower` reads (`mod.rs`):
//! exact opcodes, kinds, types, callees, users, the blocks and
//! instructions of a function, and the few edits that free nothing
//! (names, metadata, operands).
//!
//! Every method is safe: a `Val` borrows its module, so the module
//! outlives it, and each method checks the kind of value it is given
//! before it asks LLVM what only that kind answers (a called function of a
//! call, the element type of a `getelementptr`). What frees IR (deleting a
//! function, erasing a call) is a method of `&mut LoadedModule` that
//! takes names, not handles (`edit.rs`), so no `Val` outlives what it names.

use std::marker::PhantomData;
use std::os::raw::c_uint;

use inkwell::values::InstructionOpcode;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

use super::{LoadedModule, Ty, Val, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

/// A basic block of a function of a loaded module.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Block<'m> {
    raw: LLVMBasicBlockRef,
    _module: PhantomData<&'m ()>,
}

impl<'m> Block<'m> {
    /// Names the block (as its label prints).
    pub(crate) fn set_name(&self, name: &str) {
        // SAFETY: a block of a live module.
        let value = Val::of(unsafe { LLVMBasicBlockAsValue(self.raw) });
        value.set_name(name);
    }

    /// The block's instructions, in order.
    pub(crate) fn instructions(&self) -> impl Iterator<Item = Val<'m>> {
        // SAFETY: a block of a live module; each next instruction is of the same block.
        let first = unsafe { LLVMGetFirstInstruction(self.raw) };
        std::iter::successors(Val::non_null(first), |inst| Val::non_null(unsafe { LLVMGetNextInstruction(inst.raw) }))
    }
}

impl<'m> Val<'m> {
    /// A handle on `raw`, a value of a module that `'m` borrows.
    pub(super) fn of(raw: LLVMValueRef) -> Val<'m> {
        Val { raw, _module: PhantomData }
    }

    /// A handle on `raw` unless it is null.
    pub(super) fn non_null(raw: LLVMValueRef) -> Option<Val<'m>> {
        (!raw.is_null()).then(|| Val::of(raw))
    }

    /// The instruction's exact opcode; `None` for a value that is no instruction.
    pub(crate) fn opcode(&self) -> Option<InstructionOpcode> {
        // SAFETY: valid value; the kind is checked before the opcode is read.
        unsafe { (!LLVMIsAInstruction(self.raw).is_null()).then(|| LLVMGetInstructionOpcode(self.raw).into()) }
    }

    /// A constant expression's opcode; `None` for any other value.
    pub(crate) fn constant_opcode(&self) -> Option<InstructionOpcode> {
        // SAFETY: valid value; the kind is checked before the opcode is read.
        unsafe { (!LLVMIsAConstantExpr(self.raw).is_null()).then(|| LLVMGetConstOpcode(self.raw).into()) }
    }

    /// Whether the value is a call instruction.
    pub(crate) fn is_call(&self) -> bool {
        // SAFETY: valid value.
        !unsafe { LLVMIsACallInst(self.raw) }.is_null()
    }

    /// Whether the value is a `getelementptr` instruction (not a constant expression).
    pub(crate) fn is_gep(&self) -> bool {
        // SAFETY: valid value.
        !unsafe { LLVMIsAGetElementPtrInst(self.raw) }.is_null()
    }

    /// Whether the value is an instruction or a function's parameter (a value with a local name).
    pub(crate) fn is_local(&self) -> bool {
        // SAFETY: valid value.
        unsafe { !LLVMIsAInstruction(self.raw).is_null() || !LLVMIsAArgument(self.raw).is_null() }
    }

    /// Whether the value is a constant expression.
    pub(crate) fn is_constant_expression(&self) -> bool {
        self.constant_opcode().is_some()
    }

    /// A constant integer's value, sign-extended; `None` for any other value.
    pub(crate) fn constant_int(&self) -> Option<i64> {
        // SAFETY: valid value; the kind is checked before the value is read.
        unsafe { (!LLVMIsAConstantInt(self.raw).is_null()).then(|| LLVMConstIntGetSExtValue(self.raw)) }
    }

    /// The value's type.
    pub(crate) fn ty(&self) -> Ty<'m> {
        // SAFETY: valid value.
        Ty::of(unsafe { LLVMTypeOf(self.raw) })
    }

    /// For a call: the function it calls directly (`None` for an indirect
    /// call, an inline assembly call, or a value that is no call).
    pub(crate) fn called_function(&self) -> Option<Val<'m>> {
        if !self.is_call() {
            return None;
        }
        // SAFETY: a call instruction; its called value is checked to be a function.
        let callee = unsafe { LLVMGetCalledValue(self.raw) };
        (!unsafe { LLVMIsAFunction(callee) }.is_null()).then(|| Val::of(callee))
    }

    /// Whether the value is a function with a body.
    pub(crate) fn is_defined_function(&self) -> bool {
        // SAFETY: valid value; the kind is checked before the blocks are counted.
        unsafe { !LLVMIsAFunction(self.raw).is_null() && LLVMCountBasicBlocks(self.raw) > 0 }
    }

    /// A function's calling convention (`None` for any other value).
    pub(crate) fn calling_convention(&self) -> Option<u32> {
        // SAFETY: valid value; the kind is checked first.
        unsafe { (!LLVMIsAFunction(self.raw).is_null()).then(|| LLVMGetFunctionCallConv(self.raw)) }
    }

    /// Whether the value is a kernel (SPIR's or amdgcn's calling convention).
    pub(crate) fn is_kernel(&self) -> bool {
        matches!(self.calling_convention(), Some(AMDGPU_KERNEL_CC | SPIR_KERNEL_CC))
    }

    /// A function's type, with its return and parameter types (`None` for any other value).
    pub(crate) fn function_type(&self) -> Option<Ty<'m>> {
        // SAFETY: valid value; the kind is checked first.
        unsafe { (!LLVMIsAFunction(self.raw).is_null()).then(|| Ty::of(LLVMGlobalGetValueType(self.raw))) }
    }

    /// A function's parameters (none for any other value).
    pub(crate) fn params(&self) -> Vec<Val<'m>> {
        if self.calling_convention().is_none() {
            return Vec::new();
        }
        // SAFETY: a function; indices are below its parameter count.
        (0..unsafe { LLVMCountParams(self.raw) }).map(|i| Val::of(unsafe { LLVMGetParam(self.raw, i) })).collect()
    }

    /// A function's blocks, in order (none for a declaration or any other value).
    pub(crate) fn blocks(&self) -> Vec<Block<'m>> {
        if self.calling_convention().is_none() {
            return Vec::new();
        }
        let block = |raw: LLVMBasicBlockRef| (!raw.is_null()).then_some(Block { raw, _module: PhantomData });
        // SAFETY: a function; each next block is of the same function.
        let first = block(unsafe { LLVMGetFirstBasicBlock(self.raw) });
        std::iter::successors(first, |b| block(unsafe { LLVMGetNextBasicBlock(b.raw) })).collect()
    }

    /// A function's instructions, block by block.
    pub(crate) fn instructions(&self) -> impl Iterator<Item = Val<'m>> {
        self.blocks().into_iter().flat_map(|block| block.instructions())
    }

    /// The operands (for a call: its arguments, then the callee), but any that is null.
    pub(crate) fn operands(&self) -> impl Iterator<Item = Val<'m>> {
        let this = *self;
        // SAFETY: valid value; the index is below its operand count.
        (0..self.num_operands()).filter_map(move |i| Val::non_null(unsafe { LLVMGetOperand(this.raw, i) }))
    }

    /// A call's arguments (none for any other value).
    pub(crate) fn arguments(&self) -> impl Iterator<Item = Val<'m>> {
        let (this, count) = (*self, if self.is_call() { self.call_arg_count() } else { 0 });
        (0..count).map(move |i| this.operand(i))
    }

    /// Whether the value is a `getelementptr`, instruction or constant expression.
    pub(crate) fn is_offset(&self) -> bool {
        self.is_gep() || self.constant_opcode() == Some(InstructionOpcode::GetElementPtr)
    }

    /// Whether the value is an `addrspacecast`, instruction or constant expression.
    pub(crate) fn is_space_cast(&self) -> bool {
        let cast = Some(InstructionOpcode::AddrSpaceCast);
        self.opcode() == cast || self.constant_opcode() == cast
    }

    /// A `getelementptr`'s source element type and whether it is `inbounds`
    /// (`None` for any other value), instruction or constant expression.
    pub(crate) fn gep_element_type(&self) -> Option<(Ty<'m>, bool)> {
        if !self.is_offset() {
            return None;
        }
        // SAFETY: a getelementptr instruction or constant expression (both a GEPOperator).
        unsafe { Some((Ty::of(LLVMGetGEPSourceElementType(self.raw)), LLVMIsInBounds(self.raw) != 0)) }
    }

    /// The values that use this one (an instruction per use, repeated when it uses it twice).
    pub(crate) fn users(&self) -> impl Iterator<Item = Val<'m>> {
        // SAFETY: valid value; each use is of it, and its user is a value of the same module.
        let first = unsafe { LLVMGetFirstUse(self.raw) };
        let uses = std::iter::successors((!first.is_null()).then_some(first), |u| {
            let next = unsafe { LLVMGetNextUse(*u) };
            (!next.is_null()).then_some(next)
        });
        uses.map(|u| Val::of(unsafe { LLVMGetUser(u) }))
    }

    /// Whether anything uses the value.
    pub(crate) fn has_uses(&self) -> bool {
        self.users().next().is_some()
    }

    /// Renames the value (`name` empty: unnamed).
    pub(crate) fn set_name(&self, name: &str) {
        // SAFETY: valid value; LLVM copies `len` bytes of `name`.
        unsafe { LLVMSetValueName2(self.raw, name.as_ptr() as *const _, name.len()) };
    }

    /// Replaces an instruction's `index`th operand with `value`.
    pub(crate) fn set_operand(&self, index: u32, value: Val<'m>) {
        assert!(index < self.num_operands(), "operand {index} of {} operands", self.num_operands());
        // SAFETY: valid user; the index is below its operand count.
        unsafe { LLVMSetOperand(self.raw, index as c_uint, value.raw) };
    }

    /// Drops every metadata attachment of an instruction but its debug location.
    pub(crate) fn drop_metadata(&self) {
        if self.opcode().is_none() {
            return;
        }
        // SAFETY: an instruction; the entries LLVM allocates are disposed of once.
        unsafe {
            let mut count = 0usize;
            let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(self.raw, &mut count);
            let kinds: Vec<c_uint> = (0..count).map(|i| LLVMValueMetadataEntriesGetKind(entries, i as c_uint)).collect();
            if !entries.is_null() {
                LLVMDisposeValueMetadataEntries(entries);
            }
            for kind in kinds {
                LLVMSetMetadata(self.raw, kind, std::ptr::null_mut());
            }
        }
    }

    /// A program-scope variable's initialiser, if it has one.
    pub(crate) fn has_initializer(&self) -> bool {
        // SAFETY: valid value; the kind is checked first.
        unsafe { !LLVMIsAGlobalVariable(self.raw).is_null() && !LLVMGetInitializer(self.raw).is_null() }
    }

    /// A program-scope variable as a declaration reads: name, space, value
    /// type (printed), whether constant, alignment (not its initialiser);
    /// `None` for any other value.
    pub(crate) fn global_declaration(&self) -> Option<GlobalDeclaration<'m>> {
        if !self.is_global_variable() {
            return None;
        }
        // SAFETY: a global variable.
        unsafe {
            Some(GlobalDeclaration {
                value_type: Ty::of(LLVMGlobalGetValueType(self.raw)),
                space: LLVMGetPointerAddressSpace(LLVMTypeOf(self.raw)),
                constant: LLVMIsGlobalConstant(self.raw) != 0,
                alignment: LLVMGetAlignment(self.raw),
            })
        }
    }
}

/// What a program-scope variable's declaration says (see `Val::global_declaration`).
pub(crate) struct GlobalDeclaration<'m> {
    pub(crate) value_type: Ty<'m>,
    pub(crate) space: u32,
    pub(crate) constant: bool,
    pub(crate) alignment: u32,
}

impl LoadedModule<'_> {
    /// Every function of the module (definitions and declarations), in order.
    pub(crate) fn function_values(&self) -> impl Iterator<Item = Val<'_>> {
        // SAFETY: the module is alive; each next function is of the same module.
        let first = unsafe { LLVMGetFirstFunction(self.module().as_mut_ptr()) };
        std::iter::successors(Val::non_null(first), |f| Val::non_null(unsafe { LLVMGetNextFunction(f.raw) }))
    }

    /// Every program-scope variable of the module, in order.
    pub(crate) fn global_values(&self) -> impl Iterator<Item = Val<'_>> {
        // SAFETY: the module is alive; each next global is of the same module.
        let first = unsafe { LLVMGetFirstGlobal(self.module().as_mut_ptr()) };
        std::iter::successors(Val::non_null(first), |g| Val::non_null(unsafe { LLVMGetNextGlobal(g.raw) }))
    }

    /// The function the module defines (with a body) by `name`.
    pub(crate) fn defined_function(&self, name: &str) -> Option<Val<'_>> {
        let c_name = std::ffi::CString::new(name).ok()?;
        // SAFETY: the module is alive; the name is NUL-terminated.
        let function = Val::non_null(unsafe { LLVMGetNamedFunction(self.module().as_mut_ptr(), c_name.as_ptr()) })?;
        function.is_defined_function().then_some(function)
    }
}
