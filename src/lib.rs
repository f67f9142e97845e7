//! clasp: migrates OpenCL C 1.x kernels to OpenCL C 2.0 generic address spaces.
//!
//! The pipeline runs one way: discover -> parse -> lower -> infer -> plan ->
//! verify -> render. Each top-level module is a stage folder, and a module
//! uses only the stages before its own, in this order (the layering test,
//! `src/layers_tests.rs`, holds the same table and fails on any path that
//! goes the other way, and on any cycle among the files of a folder):
//!
//! | layer       | takes                     | gives                                              |
//! |-------------|---------------------------|----------------------------------------------------|
//! | `support`   | nothing                   | ids, wording, exit codes, timings, colour, stores  |
//! | `isolation` | support                   | the supervisor and worker processes, phases        |
//! | `codes`     | nothing                   | every rule and reason code, with its documentation |
//! | `settings`  | the above                 | options, targets, build options, the edit root     |
//! | `facts`     | the above                 | syntax and IR facts as plain data, flow queries    |
//! | `host`      | the above                 | host code's facts (tree-sitter)                    |
//! | `input`     | the above                 | unit files, `clasp.toml` jobs, source maps         |
//! | `front`     | the above                 | a `Unit`: libclang's syntax and clang's IR facts   |
//! | `verify`    | the above                 | recompiles and equivalence proofs                  |
//! | `infer`     | the above                 | decisions with evidence                            |
//! | `rules`     | the above                 | fixes, refusals, warnings                          |
//! | `migrate`   | the above                 | the batch planned, settled, as a `report`          |
//! | `output`    | the above                 | diffs, summaries, SARIF, analysis, atomic writes   |
//! | `devices`   | the above                 | the user's OpenCL devices, `--device-check`        |
//! | `cli`       | the above                 | the arguments parsed, the project resolved         |
//! | `commands`  | everything                | `run`: each command driven, its exit code          |
//!
//! `main.rs` hands `run` to `isolation::main`; each folder's `mod.rs` says
//! what it takes and gives.

pub(crate) mod cli;
pub mod codes;
pub(crate) mod commands;
pub mod devices;
pub(crate) mod facts;
pub mod front;
pub(crate) mod host;
pub(crate) mod infer;
pub(crate) mod input;
pub mod isolation;
pub(crate) mod migrate;
pub mod output;
pub(crate) mod rules;
pub mod settings;
pub mod support;
pub mod verify;

pub use commands::run;

#[cfg(test)]
mod layers_tests;
