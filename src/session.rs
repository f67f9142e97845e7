//! A run's session: what the batch's units share (precompiled preambles,
//! header functions' walks, function-level proofs) lives while a run does and is dropped when the
//! last run in the process ends. Tests run several batches in one process at
//! once: stores shared by content stay valid across them (their keys name
//! the files' stamps), and are cleared only when none is running.

use std::sync::{Mutex, OnceLock};

fn running() -> &'static Mutex<usize> {
    static RUNNING: OnceLock<Mutex<usize>> = OnceLock::new();
    RUNNING.get_or_init(|| Mutex::new(0))
}

/// A run in progress; dropping the last one clears the shared stores.
pub struct Session(());

impl Session {
    pub fn begin() -> Session {
        if let Ok(mut running) = running().lock() {
            *running += 1;
        }
        Session(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Cleared under the lock, so no run begins while the stores are emptied.
        if let Ok(mut running) = running().lock() {
            *running = running.saturating_sub(1);
            if *running == 0 {
                crate::lower::preamble::clear();
                crate::parse::clear_shared_walks();
                crate::verify::clear_function_proofs();
            }
        }
    }
}
