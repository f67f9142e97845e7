//! clasp: migrates OpenCL C 1.x kernels to OpenCL C 2.0 generic address spaces.
//!
//! The pipeline runs one way: discover -> parse -> lower -> infer -> plan ->
//! verify -> render. See the README's Architecture section.

pub mod cli;
pub mod codes;
pub mod commands;
pub mod devices;
pub mod facts;
pub mod front;
pub mod host;
pub mod infer;
pub mod input;
pub mod isolation;
pub mod migrate;
pub mod output;
pub mod rules;
pub mod settings;
pub mod support;
pub mod verify;

pub use commands::run;

#[cfg(test)]
mod layers_tests;
