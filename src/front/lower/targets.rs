//! LLVM's target registry, filled once per process before anything uses it.
//!
//! Registering a target appends it to a global list that is not thread-safe:
//! a registration racing with another one, or with a lookup (clang's code
//! generation looks the target up on every compile), can link the list into
//! a cycle, and every later lookup then spins forever. So every target is
//! registered here, once, by the in-process clang's shim (as the clang
//! executable does before it compiles, so code generation for amdgcn runs
//! the same target passes), and every path that may register or look up a
//! target (libclang's index, the in-process compiler, the equivalence
//! pipeline) waits for it first.

use std::sync::Once;

extern "C" {
    fn clasp_initialize_targets();
}

/// Registers the targets clasp compiles for, once; returns when that is done.
pub fn ensure_registered() {
    static REGISTERED: Once = Once::new();
    // SAFETY: no arguments; the shim registers every target as the clang
    // executable does, once (std::call_once), and catches everything.
    REGISTERED.call_once(|| unsafe { clasp_initialize_targets() });
}
