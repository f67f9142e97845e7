//! `output`: a finished migration shown and written.
//!
//! Takes the batch's `migrate::report::Migration` (and, for `clasp analyze`,
//! the units and their facts); gives the unified diff and explanations
//! (`render`), the summary line (`summary`), the SARIF log (`sarif`), the
//! analysis report (`analysis`) and atomic writes (`write`). Nothing here
//! decides what changes.

pub(crate) mod analysis;
pub(crate) mod render;
pub(crate) mod sarif;
pub(crate) mod summary;
pub mod write;
