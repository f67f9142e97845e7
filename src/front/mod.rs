//! `front`: the front end, one unit's text -> its facts.
//!
//! Takes a job's files and options (`input`, `settings`); gives a `Unit`
//! (`unit`) holding its syntax from libclang (`parse`) and its IR facts
//! from clang 19's LLVM IR (`lower`). `lower::targets` fills LLVM's target
//! registry once; `precompiled` keeps the shared precompiled preambles both use;
//! `stored` writes a loaded unit as bytes and reads it back.
//! Inside, `unit` uses `parse` and `lower`, `parse` uses `lower`'s
//! preamble identity, and `lower` uses neither.

pub mod lower;
pub mod parse;
pub(crate) mod precompiled;
pub(crate) mod stored;
pub(crate) mod unit;
