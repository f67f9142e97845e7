//! The exit codes, as for ruff and cargo fix: 0 nothing to change or all
//! applied, 1 changes pending (`--check`), 2 errors. A leaf, so the
//! supervisor, the commands and the tests name the same numbers.

pub const EXIT_OK: i32 = 0;
pub const EXIT_PENDING: i32 = 1;
pub const EXIT_ERROR: i32 = 2;
