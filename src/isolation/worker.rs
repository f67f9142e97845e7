//! The worker's side of isolation: what it tells its supervisor, and the
//! units the supervisor took out of the batch.
//!
//! The worker appends one line per event to the log file the supervisor
//! names in `CLASP_WORKER_LOG` (one `write` per line, so lines from several
//! threads never interleave):
//!
//! - `T SECONDS`: the time limit on each phase, once the project is resolved;
//! - `U THREAD LABEL` / `X THREAD`: a thread starts and ends its work on a unit;
//! - `B THREAD PHASE` / `E THREAD`: a thread starts and ends a phase that can
//!   hang (parsing, a compile, the equivalence pipeline);
//! - `R`: the staged files are being renamed over the files (see `write::batch`);
//! - `F LABEL<TAB>WHY`: clang crashed on a unit and the crash was caught;
//!   the worker then exits at once (`EXIT_CAUGHT_CRASH`), since what clang
//!   leaves behind after a crash is not guaranteed.
//!
//! Without a supervisor (`clasp::run` in tests, `CLASP_NO_ISOLATION`) every
//! function here is a no-op but `for_unit`'s and `phase`'s closures still run.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The log the supervisor reads (its path).
pub const LOG_VARIABLE: &str = "CLASP_WORKER_LOG";
/// A JSON object {label: why} of the units the supervisor took out.
pub const EXCLUDED_VARIABLE: &str = "CLASP_WORKER_EXCLUDED";
/// Set by the supervisor to run the worker with one thread, so that the next
/// fault names one unit.
pub const JOBS_VARIABLE: &str = "CLASP_WORKER_JOBS";
/// The supervisor's pid: the worker writes nothing unless it is still its parent.
pub const SUPERVISOR_VARIABLE: &str = "CLASP_SUPERVISOR_PID";
/// The file where the worker lists each temporary file before it creates it.
pub const JOURNAL_VARIABLE: &str = "CLASP_WORKER_JOURNAL";
/// The worker's exit code after a caught crash (sysexits' EX_SOFTWARE).
pub const EXIT_CAUGHT_CRASH: i32 = 70;

/// What a thread is doing when a phase is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// libclang parsing a unit (or a probe).
    Parsing,
    /// clang compiling a unit to IR.
    Compiling,
    /// The equivalence pipeline optimising a unit's kernels.
    Optimising,
}

impl Phase {
    pub fn word(self) -> &'static str {
        match self {
            Phase::Parsing => "parsing",
            Phase::Compiling => "compiling",
            Phase::Optimising => "optimising",
        }
    }

    pub fn from_word(word: &str) -> Option<Phase> {
        [Phase::Parsing, Phase::Compiling, Phase::Optimising].into_iter().find(|p| p.word() == word)
    }
}

fn log() -> Option<&'static Mutex<File>> {
    static LOG: OnceLock<Option<Mutex<File>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let path = std::env::var_os(LOG_VARIABLE)?;
        std::fs::OpenOptions::new().append(true).open(path).ok().map(Mutex::new)
    })
    .as_ref()
}

/// Whether this process works for a supervisor.
pub fn supervised() -> bool {
    log().is_some()
}

fn write_line(line: &str) {
    if let Some(log) = log() {
        // One write per line: with O_APPEND, lines of several threads stay whole.
        let line = format!("{}\n", line.replace('\n', " "));
        let mut file = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = file.write_all(line.as_bytes());
    }
}

thread_local! {
    static THREAD: Cell<u64> = const { Cell::new(0) };
    static UNIT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A number for this thread, the same for its whole life.
fn thread_number() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    THREAD.with(|t| {
        if t.get() == 0 {
            t.set(NEXT.fetch_add(1, Ordering::Relaxed));
        }
        t.get()
    })
}

/// Says the time limit of each phase, in seconds.
pub fn announce_timeout(seconds: u64) {
    write_line(&format!("T {seconds}"));
}

/// Runs `work` on behalf of the unit `label`: a fault during it is that unit's.
/// On a panic the unit stays marked, so the supervisor blames it.
pub fn for_unit<R>(label: &str, work: impl FnOnce() -> R) -> R {
    if !supervised() {
        return work();
    }
    let thread = thread_number();
    let outer = UNIT.with(|u| u.replace(Some(label.to_string())));
    write_line(&format!("U {thread} {label}"));
    let result = work();
    match &outer {
        Some(outer) => write_line(&format!("U {thread} {outer}")),
        None => write_line(&format!("X {thread}")),
    }
    UNIT.with(|u| *u.borrow_mut() = outer);
    result
}

/// Runs `work`, a phase that the time limit applies to.
pub fn phase<R>(phase: Phase, work: impl FnOnce() -> R) -> R {
    if !supervised() {
        return work();
    }
    let thread = thread_number();
    write_line(&format!("B {thread} {}", phase.word()));
    let result = work();
    write_line(&format!("E {thread}"));
    result
}

/// clang crashed and the crash was caught: under a supervisor, says so and
/// ends the process (the supervisor runs the batch again without the unit);
/// alone, returns and the crash is an error of the unit as before.
pub fn crashed(what: &str) {
    if !supervised() {
        return;
    }
    let label = UNIT.with(|u| u.borrow().clone()).unwrap_or_default();
    write_line(&format!("F {label}\t{}", what.trim()));
    // At once: no destructor or exit handler runs while other threads still use
    // clang (an `exit` here once ended in "pure virtual method called"), and no
    // `abort`, which would print LLVM's crash banner a second time.
    super::exit::now(EXIT_CAUGHT_CRASH)
}

/// The error of a unit the supervisor took out of the batch (`PATH: error: WHY`), if it did.
pub fn exclusion_error(label: &str, path: &std::path::Path) -> Option<String> {
    excluded(label).map(|why| format!("{}: error: {why}", path.display()))
}

/// Why the supervisor took the unit `label` out of the batch, if it did.
fn excluded(label: &str) -> Option<&'static str> {
    static EXCLUDED: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    EXCLUDED
        .get_or_init(|| {
            let Some(path) = std::env::var_os(EXCLUDED_VARIABLE) else { return BTreeMap::new() };
            std::fs::read(path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
        })
        .get(label)
        .map(String::as_str)
}

/// The number of threads the supervisor asks for, if it does.
pub fn jobs_override() -> Option<usize> {
    std::env::var(JOBS_VARIABLE).ok()?.parse().ok()
}

/// Whether the supervisor that started this worker is still its parent
/// (always, without a supervisor): a worker whose supervisor is gone writes nothing.
pub fn supervisor_alive() -> bool {
    match std::env::var(SUPERVISOR_VARIABLE).ok().filter(|_| supervised()) {
        Some(pid) => pid.parse::<u32>().ok() == Some(std::os::unix::process::parent_id()),
        None => true,
    }
}

/// Lists the temporary file `path` in the journal, before it is created (one
/// `write`, NUL-terminated), so that the supervisor, or the next run, removes
/// it if this worker is killed outright.
pub fn journal(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    static JOURNAL: OnceLock<Option<Mutex<File>>> = OnceLock::new();
    let journal = JOURNAL.get_or_init(|| {
        let path = std::env::var_os(JOURNAL_VARIABLE).filter(|_| supervised())?;
        std::fs::OpenOptions::new().create(true).append(true).open(path).ok().map(Mutex::new)
    });
    if let Some(journal) = journal {
        let mut entry = path.as_os_str().as_bytes().to_vec();
        entry.push(0);
        let mut file = journal.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = file.write_all(&entry);
    }
}

/// Says the renames have begun: from now on the batch is written whole.
pub fn renaming() {
    write_line("R");
}
