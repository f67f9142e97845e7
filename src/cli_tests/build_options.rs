//! The host's build options (flags, `--build-options` strings, options after
//! `--`) reach every compilation; unknown ones are clear errors.

use crate::support::{clasp_in, host_project};

#[test]
fn a_debug_build_option_changes_no_verdict() {
    // `-g` (a host's build options often carry it) adds debug records to both
    // compilations; the equivalence check reads what the kernels compute.
    let dir = host_project(false);
    let host = ["-include", "defs.h", "-D", "N=4"];
    let plain = clasp_in(dir.path(), &[&["migrate"][..], &host, &["k.cl"]].concat());
    let debug = clasp_in(dir.path(), &[&["migrate", "-g"][..], &host, &["k.cl"]].concat());
    assert_eq!(plain.0, 0, "{}", plain.2);
    assert!(debug.2.contains("1 function would migrate (verified)"), "{}", debug.2);
    assert_eq!((debug.0, &debug.1), (plain.0, &plain.1), "{}", debug.2);
}

#[test]
fn host_build_options_reach_every_compilation() {
    let dir = host_project(false);
    let host = ["-include", "defs.h", "-D", "N=4", "-cl-std=CL1.2", "-cl-mad-enable", "-w"];
    let (code, diff, stderr) = clasp_in(dir.path(), &[&["migrate"][..], &host, &["k.cl"]].concat());
    assert_eq!(code, 0, "{stderr}");
    // Verified: the recompile and both equivalence compiles had the options too.
    assert!(stderr.contains("1 function would migrate (verified)"), "{stderr}");
    assert!(String::from_utf8_lossy(&diff).contains("+void scale(real *p, real s)"), "{}", String::from_utf8_lossy(&diff));
    let (code, stdout, stderr) = clasp_in(dir.path(), &[&["analyze", "--json"][..], &host, &["k.cl"]].concat());
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(report["files"][0]["compiles"]["as_input"]["standard"], "CL1.2");

    // Without them, the kernel does not compile; the error names the place.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("k.cl:1:12: error: unknown type name 'GMEM'"), "{stderr}");
    // A missing -include file is clang's error, from the command line, placed at the unit's start.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-include", "nosuch.h", "-DN=4", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("k.cl:1:1: error: <command line>: 'nosuch.h' file not found"), "{stderr}");
}

#[test]
fn build_options_string_as_the_host_passes_it() {
    let dir = host_project(true);
    let host = "-include defs.h -DN=4 -I . -cl-fast-relaxed-math -cl-denorms-are-zero -cl-nv-verbose -Werror -w";
    let (code, diff, stderr) = clasp_in(dir.path(), &["migrate", "--build-options", host, "k.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 function would migrate (verified)"), "{stderr}");
    assert!(stderr.contains("clasp: note: ignoring build option `-cl-nv-verbose`: clang does not accept it"), "{stderr}");
    assert!(!diff.is_empty());
    // -Werror without -w: the header's #warning is an error, so -Werror reached clang.
    let (code, _, stderr) =
        clasp_in(dir.path(), &["migrate", "--build-options", "-include defs.h -DN=4 -cl-fast-relaxed-math -Werror", "k.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("error: host header"), "{stderr}");
    // Other clang options after `--`, as clang takes them.
    let (code, _, stderr) = clasp_in(
        dir.path(),
        &["migrate", "--build-options", "-include defs.h -DN=4 -w", "k.cl", "--", "-cl-fast-relaxed-math", "-fno-builtin"],
    );
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn unknown_options_are_clear_errors() {
    let dir = host_project(false);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-fno-builtin", "k.cl"]);
    assert_eq!((code, stdout.as_slice()), (2, &b""[..]));
    assert!(stderr.contains("clasp: error: unknown option `-fno-builtin`; other clang options go after `--`"), "{stderr}");
    let (code, _, stderr) = clasp_in(dir.path(), &["analyze", "--build-options", "-DN=4 -O3", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown build option `-O3` in --build-options `-DN=4 -O3`"), "{stderr}");
    let (code, _, stderr) = clasp_in(dir.path(), &["analyze", "--build-options", "-D 'N=4", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unbalanced quotes"), "{stderr}");
    let (code, _, stderr) = clasp_in(dir.path(), &["analyze", "-cl-std=CLC++", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown OpenCL C standard `CLC++`"), "{stderr}");
}

/// A vendor option (`-cl-nv-verbose`) is ignored with a note wherever it is
/// given: on the command line, in clasp.toml (at its element), in a
/// `--compile-commands` entry (host code: `host_options.rs`).
#[test]
fn a_vendor_option_is_ignored_with_a_note_wherever_it_is_given() {
    let dir = host_project(false);
    let note = "note: ignoring build option `-cl-nv-verbose`: clang does not accept it";
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-include", "defs.h", "-DN=4", "-cl-nv-verbose", "k.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("clasp: {note}")), "{stderr}");
    std::fs::write(dir.path().join("clasp.toml"), "options = [\"-include\", \"defs.h\", \"-DN=4\", '-cl-nv-verbose']\n").unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "k.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("clasp.toml:1:44: {note}")), "{stderr}");
    assert!(stderr.contains("1 function would migrate (verified)"), "{stderr}");
    let list = r#"[{"file": "k.cl", "options": "-include defs.h -DN=4 -cl-nv-verbose"}]"#;
    std::fs::write(dir.path().join("commands.json"), list).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--compile-commands", "commands.json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("commands.json:1:1: note: entry 1: ignoring build option `-cl-nv-verbose`"), "{stderr}");
}
