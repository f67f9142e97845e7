//! The command line: argument parsing and project resolution. This module
//! only parses (`args`, host spellings first) and resolves what the
//! arguments name (`project`); `commands` runs what was asked.

pub mod args;
mod help;
pub mod project;

use std::io::Write;

use clap::{CommandFactory, Parser};

use args::Cli;

use crate::support::exit::{EXIT_ERROR, EXIT_OK};

/// The long options of any subcommand that take a value (`--target`), so
/// that host-option rewriting leaves their values alone.
fn takes_value(option: &str) -> bool {
    let name = option.trim_start_matches('-');
    Cli::command()
        .get_subcommands()
        .flat_map(|c| c.get_arguments())
        .any(|a| a.get_long() == Some(name) && !a.is_positional() && a.get_action().takes_values())
}

/// Parses `args` (including the program name): the command asked for and
/// the options of every command, or the exit code when parsing ends the run
/// (`--help`, `--version`, an error, already printed).
pub fn parse(args: Vec<String>, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<Cli, i32> {
    // clap cannot read host spellings (`-include`, `-cl-mad-enable`): rewrite them first; but
    // run-check's words after `--` are the user's command, not clang's arguments.
    let runs_a_program = args.iter().skip(1).take_while(|w| *w != "--").any(|w| w == "run-check");
    let canonical = match runs_a_program {
        true => Ok(crate::settings::build_options::Canonical { args, notes: Vec::new() }),
        false => crate::settings::build_options::canonicalize(&args, &takes_value),
    };
    let args = match canonical {
        Ok(canonical) => {
            for note in &canonical.notes {
                let _ = writeln!(stderr, "clasp: note: {note}");
            }
            canonical.args
        }
        Err(message) => {
            let _ = writeln!(stderr, "clasp: error: {message}");
            return Err(EXIT_ERROR);
        }
    };
    match Cli::try_parse_from(args) {
        Ok(mut cli) => {
            cli.command.default_paths();
            Ok(cli)
        }
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = if e.use_stderr() { write!(stderr, "{e}") } else { write!(stdout, "{e}") };
            Err(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        // clap checks argument names, conflicts and requirements here, not at compile time.
        Cli::command().debug_assert();
    }
}
