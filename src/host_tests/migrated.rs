//! The fixtures after `clasp migrate --write`: the host still builds and
//! runs, the program the driver receives compiles as the driver builds it
//! with the options the host now passes (1.2 where they name no standard),
//! those options ask for 2.0 exactly where clasp changed the program, and a
//! second run changes nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{compile_all_in, copy_tree, fixture_dir, run_host, Recorded};

/// What `clasp` printed and returned.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn clasp(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_clasp")).current_dir(dir).args(args).output().expect("run clasp");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A copy of fixture `name` migrated with `clasp migrate --write -q . EXTRA`:
/// the temporary directory (kept alive), the copy, and clasp's run.
fn migrated(name: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf, Run) {
    let work = tempfile::tempdir().expect("temporary directory");
    let copy = work.path().join(name);
    copy_tree(&fixture_dir(name), &copy);
    let mut args = vec!["migrate", "--write", "-q", "."];
    args.extend_from_slice(extra);
    let run = clasp(&copy, &args);
    (work, copy, run)
}

/// The host of the migrated copy run; every program compiles as its build asks (1.2 where it names no standard).
fn run_migrated_host(copy: &Path) -> Vec<Recorded> {
    let programs = run_host(copy);
    if let Err(e) = compile_all_in(&programs, Some(copy)) {
        panic!("a recorded program does not compile, as its build asks, after migration:\n{e}");
    }
    programs
}

/// A second run finds nothing to change.
fn assert_settled(copy: &Path) {
    let again = clasp(copy, &["migrate", "--check", "-q", "."]);
    assert_eq!(again.code, 0, "second run:\n{}{}", again.stdout, again.stderr);
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[test]
fn a_kernel_file_built_with_null_options_is_built_as_cl20() {
    let (_work, copy, run) = migrated("c_kernel_file", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    assert!(read(copy.join("kernels/scale.cl")).contains("float sum(const float *p, int n)"));
    assert_settled(&copy);
}

#[test]
fn a_cpp_build_pinning_cl12_is_switched_and_keeps_its_other_options() {
    let (_work, copy, run) = migrated("cpp_kernel_file", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-mad-enable -cl-std=CL2.0".to_string())]);
    assert_settled(&copy);
}

#[test]
fn a_python_option_list_gains_the_standard() {
    let (_work, copy, run) = migrated("py_kernel_file", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-fast-relaxed-math -cl-std=CL2.0".to_string())]);
    assert!(read(copy.join("host.py")).contains(r#"options=["-cl-fast-relaxed-math", "-cl-std=CL2.0"]"#));
    assert_settled(&copy);
}

#[test]
fn options_built_at_run_time_are_a_located_warning_and_stay() {
    let (_work, copy, run) = migrated("c_file_snprintf", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let host = read(copy.join("host.c"));
    assert_eq!(host, read(fixture_dir("c_file_snprintf").join("host.c")), "host.c is left as it is");
    let warning = run.stderr.lines().find(|l| l.contains("warning:")).unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(warning.starts_with("./host.c:49:11: warning: clBuildProgram builds"), "{warning}");
    assert!(warning.contains("pass -cl-std=CL2.0 (untraced-options)"), "{warning}");
    // The kernel is migrated; the host still builds it as it did (the user adds the option).
    let programs = run_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-DLANES=4".to_string())]);
}

#[test]
fn a_program_clasp_did_not_change_keeps_its_options() {
    let (_work, copy, run) = migrated("c_untouched", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(read(copy.join("host.c")), read(fixture_dir("c_untouched").join("host.c")));
    let json = clasp(&copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    assert_eq!(report["host"]["build_calls"][0]["status"], "unchanged", "{}", json.stdout);
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
}

#[test]
fn without_host_files_the_host_is_left_alone_and_no_note_is_given() {
    let (_work, copy, run) = migrated("c_kernel_file", &["--no-host"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(read(copy.join("host.c")), read(fixture_dir("c_kernel_file").join("host.c")));
    assert!(!run.stderr.contains("note:"), "{}", run.stderr);
    assert!(read(copy.join("kernels/scale.cl")).contains("float sum("), "the kernel is still migrated");
}

#[test]
fn kernels_migrated_without_their_host_get_a_note_with_the_option() {
    let work = tempfile::tempdir().expect("temporary directory");
    copy_tree(&fixture_dir("c_kernel_file").join("kernels"), work.path());
    let run = clasp(work.path(), &["migrate", "--check", "."]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let note = "clasp: note: no host build call was found for the migrated kernels: the host must build them with -cl-std=CL2.0";
    assert!(run.stderr.contains(note), "{}", run.stderr);
}

#[test]
fn the_json_report_lists_the_edited_build_call() {
    let work = tempfile::tempdir().expect("temporary directory");
    let copy = work.path().join("c_kernel_file");
    copy_tree(&fixture_dir("c_kernel_file"), &copy);
    let run = clasp(&copy, &["migrate", "--json", "-q", "."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON report");
    let call = &report["host"]["build_calls"][0];
    assert_eq!(call["api"], "clBuildProgram");
    assert_eq!(call["status"], "edited");
    assert_eq!((call["line"].as_u64(), call["col"].as_u64()), (Some(50), Some(11)));
    assert_eq!(call["program"], "kernels/scale.cl");
    let host_fix = report["changes"].as_array().unwrap().iter().find(|c| c["path"] == "host.c").expect("host.c changed");
    assert_eq!(host_fix["fixes"][0]["rule"], "host-build-options");
}

#[test]
fn a_raw_string_kernel_is_migrated_in_place_and_its_build_switched() {
    let (_work, copy, run) = migrated("cpp_raw_string", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-DTILE=16 -cl-std=CL2.0".to_string())]);
    assert!(programs[0].source.contains("float max_g(const float *p, int n)"), "{}", programs[0].source);
    assert!(!programs[0].source.contains("max_l"), "the __local copy is merged away:\n{}", programs[0].source);
    assert_settled(&copy);
}

#[test]
fn a_triple_quoted_python_kernel_is_migrated_with_the_options_of_its_build() {
    let (_work, copy, run) = migrated("py_triple_quoted", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-DN=4 -cl-std=CL2.0".to_string())]);
    assert!(programs[0].source.contains("float norm(const float *v, int n)"), "{}", programs[0].source);
    assert_settled(&copy);
}

#[test]
fn a_stringified_kernel_is_migrated_inside_the_macro_argument() {
    let (_work, copy, run) = migrated("c_stringify", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-mad-enable -cl-std=CL2.0".to_string())]);
    assert!(!programs[0].source.contains("__local const float *a"), "{}", programs[0].source);
    assert_settled(&copy);
}

#[test]
fn a_generated_copy_follows_its_kernel_file_in_lockstep() {
    let (_work, copy, run) = migrated("c_generated_header", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    let file = read(copy.join("kernels/reduce.cl"));
    let visible = |text: &str| text.split_whitespace().collect::<String>();
    assert_eq!(visible(&programs[0].source), visible(&file), "the copy yields the migrated file");
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    let json = clasp(&copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    assert_eq!(report["changes"].as_array().map(|c| c.len()), Some(0), "second run: {}", json.stdout);
    assert_settled(&copy);
}

#[test]
fn a_kernel_that_needs_untraced_options_is_left_alone_and_said() {
    let (_work, copy, run) = migrated("c_escaped_snprintf", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(read(copy.join("host.c")), read(fixture_dir("c_escaped_snprintf").join("host.c")));
    assert!(run.stderr.contains("./host.c:10:5: warning: the embedded kernel is left as it is"), "{}", run.stderr);
    let json = clasp(&copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    assert_eq!(report["host"]["embedded"][0]["status"], "refused", "{}", json.stdout);
}

#[test]
fn escaped_line_literals_are_migrated_in_their_form_and_a_format_kernel_is_reported() {
    let (_work, copy, run) = migrated("c_escaped_literals", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let host = read(copy.join("host.c"));
    assert!(host.contains("    \"float scale_g(const float *p, int i, float s)\\n\"\n    \"{\\n\"\n"), "{host}");
    assert!(!host.contains("scale_l") && !host.contains("\"\"\n"), "the __local copy goes with its lines:\n{host}");
    let warning = "./host.c:52:14: warning: an embedded kernel clasp cannot decode is left alone";
    assert!(run.stderr.contains(warning), "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-DWIDTH=8 -cl-std=CL2.0".to_string())]);
    assert_eq!(programs[1].builds, vec![None], "the program clasp did not change keeps its options");
    assert_settled(&copy);
}

#[test]
fn a_program_of_two_strings_is_migrated_as_one_and_written_back_into_both() {
    let (_work, copy, run) = migrated("c_two_sources", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let host = read(copy.join("host.c"));
    assert!(host.contains("\"float peak(const float *p, int n)\\n\""), "{host}");
    assert!(host.contains("peak(tile, 8) - peak(in, 8)"), "the kernel's string calls the merged helper:\n{host}");
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    assert_settled(&copy);
}

#[test]
fn a_program_of_files_two_raw_wrapped_is_migrated_and_its_host_builds_it_as_cl20() {
    let (_work, copy, run) = migrated("cpp_program_parts", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for part in ["rows.hpp", "blur.hpp"] {
        let text = read(copy.join(part));
        assert!(text.starts_with("R\"CLC(\n") && text.trim_end().ends_with(")CLC\""), "{part} keeps its wrapper");
    }
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-DRADIUS=2 -cl-std=CL2.0".to_string())]);
    assert!(programs[0].source.contains("float sum(const float *p, int n)"), "{}", programs[0].source);
    assert_settled(&copy);
}

#[test]
fn an_embedded_kernel_s_functions_are_reported_at_the_host_file_and_line() {
    let work = tempfile::tempdir().expect("temporary directory");
    let copy = work.path().join("c_escaped_literals");
    copy_tree(&fixture_dir("c_escaped_literals"), &copy);
    let run = clasp(&copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON report");
    let at: Vec<(String, u64, String)> = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["file"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap(), f["name"].as_str().unwrap().to_string()))
        .collect();
    let expected = |line: u64, name: &str| ("host.c".to_string(), line, name.to_string());
    assert_eq!(at, vec![expected(10, "scale_g"), expected(15, "scale_l"), expected(20, "scale")], "{}", run.stdout);
}

#[test]
fn wrapped_files_gathered_by_include_are_one_inferred_program_and_its_build_asks_for_cl20() {
    let (_work, copy, run) = migrated("cpp_included_sources", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("warning:"), "no `#include` line is read as a kernel:\n{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    assert!(programs[0].source.contains("float total(const float *p, int n)"), "{}", programs[0].source);
    // Around each wrapper, the file is as it was: the licence block, the notes, the delimiters.
    for (file, head, tail) in [
        ("common.opencl", "/*\n * Sample licence", ")cl\"\n// End of common.opencl.\n"),
        ("scale.opencl", "// The kernel: uses", ")===\"  /* the wrapper ends here */\n"),
    ] {
        let (original, now) = (read(fixture_dir("cpp_included_sources").join(file)), read(copy.join(file)));
        assert!(now.starts_with(&original[..original.find("R\"").unwrap()]) && now.starts_with(head), "{now}");
        assert!(now.ends_with(tail), "{now}");
    }
    let json = clasp(&copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    let program = &report["host"]["programs"][0];
    assert_eq!((program["inferred"].as_bool(), program["line"].as_u64()), (Some(true), Some(16)), "{}", json.stdout);
    assert_eq!(program["sources"], serde_json::json!(["common.opencl", "scale.opencl"]));
    assert_settled(&copy);
}

#[test]
fn c_sources_included_as_escaped_literals_are_one_program_migrated_in_their_literals() {
    let (_work, copy, run) = migrated("c_included_sources", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("warning:"), "no `#include` line is read as a kernel:\n{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    let source = &programs[0].source;
    assert!(source.contains("float first(const float *p, int n)\n{\n\treturn"), "{source}");
    assert!(source.contains("tile[i] - first(tile, 4) - first(in, 4);"), "{source}");
    let original_host = read(fixture_dir("c_included_sources").join("host.c"));
    let host = read(copy.join("host.c"));
    assert_eq!(host, original_host.replace("NULL, \"\", NULL", "NULL, \"-cl-std=CL2.0\", NULL"));
    // Each file is still a run of literals, one a line, with the same lines around it.
    for file in ["common.clh", "offsets.clh"] {
        let (original, now) = (read(fixture_dir("c_included_sources").join(file)), read(copy.join(file)));
        assert_ne!(original, now, "{file} is migrated");
        let outside = |text: &str| {
            let lines: Vec<&str> = text.lines().collect();
            let first = lines.iter().position(|l| l.starts_with('"')).unwrap();
            let last = lines.iter().rposition(|l| l.starts_with('"')).unwrap();
            assert!(lines[first..=last].iter().all(|l| l.starts_with('"') && l.ends_with('"')), "{text}");
            (lines[..first].join("\n"), lines[last + 1..].join("\n"))
        };
        assert_eq!(outside(&now), outside(&original), "{file}: the bytes around the literals");
    }
    let json = clasp(&copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    let program = &report["host"]["programs"][0];
    assert_eq!((program["inferred"].as_bool(), program["line"].as_u64()), (Some(true), Some(32)), "{}", json.stdout);
    assert_settled(&copy);
}

#[test]
fn a_building_constructor_builds_after_its_declaration_with_the_standard() {
    let (_work, copy, run) = migrated("cpp_building_constructor", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let host = read(copy.join("host.cpp"));
    let edited = "    cl::Program program(context, source, false, &err);\n    err = program.build(\"-cl-std=CL2.0\");\n";
    assert!(host.contains(edited), "{host}");
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    assert!(programs[0].source.contains("float length_g(const float *v, int n)"), "{}", programs[0].source);
    let wrapped = read(copy.join("norm.opencl"));
    assert!(
        wrapped.starts_with("// Licence: this sample is free for any use.\n") && wrapped.ends_with(")kernel\"\n"),
        "{wrapped}"
    );
    assert_settled(&copy);
}

/// The options of every build, in program order, with `-cl-std=CL2.0`
/// where the original passed none or others.
fn every_build_asks_for_cl20(programs: &[Recorded], original: &[Option<&str>]) {
    let builds: Vec<Vec<Option<String>>> = programs.iter().map(|p| p.builds.clone()).collect();
    let want: Vec<Vec<Option<String>>> =
        (original.iter()).map(|o| vec![Some(o.map_or("-cl-std=CL2.0".to_string(), |o| format!("{o} -cl-std=CL2.0")))]).collect();
    assert_eq!(builds, want);
}

#[test]
fn every_build_form_of_the_cpp_bindings_asks_for_cl20() {
    let (_work, copy, run) = migrated("cpp_build_forms", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("warning:"), "every build is linked and traced:\n{}", run.stderr);
    let programs = run_migrated_host(&copy);
    let scaled = Some("-DSCALE=2.0f");
    every_build_asks_for_cl20(&programs, &[None, None, None, scaled, None, None, None, None, None]);
    let host = read(copy.join("host.cpp"));
    for edited in [
        "err |= sums.build(\"-cl-std=CL2.0\");",
        "err |= maxima.build(devices, \"-cl-std=CL2.0\");",
        "err |= minima.build(device, \"-cl-std=CL2.0\");",
        "err |= scaled.build(devices, \"-DSCALE=2.0f -cl-std=CL2.0\", nullptr, nullptr);",
        "err |= part.compile(\"-cl-std=CL2.0\");",
        "cl::Program bits(default_source, false);\n    bits.build(\"-cl-std=CL2.0\");\n",
        // The member initializer's build opens the constructor's body.
        ": smooth_(context, smooth_source, false), devices_(devices)\n    {\n        smooth_.build(\"-cl-std=CL2.0\");\n        tuned_ =",
        "return tuned_.build(devices_, \"-cl-std=CL2.0\");",
        "edges_ = cl::Program(context, edge_source, false);\n        edges_.build(\"-cl-std=CL2.0\");\n",
    ] {
        assert!(host.contains(edited), "{edited}\n---\n{host}");
    }
    assert_settled(&copy);
}

#[test]
fn every_pyopencl_build_form_asks_for_cl20() {
    let (_work, copy, run) = migrated("py_build_forms", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("warning:"), "every build is linked and traced:\n{}", run.stderr);
    let programs = run_migrated_host(&copy);
    every_build_asks_for_cl20(&programs, &[None, Some("-DUNROLL=2"), Some("-DUNROLL=2"), None, None]);
    let host = read(copy.join("host.py"));
    for edited in [
        "cl.Program(context, SUM).build(options=[\"-cl-std=CL2.0\"])",
        "build(options=[\"-DUNROLL=2\", \"-cl-std=CL2.0\"])",
        "build(\"-DUNROLL=2 -cl-std=CL2.0\")",
        "prg.build(options=[\"-cl-std=CL2.0\"])",
        "self.prg.build(devices=devices, options=[\"-cl-std=CL2.0\"])",
    ] {
        assert!(host.contains(edited), "{edited}\n---\n{host}");
    }
    assert_settled(&copy);
}

/// A helper builds the file its caller names: the call is linked through
/// the caller's argument, edited, and the driver gets 2.0 exactly there.
fn a_helper_builds_what_its_caller_names(fixture: &str, kernel: &str, migrated_helper: &str) {
    let (_work, copy, run) = migrated(fixture, &["--explain"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains(&format!("builds {kernel}, migrated")), "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-cl-std=CL2.0".to_string())]);
    assert!(read(copy.join(kernel)).contains(migrated_helper), "{}", read(copy.join(kernel)));
    assert_settled(&copy);
}

#[test]
fn a_c_helper_in_the_same_file_builds_the_file_its_caller_names() {
    a_helper_builds_what_its_caller_names("c_helper_parameter", "kernels/blur.cl", "float pair_mean(const float *p)");
}

#[test]
fn a_cpp_helper_in_another_file_builds_the_file_its_caller_names() {
    a_helper_builds_what_its_caller_names("cpp_helper_other_file", "kernels/gather.cl", "float pick(const float *p, int i)");
}

/// The file's change in `clasp migrate --json` of `copy`, and the report's warnings.
fn json_change(copy: &Path, file: &str) -> (serde_json::Value, String) {
    let json = clasp(copy, &["migrate", "--json", "-q", "."]);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    let changes = report["changes"].as_array().expect("changes");
    let change =
        changes.iter().find(|c| c["path"] == file).cloned().unwrap_or_else(|| panic!("{file} did not change: {changes:?}"));
    (change, json.stderr)
}

#[test]
fn a_kernel_file_is_analysed_with_the_defines_and_include_folder_its_host_builds_it_with() {
    // On a copy as written: the file changes, in no configuration of its own (one set of options).
    let work = tempfile::tempdir().expect("temporary directory");
    let fresh = work.path().join("c_file_options");
    copy_tree(&fixture_dir("c_file_options"), &fresh);
    let (change, stderr) = json_change(&fresh, "kernels/tile.cl");
    assert!(change["configurations"].is_null(), "{change}");
    assert!(!stderr.contains("warning:") && !stderr.contains("error:"), "{stderr}");
    let (_work, copy, run) = migrated("c_file_options", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(read(copy.join("kernels/tile.cl")).contains("float tile_sum(const tile_t *p)"), "{}", run.stderr);
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-DTILE=16 -Iinclude -cl-std=CL2.0".to_string())]);
    assert_settled(&copy);
}

#[test]
fn a_python_host_s_option_list_is_what_its_kernel_file_is_analysed_with() {
    let (_work, copy, run) = migrated("py_file_options", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(read(copy.join("kernels/window.cl")).contains("REAL window(const REAL *p)"), "{}", run.stderr);
    assert!(read(copy.join("host.py")).contains(r#"["-D", "RADIUS=2", "-DREAL=float", "-cl-std=CL2.0"]"#));
    let programs = run_migrated_host(&copy);
    assert_eq!(programs[0].builds, vec![Some("-D RADIUS=2 -DREAL=float -cl-std=CL2.0".to_string())]);
    assert_settled(&copy);
}

#[test]
fn a_kernel_file_built_with_two_sets_of_options_is_migrated_for_both() {
    let work = tempfile::tempdir().expect("temporary directory");
    let fresh = work.path().join("c_two_builds");
    copy_tree(&fixture_dir("c_two_builds"), &fresh);
    let (change, _) = json_change(&fresh, "kernels/lanes.cl");
    assert_eq!(change["configurations"], serde_json::json!(["host.c:51", "host.c:54"]), "{change}");
    let (_work, copy, run) = migrated("c_two_builds", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let kernel = read(copy.join("kernels/lanes.cl"));
    // The merge holds in both programs; the wide one's own helper is migrated too.
    assert!(kernel.contains("float lane_sum(const float *p)") && kernel.contains("float lane_max_l(const float *p)"), "{kernel}");
    let programs = run_migrated_host(&copy);
    let builds: Vec<Vec<Option<String>>> = programs.iter().map(|p| p.builds.clone()).collect();
    let want = |options: &str| vec![Some(format!("{options} -cl-std=CL2.0"))];
    assert_eq!(builds, vec![want("-DLANES=4"), want("-DLANES=8 -DWIDE")]);
    assert_settled(&copy);
}
