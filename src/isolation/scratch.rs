//! The supervisor's scratch folder, and what a killed run leaves behind.
//!
//! The folder is `clasp-supervisor-PID-START-XXXXXX` in the temp directory:
//! the supervisor's pid and start time (clock ticks after boot, field 22 of
//! `/proc/PID/stat`) are in its name from the moment it exists, so a
//! supervisor killed outright (SIGKILL, which nothing can catch) is known as
//! its owner. The folder holds each worker's log, a `workers` file (each
//! worker's pid and start time, added once it started) and each worker's
//! journal (`journal-N`): the temporary files it staged beside the files to
//! write, NUL-terminated, each added before it is created.
//!
//! Every supervisor first removes the folders whose processes are all gone
//! (a pid alone could have been reused: its start time must match too),
//! with the temporary files their journals list that are still there; and,
//! once a worker ended, the temporaries of that worker (the worker removes
//! its own unless it was killed outright).

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const PREFIX: &str = "clasp-supervisor-";
/// The file listing the workers started, one `PID START` a line.
const WORKERS: &str = "workers";
/// The prefix of every temporary file clasp stages beside a file to write.
pub const TEMPORARY_PREFIX: &str = ".clasp-";

/// A process as it can be told apart from a later one with its pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub start: u64,
}

impl Process {
    /// The process `pid` if it is running (not a zombie).
    pub fn running(pid: u32) -> Option<Process> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name, in parentheses, may hold spaces: the fields follow its last ')'.
        let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
        // After the name: state (3rd field), ..., starttime (22nd).
        if matches!(fields.first(), Some(&("Z" | "X"))) {
            return None;
        }
        Some(Process { pid, start: fields.get(19)?.parse().ok()? })
    }

    fn is_alive(self) -> bool {
        Process::running(self.pid) == Some(self)
    }

    fn parse(text: &str) -> Option<Process> {
        let (pid, start) = text.split_once('-').or_else(|| text.split_once(' '))?;
        Some(Process { pid: pid.parse().ok()?, start: start.trim().parse().ok()? })
    }
}

/// Removes what dead supervisors left, then makes this one's folder.
pub fn create() -> std::io::Result<tempfile::TempDir> {
    let temp = std::env::temp_dir();
    remove_stale(&temp);
    let me = Process::running(std::process::id())
        .ok_or_else(|| std::io::Error::other("cannot read this process's start time in /proc"))?;
    tempfile::Builder::new().prefix(&format!("{PREFIX}{}-{}-", me.pid, me.start)).tempdir_in(temp)
}

/// Notes a worker just started, so that its folder outlives no live worker.
pub fn record_worker(scratch: &Path, pid: u32) -> std::io::Result<()> {
    let Some(worker) = Process::running(pid) else { return Ok(()) };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(scratch.join(WORKERS))?;
    file.write_all(format!("{} {}\n", worker.pid, worker.start).as_bytes())
}

/// Removes the temporary files a journal lists that are still there.
pub fn remove_journalled(journal: &Path) {
    let Ok(bytes) = std::fs::read(journal) else { return };
    for entry in bytes.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(entry));
        let is_temporary = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with(TEMPORARY_PREFIX));
        if is_temporary && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// The folders in `temp` of this user's supervisors that are gone, and
/// whose workers are gone too: removed, with their journalled temporaries.
fn remove_stale(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else { return };
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(owner) = name.strip_prefix(PREFIX).and_then(|rest| rest.rsplit_once('-')).and_then(|(o, _)| Process::parse(o))
        else {
            continue;
        };
        let path = entry.path();
        let mine = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && Some(m.uid()) == me);
        if !mine || owner.is_alive() || workers(&path).into_iter().any(Process::is_alive) {
            continue;
        }
        for journal in journals(&path) {
            remove_journalled(&journal);
        }
        let _ = std::fs::remove_dir_all(&path);
    }
}

fn workers(scratch: &Path) -> Vec<Process> {
    let text = std::fs::read_to_string(scratch.join(WORKERS)).unwrap_or_default();
    text.lines().filter_map(Process::parse).collect()
}

fn journals(scratch: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(scratch) else { return Vec::new() };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("journal-")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_told_from_a_later_one_with_its_pid_by_its_start_time() {
        let me = Process::running(std::process::id()).expect("this process runs");
        assert!(me.is_alive());
        assert!(!Process { start: me.start + 1, ..me }.is_alive(), "a reused pid is another process");
        let name = format!("{}-{}", me.pid, me.start);
        assert_eq!(Process::parse(&name), Some(me));
        assert_eq!(Process::parse("12 34"), Some(Process { pid: 12, start: 34 }));
        assert_eq!(Process::parse("xyz"), None);
    }
}
