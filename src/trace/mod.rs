//! `clasp run-check`'s data: what the interceptor (`src/native/intercept.c`, preloaded into the
//! user's program) records of a run, and how runs compare. Takes nothing from the pipeline: a run's
//! trace is read from the folder the interceptor wrote (`record`), the migrated sources it
//! substitutes are laid out by content hash (`substitute`), two original runs and a migrated one are
//! compared launch by launch and buffer by buffer (`compare`), timed per kernel (`timing`), and
//! reported (`report`). Running the program and migrating its kernels is `commands::run_check`'s.

pub mod compare;
pub mod interceptor;
pub mod record;
pub mod report;
pub mod substitute;
pub mod timing;
