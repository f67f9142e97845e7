//! A signal that comes before Rust's `main`: while the dynamic loader's
//! libraries (libclang, LLVM) run their static initializers, clasp already
//! has its handlers (installed from `.preinit_array`), so the run ends with
//! 128 + the signal's number and the line, never killed by the signal.
//!
//! The moment is seen from outside, in `/proc/PID/status`: SIGTERM caught
//! (`SigCgt`) while SIGPIPE is not yet ignored (`SigIgn`), which Rust's
//! runtime does first thing, before `main`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SIGTERM_BIT: u64 = 1 << (libc::SIGTERM - 1);
const SIGPIPE_BIT: u64 = 1 << (libc::SIGPIPE - 1);

/// A signal mask of `/proc/PID/status` (`SigCgt:\t0000000000004000`).
fn mask(status: &str, field: &str) -> u64 {
    let line = status.lines().find_map(|l| l.strip_prefix(field)).unwrap_or("0");
    u64::from_str_radix(line.trim_start_matches(':').trim(), 16).unwrap()
}

/// Starts clasp and sends it SIGTERM as soon as it catches SIGTERM:
/// whether that was before Rust's runtime started, the exit code and stderr.
fn terminate_at_first_handler(dir: &std::path::Path) -> (bool, i32, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["migrate", "--write", "--no-cache", "."])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let before_runtime = loop {
        let status = std::fs::read_to_string(&status_file).unwrap();
        assert!(!status.contains("State:\tZ"), "clasp ended before it caught SIGTERM");
        if mask(&status, "SigCgt") & SIGTERM_BIT != 0 {
            break mask(&status, "SigIgn") & SIGPIPE_BIT == 0;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "clasp never caught SIGTERM");
    };
    // At once (no `kill` process to start): the child is not yet waited for, so its pid is still its own.
    clasp::isolation::signals::send(child.id(), libc::SIGTERM);
    let output = child.wait_with_output().unwrap();
    (before_runtime, output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn sigterm_before_main_ends_with_143_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), crate::support::HELPER_UNIT).unwrap();
    let mut early = 0;
    for _ in 0..8 {
        let (before_runtime, code, stderr) = terminate_at_first_handler(dir.path());
        assert_eq!(code, 143, "killed by the signal instead of ending: {stderr}");
        assert_eq!(stderr.lines().last(), Some("clasp: interrupted (SIGTERM); nothing was written"), "{stderr}");
        assert_eq!(std::fs::read_to_string(dir.path().join("k.cl")).unwrap(), crate::support::HELPER_UNIT);
        early += usize::from(before_runtime);
    }
    // The handlers come before the libraries' initializers (tens of
    // milliseconds), so the first sight of them is, nearly always, before Rust's runtime.
    assert!(early > 0, "the handlers were never installed before Rust's runtime started");
}
