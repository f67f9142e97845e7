//! End-to-end tests of host programs: each fixture under `fixtures/host/`
//! is built and run against a stub OpenCL (`fixtures/host/stub/`) that
//! records what a driver would receive (every program's source and each
//! build's options), and what it recorded is compiled with clang-19.
//!
//! One test crate (`[[test]] name = "host"`); `support` holds the harness
//! (`run_host`, `compiles_as_built`, `compile_all`), reusable by tests that run
//! `clasp migrate --write` on a fixture copy before running its host.
//! Missing tools (cc, c++, python3, clang-19) fail the tests, never skip them.

mod compiles;
mod migrated;
mod originals;
mod stub;
mod support;
