//! End-to-end tests of the built `clasp` binary: exit codes, error
//! messages, and a batch that goes on past a broken file.
//!
//! One test crate (`[[test]] name = "cli"`), its tests grouped by theme;
//! `support` holds what they share.

mod actionable_errors;
mod bad_input;
mod big_programs;
mod build_options;
mod cache;
mod check;
mod colour;
mod configurations;
mod devices;
mod diagnostics;
mod diff_base;
mod discovery;
mod early_signals;
mod editor;
mod empty;
mod errors;
mod file_rules;
mod globs;
mod host_links;
mod host_options;
mod interactive;
mod interrupts;
mod isolation;
mod kill;
mod left_out;
mod lsp_client;
mod merges;
mod out_dir;
mod outside_root;
mod places;
mod prefix_macros;
mod programs;
mod readme;
mod remote_cache;
mod reports;
mod residual_generic;
mod reviewed_is_written;
mod rules;
mod run_check;
mod sarif;
mod server;
mod server_files;
mod shadows;
mod shell;
mod stdin;
mod support;
mod suppression;
mod uncommitted;
mod verdicts;
mod writes;
