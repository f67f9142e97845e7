//! Isolation: a unit that crashes clang or hangs it costs that unit only.
//! The crash is clang's own (`#pragma clang __debug crash`, which clang keeps
//! for testing its crash handling); the hang is a real one (an `#if` whose
//! macros expand to 2^40 terms, which clang would evaluate for hours).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The demo's kernels: helpers clasp migrates and merges.
const DEMO: &[&str] = &["blur.cl", "histogram.cl", "reduce.cl", "stencil.cl"];

fn demo_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in DEMO {
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo").join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// A unit libclang crashes on while parsing it.
const CRASHING: &str = "kernel void k(global int *p) { p[0] = 1; }\n#pragma clang __debug crash\n";

/// A unit whose preprocessing does not end: each macro doubles the last.
fn hanging() -> String {
    let mut text = String::from("#define A0 1+1\n");
    for i in 1..=40 {
        text.push_str(&format!("#define A{i} A{}+A{}\n", i - 1, i - 1));
    }
    text + "#if A40\n#endif\nkernel void k(global int *p) { p[0] = 1; }\n"
}

/// Runs the built binary in `dir`, killing it (and failing) after two minutes.
fn clasp_bounded(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run clasp");
    let reader = |mut stream: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("clasp {args:?} still running after two minutes: the batch hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
    (status.code().unwrap_or(-1), out.join().unwrap(), stderr, started.elapsed())
}

#[test]
fn a_crashing_and_a_hanging_unit_cost_only_themselves_whatever_the_workers() {
    let good = demo_tree();
    let (code, expected, stderr, _) = clasp_bounded(good.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!expected.is_empty());
    let bad = demo_tree();
    std::fs::write(bad.path().join("crash.cl"), CRASHING).unwrap();
    std::fs::write(bad.path().join("hang.cl"), hanging()).unwrap();
    for jobs in ["-j1", "-j2"] {
        let (code, diff, stderr, took) = clasp_bounded(bad.path(), &["migrate", "-q", jobs, "--timeout", "2", "."]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("./crash.cl:1:1: error: clang crashed on this unit (libclang crashed while parsing)"),
            "{stderr}"
        );
        let hung =
            "./hang.cl:1:1: error: parsing took longer than the time limit of 2 s (--timeout); nothing of this unit is written";
        assert!(stderr.contains(hung), "{stderr}");
        assert!(
            diff == expected,
            "{jobs}: the good files are not migrated as without the bad ones:\n{}",
            String::from_utf8_lossy(&diff)
        );
        assert!(took < Duration::from_secs(60), "{jobs}: {took:?}");
    }
}

#[test]
fn with_write_the_good_files_are_written_and_the_faulty_ones_left_alone() {
    let dir = demo_tree();
    std::fs::write(dir.path().join("crash.cl"), CRASHING).unwrap();
    std::fs::write(dir.path().join("hang.cl"), hanging()).unwrap();
    let before = std::fs::read(dir.path().join("reduce.cl")).unwrap();
    let (code, _, stderr, _) = clasp_bounded(dir.path(), &["migrate", "-q", "--write", "--timeout", "2", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert_ne!(std::fs::read(dir.path().join("reduce.cl")).unwrap(), before, "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.path().join("crash.cl")).unwrap(), CRASHING);
    assert_eq!(std::fs::read_to_string(dir.path().join("hang.cl")).unwrap(), hanging());
    // Nothing of the workers is left beside the files (the cache of verdicts is kept on purpose).
    let names = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap());
    let mut names: Vec<String> = names.filter(|name| name != ".clasp_cache").collect();
    names.sort();
    assert_eq!(names, ["blur.cl", "crash.cl", "hang.cl", "histogram.cl", "reduce.cl", "stencil.cl"]);
}

#[test]
fn a_crash_in_verification_only_costs_its_unit() {
    // Parsed and lowered for spir64 without trouble; clang crashes when verification compiles it for amdgcn.
    let dir = demo_tree();
    let mut text = String::from("float first(__global const float *v) { return v[0]; }\n");
    text.push_str("kernel void k(global const float *in, global float *out) { out[0] = first(in); }\n");
    text.push_str("#if defined(__AMDGCN__)\n#pragma clang __debug crash\n#endif\n");
    std::fs::write(dir.path().join("late.cl"), text).unwrap();
    let (code, _, stderr, _) = clasp_bounded(dir.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("./late.cl:1:1: error: clang crashed on this unit (clang crashed while compiling it)"), "{stderr}");
    assert!(stderr.contains("7 functions would migrate (verified)"), "{stderr}");
}

#[test]
fn the_time_limit_comes_from_clasp_toml_too_and_analyze_is_isolated() {
    let dir = demo_tree();
    std::fs::write(dir.path().join("hang.cl"), hanging()).unwrap();
    std::fs::write(dir.path().join("crash.cl"), CRASHING).unwrap();
    std::fs::write(dir.path().join("clasp.toml"), "timeout = 2\n").unwrap();
    let (code, stdout, stderr, _) = clasp_bounded(dir.path(), &["analyze", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("./hang.cl:1:1: error: parsing took longer than the time limit of 2 s"), "{stderr}");
    assert!(stderr.contains("./crash.cl:1:1: error: clang crashed on this unit"), "{stderr}");
    assert!(stderr.contains("clasp: 4 files analysed, 2 errors"), "{stderr}");
    // Each good unit's report once, though the batch ran three times.
    let text = String::from_utf8_lossy(&stdout);
    assert_eq!(
        text.matches("reduce.cl").count(),
        String::from_utf8_lossy(&clasp_bounded(dir.path(), &["analyze", "reduce.cl"]).1).matches("reduce.cl").count(),
        "{text}"
    );
    std::fs::write(dir.path().join("clasp.toml"), "timeout = 0\n").unwrap();
    let (code, _, stderr, _) = clasp_bounded(dir.path(), &["analyze", "reduce.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("clasp.toml:1:11: error: the time limit must be at least 1 second"), "{stderr}");
}

#[test]
fn a_colour_option_before_the_subcommand_keeps_the_batch_isolated() {
    let dir = demo_tree();
    std::fs::write(dir.path().join("crash.cl"), CRASHING).unwrap();
    for colour in [&["--color", "never"][..], &["--color=never"]] {
        let (code, diff, stderr, _) = clasp_bounded(dir.path(), &[colour, &["migrate", "-q", "."]].concat());
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("./crash.cl:1:1: error: clang crashed on this unit"), "{stderr}");
        assert!(!diff.is_empty(), "the good files are migrated: {stderr}");
    }
}
