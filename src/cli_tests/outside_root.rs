//! A file outside the edit root that would change is never edited, and never
//! passed over silently: a warning names it, the root, and how to take it in,
//! with the current directory at the root or below it, the header reached
//! through `-I` from a folder beside the kernels or through a symbolic link,
//! and two headers of one name. It is no pending change: `--check` exits 0.
//! A header outside the root that would not change is not named.

use std::path::{Path, PathBuf};

use crate::support::{canonical, clasp_env};

const FIRST: &str = "float first(__global const float *v) { return v[0]; }\n";

/// Writes `files` (path, text) under `base`.
fn write(base: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        std::fs::create_dir_all(base.join(path).parent().unwrap()).unwrap();
        std::fs::write(base.join(path), text).unwrap();
    }
}

/// `w/p/kernels/k.cl` calling `first` of `w/p/include/h.h` (found through
/// `-I ../include`), a kernel with nothing of its own to change: the folder `w` (canonical).
fn project(dir: &Path) -> PathBuf {
    let w = canonical(dir);
    let kernel = "#include \"h.h\"\n__kernel void k(__global float *o) { o[0] = first(o); }\n";
    write(&w, &[("p/include/h.h", FIRST), ("p/kernels/k.cl", kernel)]);
    w
}

/// Runs clasp migrate in `cwd` with `args` (`--no-cache` first): (exit code, stdout, stderr).
fn migrate(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["migrate", "--no-cache"];
    all.extend(args);
    clasp_env::<&str>(cwd, &all, &[])
}

/// The lines of `stderr` that are warnings.
fn warnings(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(": warning: ")).collect()
}

/// The message for `first`'s header at `place`, outside `root`, taken in by `--root wider`.
fn first_warning(place: &str, root: &Path, wider: &Path) -> String {
    format!(
        "{place}:1:35: warning: `first` would change here, but this file lies outside the edit root {}, so it is left \
         as it is; to migrate it, widen the root: --root {} (or `root` in clasp.toml)",
        root.display(),
        wider.display()
    )
}

#[test]
fn from_the_root_a_header_beside_it_is_named_and_check_still_passes() {
    let dir = tempfile::tempdir().unwrap();
    let w = project(dir.path());
    let kernels = w.join("p/kernels");
    let expected = first_warning("../include/h.h", &kernels, &w.join("p"));
    for extra in [&[][..], &["--check"], &["--write"]] {
        let mut args = vec!["--root", ".", "-I", "../include", "k.cl"];
        args.extend(extra);
        let (code, stdout, stderr) = migrate(&kernels, &args);
        assert_eq!((code, stdout.as_str()), (0, ""), "{extra:?}: {stderr}");
        assert_eq!(warnings(&stderr), [expected.as_str()], "{extra:?}");
    }
    assert_eq!(std::fs::read_to_string(w.join("p/include/h.h")).unwrap(), FIRST, "never edited");
    // In the JSON report too, named from here.
    let (_, json, _) = migrate(&kernels, &["--root", ".", "-I", "../include", "--format", "json", "k.cl"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["warnings"][0]["path"], "../include/h.h", "{json}");
    // The root the warning suggests takes the header in.
    let (code, diff, stderr) = migrate(&kernels, &["--root", "..", "-I", "../include", "k.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.contains("+float first(const float *v)"), "{diff}{stderr}");
    assert!(warnings(&stderr).is_empty(), "{stderr}");
}

/// clasp.toml's `root` sets the root at kernels/; clasp runs in kernels/sub,
/// whose kernel includes the header by a relative path.
#[test]
fn from_below_the_root_set_in_clasp_toml_the_header_is_named_from_there() {
    let dir = tempfile::tempdir().unwrap();
    let w = project(dir.path());
    let kernel = "#include \"../../include/h.h\"\n__kernel void k2(__global float *o) { o[1] = first(o); }\n";
    write(&w, &[("p/kernels/clasp.toml", "root = \".\"\n"), ("p/kernels/sub/k2.cl", kernel)]);
    let (code, _, stderr) = migrate(&w.join("p/kernels/sub"), &["--check", "k2.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let expected = first_warning("../../include/h.h", &w.join("p/kernels"), &w.join("p"));
    assert_eq!(warnings(&stderr), [expected.as_str()]);
}

/// Two headers named h.h outside the root, one reached through a symbolic
/// link under the root (kernels/vend -> w/vendor): each named once, the
/// linked one with where it lies; `peek` (a `__constant` pointer) would not
/// change, and is not named.
#[test]
fn two_headers_of_one_name_and_one_through_a_link_are_each_named() {
    let dir = tempfile::tempdir().unwrap();
    let w = project(dir.path());
    let vendor = "float peek(__constant float *c) { return c[0]; }\nfloat second(__global const float *v) { return v[1]; }\n";
    let kernel = "#include \"../include/h.h\"\n#include \"vend/h.h\"\n\
                  __kernel void kv(__global float *o, __constant float *c) { o[0] = first(o) + second(o) + peek(c); }\n";
    write(&w, &[("vendor/h.h", vendor), ("p/kernels/kv.cl", kernel)]);
    std::os::unix::fs::symlink("../../vendor", w.join("p/kernels/vend")).unwrap();
    let (code, stdout, stderr) = migrate(&w.join("p/kernels"), &["--root", ".", "kv.cl"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    let linked = format!(
        "vend/h.h:2:36: warning: `second` would change here, but this file ({}) lies outside the edit root {}, so it is \
         left as it is; to migrate it, widen the root: --root {} (or `root` in clasp.toml)",
        w.join("vendor/h.h").display(),
        w.join("p/kernels").display(),
        w.display()
    );
    let beside = first_warning("../include/h.h", &w.join("p/kernels"), &w.join("p"));
    assert_eq!(warnings(&stderr), [beside.as_str(), linked.as_str()]);
    assert!(!stderr.contains("`peek`"), "{stderr}");
}

/// A header outside the root whose helpers would not change (no pointer, or
/// a `__constant` one): no warning.
#[test]
fn a_header_outside_the_root_that_would_not_change_is_not_named() {
    let dir = tempfile::tempdir().unwrap();
    let w = canonical(dir.path());
    let header = "float twice(float x) { return 2.0f * x; }\nfloat peek(__constant float *c) { return c[0]; }\n";
    let kernel = "#include \"../include/h.h\"\n__kernel void k(__global float *o, __constant float *c) { o[0] = twice(o[1]) + peek(c); }\n";
    write(&w, &[("p/include/h.h", header), ("p/kernels/k.cl", kernel)]);
    let (code, _, stderr) = migrate(&w.join("p/kernels"), &["--root", ".", "--check", "k.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(warnings(&stderr).is_empty(), "{stderr}");
}
