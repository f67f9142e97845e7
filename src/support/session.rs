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
                let stores = stores().lock().map(|stores| stores.clone()).unwrap_or_default();
                for store in stores {
                    store.clear();
                }
            }
        }
    }
}

/// Every store used so far: `Session`'s drop empties them all, so this leaf
/// never names the stages that own them (each registers itself when first used).
fn stores() -> &'static Mutex<Vec<&'static dyn Clear>> {
    static STORES: OnceLock<Mutex<Vec<&'static dyn Clear>>> = OnceLock::new();
    STORES.get_or_init(Mutex::default)
}

/// A store `Session` empties.
trait Clear: Sync {
    fn clear(&self);
}

/// A store of what the units of a run share by content: created empty when
/// first used, emptied when the last run ends.
pub struct Shared<T> {
    cell: OnceLock<Mutex<T>>,
}

impl<T: Default + Send> Clear for Shared<T> {
    fn clear(&self) {
        Shared::clear(self);
    }
}

impl<T: Default> Shared<T> {
    pub const fn new() -> Shared<T> {
        Shared { cell: OnceLock::new() }
    }

    /// Empties the store.
    pub fn clear(&self) {
        if let Some(mut store) = self.cell.get().and_then(|cell| cell.lock().ok()) {
            *store = T::default();
        }
    }
}

impl<T: Default + Send> Shared<T> {
    /// The store, locked; `None` when a thread panicked holding it (the
    /// callers then share nothing, as if it were empty). The first use
    /// registers it with the session (after it is made, so an ending run
    /// never waits on a store being made).
    pub fn lock(&'static self) -> Option<MutexGuard<'static, T>> {
        let mut made = false;
        let cell = self.cell.get_or_init(|| {
            made = true;
            Mutex::default()
        });
        if made {
            if let Ok(mut stores) = stores().lock() {
                stores.push(self);
            }
        }
        cell.lock().ok()
    }

    /// The store, locked, while the calling run is the only one in progress:
    /// what one run lets go of early (once its batch is loaded) stays for the
    /// others, so no run loses its sharing to another's. `None` otherwise.
    /// Taken under the session's lock, so no run begins meanwhile.
    pub fn lock_if_alone(&'static self) -> Option<MutexGuard<'static, T>> {
        let running = running().lock().ok()?;
        (*running <= 1).then(|| self.lock()).flatten()
    }
}

impl<K, V, S> Shared<std::collections::HashMap<K, V, S>>
where
    K: std::hash::Hash + Eq + Send,
    V: Clone + Send,
    S: std::hash::BuildHasher + Default + Send,
{
    /// The value kept for `key`, else what `read` gives, kept under `owned()`
    /// for the rest of the run; `None` when `read` gives none (nothing kept).
    pub fn get_or_read<Q>(&'static self, key: &Q, owned: impl FnOnce() -> K, read: impl FnOnce() -> Option<V>) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        if let Some(known) = self.lock().and_then(|known| known.get(key).cloned()) {
            return Some(known);
        }
        let value = read()?;
        if let Some(mut kept) = self.lock() {
            kept.insert(owned(), value.clone());
        }
        Some(value)
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Shared<T> {
        Shared::new()
    }
}
