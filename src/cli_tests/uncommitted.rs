//! `--write` and git: files with uncommitted, staged, untracked or renamed
//! changes are refused, as is a repository git cannot read.

use std::process::Command;

use crate::support::{clasp, git, repository, HELPER_UNIT};

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
    // Nothing was written, so the summary does not say it was.
    assert!(stderr.contains("2 functions would migrate"), "{stderr}");
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
fn interactive_refuses_uncommitted_changes_before_asking_anything() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    repository(repo, &["clean.cl", "dirty.cl"]);
    let edited = format!("// edited\n{HELPER_UNIT}");
    std::fs::write(repo.join("dirty.cl"), &edited).unwrap();
    let review = |extra: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_clasp"))
            .args([&["migrate", "--interactive"][..], extra, &["."]].concat())
            .current_dir(repo)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // It may ask nothing and end before reading the answers.
        let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"y\ny\n");
        let output = child.wait_with_output().unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
    };
    let (code, stdout, stderr) = review(&[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("uncommitted changes") && stderr.contains("dirty.cl"), "{stderr}");
    assert!(!stderr.contains("apply this change?") && stdout.is_empty(), "nothing asked, nothing shown:\n{stdout}{stderr}");
    assert_eq!(std::fs::read_to_string(repo.join("dirty.cl")).unwrap(), edited);
    assert_eq!(std::fs::read_to_string(repo.join("clean.cl")).unwrap(), HELPER_UNIT);
    // --allow-dirty reviews and writes them.
    let (code, _, stderr) = review(&["--allow-dirty"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.matches("apply this change?").count(), 2, "{stderr}");
    assert!(std::fs::read_to_string(repo.join("dirty.cl")).unwrap().contains("float first(const float *v)"));
}
