//! One base for every file of a diff, wherever clasp runs: the current
//! directory when every file shown is under it, else the edit root, with a
//! note naming it. In each case the printed diff `git apply`s in the
//! directory it names and gives what `--write` writes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{canonical, clasp_in, git};

const HEADER: &str = "float first_g(__global const float *p) { return p[0]; }\n";
const KERNEL: &str = "#include \"../include/h.h\"\n\
                      float twice(__global const float *p) { return 2.0f * p[0]; }\n\
                      __kernel void ka(__global float *o) { o[0] = first_g(o) + twice(o); }\n";

/// A git work tree `proj` under a fresh directory: `kernels/a.cl` includes
/// the sibling `include/h.h`; `host/` is empty but for a placeholder;
/// `build/compile_commands.json` lists the kernel by its absolute path.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let proj = canonical(dir.path()).join("proj");
    for (file, text) in [("include/h.h", HEADER), ("kernels/a.cl", KERNEL), ("host/README", "host\n")] {
        std::fs::create_dir_all(proj.join(file).parent().unwrap()).unwrap();
        std::fs::write(proj.join(file), text).unwrap();
    }
    let kernels = proj.join("kernels");
    let commands = serde_json::json!([{
        "directory": kernels,
        "file": kernels.join("a.cl"),
        "arguments": ["clang", "-x", "cl", "-c", "a.cl"],
    }]);
    std::fs::create_dir_all(proj.join("build")).unwrap();
    std::fs::write(proj.join("build/compile_commands.json"), commands.to_string()).unwrap();
    git(&proj, &["init", "-q"]);
    git(&proj, &["config", "user.email", "ci@example.invalid"]);
    git(&proj, &["config", "user.name", "ci"]);
    git(&proj, &["add", "."]);
    git(&proj, &["commit", "-q", "-m", "project"]);
    (dir, proj)
}

fn read(proj: &Path) -> (String, String) {
    let text = |file: &str| std::fs::read_to_string(proj.join(file)).unwrap();
    (text("kernels/a.cl"), text("include/h.h"))
}

/// Runs `clasp migrate --check ARGS` in `run_in`: the diff names both files
/// from `applies_in` (with the note when that is not `run_in`), `git apply`
/// there takes it, and `--write` then writes the very same texts.
fn assert_diff_applies(proj: &Path, run_in: &Path, args: &[&str], applies_in: &Path) {
    let check: Vec<&str> = ["migrate", "--check", "--no-cache"].iter().chain(args).copied().collect();
    let (code, diff, stderr) = clasp_in(run_in, &check);
    assert_eq!(code, 1, "{stderr}");
    let diff = String::from_utf8(diff).unwrap();
    let named = |file: &str| format!("+++ b/{}\n", proj.join(file).strip_prefix(applies_in).unwrap().display());
    let (header, kernel) = (named("include/h.h"), named("kernels/a.cl"));
    assert!(diff.contains(&header) && diff.contains(&kernel), "expected {header:?} and {kernel:?} in:\n{diff}");
    let note = format!("clasp: note: the diff names files from {} (the edit root): apply it there", applies_in.display());
    assert_eq!(stderr.contains(&note), applies_in != run_in, "{stderr}");
    // The -q list names the files from the same base.
    let quiet: Vec<&str> = check.iter().copied().chain(["-q"]).collect();
    let (_, list, _) = clasp_in(run_in, &quiet);
    let listed: Vec<String> = String::from_utf8(list).unwrap().lines().map(|l| format!("+++ b/{l}\n")).collect();
    assert_eq!(listed, [header.clone(), kernel.clone()], "the -q list and the diff differ");
    let patch = run_in.join("clasp.diff");
    std::fs::write(&patch, &diff).unwrap();
    let output = Command::new("git").arg("apply").arg(&patch).current_dir(applies_in).output().unwrap();
    assert!(
        output.status.success(),
        "git apply in {}:\n{diff}\n{}",
        applies_in.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::remove_file(&patch).unwrap();
    let applied = read(proj);
    assert_ne!(applied, (KERNEL.to_string(), HEADER.to_string()), "the diff changed nothing");
    git(proj, &["checkout", "-q", "."]);
    let write: Vec<&str> = ["migrate", "--write", "--no-cache"].iter().chain(args).copied().collect();
    let (code, _, stderr) = clasp_in(run_in, &write);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read(proj), applied, "the diff and --write disagree");
    git(proj, &["checkout", "-q", "."]);
}

#[test]
fn diff_from_a_subdirectory_with_a_sibling_header_applies_at_the_edit_root() {
    let (_dir, proj) = project();
    assert_diff_applies(&proj, &proj.join("kernels"), &["a.cl"], &proj);
}

#[test]
fn diff_of_the_parent_directory_from_a_subdirectory_applies_at_the_edit_root() {
    let (_dir, proj) = project();
    assert_diff_applies(&proj, &proj.join("host"), &[".."], &proj);
}

#[test]
fn diff_from_a_directory_above_the_files_applies_there() {
    let (dir, proj) = project();
    let above = canonical(dir.path());
    assert_diff_applies(&proj, &above, &["proj/kernels/a.cl"], &above);
    let commands = proj.join("build/compile_commands.json");
    assert_diff_applies(&proj, &above, &["--compile-commands", commands.to_str().unwrap()], &above);
}

#[test]
fn diff_of_compile_commands_from_a_subdirectory_applies_at_the_edit_root() {
    let (_dir, proj) = project();
    let commands = proj.join("build/compile_commands.json");
    for sub in ["kernels", "host"] {
        assert_diff_applies(&proj, &proj.join(sub), &["--compile-commands", commands.to_str().unwrap()], &proj);
    }
}

#[test]
fn explanations_name_files_under_the_current_directory_relative_to_it() {
    let (_dir, proj) = project();
    let commands = proj.join("build/compile_commands.json");
    let (code, _, stderr) =
        clasp_in(&proj, &["migrate", "--check", "--no-cache", "--explain", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    // compile_commands lists the kernel by its absolute path; the header is found by clang.
    assert!(stderr.contains("\nkernels/a.cl:2:35: generic-param:"), "{stderr}");
    assert!(stderr.contains("include/h.h:1:37: generic-param:") && !stderr.contains(proj.to_str().unwrap()), "{stderr}");
}
