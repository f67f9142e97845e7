//! A big `[[program]]` (a renderer's megakernel assembled from many parts,
//! `scripts/gen_big_program.py`, here a small instance of it): its changed
//! helpers are proven function by function, composing through their
//! callees, and the kernels call them; a change whose proof needs the
//! fallback comparison of whole kernels is refused as `proof-too-large`
//! when `--proof-limit` is below what that costs, the rest kept.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// A generated program of about `lines` lines in a fresh directory (the
/// benchmark's generator; python3 must be installed, as for scripts/bench).
fn generated(lines: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen_big_program.py");
    let status = Command::new("python3")
        .arg(&script)
        .arg(dir.path())
        .args(["--lines", &lines.to_string(), "--seed", "7"])
        .status()
        .expect("python3 runs scripts/gen_big_program.py");
    assert!(status.success());
    dir
}

/// `clasp migrate --json` over the program (one core; pointer subtraction's
/// pin ignored, so `m001_span_g` becomes generic and only a whole-kernel
/// comparison could judge it), with `extra` options: the report, with the
/// stages' timings and counts (`CLASP_TIMINGS`).
fn migrate(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let args = [&["migrate", "-j1", "--json", "--no-cache", "--test-ignore-pin", "pointer-to-integer"], extra, &["."]].concat();
    let output = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(&args)
        .current_dir(dir)
        .env("CLASP_TIMINGS", "1")
        .output()
        .expect("run clasp");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// How many times a stage of the report's timings ran (0 when it never did).
fn calls(report: &serde_json::Value, stage: &str) -> u64 {
    let timings = report["timings"].as_array().expect("timings with CLASP_TIMINGS");
    timings.iter().find(|t| t["stage"] == stage).map_or(0, |t| t["calls"].as_u64().unwrap())
}

/// Functions by status and reason (`migrated`, `refused proof-too-large`, ...).
fn outcomes(report: &serde_json::Value) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in report["functions"].as_array().unwrap() {
        let key = [f["status"].as_str(), f["reason"].as_str()].into_iter().flatten().collect::<Vec<_>>().join(" ");
        out.entry(key).or_default().push(f["name"].as_str().unwrap().to_string());
    }
    out
}

#[test]
fn a_megakernel_program_is_proven_function_by_function_and_the_fallback_is_bounded() {
    let dir = generated(3000);
    let report = migrate(dir.path(), &[]);
    let proofs = report["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 1, "{proofs:?}");
    assert_eq!(proofs[0]["unit"], "program `megakernel`");
    assert_eq!(proofs[0]["method"], "functions");
    let proven: Vec<&str> = proofs[0]["functions"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    // Composed through callees: a chain's top is proven with its lower links called as proven.
    for chained in ["m001_chain0_g_0", "m001_chain0_g_2", "m001_chain0_l_2"] {
        assert!(proven.contains(&chained), "{chained} not in {proven:?}");
    }
    let by_outcome = outcomes(&report);
    assert!(by_outcome["migrated"].len() > 250, "{by_outcome:?}");
    // Pointer subtraction (its pin ignored): `end` made generic differs once inlined, the
    // whole kernels judged it (`p` alone is proven; the function is partly migrated).
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("change withdrawn (not-equivalent): `m001_span_g`"), "{warnings}");
    assert!(!warnings.contains("proof-too-large"), "{warnings}");
    // The set whose function's own proof failed is the suspect: the others,
    // all proven, are kept in one check, so whole kernels are compared once,
    // by the check that found the difference, not again for each half of a
    // bisection.
    assert_eq!(calls(&report, "verify: pipeline, all inlined"), 1, "{}", report["timings"]);
    assert!(calls(&report, "verify: pipeline") <= 6, "{}", report["timings"]);

    // Bounded below what whole kernels cost but above the kernels calling proven helpers:
    // the change needing the fallback is refused with the code, every other change stands.
    let bounded = migrate(dir.path(), &["--proof-limit", "5000"]);
    assert_eq!(outcomes(&bounded), by_outcome);
    assert_eq!(bounded["proofs"], report["proofs"]);
    let warnings = bounded["warnings"].to_string();
    assert!(warnings.contains("change withdrawn (proof-too-large): `m001_span_g`"), "{warnings}");
    assert!(warnings.contains("over the limit of 5000 (--proof-limit)"), "{warnings}");
    assert!(!warnings.contains("not-equivalent"), "{warnings}");
}
