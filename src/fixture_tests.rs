//! Fixture snapshots: every `.cl` under `fixtures/<command>/` is run through
//! that command in-process and its stdout, stderr and exit code are
//! compared with `snapshots/`. A fixture's first line may be
//! `// clasp-args: ...` with extra options.

use std::path::Path;

/// Runs clasp on one fixture; returns (exit code, stdout, stderr).
fn run_fixture(command: &str, fixture: &Path, extra: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let relative = fixture.strip_prefix(root).unwrap_or(fixture).to_path_buf();
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut args = vec!["clasp".to_string(), command.to_string()];
    if let Some(directive) = text.lines().next().and_then(|l| l.strip_prefix("// clasp-args:")) {
        args.extend(directive.split_whitespace().map(String::from));
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(relative.display().to_string());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    std::env::set_current_dir(root).unwrap();
    let code = clasp::cli::run(args, &mut out, &mut err);
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
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
fn analyze_json_is_sorted_and_stable() {
    settings().bind(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (code, stdout, _) = run_fixture("analyze", &root.join("fixtures/analyze/flows.cl"), &["--json"]);
        assert_eq!(code, 0);
        let value: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
        insta::assert_snapshot!("analyze_flows_json", serde_json::to_string_pretty(&value).unwrap());
    });
}

/// Compiles `path` as OpenCL C 2.0; returns clang's messages on failure.
fn compiles_as_cl20(path: &Path) -> Result<(), String> {
    let mut args = clasp::options::CompileOptions::default()
        .clang_args(Some(&clasp::options::Target::Cl20.std_flags()));
    args.push("-fsyntax-only".into());
    clasp::lower::run_clang(path, &args).map(|_| ())
}

#[test]
fn migrate_fixtures() {
    settings().bind(|| {
        insta::glob!("../fixtures/migrate", "**/*.cl", |path| {
            let (code, stdout, stderr) = run_fixture("migrate", path, &["--explain"]);
            insta::assert_snapshot!(format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"));

            // The migrated copy compiles as 2.0, and a second run over it changes nothing.
            let out = tempfile::tempdir().unwrap();
            let out_arg = format!("--out-dir={}", out.path().display());
            let (code_out, _, stderr_out) = run_fixture("migrate", path, &[&out_arg]);
            assert_eq!(code_out, code, "{stderr_out}");
            if code == 2 {
                assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "nothing written for a broken file");
                return;
            }
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let relative = path.strip_prefix(root).unwrap();
            let migrated = out.path().join(relative);
            let result = if migrated.exists() { migrated.clone() } else { path.to_path_buf() };
            compiles_as_cl20(&result).unwrap_or_else(|e| panic!("{} does not compile as CL2.0: {e}", result.display()));
            let (again, diff, stderr_again) = run_fixture("migrate", &result, &["--std", "CL2.0"]);
            assert_eq!((again, diff.as_str()), (0, ""), "second run over {}: {stderr_again}", result.display());
        });
    });
}
