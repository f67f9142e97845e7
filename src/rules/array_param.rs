//! Rule `array-param-to-pointer`: an array parameter becomes a generic
//! pointer parameter.
//!
//! What it does: `uint load_be(const uchar d[64], int i)` becomes
//! `uint load_be(const uchar *d, int i)`, `float m[4][4]` becomes
//! `float (*m)[4]`, and `const block_t b` (with `typedef uint block_t[16]`)
//! becomes `const uint *b`, in the definition and every prototype; an
//! explicit `__private` on the element goes too. Why: clang types an array
//! parameter as a pointer to `__private` even under 2.0, so 1.2 code that
//! passes it an unqualified pointer (generic in 2.0) stops compiling.
//! Applied only when a generic pointer reaches the parameter (see `infer`).
//! The array size goes: the compiler never used it for a parameter.

use super::{generic_fix, qualifier_edit, Edit, Fix};
use crate::codes::Code;
use crate::facts::syntax::{ArrayForm, PointerDecl};
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    let array = decision.decl.array.as_ref()?;
    let subject = match array.form {
        ArrayForm::Brackets { .. } => {
            format!("`{}{}` of `{}` (array to pointer)", decision.decl.name, array.spelled, decision.function)
        }
        ArrayForm::Typedef { .. } => {
            format!("`{}` of `{}` (array typedef `{}` to pointer)", decision.decl.name, decision.function, array.spelled)
        }
    };
    generic_fix(unit, decision, Code::ArrayParamToPointer, subject, pointer_edits)
}

/// `[qualifier] T name[N]` -> `T *name`; `T name[N][M]` -> `T (*name)[M]`;
/// `block_t name` -> `T *name`.
fn pointer_edits(unit: &Unit, decl: &PointerDecl) -> Vec<Edit> {
    let Some(array) = &decl.array else { return Vec::new() };
    let mut edits: Vec<Edit> = qualifier_edit(unit, decl).into_iter().collect();
    match &array.form {
        ArrayForm::Brackets { brackets, name_start, more_dimensions } => {
            let file = unit.syntax.files[brackets.file].clone();
            let (open, close) = if *more_dimensions { ("(*", ")") } else { ("*", "") };
            edits.push(Edit { file: file.clone(), start: *name_start, end: *name_start, replacement: open.into() });
            edits.push(Edit { file, start: brackets.start, end: brackets.end, replacement: close.into() });
        }
        ArrayForm::Typedef { name, element } => {
            let file = unit.syntax.files[name.file].clone();
            edits.push(Edit { file, start: name.start, end: name.end, replacement: format!("{element} *") });
        }
    }
    edits
}
