//! Calls to a declared function that compares by name (a library builtin,
//! a function proven on its own), given an offset flat pointer, rewritten
//! so the offset is taken in the named space first.
//!
//! Such a function takes flat parameters on one side where the other
//! passed a named pointer or a flat one cast earlier: a merged helper
//! proven on its own stands for several originals (its `__global` and
//! `__local` members), and a 2.0 build declares only the generic overload
//! of `vload8`, so a helper made generic hands it `p - n` computed on the
//! flat pointer where the original cast `p - n` of its `__local` pointer.
//! Once InferAddressSpaces has run, the migrated side computes
//! `getelementptr (addrspacecast p to flat), -n`. InferAddressSpaces cannot
//! take the cast past the offset (a call's parameter type is not its to
//! change), so the call reads differently from the original's
//! `call f(addrspacecast (getelementptr p, -n))` though it passes the same
//! address. Between the two halves of the pipeline
//! (`pipeline::optimise_for_equivalence`), each such argument is rebuilt as
//! `addrspacecast (getelementptr p, 4) to flat` where the flat offset was taken: the
//! same address (an offset commutes with a cast from a named space to
//! flat, the rule InferAddressSpaces rests on), the offset now in the named
//! space, where early CSE and GVN merge it with the original's own, and the
//! cast looked through as for any such call (`canonical.rs`).
//!
//! It rewrites instructions through `lower`'s IR view: no `unsafe` here.

use super::canonical::compares_by_name;
use crate::front::lower::{IrBuilder, LoadedModule, Val};

/// Rewrites every offset flat argument of a call to a function that compares
/// by name (see the module's doc).
pub(super) fn offsets_in_named_spaces(module: &LoadedModule<'_>) {
    let builder = module.builder();
    for function in module.function_values() {
        for instruction in function.instructions() {
            if instruction.is_call() && compares_by_name(instruction) {
                rewrite_arguments(&builder, instruction);
            }
        }
    }
}

/// Each argument of `call` that is a chain of offsets from a cast to flat
/// of a named-space pointer, rebuilt as the offsets in that space, then the cast.
fn rewrite_arguments<'m>(builder: &IrBuilder<'m>, call: Val<'m>) {
    let arguments: Vec<Val<'m>> = call.arguments().collect();
    for (index, argument) in arguments.into_iter().enumerate() {
        let Some((named, offsets)) = offsets_from_named(argument) else { continue };
        // Where the flat offset was taken, as the original took its own there
        // (a constant one: at the call; the builder folds constants anyway).
        // A constant offset holds no instruction, so an instruction in the
        // chain means the outermost offset is one.
        builder.position_before(if offsets[0].opcode().is_some() { offsets[0] } else { call });
        let mut pointer = named;
        for gep in offsets.iter().rev() {
            let indices: Vec<Val<'m>> = gep.operands().skip(1).collect();
            let Some((element, in_bounds)) = gep.gep_element_type() else { continue };
            pointer = builder.gep(element, pointer, &indices, in_bounds);
        }
        let flat = builder.address_space_cast(pointer, argument.ty());
        call.set_operand(index as u32, flat);
    }
}

/// When `value` is one or more `getelementptr`s over a cast to flat of a
/// pointer of a named space: that pointer, and the offsets (outermost
/// first). Instructions or constant expressions alike (a kernel's own
/// `__local` array is a constant, and so are the offsets into it at
/// constant indices).
fn offsets_from_named(value: Val<'_>) -> Option<(Val<'_>, Vec<Val<'_>>)> {
    let mut offsets = Vec::new();
    let mut current = value;
    while current.is_offset() {
        offsets.push(current);
        current = current.operand(0);
    }
    if offsets.is_empty() || !current.is_space_cast() {
        return None;
    }
    let named = current.operand(0);
    (named.ty().pointer_space() != current.ty().pointer_space()).then_some((named, offsets))
}
