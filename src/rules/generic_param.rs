//! Rule `generic-param`: a helper's pointer parameter loses its named
//! qualifier.
//!
//! What it does: `float sum_g(__global const float *p)` becomes
//! `float sum_g(const float *p)`, in the definition and every prototype.
//! Why: in OpenCL 2.0 one generic helper serves global, local and private
//! memory. Safety: applied only when nothing the parameter flows into needs
//! a named space (see `infer`); verified by recompiling.

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::Code;
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(
        unit,
        decision,
        Code::GenericParam,
        format!("`{}` of `{}`", decision.decl.name, decision.function),
        qualifier_only,
    )
}
