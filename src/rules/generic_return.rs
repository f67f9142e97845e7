//! Rule `generic-return`: a helper returning a named pointer returns a
//! generic one.
//!
//! What it does: `__global float *row_ptr(...)` becomes `float *row_ptr(...)`
//! when every caller's destination can be generic too (kernel-scope local
//! pointers can; kernel parameters and pinned declarations cannot).

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::Code;
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(unit, decision, Code::GenericReturn, format!("result of `{}`", decision.function), qualifier_only)
}
