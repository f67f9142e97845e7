//! Fixture snapshots: every `.cl` under `fixtures/<command>/` is run through
//! that command in-process and its stdout, stderr and exit code are
//! compared with `snapshots/`. A fixture's first line may be
//! `// clasp-args: ...` with extra options.

use std::path::Path;

/// A fixture's extra options: the first line of a `.cl` file, or the
/// `clasp-args` file of a directory fixture, may read `// clasp-args: ...`.
fn fixture_args(fixture: &Path) -> Vec<String> {
    let directive = if fixture.is_dir() { fixture.join("clasp-args") } else { fixture.to_path_buf() };
    let text = std::fs::read_to_string(directive).unwrap_or_default();
    match text.lines().next().and_then(|l| l.strip_prefix("// clasp-args:")) {
        Some(args) => args.split_whitespace().map(String::from).collect(),
        None => Vec::new(),
    }
}

/// Runs clasp on a fixture (a file, or a directory as one batch), given
/// relative to the crate root when inside it; returns (exit code, stdout, stderr).
fn run_fixture(command: &str, fixture: &Path, extra: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let relative = fixture.strip_prefix(root).unwrap_or(fixture).to_path_buf();
    let mut args = vec!["clasp".to_string(), command.to_string()];
    args.extend(fixture_args(fixture));
    args.extend(extra.iter().map(|s| s.to_string()));
    if command == "migrate" {
        // Snapshots are of clasp's work, never of a stored result.
        args.push("--no-cache".to_string());
    }
    args.push(relative.display().to_string());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    std::env::set_current_dir(root).unwrap();
    let code = clasp::run(plain(args), &mut out, &mut err);
    // Lossy for the snapshots only: a fixture may be Latin-1 (its diff lines
    // are its own bytes); byte-exact output is checked in src/cli_tests/.
    (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8(err).unwrap())
}

/// A JSON report starts with its version (layout and clasp's), checked and
/// then left out of snapshots, which would otherwise change with every release.
fn versioned(value: &mut serde_json::Value) {
    let version = value.as_object_mut().unwrap().remove("version").expect("version");
    assert_eq!(version["format"], 1);
    assert_eq!(version["clasp"], env!("CARGO_PKG_VERSION"));
}

/// `args` with `--color never`: the test process's own stdout may be a
/// terminal, and snapshots are plain text whatever it is.
fn plain(mut args: Vec<String>) -> Vec<String> {
    args.splice(1..1, ["--color".to_string(), "never".to_string()]);
    args
}

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn toolchain_is_installed() {
    // Fails loudly, never skips, when clang-19 or libclang is missing.
    clasp::lower::clang_path().expect("clang-19");
    clasp::parse::ensure_loaded().expect("libclang 19");
}

#[test]
fn analyze_fixtures() {
    settings().bind(|| {
        insta::glob!("../fixtures/analyze", "**/*.cl", |path| {
            let (code, stdout, stderr) = run_fixture("analyze", path, &[]);
            insta::assert_snapshot!(format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"));
        });
    });
}

#[test]
fn migrate_json_report_of_configurations() {
    settings().bind(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (code, stdout, stderr) = run_fixture("migrate", &root.join("fixtures/migrate/configurations"), &["--format", "json"]);
        assert_eq!(code, 0, "{stderr}");
        let mut value: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
        // Times differ from run to run: only there when asked for.
        assert!(value.get("timings").is_none());
        versioned(&mut value);
        insta::assert_snapshot!("migrate_configurations_json", serde_json::to_string_pretty(&value).unwrap());
    });
}

#[test]
fn migrate_statistics() {
    settings().bind(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let fixtures: Vec<String> =
            ["merge_constant_member.cl", "atomic_pin.cl", "globals_unqualified.cl", "volatile_pointee.cl"]
                .iter()
                .map(|f| root.join("fixtures/migrate").join(f).display().to_string())
                .collect();
        let mut args = vec!["clasp".to_string(), "migrate".to_string(), "--statistics".to_string()];
        args.extend(fixtures);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = clasp::run(plain(args), &mut out, &mut err);
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
        insta::assert_snapshot!("migrate_statistics", String::from_utf8(out).unwrap());
    });
}

#[test]
fn analyze_json_is_sorted_and_stable() {
    settings().bind(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (code, stdout, _) = run_fixture("analyze", &root.join("fixtures/analyze/flows.cl"), &["--json"]);
        assert_eq!(code, 0);
        let (_, breaks, _) = run_fixture("analyze", &root.join("fixtures/analyze/breaks_under_cl20.cl"), &["--json"]);
        let breaks: serde_json::Value = serde_json::from_str(&breaks).expect("valid JSON");
        let compiles = &breaks["files"][0]["compiles"];
        assert_eq!(compiles["as_input"]["ok"], true);
        assert_eq!(compiles["unchanged_as_target"]["ok"], false);
        let error = compiles["unchanged_as_target"]["error"].as_str().unwrap();
        assert!(error.contains("breaks_under_cl20.cl:11:21: error:") && error.contains("changes address space"), "{error}");
        let mut value: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
        versioned(&mut value);
        insta::assert_snapshot!("analyze_flows_json", serde_json::to_string_pretty(&value).unwrap());
    });
}

/// Compiles `path` with the default options of `std` (`-cl-std=` flags);
/// returns clang's messages on failure.
fn compiles_as(path: &Path, std_flags: &[String]) -> Result<(), String> {
    let args = clasp::options::CompileOptions::default().clang_args(Some(std_flags));
    clasp::verify::compiles(path, &args, &Default::default()).map_err(|e| e.to_string())
}

/// Every `.cl` file of a fixture (itself, or those in its directory).
fn programs(fixture: &Path) -> Vec<std::path::PathBuf> {
    if fixture.is_file() {
        return vec![fixture.to_path_buf()];
    }
    let mut found: Vec<_> = walkdir::WalkDir::new(fixture)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().map(|e| e == "cl").unwrap_or(false))
        .collect();
    found.sort();
    found
}

/// Snapshot of `migrate --explain`, then the promises behind it on a copy:
/// the input compiles as 1.2, `--write` gives code that compiles as 2.0, a
/// second run over it (no flags) changes nothing, and a failing batch writes nothing.
fn check_migrate_fixture(fixture: &Path, snapshot: &str) {
    let (code, stdout, stderr) = run_fixture("migrate", fixture, &["--explain"]);
    insta::assert_snapshot!(snapshot, format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"));

    let cl12 = vec!["-cl-std=CL1.2".to_string()];
    let target_flags = if fixture_args(fixture).iter().any(|a| a == "cl3.0") {
        clasp::options::Target::Cl30.std_flags()
    } else {
        clasp::options::Target::Cl20.std_flags()
    };
    let copy_root = tempfile::tempdir().unwrap();
    let copy = copy_root.path().join(fixture.file_name().unwrap());
    copy_tree(fixture, &copy);
    let (code_write, _, stderr_write) = run_fixture("migrate", &copy, &["--write"]);
    let expected = if code == clasp::cli::EXIT_ERROR { code } else { clasp::cli::EXIT_OK };
    assert_eq!(code_write, expected, "{stderr_write}");
    if code == clasp::cli::EXIT_ERROR {
        assert!(same_tree(fixture, &copy), "{}: a batch with errors changed files", fixture.display());
        return;
    }
    for (original, migrated) in programs(fixture).iter().zip(programs(&copy)) {
        if is_lenient(original) {
            // Legacy code only lenient vendor compilers accept: clang rejects it as 1.2, reads it as 2.0.
            assert!(compiles_as(original, &cl12).is_err(), "fixture {} says lenient but is valid CL1.2", original.display());
            compiles_as(original, &clasp::options::Target::Cl20.std_flags())
                .unwrap_or_else(|e| panic!("fixture {} is not valid CL2.0: {e}", original.display()));
        } else {
            compiles_as(original, &cl12).unwrap_or_else(|e| panic!("fixture {} is not valid CL1.2: {e}", original.display()));
        }
        compiles_as(&migrated, &target_flags)
            .unwrap_or_else(|e| panic!("migrated {} does not compile as the target: {e}", original.display()));
    }
    // With no flag: `--std auto` reads the result as the target's standard.
    let (again, diff, stderr_again) = run_fixture("migrate", &copy, &[]);
    assert_eq!((again, diff.as_str()), (0, ""), "second run over {}: {stderr_again}", fixture.display());
}

/// A fixture of legacy code that clang rejects as 1.2 (a program-scope
/// variable with no address space, a `static` in a function) says so on a
/// line of its own: `// input: lenient`.
fn is_lenient(program: &Path) -> bool {
    std::fs::read_to_string(program).is_ok_and(|text| text.lines().any(|l| l.trim() == "// input: lenient"))
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        std::fs::copy(from, to).unwrap();
        return;
    }
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn same_tree(a: &Path, b: &Path) -> bool {
    let files = |root: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = walkdir::WalkDir::new(root)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| (e.path().strip_prefix(root).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    };
    files(a) == files(b)
}

#[test]
fn migrate_fixtures() {
    settings().bind(|| {
        insta::glob!("../fixtures/migrate", "*.cl", |path| {
            check_migrate_fixture(path, "migrate_fixtures");
        });
    });
}

/// Each directory under fixtures/migrate is one batch (programs sharing headers).
#[test]
fn migrate_directory_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate");
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no directory fixtures under {}", root.display());
    settings().bind(|| {
        for dir in dirs {
            let name = dir.file_name().unwrap().to_string_lossy().to_string();
            check_migrate_fixture(&dir, &format!("migrate_dir@{name}"));
        }
    });
}

/// The edit root: `fixtures/roots/project` made a git work tree in a
/// temporary copy, with `fixtures/roots/sdk` beside it on the include path.
/// Headers beside, below and above the kernels change with them (one of
/// them needs a repair); the header outside the root never changes.
#[test]
fn edit_root_covers_the_work_tree() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/roots");
    let temp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(temp.path()).unwrap();
    copy_tree(&fixtures.join("project"), &base.join("project"));
    copy_tree(&fixtures.join("sdk"), &base.join("sdk"));
    std::fs::create_dir(base.join("project/.git")).unwrap();
    let sdk = base.join("sdk").display().to_string();
    let kernels = base.join("project/kernels").display().to_string();
    let run = |extra: &[&str]| {
        let mut args: Vec<String> = ["clasp", "migrate", "-I", &sdk].iter().map(|s| s.to_string()).collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(kernels.clone());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = clasp::run(plain(args), &mut out, &mut err);
        let tidy = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap().replace(&base.display().to_string(), "<tmp>");
        (code, tidy(out), tidy(err))
    };
    let (code, stdout, stderr) = run(&["--explain"]);
    settings().bind(|| {
        insta::assert_snapshot!("migrate_edit_root", format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"));
    });
    let (code, _, stderr) = run(&["--write"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(same_tree(&fixtures.join("sdk"), &base.join("sdk")), "a header outside the edit root changed");
    let target = clasp::options::CompileOptions { include_dirs: vec![base.join("sdk")], ..Default::default() }
        .clang_args(Some(&clasp::options::Target::Cl20.std_flags()));
    clasp::verify::compiles(&base.join("project/kernels/blend.cl"), &target, &Default::default())
        .unwrap_or_else(|e| panic!("the migrated tree does not compile as 2.0: {e}"));
    let (again, diff, stderr) = run(&["--std", "CL2.0"]);
    assert_eq!((again, diff.as_str()), (0, ""), "second run: {stderr}");
}

/// Workers change nothing but the time: the same batch with one and two
/// workers gives the same diff, explanations, summary and exit code.
#[test]
fn output_does_not_depend_on_workers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for fixture in [
        "fixtures/demo",
        "fixtures/migrate/withdraw_minimal.cl",
        "fixtures/migrate/repair_shared_header",
        "fixtures/migrate/merge_shared_header",
    ] {
        let path = root.join(fixture);
        let one = run_fixture("migrate", &path, &["--explain", "-j", "1"]);
        let two = run_fixture("migrate", &path, &["--explain", "-j", "2"]);
        assert_eq!(one, two, "{fixture}");
        assert!(!one.1.is_empty(), "{fixture}: expected a diff");
    }
}
