//! The LLVM boundary: loads a module with inkwell and exposes the few IR
//! views `lower` needs (instructions, operands, debug locations, variable
//! records) as safe, lifetime-bound handles; for the equivalence check it
//! also runs the fixed amdgcn pass pipeline and prints canonical kernels.
//!
//! inkwell owns the context and the module; where inkwell has no API
//! (operands of debug intrinsics, debug locations, `DILocalVariable` fields,
//! the debug-record format switch, the inliner threshold, struct bodies)
//! this file calls llvm-sys directly. It is the only `unsafe` on the IR side.

use std::marker::PhantomData;
use std::os::raw::c_uint;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetData, TargetMachine, TargetTriple};
use inkwell::values::AsValueRef;
use inkwell::OptimizationLevel;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// The calling convention of `spir_kernel` functions.
const SPIR_KERNEL_CC: u32 = 76;
/// `amdgpu_kernel`.
const AMDGPU_KERNEL_CC: u32 = 91;

/// A loaded module with its data layout.
pub struct LoadedModule<'ctx> {
    module: Module<'ctx>,
    target_data: TargetData,
}

/// Parses bitcode (or textual IR) into a module of `context`, with debug
/// info as `llvm.dbg.declare` calls rather than debug records.
pub fn load<'ctx>(context: &'ctx Context, bytes: &[u8], name: &str) -> Result<LoadedModule<'ctx>, String> {
    let buffer = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    let module = context.create_module_from_ir(buffer).map_err(|e| e.to_string())?;
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

fn string_of(ptr: *const std::os::raw::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returns `len` valid bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

impl<'ctx> LoadedModule<'ctx> {
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
            // SAFETY: `raw` is a function of this module; indices are below its param count.
            let params = (0..unsafe { LLVMCountParams(raw) }).map(|i| self.wrap(unsafe { LLVMGetParam(raw, i) })).collect();
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
        // SAFETY: callers stay below num_operands.
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
        // SAFETY: only called on allocas; the type kind is checked before the space is read.
        unsafe {
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
        // SAFETY: only called on call instructions; the callee is checked to be a function.
        unsafe {
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
        // SAFETY: only called on call instructions.
        unsafe { LLVMGetNumArgOperands(self.raw) }
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
            let mut len: c_uint = 0;
            let name_ptr = LLVMGetMDString(ops[1], &mut len);
            let name = string_of(name_ptr, len as usize);
            Some((self.wrap(address), name, line))
        }
    }
}

/// The pass pipeline both compilations of the equivalence check go through,
/// after clang emitted them unoptimised (`-O2 -Xclang -disable-llvm-passes`,
/// so no `optnone`/`noinline` from -O0). Every helper is inlined first, so
/// the default inliner's cost model (which sees a generic helper differently
/// from a named one, and a helper called twice differently from one called
/// once) decides nothing; SROA then turns the inlined arguments back into
/// the kernel's own values and InferAddressSpaces runs at once, before any
/// pass whose result depends on what may alias (early CSE forwards a load
/// past a store to a __global pointer when the load is from __local, not
/// when it is from a generic pointer: the two versions would part there,
/// a loop of a helper over __local memory folded in one only), and again
/// after early CSE for pointers it exposes (loaded from memory); every pass
/// that reacts to pointer width (index widening, reassociation, scheduling)
/// sees the named pointer. Then a second round of scalar clean-up (CFG simplification,
/// SROA, memory-SSA CSE, GVN, instcombine, dead code) instead of the whole
/// O2 pipeline: the same verdicts on every corpus project (equal IR after
/// semantics-preserving passes proves equivalence; fewer passes can only
/// prove less, and the corpus shows they do not), at about 60% of the
/// pipeline time (no loop passes, no vectorisers).
pub const EQUIVALENCE_PIPELINE: &str =
    "cgscc(inline),function(sroa,infer-address-spaces,early-cse,infer-address-spaces,instcombine<no-verify-fixpoint>,\
     simplifycfg,sroa,early-cse<memssa>,gvn,instcombine<no-verify-fixpoint>,simplifycfg,adce)";

/// The inliner threshold for `EQUIVALENCE_PIPELINE`: no helper is too big.
pub const INLINE_THRESHOLD: i32 = 1_000_000;

/// A target machine for `triple`; the target's optimiser hooks (the flat
/// address space InferAddressSpaces needs, pointer widths) come from it.
fn target_machine(triple: &TargetTriple) -> Result<TargetMachine, String> {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| Target::initialize_amd_gpu(&InitializationConfig::default()));
    let target = Target::from_triple(triple).map_err(|e| e.to_string())?;
    target
        .create_target_machine(triple, "", "", OptimizationLevel::Default, RelocMode::Default, CodeModel::Default)
        .ok_or_else(|| format!("no LLVM target machine for {}", triple.as_str().to_string_lossy()))
}

impl<'ctx> LoadedModule<'ctx> {
    /// Deletes the kernels not in `keep` that nothing calls, so the
    /// equivalence pipeline spends nothing on kernels no change can reach
    /// (their text and callees are the same on both sides).
    pub fn keep_only_kernels(&mut self, keep: &std::collections::BTreeSet<String>) {
        let unwanted: Vec<_> = self
            .module
            .get_functions()
            .filter(|f| {
                let cc = f.get_call_conventions();
                (cc == AMDGPU_KERNEL_CC || cc == SPIR_KERNEL_CC)
                    && f.count_basic_blocks() > 0
                    && !keep.contains(f.get_name().to_str().unwrap_or(""))
                    // SAFETY: `f` is a function of this module.
                    && unsafe { LLVMGetFirstUse(f.as_value_ref()) }.is_null()
            })
            .collect();
        for f in unwanted {
            // SAFETY: the function belongs to this module and has no uses left.
            unsafe { f.delete() };
        }
    }

    /// Runs `EQUIVALENCE_PIPELINE` on this module for its own triple. Every
    /// defined non-kernel function is made `alwaysinline` and internal
    /// first (`noinline` and `optnone` removed: a source `noinline` must not
    /// keep a helper's generic parameter opaque in one version only).
    /// Kernels are left as they are; one kernel calling another is compared as a call.
    pub fn optimise_for_equivalence(&mut self) -> Result<(), String> {
        let context = self.module.get_context();
        let always = context.create_enum_attribute(Attribute::get_named_enum_kind_id("alwaysinline"), 0);
        let blocking = ["noinline", "optnone"].map(Attribute::get_named_enum_kind_id);
        for f in self.module.get_functions() {
            let cc = f.get_call_conventions();
            if f.count_basic_blocks() == 0 || cc == AMDGPU_KERNEL_CC || cc == SPIR_KERNEL_CC {
                continue;
            }
            for kind in blocking {
                f.remove_enum_attribute(AttributeLoc::Function, kind);
            }
            f.add_attribute(AttributeLoc::Function, always);
            f.set_linkage(Linkage::Internal);
        }
        let machine = target_machine(&self.module.get_triple())?;
        let options = PassBuilderOptions::create();
        // SAFETY: `options` is alive; inkwell 0.11 has no setter for the threshold.
        unsafe {
            llvm_sys::transforms::pass_builder::LLVMPassBuilderOptionsSetInlinerThreshold(options.as_mut_ptr(), INLINE_THRESHOLD)
        };
        self.module.run_passes(EQUIVALENCE_PIPELINE, &machine, options).map_err(|e| e.to_string())
    }
}

/// A kernel's optimised body in a form where two compilations of the same
/// behaviour print the same lines (see `LoadedModule::canonical_kernels`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelBody {
    pub name: String,
    /// Parameter types, then one line per instruction.
    pub lines: Vec<String>,
    /// Loads, stores, atomics and builtin calls through flat (generic, AS 0) pointers.
    pub flat_accesses: usize,
}

/// `ptr addrspace(N)` number of a value's type, when it is a pointer.
///
/// SAFETY: `value` must be a valid value.
unsafe fn pointer_space_of(value: LLVMValueRef) -> Option<u32> {
    let ty = LLVMTypeOf(value);
    (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| LLVMGetPointerAddressSpace(ty))
}

/// SAFETY: LLVM allocated `text` with `LLVMPrint*ToString`.
unsafe fn take_message(text: *mut std::os::raw::c_char) -> String {
    let owned = std::ffi::CStr::from_ptr(text).to_string_lossy().into_owned();
    LLVMDisposeMessage(text);
    owned
}

/// For a call to a declared (library) function with a mangled name: its demangled base name.
///
/// SAFETY: `call` must be a call instruction.
unsafe fn library_callee(call: LLVMValueRef) -> Option<String> {
    let callee = LLVMGetCalledValue(call);
    if LLVMIsAFunction(callee).is_null() || LLVMCountBasicBlocks(callee) > 0 {
        return None;
    }
    let mut len = 0usize;
    let name = string_of(LLVMGetValueName2(callee, &mut len), len);
    name.starts_with("_Z").then(|| crate::ir::demangled_base(&name).to_string())
}

impl<'ctx> LoadedModule<'ctx> {
    /// Every kernel (`amdgpu_kernel` definition) as canonical lines: values,
    /// arguments and blocks renamed by position, metadata dropped, call-site
    /// attribute-group numbers dropped. A call to a library builtin prints
    /// as its demangled name and arguments, with an `addrspacecast` to flat
    /// that only feeds such calls looked through: the 2.0 generic overload
    /// of a builtin does for a global pointer what the `__global` overload did.
    /// Likewise a 64-bit sign or zero extension that only indexes pointers
    /// of a 32-bit space (local, private on amdgcn) is looked through: the
    /// index is truncated back to the pointer's width, so `i32 %i` and
    /// `sext i32 %i to i64` address the same element.
    /// Named struct types print as their name without the numeric suffix
    /// LLVM adds when a name is taken in the context (`%struct.T.2` is
    /// `%struct.T`), followed by their body, so two structs with different
    /// layouts never read alike.
    /// Renames values and drops metadata in this module.
    pub fn canonical_kernels(&mut self) -> Vec<KernelBody> {
        let mut out = Vec::new();
        // SAFETY: every handle below comes from this module, which is alive
        // and not otherwise borrowed; strings LLVM allocates are disposed of.
        unsafe {
            let context = LLVMGetModuleContext(self.module.as_mut_ptr());
            let mut function = LLVMGetFirstFunction(self.module.as_mut_ptr());
            while !function.is_null() {
                if LLVMGetFunctionCallConv(function) == AMDGPU_KERNEL_CC && LLVMCountBasicBlocks(function) > 0 {
                    let mut body = canonical_body(function, &|space| {
                        llvm_sys::target::LLVMPointerSizeForAS(self.target_data.as_mut_ptr(), space) < 8
                    });
                    let mut structs = std::collections::HashMap::new();
                    for line in &mut body.lines {
                        *line = same_space_for_read_only_data(&canonical_type_names(line, context, &mut structs));
                    }
                    out.push(body);
                }
                function = LLVMGetNextFunction(function);
            }
            out.push(self.program_scope_data());
        }
        out
    }

    /// The program-scope variables' definitions (initialisers included) as one
    /// more body, compared like a kernel's, so a table moved from `__constant`
    /// to `__global` compares as the same data and a changed initialiser does not.
    ///
    /// SAFETY: the module is alive.
    unsafe fn program_scope_data(&mut self) -> KernelBody {
        let mut lines = Vec::new();
        let context = LLVMGetModuleContext(self.module.as_mut_ptr());
        let mut structs = std::collections::HashMap::new();
        let mut global = LLVMGetFirstGlobal(self.module.as_mut_ptr());
        while !global.is_null() {
            let mut len = 0usize;
            let name = string_of(LLVMGetValueName2(global, &mut len), len);
            if !name.starts_with("llvm.") && !name.starts_with("__oclc") {
                let text = take_message(LLVMPrintValueToString(global));
                let line = same_space_for_read_only_data(&canonical_type_names(&text, context, &mut structs));
                // A variable never written may be `constant` on one side only (given a space, or
                // `const` added by a move): the same data, as its kernels' loads and stores show.
                lines.push(line.replacen(" constant ", " global ", 1));
            }
            global = LLVMGetNextGlobal(global);
        }
        lines.sort();
        KernelBody { name: PROGRAM_SCOPE_DATA.to_string(), lines, flat_accesses: 0 }
    }
}

/// The name of the body that holds the program-scope variables (see `canonical_kernels`).
pub const PROGRAM_SCOPE_DATA: &str = "(program-scope data)";

/// amdgcn's constant address space (4) read as its global one (1): a table
/// in either is the same read-only data, read by the same loads (a moved
/// table, `__constant` in 1.x, `__global const` in 2.0). A program that
/// writes the data differs in its kernels' stores, which are compared as
/// they are.
fn same_space_for_read_only_data(line: &str) -> String {
    line.replace("addrspace(4)", "addrspace(1)")
}

/// SAFETY: `function` must be a defined function of a live module.
unsafe fn canonical_body(function: LLVMValueRef, narrow_space: &dyn Fn(u32) -> bool) -> KernelBody {
    let set_name = |value: LLVMValueRef, name: &str| LLVMSetValueName2(value, name.as_ptr() as *const _, name.len());
    let mut lines = Vec::new();
    for i in 0..LLVMCountParams(function) {
        let param = LLVMGetParam(function, i);
        set_name(param, &format!("a{i}"));
        lines.push(format!("param {}", take_message(LLVMPrintTypeToString(LLVMTypeOf(param)))));
    }
    // Pass 1: the casts to flat that only feed builtins, then names by
    // position (those casts take none, so they shift nothing).
    let mut instructions = Vec::new();
    let mut looked_through = std::collections::HashSet::new();
    let mut block = LLVMGetFirstBasicBlock(function);
    let mut blocks = 0;
    while !block.is_null() {
        set_name(LLVMBasicBlockAsValue(block), &format!("b{blocks}"));
        blocks += 1;
        let mut inst = LLVMGetFirstInstruction(block);
        while !inst.is_null() {
            let opcode = LLVMGetInstructionOpcode(inst);
            let flat_for_builtin = opcode == LLVMOpcode::LLVMAddrSpaceCast
                && pointer_space_of(inst) == Some(0)
                && only_feeds(inst, &|user| !LLVMIsACallInst(user).is_null() && library_callee(user).is_some());
            let widened_index = matches!(opcode, LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMTrunc)
                && only_feeds(inst, &|user| {
                    !LLVMIsAGetElementPtrInst(user).is_null()
                        && LLVMGetOperand(user, 0) != inst
                        && pointer_space_of(LLVMGetOperand(user, 0)).map(narrow_space).unwrap_or(false)
                });
            if flat_for_builtin || widened_index {
                looked_through.insert(inst);
            }
            instructions.push(inst);
            inst = LLVMGetNextInstruction(inst);
        }
        block = LLVMGetNextBasicBlock(block);
    }
    let mut values = 0;
    for &inst in &instructions {
        if looked_through.contains(&inst) {
            set_name(inst, "cast");
        } else if LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMTypeKind::LLVMVoidTypeKind {
            set_name(inst, &format!("v{values}"));
            values += 1;
        }
    }
    // Pass 2: lines.
    let mut flat_accesses = 0;
    for inst in instructions {
        drop_metadata(inst);
        let opcode = LLVMGetInstructionOpcode(inst);
        let pointer_operand = match opcode {
            LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => Some(0),
            LLVMOpcode::LLVMStore => Some(1),
            _ => None,
        };
        if let Some(index) = pointer_operand {
            flat_accesses += usize::from(pointer_space_of(LLVMGetOperand(inst, index)) == Some(0));
        }
        if looked_through.contains(&inst) {
            continue;
        }
        let resolve = |value: LLVMValueRef| if looked_through.contains(&value) { LLVMGetOperand(value, 0) } else { value };
        let narrow_gep = opcode == LLVMOpcode::LLVMGetElementPtr
            && pointer_space_of(LLVMGetOperand(inst, 0)).map(narrow_space).unwrap_or(false);
        if narrow_gep {
            let count = LLVMGetNumOperands(inst).max(0) as u32;
            let mut operands = vec![operand_text(LLVMGetOperand(inst, 0))];
            operands.extend((1..count).map(|i| narrow_index_text(LLVMGetOperand(inst, i), &looked_through)));
            let inbounds = if LLVMIsInBounds(inst) != 0 { " inbounds" } else { "" };
            let element = take_message(LLVMPrintTypeToString(LLVMGetGEPSourceElementType(inst)));
            lines.push(format!("{} = getelementptr{inbounds} {element}, {}", operand_text(inst), operands.join(", ")));
            continue;
        }
        let library = if opcode == LLVMOpcode::LLVMCall { library_callee(inst) } else { None };
        match library {
            Some(base) => {
                let mut args = Vec::new();
                for i in 0..LLVMGetNumArgOperands(inst) {
                    let arg = LLVMGetOperand(inst, i);
                    flat_accesses += usize::from(pointer_space_of(arg) == Some(0));
                    args.push(operand_text(resolve(arg)));
                }
                let result = if LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMTypeKind::LLVMVoidTypeKind {
                    String::new()
                } else {
                    format!("{} = ", operand_text(inst))
                };
                lines.push(format!("{result}call {base}({})", args.join(", ")));
            }
            None => {
                let text = take_message(LLVMPrintValueToString(inst));
                let text = text.trim();
                // `call ... #7`: attribute-group numbers differ between modules.
                let text = match text.rsplit_once(" #") {
                    Some((head, group)) if opcode == LLVMOpcode::LLVMCall && group.bytes().all(|b| b.is_ascii_digit()) => head,
                    _ => text,
                };
                lines.push(text.to_string());
            }
        }
    }
    let mut len = 0usize;
    let name = string_of(LLVMGetValueName2(function, &mut len), len);
    KernelBody { name, lines, flat_accesses }
}

/// `text` with every named struct type (`%struct.T.2`) replaced by its
/// canonical spelling (`%struct.T{ float, i32 }`): the name without the
/// numeric suffixes LLVM adds to keep names unique in a context (which
/// depend on what else that context loaded), then the body, itself
/// canonical. Struct containment is acyclic (pointers are opaque), so the
/// recursion ends. A `%token` that names no struct type (a value) is kept.
///
/// SAFETY: `context` must be the live context of the module `text` was printed from.
unsafe fn canonical_type_names(
    text: &str,
    context: LLVMContextRef,
    cache: &mut std::collections::HashMap<String, String>,
) -> String {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '$' | '.' | '_' | '-');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = after.find(|c: char| !is_name_char(c)).unwrap_or(after.len());
        let name = &after[..len];
        rest = &after[len..];
        if let Some(known) = cache.get(name) {
            out.push_str(known);
            continue;
        }
        let Ok(c_name) = std::ffi::CString::new(name) else {
            out.push('%');
            out.push_str(name);
            continue;
        };
        let ty = if name.is_empty() { std::ptr::null_mut() } else { LLVMGetTypeByName2(context, c_name.as_ptr()) };
        if ty.is_null() || LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMStructTypeKind {
            out.push('%');
            out.push_str(name);
            continue;
        }
        let mut base = name;
        while let Some((head, tail)) = base.rsplit_once('.') {
            if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            base = head;
        }
        let body = if LLVMIsOpaqueStruct(ty) != 0 {
            "opaque".to_string()
        } else {
            let elements: Vec<String> = (0..LLVMCountStructElementTypes(ty))
                .map(|i| {
                    let element = take_message(LLVMPrintTypeToString(LLVMStructGetTypeAtIndex(ty, i)));
                    canonical_type_names(&element, context, cache)
                })
                .collect();
            let (open, close) = if LLVMIsPackedStruct(ty) != 0 { ("<{ ", " }>") } else { ("{ ", " }") };
            format!("{open}{}{close}", elements.join(", "))
        };
        let canonical = format!("%{base}{body}");
        out.push_str(&canonical);
        cache.insert(name.to_string(), canonical);
    }
    out.push_str(rest);
    out
}

/// An index into a pointer of a 32-bit space, as the 32 bits that count:
/// `sext i32 %x` reads `i32 %x`, `trunc i64 %y` and a plain `i64 %y` read
/// `low32(i64 %y)`, an `i64 3` reads `i32 3`.
///
/// SAFETY: `index` must be a GEP index operand.
unsafe fn narrow_index_text(index: LLVMValueRef, looked_through: &std::collections::HashSet<LLVMValueRef>) -> String {
    let wide = |v: LLVMValueRef| LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 32;
    if looked_through.contains(&index) {
        let source = LLVMGetOperand(index, 0);
        return match LLVMGetInstructionOpcode(index) {
            LLVMOpcode::LLVMTrunc => format!("low32({})", operand_text(source)),
            _ if wide(source) => format!("low32({})", operand_text(source)),
            _ => operand_text(source),
        };
    }
    if LLVMGetTypeKind(LLVMTypeOf(index)) != LLVMTypeKind::LLVMIntegerTypeKind {
        return operand_text(index);
    }
    if !LLVMIsAConstantInt(index).is_null() {
        return format!("i32 {}", LLVMConstIntGetSExtValue(index) as i32);
    }
    if wide(index) {
        return format!("low32({})", operand_text(index));
    }
    operand_text(index)
}

/// `ptr addrspace(1) %a0`, `i64 3`: how an operand reads in a canonical line.
///
/// SAFETY: `value` must be a valid value.
unsafe fn operand_text(value: LLVMValueRef) -> String {
    let ty = take_message(LLVMPrintTypeToString(LLVMTypeOf(value)));
    if LLVMIsAInstruction(value).is_null() && LLVMIsAArgument(value).is_null() {
        return take_message(LLVMPrintValueToString(value));
    }
    let mut len = 0usize;
    format!("{ty} %{}", string_of(LLVMGetValueName2(value, &mut len), len))
}

/// Whether `inst` has users and every one passes `accept`.
///
/// SAFETY: `inst` must be an instruction; `accept` is given its users.
unsafe fn only_feeds(inst: LLVMValueRef, accept: &dyn Fn(LLVMValueRef) -> bool) -> bool {
    let mut use_ = LLVMGetFirstUse(inst);
    if use_.is_null() {
        return false;
    }
    while !use_.is_null() {
        if !accept(LLVMGetUser(use_)) {
            return false;
        }
        use_ = LLVMGetNextUse(use_);
    }
    true
}

/// SAFETY: `inst` must be an instruction.
unsafe fn drop_metadata(inst: LLVMValueRef) {
    let mut count = 0usize;
    let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(inst, &mut count);
    let kinds: Vec<c_uint> = (0..count).map(|i| LLVMValueMetadataEntriesGetKind(entries, i as c_uint)).collect();
    if !entries.is_null() {
        LLVMDisposeValueMetadataEntries(entries);
    }
    for kind in kinds {
        LLVMSetMetadata(inst, kind, std::ptr::null_mut());
    }
}
