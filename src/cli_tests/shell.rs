//! The shell conventions users of ruff, black and clang-tidy reach for: no
//! PATH means `.`, `--exit-zero`, shell completions and a man page from the
//! same definitions as `--help`.

use std::path::Path;

use crate::support::{clasp_in, HELPER_UNIT};

/// A directory holding one unit that clasp changes (`k.cl`) and a git repository around it.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::support::repository(dir.path(), &["k.cl"]);
    dir
}

#[test]
fn migrate_without_a_path_works_on_the_current_directory() {
    let dir = project();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--no-cache"]);
    let (dot_code, dot, _) = clasp_in(dir.path(), &["migrate", "--check", "--no-cache", "."]);
    assert_eq!((code, dot_code), (1, 1), "{stderr}");
    assert_eq!(stdout, dot, "no PATH is `.`");
    assert!(String::from_utf8_lossy(&stdout).starts_with("--- a/k.cl\n+++ b/k.cl\n"), "{stderr}");
}

#[test]
fn analyze_without_a_path_works_on_the_current_directory() {
    let dir = project();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["analyze", "--json"]);
    let (dot_code, dot, _) = clasp_in(dir.path(), &["analyze", "--json", "."]);
    assert_eq!((code, dot_code), (0, 0), "{stderr}");
    assert_eq!(stdout, dot, "no PATH is `.`");
    assert!(String::from_utf8_lossy(&stdout).contains("k.cl"), "{}", String::from_utf8_lossy(&stdout));
}

#[test]
fn compile_commands_still_stands_for_the_paths() {
    // `.` is only the default when nothing else names the units.
    let dir = project();
    std::fs::write(dir.path().join("other.cl"), HELPER_UNIT).unwrap();
    std::fs::write(dir.path().join("units.json"), r#"[{"file": "k.cl", "options": ""}]"#).unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--compile-commands", "units.json"]);
    assert_eq!(code, 0, "{stderr}");
    let stdout = String::from_utf8_lossy(&stdout);
    assert!(stdout.contains("+++ b/k.cl") && !stdout.contains("other.cl"), "{stdout}");
}

#[test]
fn exit_zero_keeps_pending_changes_at_0_and_the_report_as_it_is() {
    let dir = project();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--no-cache", "k.cl"]);
    assert_eq!(code, 1, "{stderr}");
    let (zero_code, zero_stdout, zero_stderr) =
        clasp_in(dir.path(), &["migrate", "--check", "--exit-zero", "--no-cache", "k.cl"]);
    assert_eq!(zero_code, 0, "{zero_stderr}");
    assert_eq!(zero_stdout, stdout, "the same diff");
    // The result cache replays the run with the code of --check alone: --exit-zero still applies.
    clasp_in(dir.path(), &["migrate", "--check", "-q", "k.cl"]);
    let (cached_code, _, cached_stderr) = clasp_in(dir.path(), &["migrate", "--check", "-q", "--exit-zero", "k.cl"]);
    assert_eq!(cached_code, 0, "{cached_stderr}");
}

#[test]
fn exit_zero_still_exits_2_on_an_error() {
    let dir = project();
    std::fs::write(dir.path().join("broken.cl"), "__kernel void k(__global float *p) { p[0] = ; }\n").unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--exit-zero", "--no-cache", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("broken.cl:1:"), "{stderr}");
}

/// The long options `clasp COMMAND -h` lists.
fn long_options(command: &str) -> Vec<String> {
    let (code, help, _) = crate::support::clasp(&[command, "-h"]);
    assert_eq!(code, 0);
    // Clap's own options: the host spellings after them (`--build-options`) are rewritten before clap.
    let own = help.split("Host build options").next().unwrap();
    let words = own.split(|c: char| c.is_whitespace() || ",=[]<>()`".contains(c));
    let mut options: Vec<String> = words.filter(|w| w.starts_with("--") && w.len() > 2).map(str::to_string).collect();
    options.sort();
    options.dedup();
    assert!(options.len() > 10, "{options:?}");
    options
}

#[test]
fn completions_cover_every_command_and_option() {
    let migrate_options = long_options("migrate");
    for (shell, marker) in [("bash", "complete -F"), ("zsh", "#compdef clasp"), ("fish", "complete -c clasp")] {
        let (code, script, stderr) = crate::support::clasp(&["completions", shell]);
        assert_eq!(code, 0, "{stderr}");
        assert!(script.contains(marker), "{shell}: {script}");
        for command in ["analyze", "migrate", "devices", "rule", "run-check", "completions"] {
            assert!(script.contains(command), "{shell} completes {command}");
        }
        for option in &migrate_options {
            assert!(script.contains(option.trim_start_matches('-')), "{shell} completes {option}");
        }
    }
    let (code, _, stderr) = crate::support::clasp(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("invalid value 'tcsh'"), "{stderr}");
}

#[test]
fn man_pages_document_every_option_from_the_same_definitions() {
    let (code, page, stderr) = crate::support::clasp(&["manpage"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(page.contains(".TH clasp 1") && page.contains("migrate"), "{page}");
    for command in ["migrate", "analyze"] {
        let (code, page, stderr) = crate::support::clasp(&["manpage", command]);
        assert_eq!(code, 0, "{stderr}");
        assert!(page.contains(&format!(".TH clasp-{command} 1")), "{page}");
        // roff escapes every `-`.
        for option in long_options(command) {
            assert!(page.contains(&option.replace('-', "\\-")), "clasp-{command}(1) documents {option}");
        }
    }
    // The long help, not only the summary, is in the page.
    let (code, page, _) = crate::support::clasp(&["manpage", "migrate"]);
    assert_eq!(code, 0);
    assert!(page.contains("the pending diff"), "{page}");
    let (code, _, stderr) = crate::support::clasp(&["manpage", "nosuch"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no command `nosuch`"), "{stderr}");
}

#[test]
fn scripts_man_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/man");
    let status = std::process::Command::new(script)
        .arg(dir.path())
        .env("CLASP", env!("CARGO_BIN_EXE_clasp"))
        .status()
        .expect("run scripts/man");
    assert!(status.success());
    for page in [
        "clasp.1",
        "clasp-analyze.1",
        "clasp-migrate.1",
        "clasp-devices.1",
        "clasp-rule.1",
        "clasp-run-check.1",
        "clasp-completions.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(text.starts_with(".ie") && text.contains(".SH NAME"), "{page}: {text}");
    }
}

/// `pre-commit try-repo` over a repository holding clasp's `.pre-commit-hooks.yaml` (as a
/// project naming clasp's repository gets it, whatever the checkout's own git state), run in
/// `repo` (`scripts/setup` installs pre-commit into `.tools/precommit`).
fn pre_commit(repo: &Path) -> (i32, String) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hooks = std::fs::read_to_string(manifest.join(".pre-commit-hooks.yaml")).expect("clasp's .pre-commit-hooks.yaml");
    let clasp_repository = committed_repo(&[(".pre-commit-hooks.yaml", hooks.as_str())]);
    let installed = manifest.join(".tools/precommit");
    assert!(installed.join("pre_commit").is_dir(), "pre-commit is not installed in {}: run scripts/setup", installed.display());
    let clasp_dir = Path::new(env!("CARGO_BIN_EXE_clasp")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(clasp_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let home = repo.join(".pre-commit-home");
    let output = std::process::Command::new("python3")
        .args(["-m", "pre_commit", "try-repo"])
        .arg(clasp_repository.path())
        .args(["clasp", "--all-files"])
        .current_dir(repo)
        .env("PYTHONPATH", &installed)
        .env("PRE_COMMIT_HOME", &home)
        .env("PATH", path)
        .output()
        .expect("run python3");
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().unwrap_or(-1), text)
}

/// A git repository holding `files`, committed.
fn committed_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::support::repository_of(dir.path(), files);
    dir
}

#[test]
fn the_pre_commit_hook_of_clasps_repository_fails_on_a_pending_migration() {
    let pending = committed_repo(&[("k.cl", HELPER_UNIT)]);
    let (code, out) = pre_commit(pending.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("clasp migrate --check") && out.contains("Failed") && out.contains("k.cl"), "{out}");
    // Already migrated (clasp's own output): the hook passes.
    let migrated = std::process::Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["migrate", "--write", "--allow-dirty", "k.cl"])
        .current_dir(pending.path())
        .output()
        .unwrap();
    assert!(migrated.status.success(), "{}", String::from_utf8_lossy(&migrated.stderr));
    let text = std::fs::read_to_string(pending.path().join("k.cl")).unwrap();
    let clean = committed_repo(&[("k.cl", text.as_str())]);
    let (code, out) = pre_commit(clean.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Passed"), "{out}");
}

#[test]
fn the_pre_commit_hook_checks_a_header_through_the_unit_that_includes_it() {
    // The header needs its includer's macro: named alone it would not compile.
    let unit = "#define TILE 8\n#include \"tile.clh\"\n__kernel void kt(__global const float *in, __global float *out) { out[0] = tile_get(in, 3); }\n";
    let header = "float tile_get(const float *p, int i) { return p[i % TILE]; }\n";
    let repo = committed_repo(&[("kernels/t.cl", unit), ("kernels/tile.clh", header)]);
    let (code, out) = pre_commit(repo.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Passed"), "{out}");
}
