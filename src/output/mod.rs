//! `output`: a finished migration shown and written.
//!
//! Takes the batch's `migrate::report::Migration` (and, for `clasp analyze`,
//! the units and their facts); gives the unified diff and explanations
//! (`render`), the summary line (`summary`), the SARIF log (`sarif`), the
//! analysis report (`analysis`), atomic writes (`write`), and the lint
//! `residual-generic` read back from a JSON report (`residual`). Nothing here
//! decides what changes.

pub(crate) mod analysis;
pub(crate) mod render;
pub mod residual;
pub(crate) mod sarif;
pub(crate) mod summary;
pub mod write;
