//! `--write` and the diff: edits in place (permissions and foreign bytes
//! kept), diffs `git apply` takes, and a second run over clasp's own output.

use std::path::Path;
use std::process::Command;

use crate::support::{clasp, clasp_in, copy_fixture};

#[test]
fn write_applies_in_place_keeps_permissions_and_then_nothing_is_pending() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("void scale_elem(float *e, float s)"), "{text}");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
    let (code, _, stderr) = clasp(&["migrate", "--check", "--std", "CL2.0", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn diff_applies_with_git_apply_and_gives_what_write_writes() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "return_pointer.cl");
    let original = std::fs::read(&file).unwrap();
    let (code, diff, stderr) = clasp(&["migrate", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.starts_with("--- a/"), "{diff}");
    let patch = dir.path().join("p.diff");
    // The file is given by an absolute path outside the current directory:
    // the diff names it from the edit root (its directory), where it applies.
    assert!(diff.starts_with("--- a/return_pointer.cl\n"), "{diff}");
    std::fs::write(&patch, &diff).unwrap();
    let output = Command::new("git").args(["apply"]).arg(&patch).current_dir(dir.path()).output().unwrap();
    assert!(output.status.success(), "git apply rejected:\n{diff}\n{}", String::from_utf8_lossy(&output.stderr));
    let patched = std::fs::read(&file).unwrap();
    assert_ne!(patched, original, "the diff changed nothing");
    // The same file, written by clasp: byte for byte what the reviewed diff gave.
    std::fs::write(&file, &original).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", "--write", file.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(String::from_utf8(std::fs::read(&file).unwrap()).unwrap(), String::from_utf8(patched).unwrap());
}

#[test]
fn migrate_again_over_its_own_output_with_no_flags_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_fixture(dir.path(), "chain.cl");
    let path = file.to_str().unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--write", path]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = clasp(&["migrate", "--check", path]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    // The output is 2.0 code, read as such; forcing 1.2 shows why.
    let (code, stdout, stderr) = clasp(&["analyze", "--json", path]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["files"][0]["compiles"]["as_input"]["standard"], "CL2.0");
    let (code, stdout, _) = clasp(&["analyze", path]);
    assert_eq!(code, 0);
    assert!(stdout.contains("compiles as CL2.0: yes"), "{stdout}");
    let (code, _, stderr) = clasp(&["migrate", "--check", "--std", "CL1.2", path]);
    assert_eq!(code, 2);
    assert!(stderr.contains("changes address space of pointer"), "{stderr}");
    // 1.2 code is still read as 1.2.
    let (_, stdout, _) = clasp(&["analyze", "fixtures/migrate/chain.cl"]);
    assert!(stdout.contains("compiles as CL1.2: yes"), "{stdout}");
}

/// Applies `--json`'s edits to `original`, independently of clasp's own code.
fn apply_edits(original: &[u8], report: &serde_json::Value) -> Vec<u8> {
    let mut edits: Vec<(usize, usize, String)> = report["changes"][0]["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["edits"].as_array().unwrap().iter())
        .map(|e| {
            (
                e["start"].as_u64().unwrap() as usize,
                e["end"].as_u64().unwrap() as usize,
                e["replacement"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort();
    edits.dedup();
    let mut out = original.to_vec();
    for (start, end, replacement) in edits.into_iter().rev() {
        out.splice(start..end, replacement.into_bytes());
    }
    out
}

#[test]
fn latin1_bytes_are_kept_by_write_and_by_the_diff() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/latin1_comment.cl");
    let original = std::fs::read(&source).unwrap();
    assert!(std::str::from_utf8(&original).is_err(), "the fixture must not be UTF-8");
    let (written, patched) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&written, &patched] {
        std::fs::copy(&source, dir.path().join("latin1.cl")).unwrap();
    }

    let (code, json, stderr) = clasp_in(written.path(), &["migrate", "--json", "latin1.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let expected = apply_edits(&original, &report);
    assert_ne!(expected, original, "the fixture must change");

    let (code, _, stderr) = clasp_in(written.path(), &["migrate", "--write", "latin1.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let after_write = std::fs::read(written.path().join("latin1.cl")).unwrap();
    assert_eq!(after_write, expected, "--write must change the edited bytes only");
    for latin1 in [&b"Caf\xe9,"[..], b"/* \xe9chelle */", b"r\xe9sultat", b"/* \xe0 garder: */ void offset(float *q"] {
        assert!(after_write.windows(latin1.len()).any(|w| w == latin1), "{:?} lost", String::from_utf8_lossy(latin1));
    }

    let (code, diff, stderr) = clasp_in(patched.path(), &["migrate", "latin1.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(diff.windows(4).any(|w| w == b"\xe9che"), "the diff carries the file's own bytes");
    let patch = patched.path().join("p.diff");
    std::fs::write(&patch, &diff).unwrap();
    let status = Command::new("git").args(["apply", "p.diff"]).current_dir(patched.path()).status().unwrap();
    assert!(status.success(), "git apply rejected:\n{}", String::from_utf8_lossy(&diff));
    assert_eq!(std::fs::read(patched.path().join("latin1.cl")).unwrap(), after_write, "git apply of the diff == --write");
}

#[test]
fn a_file_that_cannot_be_written_is_an_error_and_the_others_are_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.cl", "b.cl", "c.cl"] {
        std::fs::write(dir.path().join(name), crate::support::HELPER_UNIT).unwrap();
    }
    std::fs::set_permissions(dir.path().join("b.cl"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-q", "--write", "a.cl", "b.cl", "c.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("b.cl:1:1: error: is read-only; not written"), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.path().join("b.cl")).unwrap(), crate::support::HELPER_UNIT);
    for name in ["a.cl", "c.cl"] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.starts_with("float first(const float *v)"), "{name}: {text}");
    }
}

/// A host building `a.cl` (C), for the tests below.
const HOST_BUILDING_A: &str = "#include <CL/cl.h>\nextern const char *slurp(const char *path);\n\
    void setup(cl_context ctx, cl_device_id dev)\n{\n    const char *a = slurp(\"a.cl\");\n    \
    cl_program pa = clCreateProgramWithSource(ctx, 1, &a, NULL, NULL);\n    \
    clBuildProgram(pa, 1, &dev, NULL, NULL, NULL);\n}\n";

#[test]
fn a_build_call_is_not_switched_when_a_file_of_the_program_it_builds_is_not_written() {
    use std::os::unix::fs::PermissionsExt;
    // A merge across a.cl and its read-only header; and a program changed through its header alone.
    let merged = (
        "#include \"h.h\"\n__kernel void ka(__global float *o, __local float *t) { t[0] = o[1]; o[0] = first_g(o) + first_l(t); }\n",
        "float first_g(__global const float *p) { return p[0]; }\nfloat first_l(__local const float *p) { return p[0]; }\n",
    );
    let header_only = (
        "#include \"h.h\"\n__kernel void ka(__global float *o) { o[0] = first(o); }\n",
        "float first(__global const float *p) { return p[0]; }\n",
    );
    for (what, (kernel, header)) in [("a merge", merged), ("a header's change alone", header_only)] {
        let dir = tempfile::tempdir().unwrap();
        let files = [("a.cl", kernel), ("h.h", header), ("host.c", HOST_BUILDING_A)];
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        std::fs::set_permissions(dir.path().join("h.h"), std::fs::Permissions::from_mode(0o444)).unwrap();
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--no-cache", "--write", "."]);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(stderr.contains("h.h:1:1: error: is read-only; not written"), "{what}: {stderr}");
        assert!(stderr.contains("host.c:1:1: error: not written: its changes go with those of"), "{what}: {stderr}");
        for (name, text) in files {
            assert_eq!(std::fs::read_to_string(dir.path().join(name)).unwrap(), text, "{what}: {name} written");
        }
        // The summary counts what was written: nothing.
        let summary = stderr.lines().find(|l| l.starts_with("clasp: ")).unwrap();
        assert!(summary.contains(" 0 functions migrated") && summary.contains(" 0 build calls edited"), "{what}: {summary}");
        assert!(!summary.contains("duplicate group") || summary.contains(" 0 duplicate groups merged"), "{what}: {summary}");
    }
}
