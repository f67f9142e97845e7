//! Rule `generic-local`: a local pointer variable loses its named qualifier.
//!
//! What it does: `__global float *q = p + 1;` inside a helper whose `p` went
//! generic becomes `float *q = p + 1;`. Kernel locals change only when a
//! generic value reaches them (a helper's result). Why: a generic value
//! cannot be assigned to a named pointer in 2.0.

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::Code;
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(
        unit,
        decision,
        Code::GenericLocal,
        format!("local `{}` of `{}`", decision.decl.name, decision.function),
        qualifier_only,
    )
}
