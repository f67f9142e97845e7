//! The analysis worker: a thread that runs one analysis at a time, so the
//! main loop never waits for clang. A job is a snapshot: the file to
//! analyse and the text and version of every open document, laid over
//! their files (`support::overlay`) while `commands::migrate::dry_run`
//! resolves the project as `clasp migrate FILE` would (its `clasp.toml`, or
//! `--compile-commands` from the settings' `args`) and migrates it. Jobs
//! queued while one runs are superseded by the newest for the same file.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use lsp_types::Uri;

use super::analysis::{file_analysis, Addressing, FileAnalysis};
use super::diagnostics::{self, Place, RuleDocs};
use super::documents::{Documents, Versions};
use super::settings::Settings;

/// One analysis to run.
pub struct Job {
    pub uri: Uri,
    pub documents: Documents,
    pub settings: Arc<Settings>,
    pub versioned: bool,
}

/// A finished analysis: the file, the versions it read, its result and how long it took.
pub struct Done {
    pub uri: Uri,
    pub versions: Versions,
    pub analysis: FileAnalysis,
    pub took: Duration,
}

/// The worker's ends: jobs in, results out. Dropping it waits for the
/// thread to end (after the analysis it is running, if any): what the thread
/// owns (the rule documents' directory, an analysis' scratch files) is
/// removed before the process exits, never left behind by a race with it.
pub struct Worker {
    jobs: Option<Sender<Job>>,
    pub done: Receiver<Done>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    /// Hands the thread a job; `false` when it has ended.
    pub fn send(&self, job: Job) -> bool {
        self.jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // No more jobs: the thread's loop ends once the queue is empty.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts the worker thread; it ends when the `Worker` is dropped.
pub fn spawn(docs: RuleDocs) -> Worker {
    let (jobs, job_receiver) = crossbeam_channel::unbounded::<Job>();
    let (done_sender, done) = crossbeam_channel::unbounded();
    let thread = std::thread::Builder::new()
        .name("clasp-analysis".into())
        .spawn(move || {
            while let Ok(mut job) = job_receiver.recv() {
                // Newer jobs queued behind it win (one per file): the older text is stale.
                let mut later: Vec<Job> = job_receiver.try_iter().collect();
                if let Some(i) = later.iter().rposition(|j| j.uri == job.uri) {
                    job = later.remove(i);
                }
                for other in later {
                    let _ = done_sender.send(run(other, &docs));
                }
                if done_sender.send(run(job, &docs)).is_err() {
                    return;
                }
            }
        })
        .expect("start the analysis thread");
    Worker { jobs: Some(jobs), done, thread: Some(thread) }
}

/// Runs one job (a panic inside the analysis is the file's error, not the server's end).
fn run(job: Job, docs: &RuleDocs) -> Done {
    let started = Instant::now();
    let versions: Versions = job.documents.iter().map(|(uri, d)| (uri.clone(), d.version)).collect();
    let analysis = std::panic::catch_unwind(AssertUnwindSafe(|| analyse(&job, &versions, docs)))
        .unwrap_or_else(|_| stopped(&job, docs, "clasp: error: the analysis panicked (see the server's log)"));
    Done { uri: job.uri, versions, analysis, took: started.elapsed() }
}

/// The file's result: its migration with every open text laid over its file.
fn analyse(job: &Job, versions: &Versions, docs: &RuleDocs) -> FileAnalysis {
    let Some(document) = job.documents.get(&job.uri) else { return FileAnalysis::default() };
    let laid: Vec<(PathBuf, Vec<u8>)> = job.documents.values().map(|d| (d.path.clone(), d.text.clone().into_bytes())).collect();
    let _laid = match crate::support::overlay::install(laid) {
        Ok(guard) => guard,
        Err(e) => return stopped(job, docs, &format!("clasp: error: cannot lay the open files over the disk: {e}")),
    };
    let _session = crate::support::session::Session::begin();
    let args = match migrate_args(&job.settings, &document.path) {
        Ok(args) => args,
        Err(message) => return stopped(job, docs, &message),
    };
    let canonical = crate::support::overlay::canonical(&document.path);
    let place = Place { canonical: &canonical, text: &document.text, refusals: job.settings.refusals, docs };
    match crate::commands::migrate::dry_run(&args) {
        Ok((migration, _root)) => file_analysis(&place, &migration, &Addressing { versions, versioned: job.versioned }),
        Err(stop) => FileAnalysis { diagnostics: vec![diagnostics::of_stop(&place, stop.message())], ..Default::default() },
    }
}

/// A result that is one error at the file's start.
fn stopped(job: &Job, docs: &RuleDocs, message: &str) -> FileAnalysis {
    let text = job.documents.get(&job.uri).map(|d| d.text.as_str()).unwrap_or("");
    let place = Place { canonical: std::path::Path::new(""), text, refusals: false, docs };
    FileAnalysis { diagnostics: vec![diagnostics::of_stop(&place, message)], ..Default::default() }
}

/// `clasp migrate --quiet --no-cache ARGS... FILE` parsed as the command
/// line is (host spellings too); with `--compile-commands` in ARGS, no FILE.
fn migrate_args(settings: &Settings, path: &std::path::Path) -> Result<crate::cli::args::MigrateArgs, String> {
    let mut argv: Vec<String> = ["clasp", "migrate", "--quiet", "--no-cache"].map(String::from).to_vec();
    argv.extend(settings.args.iter().cloned());
    if !settings.compile_commands() {
        argv.push(path.display().to_string());
    }
    let (mut out, mut err) = (Vec::new(), Vec::new());
    match crate::cli::parse(argv, &mut out, &mut err) {
        Ok(crate::cli::args::Cli { command: crate::cli::args::Command::Migrate(args), .. }) => Ok(*args),
        Ok(_) => Err("clasp: error: initializationOptions.args: not options of `clasp migrate`".to_string()),
        Err(_) => Err(format!("initializationOptions.args: {}", String::from_utf8_lossy(&err).trim())),
    }
}
