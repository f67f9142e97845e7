//! The command line: argument parsing, project resolution and dispatch.
//! `run` takes the arguments and the two output streams, so tests drive it
//! in-process. This module only parses (`args`) and resolves what the
//! arguments name (`project`); the commands themselves live in `commands`.

pub mod args;
pub mod project;

use std::io::Write;

use clap::{CommandFactory, Parser};

use args::{Cli, Command};

/// Exit codes, as for ruff and cargo fix.
pub const EXIT_OK: i32 = 0;
pub const EXIT_PENDING: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

/// The long options of any subcommand that take a value (`--target`), so
/// that host-option rewriting leaves their values alone.
fn takes_value(option: &str) -> bool {
    let name = option.trim_start_matches('-');
    Cli::command()
        .get_subcommands()
        .flat_map(|c| c.get_arguments())
        .any(|a| a.get_long() == Some(name) && !a.is_positional() && a.get_action().takes_values())
}

/// Runs clasp with `args` (including the program name) and returns the exit code.
pub fn run(args: Vec<String>, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    // clap cannot read host spellings (`-include`, `-cl-mad-enable`): rewrite them first.
    let args = match crate::build_options::canonicalize(&args, &takes_value) {
        Ok(canonical) => {
            for note in &canonical.notes {
                let _ = writeln!(stderr, "clasp: note: {note}");
            }
            canonical.args
        }
        Err(message) => {
            let _ = writeln!(stderr, "clasp: error: {message}");
            return EXIT_ERROR;
        }
    };
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = if e.use_stderr() { write!(stderr, "{e}") } else { write!(stdout, "{e}") };
            return code;
        }
    };
    match cli.command {
        Command::Analyze(args) => crate::commands::analyze::run(&args, stdout, stderr),
        Command::Migrate(args) => crate::commands::migrate::run(&args, stdout, stderr),
    }
}
