//! clasp: migrates OpenCL C 1.x kernels to OpenCL C 2.0 generic address spaces.
//!
//! The pipeline runs one way: discover -> parse -> lower -> infer -> plan ->
//! verify -> render. See the README's Architecture section.

pub mod analyze;
pub mod build_options;
pub mod cli;
pub mod codes;
pub mod commands;
pub mod config;
pub mod describe;
pub mod devices;
pub mod discover;
pub mod flowgraph;
pub mod git;
pub mod host;
pub mod ids;
pub mod infer;
pub mod ir;
pub mod isolation;
pub mod lower;
pub mod migrate;
pub mod options;
pub mod parse;
pub mod precompiled;
pub mod progress;
pub mod render;
pub mod report;
pub mod root;
pub mod rules;
pub mod sarif;
pub mod session;
pub mod source;
pub mod style;
pub mod summary;
pub mod syntax;
pub mod targets;
pub mod text;
pub mod timings;
pub mod unit;
pub mod verify;
pub mod write;

pub use commands::run;
