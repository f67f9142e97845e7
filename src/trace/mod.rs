//! `clasp run-check`'s data: what the interceptor (`src/native/intercept/`, preloaded into the
//! user's program) records of a run, and how runs compare. A run's trace is read from the folder
//! the interceptor wrote (`record`); the migrated sources it substitutes are laid out by content
//! hash (`substitute`, which reads host files with `host::scan` for embedded kernels); the original
//! runs and the migrated one are paired stream by stream (`streams`: a thread of a process), what
//! varies between the original runs is found element by element (`varying`), the rest compared
//! launch by launch and buffer by buffer (`compare`), timed per kernel (`timing`), and reported
//! (`report`). Running the program and migrating its kernels is `commands::run_check`'s.

pub mod compare;
pub mod interceptor;
pub mod record;
pub mod report;
pub mod steps;
pub mod streams;
pub mod substitute;
pub mod timing;
pub mod varying;
