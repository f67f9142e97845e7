//! Errors a user can act on: one error where the cause is (a missing
//! include, a binary file), every error line placed `file:line:col: error:`,
//! and a summary that counts what happened.

use crate::support::{clasp_in, HELPER_UNIT};

/// A batch of `good.cl` (a helper clasp migrates) and `files` (name, bytes).
fn batch(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.cl"), HELPER_UNIT).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    dir
}

/// The error lines of `stderr` (a line saying `error:` after its place).
fn error_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(" error: ") || l.starts_with("error:")).collect()
}

/// Each error line starts `file:line:col: error:` (or `clasp: error:`, about no file).
fn assert_located(stderr: &str) {
    for line in error_lines(stderr) {
        let Some((place, _)) = line.split_once(": error: ") else { panic!("{line}\n{stderr}") };
        let mut parts = place.rsplitn(3, ':');
        let (col, row, file) = (parts.next(), parts.next(), parts.next());
        let number = |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let placed = number(col) && number(row) && file.is_some_and(|f| !f.is_empty() && !f.starts_with('<'));
        assert!(placed || place == "clasp", "not placed: {line}\n{stderr}");
    }
}

#[test]
fn a_missing_include_is_one_error_at_its_include_line() {
    // Everything after the include uses what the header would declare.
    let unit = b"#include \"absent.h\"\n\nfloat f(__global REAL *p) { return p[0] * SCALE; }\n\
        __kernel void k(__global float *o, __global TYPE *t) { o[0] = f(o) + t[0] + helper(o); }\n";
    let header = b"#define X 1\n#include \"deeper/absent.h\"\nfloat g(__global REAL *p) { return p[0] * SCALE; }\n";
    let indirect = b"#include \"header.h\"\n__kernel void k2(__global float *o) { o[0] = g(o) + UNDECLARED; }\n";
    let dir = batch(&[("missing.cl", unit), ("header.h", header), ("indirect.cl", indirect)]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 2, "{stderr}");
    let errors = error_lines(&stderr);
    assert_eq!(
        errors,
        ["./header.h:2:10: error: 'deeper/absent.h' file not found", "./missing.cl:1:10: error: 'absent.h' file not found"],
        "{stderr}"
    );
    assert!(stderr.contains("2 unanalysable, 2 errors"), "{stderr}");
    assert!(String::from_utf8_lossy(&stdout).contains("+++ b/good.cl"), "the batch goes on");
}

#[test]
fn a_binary_file_is_one_error_at_its_start() {
    // Deterministic noise with no NUL in its first bytes (a NUL comes later).
    let mut state = 0x2545_f491_u32;
    let noise: Vec<u8> = (0..3000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8 | 1
        })
        .chain([0u8; 4])
        .collect();
    let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0>\0\x01\0\0\0";
    let dir = batch(&[("noise.cl", &noise), ("object.cl", elf)]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 2, "{stderr}");
    let errors = error_lines(&stderr);
    assert_eq!(errors.len(), 2, "{stderr}");
    let controls = noise.iter().filter(|b| is_control(**b)).count();
    let expected = format!(
        "./noise.cl:1:1: error: not a text file ({}; {controls} of its first {} bytes are control bytes)",
        first_control(&noise),
        noise.len()
    );
    assert_eq!(errors[0], expected, "{stderr}");
    assert!(errors[1].starts_with("./object.cl:1:1: error: not a text file (control byte 0x7f at offset 0;"), "{stderr}");
    assert!(!stderr.contains("command line"), "{stderr}");
    assert!(String::from_utf8_lossy(&stdout).contains("+++ b/good.cl"), "the batch goes on");
    assert_eq!(std::fs::read(dir.path().join("noise.cl")).unwrap(), noise);
}

/// A control byte, as the README counts them: C0 but tab, line feed, vertical tab, form feed, carriage return, escape; DEL.
fn is_control(b: u8) -> bool {
    matches!(b, 0..=8 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f)
}

/// How the error names the first control byte of `bytes`.
fn first_control(bytes: &[u8]) -> String {
    let at = bytes.iter().position(|b| is_control(*b)).unwrap();
    match bytes[at] {
        0 => format!("NUL byte at offset {at}"),
        b => format!("control byte 0x{b:02x} at offset {at}"),
    }
}

#[test]
fn every_error_line_is_placed() {
    // Clang's error limit: more errors than it reports, then "too many errors emitted".
    let many: String = (0..30).map(|i| format!("int f{i}(void) {{ return undeclared_{i}; }}\n")).collect();
    let dir = batch(&[("many.cl", many.as_bytes())]);
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert_located(&stderr);
    assert!(stderr.contains(": error: too many errors emitted, stopping now"), "{stderr}");
    // The options' own errors: a bad -D, a missing -include file.
    for (options, message) in [
        (&["-D1X"][..], "./good.cl:1:1: error: <command line>: macro name must be an identifier"),
        (&["-include", "nosuch.h"][..], "./good.cl:1:1: error: <command line>: 'nosuch.h' file not found"),
    ] {
        let dir = batch(&[]);
        let mut args = vec!["migrate", "-q", "."];
        args.extend(options);
        let (code, _, stderr) = clasp_in(dir.path(), &args);
        assert_eq!(code, 2, "{stderr}");
        assert_located(&stderr);
        assert_eq!(error_lines(&stderr), [message], "{stderr}");
    }
    // In JSON too.
    let (_, json, _) = clasp_in(dir.path(), &["migrate", "-q", "--json", "-D1X", "."]);
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(report["errors"][0]["message"], "./good.cl:1:1: error: <command line>: macro name must be an identifier");
}

#[test]
fn a_file_not_written_is_not_counted_as_migrated() {
    let dir = batch(&[("locked.cl", HELPER_UNIT.as_bytes())]);
    let locked = dir.path().join("locked.cl");
    let mut permissions = std::fs::metadata(&locked).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&locked, permissions).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-q", "--write", "--no-cache", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("./locked.cl:1:1: error: is read-only; not written"), "{stderr}");
    assert!(stderr.contains("1 function migrated (verified), 1 not written,"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), HELPER_UNIT);
}

#[test]
fn a_file_failing_in_two_configurations_is_one_unanalysable_file() {
    // clang's own crash, in each of two configurations: the supervisor takes each unit out.
    let crashing = b"kernel void k(global int *p) { p[0] = 1; }\n#pragma clang __debug crash\n";
    let dir = batch(&[("crash.cl", crashing)]);
    let config = "[[configuration]]\nname = \"a\"\noptions = [\"-DA\"]\n\n[[configuration]]\nname = \"b\"\noptions = [\"-DB\"]\n";
    std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-q", "--no-cache", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("./crash.cl: note: in configuration `a`") && stderr.contains("in configuration `b`"), "{stderr}");
    assert!(
        stderr.contains("2 files, 1 function would migrate (verified), 0 refused, 1 unchanged, 1 unanalysable, 2 errors"),
        "{stderr}"
    );
}
