//! What makes a stored result stale is seen: a header that would now be
//! found before one it read (a new file at the same relative path in a
//! directory searched first, at any depth, through `..`, `CPATH` or
//! `-isystem`), a header only the target's build includes, a file only
//! `__has_include` asks for, a unit CL1.2 rejected. The run works again and
//! prints what a run with no cache prints, whether its output is replayed
//! whole or its units and verdicts are read back (`--timings`).

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

const NO_ENV: &[(&str, &str)] = &[];

const SUMS: &str =
    "float sum_g(__global const float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n\
float sum_l(__local const float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n";
const SUMS_APART: &str =
    "float sum_g(__global const float *p, int n) { return p[0]; }\nfloat sum_l(__local const float *p, int n) { return p[1]; }\n";
const CALLS: &str = "__kernel void k(__global const float *a, __local float *t, __global float *o, int n) { o[0] = sum_g(a, n) + sum_l(t, n); }\n";
/// `SP` decides `sum_g`'s space: `__local` makes the kernel's call an error.
const SP_SUMS: &str =
    "float sum_g(SP const float *p, int n) { return p[0]; }\nfloat sum_l(__local const float *p, int n) { return p[0]; }\n";

/// In a fresh directory: `files` written, `clasp migrate --check ARGS` run
/// twice (stored), `change` made, then the run must print what a run with
/// no cache prints, its output replayed whole or its units and verdicts read back.
fn stale_after(files: &[(&str, &str)], args: &[&str], change: impl Fn(&Path)) {
    for timings in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            write(&dir.path().join(name), text);
        }
        let mut flags: Vec<&str> = args.to_vec();
        if timings {
            flags.insert(0, "--timings");
        }
        let run = || clasp_env(dir.path(), &[&["migrate", "--check"][..], &flags].concat(), NO_ENV);
        let (code, before, _) = run();
        assert_eq!(run().0, code);
        assert_eq!(run().1, before);
        change(dir.path());
        let (code, stdout, stderr) = clasp_env(dir.path(), &[&["migrate", "--check"][..], &flags].concat(), NO_ENV);
        let (fresh_code, fresh, _) = clasp_env(dir.path(), &[&["migrate", "--check", "--no-cache"][..], &flags].concat(), NO_ENV);
        assert_eq!((code, stdout), (fresh_code, fresh), "--timings {timings}: {stderr}");
    }
}

#[test]
fn a_header_only_the_targets_build_includes_is_part_of_the_result() {
    let kernel = format!("#if __OPENCL_C_VERSION__ >= 200\n#include \"cl2.h\"\n#endif\n{SUMS}{CALLS}");
    stale_after(&[("k.cl", &kernel), ("cl2.h", "// nothing yet\n")], &["k.cl"], |dir| write(&dir.join("cl2.h"), "#error no\n"));
}

#[test]
fn a_unit_cl12_rejected_is_read_again() {
    let kernel = "#if __OPENCL_C_VERSION__ < 200\n#include \"old.h\"\n#endif\n\
        __kernel void k(__global const float *a, __local float *t, __global float *o) {\n\
        #if __OPENCL_C_VERSION__ < 200\n  o[0] = first_g(a) + first_l(t);\n#endif\n}\n";
    let old = "float first_g(__global const float *p) { return p[0]; }\nfloat first_l(__local const float *p) { return p[0]; }\n";
    stale_after(&[("k.cl", kernel)], &["k.cl"], |dir| write(&dir.join("old.h"), old));
}

#[test]
fn headers_reached_through_dot_dot_or_system_directories_are_shadowed() {
    let kernel = format!("#include \"../util.h\"\n{CALLS}");
    let files = [("include/util.h", SUMS), ("src/k.cl", kernel.as_str()), ("include/gpu/.keep", "")];
    stale_after(&files, &["--root", ".", "-I", "include/gpu", "src/k.cl"], |dir| write(&dir.join("util.h"), SUMS_APART));
    let kernel = format!("#include <sp.h>\n{SP_SUMS}{CALLS}");
    let files = [("sys2/sp.h", "#define SP __global\n"), ("k.cl", kernel.as_str()), ("sys1/.keep", "")];
    let args = ["k.cl", "--", "-isystem", "sys1", "-isystem", "sys2"];
    stale_after(&files, &args, |dir| write(&dir.join("sys1/sp.h"), "#define SP __local\n"));
    // `-include` looks in the current directory first.
    let files = [("inc/pre.h", "#define SP __global\n"), ("kernels/k.cl", &format!("{SP_SUMS}{CALLS}"))];
    let args = ["--root", ".", "-I", "inc", "--include", "pre.h", "kernels/k.cl"];
    stale_after(&files, &args, |dir| write(&dir.join("pre.h"), "#define SP __local\n"));
}

#[test]
fn a_file_only_has_include_asks_for_is_seen() {
    let kernel =
        format!("#if __has_include(\"sub/x.h\")\n#define SP __local\n#else\n#define SP __global\n#endif\n{SP_SUMS}{CALLS}");
    stale_after(&[("k.cl", &kernel), ("sub/other.h", "\n")], &["k.cl"], |dir| write(&dir.join("sub/x.h"), "\n"));
}

#[test]
fn a_unit_clang_rejects_is_rejected_from_the_store_until_it_changes() {
    let broken = format!("{SUMS}{CALLS}__kernel void bad(__global float *o) {{ o[0] = 1 }}\n");
    stale_after(&[("k.cl", &format!("{SUMS}{CALLS}")), ("bad.cl", &broken)], &["."], |dir| {
        write(&dir.join("bad.cl"), &format!("{SUMS}{CALLS}").replace("void k(", "void fixed("))
    });
    // A unit missing a header parses again once it appears.
    let wanting = format!("#include \"later.h\"\n{CALLS}");
    stale_after(&[("k.cl", &wanting)], &["k.cl"], |dir| write(&dir.join("later.h"), SUMS));
    // Read back, a rejected unit costs no parse.
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("bad.cl"), &broken);
    let args = ["migrate", "--check", "--timings", "bad.cl"];
    let (code, _, first) = clasp_env(dir.path(), &args, NO_ENV);
    let (again, _, second) = clasp_env(dir.path(), &args, NO_ENV);
    assert_eq!((code, again), (2, 2));
    assert!(first.contains("parse (libclang)") && !second.contains("parse (libclang)"), "{second}");
    let errors = |stderr: &str| stderr.lines().filter(|l| l.contains("error")).map(String::from).collect::<Vec<_>>();
    assert_eq!(errors(&first), errors(&second));
}
