//! Rule `generic-local`: a local pointer variable loses its named
//! qualifier. The declarations it takes (`applies`), its edits (`fix`) and
//! its documentation (`DOC`, what `clasp rule generic-local` prints);
//! whether a local may become generic is the inference's (`infer`).

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::{verified, Code, Doc};
use crate::facts::syntax::{DeclKind, PointerDecl};
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

/// A local pointer variable.
pub fn applies(decl: &PointerDecl) -> bool {
    decl.kind == DeclKind::Local
}

/// The fix: the qualifier goes.
pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(
        unit,
        decision,
        Code::GenericLocal,
        format!("local `{}` of `{}`", decision.decl.name, decision.function),
        qualifier_only,
    )
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A local pointer variable loses its named address space and becomes generic.",
    what: "Removes the named qualifier of a helper's local pointer variable, spelled and edited as a parameter's \
(a keyword, a qualifier macro's use, or inside a macro's definition or argument: `clasp rule generic-param`), unless something \
its value flows into must stay named. In a kernel, a local pointer changes only when a generic value reaches it, such as a \
helper's generic result (`generic-return`).",
    why: "In 2.0 a generic value cannot be assigned to a pointer into a named space without an explicit cast, so a local \
that receives a parameter which became generic, or a helper's generic result, must be generic too.",
    example: r#"// before
float ends(__global const float *p, int n)
{
    __global const float *q = p + 1;
    return q[0] + q[n - 2];
}

// after
float ends(const float *p, int n)
{
    const float *q = p + 1;
    return q[0] + q[n - 2];
}"#,
    refuses: "With the same reason codes as `generic-param`, for the local or for a declaration its value flows into. A \
kernel's local pointer that no generic value reaches stays as it is, without a refusal.",
    safety: verified!("The local changes in the same change set as the declarations its value comes from."),
};
