//! The commands: `run` parses the command line (`cli`) and each command
//! drives one subcommand from its parsed arguments to its output and exit
//! code. `run` takes the arguments and the two output streams, so tests
//! drive it in-process.

pub mod analyze;
mod cache;
pub mod devices;
mod interactive;
pub mod migrate;
mod preflight;
pub mod rule;
mod run_check;
mod selection;
mod shell;
mod stdin;

use std::io::Write;

use crate::cli::args::Command;
use crate::cli::project;
use crate::support::exit::EXIT_ERROR;
use crate::support::style::{Palette, Palettes};

/// Runs the command `cli` asks for and returns the exit code (`clasp server`
/// is the later `server` stage's: `crate::run` hands it there).
pub fn run(cli: crate::cli::args::Cli, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let palettes = Palettes::new(cli.color);
    // Precompiled preambles and header functions' walks are shared by the run's units, and dropped after it.
    let _session = crate::support::session::Session::begin();
    match cli.command {
        Command::Analyze(args) => analyze::run(&args, palettes, stdout, stderr),
        Command::Migrate(args) => migrate::run(&args, palettes, stdout, stderr),
        Command::Devices(args) => devices::run(&args, stdout, stderr),
        Command::Rule(args) => rule::run(&args, stdout, stderr),
        Command::Cache(args) => cache::run(&args, stdout, stderr),
        Command::RunCheck(args) => run_check::run(&args, palettes, stdout, stderr),
        Command::Completions(args) => shell::completions(&args, stdout),
        Command::Manpage(args) => shell::manpage(&args, stdout, stderr),
        Command::Server(_) => {
            let _ = writeln!(stderr, "clasp: error: `clasp server` runs through `clasp::run`");
            EXIT_ERROR
        }
    }
}

/// A command stopped before its work: the message for stderr; it exits 2.
#[derive(Debug)]
pub struct Stop(String);

impl Stop {
    /// What it says, as it is shown.
    pub fn message(&self) -> &str {
        &self.0
    }

    /// An error of clasp's own (not of a file): `clasp: error: ...`, worded as it is shown.
    fn clasp(message: impl std::fmt::Display) -> Stop {
        Stop(format!("clasp: error: {message}"))
    }

    /// A run that can do nothing, though nothing is wrong as such: `clasp: warning: ...`, exit 2.
    fn warning(message: String) -> Stop {
        Stop(format!("clasp: warning: {message}"))
    }
}

impl From<project::Error> for Stop {
    fn from(error: project::Error) -> Stop {
        Stop(error.problem.to_string())
    }
}

/// The exit code of a command's result, printing why it stopped if it did.
fn exit_code(result: Result<i32, Stop>, palette: Palette, stderr: &mut dyn Write) -> i32 {
    match result {
        Ok(code) => code,
        Err(Stop(message)) => {
            let _ = writeln!(stderr, "{}", palette.diagnostic(&message));
            EXIT_ERROR
        }
    }
}
