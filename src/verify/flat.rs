//! Accesses through flat (generic, amdgcn address space 0) pointers: what
//! each does (`AccessKind`) and where its pointer comes from (`Cause`),
//! counted per kernel (`FlatAccesses`) by `canonical.rs` as it prints a
//! kernel, and by `residual.rs` over helpers kept out of line. A leaf of
//! `verify`: it reads instructions through `lower`'s IR view and imports
//! nothing else of the folder.

use std::collections::BTreeMap;

use inkwell::values::InstructionOpcode as Opcode;

use crate::front::lower::Val;
use crate::support::text::plural;

/// What an access through a flat pointer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    Load,
    Store,
    Atomic,
    /// A pointer given to `llvm.memcpy`, `llvm.memmove` or `llvm.memset`.
    Copy,
    /// A pointer given to a builtin (its 2.0 generic overload).
    Builtin,
}

impl AccessKind {
    fn noun(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Atomic => "atomic",
            AccessKind::Copy => "memory copy",
            AccessKind::Builtin => "builtin call",
        }
    }
}

/// Where the flat pointer of an access comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cause {
    /// The access is in a helper kept out of line (its name): its generic
    /// parameters stay generic whatever each call passes.
    OutOfLine(String),
    /// A `select` chose it (between pointers of different spaces).
    Select,
    /// A `phi` merged it (pointers of different spaces meeting).
    Phi,
    /// It was loaded from memory.
    Loaded,
    /// A call returned it.
    Returned,
    /// Anything else: a cast the pass could not narrow, a constant.
    Other,
}

impl Cause {
    fn text(&self) -> String {
        match self {
            Cause::OutOfLine(helper) => format!("in out-of-line `{helper}`"),
            Cause::Select => "through a pointer chosen by a select".into(),
            Cause::Phi => "through a pointer merged by a phi".into(),
            Cause::Loaded => "through a pointer loaded from memory".into(),
            Cause::Returned => "through a pointer returned by a call".into(),
            Cause::Other => "through a pointer cast to generic".into(),
        }
    }
}

/// A kernel's accesses through flat pointers, by cause and kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlatAccesses {
    counts: BTreeMap<(Cause, AccessKind), usize>,
    /// Per out-of-line helper, how many calls its accesses are counted for.
    calls: BTreeMap<String, usize>,
}

impl FlatAccesses {
    /// How many accesses in all.
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    /// Counts one access of `kind` through `pointer` when it is flat.
    pub(super) fn record_if_flat(&mut self, kind: AccessKind, pointer: Val<'_>) {
        if pointer.ty().pointer_space() == Some(FLAT_SPACE) {
            *self.counts.entry((cause_of(pointer), kind)).or_default() += 1;
        }
    }

    /// Adds every access of an out-of-line `helper` (those of the helpers
    /// it calls included), under its name.
    pub(super) fn add_out_of_line(&mut self, helper: &str, accesses: &FlatAccesses) {
        if accesses.total() == 0 {
            return;
        }
        for ((_, kind), n) in &accesses.counts {
            *self.counts.entry((Cause::OutOfLine(helper.to_string()), *kind)).or_default() += n;
        }
        *self.calls.entry(helper.to_string()).or_default() += 1;
    }

    /// `2 loads, 1 store in out-of-line `sum` over its 2 calls; 1 load
    /// through a pointer chosen by a select`: by cause, then kind, in a
    /// fixed order (a helper's accesses count at each call).
    pub fn describe(&self) -> String {
        let mut by_cause: BTreeMap<&Cause, Vec<String>> = BTreeMap::new();
        for ((cause, kind), n) in &self.counts {
            by_cause.entry(cause).or_default().push(plural(*n, kind.noun(), ""));
        }
        let parts = by_cause.into_iter().map(|(cause, kinds)| {
            let calls = match cause {
                Cause::OutOfLine(helper) => self.calls.get(helper).copied().unwrap_or(0),
                _ => 0,
            };
            let calls = if calls > 1 { format!(" over its {calls} calls") } else { String::new() };
            format!("{} {}{calls}", kinds.join(", "), cause.text())
        });
        parts.collect::<Vec<String>>().join("; ")
    }
}

/// amdgcn's flat (generic) address space.
pub(super) const FLAT_SPACE: u32 = 0;

/// Where `pointer` comes from, through offsets and bitcasts.
fn cause_of(pointer: Val<'_>) -> Cause {
    let mut value = pointer;
    // Offsets of offsets are short chains; the bound only guards a malformed module.
    for _ in 0..256 {
        match value.opcode() {
            Some(Opcode::GetElementPtr | Opcode::BitCast) => value = value.operand(0),
            Some(Opcode::Select) => return Cause::Select,
            Some(Opcode::Phi) => return Cause::Phi,
            Some(Opcode::Load) => return Cause::Loaded,
            Some(Opcode::Call) => return Cause::Returned,
            _ => break,
        }
    }
    Cause::Other
}

/// Counts the access `inst` makes through a flat pointer, if any: a load,
/// store or atomic, or a memory intrinsic (each flat pointer it is given).
/// Builtin calls are counted by the caller, which knows which arguments
/// stand for a named pointer (`canonical.rs`).
pub(super) fn record_access(inst: Val<'_>, flat: &mut FlatAccesses) {
    match inst.opcode() {
        Some(Opcode::Load) => flat.record_if_flat(AccessKind::Load, inst.operand(0)),
        Some(Opcode::Store) => flat.record_if_flat(AccessKind::Store, inst.operand(1)),
        Some(Opcode::AtomicRMW | Opcode::AtomicCmpXchg) => flat.record_if_flat(AccessKind::Atomic, inst.operand(0)),
        Some(Opcode::Call) if is_memory_intrinsic(inst) => {
            for argument in inst.arguments() {
                flat.record_if_flat(AccessKind::Copy, argument);
            }
        }
        _ => {}
    }
}

/// A call to `llvm.memcpy`, `llvm.memmove` or `llvm.memset` (and their `.inline` forms).
fn is_memory_intrinsic(call: Val<'_>) -> bool {
    let Some(callee) = call.called_function() else { return false };
    let name = callee.name();
    ["llvm.memcpy.", "llvm.memmove.", "llvm.memset."].iter().any(|p| name.starts_with(p))
}
