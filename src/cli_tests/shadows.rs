//! A header that would now be found before one a stored result read (a new
//! file at the same relative path in a directory searched first, at any
//! depth, or through `CPATH`) makes the result stale: the run works again
//! and prints what a run with no cache prints.

use std::path::Path;

use crate::support::clasp_env;

const HEADER_MERGED: &str =
    "float getv_g(__global const float *p) { return p[0]; }\nfloat getv_l(__local const float *p) { return p[0]; }\n";
const HEADER_APART: &str =
    "float getv_g(__global const float *p) { return p[0]; }\nfloat getv_l(__local const float *p) { return p[1]; }\n";
const KERNEL: &str = "#include \"sub/deep/x.h\"\n__kernel void k(__global float *o, __global const float *a) {\n  __local float t[4];\n  t[0] = a[0];\n  o[0] = getv_g(a) + getv_l(t);\n}\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The stdout of `clasp migrate ARGS` in `dir` with `env`, checking its exit code is not 2.
fn printed(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let (code, stdout, stderr) = clasp_env(dir, &[&["migrate", "--check"][..], args].concat(), env);
    assert_ne!(code, 2, "{stderr}");
    stdout
}

#[test]
fn a_header_now_found_first_in_an_include_directory_is_seen() {
    for timings in [false, true] {
        // Without --timings the run's output is replayed whole; with it, units and verdicts are read back.
        let mut flags = vec!["--root", ".", "-I", "inc1", "-I", "inc2", "k"];
        if timings {
            flags.insert(0, "--timings");
        }
        let flags = flags.as_slice();
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("inc2/sub/deep/x.h"), HEADER_MERGED);
        write(&dir.path().join("inc1/sub/other.h"), "#define OTHER 1\n");
        write(&dir.path().join("k/k.cl"), KERNEL);
        let before = printed(dir.path(), flags, &[]);
        assert!(before.contains("inc2/sub/deep/x.h") && before.contains("+float getv("), "{before}");
        assert_eq!(printed(dir.path(), flags, &[]), before);
        write(&dir.path().join("inc1/sub/deep/x.h"), HEADER_APART);
        let after = printed(dir.path(), flags, &[]);
        let uncached = printed(dir.path(), &[&["--no-cache"][..], flags].concat(), &[]);
        assert_eq!(after, uncached, "--timings {timings}");
        assert!(!after.contains("inc2/sub/deep/x.h"), "{after}");
    }
}

#[test]
fn the_include_directories_of_the_environment_are_part_of_every_result() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a/sub/deep/x.h"), HEADER_MERGED);
    write(&dir.path().join("b/sub/deep/x.h"), HEADER_APART);
    write(&dir.path().join("k/k.cl"), KERNEL);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for flags in [&["--root", ".", "k"][..], &["--timings", "--root", ".", "k"]] {
        let with_a = printed(dir.path(), flags, &[("CPATH", a)]);
        assert!(with_a.contains("+float getv("), "{with_a}");
        let with_b = printed(dir.path(), flags, &[("CPATH", b)]);
        assert_eq!(with_b, printed(dir.path(), &[&["--no-cache"][..], flags].concat(), &[("CPATH", b)]));
        assert_ne!(with_a, with_b);
    }
}
