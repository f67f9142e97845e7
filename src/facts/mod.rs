//! `facts`: the plain data the front end produces and every later stage
//! reads.
//!
//! Takes nothing but the support utilities; gives a unit's syntax
//! (`syntax`: declarations, their spaces and spellings), its IR facts
//! (`ir`: flows between nodes), and queries over those flows (`flowgraph`).

pub mod flowgraph;
pub mod ir;
pub mod syntax;
