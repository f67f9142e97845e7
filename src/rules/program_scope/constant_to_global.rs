//! Rule `constant-to-global`: a program-scope `__constant` variable moves to
//! `__global const`, with the `__constant` pointers that receive its address.
//!
//! What it does: `__constant float big[20000] = {...};` becomes `__global
//! const float big[20000] = {...};` (spelled as the file spells it: `global`
//! for `constant`, the project's own macro for global when the unit has one),
//! and `__constant float *w = big;` becomes `__global const float *w = big;`.
//! Why: OpenCL 2.0 allows program-scope `__global` data, and devices only
//! guarantee 64 KiB of constant memory; which variables move, and why, is
//! decided by `choose` in this module. The cost: reads go through the
//! global cache instead of the constant cache.

use crate::codes::Code;
use crate::facts::syntax::{Pos, Space, Spelling};
use crate::front::unit::Unit;
use crate::infer::Evidence;
use crate::rules::{Edit, Fix};

/// What the move costs, said with every move.
pub const PERFORMANCE: &str = "reads go through the global cache now";

/// How a unit spells `__global`, given how the edited qualifier is spelled:
/// the same style of keyword, or the unit's own macro for global.
pub fn global_spelling(unit: &Unit, spelling: &Spelling) -> Option<String> {
    match spelling {
        Spelling::Keyword { text, .. } => Some(if text.starts_with("__") { "__global" } else { "global" }.to_string()),
        Spelling::MacroUse { .. } => Some(
            unit.syntax
                .qualifier_macros
                .iter()
                .find(|(_, s)| **s == Space::Global)
                .map_or("__global".to_string(), |(m, _)| m.clone()),
        ),
        _ => None,
    }
}

/// The edit turning one `__constant` qualifier into `__global` (plus `const`
/// when the declaration does not say it: __constant data is read-only, and
/// so must its new pointers be).
pub fn requalify(unit: &Unit, spelling: &Spelling, type_text: &str) -> Option<Edit> {
    let range = spelling.range()?;
    let global = global_spelling(unit, spelling)?;
    let replacement = if crate::facts::syntax::says_const(type_text) { global } else { format!("{global} const") };
    Some(Edit { file: unit.syntax.files[range.file].clone(), start: range.start, end: range.end, replacement })
}

/// The fix for one moved variable: its own edit and its followers', with why.
pub fn fix(unit: &Unit, name: &str, pos: Pos, edits: Vec<Edit>, why: String, evidence: Vec<Evidence>) -> Fix {
    let mut edits = edits;
    edits.sort();
    Fix {
        rule: Code::ConstantToGlobal,
        file: unit.syntax.files[pos.file].clone(),
        line: pos.line,
        col: pos.col,
        function: String::new(),
        decl: pos,
        link_name: String::new(),
        message: format!("`{name}` moves from __constant to __global: {why}; {PERFORMANCE}"),
        required: false,
        evidence,
        edits,
        variable: None,
        origin: None,
    }
}
