//! Rule `infer-program-scope-space`: a program-scope variable, or a `static`
//! one in a function, written with no address space gets one.
//!
//! What it does: `const float w[4] = {...};` becomes `__constant const float
//! w[4] = {...};`, and `int hits[64];` becomes `__global int hits[64];`
//! (spelled as the file spells its qualifiers: `constant`/`global` when it
//! uses the short keywords). Why: OpenCL C 1.2 rejects such a variable
//! ("program scope variable must reside in constant address space"), though
//! lenient vendor compilers accepted it; 2.0 reads it as `__global`. Naming
//! the space says which one the program gets; which one, and why, is decided
//! in `migrate::program_scope`.

use super::{Edit, Fix, VariableEvidence};
use crate::infer::Evidence;
use crate::syntax::{ProgramVar, Space, Spelling};
use crate::unit::Unit;

pub const CODE: &str = "infer-program-scope-space";

/// What `__constant` means for reads, said with the fix.
pub const CONSTANT_CACHE: &str = "reads go through the constant cache";

/// The fix naming `space` for `var`, inserted before its type (after `static`).
pub fn fix(
    unit: &Unit,
    var: &ProgramVar,
    space: Space,
    why: String,
    evidence: Vec<Evidence>,
    data: VariableEvidence,
) -> Option<Fix> {
    let at = var.type_start?;
    let keyword = keyword_for(unit, at.file, space);
    let edit =
        Edit { file: unit.syntax.files[at.file].clone(), start: at.start, end: at.start, replacement: format!("{keyword} ") };
    let performance = if data.performance.is_empty() { String::new() } else { format!("; {}", data.performance) };
    Some(Fix {
        rule: CODE,
        file: unit.syntax.files[var.pos.file].clone(),
        line: var.pos.line,
        function: var.function.clone().unwrap_or_default(),
        decl: var.pos,
        link_name: String::new(),
        message: format!("`{}` has no address space (OpenCL C 1.2 rejects it): {keyword}, {why}{performance}", var.name),
        required: false,
        evidence,
        edits: vec![edit],
        variable: Some(data),
    })
}

/// `__constant`, or `constant` when the file spells its qualifier keywords without underscores.
fn keyword_for(unit: &Unit, file: usize, space: Space) -> String {
    let keywords = unit
        .syntax
        .functions
        .iter()
        .flat_map(|f| f.pointers.iter())
        .flat_map(|d| d.levels.iter())
        .map(|l| &l.spelling)
        .chain(unit.syntax.program_vars.iter().map(|v| &v.spelling));
    let mut short = 0i32;
    for spelling in keywords {
        if let Spelling::Keyword { text, range } = spelling {
            if range.file == file {
                short += if text.starts_with("__") { -1 } else { 1 };
            }
        }
    }
    let long = space.keyword();
    if short > 0 {
        long.trim_start_matches("__").to_string()
    } else {
        long.to_string()
    }
}
