//! A real editor as `clasp server`'s client: Neovim's built-in LSP client,
//! headless (`nvim --headless --clean -u fixtures/server/nvim_init.lua`),
//! opens the duplicate-pair fixture, waits for its diagnostics, applies the
//! merge's code action and writes the file; the file must then hold what
//! `clasp migrate --interactive` writes with that change set alone accepted.

use std::process::Command;

use super::server::{migrated_by_cli, pair_fixture};

#[test]
fn neovim_applies_a_change_set_from_clasp_server() {
    let version = Command::new("nvim").arg("--version").output();
    let Ok(version) = version else { panic!("nvim not found: run scripts/setup (it installs Debian's neovim)") };
    let first = String::from_utf8_lossy(&version.stdout).lines().next().unwrap_or("").to_string();
    assert!(first.starts_with("NVIM v0.") || first.starts_with("NVIM v1."), "{first}");
    let (dir, file) = pair_fixture();
    let report = dir.path().join("report.txt");
    let init = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/nvim_init.lua");
    let output = Command::new("nvim")
        .args(["--headless", "--clean", "-u"])
        .arg(&init)
        .arg(file.file_name().unwrap())
        .current_dir(file.parent().unwrap())
        .env("CLASP_BIN", env!("CARGO_BIN_EXE_clasp"))
        .env("CLASP_TEST_CODE", "merge-duplicates")
        .env("CLASP_TEST_REPORT", &report)
        .output()
        .expect("run nvim");
    let said = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(output.status.success(), "nvim: {said}\n{}", String::from_utf8_lossy(&output.stderr));
    let applied = said.lines().find(|l| l.starts_with("applied: clasp: apply this change set (")).expect(&said);
    assert!(
        applied.contains("merge-duplicates") && applied.contains("verified: recompiled, kernels proven equivalent"),
        "{said}"
    );
    let original =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/pair.cl")).unwrap();
    let expected = {
        let fresh = tempfile::tempdir().unwrap();
        let copy = std::fs::canonicalize(fresh.path()).unwrap().join("pair.cl");
        std::fs::write(&copy, &original).unwrap();
        migrated_by_cli(&copy, &["--interactive", "--allow-dirty"], "y\nn\n")
    };
    assert_ne!(expected, original);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected, "nvim wrote: {said}");
}
