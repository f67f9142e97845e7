//! Rule `generic-return`: a helper returning a named pointer returns a
//! generic one. The declarations it takes (`applies`), its edits (`fix`)
//! and its documentation (`DOC`, what `clasp rule generic-return` prints);
//! whether a result may become generic is the inference's (`infer`).

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::{verified, Code, Doc};
use crate::facts::syntax::{DeclKind, PointerDecl};
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

/// A function's returned pointer type.
pub fn applies(decl: &PointerDecl) -> bool {
    decl.kind == DeclKind::Return
}

/// The fix: the qualifier goes, in the definition and every prototype.
pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(unit, decision, Code::GenericReturn, format!("result of `{}`", decision.function), qualifier_only)
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A helper's returned pointer type loses its named address space and becomes generic.",
    what: "Removes the named qualifier from a helper's return type, in its definition and every prototype, when every \
declaration receiving the result can be generic too: a helper's pointer, or a kernel's local pointer, which then becomes generic \
with it. The qualifier is spelled and edited as a parameter's (`clasp rule generic-param`).",
    why: "A helper whose pointer parameter became generic returns a pointer derived from it; the return type must be \
generic to carry it, and the caller's destination must be generic to receive it.",
    example: r#"// before
__global float *row_of(__global float *m, int w, int r) { return m + r * w; }

__kernel void clear_rows(__global float *m, int w)
{
    __global float *row = row_of(m, w, get_global_id(0));
    row[0] = 0.0f;
}

// after
float *row_of(float *m, int w, int r) { return m + r * w; }

__kernel void clear_rows(__global float *m, int w)
{
    float *row = row_of(m, w, get_global_id(0));
    row[0] = 0.0f;
}"#,
    refuses: "With the same reason codes as `generic-param`: the result stays named when a declaration receiving it must \
stay named (a kernel parameter, a pinned helper pointer) or the return type itself is pinned (`macro`, `hidden-qualifier`, ...).",
    safety: verified!("The return type, the parameters it comes from and the locals receiving it are one change set."),
};
