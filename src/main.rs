//! The `clasp` binary: everything happens in `clasp::cli::run`.

fn main() {
    let code = clasp::cli::run(std::env::args().collect(), &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
