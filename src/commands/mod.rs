//! The commands: each drives one subcommand from its parsed arguments to
//! its output and exit code (`cli` only parses and resolves the project).

pub mod analyze;
pub mod migrate;

use std::io::Write;

use crate::cli::{project, EXIT_ERROR};

/// A command stopped before its work: the message for stderr; it exits 2.
#[derive(Debug)]
pub struct Stop(String);

impl Stop {
    /// An error of clasp's own (not of a file): `clasp: error: ...`.
    fn clasp(message: String) -> Stop {
        Stop(format!("clasp: error: {message}"))
    }
}

impl From<project::Error> for Stop {
    fn from(error: project::Error) -> Stop {
        Stop(error.message)
    }
}

/// The exit code of a command's result, printing why it stopped if it did.
fn exit_code(result: Result<i32, Stop>, stderr: &mut dyn Write) -> i32 {
    match result {
        Ok(code) => code,
        Err(Stop(message)) => {
            let _ = writeln!(stderr, "{message}");
            EXIT_ERROR
        }
    }
}
