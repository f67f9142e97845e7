//! A `--write` run killed at random moments: SIGKILL, SIGTERM or SIGINT, to
//! clasp's own process alone (as a tool's timeout does) or to its process
//! group (as Ctrl-C does). Each time, the batch is written whole or not at
//! all, nothing of clasp is left behind, and no clasp process lives on.
//!
//! The moments are drawn from a seeded xorshift (the seed is printed; set
//! `CLASP_KILL_SEED` to replay it) over the span of one unkilled run.
//! `processes_of`, `wait_until_gone` and friends serve `interrupts` too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every regular file under `dir`, by its path relative to `dir`.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// A copy of `fixtures/migrate` in `dir`: many files, shared headers, merges.
pub fn migrate_fixtures(dir: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate");
    for entry in walkdir::WalkDir::new(&source) {
        let entry = entry.unwrap();
        let to = dir.join(entry.path().strip_prefix(&source).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// Starts `clasp ARGS` in `dir` in its own process group, with `tmp` as its TMPDIR.
pub fn start(dir: &Path, tmp: &Path, args: &[&str]) -> Child {
    start_with(dir, tmp, args, &[])
}

/// `start`, with more variables in its environment.
pub fn start_with(dir: &Path, tmp: &Path, args: &[&str], vars: &[(&str, &str)]) -> Child {
    use std::os::unix::process::CommandExt;
    Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(args)
        .envs(vars.iter().copied())
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("CLASP_NO_ISOLATION")
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run clasp")
}

/// Sends `signal` (`KILL`, `TERM`, ...) to `pid`, or to its process group.
pub fn send(pid: u32, signal: &str, group: bool) {
    let target = if group { format!("-{pid}") } else { pid.to_string() };
    // It may have ended already (kill then fails): that is a moment like another.
    let _ = Command::new("kill").args(["-s", signal, "--", &target]).stderr(Stdio::null()).status().unwrap();
}

/// The processes whose environment names `tmp` (clasp's TMPDIR, and its workers' below it).
pub fn processes_of(tmp: &Path) -> Vec<u32> {
    let needle = tmp.as_os_str().as_encoded_bytes();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .is_ok_and(|s| s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'));
        if !zombie && environ.windows(needle.len()).any(|w| w == needle) {
            pids.push(pid);
        }
    }
    pids
}

/// Waits (at most `limit`) until no process of `tmp` is left; fails if one is.
pub fn wait_until_gone(tmp: &Path, limit: Duration) {
    let started = Instant::now();
    while !processes_of(tmp).is_empty() {
        assert!(started.elapsed() < limit, "clasp processes still running: {:?}", processes_of(tmp));
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` (failing after a minute); its exit code (or -signal) and stderr.
pub fn finish(mut child: Child) -> (i32, String) {
    use std::os::unix::process::ExitStatusExt;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "clasp still running after a minute");
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code().unwrap_or_else(|| -status.signal().unwrap_or(0)), stderr)
}

/// The names in `tmp` of supervisors' scratch folders.
pub fn scratch_folders(tmp: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(tmp).unwrap().flatten();
    entries.map(|e| e.path()).filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("clasp-supervisor-")).collect()
}

/// Temporary files clasp stages beside the files it writes.
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let entries = walkdir::WalkDir::new(dir).into_iter().map(|e| e.unwrap());
    entries.filter(|e| e.file_name().to_string_lossy().starts_with(".clasp-")).map(|e| e.into_path()).collect()
}

/// Whether a worker's log in a leftover scratch folder says the renames had begun.
pub fn renames_began(tmp: &Path) -> bool {
    scratch_folders(tmp).iter().flat_map(|folder| std::fs::read_dir(folder).unwrap().flatten()).any(|e| {
        e.file_name().to_string_lossy().starts_with("worker-")
            && std::fs::read_to_string(e.path()).unwrap_or_default().lines().any(|l| l == "R")
    })
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const ARGS: &[&str] = &["migrate", "-q", "--no-cache", "--write", "."];

/// The files before and after an unkilled run, and how long it took.
struct Reference {
    original: BTreeMap<PathBuf, Vec<u8>>,
    migrated: BTreeMap<PathBuf, Vec<u8>>,
    span: Duration,
}

fn reference() -> Reference {
    let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    migrate_fixtures(work.path());
    let original = snapshot(work.path());
    let started = Instant::now();
    let (code, stderr) = finish(start(work.path(), tmp.path(), ARGS));
    let span = started.elapsed();
    assert_eq!(code, 2, "the fixtures include files with errors: {stderr}");
    let migrated = snapshot(work.path());
    assert_eq!(migrated.keys().collect::<Vec<_>>(), original.keys().collect::<Vec<_>>());
    let changed = migrated.iter().filter(|(path, bytes)| original[*path] != **bytes).count();
    assert!(changed > 20, "{changed} files changed: {stderr}");
    assert!(scratch_folders(tmp.path()).is_empty() && temporaries(work.path()).is_empty());
    Reference { original, migrated, span }
}

/// What a killed run left: nothing written, all written, or (SIGKILL to
/// every process during the renames, which nothing can defer) some of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Left {
    Nothing,
    Whole,
    Mixed,
}

/// One run sent `signal` after `at`; checks what it left and says what that is.
fn kill_once(reference: &Reference, signal: &str, group: bool, at: Duration, what: &str) -> Left {
    let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    migrate_fixtures(work.path());
    let child = start(work.path(), tmp.path(), ARGS);
    std::thread::sleep(at);
    send(child.id(), signal, group);
    let (code, stderr) = finish(child);
    wait_until_gone(tmp.path(), Duration::from_secs(30));
    let number = if signal == "TERM" { 15 } else { 2 };
    // Exit 2: it had ended; killed by the signal: it came before clasp set its handlers.
    if signal != "KILL" && code != 2 && code != -number {
        assert_eq!(code, 128 + number, "{what}: {stderr}");
        let last = stderr.lines().last().unwrap_or("");
        assert!(last.starts_with(&format!("clasp: interrupted (SIG{signal})")), "{what}: {stderr}");
    }
    let during_renames = signal == "KILL" && group && renames_began(tmp.path());
    if signal == "KILL" {
        // What a process killed outright left is removed by the next run.
        let (code, stderr) = finish(start(work.path(), tmp.path(), &["migrate", "--help"]));
        assert_eq!(code, 0, "{what}: {stderr}");
    }
    assert_eq!(scratch_folders(tmp.path()), Vec::<PathBuf>::new(), "{what}");
    assert_eq!(temporaries(work.path()), Vec::<PathBuf>::new(), "{what}");
    let now = snapshot(work.path());
    assert_eq!(now.keys().collect::<Vec<_>>(), reference.original.keys().collect::<Vec<_>>(), "{what}");
    let (mut old, mut new) = (0, 0);
    for (path, bytes) in &now {
        match (*bytes == reference.original[path], *bytes == reference.migrated[path]) {
            (true, true) => {}
            (true, false) => old += 1,
            (false, true) => new += 1,
            (false, false) => panic!("{what}: {} is neither the original nor the migrated file", path.display()),
        }
    }
    match (old, new) {
        (_, 0) => Left::Nothing,
        (0, _) => Left::Whole,
        _ => {
            assert!(during_renames, "{what}: {old} files old and {new} new, though the renames had not begun");
            Left::Mixed
        }
    }
}

#[test]
fn a_write_killed_at_any_moment_leaves_the_whole_batch_or_nothing_and_no_trace() {
    let seed = std::env::var("CLASP_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1);
    println!("kill test seed: CLASP_KILL_SEED={seed}");
    let mut rng = XorShift(seed);
    let reference = reference();
    let mut tally: BTreeMap<Left, usize> = BTreeMap::new();
    for round in 0..20 {
        let signal = ["KILL", "TERM", "INT"][(rng.next() % 3) as usize];
        let group = rng.next().is_multiple_of(2);
        let at = reference.span.mul_f64(rng.unit());
        let whom = if group { "group" } else { "process" };
        let what = format!("round {round}: SIG{signal} to the {whom} at {at:?} of {:?} (seed {seed})", reference.span);
        *tally.entry(kill_once(&reference, signal, group, at, &what)).or_default() += 1;
    }
    println!("20 kills: {tally:?}");
}
