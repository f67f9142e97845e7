//! `clasp-device-worker`: the process in which every OpenCL call runs (see
//! `clasp::devices::worker`). A binary of its own, not a subcommand of
//! `clasp`: `clasp` is linked to libclang-cpp 19, whose symbols carry no
//! version, so a driver bringing its own clang (Debian's PoCL: clang 15)
//! would bind to clang 19's functions in any process of `clasp` and crash.
//! This one uses nothing of LLVM or clang, and the linker leaves them out.

fn main() {
    let code = clasp::devices::worker::serve(&mut std::io::stdin(), &mut std::io::stdout());
    std::process::exit(code);
}
