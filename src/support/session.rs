//! A run's session: what the batch's units share (precompiled preambles,
//! header functions' walks, function-level proofs, each in a `Shared`
//! store) lives while a run does and is dropped when the last run in the
//! process ends. Tests run several batches in one process at once: stores
//! shared by content stay valid across them (their keys name the files'
//! stamps, or the texts themselves), and are cleared only when none is running.

use std::sync::{Mutex, MutexGuard, OnceLock};

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
                crate::front::lower::preamble::clear();
                crate::front::parse::clear_shared_walks();
                crate::front::parse::clear_shared_preambles();
                crate::verify::clear_session();
            }
        }
    }
}

/// A store of what the units of a run share by content: created empty when
/// first used, emptied when the last run ends (each store's owner clears
/// it from `Session`'s drop).
pub struct Shared<T> {
    cell: OnceLock<Mutex<T>>,
}

impl<T: Default> Shared<T> {
    pub const fn new() -> Shared<T> {
        Shared { cell: OnceLock::new() }
    }

    /// The store, locked; `None` when a thread panicked holding it (the
    /// callers then share nothing, as if it were empty).
    pub fn lock(&self) -> Option<MutexGuard<'_, T>> {
        self.cell.get_or_init(Mutex::default).lock().ok()
    }

    /// Empties the store.
    pub fn clear(&self) {
        if let Some(mut store) = self.lock() {
            *store = T::default();
        }
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Shared<T> {
        Shared::new()
    }
}
