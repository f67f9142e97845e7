//! End-to-end tests of the built `clasp` binary: exit codes, error
//! messages, and a batch that goes on past a broken file.

use std::path::Path;
use std::process::Command;

fn clasp(args: &[&str]) -> (i32, String, String) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_clasp")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run clasp");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn analyze_clean_file_exits_zero() {
    let (code, stdout, stderr) = clasp(&["analyze", "fixtures/analyze/helpers_per_space.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("function sum_g"), "{stdout}");
    assert!(stderr.contains("1 file analysed, 0 errors"), "{stderr}");
}

#[test]
fn broken_file_in_the_middle_of_a_batch() {
    let (code, stdout, stderr) =
        clasp(&["analyze", "fixtures/analyze/atomics.cl", "fixtures/analyze/broken.cl", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 2);
    // The error names file, line and column; the files around it are still analysed.
    assert!(stderr.contains("fixtures/analyze/broken.cl:10:32: error:"), "{stderr}");
    assert!(stdout.contains("fixtures/analyze/atomics.cl\n"), "{stdout}");
    assert!(stdout.contains("fixtures/analyze/flows.cl\n"), "{stdout}");
    assert!(!stdout.contains("broken.cl"), "{stdout}");
    assert!(stderr.contains("2 files analysed, 1 error"), "{stderr}");
}

#[test]
fn missing_paths_and_binary_files_are_errors() {
    let (code, _, stderr) = clasp(&["analyze", "fixtures/analyze/no_such.cl", "fixtures/analyze/flows.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("fixtures/analyze/no_such.cl: error: no such file or directory"), "{stderr}");

    // Files are read as bytes (a Latin-1 comment is fine): binary junk is
    // clang's to reject, with its position.
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("binary.cl");
    std::fs::write(&binary, [0xffu8, 0xfe, 0x00, 0x01]).unwrap();
    let (code, _, stderr) = clasp(&["analyze", binary.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("binary.cl:1:1: error: source file is not valid UTF-8"), "{stderr}");
}

#[test]
fn missing_clang_is_a_clear_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["analyze", "fixtures/analyze/flows.cl"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CLASP_CLANG", "/nonexistent/clang-19")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("cannot run /nonexistent/clang-19"), "{stderr}");
}

#[test]
fn usage_errors_exit_two() {
    let (code, _, stderr) = clasp(&["analyze"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("PATH"), "{stderr}");
    let (code, _, stderr) = clasp(&["analyze", "--std", "CL9.9", "x.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown OpenCL C standard"), "{stderr}");
    assert!(Path::new(env!("CARGO_BIN_EXE_clasp")).exists());
}

fn copy_fixture(dir: &Path, name: &str) -> std::path::PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate").join(name);
    let copy = dir.join(name);
    std::fs::copy(&source, &copy).unwrap();
    copy
}

#[test]
fn check_exits_one_when_changes_are_pending_and_zero_when_none() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty(), "--check prints no diff: {stdout}");
    let (code, _, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/already_generic.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2);
}

#[test]
fn write_applies_in_place_keeps_permissions_and_then_nothing_is_pending() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("void scale_elem(float *e, float s)"), "{text}");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
    let (code, _, stderr) = clasp(&["migrate", "--check", "--std", "CL2.0", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn diff_applies_with_git_apply() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "return_pointer.cl");
    let (code, diff, stderr) = clasp(&["migrate", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.starts_with("--- a/"), "{diff}");
    let patch = dir.path().join("p.diff");
    // Paths in the diff are as given (absolute here): apply from the root.
    std::fs::write(&patch, &diff).unwrap();
    let status = Command::new("git")
        .args(["apply", "--unsafe-paths", "--directory=/", "-p1", "--check"])
        .arg(&patch)
        .current_dir("/")
        .status()
        .unwrap();
    assert!(status.success(), "git apply rejected:\n{diff}");
}

#[test]
fn a_broken_file_changes_nothing_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let good = copy_fixture(dir.path(), "single_space.cl");
    let bad = copy_fixture(dir.path(), "syntax_error.cl");
    let before = std::fs::read_to_string(&bad).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--write", bad.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("syntax_error.cl:8:21: error: expected ']'"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), before);
    assert!(std::fs::read_to_string(&good).unwrap().contains("void clamp01(float *p, int n)"));
}

#[test]
fn check_exits_two_when_a_file_is_unanalysable() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl", "fixtures/migrate/syntax_error.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains(", 1 unanalysable, 1 error"), "{stderr}");
}

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
    assert!(stderr.contains("1 function migrated (not verified)"), "{stderr}");
}

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
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("migrate_json_accounting", format!("{}\nunanalysable: {unanalysable}", accounts.join("\n")));
    });
}

/// Runs clasp in `dir`; stdout as raw bytes (a diff keeps a file's own encoding).
fn clasp_in(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_clasp")).args(args).current_dir(dir).output().expect("run clasp");
    (output.status.code().unwrap_or(-1), output.stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A kernel that compiles only with the host's options: `defs.h` included
/// first (relative to the current directory, as clang does), `N` defined,
/// and, with `strict`, `-cl-fast-relaxed-math` (its macro) and `-w` (a
/// `#warning` that `-Werror` would turn into an error).
fn host_project(strict: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut defs = String::from("#define GMEM __global\ntypedef float real;\n");
    if strict {
        defs.push_str("#ifndef __FAST_RELAXED_MATH__\n#error needs -cl-fast-relaxed-math\n#endif\n#warning host header\n");
    }
    std::fs::write(dir.path().join("defs.h"), defs).unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "void scale(GMEM real *p, real s) { for (int i = 0; i < N; i++) p[i] *= s; }\n\
         __kernel void run(__global real *a) { scale(a, 2.0f); }\n",
    )
    .unwrap();
    dir
}

#[test]
fn host_build_options_reach_every_compilation() {
    let dir = host_project(false);
    let host = ["-include", "defs.h", "-D", "N=4", "-cl-std=CL1.2", "-cl-mad-enable", "-w"];
    let (code, diff, stderr) = clasp_in(dir.path(), &[&["migrate"][..], &host, &["k.cl"]].concat());
    assert_eq!(code, 0, "{stderr}");
    // Verified: the recompile and both equivalence compiles had the options too.
    assert!(stderr.contains("1 function migrated (verified)"), "{stderr}");
    assert!(String::from_utf8_lossy(&diff).contains("+void scale(real *p, real s)"), "{}", String::from_utf8_lossy(&diff));
    let (code, stdout, stderr) = clasp_in(dir.path(), &[&["analyze", "--json"][..], &host, &["k.cl"]].concat());
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(report["files"][0]["compiles"]["as_input"]["standard"], "CL1.2");

    // Without them, the kernel does not compile; the error names the place.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("k.cl:1:12: error: unknown type name 'GMEM'"), "{stderr}");
    // A missing -include file is clang's error, from the command line.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-include", "nosuch.h", "-DN=4", "k.cl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("<command line>: error: 'nosuch.h' file not found"), "{stderr}");
}

#[test]
fn build_options_string_as_the_host_passes_it() {
    let dir = host_project(true);
    let host = "-include defs.h -DN=4 -I . -cl-fast-relaxed-math -cl-denorms-are-zero -cl-nv-verbose -Werror -w";
    let (code, diff, stderr) = clasp_in(dir.path(), &["migrate", "--build-options", host, "k.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 function migrated (verified)"), "{stderr}");
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

#[test]
fn migrate_again_over_its_own_output_with_no_flags_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    let path = file.to_str().unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--write", path]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = clasp(&["migrate", "--check", path]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    // The output is 2.0 code, read as such; forcing 1.2 shows why.
    let (code, stdout, stderr) = clasp(&["analyze", "--json", path]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["files"][0]["compiles"]["as_input"]["standard"], "CL2.0");
    let (code, stdout, _) = clasp(&["analyze", path]);
    assert_eq!(code, 0);
    assert!(stdout.contains("compiles as CL2.0: yes"), "{stdout}");
    let (code, _, stderr) = clasp(&["migrate", "--check", "--std", "CL1.2", path]);
    assert_eq!(code, 2);
    assert!(stderr.contains("changes address space of pointer"), "{stderr}");
    // 1.2 code is still read as 1.2.
    let (_, stdout, _) = clasp(&["analyze", "fixtures/migrate/chain.cl"]);
    assert!(stdout.contains("compiles as CL1.2: yes"), "{stdout}");
}

/// Applies `--json`'s edits to `original`, independently of clasp's own code.
fn apply_edits(original: &[u8], report: &serde_json::Value) -> Vec<u8> {
    let mut edits: Vec<(usize, usize, String)> = report["changes"][0]["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["edits"].as_array().unwrap().iter())
        .map(|e| {
            (
                e["start"].as_u64().unwrap() as usize,
                e["end"].as_u64().unwrap() as usize,
                e["replacement"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort();
    edits.dedup();
    let mut out = original.to_vec();
    for (start, end, replacement) in edits.into_iter().rev() {
        out.splice(start..end, replacement.into_bytes());
    }
    out
}

#[test]
fn latin1_bytes_are_kept_by_write_and_by_the_diff() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/latin1_comment.cl");
    let original = std::fs::read(&source).unwrap();
    assert!(std::str::from_utf8(&original).is_err(), "the fixture must not be UTF-8");
    let (written, patched) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&written, &patched] {
        std::fs::copy(&source, dir.path().join("latin1.cl")).unwrap();
    }

    let (code, json, stderr) = clasp_in(written.path(), &["migrate", "--json", "latin1.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let expected = apply_edits(&original, &report);
    assert_ne!(expected, original, "the fixture must change");

    let (code, _, stderr) = clasp_in(written.path(), &["migrate", "--write", "latin1.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let after_write = std::fs::read(written.path().join("latin1.cl")).unwrap();
    assert_eq!(after_write, expected, "--write must change the edited bytes only");
    for latin1 in [&b"Caf\xe9,"[..], b"/* \xe9chelle */", b"r\xe9sultat", b"/* \xe0 garder: */ void offset(float *q"] {
        assert!(after_write.windows(latin1.len()).any(|w| w == latin1), "{:?} lost", String::from_utf8_lossy(latin1));
    }

    let (code, diff, stderr) = clasp_in(patched.path(), &["migrate", "latin1.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.windows(4).any(|w| w == b"\xe9che"), "the diff carries the file's own bytes");
    let patch = patched.path().join("p.diff");
    std::fs::write(&patch, &diff).unwrap();
    let status = Command::new("git").args(["apply", "p.diff"]).current_dir(patched.path()).status().unwrap();
    assert!(status.success(), "git apply rejected:\n{}", String::from_utf8_lossy(&diff));
    assert_eq!(std::fs::read(patched.path().join("latin1.cl")).unwrap(), after_write, "git apply of the diff == --write");
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

#[test]
fn configurations_are_checked_and_named() {
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "fixtures/migrate/configurations"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let change = &report["changes"][0];
    assert!(change["path"].as_str().unwrap().ends_with("common.h"));
    assert_eq!(change["configurations"], serde_json::json!(["atomics", "plain"]));
    let refusal = &report["refusals"][0];
    assert_eq!((refusal["function"].as_str(), refusal["reason"].as_str()), (Some("bump"), Some("configuration")));
    assert!(refusal["detail"].as_str().unwrap().contains("[atomics]"), "{refusal}");
    // Without the configurations, the atomics branch is code no unit compiles: skipped-if.
    let (_, stdout, _) = clasp(&["migrate", "--json", "--no-config", "fixtures/migrate/configurations"]);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(report["refusals"][0]["reason"], "skipped-if");
}

#[test]
fn a_bad_config_is_an_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("clasp.toml"),
        "options = [\"-DA=1\"]\n[[configuration]]\nname = \"x\"\noptions = [\"-shiny\"]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("k.cl"), "__kernel void k(__global int *p) { p[0] = A; }\n").unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", dir.path().to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(stderr.contains("clasp.toml:4:") && stderr.contains("-shiny"), "{stderr}");
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
fn json_report_has_time_per_stage() {
    let (code, stdout, stderr) = clasp(&["migrate", "--format", "json", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let stages: Vec<&str> = report["timings"].as_array().unwrap().iter().map(|t| t["stage"].as_str().unwrap()).collect();
    assert!(stages.iter().any(|s| s.starts_with("parse")) && stages.iter().any(|s| s.starts_with("lower")), "{stages:?}");
    assert!(report["timings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["seconds"].as_f64().unwrap() >= 0.0 && t["calls"].as_u64().unwrap() > 0));
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
fn compile_commands_build_each_entry_as_a_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/configurations");
    for name in ["common.h", "histogram.cl", "scale.cl"] {
        std::fs::copy(fixture.join(name), dir.path().join(name)).unwrap();
    }
    // Relative to the list's directory; options as words or as one host string.
    let list = r#"[
        {"file": "histogram.cl", "options": ["-D", "USE_ATOMICS=0"], "configuration": "plain"},
        {"file": "histogram.cl", "options": "-DUSE_ATOMICS=1 -cl-mad-enable"},
        {"file": "scale.cl"}
    ]"#;
    std::fs::write(dir.path().join("commands.json"), list).unwrap();
    let commands = dir.path().join("commands.json");
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(report["files_seen"], 2);
    assert_eq!(report["changes"][0]["configurations"], serde_json::json!(["#2", "plain"]));
    assert_eq!(report["refusals"][0]["reason"], "configuration");
    assert!(report["refusals"][0]["detail"].as_str().unwrap().contains("histogram.cl [#2]"));
    std::fs::write(&commands, r#"[{"file": "scale.cl", "options": ["-fshiny"]}]"#).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("commands.json: error: entry 1") && stderr.contains("-fshiny"), "{stderr}");
}

#[test]
fn analyze_reads_the_project_configurations() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/configurations");
    let (code, stdout, stderr) = clasp(&["analyze", "--json", fixture.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let units: Vec<(String, String)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = f["path"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
            (name, f["configuration"].as_str().unwrap_or("-").to_string())
        })
        .collect();
    let expected = [("histogram.cl", "plain"), ("histogram.cl", "atomics"), ("scale.cl", "plain"), ("scale.cl", "atomics")];
    assert_eq!(units, expected.map(|(f, c)| (f.to_string(), c.to_string())));
    assert!(stderr.contains("clasp: 4 units analysed (2 files), 0 errors"), "{stderr}");
    // The configurations differ where clasp.toml says: `bump` only uses an atomic with USE_ATOMICS=1.
    let builtins = |i: usize| report["files"][i]["functions"].to_string().contains("atomic_inc");
    assert!(!builtins(0) && builtins(1), "{}", report["files"]);
    // The text names the configuration; --no-config reads each file once, with no options.
    let (code, stdout, _) = clasp(&["analyze", fixture.join("scale.cl").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("scale.cl [atomics]"), "{stdout}");
    let (code, stdout, stderr) = clasp(&["analyze", "--no-config", fixture.join("scale.cl").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("scale.cl [") && stderr.contains("clasp: 1 file analysed"), "{stdout}{stderr}");
}

#[test]
fn a_file_that_crashes_clang_while_parsing_is_an_error_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // clang's own test hook: its front end crashes on purpose where it reads this.
    std::fs::write(dir.path().join("a.cl"), "#pragma clang __debug crash\nkernel void k(global int *p) { p[0] = 1; }\n").unwrap();
    std::fs::write(dir.path().join("b.cl"), HELPER_UNIT).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("a.cl: error:"), "{stderr}");
    assert!(stdout.contains("+float first(const float *v)"), "{stdout}");
    assert!(stderr.contains("1 unanalysable, 1 error"), "{stderr}");
}

/// A kernel file with one helper clasp makes generic.
const HELPER_UNIT: &str = "float first(__global const float *v) { return v[0]; }\n__kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n";

#[test]
fn directories_are_walked_as_git_would_see_them() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    for sub in ["a", "gen", "b", ".hidden"] {
        std::fs::create_dir_all(tree.join(sub)).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(tree.join(".gitignore"), "gen/\nskip.cl\n").unwrap();
    std::fs::write(tree.join(".ignore"), "a/old.cl\n").unwrap();
    for file in ["a/k.cl", "a/old.cl", "gen/g.cl", "skip.cl", "b/x.ocl", "b/h.clh", ".hidden/h.cl", "b/t.cl", ".dot.cl"] {
        std::fs::write(tree.join(file), HELPER_UNIT).unwrap();
    }
    std::fs::write(dir.path().join("outside/o.cl"), HELPER_UNIT).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), tree.join("link")).unwrap();
    let taken = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["analyze", "--json"];
        args.extend_from_slice(extra);
        let tree = tree.to_str().unwrap().to_string();
        let args: Vec<&str> = args.into_iter().chain([tree.as_str()]).collect();
        let (code, stdout, stderr) = clasp(&args);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let prefix = format!("{tree}/");
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().trim_start_matches(&prefix).to_string())
            .collect()
    };
    assert_eq!(taken(&[]), ["a/k.cl", "b/t.cl", "b/x.ocl"]);
    assert_eq!(taken(&["--ext", "clh", "--exclude", "b/t.cl"]), ["a/k.cl", "b/h.clh", "b/x.ocl"]);
    assert_eq!(taken(&["--glob", "b/*"]), ["b/t.cl", "b/x.ocl"]);
    // --glob narrows the walk: ignored and hidden files stay out (ripgrep's -g would bring them back).
    assert_eq!(taken(&["--glob", "*.cl"]), ["a/k.cl", "b/t.cl"]);
    assert_eq!(taken(&["--glob", "*"]), ["a/k.cl", "b/t.cl", "b/x.ocl"]);
    // A directory's glob covers the files under it; `!GLOB` takes matches out, alone or after others.
    assert_eq!(taken(&["--glob", "b", "--glob", "!x.ocl"]), ["b/t.cl"]);
    assert_eq!(taken(&["--glob", "!b/**"]), ["a/k.cl"]);
    assert_eq!(taken(&["--exclude", "a", "--exclude", "*.ocl"]), ["b/t.cl"]);
    assert_eq!(taken(&["--follow-links"]), ["a/k.cl", "b/t.cl", "b/x.ocl", "link/o.cl"]);
    // Named on the command line: taken whatever the ignore rules.
    let (code, stdout, _) = clasp(&["analyze", tree.join("skip.cl").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("skip.cl"));
    // A bad glob is an error, not a glob that matches nothing.
    let (code, _, stderr) = clasp(&["analyze", "--glob", "k[1.cl", tree.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad --glob `k[1.cl`"), "{stderr}");
    // migrate walks the same way.
    let (code, stdout, stderr) = clasp(&["migrate", "-q", "--exclude", "b/t.cl", tree.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let changed: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("+++ b/")).collect();
    let tree_in_diff = tree.to_str().unwrap().trim_start_matches('/');
    assert_eq!(changed, [format!("{tree_in_diff}/a/k.cl"), format!("{tree_in_diff}/b/x.ocl")], "{stdout}");
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("git").arg("-C").arg(dir).args(args).status().expect("git");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn write_refuses_files_with_uncommitted_changes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    git(repo, &["config", "user.email", "ci@example.invalid"]);
    git(repo, &["config", "user.name", "ci"]);
    std::fs::write(repo.join("clean.cl"), HELPER_UNIT).unwrap();
    std::fs::write(repo.join("dirty.cl"), HELPER_UNIT).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", "kernels"]);
    let edited = format!("// edited\n{HELPER_UNIT}");
    std::fs::write(repo.join("dirty.cl"), &edited).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--write", repo.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("uncommitted changes") && stderr.contains("dirty.cl") && !stderr.contains("clean.cl"), "{stderr}");
    // Nothing written, not even the clean file.
    assert_eq!(std::fs::read_to_string(repo.join("dirty.cl")).unwrap(), edited);
    assert_eq!(std::fs::read_to_string(repo.join("clean.cl")).unwrap(), HELPER_UNIT);
    // The clean file alone is written.
    let (code, _, stderr) = clasp(&["migrate", "--write", repo.join("clean.cl").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read_to_string(repo.join("clean.cl")).unwrap().contains("float first(const float *v)"));
    // --allow-dirty writes the edited one too.
    let (code, _, stderr) = clasp(&["migrate", "--write", "--allow-dirty", repo.join("dirty.cl").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let written = std::fs::read_to_string(repo.join("dirty.cl")).unwrap();
    assert!(written.starts_with("// edited\n") && written.contains("float first(const float *v)"), "{written}");
}

/// A repository in `dir` with `files` committed, each holding `HELPER_UNIT`.
fn repository(dir: &Path, files: &[&str]) {
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.email", "ci@example.invalid"]);
    git(dir, &["config", "user.name", "ci"]);
    for file in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, HELPER_UNIT).unwrap();
    }
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "kernels"]);
}

#[test]
fn write_refuses_staged_untracked_and_renamed_files() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    repository(repo, &["clean.cl", "k.cl", "oldk.cl", "staged.cl"]);
    std::fs::write(repo.join("staged.cl"), format!("// staged\n{HELPER_UNIT}")).unwrap();
    git(repo, &["add", "staged.cl"]);
    std::fs::write(repo.join("untracked.cl"), HELPER_UNIT).unwrap();
    // A staged rename whose source is written again (untracked) is listed as
    // `R  moved.cl\0oldk.cl\0?? oldk.cl\0`: the source is no entry of its own (read as one
    // after its 3-byte `XY ` prefix, it would be `k.cl`, which is clean).
    git(repo, &["mv", "oldk.cl", "moved.cl"]);
    std::fs::write(repo.join("oldk.cl"), HELPER_UNIT).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--write", repo.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    let listed: Vec<&str> = stderr.lines().filter_map(|l| l.strip_prefix("  ")).collect();
    let expected: Vec<String> =
        ["moved.cl", "oldk.cl", "staged.cl", "untracked.cl"].iter().map(|f| repo.join(f).display().to_string()).collect();
    assert_eq!(listed, expected, "{stderr}");
    for file in ["clean.cl", "k.cl", "moved.cl", "oldk.cl", "untracked.cl"] {
        assert_eq!(std::fs::read_to_string(repo.join(file)).unwrap(), HELPER_UNIT, "{file} written");
    }
}

#[test]
fn write_refuses_when_git_cannot_read_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    repository(&repo, &["k.cl"]);
    // A git that refuses the repository, as git does one owned by another user: not a clean tree.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("git");
    std::fs::write(&fake, "#!/bin/sh\necho 'fatal: detected dubious ownership in repository' >&2\nexit 128\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_clasp")).args(args).env("PATH", &path).output().expect("run clasp");
        (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let file = repo.join("k.cl");
    let (code, stderr) = run(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot tell whether") && stderr.contains("dubious ownership"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), HELPER_UNIT);
    // --allow-dirty does not ask git.
    let (code, stderr) = run(&["migrate", "--write", "--allow-dirty", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read_to_string(&file).unwrap().contains("float first(const float *v)"));
    // Outside any repository (an empty `.git` marking a root is none), the same git is never an obstacle.
    std::fs::create_dir_all(dir.path().join("marked/.git")).unwrap();
    for plain in [dir.path().join("plain.cl"), dir.path().join("marked/plain.cl")] {
        std::fs::write(&plain, HELPER_UNIT).unwrap();
        let (code, stderr) = run(&["migrate", "--write", plain.to_str().unwrap()]);
        assert_eq!(code, 0, "{stderr}");
        assert!(std::fs::read_to_string(&plain).unwrap().contains("float first(const float *v)"));
    }
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
    assert!(!stdout.contains("---") && stderr.contains("1 program-scope variable given a new space"), "{stderr}");
    // Exit codes are those of the run: 1 with --check when changes are pending.
    let (code, stdout, stderr) = clasp(&["migrate", "-q", "--statistics", "--check", "fixtures/migrate/header_conflict"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "    1  generic-param    fixed\n    1  header-conflict  refused\n");
}
