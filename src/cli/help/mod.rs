//! The long help (`--help`) of every command and option: the full
//! reference of clasp's behaviour, which the README points to. `-h` prints
//! each option's first paragraph; `--help` prints the whole text, then the
//! command's reference sections. Text only: `args` attaches it to the
//! clap structs, nothing here decides anything.

mod commands;
mod host;
mod input;
mod migrate;
mod project;
mod run_check;

pub use commands::*;
pub use input::*;
pub use migrate::*;
pub use run_check::*;

/// The reference sections printed after `clasp migrate --help`'s options.
pub fn migrate_after() -> String {
    [
        project::PATHS,
        project::HOST_OPTIONS,
        host::HOST_CODE,
        project::CLASP_TOML,
        project::COMPILE_COMMANDS,
        commands::VERIFICATION,
        commands::ERRORS,
        commands::ENVIRONMENT,
        commands::EXIT_CODES,
    ]
    .join("\n\n")
}

/// The reference sections printed after `clasp analyze --help`'s options.
pub fn analyze_after() -> String {
    [
        commands::ANALYZE_REPORT,
        project::PATHS,
        project::HOST_OPTIONS,
        project::CLASP_TOML,
        project::COMPILE_COMMANDS,
        commands::ENVIRONMENT,
        commands::ANALYZE_EXIT_CODES,
    ]
    .join("\n\n")
}
