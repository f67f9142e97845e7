//! The lint `residual-generic`: kernels whose kept result still accesses
//! memory through generic pointers, in `--format json` (read back as
//! `clasp run-check` reads it), `--explain` and `clasp rule`.

use std::collections::BTreeMap;

use clasp::output::residual::{residual_generic_by_kernel, ResidualKernel};

use crate::support::{clasp, clasp_in};

/// `clasp migrate --format json` over `args` (run in `dir`, or the crate
/// root): the report and the per-kernel map `clasp run-check` reads from it.
fn report_in(dir: Option<&std::path::Path>, args: &[&str]) -> (serde_json::Value, BTreeMap<String, ResidualKernel>) {
    let argv = [&["migrate", "--format", "json"], args].concat();
    let (code, stdout, stderr) = match dir {
        Some(dir) => {
            let (code, stdout, stderr) = clasp_in(dir, &argv);
            (code, String::from_utf8(stdout).unwrap(), stderr)
        }
        None => clasp(&argv),
    };
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let by_kernel = residual_generic_by_kernel(&report);
    (report, by_kernel)
}

#[test]
fn a_merged_helper_kept_out_of_line_leaves_generic_accesses_in_its_kernel() {
    let fixture = "fixtures/migrate/residual_generic_noinline.cl";
    let (report, by_kernel) = report_in(None, &[fixture]);
    assert_eq!(
        report["residual_generic"],
        serde_json::json!([{
            "unit": fixture, "path": fixture, "line": 19, "col": 15, "kernel": "smooth",
            "accesses": 4, "original": 0, "detail": "2 loads, 2 stores in out-of-line `scale` over its 2 calls",
        }])
    );
    // `copy` calls only `peek`, which is inlined and inferred: not listed.
    assert_eq!(by_kernel.keys().collect::<Vec<_>>(), ["smooth"]);
    assert_eq!(
        (by_kernel["smooth"].accesses, by_kernel["smooth"].at.as_str()),
        (4, "fixtures/migrate/residual_generic_noinline.cl:19:15")
    );
    let (code, diff, stderr) = clasp(&["migrate", "--explain", fixture]);
    assert_eq!(code, 0, "{stderr}");
    let line = stderr.lines().find(|l| l.contains(": residual-generic: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        line,
        "fixtures/migrate/residual_generic_noinline.cl:19:15: residual-generic: kernel `smooth` (fixtures/migrate/residual_generic_noinline.cl): \
         4 memory accesses through generic pointers, 0 before: 2 loads, 2 stores in out-of-line `scale` over its 2 calls"
    );
    // SARIF: a note at the kernel, under a rule described from the registry.
    let (code, sarif, stderr) = clasp(&["migrate", "--format", "sarif", fixture]);
    assert_eq!(code, 0, "{stderr}");
    let run = &serde_json::from_str::<serde_json::Value>(&sarif).unwrap()["runs"][0];
    let result =
        run["results"].as_array().unwrap().iter().find(|r| r["ruleId"] == "residual-generic").expect("a residual-generic result");
    assert_eq!(
        (result["level"].as_str(), result["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64()),
        (Some("note"), Some(19))
    );
    assert!(run["tool"]["driver"]["rules"].as_array().unwrap().iter().any(|r| r["id"] == "residual-generic"));
    // The diff is only the diff: nothing of the lint is printed on stdout.
    assert!(diff.starts_with("--- a/"), "{diff}");
    let diff_line = |l: &&str| ["--- ", "+++ ", "@@ ", " ", "+", "-"].iter().any(|p| l.starts_with(p)) || l.is_empty();
    assert!(diff.lines().all(|l| diff_line(&l)), "{diff}");
}

#[test]
fn the_same_helpers_inlined_leave_nothing_generic() {
    let (report, by_kernel) = report_in(None, &["fixtures/migrate/residual_generic_inlined.cl"]);
    assert!(report.get("residual_generic").is_none(), "{report:#}");
    assert!(by_kernel.is_empty());
    assert!(!report["changes"].as_array().unwrap().is_empty(), "the twin is migrated too");
    let (_, _, stderr) = clasp(&["migrate", "--explain", "fixtures/migrate/residual_generic_inlined.cl"]);
    assert!(!stderr.contains("residual-generic") && !stderr.contains("flat (generic)"), "{stderr}");
}

#[test]
fn keeping_the_out_of_line_twins_named_leaves_nothing_generic() {
    // What `clasp rule residual-generic` advises: `// clasp: keep` before each twin's name.
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string("fixtures/migrate/residual_generic_noinline.cl").unwrap();
    let kept = original
        .replace("__attribute__((noinline)) void scale_g", "// clasp: keep\n__attribute__((noinline)) void scale_g")
        .replace("__attribute__((noinline)) void scale_l", "// clasp: keep\n__attribute__((noinline)) void scale_l");
    assert_ne!(kept, original);
    std::fs::write(dir.path().join("kept.cl"), kept).unwrap();
    let (report, by_kernel) = report_in(Some(dir.path()), &["kept.cl"]);
    assert!(by_kernel.is_empty(), "{report:#}");
    // `peek` still migrates; the twins are refused as suppressed.
    let fixes: Vec<&str> =
        report["changes"][0]["fixes"].as_array().unwrap().iter().map(|f| f["function"].as_str().unwrap()).collect();
    assert_eq!(fixes, ["peek"]);
}

#[test]
fn one_out_of_line_helper_of_one_space_counts_in_each_kernel_calling_it() {
    // Never merged: `first` is called with __global pointers only, made generic, and kept out of
    // line; each of its callers lists its load. `last` is inlined and `plain` calls neither.
    let dir = tempfile::tempdir().unwrap();
    let source = "__attribute__((noinline)) float first(__global const float *p) { return p[0]; }\n\
                  float last(__global const float *p, int n) { return p[n - 1]; }\n\
                  __kernel void zeta(__global const float *in, __global float *out, int n) { out[0] = first(in) + last(in, n); }\n\
                  __kernel void alpha(__global const float *in, __global float *out) { out[1] = first(in + 4) * 2.0f; }\n\
                  __kernel void plain(__global float *out) { out[2] = 1.0f; }\n";
    std::fs::write(dir.path().join("first.cl"), source).unwrap();
    let (report, by_kernel) = report_in(Some(dir.path()), &["first.cl"]);
    let listed: Vec<(&str, u64, u64)> = (report["residual_generic"].as_array().unwrap().iter())
        .map(|r| (r["kernel"].as_str().unwrap(), r["line"].as_u64().unwrap(), r["accesses"].as_u64().unwrap()))
        .collect();
    // Sorted by unit, then path, place and kernel: deterministic.
    assert_eq!(listed, [("zeta", 3, 1), ("alpha", 4, 1)]);
    assert_eq!(by_kernel.keys().collect::<Vec<_>>(), ["alpha", "zeta"]);
    assert_eq!(by_kernel["alpha"].detail, "1 load in out-of-line `first`");
    // Two runs print the same bytes.
    assert_eq!(report_in(Some(dir.path()), &["first.cl"]).0, report);
}

#[test]
fn rule_residual_generic_explains_the_lint() {
    let (code, text, stderr) = clasp(&["rule", "residual-generic"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.starts_with("residual-generic (lint)\n\n"), "{text}");
    for said in ["What it does", "When it applies", "What to do", "`// clasp: keep`", "noinline", "flat", "clasp run-check"] {
        assert!(text.contains(said), "`clasp rule residual-generic` says {said}:\n{text}");
    }
    let (_, listing, _) = clasp(&["rule"]);
    let lints = listing.split("Lints (notes about a kept result):\n").nth(1).unwrap_or_else(|| panic!("{listing}"));
    assert!(lints.trim_start().starts_with("residual-generic "), "{listing}");
    let (code, json, _) = clasp(&["rule", "residual-generic", "--format", "json"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((doc["code"].as_str(), doc["kind"].as_str()), (Some("residual-generic"), Some("lint")));
}
