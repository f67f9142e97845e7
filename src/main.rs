//! The `clasp` binary: a supervisor running the batch in a worker process
//! (`clasp::isolation`), which does everything in `clasp::run`.

/// mimalloc, built with `override`, is the allocator of the whole process:
/// Rust's allocations and, through the exported `malloc`/`free`, clang's and
/// LLVM's. glibc's allocator fragments under what clasp does (a unit's
/// compiles and modules freed between long-lived per-batch values): on the
/// 400-unit shared-headers benchmark it cost a quarter of the run.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let code = clasp::isolation::main(std::env::args().collect());
    std::process::exit(code);
}
