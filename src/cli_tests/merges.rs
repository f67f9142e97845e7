//! Merging duplicate helpers and the equivalence check: `--no-merge`, merges
//! in the JSON report, and `--allow-unverified`.

use crate::support::clasp;

#[test]
fn allow_unverified_keeps_a_change_the_equivalence_check_rejects() {
    let fixture = "fixtures/migrate/verify_not_equivalent.cl";
    let pin = ["--test-ignore-pin", "sizeof-pointer"];
    let (code, stdout, stderr) = clasp(&[&["migrate"][..], &pin, &[fixture]].concat());
    assert_eq!((code, stdout.as_str()), (0, ""), "withdrawn by default: {stderr}");
    assert!(stderr.contains("1 refused (1 not-equivalent)"), "{stderr}");

    let (code, stdout, stderr) = clasp(&[&["migrate", "--allow-unverified"][..], &pin, &[fixture]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("+int pointer_bytes(int *slot)"), "{stdout}");
    assert!(stderr.contains("warning: kept unverified: kernel `report` is not equivalent"), "{stderr}");
    assert!(stderr.contains("1 function would migrate (not verified)"), "{stderr}");
}

#[test]
fn no_merge_keeps_every_copy_generic() {
    let fixture = "fixtures/migrate/merge_three_way.cl";
    let (code, stdout, stderr) = clasp(&["migrate", "--no-merge", "--explain", fixture]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("merge-duplicates"), "{stderr}");
    assert!(stdout.contains("+float sum_l(const float *v, int n)"), "{stdout}");
    assert!(!stdout.contains("-float sum_p("), "{stdout}");
    // Without the flag the same file merges: the test can fail.
    let (_, merged, _) = clasp(&["migrate", fixture]);
    assert!(merged.contains("+float sum(const float *v, int n)"), "{merged}");
}

#[test]
fn merges_are_in_the_json_report() {
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "fixtures/migrate/merge_constant_member.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let merges = report["merges"].as_array().unwrap();
    let names: Vec<&str> = merges.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["norm2", "pick", "last"]);
    // The __constant member joins once its table moves: survivor first.
    let members: Vec<&str> = merges[0]["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(members, ["norm2_c", "norm2_g", "norm2_l"]);
    assert_eq!(merges[0]["verified"], true);
    // `last_c` also reads a kernel's __constant parameter: it stays, with why.
    assert_eq!(merges[2]["kept"][0]["name"], "last_c");
    assert!(merges[2]["kept"][0]["why"].as_str().unwrap().contains("cannot move to __global"));
    let fixes = report["changes"][0]["fixes"].as_array().unwrap();
    let rules: Vec<&str> = fixes.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"merge-duplicates"), "{rules:?}");
    // Each move says what it rests on.
    let axis = fixes.iter().find(|f| f["variable"]["name"] == "axis").expect("axis moves");
    assert_eq!(axis["rule"], "constant-to-global");
    assert_eq!(axis["variable"]["because"], "merge");
    assert_eq!(axis["variable"]["size_bytes"], 8);
    assert_eq!(axis["variable"]["budget_bytes"], 65536);
    assert!(axis["variable"]["needed_by"].as_str().unwrap().contains("norm2_c"));
    assert!(fixes.iter().all(|f| f["variable"]["name"] != "bias"), "bias stays __constant");
}

/// A unit that includes the duplicates' header only in code `#if` skips, and
/// calls a member there (by `#ifdef`, `#if defined`, `#if X > 1`): no build
/// of the batch sees that call, so the merge, which would rename it, waits.
#[test]
fn a_member_named_in_skipped_code_of_a_unit_that_does_not_include_it_is_not_merged() {
    let header = "float sum_g(__global const float *v, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }\n\
                  float sum_l(__local const float *v, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }\n";
    let caller = "#include \"common.h\"\n__kernel void a(__global const float *in, __global float *out, __local float *t) {\n\
                  t[0] = in[0];\n barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1);\n}\n";
    for condition in ["#ifdef FAST", "#if defined(FAST) && !defined(SLOW)", "#if WIDTH > 1 /* wide builds */"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("common.h"), header).unwrap();
        std::fs::write(dir.path().join("a.cl"), caller).unwrap();
        let skipped = format!(
            "{condition}\n#include \"common.h\"\n#endif\n__kernel void b(__global const float *in, __global float *out) {{\n\
             {condition}\n out[0] = sum_g(in, 4);\n#else\n out[0] = in[0];\n#endif\n}}\n"
        );
        std::fs::write(dir.path().join("b.cl"), skipped).unwrap();
        let path = dir.path().to_str().unwrap();
        let (code, stdout, stderr) = clasp(&["migrate", "--explain", "--no-cache", "--root", path, path]);
        assert_eq!(code, 0, "{stderr}");
        assert!(!stdout.contains("float sum("), "{stdout}");
        assert!(
            stderr.contains("not merged skipped-if: `sum_g`, `sum_l`: `sum_g` is named in code skipped by #if at "),
            "{stderr}"
        );
        assert!(stderr.contains("b.cl:5, which may include it and call it"), "{stderr}");
    }
}
