//! Signals (FFI boundary: `sigaction`, `kill`, `prctl`, `_exit`): how an
//! interrupted run ends without writing what it should not.
//!
//! SIGINT, SIGTERM and SIGHUP get a handler (unless they were ignored when
//! clasp started, as `nohup` or a background job leaves them):
//!
//! - in the supervisor it only records the signal; the supervisor's poll
//!   loop forwards it to the worker, waits for the worker and ends with
//!   128 + the signal's number;
//! - in a worker, or a run without a supervisor (`Role::Alone`, which also
//!   prints the one-line message), it ends the process at once with that
//!   status, unless the batch is being written (`defer`): then it only
//!   records the signal, and the writer looks at it (`pending`) between
//!   staged files (removing them all and ending) and after the renames.
//!
//! Deciding to end and starting to write exclude each other through one
//! atomic state, the number of batches being written (several in one
//! process, as tests run them) or `EXITING`: the handler ends the process
//! only by turning 0 into `EXITING`, and a writer counts itself in only if
//! it is not `EXITING`, so a handler that has decided to end the process
//! never races with a temporary file being created.
//!
//! The handlers are first installed before anything else of clasp runs
//! (`install_at_start`, from the executable's `.preinit_array`): libclang
//! and LLVM are linked to the binary, and their static initializers run for
//! tens of milliseconds before Rust's `main`, where a signal would otherwise
//! kill clasp silently. Until `main` knows what this process is, it is
//! alone (no worker exists yet) or, by its environment, a worker; `main`
//! then installs them again for its role.
//!
//! A worker also dies with its supervisor: `die_with_parent` asks the
//! kernel for SIGTERM when the thread that started it ends (the supervisor
//! starts workers from its main thread), right after fork, and fails the
//! start if the supervisor is already gone.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU8, Ordering};

/// The signals that interrupt a run.
pub const INTERRUPTS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// What the process does with an interrupting signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Records it for the poll loop to forward.
    Supervisor,
    /// Ends at once, silently (the supervisor says why), unless writing.
    Worker,
    /// Ends at once with the message, unless writing.
    Alone,
}

/// No batch is being written.
const WORKING: u32 = 0;
/// A handler is ending the process.
const EXITING: u32 = u32::MAX;

static ROLE: AtomicU8 = AtomicU8::new(0);
/// `WORKING`, `EXITING`, or the number of batches being written.
static STATE: AtomicU32 = AtomicU32::new(WORKING);
/// The first interrupting signal received, 0 if none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

fn role_number(role: Role) -> u8 {
    match role {
        Role::Supervisor => 1,
        Role::Worker => 2,
        Role::Alone => 3,
    }
}

/// Installs the handler for every interrupting signal not ignored at start.
pub fn install(role: Role) {
    ROLE.store(role_number(role), Ordering::SeqCst);
    for signal in INTERRUPTS {
        // SAFETY: `sigaction` is given a zeroed struct with a valid handler
        // (an `extern "C" fn(c_int)` that only touches atomics and calls
        // async-signal-safe `write` and `_exit`) and an empty mask; the old
        // action is read into a local.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 || old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// What the executable's `.preinit_array` calls (glibc passes `argc`,
/// `argv` and `envp`): the handlers, for a worker when the environment says
/// this process is one, else for a process alone. It runs before libc and
/// Rust are initialised, so it only reads `envp` and calls `sigaction`.
pub extern "C" fn install_at_start(_argc: libc::c_int, _argv: *const *const libc::c_char, envp: *const *const libc::c_char) {
    install(if has_variable(envp, super::worker::LOG_VARIABLE) { Role::Worker } else { Role::Alone });
}

/// Whether the environment block `envp` (null-terminated, of `NAME=value` C strings) sets `name`.
fn has_variable(envp: *const *const libc::c_char, name: &str) -> bool {
    if envp.is_null() {
        return false;
    }
    let mut index = 0;
    loop {
        // SAFETY: `envp` is the process's environment as the loader passes
        // it: an array of C strings ended by a null pointer, alive for the
        // whole process; it is read up to that null pointer only.
        let entry = unsafe { *envp.add(index) };
        if entry.is_null() {
            return false;
        }
        // SAFETY: `entry` is one of those non-null, NUL-terminated strings.
        let entry = unsafe { std::ffi::CStr::from_ptr(entry) }.to_bytes();
        if entry.strip_prefix(name.as_bytes()).is_some_and(|rest| rest.first() == Some(&b'=')) {
            return true;
        }
        index += 1;
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    let _ = RECEIVED.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    let role = ROLE.load(Ordering::SeqCst);
    if role == role_number(Role::Supervisor) {
        return;
    }
    if STATE.compare_exchange(WORKING, EXITING, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
        if role == role_number(Role::Alone) {
            let message = message(signal, false);
            // SAFETY: `write` to stderr of a static string is async-signal-safe.
            unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
        }
        // SAFETY: `_exit` is async-signal-safe and never returns.
        unsafe { libc::_exit(128 + signal) }
    }
}

/// The interrupting signal this process received, if any.
pub fn received() -> Option<i32> {
    Some(RECEIVED.load(Ordering::SeqCst)).filter(|s| *s != 0)
}

/// The signal's name, as the message prints it.
pub fn name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The one line an interrupted run ends with (static: the handler prints it).
pub fn message(signal: i32, written: bool) -> &'static str {
    match (signal, written) {
        (libc::SIGINT, false) => "clasp: interrupted (SIGINT); nothing was written\n",
        (libc::SIGTERM, false) => "clasp: interrupted (SIGTERM); nothing was written\n",
        (libc::SIGHUP, false) => "clasp: interrupted (SIGHUP); nothing was written\n",
        (libc::SIGINT, true) => "clasp: interrupted (SIGINT) once the changes were written, all of them\n",
        (libc::SIGTERM, true) => "clasp: interrupted (SIGTERM) once the changes were written, all of them\n",
        (libc::SIGHUP, true) => "clasp: interrupted (SIGHUP) once the changes were written, all of them\n",
        (_, false) => "clasp: interrupted; nothing was written\n",
        (_, true) => "clasp: interrupted once the changes were written, all of them\n",
    }
}

/// While alive, an interrupting signal is recorded instead of ending the process.
pub struct Deferral(());

/// Defers interrupting signals; `None` when the process is already ending on one.
pub fn defer() -> Option<Deferral> {
    let counted = STATE.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < EXITING - 1).then_some(n + 1));
    counted.ok().map(|_| Deferral(()))
}

impl Deferral {
    /// The signal received so far, to act on.
    pub fn pending(&self) -> Option<i32> {
        received()
    }
}

impl Drop for Deferral {
    fn drop(&mut self) {
        STATE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Ends the process as interrupted by `signal`: the message (alone; a
/// worker's supervisor says it), then 128 + its number, at once (see `exit`).
pub fn end_interrupted(signal: i32, written: bool) -> ! {
    if ROLE.load(Ordering::SeqCst) == role_number(Role::Alone) {
        let message = message(signal, written);
        // SAFETY: a plain `write` of a static string to stderr.
        unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
    }
    super::exit::now(128 + signal)
}

/// Sends `signal` to the process `pid`.
pub fn send(pid: u32, signal: i32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    // SAFETY: `kill` takes two integers; a process gone is an error, ignored.
    unsafe { libc::kill(pid, signal) };
}

/// Has the child started by `command` get SIGTERM when this thread ends,
/// and not start at all if `parent` (this process) is gone by then.
pub fn die_with_parent(command: &mut Command, parent: u32) {
    // SAFETY: runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: `prctl` and `getppid` are
    // system calls, and the error is built from a number, without allocating.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the call above: then no signal comes.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_block_is_searched_by_whole_name() {
        let entries: Vec<std::ffi::CString> = ["CLASP_WORKER_LOGX=1", "PATH=/bin", "CLASP_WORKER_LOG=/tmp/log"]
            .iter()
            .map(|e| std::ffi::CString::new(*e).unwrap())
            .collect();
        let mut envp: Vec<*const libc::c_char> = entries.iter().map(|e| e.as_ptr()).collect();
        envp.push(std::ptr::null());
        assert!(has_variable(envp.as_ptr(), "CLASP_WORKER_LOG"));
        assert!(has_variable(envp.as_ptr(), "PATH"));
        assert!(!has_variable(envp.as_ptr(), "CLASP_WORKER"));
        // `CLASP_WORKER_LOGX` is another variable.
        let without: Vec<*const libc::c_char> = vec![envp[0], envp[1], std::ptr::null()];
        assert!(!has_variable(without.as_ptr(), "CLASP_WORKER_LOG"));
        assert!(!has_variable(std::ptr::null(), "PATH"));
    }

    #[test]
    fn batches_written_at_once_in_one_process_each_defer_signals() {
        let first = defer().expect("no handler is ending the process");
        let second = defer().expect("a second batch at the same time defers too");
        drop(first);
        assert!(STATE.load(Ordering::SeqCst) >= 1, "the second batch still defers");
        drop(second);
        assert!(defer().is_some());
    }
}
