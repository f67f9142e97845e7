//! `clasp completions SHELL` and the hidden `clasp manpage [COMMAND]`:
//! what a shell and `man` need, generated from the clap definitions that
//! `--help` prints, so that neither can fall behind the options.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::args::{Cli, CompletionsArgs, ManpageArgs};
use crate::support::exit::{EXIT_ERROR, EXIT_OK};

/// Prints the completion script for `args.shell`.
pub fn completions(args: &CompletionsArgs, stdout: &mut dyn Write) -> i32 {
    clap_complete::generate(args.shell, &mut Cli::command(), "clasp", stdout);
    EXIT_OK
}

/// Prints clasp(1), or with a command clasp-COMMAND(1), as roff.
pub fn manpage(args: &ManpageArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let mut clasp = Cli::command();
    // Built first: the global options (--color) and the version reach the subcommands then.
    clasp.build();
    let page = match &args.command {
        None => clasp,
        Some(name) => match clasp.get_subcommands().find(|c| c.get_name() == name && !c.is_hide_set()) {
            // Built, it is displayed as `clasp-migrate`: the page's title and NAME, as man names it.
            // Its version too, or the page's header names none.
            Some(command) => command.clone().version(env!("CARGO_PKG_VERSION")),
            None => {
                let names: Vec<&str> = clasp.get_subcommands().filter(|c| !c.is_hide_set()).map(|c| c.get_name()).collect();
                let _ = writeln!(stderr, "clasp: error: no command `{name}`: the commands are {}", names.join(", "));
                return EXIT_ERROR;
            }
        },
    };
    match clap_mangen::Man::new(page).render(stdout) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            let _ = writeln!(stderr, "clasp: error: cannot write the man page: {e}");
            EXIT_ERROR
        }
    }
}
