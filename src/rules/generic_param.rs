//! Rule `generic-param`: a helper's pointer parameter loses its named
//! qualifier. The declarations it takes (`applies`), its edits (`fix`) and
//! its documentation (`DOC`, what `clasp rule generic-param` prints);
//! whether a parameter may become generic is the inference's (`infer`).

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::{verified, Code, Doc};
use crate::infer::DeclDecision;
use crate::syntax::{DeclKind, PointerDecl};
use crate::unit::Unit;

/// A parameter that is not an array (`array-param-to-pointer` takes those).
pub fn applies(decl: &PointerDecl) -> bool {
    matches!(decl.kind, DeclKind::Param(_)) && decl.array.is_none()
}

/// The fix: the qualifier goes, in the definition and every prototype.
pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(
        unit,
        decision,
        Code::GenericParam,
        format!("`{}` of `{}`", decision.decl.name, decision.function),
        qualifier_only,
    )
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A helper's pointer parameter loses its named address space and becomes generic.",
    what: "Removes the `__global`, `__local` or `__private` qualifier of a helper's pointer parameter (written \
`__global` or `global`, before or after `const`, or through a macro whose definition is exactly a qualifier), in its definition \
and every prototype. `const` and the pointee type stay. A `__constant` parameter that follows a table moved to `__global` loses \
its qualifier too and keeps its data read-only with `const`.",
    why: "In OpenCL C 2.0 a pointer to `__global`, `__local` or `__private` converts implicitly to a generic pointer, so \
one generic helper accepts what needed a named space in 1.x. Some changes are required: an unqualified pointer is private in 1.x \
but generic in 2.0, so a parameter it reaches (one spelled `__private`, or one receiving an argument cast to an unqualified \
pointer type) must become generic or 2.0 rejects the call.",
    example: r#"// before
float first(__global const float *p) { return p[0]; }

// after
float first(const float *p) { return p[0]; }"#,
    refuses: "Kernel parameters never change. A helper's parameter keeps its space when it, or a declaration its value \
flows into, must stay named: `builtin-pin`, `constant-space`, `flows-to-pinned`, `sizeof-pointer`, `pointer-to-integer`, \
`escapes-to-memory`, `undefined-callee`, `cast-to-named`, `volatile-pointee`, `macro`, `hidden-qualifier`, `skipped-if`, \
`skipped-caller`, `no-evidence`, `outside-root`, `header-conflict`, `configuration`, `target-without-generic`. On a required \
change a pin is an error for the file (`cannot repair <code>`), except `skipped-if` and `skipped-caller`, which it overrides \
with a note to check the configurations clasp did not build.",
    safety: verified!("A required change is all-or-nothing for its unit (`unrepairable-unit`)."),
};
