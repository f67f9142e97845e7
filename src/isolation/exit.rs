//! Ending the worker process at once (FFI boundary: `_exit`).
//!
//! After clang crashed, the worker must end without running destructors or
//! exit handlers: other threads may still be inside clang, and C++ static
//! destructors racing with them can crash again on the way out.

/// Ends the process with `code`, now.
pub fn now(code: i32) -> ! {
    // SAFETY: `_exit` takes a plain integer and never returns; it runs no
    // handler, so no Rust or C++ state is touched after this call.
    unsafe { libc::_exit(code) }
}
