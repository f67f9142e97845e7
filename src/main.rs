//! The `clasp` binary: everything happens in `clasp::run`.

fn main() {
    let code = clasp::run(std::env::args().collect(), &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
