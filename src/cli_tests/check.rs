//! `--check` as CI uses it: the would-be diff (or, with `--quiet`, the
//! files that would change) and exit 1, with a summary that never says a
//! file was migrated when nothing was written, and counts every file it lists.

use crate::support::{clasp, clasp_in, copy_fixture};

#[test]
fn check_prints_the_diff_it_would_apply_and_exits_1() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "fixtures/migrate/chain.cl"]);
    assert_eq!(code, 1, "{stderr}");
    let (plain_code, plain, _) = clasp(&["migrate", "fixtures/migrate/chain.cl"]);
    assert_eq!(plain_code, 0);
    assert!(stdout.starts_with("--- a/fixtures/migrate/chain.cl\n+++ b/fixtures/migrate/chain.cl\n"), "{stdout}");
    assert_eq!(stdout, plain, "--check shows the same diff as a plain run");
    assert!(stderr.contains("functions would migrate (verified)"), "{stderr}");
    assert!(!stderr.lines().last().unwrap().contains(" migrated"), "nothing was written: {stderr}");
    let (code, with_format, _) = clasp(&["migrate", "--check", "--format", "diff", "fixtures/migrate/chain.cl"]);
    assert_eq!((code, with_format.as_str()), (1, plain.as_str()));
}

#[test]
fn check_quiet_lists_only_the_files_that_would_change() {
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "-q", "fixtures/demo"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        "fixtures/demo/blur.cl\nfixtures/demo/histogram.cl\nfixtures/demo/host.c\nfixtures/demo/reduce.cl\nfixtures/demo/stencil.cl\n"
    );
}

#[test]
fn summary_says_migrated_only_when_files_were_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    let out = dir.path().join("out");
    let (code, _, stderr) = clasp(&["migrate", "--out-dir", out.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("functions migrated (verified)"), "{stderr}");
    let (code, _, stderr) = clasp(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("functions migrated (verified)"), "{stderr}");
    let (code, stdout, stderr) = clasp(&["migrate", "--check", "--std", "CL2.0", file.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("0 functions would migrate"), "{stderr}");
}

/// `--check -q` in `dir` on `path`: the files listed, and the count of files the summary gives.
fn listed_and_counted(dir: &std::path::Path, path: &str) -> (Vec<String>, usize) {
    let (code, stdout, stderr) = crate::support::clasp_in(dir, &["migrate", "--no-cache", "--check", "-q", path]);
    assert_eq!(code, 1, "{stderr}");
    let listed: Vec<String> = String::from_utf8(stdout).unwrap().lines().map(String::from).collect();
    let summary = stderr.lines().last().unwrap_or_default();
    let count = summary.strip_prefix("clasp: ").and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok());
    (listed, count.unwrap_or_else(|| panic!("no file count in the summary: {summary}")))
}

#[test]
fn the_summary_counts_every_file_it_lists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // Every file of these changes: a host's build call, a shared header, a
    // program's sources (one unit, three files), a generated copy of a kernel.
    for (dir, path, files) in [
        (root.to_path_buf(), "fixtures/demo", 5),
        (root.to_path_buf(), "fixtures/migrate/merge_shared_header", 3),
        (root.join("fixtures/host/cpp_program_parts"), ".", 4),
        (root.join("fixtures/host/c_generated_header"), ".", 3),
    ] {
        let (listed, counted) = listed_and_counted(&dir, path);
        assert_eq!((listed.len(), counted), (files, files), "{path} in {}: {listed:?}", dir.display());
    }
}

#[test]
fn a_host_file_is_one_file_however_many_kernels_it_holds_and_an_unchanged_header_counts() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = |name: &str| {
        format!(
            "{name} = \"\"\"\n#include \"defs.h\"\nfloat first_{name}(__global const float *v) {{ return v[0] * SCALE; }}\n\
             __kernel void k_{name}(__global const float *in, __global float *out) {{ out[0] = first_{name}(in); }}\n\"\"\"\n"
        )
    };
    let names = ["A", "B", "C"];
    let kernels: String = names.iter().map(|name| kernel(name)).collect();
    let builds: String = names.iter().map(|name| format!("cl.Program(context, {name}).build(options=[\"-I.\"])\n")).collect();
    let host = format!("import pyopencl as cl\n{kernels}context = cl.create_some_context()\n{builds}");
    std::fs::write(dir.path().join("host.py"), host).unwrap();
    std::fs::write(dir.path().join("defs.h"), "#define SCALE 2.0f\n").unwrap();
    let (listed, counted) = listed_and_counted(dir.path(), ".");
    assert_eq!(listed, ["host.py"], "three embedded kernels, one file changed");
    assert_eq!(counted, 2, "host.py and the header its kernels include, each once");
}

#[test]
fn an_unlinked_build_call_counts_as_pending_only_when_it_is_warned() {
    // The host builds the file an environment variable names: unlinked.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.cl"), crate::support::HELPER_UNIT).unwrap();
    let host = "#include <CL/opencl.hpp>\n#include <cstdlib>\n#include <fstream>\n#include <sstream>\n#include <string>\n\
                static std::string readAll(const std::string &name)\n{\n    std::ifstream in(name);\n    \
                std::stringstream ss;\n    ss << in.rdbuf();\n    return ss.str();\n}\n\
                static cl::Program makeProgram(cl::Context &ctx, const std::string &file)\n{\n    \
                cl::Program prog(ctx, readAll(file));\n    prog.build();\n    return prog;\n}\n\
                int main()\n{\n    cl::Context ctx;\n    cl::Program p = makeProgram(ctx, std::getenv(\"KERNEL_FILE\"));\n    return 0;\n}\n";
    std::fs::write(dir.path().join("host.cpp"), host).unwrap();
    let summary = |stderr: &str| stderr.lines().find(|l| l.starts_with("clasp: ")).unwrap().to_string();
    // Kernels change: the call is warned, counted, and --check fails on it.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--check", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("host.cpp:16:5: warning:") && summary(&stderr).contains("(0 untraced, 1 unlinked)"), "{stderr}");
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    // Migrated: nothing changes, so nothing is pending, warned or counted.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--check", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(summary(&stderr).contains("(0 untraced, 0 unlinked)"), "{stderr}");
}

/// `--out-dir` mirrors a header found through `clasp.toml`'s `include` (an
/// absolute path) at its place relative to the current directory, as it
/// mirrors the kernel file named relative to it.
#[test]
fn out_dir_mirrors_a_configured_include_by_its_relative_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("clasp.toml", "include = [\"include\"]\n"),
        ("include/h.h", "float first(__global const float *v) { return v[0]; }\n"),
        ("k/a.cl", "#include \"h.h\"\n__kernel void k(__global float *o) { o[0] = first(o); }\n"),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let (code, _, stderr) = crate::support::clasp_in(root, &["migrate", "--no-cache", "--root", ".", "--out-dir", "out", "k"]);
    assert_eq!(code, 0, "{stderr}");
    let copy = std::fs::read_to_string(root.join("out/include/h.h")).unwrap();
    assert_eq!(copy, "float first(const float *v) { return v[0]; }\n");
    let written: Vec<_> =
        walkdir::WalkDir::new(root.join("out")).into_iter().flatten().filter(|e| e.file_type().is_file()).collect();
    assert_eq!(written.len(), 1, "only the header changes: {written:?}");
}
