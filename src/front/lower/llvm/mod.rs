//! The LLVM boundary: loads a module with inkwell and exposes the IR as
//! safe, lifetime-bound handles. `lower` reads functions, instructions,
//! operands, debug locations and variable records (this file); `verify`
//! reads and edits what its equivalence check needs through the same
//! handles: exact opcodes, types, users, blocks (`value.rs`), types and
//! struct bodies (`types.rs`), printed text (`print.rs`), and the edits
//! before its pass pipeline (`edit.rs`), with the inkwell module and its
//! data layout for the passes themselves.
//!
//! inkwell owns the context and the module; where inkwell has no API
//! (operands of debug intrinsics, debug locations, `DILocalVariable` fields,
//! the debug-record format switch, renaming values, users, struct bodies,
//! metadata kinds, building calls across two modules' types) this folder
//! calls llvm-sys directly. It is the only `unsafe` in `lower` besides
//! `in_process.rs`, and `verify` holds none: every handle borrows its
//! module, each method checks the kind of value it reads, and what frees IR
//! takes `&mut LoadedModule` (see `edit.rs`).

use std::marker::PhantomData;
use std::os::raw::c_uint;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

mod edit;
mod print;
mod types;
mod value;

pub(crate) use edit::{pass_options, IrBuilder};
pub(crate) use types::{StructBody, Ty};

/// The calling convention of `spir_kernel` functions.
pub(crate) const SPIR_KERNEL_CC: u32 = 76;
/// `amdgpu_kernel`.
pub(crate) const AMDGPU_KERNEL_CC: u32 = 91;

/// A loaded module with its data layout.
pub struct LoadedModule<'ctx> {
    module: Module<'ctx>,
    target_data: TargetData,
}

/// LLVM could not read a module: its message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    pub message: String,
}

/// Parses bitcode (or textual IR) into a module of `context`, with debug
/// info as `llvm.dbg.declare` calls rather than debug records.
pub fn load<'ctx>(context: &'ctx Context, bytes: &[u8], name: &str) -> Result<LoadedModule<'ctx>, LoadError> {
    let buffer = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    let module = context.create_module_from_ir(buffer).map_err(|e| LoadError { message: e.to_string() })?;
    // SAFETY: the module is alive; this only converts its debug-info representation.
    unsafe { LLVMSetIsNewDbgInfoFormat(module.as_mut_ptr(), 0) };
    let target_data = TargetData::create(module.get_data_layout().as_str().to_str().unwrap_or(""));
    Ok(LoadedModule { module, target_data })
}

/// A value of a loaded module.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Val<'m> {
    raw: LLVMValueRef,
    _module: PhantomData<&'m ()>,
}

impl std::fmt::Debug for Val<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Val({})", self.name())
    }
}

/// A function of a loaded module.
pub struct FunctionView<'m> {
    pub name: String,
    pub is_kernel: bool,
    pub is_definition: bool,
    pub params: Vec<Val<'m>>,
    /// Address-space number of the returned pointer, if it returns one.
    pub return_space: Option<u32>,
    pub instructions: Vec<Val<'m>>,
}

/// A global variable of a loaded module.
pub struct GlobalView {
    pub name: String,
    pub space: u32,
    pub size_bytes: u64,
    pub is_declaration: bool,
}

/// Instruction kinds `lower` distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Alloca,
    Load,
    Store,
    GetElementPtr,
    Cast,
    PtrToInt,
    IntToPtr,
    Select,
    Phi,
    Call,
    Ret,
    Other,
}

/// The `len` bytes LLVM returned at `ptr` as a string (empty for null).
pub(crate) fn string_of(ptr: *const std::os::raw::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returns `len` valid bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

impl<'ctx> LoadedModule<'ctx> {
    /// The inkwell module, for `verify`'s pass pipeline and canonical kernels.
    pub(crate) fn module(&self) -> &Module<'ctx> {
        &self.module
    }

    /// The module's data layout.
    pub(crate) fn target_data(&self) -> &TargetData {
        &self.target_data
    }

    fn wrap(&self, raw: LLVMValueRef) -> Val<'_> {
        Val { raw, _module: PhantomData }
    }

    pub fn functions(&self) -> Vec<FunctionView<'_>> {
        let mut out = Vec::new();
        for f in self.module.get_functions() {
            let name = f.get_name().to_string_lossy().into_owned();
            let cc = f.get_call_conventions();
            let raw = f.as_value_ref();
            // Read params raw: inkwell's iterator panics on metadata params (debug intrinsics).
            // The hidden slot of a struct returned by value (`sret`) is no source parameter.
            // SAFETY: `raw` is a function of this module; indices are below its param count.
            let params = (0..unsafe { LLVMCountParams(raw) })
                .filter(|i| !unsafe { is_struct_return_slot(LLVMGetEnumAttributeAtIndex(raw, i + 1, struct_return_kind())) })
                .map(|i| self.wrap(unsafe { LLVMGetParam(raw, i) }))
                .collect();
            // Raw again: inkwell panics on target extension types (`spirv.Event`).
            // SAFETY: `raw` is a function; the type kind is checked before the space is read.
            let return_space = unsafe {
                let ty = LLVMGetReturnType(LLVMGlobalGetValueType(raw));
                (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| LLVMGetPointerAddressSpace(ty))
            };
            let mut instructions = Vec::new();
            for block in f.get_basic_blocks() {
                let mut next = block.get_first_instruction();
                while let Some(inst) = next {
                    instructions.push(self.wrap(inst.as_value_ref()));
                    next = inst.get_next_instruction();
                }
            }
            out.push(FunctionView {
                name,
                is_kernel: cc == SPIR_KERNEL_CC || cc == AMDGPU_KERNEL_CC,
                is_definition: f.count_basic_blocks() > 0,
                params,
                return_space,
                instructions,
            });
        }
        out
    }

    pub fn globals(&self) -> Vec<GlobalView> {
        self.module
            .get_globals()
            .map(|g| {
                let raw = g.as_value_ref();
                // SAFETY: `raw` is a global variable of this module; the data layout outlives the call.
                let (space, size_bytes) = unsafe {
                    let value_type = LLVMGlobalGetValueType(raw);
                    let space = LLVMGetPointerAddressSpace(LLVMTypeOf(raw));
                    let size = llvm_sys::target::LLVMABISizeOfType(self.target_data.as_mut_ptr(), value_type);
                    (space, size)
                };
                GlobalView {
                    name: g.get_name().to_string_lossy().into_owned(),
                    space,
                    size_bytes,
                    is_declaration: g.is_declaration(),
                }
            })
            .collect()
    }
}

impl<'m> Val<'m> {
    fn wrap(&self, raw: LLVMValueRef) -> Val<'m> {
        Val { raw, _module: PhantomData }
    }

    pub fn name(&self) -> String {
        let mut len = 0usize;
        // SAFETY: valid value; LLVM owns the returned bytes.
        let ptr = unsafe { LLVMGetValueName2(self.raw, &mut len) };
        string_of(ptr, len)
    }

    pub fn op(&self) -> Option<Op> {
        // SAFETY: valid value; kind checks before opcode access.
        unsafe {
            if LLVMIsAInstruction(self.raw).is_null() {
                return None;
            }
            Some(match LLVMGetInstructionOpcode(self.raw) {
                LLVMOpcode::LLVMAlloca => Op::Alloca,
                LLVMOpcode::LLVMLoad => Op::Load,
                LLVMOpcode::LLVMStore => Op::Store,
                LLVMOpcode::LLVMGetElementPtr => Op::GetElementPtr,
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => Op::Cast,
                LLVMOpcode::LLVMPtrToInt => Op::PtrToInt,
                LLVMOpcode::LLVMIntToPtr => Op::IntToPtr,
                LLVMOpcode::LLVMSelect => Op::Select,
                LLVMOpcode::LLVMPHI => Op::Phi,
                LLVMOpcode::LLVMCall => Op::Call,
                LLVMOpcode::LLVMRet => Op::Ret,
                _ => Op::Other,
            })
        }
    }

    /// For a constant expression: its opcode kind (GEP or cast), else `None`.
    pub fn const_expr_op(&self) -> Option<Op> {
        // SAFETY: valid value; kind checked first.
        unsafe {
            if LLVMIsAConstantExpr(self.raw).is_null() {
                return None;
            }
            Some(match LLVMGetConstOpcode(self.raw) {
                LLVMOpcode::LLVMGetElementPtr => Op::GetElementPtr,
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => Op::Cast,
                _ => Op::Other,
            })
        }
    }

    pub fn num_operands(&self) -> u32 {
        // SAFETY: valid value.
        unsafe { LLVMGetNumOperands(self.raw).max(0) as u32 }
    }

    pub fn operand(&self, index: u32) -> Val<'m> {
        assert!(index < self.num_operands(), "operand {index} of {} operands", self.num_operands());
        // SAFETY: the index is below the operand count.
        self.wrap(unsafe { LLVMGetOperand(self.raw, index as c_uint) })
    }

    /// The address-space number when the value is a pointer.
    pub fn pointer_space(&self) -> Option<u32> {
        // SAFETY: valid value and type.
        unsafe {
            let ty = LLVMTypeOf(self.raw);
            (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| LLVMGetPointerAddressSpace(ty))
        }
    }

    /// For an alloca that holds a pointer: that pointer's address-space number.
    pub fn allocated_pointer_space(&self) -> Option<u32> {
        // SAFETY: valid value; it is checked to be an alloca, and the type kind before the space is read.
        unsafe {
            if LLVMIsAAllocaInst(self.raw).is_null() {
                return None;
            }
            let ty = LLVMGetAllocatedType(self.raw);
            (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| LLVMGetPointerAddressSpace(ty))
        }
    }

    pub fn argument_index(&self, params: &[Val<'m>]) -> Option<u32> {
        // SAFETY: valid value.
        if unsafe { LLVMIsAArgument(self.raw) }.is_null() {
            return None;
        }
        params.iter().position(|p| p == self).map(|i| i as u32)
    }

    pub fn is_global_variable(&self) -> bool {
        // SAFETY: valid value.
        !unsafe { LLVMIsAGlobalVariable(self.raw) }.is_null()
    }

    pub fn is_null_constant(&self) -> bool {
        // SAFETY: valid value.
        unsafe { !LLVMIsAConstantPointerNull(self.raw).is_null() || !LLVMIsAUndefValue(self.raw).is_null() }
    }

    /// For a call: the called function's name, if it is a direct call.
    pub fn callee(&self) -> Option<(String, bool)> {
        // SAFETY: valid value, checked to be a call; the callee is checked to be a function.
        unsafe {
            if LLVMIsACallInst(self.raw).is_null() {
                return None;
            }
            let callee = LLVMGetCalledValue(self.raw);
            if LLVMIsAFunction(callee).is_null() {
                return None;
            }
            let defined = LLVMCountBasicBlocks(callee) > 0;
            Some((self.wrap(callee).name(), defined))
        }
    }

    /// For a call: the number of arguments (operands less the callee).
    pub fn call_arg_count(&self) -> u32 {
        // SAFETY: valid value, checked to be a call.
        unsafe {
            if LLVMIsACallInst(self.raw).is_null() {
                return 0;
            }
            LLVMGetNumArgOperands(self.raw)
        }
    }

    /// For a call: its arguments as the source passes them, numbered as the
    /// callee's source parameters (the hidden slot of a struct returned by
    /// value, `sret`, left out).
    pub fn call_arguments(&self) -> Vec<Val<'m>> {
        // SAFETY: the count is 0 for anything but a call; indices are below it.
        unsafe {
            (0..self.call_arg_count())
                .filter(|i| !is_struct_return_slot(LLVMGetCallSiteEnumAttribute(self.raw, i + 1, struct_return_kind())))
                .map(|i| self.wrap(LLVMGetOperand(self.raw, i)))
                .collect()
        }
    }

    /// The instruction's debug location (file, line, column), if any.
    pub fn debug_loc(&self) -> Option<(String, u32, u32)> {
        // SAFETY: valid instruction; LLVM owns the file and directory name bytes.
        unsafe {
            let line = LLVMGetDebugLocLine(self.raw);
            if line == 0 {
                return None;
            }
            let mut len: c_uint = 0;
            let file = string_of(LLVMGetDebugLocFilename(self.raw, &mut len), len as usize);
            let mut dir_len: c_uint = 0;
            let dir = string_of(LLVMGetDebugLocDirectory(self.raw, &mut dir_len), dir_len as usize);
            // clang splits a path into the directory it shares with the working
            // directory and the rest (`/tmp` + `.tmpX/a.cl` when run from `/tmp/b`).
            let path = if dir.is_empty() || std::path::Path::new(&file).is_absolute() {
                file
            } else {
                std::path::Path::new(&dir).join(&file).to_string_lossy().into_owned()
            };
            Some((path, line, LLVMGetDebugLocColumn(self.raw)))
        }
    }

    /// For an `llvm.dbg.declare` call: the alloca it describes, the variable's
    /// name and its declaration line.
    pub fn declared_variable(&self) -> Option<(Val<'m>, String, u32)> {
        // SAFETY: operands of dbg.declare are metadata-as-value; each step is kind-checked.
        unsafe {
            if self.num_operands() < 2 {
                return None;
            }
            let address = LLVMGetOperand(LLVMGetOperand(self.raw, 0), 0);
            if address.is_null() || LLVMIsAAllocaInst(address).is_null() {
                return None;
            }
            let variable_value = LLVMGetOperand(self.raw, 1);
            let variable = LLVMValueAsMetadata(variable_value);
            let line = llvm_sys::debuginfo::LLVMDIVariableGetLine(variable);
            // DILocalVariable operands: scope, name, file, type, ...
            let count = LLVMGetMDNodeNumOperands(variable_value) as usize;
            if count < 2 {
                return None;
            }
            let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); count];
            LLVMGetMDNodeOperands(variable_value, ops.as_mut_ptr());
            // An unnamed parameter (`int` alone, legal in a prototype, accepted by clang in a
            // definition) has no name operand: null, not an empty string.
            if ops[1].is_null() || LLVMIsAMDString(ops[1]).is_null() {
                return None;
            }
            let mut len: c_uint = 0;
            let name_ptr = LLVMGetMDString(ops[1], &mut len);
            let name = string_of(name_ptr, len as usize);
            Some((self.wrap(address), name, line))
        }
    }
}

/// LLVM's kind number of the `sret` attribute.
fn struct_return_kind() -> c_uint {
    static KIND: std::sync::OnceLock<c_uint> = std::sync::OnceLock::new();
    // SAFETY: reads a static table of attribute names.
    *KIND.get_or_init(|| unsafe { LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4) })
}

/// Whether an attribute looked up as `sret` is present.
fn is_struct_return_slot(attribute: llvm_sys::prelude::LLVMAttributeRef) -> bool {
    !attribute.is_null()
}
