//! `clasp run-check` on Intel's CPU OpenCL runtime (OpenCL C 3.1, generic address space), which
//! `scripts/setup` installs into `.tools/intel-ocl` and registers in `.tools/icd`: each run sees it
//! alone through the loader's `OCL_ICD_VENDORS`, and the tests fail, saying so, when it is missing.
//! The hosts, written for these tests: `fixtures/run_check/c_host/` (C, built here with `cc`),
//! `cpp_host/` (C++ on the OpenCL C++ bindings, built with `c++`), both against the system loader,
//! and `py_host/` (Python with pyopencl, which `scripts/setup` installs into `.tools/python`;
//! pyopencl loads its own copy of the loader privately). The C host's kernels: `scale` calls a
//! helper clasp makes generic and a `__local` copy of it that clasp merges, `count` a helper clasp
//! leaves, `stamp` copies what the host generated (from the clock with `noise`). The C++ host's:
//! `blend` calls a pair of per-space helpers in an included header that clasp merges, `fill` runs
//! as a task.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The vendors folder holding Intel's CPU runtime alone.
fn intel_vendors() -> PathBuf {
    let vendors = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/icd");
    let icd = vendors.join("intel-cpu.icd");
    let library = std::fs::read_to_string(&icd).unwrap_or_default();
    assert!(
        !library.trim().is_empty() && Path::new(library.trim()).is_file(),
        "Intel's CPU OpenCL runtime is not installed ({} missing or naming no library): run scripts/setup",
        icd.display()
    );
    vendors
}

/// A copy of the C host fixture, built: its folder.
fn built_host() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run_check/c_host");
    for file in ["host.c", "kernels.cl"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let built =
        Command::new("cc").args(["-O1", "-o", "host", "host.c", "-lOpenCL"]).current_dir(dir.path()).output().expect("run cc");
    assert!(
        built.status.success(),
        "cc could not build the host (scripts/setup installs ocl-icd-opencl-dev and opencl-c-headers):\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    dir
}

/// Replaces `from` by `to` in the copied host's kernels.cl (the test's own variant of it).
fn edit_kernels(dir: &Path, from: &str, to: &str) {
    let kernels = dir.join("kernels.cl");
    let original = std::fs::read_to_string(&kernels).unwrap();
    assert!(original.contains(from), "kernels.cl has no `{from}`");
    std::fs::write(&kernels, original.replace(from, to)).unwrap();
}

/// Runs clasp in `dir` on the Intel runtime, with `env`: (exit code, stdout, stderr).
fn run_check(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let vendors = intel_vendors();
    let mut all: Vec<(&str, &std::ffi::OsStr)> = vec![("OCL_ICD_VENDORS", vendors.as_os_str())];
    all.extend(env.iter().map(|(key, value)| (*key, std::ffi::OsStr::new(value))));
    crate::support::clasp_env(dir, &[&["run-check"][..], args].concat(), &all)
}

#[test]
fn run_check_finds_the_migrated_program_identical_and_times_each_kernel() {
    let dir = built_host();
    let before = std::fs::read(dir.path().join("kernels.cl")).unwrap();
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "./host", "kernels.cl"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("clasp run-check: identical: 4 launches and 2 host reads compared (6 buffers), 0 left out as nondeterministic, 0 differences; 1 program substituted (1 migrated source)\n"),
        "{out}{err}"
    );
    for kernel in ["count ", "scale ", "stamp "] {
        assert!(out.lines().any(|l| l.starts_with(kernel)), "no table row for {kernel}:\n{out}");
    }
    assert_eq!(std::fs::read(dir.path().join("kernels.cl")).unwrap(), before, "run-check wrote to the tree");

    let (code, out, err) = run_check(dir.path(), &["--format", "json", "kernels.cl", "--", "./host", "kernels.cl"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["verdict"], "identical");
    assert_eq!(report["migrated_sources"], serde_json::json!(["kernels.cl"]));
    assert_eq!(report["comparison"]["kernels"]["scale"]["launches"], 2);
    let timing = report["timing"].as_array().unwrap();
    assert_eq!(timing.len(), 3, "{out}");
    // Profiling was on: every kernel has a device time in both kinds of run.
    for kernel in timing {
        assert!(kernel["original_us"].as_f64().unwrap() > 0.0 && kernel["migrated_us"].as_f64().unwrap() > 0.0, "{kernel}");
    }
}

#[test]
fn run_check_names_the_kernel_launch_argument_and_element_of_a_wrong_substitution() {
    let dir = built_host();
    // Testing only: the migrated `bump` is wrong for x == 37 alone.
    let edit = [("CLASP_TEST_RUNCHECK_EDIT", "return x + 1;=>return x + 1 + (x == 37);")];
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "./host", "kernels.cl"], &edit);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.starts_with("clasp run-check: different: "), "{out}");
    assert!(
        out.contains("\ndifference: kernel count, launch 1 (step 3), argument 1, element 37: original 114, migrated 117 (not the build options alone: the original sources built with them do not give it)\n"),
        "{out}"
    );
    // The host read it back too; nothing else differs.
    assert!(out.contains("\ndifference: host read (step 6), element 37: original 114, migrated 117 (not the build options alone: the original sources built with them do not give it)\n"), "{out}");
    assert_eq!(out.matches("difference: ").count(), 2, "{out}");
}

#[test]
fn run_check_leaves_out_a_result_that_differs_between_the_original_runs() {
    let dir = built_host();
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "./host", "kernels.cl", "noise"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(", 1 left out as nondeterministic, 0 differences;"), "{out}");
    assert!(
        out.contains("\nnondeterministic: kernel stamp, launch 1 (step 4), argument 1 (differs between the original runs)\n"),
        "{out}"
    );
}

#[test]
fn run_check_exits_2_naming_the_run_when_the_program_fails() {
    let dir = built_host();
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "./host", "kernels.cl", "fail"], &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("clasp: error: the first original run failed (exit status: 3)"), "{err}");
    assert!(out.is_empty(), "{out}");
}

#[test]
fn run_check_takes_a_migrated_tree_and_exits_2_when_the_migrated_run_fails() {
    let dir = built_host();
    let migrated = dir.path().join("migrated");
    std::fs::create_dir(&migrated).unwrap();
    let original = std::fs::read_to_string(dir.path().join("kernels.cl")).unwrap();
    std::fs::write(migrated.join("kernels.cl"), original.replace("int bump(int x)", "int bump(int x) oops")).unwrap();
    let (code, out, err) = run_check(dir.path(), &["--migrated", "migrated", "--", "./host", "kernels.cl"], &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("clasp: error: the migrated run's build of a migrated program failed (OpenCL error -11), where the original run's built (and the migrated run then ended otherwise than the first original run); the driver's log says:"),
        "{err}"
    );
}

#[test]
fn run_check_substitutes_the_program_of_a_pyopencl_host() {
    let python_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/python");
    assert!(python_path.join("pyopencl").is_dir(), "pyopencl is not installed in {}: run scripts/setup", python_path.display());
    let dir = built_host();
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run_check/py_host/host.py");
    let host = host.to_str().unwrap();
    let env = [("PYTHONPATH", python_path.to_str().unwrap())];
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "python3", host, "kernels.cl"], &env);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("clasp run-check: identical: 3 launches and 2 host reads compared (5 buffers), 0 left out as nondeterministic, 0 differences; 1 program substituted (1 migrated source)\n"), "{out}{err}");

    let env = [env[0], ("CLASP_TEST_RUNCHECK_EDIT", "return x + 1;=>return x + 1 + (x == 200);")];
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "python3", host, "kernels.cl"], &env);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("\ndifference: kernel count, launch 1 (step 3), argument 1, element 200: original 603, migrated 606 (not the build options alone: the original sources built with them do not give it)\n"),
        "{out}"
    );
}

#[test]
fn run_check_pairs_the_kernels_when_run_from_below_the_paths() {
    // The host runs in a folder of its own and reads `../kernels.cl`; the PATH is `..`
    // (the edit root is then not the working folder, as in a project's `host/` folder).
    let dir = built_host();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::rename(dir.path().join("host"), run.join("host")).unwrap();
    let (code, out, err) = run_check(&run, &["..", "--", "./host", "../kernels.cl"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 program substituted"), "{out}{err}");
}

#[test]
fn run_check_reports_a_failed_migrated_build_with_the_drivers_log_when_the_host_carries_on() {
    let dir = built_host();
    let migrated = dir.path().join("migrated");
    std::fs::create_dir(&migrated).unwrap();
    let original = std::fs::read_to_string(dir.path().join("kernels.cl")).unwrap();
    std::fs::write(migrated.join("kernels.cl"), original.replace("int bump(int x)", "int bump(int x) oops")).unwrap();
    let (code, out, err) = run_check(dir.path(), &["--migrated", "migrated", "--", "./host", "kernels.cl", "tolerant"], &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("clasp: error: the migrated run's build of a migrated program failed (OpenCL error -11), where the original run's built; the driver's log says:"), "{err}");
    let said = err.split("the driver's log says:").nth(1).unwrap_or_default();
    assert!(said.lines().any(|l| l.starts_with("  | ") && l.contains("error")), "the driver's error is shown: {err}");
}

#[test]
fn run_check_tells_a_difference_the_build_options_alone_make() {
    let dir = built_host();
    // `stamp` now writes the language version it was built as: the migrated build options
    // (-cl-std=CL2.0) change it on the original sources too.
    edit_kernels(dir.path(), "noise[g] ^ g;", "noise[g] ^ g ^ __OPENCL_C_VERSION__;");
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--format", "json", "--", "./host", "kernels.cl"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let differences = report["comparison"]["differences"].as_array().unwrap();
    let stamp: Vec<&Value> = differences.iter().filter(|d| d["kernel"] == "stamp").collect();
    assert_eq!(stamp.len(), 1, "{out}");
    assert_eq!(stamp[0]["options_alone"], true, "{out}");
    assert!(differences.iter().all(|d| d["options_alone"] == true), "only stamp's output and its reads differ: {out}");
}

/// A copy of the C++ host fixture, built with g++ and the OpenCL C++ bindings: its folder.
fn built_cpp_host() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run_check/cpp_host");
    std::fs::create_dir(dir.path().join("kernels")).unwrap();
    for file in ["host.cpp", "kernels/main.cl", "kernels/blend.h"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let built = Command::new("c++")
        .args(["-O1", "-o", "host", "host.cpp", "-lOpenCL"])
        .current_dir(dir.path())
        .output()
        .expect("run c++");
    assert!(
        built.status.success(),
        "c++ could not build the host (scripts/setup installs g++ and opencl-clhpp-headers):\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    dir
}

#[test]
fn run_check_substitutes_a_prefixed_program_and_its_included_header_for_a_cpp_host() {
    // The host puts its own #define before the file's text, passes them as two strings, builds
    // with -I to the folder of the header clasp migrates, launches behind a user event it
    // completes later, runs a task and reads back through a non-blocking read and a map; it
    // runs under sh (a process that starts another).
    let dir = built_cpp_host();
    let args = ["-D", "SCALE=3.0f", "kernels", "--", "sh", "-c", "./host kernels/main.cl"];
    let (code, out, err) = run_check(dir.path(), &args, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("clasp run-check: identical: 2 launches and 2 host reads compared (4 buffers), 0 left out as nondeterministic, 0 differences; 1 program substituted (2 migrated sources)\n"),
        "{out}{err}"
    );
    for kernel in ["blend ", "fill "] {
        assert!(out.lines().any(|l| l.starts_with(kernel)), "no table row for {kernel}:\n{out}");
    }

    // Testing only: the migrated header's weight is wrong. Caught at blend's output, so the
    // program was built with the migrated header, found through its -I folder.
    let edit = [("CLASP_TEST_RUNCHECK_EDIT", "0.25f=>0.26f")];
    let (code, out, err) = run_check(dir.path(), &args, &edit);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("\ndifference: kernel blend, launch 1 (step 1), argument 1, element 0: "), "{out}");
}

#[test]
fn run_check_substitutes_a_kernel_embedded_in_the_hosts_string_literals() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run_check/embedded_host/host.c");
    std::fs::copy(fixture, dir.path().join("host.c")).unwrap();
    let built = Command::new("cc").args(["-o", "host", "host.c", "-lOpenCL"]).current_dir(dir.path()).output().unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let args = ["host.c", "-DWIDTH=16", "--format", "json", "--", "./host"];
    let (code, out, err) = run_check(dir.path(), &args, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["migrated_sources"], serde_json::json!(["host.c:15"]), "the kernel, not the host file: {out}");
    assert_eq!((report["substituted"].as_u64(), report["comparison"]["launches"].as_u64()), (Some(1), Some(1)), "{out}");

    // Testing only: a wrong migrated kernel is caught, so the embedded text was put in.
    let edit = [("CLASP_TEST_RUNCHECK_EDIT", "in[g] * 2.0f=>in[g] * 2.5f")];
    let (code, out, err) = run_check(dir.path(), &args[..2].iter().chain(&args[4..]).copied().collect::<Vec<_>>(), &edit);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("\ndifference: kernel rows, launch 1 (step 1), argument 1, element 0: original 146.25, migrated 170.625"),
        "{out}"
    );
}

#[test]
fn run_check_on_the_demos_host_finds_reduce_identical() {
    // The demo's host code (its build call) with a driver that gives it a main.
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let demo = dir.path().join("fixtures/demo");
    std::fs::create_dir_all(&demo).unwrap();
    for entry in std::fs::read_dir(root.join("fixtures/demo")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, demo.join(path.file_name().unwrap())).unwrap();
    }
    let driver = root.join("fixtures/run_check/demo_driver/main.c");
    let built = Command::new("cc")
        .args(["-DCL_TARGET_OPENCL_VERSION=120", "-o", "demo"])
        .arg(driver)
        .args(["fixtures/demo/host.c", "-lOpenCL"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let (code, out, err) = run_check(dir.path(), &["fixtures/demo", "--", "./demo", "12"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("clasp run-check: identical: 12 launches and 12 host reads compared (24 buffers), 0 left out as nondeterministic, 0 differences; 1 program substituted (4 migrated sources)\n"), "{out}{err}");
    let row = out.lines().find(|l| l.starts_with("reduce_sum ")).unwrap_or_else(|| panic!("no reduce_sum row:\n{out}"));
    assert!(!row.contains("too few"), "12 launches are judged: {row}");
}

#[test]
fn run_check_links_each_kernel_to_what_the_residual_generic_lint_says_of_it() {
    let dir = built_host();
    // Out of line, the merged generic helper keeps `scale`'s accesses through it generic.
    edit_kernels(dir.path(), "float scaled", "__attribute__((noinline)) float scaled");
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--format", "json", "--", "./host", "kernels.cl"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let timing = report["timing"].as_array().unwrap();
    let scale = timing.iter().find(|t| t["kernel"] == "scale").unwrap_or_else(|| panic!("{out}"));
    assert!(scale["residual_generic"]["accesses"].as_u64().unwrap() > 0, "{out}");
    assert!(scale["residual_generic"]["at"].as_str().unwrap().starts_with("kernels.cl:"), "{out}");
    let count = timing.iter().find(|t| t["kernel"] == "count").unwrap();
    assert!(count.get("residual_generic").is_none(), "count has no generic pointer: {out}");
}

#[test]
fn run_check_pairs_a_migrated_tree_laid_out_from_a_folder_above() {
    // migrate ran from `run/` over `../kernels.cl`: the tree holds `kernels.cl` from the edit
    // root above; run-check runs from `run/` too.
    let dir = built_host();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::rename(dir.path().join("host"), run.join("host")).unwrap();
    let (code, out, err) = crate::support::clasp_env::<&str>(&run, &["migrate", "../kernels.cl", "--out-dir", "migrated"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(run.join("migrated/kernels.cl").is_file(), "the tree is laid out from the edit root");
    let (code, out, err) = run_check(&run, &["--migrated", "migrated", "--", "./host", "../kernels.cl"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 program substituted (1 migrated source)"), "{out}{err}");
}

#[test]
fn run_check_pairs_a_migrated_tree_from_the_root_it_names_beside_the_current_folder() {
    // migrate ran from `run/` over `../k/kernels.cl`: the tree mirrors the edit root `k/`, which
    // is no folder at or above `run/`; `--root ../k` names it.
    let dir = built_host();
    let (run, k) = (dir.path().join("run"), dir.path().join("k"));
    for folder in [&run, &k] {
        std::fs::create_dir(folder).unwrap();
    }
    std::fs::rename(dir.path().join("host"), run.join("host")).unwrap();
    std::fs::rename(dir.path().join("kernels.cl"), k.join("kernels.cl")).unwrap();
    let (code, out, err) = crate::support::clasp_env::<&str>(&run, &["migrate", "../k/kernels.cl", "--out-dir", "migrated"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(run.join("migrated/kernels.cl").is_file(), "the tree mirrors the edit root k/");
    let args = |root: &'static [&'static str]| [root, &["--migrated", "migrated", "--", "./host", "../k/kernels.cl"]].concat();
    let (code, out, err) = run_check(&run, &args(&[]), &[]);
    assert_eq!(code, 2, "nothing of the tree is at or above run/: {out}{err}");
    assert!(
        err.contains(
            "none of its files has an original at its path from the current directory or any folder above it: give --root"
        ),
        "{err}"
    );
    let (code, out, err) = run_check(&run, &args(&["--root", "../k"]), &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 program substituted (1 migrated source)"), "{out}{err}");
}

#[test]
fn run_check_pairs_the_threads_of_a_program_by_what_they_did() {
    let dir = built_host();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run_check/threads_host/host.c");
    let built = Command::new("cc")
        .arg("-o")
        .arg(dir.path().join("threads"))
        .arg(fixture)
        .args(["-lOpenCL", "-lpthread"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    // Several tries: which thread reaches OpenCL first is up to the scheduler each time.
    for _ in 0..3 {
        let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "./threads", "kernels.cl"], &[]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.starts_with("clasp run-check: identical: 6 launches and 2 host reads compared (8 buffers), 0 left out as nondeterministic, 0 differences; 2 programs substituted"), "{out}{err}");
    }
    // Testing only: a wrong migrated helper is caught, in a thread of the program.
    let edit = [("CLASP_TEST_RUNCHECK_EDIT", "return p[i] * k;=>return p[i] * k * 1.5f;")];
    let (code, out, err) = run_check(dir.path(), &["kernels.cl", "--", "./threads", "kernels.cl"], &edit);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("\ndifference: `./threads kernels.cl` (process 1, thread "), "{out}");
}

#[test]
fn run_check_killed_takes_the_program_with_it_and_the_next_removes_its_folder() {
    let dir = built_host();
    let scratch = dir.path().join("tmp");
    std::fs::create_dir(&scratch).unwrap();
    // A folder left by a run-check whose process is gone (pid 0 is no process's).
    let stale = scratch.join("clasp-run-check-0-left");
    std::fs::create_dir(&stale).unwrap();
    let vendors = intel_vendors();
    let mut clasp = Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["run-check", "kernels.cl", "--", "sh", "-c", "echo $$ > program.pid; exec sleep 60"])
        .current_dir(dir.path())
        .env("OCL_ICD_VENDORS", &vendors)
        .env("TMPDIR", &scratch)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = dir.path().join("program.pid");
    let started = std::time::Instant::now();
    while !pid_file.is_file() || std::fs::read_to_string(&pid_file).unwrap().trim().is_empty() {
        assert!(started.elapsed().as_secs() < 60, "the program never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!stale.exists(), "the stale folder is removed when a run-check starts");
    let program = std::fs::read_to_string(&pid_file).unwrap().trim().to_string();
    Command::new("kill").args(["-TERM", &clasp.id().to_string()]).status().unwrap();
    let status = clasp.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15), "{status}");
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let stat = std::fs::read_to_string(format!("/proc/{program}/stat")).unwrap_or_default();
        stat.is_empty() || stat.split(") ").nth(1).is_some_and(|rest| rest.starts_with('Z'))
    });
    assert!(gone, "the program {program} outlived run-check");
}
