//! The `clasp` binary: a supervisor running the batch in a worker process
//! (`clasp::isolation`), which does everything in `clasp::run`, handed to it
//! here.

/// mimalloc, built with `override`, is the allocator of the whole process:
/// Rust's allocations and, through the exported `malloc`/`free`, clang's and
/// LLVM's. glibc's allocator fragments under what clasp does (a unit's
/// compiles and modules freed between long-lived per-batch values): on the
/// 400-unit shared-headers benchmark it cost a quarter of the run.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The signal handlers, installed before anything else of clasp runs: the
/// loader calls `.preinit_array` entries after relocating the libraries but
/// before their static initializers (LLVM's take tens of milliseconds) and
/// before Rust's runtime (see `clasp::isolation::signals`).
#[used]
#[link_section = ".preinit_array"]
static INSTALL_SIGNAL_HANDLERS: extern "C" fn(std::ffi::c_int, *const *const std::ffi::c_char, *const *const std::ffi::c_char) =
    clasp::isolation::signals::install_at_start;

fn main() {
    let code = clasp::isolation::main(std::env::args().collect(), clasp::run);
    std::process::exit(code);
}
