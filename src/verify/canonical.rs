//! Canonical kernels: every kernel of an optimised module, and its
//! program-scope data, printed so that two compilations of the same
//! behaviour read the same lines (values renamed by position, metadata
//! dropped, builtin overloads, widened local indices and numbered struct
//! names looked through) for `compare`.
//!
//! An FFI boundary module, like `lower/llvm.rs` (whose `LoadedModule` it
//! reads): it calls llvm-sys where inkwell has no API (renaming values,
//! printing instructions and types, users of a value, struct bodies,
//! metadata kinds, pointer sizes per address space).

use std::os::raw::c_uint;

use inkwell::context::Context;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

use super::PROVEN_PREFIX;
use crate::front::lower::{load, string_of, LoadError, LoadedModule, AMDGPU_KERNEL_CC};

/// A kernel's optimised body in a form where two compilations of the same
/// behaviour print the same lines (see `canonical_kernels`).
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

/// A call to a declared function whose calls compare by name and arguments,
/// with casts to flat that only feed them looked through.
struct KnownCallee {
    /// A library builtin's demangled base name, or `proven NAME`.
    name: String,
    /// A function proven on its own (`functions.rs`): its generic
    /// parameters given a named pointer cast to flat are the named pointer
    /// the original passed, so such a cast is no flat access.
    proven: bool,
}

/// For a call to a declared (library) function with a mangled name: its
/// demangled base name; for a call to a function proven on its own: its name.
///
/// SAFETY: `call` must be a call instruction.
unsafe fn known_callee(call: LLVMValueRef) -> Option<KnownCallee> {
    let callee = LLVMGetCalledValue(call);
    if LLVMIsAFunction(callee).is_null() || LLVMCountBasicBlocks(callee) > 0 {
        return None;
    }
    let mut len = 0usize;
    let name = string_of(LLVMGetValueName2(callee, &mut len), len);
    if let Some(proven) = name.strip_prefix(PROVEN_PREFIX) {
        // `clasp.proven.f.1`: a second declaration for `f` (no OpenCL C name holds a dot).
        let proven = proven.split('.').next().unwrap_or(proven);
        return Some(KnownCallee { name: format!("proven {proven}"), proven: true });
    }
    name.starts_with("_Z").then(|| KnownCallee { name: crate::facts::ir::demangled_base(&name).to_string(), proven: false })
}

/// Whether `call` calls a library builtin or a proven function: a call
/// compared by name and arguments, casts to flat looked through.
///
/// SAFETY: `call` must be a call instruction.
pub(super) unsafe fn compares_by_name(call: LLVMValueRef) -> bool {
    known_callee(call).is_some()
}

/// The kernels of optimised bitcode (or textual IR), canonicalised for
/// comparison (see `canonical_kernels`).
pub fn canonical_kernels_from_bitcode(context: &Context, bytes: &[u8], name: &str) -> Result<Vec<KernelBody>, LoadError> {
    let mut module = load(context, bytes, name)?;
    Ok(canonical_kernels(&mut module))
}

/// Every kernel (`amdgpu_kernel` definition) as canonical lines: values,
/// arguments and blocks renamed by position, metadata dropped, call-site
/// attribute-group numbers dropped. A call to a library builtin prints
/// as its demangled name and arguments, with an `addrspacecast` to flat
/// that only feeds such calls looked through: the 2.0 generic overload
/// of a builtin does for a global pointer what the `__global` overload did.
/// A call to a function proven on its own (`functions.rs`) prints the same
/// way: the proof says the result's function given the cast pointer does
/// what the original's did given the named one.
/// Likewise a 64-bit sign or zero extension that only indexes pointers
/// of a 32-bit space (local, private on amdgcn) is looked through: the
/// index is truncated back to the pointer's width, so `i32 %i` and
/// `sext i32 %i to i64` address the same element.
/// Named struct types print as their name without the numeric suffix
/// LLVM adds when a name is taken in the context (`%struct.T.2` is
/// `%struct.T`), followed by their body, so two structs with different
/// layouts never read alike.
/// Renames values and drops metadata in `module`.
pub fn canonical_kernels(module: &mut LoadedModule<'_>) -> Vec<KernelBody> {
    let mut out = Vec::new();
    // SAFETY: every handle below comes from this module, which is alive
    // and not otherwise borrowed; strings LLVM allocates are disposed of.
    unsafe {
        let context = LLVMGetModuleContext(module.module().as_mut_ptr());
        let mut function = LLVMGetFirstFunction(module.module().as_mut_ptr());
        while !function.is_null() {
            if LLVMGetFunctionCallConv(function) == AMDGPU_KERNEL_CC && LLVMCountBasicBlocks(function) > 0 {
                let mut body = canonical_body(function, &|space| {
                    llvm_sys::target::LLVMPointerSizeForAS(module.target_data().as_mut_ptr(), space) < 8
                });
                let mut structs = std::collections::HashMap::new();
                for line in &mut body.lines {
                    *line = same_space_for_read_only_data(&canonical_type_names(line, context, &mut structs));
                }
                out.push(body);
            }
            function = LLVMGetNextFunction(function);
        }
        out.push(program_scope_data(module));
    }
    out
}

/// The program-scope variables' definitions (initialisers included) as one
/// more body, compared like a kernel's, so a table moved from `__constant`
/// to `__global` compares as the same data and a changed initialiser does not.
///
/// SAFETY: the module is alive.
unsafe fn program_scope_data(module: &mut LoadedModule<'_>) -> KernelBody {
    let mut lines = Vec::new();
    let context = LLVMGetModuleContext(module.module().as_mut_ptr());
    let mut structs = std::collections::HashMap::new();
    let mut global = LLVMGetFirstGlobal(module.module().as_mut_ptr());
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

/// Names a value (a parameter, block or instruction) for canonical printing.
///
/// SAFETY: `value` must be a valid value.
unsafe fn set_name(value: LLVMValueRef, name: &str) {
    LLVMSetValueName2(value, name.as_ptr() as *const _, name.len());
}

/// SAFETY: `function` must be a defined function of a live module.
unsafe fn canonical_body(function: LLVMValueRef, narrow_space: &dyn Fn(u32) -> bool) -> KernelBody {
    let mut lines = Vec::new();
    for i in 0..LLVMCountParams(function) {
        let param = LLVMGetParam(function, i);
        set_name(param, &format!("a{i}"));
        lines.push(format!("param {}", take_message(LLVMPrintTypeToString(LLVMTypeOf(param)))));
    }
    let (instructions, looked_through) = name_by_position(function, narrow_space);
    let mut flat_accesses = 0;
    for inst in instructions {
        if let Some(line) = canonical_line(inst, &looked_through, narrow_space, &mut flat_accesses) {
            lines.push(line);
        }
    }
    let mut len = 0usize;
    let name = string_of(LLVMGetValueName2(function, &mut len), len);
    KernelBody { name, lines, flat_accesses }
}

/// The function's instructions in order, and those looked through: casts to
/// flat that only feed builtins, and widenings that only index pointers of a
/// narrow space. Blocks and values are then named by position (the looked
/// through take no number, so they shift nothing).
///
/// SAFETY: `function` must be a defined function of a live module.
unsafe fn name_by_position(
    function: LLVMValueRef,
    narrow_space: &dyn Fn(u32) -> bool,
) -> (Vec<LLVMValueRef>, std::collections::HashSet<LLVMValueRef>) {
    let mut instructions = Vec::new();
    let mut looked_through = std::collections::HashSet::new();
    let mut block = LLVMGetFirstBasicBlock(function);
    let mut blocks = 0;
    while !block.is_null() {
        set_name(LLVMBasicBlockAsValue(block), &format!("b{blocks}"));
        blocks += 1;
        let mut inst = LLVMGetFirstInstruction(block);
        while !inst.is_null() {
            if is_looked_through(inst, narrow_space) {
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
    (instructions, looked_through)
}

/// A cast to flat that only feeds builtins, or a widening that only indexes pointers of a narrow space.
///
/// SAFETY: `inst` must be an instruction.
unsafe fn is_looked_through(inst: LLVMValueRef, narrow_space: &dyn Fn(u32) -> bool) -> bool {
    let opcode = LLVMGetInstructionOpcode(inst);
    let flat_for_builtin = opcode == LLVMOpcode::LLVMAddrSpaceCast
        && pointer_space_of(inst) == Some(0)
        && only_feeds(inst, &|user| !LLVMIsACallInst(user).is_null() && known_callee(user).is_some());
    let widened_index = matches!(opcode, LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMTrunc)
        && only_feeds(inst, &|user| {
            !LLVMIsAGetElementPtrInst(user).is_null()
                && LLVMGetOperand(user, 0) != inst
                && pointer_space_of(LLVMGetOperand(user, 0)).map(narrow_space).unwrap_or(false)
        });
    flat_for_builtin || widened_index
}

/// One instruction's canonical line (none for one looked through), counting
/// its accesses through flat pointers into `flat_accesses`; drops its metadata.
///
/// SAFETY: `inst` must be an instruction named by `name_by_position`.
unsafe fn canonical_line(
    inst: LLVMValueRef,
    looked_through: &std::collections::HashSet<LLVMValueRef>,
    narrow_space: &dyn Fn(u32) -> bool,
    flat_accesses: &mut usize,
) -> Option<String> {
    drop_metadata(inst);
    let opcode = LLVMGetInstructionOpcode(inst);
    let pointer_operand = match opcode {
        LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => Some(0),
        LLVMOpcode::LLVMStore => Some(1),
        _ => None,
    };
    if let Some(index) = pointer_operand {
        *flat_accesses += usize::from(pointer_space_of(LLVMGetOperand(inst, index)) == Some(0));
    }
    if looked_through.contains(&inst) {
        return None;
    }
    let narrow_gep =
        opcode == LLVMOpcode::LLVMGetElementPtr && pointer_space_of(LLVMGetOperand(inst, 0)).map(narrow_space).unwrap_or(false);
    if narrow_gep {
        let count = LLVMGetNumOperands(inst).max(0) as u32;
        let mut operands = vec![operand_text(LLVMGetOperand(inst, 0))];
        operands.extend((1..count).map(|i| narrow_index_text(LLVMGetOperand(inst, i), looked_through)));
        let inbounds = if LLVMIsInBounds(inst) != 0 { " inbounds" } else { "" };
        let element = take_message(LLVMPrintTypeToString(LLVMGetGEPSourceElementType(inst)));
        return Some(format!("{} = getelementptr{inbounds} {element}, {}", operand_text(inst), operands.join(", ")));
    }
    let known = if opcode == LLVMOpcode::LLVMCall { known_callee(inst) } else { None };
    Some(match known {
        Some(callee) => known_call_line(inst, &callee, looked_through, flat_accesses),
        None => {
            let text = take_message(LLVMPrintValueToString(inst));
            let text = text.trim();
            // `call ... #7`: attribute-group numbers differ between modules.
            let text = match text.rsplit_once(" #") {
                Some((head, group)) if opcode == LLVMOpcode::LLVMCall && group.bytes().all(|b| b.is_ascii_digit()) => head,
                _ => text,
            };
            text.to_string()
        }
    })
}

/// A call to a library builtin or a proven function as its name and
/// arguments, the casts looked through; counts the flat pointers it is
/// given (for a proven function, those it is given as flat in the original too).
///
/// SAFETY: `inst` must be a call to `callee`.
unsafe fn known_call_line(
    inst: LLVMValueRef,
    callee: &KnownCallee,
    looked_through: &std::collections::HashSet<LLVMValueRef>,
    flat_accesses: &mut usize,
) -> String {
    // A proven function's argument may be a constant cast (a `__local`
    // array of the kernel's, cast to flat): the same named pointer too.
    let constant_flat_cast = |value: LLVMValueRef| {
        callee.proven
            && !LLVMIsAConstantExpr(value).is_null()
            && LLVMGetConstOpcode(value) == LLVMOpcode::LLVMAddrSpaceCast
            && pointer_space_of(value) == Some(0)
    };
    let resolve = |value: LLVMValueRef| {
        if looked_through.contains(&value) || constant_flat_cast(value) {
            LLVMGetOperand(value, 0)
        } else {
            value
        }
    };
    let mut args = Vec::new();
    for i in 0..LLVMGetNumArgOperands(inst) {
        let arg = LLVMGetOperand(inst, i);
        let given = if callee.proven { resolve(arg) } else { arg };
        *flat_accesses += usize::from(pointer_space_of(given) == Some(0));
        args.push(operand_text(resolve(arg)));
    }
    let result = if LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMTypeKind::LLVMVoidTypeKind {
        String::new()
    } else {
        format!("{} = ", operand_text(inst))
    };
    format!("{result}call {}({})", callee.name, args.join(", "))
}

/// `text` with every named struct type (`%struct.T.2`) replaced by its
/// canonical spelling (`%struct.T{ float, i32 }`): the name without the
/// numeric suffixes LLVM adds to keep names unique in a context (which
/// depend on what else that context loaded), then the body, itself
/// canonical. Struct containment is acyclic (pointers are opaque), so the
/// recursion ends. A `%token` that names no struct type (a value) is kept.
/// `cache` holds both answers, per context.
///
/// SAFETY: `context` must be the live context of the module `text` was printed from.
pub(super) unsafe fn canonical_type_names(
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
            // Kept as written, and remembered so: a value's name recurs on
            // many lines, and asking the context each time was most of the cost.
            let kept = format!("%{name}");
            out.push_str(&kept);
            cache.insert(name.to_string(), kept);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Textual amdgcn IR for one kernel; `body` is spliced in.
    fn kernel_ir(body: &str) -> String {
        format!(
            "target datalayout = \"e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9\"\n\
             target triple = \"amdgcn-amd-amdhsa\"\n\
             declare <4 x float> @_Z6vload4mPU3AS1Kf(i64, ptr addrspace(1))\n\
             declare <4 x float> @_Z6vload4mPKf(i64, ptr)\n\
             define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %buf, i32 %i) {{\n{body}\n}}\n\
             !0 = !{{}}\n!1 = !{{!0}}\n"
        )
    }

    fn canonical(body: &str) -> Vec<KernelBody> {
        let context = Context::create();
        canonical_kernels_from_bitcode(&context, kernel_ir(body).as_bytes(), "test.ll").expect("valid IR")
    }

    #[test]
    fn canonical_kernels_ignore_names_metadata_and_builtin_overloads() {
        let original = canonical(
            "entry:\n  %g = getelementptr inbounds float, ptr addrspace(3) %buf, i32 %i\n  \
             %x = load float, ptr addrspace(3) %g, align 4, !tbaa !1\n  \
             %v = call <4 x float> @_Z6vload4mPU3AS1Kf(i64 0, ptr addrspace(1) %out)\n  \
             store float %x, ptr addrspace(1) %out, align 4\n  ret void",
        );
        // Other names and metadata, a 64-bit index into local memory, the generic vload4 after a cast.
        let migrated = canonical(
            "start:\n  %wide = sext i32 %i to i64\n  %p = getelementptr inbounds float, ptr addrspace(3) %buf, i64 %wide\n  \
             %y = load float, ptr addrspace(3) %p, align 4\n  \
             %flat = addrspacecast ptr addrspace(1) %out to ptr\n  \
             %w = call <4 x float> @_Z6vload4mPKf(i64 0, ptr %flat)\n  \
             store float %y, ptr addrspace(1) %out, align 4\n  ret void",
        );
        assert_eq!(original[0].lines, migrated[0].lines);
        assert_eq!((original[0].flat_accesses, migrated[0].flat_accesses), (0, 1));
        let changed = canonical(
            "entry:\n  %g = getelementptr inbounds float, ptr addrspace(3) %buf, i32 %i\n  \
             %x = load float, ptr addrspace(3) %g, align 4\n  \
             %v = call <4 x float> @_Z6vload4mPU3AS1Kf(i64 1, ptr addrspace(1) %out)\n  \
             store float %x, ptr addrspace(1) %out, align 4\n  ret void",
        );
        let found = crate::verify::compare(&original, &changed);
        assert_eq!(found.different.len(), 1, "{found:?}");
        assert!(found.different[0].migrated.contains("vload4(i64 1"), "{found:?}");
    }

    /// One kernel indexing a `%struct.T` with `body`, in textual amdgcn IR.
    fn struct_ir(body: &str) -> String {
        format!(
            "target triple = \"amdgcn-amd-amdhsa\"\n\
             %struct.T = type {{ {body} }}\n\
             define amdgpu_kernel void @k(ptr addrspace(1) %p, i64 %i) {{\n\
             entry:\n  %e = getelementptr inbounds %struct.T, ptr addrspace(1) %p, i64 %i, i32 1\n  \
             store i32 0, ptr addrspace(1) %e, align 4\n  ret void\n}}\n"
        )
    }

    #[test]
    fn canonical_struct_names_drop_context_suffixes_but_keep_layouts_apart() {
        // One context, as in `migrate`: the second and third modules' `%struct.T` become `%struct.T.0`, `%struct.T.1`.
        let context = Context::create();
        let kernels =
            |body: &str| canonical_kernels_from_bitcode(&context, struct_ir(body).as_bytes(), "t.ll").expect("valid IR");
        let first = kernels("i32, i32");
        let renamed = kernels("i32, i32");
        let other_layout = kernels("i32, i64");
        assert_eq!(first[0].lines, renamed[0].lines);
        assert!(first[0].lines.iter().any(|l| l.contains("%struct.T{ i32, i32 }")), "{:?}", first[0].lines);
        assert_ne!(first[0].lines, other_layout[0].lines);
    }
}
