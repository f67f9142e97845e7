//! `settings`: what a run is asked to do, as plain values.
//!
//! Takes the support utilities and the code registry; gives the compile
//! options, targets and `MigrateOptions` (`options`), host build options
//! made canonical (`build_options`) and the edit root (`root`), with the
//! one rule for showing a path.

pub(crate) mod build_options;
pub mod options;
pub(crate) mod paths;
pub(crate) mod root;
