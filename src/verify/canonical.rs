//! Canonical kernels: every kernel of an optimised module, and its
//! program-scope data, printed so that two compilations of the same
//! behaviour read the same lines (values renamed by position, metadata
//! dropped, builtin overloads, widened local indices and numbered struct
//! names looked through) for `compare`.
//!
//! It reads and renames the optimised module through `lower`'s IR view
//! (`LoadedModule`, `Val`, `Ty`): no `unsafe` here.

use std::collections::{HashMap, HashSet};

use inkwell::context::Context;
use inkwell::values::InstructionOpcode as Opcode;

use super::flat::{record_access, AccessKind, FlatAccesses};
use super::PROVEN_PREFIX;
use crate::front::lower::{load, LoadError, LoadedModule, StructBody, Val, AMDGPU_KERNEL_CC};

/// A kernel's optimised body in a form where two compilations of the same
/// behaviour print the same lines (see `canonical_kernels`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelBody {
    pub name: String,
    /// Parameter types, then one line per instruction.
    pub lines: Vec<String>,
    /// Loads, stores, atomics, memory copies and builtin calls through flat
    /// (generic, AS 0) pointers, by kind and cause (`flat.rs`).
    pub flat: FlatAccesses,
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
fn known_callee(call: Val<'_>) -> Option<KnownCallee> {
    let callee = call.called_function().filter(|callee| !callee.is_defined_function())?;
    let name = callee.name();
    if let Some(proven) = name.strip_prefix(PROVEN_PREFIX) {
        // `clasp.proven.f.1`: a second declaration for `f` (no OpenCL C name holds a dot).
        let proven = proven.split('.').next().unwrap_or(proven);
        return Some(KnownCallee { name: format!("proven {proven}"), proven: true });
    }
    name.starts_with("_Z").then(|| KnownCallee { name: crate::facts::ir::demangled_base(&name).to_string(), proven: false })
}

/// Whether `call` calls a library builtin or a proven function: a call
/// compared by name and arguments, casts to flat looked through.
pub(super) fn compares_by_name(call: Val<'_>) -> bool {
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
    let narrow_space = |space| module.pointer_size(space) < 8;
    for function in module.function_values() {
        if function.calling_convention() == Some(AMDGPU_KERNEL_CC) && function.is_defined_function() {
            let mut body = canonical_body(function, &narrow_space);
            let mut structs = HashMap::new();
            for line in &mut body.lines {
                *line = same_space_for_read_only_data(&canonical_type_names(line, module, &mut structs));
            }
            out.push(body);
        }
    }
    out.push(program_scope_data(module));
    out
}

/// The program-scope variables' definitions (initialisers included) as one
/// more body, compared like a kernel's, so a table moved from `__constant`
/// to `__global` compares as the same data and a changed initialiser does not.
fn program_scope_data(module: &LoadedModule<'_>) -> KernelBody {
    let mut lines = Vec::new();
    let mut structs = HashMap::new();
    for global in module.global_values() {
        let name = global.name();
        if !name.starts_with("llvm.") && !name.starts_with("__oclc") {
            let line = same_space_for_read_only_data(&canonical_type_names(&global.print(), module, &mut structs));
            // A variable never written may be `constant` on one side only (given a space, or
            // `const` added by a move): the same data, as its kernels' loads and stores show.
            lines.push(line.replacen(" constant ", " global ", 1));
        }
    }
    lines.sort();
    KernelBody { name: PROGRAM_SCOPE_DATA.to_string(), lines, flat: FlatAccesses::default() }
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

/// A defined function's canonical body; names its parameters, blocks and values.
fn canonical_body(function: Val<'_>, narrow_space: &dyn Fn(u32) -> bool) -> KernelBody {
    let mut lines = Vec::new();
    for (i, param) in function.params().into_iter().enumerate() {
        param.set_name(&format!("a{i}"));
        lines.push(format!("param {}", param.ty().print()));
    }
    let (instructions, looked_through) = name_by_position(function, narrow_space);
    let mut flat = FlatAccesses::default();
    for inst in instructions {
        if let Some(line) = canonical_line(inst, &looked_through, narrow_space, &mut flat) {
            lines.push(line);
        }
    }
    KernelBody { name: function.name(), lines, flat }
}

/// The function's instructions in order, and those looked through: casts to
/// flat that only feed builtins, and widenings that only index pointers of a
/// narrow space. Blocks and values are then named by position (the looked
/// through take no number, so they shift nothing).
fn name_by_position<'m>(function: Val<'m>, narrow_space: &dyn Fn(u32) -> bool) -> (Vec<Val<'m>>, HashSet<Val<'m>>) {
    let mut instructions = Vec::new();
    let mut looked_through = HashSet::new();
    for (blocks, block) in function.blocks().into_iter().enumerate() {
        block.set_name(&format!("b{blocks}"));
        for inst in block.instructions() {
            if is_looked_through(inst, narrow_space) {
                looked_through.insert(inst);
            }
            instructions.push(inst);
        }
    }
    let mut values = 0;
    for inst in &instructions {
        if looked_through.contains(inst) {
            inst.set_name("cast");
        } else if !inst.ty().is_void() {
            inst.set_name(&format!("v{values}"));
            values += 1;
        }
    }
    (instructions, looked_through)
}

/// Whether `value`'s type is a pointer of a narrow space.
fn in_narrow_space(value: Val<'_>, narrow_space: &dyn Fn(u32) -> bool) -> bool {
    value.ty().pointer_space().map(narrow_space).unwrap_or(false)
}

/// A cast to flat that only feeds builtins, or a widening that only indexes pointers of a narrow space.
fn is_looked_through(inst: Val<'_>, narrow_space: &dyn Fn(u32) -> bool) -> bool {
    let opcode = inst.opcode();
    let flat_for_builtin = opcode == Some(Opcode::AddrSpaceCast)
        && inst.ty().pointer_space() == Some(0)
        && only_feeds(inst, &|user| user.is_call() && known_callee(user).is_some());
    let widened_index = matches!(opcode, Some(Opcode::SExt | Opcode::ZExt | Opcode::Trunc))
        && only_feeds(inst, &|user| user.is_gep() && user.operand(0) != inst && in_narrow_space(user.operand(0), narrow_space));
    flat_for_builtin || widened_index
}

/// One instruction's canonical line (none for one looked through), counting
/// its accesses through flat pointers into `flat`; drops its metadata.
fn canonical_line(
    inst: Val<'_>,
    looked_through: &HashSet<Val<'_>>,
    narrow_space: &dyn Fn(u32) -> bool,
    flat: &mut FlatAccesses,
) -> Option<String> {
    inst.drop_metadata();
    let opcode = inst.opcode();
    record_access(inst, flat);
    if looked_through.contains(&inst) {
        return None;
    }
    if let Some((element, in_bounds)) = inst.gep_element_type().filter(|_| in_narrow_space(inst.operand(0), narrow_space)) {
        let mut operands = vec![operand_text(inst.operand(0))];
        operands.extend(inst.operands().skip(1).map(|index| narrow_index_text(index, looked_through)));
        let inbounds = if in_bounds { " inbounds" } else { "" };
        return Some(format!("{} = getelementptr{inbounds} {}, {}", operand_text(inst), element.print(), operands.join(", ")));
    }
    let known = if opcode == Some(Opcode::Call) { known_callee(inst) } else { None };
    Some(match known {
        Some(callee) => known_call_line(inst, &callee, looked_through, flat),
        None => {
            let text = inst.print();
            let text = text.trim();
            // `call ... #7`: attribute-group numbers differ between modules.
            let text = match text.rsplit_once(" #") {
                Some((head, group)) if opcode == Some(Opcode::Call) && group.bytes().all(|b| b.is_ascii_digit()) => head,
                _ => text,
            };
            text.to_string()
        }
    })
}

/// A call to a library builtin or a proven function as its name and
/// arguments, the casts looked through; counts the flat pointers it is
/// given (for a proven function, those it is given as flat in the original too).
fn known_call_line(inst: Val<'_>, callee: &KnownCallee, looked_through: &HashSet<Val<'_>>, flat: &mut FlatAccesses) -> String {
    // An argument may be a constant cast (a `__local` array of the
    // kernel's, or an offset into it, cast to flat): the same named pointer
    // too, looked through as a cast instruction is.
    let constant_flat_cast =
        |value: Val<'_>| value.constant_opcode() == Some(Opcode::AddrSpaceCast) && value.ty().pointer_space() == Some(0);
    let resolve = |value| {
        if looked_through.contains(&value) || constant_flat_cast(value) {
            value.operand(0)
        } else {
            value
        }
    };
    let mut args = Vec::new();
    for arg in inst.arguments() {
        let given = if callee.proven { resolve(arg) } else { arg };
        flat.record_if_flat(AccessKind::Builtin, given);
        args.push(operand_text(resolve(arg)));
    }
    let result = if inst.ty().is_void() { String::new() } else { format!("{} = ", operand_text(inst)) };
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
pub(super) fn canonical_type_names(text: &str, module: &LoadedModule<'_>, cache: &mut HashMap<String, String>) -> String {
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
        let Some(body) = module.named_type(name).and_then(|ty| ty.struct_body()) else {
            // Kept as written, and remembered so: a value's name recurs on
            // many lines, and asking the context each time was most of the cost.
            let kept = format!("%{name}");
            out.push_str(&kept);
            cache.insert(name.to_string(), kept);
            continue;
        };
        let mut base = name;
        while let Some((head, tail)) = base.rsplit_once('.') {
            if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            base = head;
        }
        let body = match body {
            StructBody::Opaque => "opaque".to_string(),
            StructBody::Elements { elements, packed } => {
                let elements: Vec<String> =
                    elements.iter().map(|element| canonical_type_names(&element.print(), module, cache)).collect();
                let (open, close) = if packed { ("<{ ", " }>") } else { ("{ ", " }") };
                format!("{open}{}{close}", elements.join(", "))
            }
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
fn narrow_index_text(index: Val<'_>, looked_through: &HashSet<Val<'_>>) -> String {
    let wide = |v: Val<'_>| v.ty().int_width().is_some_and(|width| width > 32);
    if looked_through.contains(&index) {
        let source = index.operand(0);
        return match index.opcode() {
            Some(Opcode::Trunc) => format!("low32({})", operand_text(source)),
            _ if wide(source) => format!("low32({})", operand_text(source)),
            _ => operand_text(source),
        };
    }
    if index.ty().int_width().is_none() {
        return operand_text(index);
    }
    if let Some(value) = index.constant_int() {
        return format!("i32 {}", value as i32);
    }
    if wide(index) {
        return format!("low32({})", operand_text(index));
    }
    operand_text(index)
}

/// `ptr addrspace(1) %a0`, `i64 3`: how an operand reads in a canonical line.
fn operand_text(value: Val<'_>) -> String {
    if !value.is_local() {
        return value.print();
    }
    format!("{} %{}", value.ty().print(), value.name())
}

/// Whether `inst` has users and every one passes `accept`.
fn only_feeds<'m>(inst: Val<'m>, accept: &dyn Fn(Val<'m>) -> bool) -> bool {
    inst.has_uses() && inst.users().all(accept)
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
        assert_eq!((original[0].flat.total(), migrated[0].flat.total()), (0, 1));
        assert_eq!(migrated[0].flat.describe(), "1 builtin call through a pointer cast to generic");
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
