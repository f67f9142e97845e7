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
    let (code, out, err) = run_fixture_bytes(command, fixture, extra);
    // Lossy for the snapshots only: a fixture may be Latin-1 (its diff lines
    // are its own bytes); the diff's bytes are applied as they are below.
    (code, String::from_utf8_lossy(&out).into_owned(), err)
}

/// As `run_fixture`, with stdout as clasp wrote it.
fn run_fixture_bytes(command: &str, fixture: &Path, extra: &[&str]) -> (i32, Vec<u8>, String) {
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
    (code, out, String::from_utf8(err).unwrap())
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
    clasp::front::lower::clang_path().expect("clang-19");
    clasp::front::parse::ensure_loaded().expect("libclang 19");
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
        let flows = root.join("fixtures/analyze/flows.cl");
        let (code, stdout, _) = run_fixture("analyze", &flows, &["--json"]);
        assert_eq!(code, 0);
        // Stable: a second run prints the same bytes.
        let again = run_fixture("analyze", &flows, &["--json"]);
        assert_eq!((again.0, again.1.as_str()), (code, stdout.as_str()), "two runs differ");
        let (_, breaks, _) = run_fixture("analyze", &root.join("fixtures/analyze/breaks_under_cl20.cl"), &["--json"]);
        let breaks: serde_json::Value = serde_json::from_str(&breaks).expect("valid JSON");
        let compiles = &breaks["files"][0]["compiles"];
        assert_eq!(compiles["as_input"]["ok"], true);
        assert_eq!(compiles["unchanged_as_target"]["ok"], false);
        let error = compiles["unchanged_as_target"]["error"].as_str().unwrap();
        assert!(error.contains("breaks_under_cl20.cl:11:21: error:") && error.contains("changes address space"), "{error}");
        let mut value: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
        // Sorted: functions by file and line, each one's pointers by line and column.
        let functions = value["files"][0]["functions"].as_array().unwrap();
        let at = |v: &serde_json::Value| (v["file"].as_str().map(str::to_string), v["line"].as_u64(), v["col"].as_u64());
        assert!(functions.len() > 1 && functions.windows(2).all(|w| at(&w[0]) < at(&w[1])), "functions out of order");
        for function in functions {
            let pointers = function["pointers"].as_array().unwrap();
            assert!(pointers.windows(2).all(|w| at(&w[0]) < at(&w[1])), "{}: pointers out of order", function["name"]);
        }
        versioned(&mut value);
        insta::assert_snapshot!("analyze_flows_json", serde_json::to_string_pretty(&value).unwrap());
    });
}

/// The clang-19 executable (`scripts/setup` installs it): fixtures are
/// checked with the compiler a user has, not through clasp's own arguments
/// and in-process compile.
const CLANG19: &str = "/usr/lib/llvm-19/bin/clang";

/// The target a fixture declares (`--target T` among its clasp-args), cl2.0
/// when it declares none, as clasp's own default is.
fn declared_target(fixture: &Path) -> String {
    let args = fixture_args(fixture);
    let given = args.iter().position(|a| a == "--target").map(|i| args[i + 1].clone());
    given.or_else(|| args.iter().find_map(|a| a.strip_prefix("--target=").map(str::to_string))).unwrap_or("cl2.0".into())
}

/// The clang flags of each target, written here from the OpenCL C
/// specification's feature macros (not taken from clasp): 3.0 with generic
/// pointers and program-scope globals, or 3.0 with neither.
fn target_flags(target: &str) -> Vec<&'static str> {
    match target {
        "cl2.0" => vec!["-cl-std=CL2.0"],
        "cl3.0" => vec![
            "-cl-std=CL3.0",
            "-Xclang",
            "-cl-ext=-all,+__opencl_c_generic_address_space,+__opencl_c_program_scope_global_variables",
        ],
        "cl3.0-nogeneric" => vec!["-cl-std=CL3.0", "-Xclang", "-cl-ext=-all"],
        other => panic!("a fixture declares target {other}, which this harness does not know"),
    }
}

/// Compiles `path` with clang-19 for spir64, syntax only, with `flags`;
/// returns clang's messages on failure.
fn clang19(path: &Path, flags: &[&str]) -> Result<(), String> {
    let output = std::process::Command::new(CLANG19)
        .args(["-x", "cl"])
        .args(flags)
        .args(["-target", "spir64", "-fsyntax-only"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("run {CLANG19} (scripts/setup installs it): {e}"));
    match output.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&output.stderr).into_owned()),
    }
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

/// A fixture where nothing may change says so on a line of its own
/// (`// expect: unchanged`, in a file fixture or any file of a directory one).
fn declares_unchanged(fixture: &Path) -> bool {
    walkdir::WalkDir::new(fixture).into_iter().map(|e| e.unwrap()).filter(|e| e.file_type().is_file()).any(|e| {
        std::fs::read(e.path()).is_ok_and(|t| String::from_utf8_lossy(&t).lines().any(|l| l.trim() == "// expect: unchanged"))
    })
}

/// Applies `diff` (paths `a/...` relative to the crate root) with
/// `git apply` under `root`, where the fixture's copy lies at its relative path.
fn apply_diff(root: &Path, diff: &[u8]) {
    let patch = root.join("printed.diff");
    std::fs::write(&patch, diff).unwrap();
    let output = std::process::Command::new("git").args(["apply", "-p1"]).arg(&patch).current_dir(root).output().expect("git");
    assert!(output.status.success(), "git apply rejects the printed diff: {}", String::from_utf8_lossy(&output.stderr));
    std::fs::remove_file(&patch).unwrap();
}

/// Snapshot of `migrate --explain`, then the promises behind it on copies:
/// a fixture declared unchanged prints no diff (and every other one does,
/// or exits 2); the input compiles as 1.2; the printed diff, applied with
/// `git apply`, gives byte for byte what `--write` writes; that compiles
/// (clang-19) as the fixture's declared target; a second run over it (no
/// flags) changes nothing; and a failing batch writes nothing.
fn check_migrate_fixture(fixture: &Path, snapshot: &str) {
    let (code, diff, stderr) = run_fixture_bytes("migrate", fixture, &["--explain"]);
    let stdout = String::from_utf8_lossy(&diff);
    insta::assert_snapshot!(snapshot, format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"));
    let name = fixture.display();
    if declares_unchanged(fixture) {
        assert_eq!((code, &*stdout), (clasp::support::exit::EXIT_OK, ""), "{name} is declared unchanged: {stderr}");
    } else if code != clasp::support::exit::EXIT_ERROR {
        assert!(!diff.is_empty(), "{name}: no diff, yet not declared `// expect: unchanged`: {stderr}");
    }
    let target = target_flags(&declared_target(fixture));
    // Two copies, each laid out as the fixture's path from the crate root, where the diff's paths apply.
    let relative = fixture.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
    let (applied_root, written_root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (applied, written) = (applied_root.path().join(relative), written_root.path().join(relative));
    copy_tree(fixture, &applied);
    copy_tree(fixture, &written);
    let (code_write, out_write, stderr_write) = run_fixture_bytes("migrate", &written, &["--write"]);
    let expected = if code == clasp::support::exit::EXIT_ERROR { code } else { clasp::support::exit::EXIT_OK };
    assert_eq!((code_write, out_write.is_empty()), (expected, true), "{stderr_write}");
    if code == clasp::support::exit::EXIT_ERROR {
        assert!(same_tree(fixture, &written), "{name}: a batch with errors changed files");
        return;
    }
    if !diff.is_empty() {
        apply_diff(applied_root.path(), &diff);
    }
    assert_same_files(&applied, &written);
    for (original, migrated) in programs(fixture).iter().zip(programs(&written)) {
        if is_lenient(original) {
            // Legacy code only lenient vendor compilers accept: clang rejects it as 1.2, reads it as 2.0.
            assert!(
                clang19(original, &["-cl-std=CL1.2"]).is_err(),
                "fixture {} says lenient but is valid CL1.2",
                original.display()
            );
            clang19(original, &["-cl-std=CL2.0"])
                .unwrap_or_else(|e| panic!("fixture {} is not valid CL2.0: {e}", original.display()));
        } else {
            clang19(original, &["-cl-std=CL1.2"])
                .unwrap_or_else(|e| panic!("fixture {} is not valid CL1.2: {e}", original.display()));
        }
        clang19(&migrated, &target)
            .unwrap_or_else(|e| panic!("migrated {} does not compile as the target {target:?}: {e}", original.display()));
    }
    // With no flag: `--std auto` reads the result as the target's standard.
    let (again, diff, stderr_again) = run_fixture("migrate", &written, &[]);
    assert_eq!((again, diff.as_str()), (0, ""), "second run over {name}: {stderr_again}");
}

/// `applied` and `written` hold the same files, byte for byte (named by the first that differs).
fn assert_same_files(applied: &Path, written: &Path) {
    for entry in walkdir::WalkDir::new(written).into_iter().map(|e| e.unwrap()).filter(|e| e.file_type().is_file()) {
        // A file fixture is its own one entry (an empty relative path).
        let relative = entry.path().strip_prefix(written).unwrap();
        let other = if relative.as_os_str().is_empty() { applied.to_path_buf() } else { applied.join(relative) };
        let (from_diff, from_write) = (std::fs::read(&other).unwrap(), std::fs::read(entry.path()).unwrap());
        assert!(
            from_diff == from_write,
            "{}: the printed diff gives\n{}\nbut --write wrote\n{}",
            entry.path().display(),
            String::from_utf8_lossy(&from_diff),
            String::from_utf8_lossy(&from_write)
        );
    }
    assert!(same_tree(applied, written), "{}: the trees hold different files", written.display());
}

/// A fixture of legacy code that clang rejects as 1.2 (a program-scope
/// variable with no address space, a `static` in a function) says so on a
/// line of its own: `// input: lenient`.
fn is_lenient(program: &Path) -> bool {
    std::fs::read_to_string(program).is_ok_and(|text| text.lines().any(|l| l.trim() == "// input: lenient"))
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
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
    // Each header under the root changed, wherever it lies; the helper the SDK declares did not.
    let header = |path: &str| std::fs::read_to_string(base.join("project").join(path)).unwrap();
    assert!(header("kernels/beside.h").contains("float first_of(const float *p)"), "beside");
    assert!(header("kernels/detail/below.h").contains("void store_at(float *p, int i, float v)"), "below");
    assert!(header("kernels/detail/below.h").contains("uchar byte_at(__global const uchar *b, int i)"), "declared outside");
    assert!(header("include/shared.h").contains("float mean2(const float *t)"), "above");
    let include = format!("-I{sdk}");
    clang19(&base.join("project/kernels/blend.cl"), &["-cl-std=CL2.0", &include])
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
