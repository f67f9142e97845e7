//! `--out-dir DIR`: every copy at its path from the edit root, whatever the
//! current directory (the root, a folder below it, a folder beside it), the
//! paths' spelling (relative, through a symbolic link) or the files' names
//! (two `k.cl` in different folders); never a copy over a file the run migrates.

use std::path::{Path, PathBuf};

use crate::support::{canonical, clasp_env};

/// A kernel `k.cl` of folder `name`: a helper of its own and `first`, from
/// include/h.h, both of which become generic.
fn kernel(name: &str) -> String {
    format!(
        "#include \"h.h\"\nfloat load_{name}(__global const float *v) {{ return v[1]; }}\n\
         __kernel void k_{name}(__global float *o) {{ o[0] = first(o) + load_{name}(o); }}\n"
    )
}

/// A project `p` in `dir`, a git work tree (so the edit root, whatever folder
/// of it the paths name): kernels/a/k.cl and kernels/b/k.cl, each including
/// include/h.h, which sits beside kernels/ and is found through `-I`. Its path (canonical).
fn project(dir: &Path) -> PathBuf {
    let p = canonical(dir).join("p");
    let files = [
        ("include/h.h", "float first(__global const float *v) { return v[0]; }\n".to_string()),
        ("kernels/a/k.cl", kernel("a")),
        ("kernels/b/k.cl", kernel("b")),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(p.join(path).parent().unwrap()).unwrap();
        std::fs::write(p.join(path), text).unwrap();
    }
    std::fs::create_dir(p.join(".git")).unwrap();
    p
}

/// The files under `out`, relative to it, sorted.
fn tree(out: &Path) -> Vec<String> {
    let files = walkdir::WalkDir::new(out).into_iter().flatten().filter(|e| e.file_type().is_file());
    let mut names: Vec<String> = files.map(|e| e.path().strip_prefix(out).unwrap().display().to_string()).collect();
    names.sort();
    names
}

/// `out` holds the project's three files at their paths from `p`, migrated.
fn assert_mirrored(out: &Path, stderr: &str) {
    assert_eq!(tree(out), ["include/h.h", "kernels/a/k.cl", "kernels/b/k.cl"], "{stderr}");
    let read = |path: &str| std::fs::read_to_string(out.join(path)).unwrap();
    assert_eq!(read("include/h.h"), "float first(const float *v) { return v[0]; }\n");
    assert!(read("kernels/a/k.cl").contains("float load_a(const float *v)"), "a's own copy: {}", read("kernels/a/k.cl"));
    assert!(read("kernels/b/k.cl").contains("float load_b(const float *v)"), "b's own copy: {}", read("kernels/b/k.cl"));
}

/// Migrates in `cwd` with `args` (`--no-cache` first): stderr, once it exited 0.
fn migrate(cwd: &Path, args: &[&str]) -> String {
    let mut all = vec!["migrate", "--no-cache"];
    all.extend(args);
    let (code, _, stderr) = clasp_env::<&str>(cwd, &all, &[]);
    assert_eq!(code, 0, "{args:?} in {}: {stderr}", cwd.display());
    stderr
}

#[test]
fn from_the_root_each_copy_is_at_its_path_from_the_root_and_no_note_is_needed() {
    let dir = tempfile::tempdir().unwrap();
    let p = project(dir.path());
    let out = canonical(dir.path()).join("out");
    let stderr = migrate(&p, &["-I", "include", "--out-dir", out.to_str().unwrap(), "kernels"]);
    assert_mirrored(&out, &stderr);
    assert!(!stderr.contains("--out-dir mirrors"), "{stderr}");
}

/// From kernels/ (the header `../include/h.h`) the copies are laid out as
/// from the root: not `out/a/k.cl` and `out/include/h.h` side by side.
#[test]
fn from_a_folder_below_the_root_the_copies_still_mirror_the_root_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let p = project(dir.path());
    let stderr = migrate(&p.join("kernels"), &["-I", "../include", "--out-dir", "../../out", "."]);
    assert_mirrored(&canonical(dir.path()).join("out"), &stderr);
    let note = format!("clasp: note: --out-dir mirrors paths from the edit root {}: ", p.display());
    assert!(stderr.contains(&note), "{stderr}");
}

/// From a folder beside the project (`--root` naming it), and through a
/// symbolic link to it: paths as given (`../p/...`, `link/...`) never reach the layout.
#[test]
fn from_beside_the_root_or_through_a_link_the_copies_mirror_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let p = project(dir.path());
    let app = canonical(dir.path()).join("app");
    std::fs::create_dir(&app).unwrap();
    let stderr = migrate(&app, &["--root", "../p", "-I", "../p/include", "--out-dir", "out", "../p/kernels"]);
    assert_mirrored(&app.join("out"), &stderr);
    std::os::unix::fs::symlink(&p, dir.path().join("link")).unwrap();
    let stderr = migrate(dir.path(), &["-I", "link/include", "--out-dir", "linked", "link/kernels/a", "link/kernels/b/k.cl"]);
    assert_mirrored(&dir.path().join("linked"), &stderr);
}

/// `--out-dir sub` under the root: the root's k.cl would be copied over
/// sub/k.cl, which the run migrates too. Refused, naming both; sub/k.cl's
/// own copy (sub/sub/k.cl) is written, and sub/k.cl is left as it was.
#[test]
fn a_copy_that_would_replace_a_file_the_run_migrates_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = canonical(dir.path());
    // Two kernels of one name, neither including anything.
    let lone = |name: &str| kernel(name).replace("#include \"h.h\"\n", "").replace("first(o) + ", "");
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("k.cl"), lone("top")).unwrap();
    std::fs::write(root.join("sub/k.cl"), lone("below")).unwrap();
    let (code, _, stderr) = clasp_env::<&str>(&root, &["migrate", "--no-cache", "--root", ".", "--out-dir", "sub", "."], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("error: --out-dir: the copy of k.cl would replace sub/k.cl, which this run migrates"), "{stderr}");
    let text = |path: &str| std::fs::read_to_string(root.join(path)).unwrap_or_default();
    assert_eq!((text("k.cl"), text("sub/k.cl")), (lone("top"), lone("below")), "both originals are left as they were");
    assert!(text("sub/sub/k.cl").contains("float load_below(const float *v)"), "{stderr}");
}
