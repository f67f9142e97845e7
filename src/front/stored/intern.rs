//! Equal facts of a batch's units held once: what `decode` reads back is
//! each unit's own copy of what loaded units share (a header's functions,
//! their tokens and pointer declarations, skipped ranges, reference runs,
//! shared words, IR functions and flows); interning makes each equal value
//! one allocation again. Shared values are never changed in place (a stage
//! changing one copies it first, `Arc::make_mut`), so holding a shared one
//! is the same as holding a copy.

use std::collections::BTreeSet;

use foldhash::HashSet;
use std::hash::Hash;
use std::sync::Arc;

use crate::facts::ir::{Flow, IrFunction};
use crate::facts::syntax::{Function, FunctionRef, PointerDecl, SkippedRange, SourceToken};
use crate::front::unit::Unit;

/// The values met so far, each the first of its kind (by value, not by hash
/// alone). Run it over every unit of a batch, the loaded ones too, so that
/// decoded units share with them; drop it with the batch.
#[derive(Default)]
pub struct Interner {
    functions: HashSet<Arc<Function>>,
    /// Where each of `functions` is: a decoded unit's functions are most
    /// often those met before already (`lazy`), known so without hashing them.
    held: HashSet<usize>,
    pointers: HashSet<Arc<PointerDecl>>,
    tokens: HashSet<Arc<[SourceToken]>>,
    skipped: HashSet<Arc<SkippedRange>>,
    references: HashSet<Arc<[FunctionRef]>>,
    words: HashSet<Arc<BTreeSet<String>>>,
    ir_functions: HashSet<Arc<IrFunction>>,
    flows: HashSet<Arc<Flow>>,
}

impl Interner {
    /// Makes the unit hold the values met before wherever it holds an equal one.
    pub fn intern(&mut self, unit: &mut Unit) {
        for function in unit.syntax.functions.iter_mut() {
            self.function(function);
        }
        for skipped in unit.syntax.skipped.iter_mut() {
            share(&mut self.skipped, skipped);
        }
        for run in unit.syntax.references.sealed_mut() {
            share(&mut self.references, run);
        }
        let mut words = unit.syntax.identifiers.parts().1.clone();
        if share(&mut self.words, &mut words) {
            unit.syntax.identifiers.share(words);
        }
        for function in unit.ir.functions.iter_mut() {
            share(&mut self.ir_functions, function);
        }
        for flow in unit.ir.flows.iter_mut() {
            share(&mut self.flows, flow);
        }
    }

    /// A function met before, else this one with its parts shared.
    fn function(&mut self, function: &mut Arc<Function>) {
        if self.held.contains(&(Arc::as_ptr(function) as usize)) {
            return;
        }
        if let Some(same) = self.functions.get(&**function) {
            *function = same.clone();
            return;
        }
        // Its parts, where it is this unit's alone (a loaded unit's may be shared already).
        if let Some(own) = Arc::get_mut(function) {
            share(&mut self.tokens, &mut own.tokens);
            for pointer in own.pointers.iter_mut() {
                share(&mut self.pointers, pointer);
            }
        }
        self.held.insert(Arc::as_ptr(function) as usize);
        self.functions.insert(function.clone());
    }
}

/// Makes `value` the equal one `kept` holds, else keeps it there: whether it was replaced.
fn share<T: ?Sized + Hash + Eq>(kept: &mut HashSet<Arc<T>>, value: &mut Arc<T>) -> bool {
    match kept.get(&**value) {
        Some(same) if Arc::ptr_eq(same, value) => false,
        Some(same) => {
            *value = same.clone();
            true
        }
        None => {
            kept.insert(value.clone());
            false
        }
    }
}
