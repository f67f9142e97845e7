//! The machine-readable and summary outputs: the JSON accounting, SARIF,
//! timings, statistics, and no progress bar on a pipe.

use crate::support::clasp;

#[test]
fn json_accounts_for_every_function() {
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "fixtures/demo", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let accounts: Vec<String> = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let reason = f["reason"].as_str().map(|r| format!(" ({r})")).unwrap_or_default();
            let verified = f["verified"].as_bool().map(|v| format!(" verified={v}")).unwrap_or_default();
            format!(
                "{}:{} {} {}{reason}{verified}",
                f["file"].as_str().unwrap(),
                f["line"],
                f["name"].as_str().unwrap(),
                f["status"].as_str().unwrap()
            )
        })
        .collect();
    let unanalysable = report["unanalysable"].clone();
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("migrate_json_accounting", format!("{}\nunanalysable: {unanalysable}", accounts.join("\n")));
    });
}

#[test]
fn sarif_lists_every_fix_and_refusal_with_its_edits() {
    let (code, stdout, stderr) = clasp(&["migrate", "--format", "sarif", "fixtures/migrate/configurations"]);
    assert_eq!(code, 0, "{stderr}");
    let log: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "clasp");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    let results = run["results"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["ruleId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["generic-param", "refused/configuration"]);
    assert!(ids.iter().all(|id| rules.contains(id)), "{rules:?}");
    // The fix's edit, as a byte range of the original file: applying it gives the migrated text.
    let change = &results[0]["fixes"][0]["artifactChanges"][0];
    let path = change["artifactLocation"]["uri"].as_str().unwrap();
    let mut text = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let replacement = &change["replacements"][0];
    let start = replacement["deletedRegion"]["byteOffset"].as_u64().unwrap() as usize;
    let len = replacement["deletedRegion"]["byteLength"].as_u64().unwrap() as usize;
    text.splice(start..start + len, replacement["insertedContent"]["text"].as_str().unwrap().bytes());
    assert!(String::from_utf8(text).unwrap().contains("float sum_tile(const float *v)"));
}

#[test]
fn json_report_has_time_per_stage_with_timings() {
    let started = std::time::Instant::now();
    // --no-cache: a unit read back from the store is neither parsed nor lowered.
    let (code, stdout, stderr) = clasp(&["migrate", "--format", "json", "--timings", "--no-cache", "fixtures/migrate/chain.cl"]);
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let timings = report["timings"].as_array().unwrap();
    let stages: Vec<&str> = timings.iter().map(|t| t["stage"].as_str().unwrap()).collect();
    assert!(stages.iter().any(|s| s.starts_with("parse")) && stages.iter().any(|s| s.starts_with("lower")), "{stages:?}");
    assert!(stages.windows(2).all(|w| w[0] < w[1]), "one entry per stage, sorted: {stages:?}");
    for timing in timings {
        // Measured, not made up: every timed stage took some time, and less than the whole process.
        let seconds = timing["seconds"].as_f64().unwrap();
        assert!(seconds > 0.0 && seconds < wall, "{timing} (the process took {wall:.3} s)");
        assert!(timing["calls"].as_u64().unwrap() > 0, "{timing}");
        // The same figure the human-readable line on stderr gives.
        let line = format!("clasp: time: {}: {seconds:.3} s in {} calls", timing["stage"].as_str().unwrap(), timing["calls"]);
        assert!(stderr.contains(&line), "{line} not in:\n{stderr}");
    }
}

#[test]
fn json_is_the_same_in_every_run_and_starts_with_its_version() {
    let args = ["migrate", "--json", "fixtures/demo", "fixtures/migrate/configurations"];
    let (code, first, stderr) = clasp(&args);
    assert_eq!(code, 0, "{stderr}");
    let (_, second, _) = clasp(&args);
    assert_eq!(first, second, "two runs print the same JSON");
    assert!(
        first
            .starts_with(&format!("{{\n  \"version\": {{\n    \"format\": 1,\n    \"clasp\": \"{}\"", env!("CARGO_PKG_VERSION"))),
        "{first}"
    );
    let report: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert!(report.get("timings").is_none() && report["changes"].as_array().is_some_and(|c| !c.is_empty()));
    let (_, analyzed, _) = clasp(&["analyze", "--json", "fixtures/analyze/flows.cl"]);
    let analyzed: serde_json::Value = serde_json::from_str(&analyzed).unwrap();
    assert_eq!(analyzed["version"]["format"], 1);
}

#[test]
fn no_progress_bar_when_stderr_is_piped() {
    let (code, _, stderr) = clasp(&["migrate", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("loading") && !stderr.contains("verifying") && !stderr.contains('\r'), "{stderr}");
    let (code, _, stderr) = clasp(&["migrate", "-q", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn statistics_count_each_change_once_by_code() {
    // A table in a shared header moves in both programs (two fixes, one declaration); the batch
    // has every kind of row: fixed, refused, not merged, withdrawn (blocker_in_header's unit is an error).
    let (code, stdout, stderr) = clasp(&[
        "migrate",
        "-q",
        "--statistics",
        "--constant-budget",
        "400",
        "fixtures/migrate/globals_shared_header",
        "fixtures/migrate/blocker_in_header",
        "fixtures/migrate/merge_declared_elsewhere",
        "fixtures/migrate/header_conflict",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stdout,
        "    3  generic-param       fixed
    1  constant-to-global  fixed
    1  declared-elsewhere  not merged
    1  header-conflict     refused
    1  hidden-qualifier    refused
    1  unrepairable-unit   withdrawn
"
    );
    assert!(!stdout.contains("---") && stderr.contains("1 program-scope variable would get a new space"), "{stderr}");
    // Exit codes are those of the run: 1 with --check when changes are pending.
    let (code, stdout, stderr) = clasp(&["migrate", "-q", "--statistics", "--check", "fixtures/migrate/header_conflict"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "    1  generic-param    fixed\n    1  header-conflict  refused\n");
}

#[test]
fn a_helper_keeping_a_named_parameter_is_partly_migrated_with_each_kept_parameter() {
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "fixtures/migrate/partly_migrated.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let functions = report["functions"].as_array().unwrap();
    let by_name = |name: &str| functions.iter().find(|f| f["name"] == name).unwrap().clone();
    let tally = by_name("tally");
    assert_eq!(tally["status"], "partly-migrated", "{tally}");
    assert_eq!(tally["verified"], true, "{tally}");
    let kept = tally["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "only the parameter that keeps its space: {tally}");
    assert_eq!(kept[0]["name"], "counts");
    assert_eq!(kept[0]["reason"], "builtin-pin");
    assert!(kept[0]["detail"].as_str().unwrap().contains("atomic_inc"), "{tally}");
    // Fully migrated: no named parameter left, and no `kept` list.
    let scale = by_name("scale");
    assert_eq!(scale["status"], "migrated", "{scale}");
    assert!(scale.get("kept").is_none(), "{scale}");
    assert!(stderr.contains("2 functions would migrate (verified), 1 of them partly,"), "{stderr}");
}

/// Every value under a key naming a file (`file`, `path`, `uri`) in a report.
fn named_files(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v.as_str()) {
                    ("file" | "path" | "uri", Some(path)) => out.push(path.to_string()),
                    _ => named_files(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| named_files(v, out)),
        _ => {}
    }
}

#[test]
fn reports_name_files_reached_through_absolute_options_from_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = crate::support::canonical(dir.path());
    std::fs::create_dir(root.join("inc")).unwrap();
    std::fs::write(
        root.join("inc/shared.h"),
        "float pick_g(__global const float *p) { return p[1]; }\nvoid count_g(__global int *c) { atomic_inc(c); }\n",
    )
    .unwrap();
    std::fs::write(
        root.join("main.cl"),
        "__kernel void go(__global const float *a, __global float *b, __global int *c) { b[0] = pick_g(a); count_g(c); }\n",
    )
    .unwrap();
    // As a build script passes them: an absolute -include and an absolute -I.
    let include = root.join("inc/shared.h").display().to_string();
    let search = format!("-I{}", root.join("inc").display());
    for format in ["json", "sarif"] {
        let (code, stdout, stderr) =
            crate::support::clasp_in(&root, &["migrate", "--format", format, "-include", &include, &search, "main.cl"]);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_slice(&stdout).expect("JSON");
        let mut files = Vec::new();
        named_files(&report, &mut files);
        assert!(files.iter().any(|f| f == "inc/shared.h"), "{format}: {files:?}");
        assert!(files.iter().all(|f| f == "inc/shared.h" || f == "main.cl"), "{format}: {files:?}");
    }
}
