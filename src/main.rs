//! The `clasp` binary: a supervisor running the batch in a worker process
//! (`clasp::isolation`), which does everything in `clasp::run`.

fn main() {
    let code = clasp::isolation::main(std::env::args().collect());
    std::process::exit(code);
}
