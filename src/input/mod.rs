//! `input`: what a batch reads, before any unit is parsed.
//!
//! Takes settings and host facts; gives the unit files under the given paths
//! (`discover`), `clasp.toml` and `compile_commands.json` as jobs
//! (`config`), and each unit's source map (`source`: which file bytes each
//! byte of its text comes from, embedded kernels and programs included).

pub mod config;
pub mod discover;
pub mod source;
