//! The files the compiles of one piece of work read, gathered per thread:
//! `begin` before the work, `end` after it gives every file a compile on
//! this thread found meanwhile (in-process compiles report them,
//! `front::lower::in_process`). What a stored result holds must be all it
//! read: a check that read a file its key does not name is not kept. `all`
//! gives every file any compile of the process found, for a run's result.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

thread_local! {
    static READ: RefCell<Option<BTreeSet<PathBuf>>> = const { RefCell::new(None) };
}

static ALL: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Starts gathering on this thread (what was gathered before is dropped).
pub fn begin() {
    READ.with(|read| *read.borrow_mut() = Some(BTreeSet::new()));
}

/// Adds the files a compile found (to this thread's, while gathering).
pub fn note(files: &[PathBuf]) {
    if let Ok(mut all) = ALL.lock() {
        all.extend(files.iter().cloned());
    }
    READ.with(|read| {
        if let Some(read) = read.borrow_mut().as_mut() {
            read.extend(files.iter().cloned());
        }
    });
}

/// Stops gathering: the files found since `begin`.
pub fn end() -> BTreeSet<PathBuf> {
    READ.with(|read| read.borrow_mut().take()).unwrap_or_default()
}

/// Every file a compile of this process found so far.
pub fn all() -> BTreeSet<PathBuf> {
    ALL.lock().map(|all| all.clone()).unwrap_or_default()
}
