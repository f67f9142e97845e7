//! Program-scope data: which `__constant` variables move to `__global`.
//!
//! `__constant` stays by default: it is valid in 2.0 and the constant cache
//! is fast for uniform reads. A variable moves (rule `constant-to-global`)
//! when the program's `__constant` data, summed from the IR's sizes, is over
//! the budget devices guarantee (`--constant-budget`, 64 KiB): the largest
//! movable ones first, until it fits; or, with `--globals prefer-global`,
//! every movable one. The `__constant` pointers its address reaches move
//! with it, in the same change set. A variable does not move when its
//! qualifier is not editable at its declaration, when its address escapes
//! where clasp cannot follow it (memory, an integer, a function not defined
//! in the unit), or when the target has no program-scope globals.

mod choose;
mod components;
pub mod constant_to_global;
pub mod infer_space;

use crate::facts::syntax::{FileIndex, ProgramVar, Space};
use crate::front::unit::Unit;
use crate::infer::{Decisions, Evidence};
use crate::rules::{Because, Fix, VariableEvidence};
use crate::support::ids::{DeclKey, UnitId};
pub use choose::{choose, Choice};
use components::size_of;
pub use infer_space::infer_spaces;

/// The moves of one unit's tables moving together: one fix per table (the
/// first with its followers' edits), and the declarations they change (the
/// first table's key first: (canonical file, offset)).
pub struct Move {
    pub unit: UnitId,
    pub fixes: Vec<Fix>,
    pub keys: Vec<DeclKey>,
}

/// Tables chosen to move together (pointers receive more than one of them),
/// before the inference runs again with their followers moved.
pub struct Chosen {
    unit: UnitId,
    /// Indexes into the unit's program-scope variables.
    vars: Vec<usize>,
    why: Why,
    /// The program's `__constant` data before any move, and the budget.
    constant_bytes: u64,
    budget_bytes: u64,
    /// The `__constant` pointer declarations their address reaches: (file id, name offset).
    pub followers: Vec<(FileIndex, u32)>,
}

impl Chosen {
    pub fn unit(&self) -> UnitId {
        self.unit
    }

    /// The `__constant` duplicate whose merge needs the move, when that is why.
    pub fn needed_by(&self) -> Option<&DeclKey> {
        self.why.needed_by.as_ref().map(|(key, _)| key)
    }
}

/// Why tables move: in words, as a code for reports, and the duplicate that needs it.
#[derive(Clone)]
struct Why {
    text: String,
    because: Because,
    needed_by: Option<(DeclKey, String)>,
}

/// The move of `chosen`, once the inference has run again with its followers
/// moved: each table becomes `__global const`, and each follower that did
/// not become generic (a kernel's local, a helper pointer pinned otherwise)
/// `__global const` too. The generic ones are the generic rules' fixes, in
/// the same change set (their keys are among the move's).
pub fn build(units: &[Unit], decisions: &[Decisions], chosen: &Chosen) -> Option<Move> {
    let unit = &units[chosen.unit];
    let mut keys = Vec::new();
    let mut follower_edits = Vec::new();
    let mut names = Vec::new();
    for &(file, offset) in &chosen.followers {
        let d = decisions[chosen.unit].iter().find(|d| d.decl.pos.file == file && d.decl.pos.offset == offset)?;
        keys.push(unit.key(file, offset));
        let owner = if d.kernel { "kernel" } else { "helper" };
        if matches!(d.decision, crate::infer::Decision::Generic { .. }) {
            names.push(format!("`{}` of {owner} `{}` (generic)", d.decl.name, d.function));
        } else {
            follower_edits.push(constant_to_global::requalify(unit, &d.decl.levels.first()?.spelling, &d.decl.type_text)?);
            names.push(format!("`{}` of {owner} `{}` (__global)", d.decl.name, d.function));
        }
    }
    let vars: Vec<&ProgramVar> = chosen.vars.iter().map(|v| &unit.syntax.program_vars[*v]).collect();
    let together: Vec<String> = vars.iter().map(|v| format!("`{}`", v.name)).collect();
    let mut fixes = Vec::new();
    for (i, var) in vars.iter().enumerate() {
        let size = size_of(unit, var);
        let mut edits = vec![constant_to_global::requalify(unit, &var.spelling, &var.type_text)?];
        let mut why = chosen.why.text.clone();
        if vars.len() > 1 {
            why = format!("{why}; moves with {} (pointers receive each of them)", together.join(", "));
        }
        // The followers' edits go with the first table, so each is shown once.
        if i == 0 {
            edits.extend(follower_edits.iter().cloned());
            if !names.is_empty() {
                why = format!("{why}; with {}", names.join(", "));
            }
        }
        let at = format!("{}:{}", unit.syntax.files[var.pos.file].display(), var.pos.line);
        let evidence = vec![Evidence { space: Space::Constant, from: format!("`{}` ({size} bytes)", var.name), at }];
        let mut fix = constant_to_global::fix(unit, &var.name, var.pos, edits, why, evidence);
        fix.variable = Some(VariableEvidence {
            name: var.name.clone(),
            size_bytes: size,
            space: Space::Global,
            because: chosen.why.because,
            needed_by: chosen.why.needed_by.as_ref().map(|(_, cited)| cited.clone()),
            constant_bytes: chosen.constant_bytes,
            budget_bytes: chosen.budget_bytes,
            performance: constant_to_global::PERFORMANCE,
        });
        fixes.push(fix);
    }
    let table_keys = vars.iter().map(|v| unit.key(v.pos.file, v.pos.offset));
    keys = table_keys.chain(keys).collect();
    Some(Move { unit: chosen.unit, fixes, keys })
}
