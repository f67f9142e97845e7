//! Colour: plain when piped, `--color always|never`, `NO_COLOR` and
//! `CLICOLOR_FORCE`; coloured output is the plain output with escapes added.

use std::process::Command;

/// Runs clasp on the demo with `env` set (and the colour variables otherwise unset).
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clasp"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for variable in ["NO_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
        command.env_remove(variable);
    }
    command.envs(env.iter().copied());
    let output = command.output().expect("run clasp");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

const ARGS: [&str; 4] = ["migrate", "--explain", "fixtures/demo/reduce.cl", "fixtures/migrate/syntax_error.cl"];

fn escapes(text: &str) -> bool {
    text.contains("\x1b[")
}

fn strip(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}

#[test]
fn piped_output_is_plain_and_always_adds_only_escapes() {
    let (code, plain_out, plain_err) = run(&ARGS, &[]);
    assert_eq!(code, 2, "{plain_err}");
    assert!(!escapes(&plain_out) && !escapes(&plain_err), "{plain_out}{plain_err}");
    let (code, out, err) = run(&[&["--color", "always"][..], &ARGS].concat(), &[]);
    assert_eq!(code, 2);
    assert!(out.contains("\x1b[31m-float sum_g(__global const float *v, int n, int stride)\x1b[0m"), "{out:?}");
    assert!(out.contains("\x1b[32m+float sum_g(const float *v, int n, int stride)\x1b[0m"), "{out:?}");
    assert!(err.contains("\x1b[31merror:\x1b[0m expected ']'"), "{err:?}");
    assert!(err.contains("\x1b[32mgeneric-param\x1b[0m: `v` of `sum_g`"), "{err:?}");
    assert_eq!((strip(&out), strip(&err)), (plain_out, plain_err));
}

#[test]
fn no_color_and_clicolor_force_are_honoured() {
    let (_, out, err) = run(&ARGS, &[("CLICOLOR_FORCE", "1")]);
    assert!(escapes(&out) && escapes(&err), "CLICOLOR_FORCE colours a pipe");
    let (_, out, err) = run(&ARGS, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!escapes(&out) && !escapes(&err), "NO_COLOR wins");
    let (_, out, _) = run(&[&["--color", "never"][..], &ARGS].concat(), &[("CLICOLOR_FORCE", "1")]);
    assert!(!escapes(&out), "--color never wins over the environment");
    let (_, out, _) = run(&[&ARGS[..], &["--color", "always"]].concat(), &[("NO_COLOR", "1")]);
    assert!(escapes(&out), "--color always (after the subcommand too) wins over NO_COLOR");
}

#[test]
fn analyze_errors_are_coloured_too() {
    let (code, _, err) = run(&["analyze", "--color", "always", "fixtures/migrate/syntax_error.cl"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("\x1b[1mfixtures/migrate/syntax_error.cl:8:21\x1b[0m: \x1b[1m\x1b[31merror:\x1b[0m"), "{err:?}");
    assert!(err.ends_with("clasp: 0 files analysed, 1 error\n"), "{err:?}");
}
