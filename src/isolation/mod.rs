//! Isolation: one unit that crashes or hangs clang costs that unit, not the batch.
//!
//! Takes the support utilities and the entry the binary hands it
//! (`Entry`, `clasp::run`); gives the supervisor, the worker, and the phases
//! each thread reports (`phase`), which every later stage marks its work with.
//!
//! libclang and the in-process clang run in clasp's own process, where a
//! crash would end the batch and a hang (a macro expanding to billions of
//! tokens) would stall it. So the `clasp` the user starts is a supervisor
//! (`supervisor`) that runs the batch in a worker process, `clasp` itself
//! again, which reports what each thread is doing (`worker`). A worker that
//! dies, or a phase that outlives `--timeout`, names its unit; the batch runs
//! again without it, and that unit is an error (exit 2).
//!
//! A batch with no fault costs one more process start (tens of
//! milliseconds) and a line of log per phase; a fault costs one more run of
//! the batch up to the fault. `CLASP_NO_ISOLATION=1` runs in one process.
//!
//! An interrupted run writes the batch whole or not at all (`signals`,
//! `write::batch`), and no worker outlives its supervisor (`supervisor`);
//! what a supervisor killed outright left, the next one removes (`scratch`).

use std::io::Write;

mod exit;
mod scratch;
pub mod signals;
pub mod supervisor;
pub mod worker;

pub use scratch::TEMPORARY_PREFIX;
pub use worker::{
    announce_timeout, crashed, exclusion_error, for_unit, jobs_override, journal, phase, renaming, supervisor_alive, Phase,
};

/// What a process of clasp runs once isolation is settled: `clasp::run`,
/// handed in by the binary so that this low layer never calls up into the
/// commands.
pub type Entry = fn(Vec<String>, &mut dyn Write, &mut dyn Write) -> i32;

/// Runs clasp as the binary does: supervised for the commands that load
/// units, in this process for the others (help, version) or when
/// `CLASP_NO_ISOLATION` is set or this process is a worker already; `run`
/// is the entry (`clasp::run`).
pub fn main(args: Vec<String>, run: Entry) -> i32 {
    let loads_units = matches!(subcommand(&args), Some("migrate" | "analyze"));
    let isolate = loads_units && !worker::supervised() && std::env::var_os("CLASP_NO_ISOLATION").is_none();
    if isolate {
        signals::install(signals::Role::Supervisor);
        supervisor::run(&args, &mut std::io::stderr())
    } else if worker::supervised() && !args.iter().any(|a| a == "--interactive") {
        signals::install(signals::Role::Worker);
        // A worker that dies prints nothing: the next run prints it all, once.
        // (Not with --interactive: its prompts must show as they are asked.)
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(args, &mut out, &mut err);
        let _ = std::io::stdout().write_all(&out);
        let _ = std::io::stderr().write_all(&err);
        code
    } else {
        signals::install(if worker::supervised() { signals::Role::Worker } else { signals::Role::Alone });
        run(args, &mut std::io::stdout(), &mut std::io::stderr())
    }
}

/// The subcommand asked for: the first argument after `--color WHEN`, the
/// one option that may come before it (`clasp --color always migrate ...`).
fn subcommand(args: &[String]) -> Option<&str> {
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--color" => {
                rest.next();
            }
            colour if colour.starts_with("--color=") => {}
            other => return Some(other),
        }
    }
    None
}
