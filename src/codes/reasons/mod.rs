//! The documentation of every reason code, one constant per code, grouped
//! by what is kept: a declaration (`declarations`), a duplicate group or a
//! program-scope table (`batch`), a change set verification withdraws
//! (`withdrawals`), a host's build call (`host`). The code table names each
//! constant in the reason's row; a rule's documentation is its module's
//! `DOC` instead.

pub mod batch;
pub mod declarations;
pub mod host;
pub mod withdrawals;

use super::Doc;
