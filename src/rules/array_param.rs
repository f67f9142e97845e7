//! Rule `array-param-to-pointer`: an array parameter becomes a generic
//! pointer parameter. The declarations it takes (`applies`), its edits
//! (`fix`: brackets, several dimensions, an array typedef) and its
//! documentation (`DOC`, what `clasp rule array-param-to-pointer` prints);
//! whether a generic pointer reaches the parameter is the inference's.

use super::{generic_fix, qualifier_edit, Edit, Fix};
use crate::codes::{verified, Code, Doc};
use crate::facts::syntax::{ArrayForm, DeclKind, PointerDecl};
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

/// An array parameter (brackets, or an array typedef).
pub fn applies(decl: &PointerDecl) -> bool {
    matches!(decl.kind, DeclKind::Param(_)) && decl.array.is_some()
}

/// The fix: the array becomes a pointer, in the definition and every prototype.
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

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "An array parameter that receives a generic pointer becomes a pointer parameter.",
    what: "Rewrites an array parameter as a pointer, keeping `const` and the element type and dropping the size: `const \
uchar d[64]` becomes `const uchar *d`, `float m[4][4]` becomes `float (*m)[4]`, and a parameter of an array typedef becomes a \
pointer to its element (`const block_t b`, with `typedef uint block_t[16]`, becomes `const uint *b`). An explicit \
`__private` goes too. The definition and every prototype change (an unnamed `uchar [64]` becomes `uchar *`), in headers shared \
by several programs too.",
    why: "clang types an array parameter as a pointer to `__private`, even under 2.0, while an unqualified pointer \
argument is generic there; so 1.2 code passing such a pointer to an array parameter stops compiling as 2.0 (\"changes address \
space of pointer\"). A parameter's array size never meant anything to the compiler, so nothing is lost.",
    example: r#"// before: `p` is unqualified, so generic under 2.0
uint fold(const uint w[8]) { return w[0] ^ w[7]; }

__kernel void mix(__global uint *out)
{
    uint pad[8] = { 0 };
    uint *p = pad;
    out[0] = fold(p);
}

// after
uint fold(const uint *w) { return w[0] ^ w[7]; }"#,
    refuses: "It changes an array parameter only when a generic pointer reaches it, which is nearly always a repair; one \
that only ever receives private arrays stays as it is. Being required, a pin on the parameter (`macro`, `hidden-qualifier`, \
`builtin-pin`, ...) makes the file an error, marked `cannot repair <code>`, and leaves it unchanged; `skipped-if` and \
`skipped-caller` are overridden with a note.",
    safety: verified!(
        "A repair is also compared with the unit as it was read (1.2); when that build differs whatever clasp does (an \
unqualified pointer kept in memory is 4 bytes under 1.2 and 8 under 2.0), the repair is kept, marked unverified, with a warning \
`repairs kept unverified: ...`, since the unit cannot compile as the target without it; the unit's other changes are proven \
against the unit with its repairs applied. A unit whose repairs fail verification keeps nothing (`unrepairable-unit`)."
    ),
};
