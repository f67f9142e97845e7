//! `support`: the leaf utilities every stage may use; none of them uses
//! another stage.
//!
//! Takes nothing from the rest of the crate; gives ids and interning
//! (`ids`), shared wording (`text`), the exit codes (`exit`), wall-time
//! accounting (`timings`), the progress bar (`progress`), colour (`style`),
//! a run's shared stores (`session`), texts laid over files (`overlay`: standard
//! input's), the git questions (`git`), the one glob matcher of
//! file selection (`glob`) and the store of results kept across runs and
//! shared by runners (`store`: a directory, a Bazel-protocol cache server).

pub mod exit;
pub(crate) mod git;
pub mod glob;
pub(crate) mod ids;
pub(crate) mod overlay;
pub(crate) mod progress;
pub(crate) mod reads;
pub(crate) mod session;
pub(crate) mod store;
pub(crate) mod style;
pub(crate) mod text;
pub(crate) mod timings;
