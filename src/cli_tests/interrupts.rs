//! Interrupted runs, one case at a time: a worker never outlives its
//! supervisor, a signal ends the run with 128 + its number and a line that
//! says nothing was written, what a supervisor killed outright left is
//! removed by the next run, and a file that could not be written (with the
//! files sharing its changes) is not counted as migrated.
//!
//! A unit whose preprocessing does not end (as in `isolation`) keeps the
//! worker busy, so that the signal surely comes before any write.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::kill::{
    finish, migrate_fixtures, processes_of, renames_began, scratch_folders, send, snapshot, start, start_with, temporaries,
    wait_until_gone,
};

/// A unit whose preprocessing does not end: each macro doubles the last.
fn hanging() -> String {
    let mut text = String::from("#define A0 1+1\n");
    for i in 1..=40 {
        text.push_str(&format!("#define A{i} A{}+A{}\n", i - 1, i - 1));
    }
    text + "#if A40\n#endif\nkernel void k(global int *p) { p[0] = 1; }\n"
}

/// Two units clasp migrates and one that hangs.
fn hanging_batch(dir: &Path) {
    std::fs::write(dir.join("a.cl"), crate::support::HELPER_UNIT).unwrap();
    std::fs::write(dir.join("b.cl"), crate::support::HELPER_UNIT).unwrap();
    std::fs::write(dir.join("hang.cl"), hanging()).unwrap();
}

/// Waits until `count` processes run with `tmp` in their environment (the supervisor and its worker).
fn wait_for_processes(tmp: &Path, count: usize) {
    let started = Instant::now();
    while processes_of(tmp).len() < count {
        assert!(started.elapsed() < Duration::from_secs(30), "clasp did not start its worker");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_worker_dies_with_its_supervisor_killed_outright_and_writes_nothing() {
    let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    migrate_fixtures(work.path());
    let original = snapshot(work.path());
    let child = start(work.path(), tmp.path(), &["migrate", "-q", "--no-cache", "--write", "."]);
    wait_for_processes(tmp.path(), 2);
    // As a tool's timeout does: SIGKILL to the process it started, and to no other.
    send(child.id(), "KILL", false);
    let (code, _) = finish(child);
    assert_eq!(code, -9);
    wait_until_gone(tmp.path(), Duration::from_secs(5));
    // Longer than the whole batch takes: an orphaned worker would have written it by now.
    std::thread::sleep(Duration::from_secs(4));
    assert!(snapshot(work.path()) == original, "files were written after clasp was killed");
    assert_eq!(temporaries(work.path()), Vec::<std::path::PathBuf>::new());
}

#[test]
fn an_interrupted_run_ends_with_128_plus_the_signal_and_writes_nothing() {
    let cases = [
        ("INT", true, 130, "SIGINT"),
        ("INT", false, 130, "SIGINT"),
        ("TERM", false, 143, "SIGTERM"),
        ("HUP", false, 129, "SIGHUP"),
    ];
    for (signal, group, code, name) in cases {
        let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        hanging_batch(work.path());
        let original = snapshot(work.path());
        let child = start(work.path(), tmp.path(), &["migrate", "-q", "--no-cache", "--write", "."]);
        wait_for_processes(tmp.path(), 2);
        std::thread::sleep(Duration::from_millis(300));
        send(child.id(), signal, group);
        let (exit, stderr) = finish(child);
        assert_eq!(exit, code, "SIG{signal} (group: {group}): {stderr}");
        assert_eq!(stderr, format!("clasp: interrupted ({name}); nothing was written\n"));
        wait_until_gone(tmp.path(), Duration::from_secs(5));
        assert!(snapshot(work.path()) == original, "SIG{signal}: files were written");
        assert_eq!(scratch_folders(tmp.path()), Vec::<std::path::PathBuf>::new(), "SIG{signal}");
    }
}

/// Waits (at most a minute) until `ready` holds.
fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(60), "never saw {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

const WRITE: &[&str] = &["migrate", "-q", "--no-cache", "--write", "."];
/// Each file staged or renamed takes this long more: wide windows to interrupt.
const PAUSE: (&str, &str) = ("CLASP_TEST_WRITE_PAUSE_MS", "25");

#[test]
fn a_signal_while_staging_writes_nothing_and_leaves_no_temporary_file() {
    for (signal, group) in [("INT", true), ("TERM", false), ("KILL", false), ("KILL", true)] {
        let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        migrate_fixtures(work.path());
        let original = snapshot(work.path());
        let child = start_with(work.path(), tmp.path(), WRITE, &[PAUSE]);
        wait_for("a staged file", || !temporaries(work.path()).is_empty());
        send(child.id(), signal, group);
        let (code, stderr) = finish(child);
        wait_until_gone(tmp.path(), Duration::from_secs(5));
        let case = format!("SIG{signal} (group: {group}) while staging: {stderr}");
        match signal {
            "INT" => assert_eq!((code, stderr.as_str()), (130, "clasp: interrupted (SIGINT); nothing was written\n")),
            "TERM" => assert_eq!((code, stderr.as_str()), (143, "clasp: interrupted (SIGTERM); nothing was written\n")),
            _ => assert_eq!(code, -9, "{case}"),
        }
        if signal == "KILL" {
            // Its worker removed its temporary files (it got SIGTERM), or, killed too, the next run does.
            assert_eq!(temporaries(work.path()).is_empty(), !group, "{case}");
            let (code, stderr) = finish(start(work.path(), tmp.path(), &["migrate", "--help"]));
            assert_eq!(code, 0, "{stderr}");
        }
        assert!(snapshot(work.path()) == original, "{case}: files were written");
        assert_eq!(temporaries(work.path()), Vec::<std::path::PathBuf>::new(), "{case}");
        assert_eq!(scratch_folders(tmp.path()), Vec::<std::path::PathBuf>::new(), "{case}");
    }
}

#[test]
fn a_signal_once_the_renames_began_waits_for_them_all() {
    let (reference, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    migrate_fixtures(reference.path());
    finish(start(reference.path(), tmp.path(), WRITE));
    let migrated = snapshot(reference.path());
    for (signal, group, name) in [("INT", true, "SIGINT"), ("KILL", false, "")] {
        let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        migrate_fixtures(work.path());
        let child = start_with(work.path(), tmp.path(), WRITE, &[PAUSE]);
        wait_for("the renames", || renames_began(tmp.path()));
        send(child.id(), signal, group);
        let (code, stderr) = finish(child);
        wait_until_gone(tmp.path(), Duration::from_secs(10));
        if signal == "INT" {
            let said = format!("clasp: interrupted ({name}) once the changes were written, all of them\n");
            assert_eq!((code, stderr), (130, said));
        } else {
            // clasp is gone at once; its worker got SIGTERM and finished the renames.
            assert_eq!(code, -9);
            finish(start(work.path(), tmp.path(), &["migrate", "--help"]));
        }
        assert!(snapshot(work.path()) == migrated, "SIG{signal} during the renames: the batch is not whole");
        assert_eq!(temporaries(work.path()), Vec::<std::path::PathBuf>::new());
        assert_eq!(scratch_folders(tmp.path()), Vec::<std::path::PathBuf>::new());
    }
}

#[test]
fn without_isolation_an_interrupted_run_ends_the_same_way() {
    let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hanging_batch(work.path());
    let original = snapshot(work.path());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_clasp"));
    command.args(["migrate", "-q", "--no-cache", "--write", "."]).current_dir(work.path());
    let child =
        command.env("TMPDIR", tmp.path()).env("CLASP_NO_ISOLATION", "1").stderr(std::process::Stdio::piped()).spawn().unwrap();
    wait_for_processes(tmp.path(), 1);
    std::thread::sleep(Duration::from_millis(500));
    send(child.id(), "TERM", false);
    let (exit, stderr) = finish(child);
    assert_eq!((exit, stderr.as_str()), (143, "clasp: interrupted (SIGTERM); nothing was written\n"));
    assert!(snapshot(work.path()) == original);
}

#[test]
fn what_a_supervisor_killed_outright_left_is_removed_by_the_next_run() {
    let (work, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hanging_batch(work.path());
    let child = start(work.path(), tmp.path(), &["migrate", "-q", "--no-cache", "--write", "."]);
    wait_for_processes(tmp.path(), 2);
    send(child.id(), "KILL", true);
    finish(child);
    wait_until_gone(tmp.path(), Duration::from_secs(5));
    let left = scratch_folders(tmp.path());
    assert_eq!(left.len(), 1, "the killed supervisor's folder: {left:?}");
    // As a worker killed while staging leaves it: a temporary file, listed in its journal.
    let temporary = work.path().join(".clasp-1-0-0");
    std::fs::write(&temporary, "half").unwrap();
    let mut entry = temporary.as_os_str().as_encoded_bytes().to_vec();
    entry.push(0);
    std::fs::write(left[0].join("journal-1"), entry).unwrap();
    // Another clasp still running (this test's own process) keeps its folder.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let start_time = stat.rsplit(')').next().unwrap().split_whitespace().nth(19).unwrap().to_string();
    let live = tmp.path().join(format!("clasp-supervisor-{}-{start_time}-Live01", std::process::id()));
    std::fs::create_dir(&live).unwrap();
    let (code, stderr) = finish(start(work.path(), tmp.path(), &["migrate", "--help"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(scratch_folders(tmp.path()), vec![live]);
    assert!(!temporary.exists(), "the journalled temporary file is left");
}

#[test]
fn a_file_not_written_and_those_sharing_its_changes_are_not_counted_as_migrated() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    file("h.h", "float first(__global const float *v) { return v[0]; }\n");
    // `second` passes its pointer to `first`: one change set across a.cl and h.h.
    file("a.cl", "#include \"h.h\"\nfloat second(__global const float *v) { return first(v); }\n__kernel void k(__global const float *in, __global float *out) { out[0] = second(in); }\n");
    file("c.cl", "float third(__global const float *v) { return v[1]; }\n__kernel void j(__global const float *in, __global float *out) { out[0] = third(in); }\n");
    std::fs::set_permissions(dir.path().join("h.h"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(dir.path());
    let (code, _, stderr) = crate::support::clasp_in(dir.path(), &["migrate", "-q", "--write", "a.cl", "c.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("./h.h:1:1: error: is read-only; not written"), "{stderr}");
    assert!(
        stderr.contains("a.cl:1:1: error: not written: its changes go with those of ./h.h, which could not be written"),
        "{stderr}"
    );
    assert!(stderr.contains("clasp: 3 files, 1 function migrated (verified), 2 not written, 0 refused, 2 unchanged"), "{stderr}");
    let after = snapshot(dir.path());
    for name in ["h.h", "a.cl"] {
        assert_eq!(after[Path::new(name)], before[Path::new(name)], "{name}");
    }
    assert!(String::from_utf8_lossy(&after[Path::new("c.cl")]).starts_with("float third(const float *v)"));
}
