//! The supervisor: the `clasp` process the user started, running the batch
//! in a worker (`clasp` itself again) and watching it.
//!
//! The worker does everything, as `clasp::run` does in process; the
//! supervisor reads its log (see `worker`) every few milliseconds. When the
//! worker dies (a crash clang's recovery did not catch, a caught crash, a
//! panic) or a phase outlives the time limit (the worker is killed), the
//! unit at fault is known from the log, and the batch runs again in a new
//! worker with that unit taken out: the worker reports it as an error and
//! migrates the others without it, changing no file but the loaded units'
//! own (what it includes is unknown: `plan::FailedFiles`). Nothing is written
//! before every unit has been parsed, compiled and verified, so a run that
//! dies has written nothing. When several units were in flight and none
//! can be told from the others, the next run uses one thread.
//!
//! The worker never acts on its own: it gets SIGTERM when the supervisor
//! dies, and writes nothing unless the supervisor is still its parent
//! (`signals::die_with_parent`, `worker::supervisor_alive`). SIGINT,
//! SIGTERM and SIGHUP sent to the supervisor are forwarded to the worker,
//! which is waited for (it ends at once, or finishes its renames); the run
//! then ends with 128 + the signal's number and a line saying whether
//! anything was written, and is not run again. The scratch folder
//! (`scratch`) is the supervisor's; the temporary files a worker killed
//! outright leaves beside the files are removed from its journal.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use super::signals;
use super::worker::{Phase, EXCLUDED_VARIABLE, JOBS_VARIABLE, JOURNAL_VARIABLE, LOG_VARIABLE, SUPERVISOR_VARIABLE};

/// The time limit on a phase until the worker says the project's.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 300;
/// How often the log and the worker are looked at.
const POLL: Duration = Duration::from_millis(20);
/// A Rust panic's exit code.
const EXIT_PANIC: i32 = 101;

/// Runs `args` (the command line, program name first) in a worker and returns the exit code.
pub fn run(args: &[String], stderr: &mut dyn Write) -> i32 {
    let scratch = match super::scratch::create() {
        Ok(dir) => dir,
        Err(e) => {
            let _ = writeln!(stderr, "clasp: error: no scratch directory for the worker: {e}");
            return crate::support::exit::EXIT_ERROR;
        }
    };
    let mut batch = Batch { excluded: BTreeMap::new(), one_thread: false, stdin: None };
    if reads_stdin(args) {
        match buffered_stdin(scratch.path()) {
            Ok(path) => batch.stdin = Some(path),
            Err(e) => {
                let _ = writeln!(stderr, "clasp: error: cannot read standard input: {e}");
                return crate::support::exit::EXIT_ERROR;
            }
        }
    }
    let mut attempt = 0;
    loop {
        attempt += 1;
        if let Some(signal) = signals::received() {
            let _ = write!(stderr, "{}", signals::message(signal, false));
            return 128 + signal;
        }
        let outcome = match run_worker(args, scratch.path(), attempt, &batch) {
            Ok(outcome) => outcome,
            Err(e) => {
                let _ = writeln!(stderr, "clasp: error: cannot run the worker ({}): {e}", exe_name());
                return crate::support::exit::EXIT_ERROR;
            }
        };
        if let Some((signal, written)) = interrupted(&outcome) {
            let _ = write!(stderr, "{}", signals::message(signal, written));
            return 128 + signal;
        }
        match batch.learn(outcome) {
            Next::Exit(code) => return code,
            Next::Fail(message) => {
                let _ = writeln!(stderr, "clasp: error: {message}");
                return crate::support::exit::EXIT_ERROR;
            }
            Next::Again => {}
        }
    }
}

/// Whether the run was interrupted (this process or the worker got
/// SIGINT, SIGTERM or SIGHUP): the signal, and whether the renames had begun.
fn interrupted(outcome: &Outcome) -> Option<(i32, bool)> {
    let Outcome::Ended { status, log } = outcome else { return signals::received().map(|s| (s, false)) };
    let worker = status.code().map(|c| c - 128).filter(|s| signals::INTERRUPTS.contains(s));
    let signal = signals::received().or(worker).or(status.signal().filter(|s| signals::INTERRUPTS.contains(s)))?;
    Some((signal, log.renaming))
}

fn exe_name() -> String {
    std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "clasp".into())
}

/// Whether the command line reads a unit from standard input: a PATH `-`
/// or `--stdin-filename` (before any `--`, after which clang's arguments come).
fn reads_stdin(args: &[String]) -> bool {
    let options = args.iter().skip(1).take_while(|a| *a != "--");
    options.into_iter().any(|a| a == "-" || a == "--stdin-filename" || a.starts_with("--stdin-filename="))
}

/// Standard input, read whole into the scratch folder: each worker reads it
/// from there, so a run again after a fault sees the same text.
fn buffered_stdin(scratch: &Path) -> std::io::Result<PathBuf> {
    let path = scratch.join("stdin");
    let mut file = std::fs::File::create(&path)?;
    std::io::copy(&mut std::io::stdin().lock(), &mut file)?;
    Ok(path)
}

/// What the runs so far have learnt.
struct Batch {
    /// The units taken out, with why.
    excluded: BTreeMap<String, String>,
    /// Whether the worker runs with one thread (a fault could not be pinned on one unit).
    one_thread: bool,
    /// Standard input, when the command reads it (`buffered_stdin`).
    stdin: Option<PathBuf>,
}

enum Next {
    Exit(i32),
    Fail(String),
    Again,
}

/// How a worker ended.
enum Outcome {
    /// It exited or died by itself; what its log said.
    Ended { status: ExitStatus, log: Log },
    /// It was killed: a phase of `unit` outlived `seconds`.
    TimedOut { unit: Option<String>, phase: Phase, seconds: u64 },
}

impl Batch {
    fn learn(&mut self, outcome: Outcome) -> Next {
        match outcome {
            Outcome::TimedOut { unit, phase, seconds } => {
                let why = format!(
                    "{} took longer than the time limit of {seconds} s (--timeout); nothing of this unit is written",
                    phase.word()
                );
                self.exclude(unit, why)
            }
            Outcome::Ended { status, log } => self.ended(status, log),
        }
    }

    fn ended(&mut self, status: ExitStatus, log: Log) -> Next {
        // A caught crash names its unit, whatever the worker's end looked like (the other
        // threads it left running may still have brought it down on the way out).
        if let Some((unit, what)) = log.caught {
            let why = format!("clang crashed on this unit ({what}); nothing of this unit is written");
            return self.exclude(Some(unit).filter(|u| !u.is_empty()), why);
        }
        let died = match (status.code(), status.signal()) {
            (Some(EXIT_PANIC), _) => "clasp panicked".to_string(),
            (Some(code), _) => return Next::Exit(code),
            (None, Some(signal)) => format!("clasp's worker was killed by signal {signal}{}", signal_name(signal)),
            (None, None) => "clasp's worker ended without a status".to_string(),
        };
        let suspects = log.busy_units();
        match suspects.as_slice() {
            [] => Next::Fail(format!("{died} outside of any unit")),
            [(unit, phase)] => {
                let during = phase.map(|p| format!(" while {}", p.word())).unwrap_or_default();
                self.exclude(Some(unit.clone()), format!("{died}{during}; nothing of this unit is written"))
            }
            _ if self.one_thread => Next::Fail(format!("{died} with several units in flight")),
            _ => {
                // Several units were in flight: run again one at a time to find which.
                self.one_thread = true;
                Next::Again
            }
        }
    }

    fn exclude(&mut self, unit: Option<String>, why: String) -> Next {
        match unit {
            Some(unit) if !self.excluded.contains_key(&unit) => {
                self.excluded.insert(unit, why);
                Next::Again
            }
            Some(unit) => Next::Fail(format!("{unit}: {why} (again, after it was taken out)")),
            None => Next::Fail(format!("outside of any unit: {why}")),
        }
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// Starts one worker and watches it to its end.
fn run_worker(args: &[String], scratch: &Path, attempt: usize, batch: &Batch) -> std::io::Result<Outcome> {
    let log_path = scratch.join(format!("worker-{attempt}.log"));
    std::fs::write(&log_path, b"")?;
    // The worker's temporary files live in the scratch directory, removed even if it is killed.
    let temp = scratch.join(format!("tmp-{attempt}"));
    std::fs::create_dir_all(&temp)?;
    let journal = scratch.join(format!("journal-{attempt}"));
    let mut command = Command::new(std::env::current_exe()?);
    command.args(&args[1..]).env(LOG_VARIABLE, &log_path).env("TMPDIR", &temp).env(JOURNAL_VARIABLE, &journal);
    command.env(SUPERVISOR_VARIABLE, std::process::id().to_string());
    signals::die_with_parent(&mut command, std::process::id());
    if !batch.excluded.is_empty() {
        let excluded = scratch.join(format!("excluded-{attempt}.json"));
        std::fs::write(&excluded, serde_json::to_vec(&batch.excluded)?)?;
        command.env(EXCLUDED_VARIABLE, excluded);
    }
    if batch.one_thread {
        command.env(JOBS_VARIABLE, "1");
    }
    if let Some(stdin) = &batch.stdin {
        command.stdin(std::fs::File::open(stdin)?);
    }
    let child = command.spawn()?;
    let _ = super::scratch::record_worker(scratch, child.id());
    let outcome = watch(child, &log_path);
    // A worker killed outright leaves the temporary files it was staging.
    super::scratch::remove_journalled(&journal);
    let _ = std::fs::remove_dir_all(&temp);
    outcome
}

/// Follows the worker's log until it ends, or kills it when a phase outlives the limit.
fn watch(mut child: Child, log_path: &PathBuf) -> std::io::Result<Outcome> {
    let mut file = std::fs::File::open(log_path)?;
    let mut log = Log::default();
    let mut read = 0u64;
    let mut forwarded = false;
    loop {
        if let Some(signal) = signals::received().filter(|_| !forwarded) {
            // The worker ends (or finishes its renames) and is waited for.
            signals::send(child.id(), signal);
            forwarded = true;
        }
        let status = child.try_wait()?;
        read = log.follow(&mut file, read)?;
        if let Some(status) = status {
            return Ok(Outcome::Ended { status, log });
        }
        if let Some((unit, phase)) = log.overdue().filter(|_| !forwarded) {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Outcome::TimedOut { unit, phase, seconds: log.timeout });
        }
        std::thread::sleep(POLL);
    }
}

/// What a worker's log has said so far.
struct Log {
    timeout: u64,
    /// Per thread: its unit, and its phase with when it began.
    threads: BTreeMap<u64, Thread>,
    /// A caught crash: the unit and what happened.
    caught: Option<(String, String)>,
    /// The bytes of an unfinished last line.
    partial: Vec<u8>,
    /// Whether the worker began renaming its staged files.
    renaming: bool,
}

#[derive(Default)]
struct Thread {
    unit: Option<String>,
    phase: Option<(Phase, Instant)>,
}

impl Default for Log {
    fn default() -> Log {
        Log { timeout: DEFAULT_TIMEOUT_SECONDS, threads: BTreeMap::new(), caught: None, partial: Vec::new(), renaming: false }
    }
}

impl Log {
    /// Reads what was appended since `from`; returns the new end.
    fn follow(&mut self, file: &mut std::fs::File, from: u64) -> std::io::Result<u64> {
        file.seek(SeekFrom::Start(from))?;
        let mut bytes = std::mem::take(&mut self.partial);
        let before = bytes.len();
        file.read_to_end(&mut bytes)?;
        let end = from + (bytes.len() - before) as u64;
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        self.partial = bytes.split_off(complete);
        for line in String::from_utf8_lossy(&bytes).lines() {
            self.read_line(line);
        }
        Ok(end)
    }

    fn read_line(&mut self, line: &str) {
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        let (number, text) = rest.split_once(' ').unwrap_or((rest, ""));
        let thread = number.parse::<u64>().ok();
        match (kind, thread) {
            ("T", _) => self.timeout = number.parse().unwrap_or(self.timeout),
            ("U", Some(t)) => self.threads.entry(t).or_default().unit = Some(text.to_string()),
            ("X", Some(t)) => self.threads.entry(t).or_default().unit = None,
            ("B", Some(t)) => self.threads.entry(t).or_default().phase = Phase::from_word(text).map(|p| (p, Instant::now())),
            ("E", Some(t)) => self.threads.entry(t).or_default().phase = None,
            ("R", _) => self.renaming = true,
            ("F", _) => {
                let (unit, what) = rest.split_once('\t').unwrap_or((rest, ""));
                self.caught = Some((unit.to_string(), what.to_string()));
            }
            _ => {}
        }
    }

    /// The units threads were working on, with the phase each was in.
    fn busy_units(&self) -> Vec<(String, Option<Phase>)> {
        let busy = self.threads.values().filter_map(|t| Some((t.unit.clone()?, t.phase.map(|(p, _)| p))));
        let mut units: Vec<(String, Option<Phase>)> = busy.collect();
        units.sort_by(|a, b| a.0.cmp(&b.0));
        units.dedup_by(|a, b| a.0 == b.0);
        units
    }

    /// A phase that has lasted longer than the limit: its unit and the phase.
    fn overdue(&self) -> Option<(Option<String>, Phase)> {
        let limit = Duration::from_secs(self.timeout);
        let thread = self.threads.values().find(|t| t.phase.is_some_and(|(_, began)| began.elapsed() > limit))?;
        Some((thread.unit.clone(), thread.phase?.0))
    }
}

#[cfg(test)]
mod tests {
    use super::super::worker::EXIT_CAUGHT_CRASH;
    use super::*;

    fn log_of(lines: &[&str]) -> Log {
        let mut log = Log::default();
        for line in lines {
            log.read_line(line);
        }
        log
    }

    fn killed_by(signal: i32) -> ExitStatus {
        ExitStatus::from_raw(signal)
    }

    fn batch() -> Batch {
        Batch { excluded: BTreeMap::new(), one_thread: false, stdin: None }
    }

    #[test]
    fn a_worker_killed_in_a_unit_takes_that_unit_out_and_runs_again() {
        let log = log_of(&["T 300", "U 1 a.cl", "X 1", "U 2 b.cl [fp64]", "B 2 compiling", "U 1 c.cl", "X 1"]);
        let mut batch = batch();
        assert!(matches!(batch.learn(Outcome::Ended { status: killed_by(11), log }), Next::Again));
        let why = &batch.excluded["b.cl [fp64]"];
        assert_eq!(why, "clasp's worker was killed by signal 11 (SIGSEGV) while compiling; nothing of this unit is written");
        assert!(!batch.one_thread);
    }

    #[test]
    fn several_units_in_flight_run_again_on_one_thread_then_the_fault_is_pinned() {
        let mut batch = batch();
        let log = log_of(&["U 1 a.cl", "B 1 parsing", "U 2 b.cl"]);
        assert!(matches!(batch.learn(Outcome::Ended { status: killed_by(6), log }), Next::Again));
        assert!(batch.one_thread && batch.excluded.is_empty());
        let log = log_of(&["U 1 a.cl", "X 1", "U 1 b.cl"]);
        assert!(matches!(batch.learn(Outcome::Ended { status: killed_by(6), log }), Next::Again));
        assert_eq!(batch.excluded["b.cl"], "clasp's worker was killed by signal 6 (SIGABRT); nothing of this unit is written");
    }

    #[test]
    fn a_panic_in_a_unit_is_that_units_and_one_outside_any_unit_ends_the_batch() {
        let mut batch = batch();
        let panicked = ExitStatus::from_raw(EXIT_PANIC << 8);
        assert!(matches!(batch.learn(Outcome::Ended { status: panicked, log: log_of(&["U 3 k.cl"]) }), Next::Again));
        assert_eq!(batch.excluded["k.cl"], "clasp panicked; nothing of this unit is written");
        match batch.learn(Outcome::Ended { status: panicked, log: log_of(&["U 3 k.cl", "X 3"]) }) {
            Next::Fail(message) => assert_eq!(message, "clasp panicked outside of any unit"),
            _ => panic!("a panic outside any unit must end the batch"),
        }
    }

    #[test]
    fn a_normal_exit_is_the_exit_code_and_a_caught_crash_names_its_unit() {
        let mut batch = batch();
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        assert!(matches!(batch.learn(Outcome::Ended { status: exited(1), log: log_of(&["U 1 a.cl"]) }), Next::Exit(1)));
        let log = log_of(&["U 1 a.cl", "F a.cl\tclang crashed while compiling it"]);
        assert!(matches!(batch.learn(Outcome::Ended { status: exited(EXIT_CAUGHT_CRASH), log }), Next::Again));
        assert_eq!(
            batch.excluded["a.cl"],
            "clang crashed on this unit (clang crashed while compiling it); nothing of this unit is written"
        );
        // A caught crash names its unit even when the worker then died of another thread's fault.
        let log = log_of(&["U 1 b.cl", "U 2 c.cl", "F b.cl\tlibclang crashed while parsing"]);
        assert!(matches!(batch.learn(Outcome::Ended { status: killed_by(6), log }), Next::Again));
        assert!(batch.excluded.contains_key("b.cl") && !batch.excluded.contains_key("c.cl") && !batch.one_thread);
        // The same unit failing again after it was taken out is not looped on.
        let log = log_of(&["F a.cl\tclang crashed while compiling it"]);
        assert!(matches!(batch.learn(Outcome::Ended { status: exited(EXIT_CAUGHT_CRASH), log }), Next::Fail(_)));
    }

    #[test]
    fn a_signal_to_the_worker_alone_is_an_interruption_that_knows_whether_renames_began() {
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        let outcome = |status, lines: &[&str]| Outcome::Ended { status, log: log_of(lines) };
        assert_eq!(interrupted(&outcome(exited(130), &["U 1 a.cl"])), Some((2, false)));
        assert_eq!(interrupted(&outcome(exited(143), &["R"])), Some((15, true)));
        assert_eq!(interrupted(&outcome(killed_by(1), &[])), Some((1, false)));
        // A crash is no interruption: the supervisor learns from it as before.
        assert_eq!(interrupted(&outcome(killed_by(11), &[])), None);
        assert_eq!(interrupted(&outcome(exited(2), &["R"])), None);
    }

    #[test]
    fn standard_input_is_buffered_only_for_a_command_line_that_reads_it() {
        let args = |line: &str| line.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(reads_stdin(&args("clasp migrate - --stdin-filename k.cl")));
        assert!(reads_stdin(&args("clasp migrate --stdin-filename=k.cl")));
        assert!(reads_stdin(&args("clasp analyze -")));
        assert!(!reads_stdin(&args("clasp migrate --interactive k.cl")), "--interactive's answers come from the terminal");
        assert!(!reads_stdin(&args("clasp migrate k.cl -- -")), "after `--` come clang's arguments");
    }

    #[test]
    fn the_log_is_read_in_whole_lines_and_a_phase_outliving_the_limit_is_overdue() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "T 0\nU 1 slow.cl\nB 1 pars").unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        let mut log = Log::default();
        let end = log.follow(&mut file, 0).unwrap();
        assert_eq!(log.timeout, 0);
        assert!(log.overdue().is_none(), "half a line is not read");
        std::fs::write(&path, "T 0\nU 1 slow.cl\nB 1 parsing\n").unwrap();
        log.follow(&mut file, end).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(log.overdue(), Some((Some("slow.cl".to_string()), Phase::Parsing)));
    }
}
