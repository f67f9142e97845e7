//! Bad input: each is a clear error with file, line and column (or a
//! migration as good as any), nothing changed in that file, and the batch
//! going on: a 10 MB unit, a NUL byte, a directory named like a kernel, an
//! unreadable file, a missing include, a unit including itself, and an
//! `#error` in one configuration only, and a header a unit with errors reads
//! (a program's sources, headers after a fatal error).

use std::process::Command;

use crate::support::{clasp_in, HELPER_UNIT};

/// A batch of `good.cl` (a helper clasp migrates) and `bad` (name, text).
fn batch(bad: &str, text: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.cl"), HELPER_UNIT).unwrap();
    std::fs::write(dir.path().join(bad), text).unwrap();
    dir
}

/// The good unit was migrated: its diff is on stdout.
fn good_migrated(stdout: &[u8]) {
    let text = String::from_utf8_lossy(stdout);
    assert!(text.contains("+++ b/good.cl\n"), "{text}");
    assert!(text.contains("+float first(const float *v)"), "{text}");
}

#[test]
fn a_ten_megabyte_unit_is_migrated() {
    // A generated table of a million floats, as lookup-table kernels have.
    let mut text = String::from("__constant float table[1000000] = {");
    for i in 0..1_000_000u32 {
        text.push_str(&format!("{}.{:06}f,", i % 97, (i as u64 * 7919) % 1_000_000));
    }
    text.push_str("};\nfloat first(__global const float *v) { return v[0] + table[3]; }\n");
    text.push_str("__kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n");
    assert!(text.len() > 10_000_000);
    let dir = batch("big.cl", text.as_bytes());
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 0, "{stderr}");
    good_migrated(&stdout);
    let diff = String::from_utf8_lossy(&stdout);
    assert!(diff.contains("+float first(const float *v) { return v[0] + table[3]; }"), "{}", &diff[..diff.len().min(2000)]);
}

#[test]
fn a_nul_byte_is_kept_as_it_is() {
    let text = b"float first(__global const float *v) { return v[0]; }\n/* \0 */\n__kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n";
    let dir = batch("nul.cl", text);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let written = std::fs::read(dir.path().join("nul.cl")).unwrap();
    let expected = b"float first(const float *v) { return v[0]; }\n/* \0 */\n__kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n";
    assert_eq!(written, expected);
}

#[test]
fn a_directory_named_like_a_kernel_is_walked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("x.cl")).unwrap();
    std::fs::write(dir.path().join("x.cl/good.cl"), HELPER_UNIT).unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "x.cl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(String::from_utf8_lossy(&stdout).contains("+++ b/x.cl/good.cl\n"));
}

#[test]
fn an_unreadable_file_is_an_error_and_the_batch_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let dir = batch("locked.cl", HELPER_UNIT.as_bytes());
    std::fs::set_permissions(dir.path().join("locked.cl"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Root reads any file: run as `nobody` then (setpriv, util-linux), so the permission holds.
    let mut command = if running_as_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_clasp")]);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_clasp"))
    };
    let output = command.args(["migrate", "-q", "."]).current_dir(dir.path()).output().expect("run clasp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("./locked.cl:1:1: error: cannot read: Permission denied"), "{stderr}");
    good_migrated(&output.stdout);
}

/// Whether this process runs as root (`/proc/self` belongs to the process's user).
fn running_as_root() -> bool {
    std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0
}

#[test]
fn a_missing_include_and_a_unit_including_itself_are_located_errors() {
    for (name, text, error) in [
        ("missing.cl", format!("#include \"absent.h\"\n{HELPER_UNIT}"), "missing.cl:1:10: error: 'absent.h' file not found"),
        ("self.cl", format!("#include \"self.cl\"\n{HELPER_UNIT}"), "self.cl:1:10: error: #include nested too deeply"),
    ] {
        let dir = batch(name, text.as_bytes());
        let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(error), "{stderr}");
        good_migrated(&stdout);
        assert!(!String::from_utf8_lossy(&stdout).contains(name));
    }
}

#[test]
fn an_error_in_one_configuration_leaves_the_file_unchanged() {
    let dir = batch("k.cl", format!("#ifdef FAST\n#error no fast path here\n#endif\n{HELPER_UNIT}").as_bytes());
    let config = "[[configuration]]\nname = \"fast\"\noptions = [\"-DFAST\"]\n\n[[configuration]]\nname = \"plain\"\n";
    std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
    let before = std::fs::read(dir.path().join("k.cl")).unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("./k.cl:2:2: error: no fast path here\n./k.cl: note: in configuration `fast`"), "{stderr}");
    good_migrated(&stdout);
    assert!(!String::from_utf8_lossy(&stdout).contains("k.cl"), "{}", String::from_utf8_lossy(&stdout));
    let (_, json, _) = clasp_in(dir.path(), &["migrate", "-q", "--json", "."]);
    let json = String::from_utf8_lossy(&json);
    assert!(json.contains("it would edit k.cl, which has errors in configuration `fast`"), "{json}");
    // Written for real: alone, the configuration that builds would migrate k.cl's helper; the file stays as it was.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "-q", "--write", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read(dir.path().join("k.cl")).unwrap(), before, "k.cl changed");
    let good = std::fs::read_to_string(dir.path().join("good.cl")).unwrap();
    assert!(good.contains("float first(const float *v)"), "the batch went on: {good}");
}

#[test]
fn a_malformed_clasp_toml_is_one_located_line_per_error() {
    for (config, expected) in [
        ("std = [1\n", "clasp.toml:2:1: error: invalid array: expected `]`"),
        ("[tool]\nstd = \"CL1.2\n", "clasp.toml:2:13: error: invalid basic string"),
        ("timeout = 3\ntimeout = 4\n", "clasp.toml:2:1: error: duplicate key"),
    ] {
        let dir = batch("k.cl", HELPER_UNIT.as_bytes());
        std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "."]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(expected), "{config:?}: {stderr}");
        // Every line says where: no continuation line without `file:line:col`.
        for line in stderr.lines() {
            let located = line.split(':').nth(2).is_some_and(|col| !col.is_empty() && col.bytes().all(|b| b.is_ascii_digit()));
            assert!(located, "{config:?}: a line without a place: {line:?}");
        }
    }
}

/// Two per-space copies of a helper, merged into one `sum` when every unit
/// calling them loads.
const PER_SPACE_HEADER: &str = "#ifndef COMMON_H\n#define COMMON_H\n\
float sum_g(__global const float *v, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }\n\
float sum_l(__local const float *v, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }\n#endif\n";

#[test]
fn a_header_a_unit_with_errors_reads_is_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("include/common.h", PER_SPACE_HEADER),
        ("include/wrap.h", "// reaches common.h through another header\n#include <common.h>\n"),
        ("include/other.h", "float first(__global const float *v) { return v[0]; }\n"),
        (
            "k/a.cl",
            "#include \"common.h\"\n#include \"other.h\"\n__kernel void a(__global const float *in, __global float *out, __local float *t) {\n\
             t[0] = in[0];\n barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1) + first(in);\n}\n",
        ),
        // A semicolon is missing: once it is fixed, b.cl calls sum_g again, which must still exist.
        ("k/b.cl", "#include \"wrap.h\"\n__kernel void b(__global const float *in, __global float *out) {\n out[0] = sum_g(in, 4)\n}\n"),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let args = ["migrate", "--explain", "-I", "include", "--root", ".", "--cache-dir", "cache", "k"];
    // Cold, then read back from the store: the failure still names what b.cl read.
    for _ in 0..2 {
        let (code, stdout, stderr) = clasp_in(root, &args);
        let stdout = String::from_utf8_lossy(&stdout);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("k/b.cl:3:23: error: expected ';' after expression"), "{stderr}");
        assert!(!stdout.contains("common.h") && !stdout.contains("sum_g"), "{stdout}");
        assert!(stdout.contains("+float first(const float *v)"), "a header b.cl does not read is migrated: {stdout}");
        let why =
            "not merged failed-unit: `sum_g`, `sum_l`: it would edit include/common.h, which k/b.cl reads, and k/b.cl has errors";
        assert!(stderr.contains(why), "{stderr}");
        assert!(stderr.contains("withdrawn failed-unit: `sum_l`: it would edit include/common.h"), "{stderr}");
    }
    let (code, _, stderr) = clasp_in(root, &["migrate", "-q", "--write", "-I", "include", "--root", ".", "--no-cache", "k"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read_to_string(root.join("include/common.h")).unwrap(), PER_SPACE_HEADER);
    // Fixed, b.cl loads and the merge goes ahead, its call renamed too.
    std::fs::write(
        root.join("k/b.cl"),
        "#include \"wrap.h\"\n__kernel void b(__global const float *in, __global float *out) {\n out[0] = sum_g(in, 4);\n}\n",
    )
    .unwrap();
    let (code, stdout, stderr) = clasp_in(root, &args);
    let stdout = String::from_utf8_lossy(&stdout);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("+float sum(const float *v, int n)") && stdout.contains("+ out[0] = sum(in, 4);"), "{stdout}");
}

/// A unit clasp could not see whole: an `#include` not found, behind which
/// (or behind a macro it would define) any header may hide, and a unit past
/// `--timeout`. Only the loaded units' own files change.
#[test]
fn a_unit_whose_includes_are_unknown_holds_every_header_back() {
    let hidden = "#include \"gen/config.h\"\n#ifdef HAVE_FAST\n#include \"common.h\"\n#endif\n\
        __kernel void b(__global const float *in, __global float *out) {\n#ifdef HAVE_FAST\n out[0] = sum_g(in, 4);\n#endif\n}\n";
    // 2^22 copies of `x`: libclang takes far longer than a second.
    let mut slow = String::from("#include \"common.h\"\n#define A0 x+x\n");
    for i in 1..=22 {
        slow.push_str(&format!("#define A{i} A{p}+A{p}\n", p = i - 1));
    }
    slow.push_str("__kernel void b(__global float *in) { float x = 1; in[0] = sum_g(in, 4) + A22; }\n");
    for (text, error) in [(hidden, "k/b.cl:1:10: error: 'gen/config.h' file not found"), (&slow[..], "parsing took longer")] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("include/common.h", PER_SPACE_HEADER),
            ("include/other.h", "float first(__global const float *v) { return v[0]; }\n"),
            (
                "k/a.cl",
                "#include \"common.h\"\n#include \"other.h\"\nfloat own_g(__global const float *p) { return p[1]; }\n\
                 __kernel void a(__global const float *in, __global float *out, __local float *t) {\n\
                 t[0] = in[0];\n barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1) + first(in) + own_g(in);\n}\n",
            ),
            ("k/b.cl", text),
            // A host's embedded kernel is a loaded unit too: its own text changes.
            (
                "h/host.c",
                "#include <CL/cl.h>\nstatic const char *src =\n\"float twice(__global const float *p) { return p[0] * 2.0f; }\\n\"\n\
                 \"__kernel void k(__global const float *in, __global float *out) { out[0] = twice(in); }\\n\";\n\
                 void build(cl_context c, cl_device_id d) {\n cl_program p = clCreateProgramWithSource(c, 1, &src, 0, 0);\n\
                 clBuildProgram(p, 1, &d, \"\", 0, 0);\n}\n",
            ),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let args = ["migrate", "--explain", "--timeout", "1", "-I", "include", "--root", ".", "--no-cache", "k", "h"];
        let (code, stdout, stderr) = clasp_in(root, &args);
        let stdout = String::from_utf8_lossy(&stdout);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(error), "{stderr}");
        assert!(!stdout.contains("include/"), "no header changes: {stdout}");
        assert!(stdout.contains("+float own_g(const float *p)"), "a loaded unit's own file changes: {stdout}");
        assert!(stdout.contains("+\"float twice(const float *p)"), "an embedded kernel's own text changes: {stdout}");
        let why = "withdrawn failed-unit: `first`: it would edit include/other.h, which k/b.cl may include: k/b.cl failed before";
        assert!(stderr.contains(why), "{stderr}");
    }
}

/// A PATH that is not there includes nothing: the batch's headers change.
#[test]
fn a_missing_path_holds_nothing_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("k")).unwrap();
    std::fs::write(root.join("k/common.h"), PER_SPACE_HEADER).unwrap();
    let caller = "#include \"common.h\"\n__kernel void a(__global const float *in, __global float *out, __local float *t) {\n\
                  t[0] = in[0];\n barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1);\n}\n";
    std::fs::write(root.join("k/a.cl"), caller).unwrap();
    let (code, stdout, stderr) = clasp_in(root, &["migrate", "--root", ".", "--no-cache", "k/a.cl", "k/typo.cl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("k/typo.cl:1:1: error: no such file or directory"), "{stderr}");
    assert!(String::from_utf8_lossy(&stdout).contains("+float sum(const float *v, int n)"), "{stderr}");
}

/// A `[[program]]` is its sources: one that does not parse holds back the
/// sources it shares with a program that loads, and a program's edit of a
/// source (named by its virtual file) is held back when a failed unit
/// includes that source.
#[test]
fn a_failed_program_holds_its_sources_back_and_a_programs_source_a_failed_unit_reads() {
    let shared = "float sum_g(__global const float *v, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }\n\
                  float sum_l(__local const float *v, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }\n";
    let caller = "__kernel void ka(__global const float *in, __global float *out, __local float *t) {\n\
                  t[0] = in[0];\n barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1);\n}\n";
    let broken = "__kernel void kb(__global const float *in, __global float *out) {\n out[0] = sum_g(in, 4)\n}\n";
    let toml = "[[program]]\nname = \"a\"\nsources = [\"lib/shared.opencl\", \"a.opencl\"]\n\n\
                [[program]]\nname = \"b\"\nsources = [\"lib/shared.opencl\", \"b.opencl\"]\n";
    // The failing unit: program b (its own part misses a semicolon), then a
    // plain kernel file including the shared source (in another order of
    // the same fault: an undeclared name).
    let cases = [
        (toml, ("b.opencl", broken), "which program `b` reads, and program `b` has errors"),
        (
            "[[program]]\nname = \"a\"\nsources = [\"lib/shared.opencl\", \"a.opencl\"]\n",
            ("k/user.cl", "#include \"../lib/shared.opencl\"\n__kernel void u(__global float *o) { o[0] = undeclared; }\n"),
            "which k/user.cl reads, and k/user.cl has errors",
        ),
    ];
    for (toml, (bad, bad_text), why) in cases {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [("clasp.toml", toml), ("lib/shared.opencl", shared), ("a.opencl", caller), (bad, bad_text)] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let (code, stdout, stderr) = clasp_in(root, &["migrate", "--explain", "--no-cache", "."]);
        let stdout = String::from_utf8_lossy(&stdout);
        assert_eq!(code, 2, "{stderr}");
        assert!(!stdout.contains("shared.opencl"), "the shared source stays: {stdout}\n{stderr}");
        let why = format!("it would edit lib/shared.opencl, {why}");
        assert!(stderr.contains("failed-unit") && stderr.contains(&why), "{stderr}");
        let (code, _, stderr) = clasp_in(root, &["migrate", "-q", "--write", "--no-cache", "."]);
        assert_eq!(code, 2, "{stderr}");
        assert_eq!(std::fs::read_to_string(root.join("lib/shared.opencl")).unwrap(), shared);
    }
}

/// An error made fatal (`-Wfatal-errors`, an error limit, includes nested too
/// deeply) stops clang, not libclang's parse: the headers after it are still
/// read, and held back.
#[test]
fn headers_after_a_fatal_error_are_held_back() {
    let caller = "#include \"common.h\"\n__kernel void a(__global const float *in, __global float *out, __local float *t) {\n\
                  t[0] = in[0];\n barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1);\n}\n";
    let uses = "__kernel void b(__global const float *in, __global float *out) { out[0] = sum_g(in, 4); }\n";
    let undeclared = format!("int x = undeclared_one;\nint y = undeclared_two;\n#include \"common.h\"\n{uses}");
    let nested = format!("#include \"nested.h\"\n#include \"common.h\"\n{uses}");
    for (text, clang_option) in
        [(&undeclared, "-Wfatal-errors"), (&undeclared, "-ferror-limit=1"), (&nested, "-Wno-unused-value")]
    {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("include/common.h", PER_SPACE_HEADER),
            ("include/nested.h", "#include \"nested.h\"\n"),
            ("k/a.cl", caller),
            ("k/b.cl", text),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let args = ["migrate", "--explain", "--no-cache", "-I", "include", "--root", ".", "k", "--", clang_option];
        let (code, stdout, stderr) = clasp_in(root, &args);
        assert_eq!(code, 2, "{stderr}");
        assert!(!String::from_utf8_lossy(&stdout).contains("common.h"), "{clang_option}: {stderr}");
        assert!(stderr.contains("it would edit include/common.h, which k/b.cl reads, and k/b.cl has errors"), "{stderr}");
    }
}

/// A merge's deletion taking the blank lines around a program's middle
/// source edits the sources on both sides too: each is checked against the
/// failed unit including the middle one.
#[test]
fn a_deletion_across_program_sources_is_held_back_where_a_failed_unit_reads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sum = |space: &str, suffix: &str| {
        format!("float sum_{suffix}({space} const float *v, int n) {{ float s = 0.0f; for (int i = 0; i < n; i++) s += v[i]; return s; }}\n")
    };
    let (first, middle) = (format!("{}\n", sum("__global", "g")), sum("__local", "l"));
    let last = "\n__kernel void ka(__global const float *in, __global float *out, __local float *t) {\n t[0] = in[0];\n\
                barrier(CLK_LOCAL_MEM_FENCE);\n out[0] = sum_g(in, 4) + sum_l(t, 1);\n}\n";
    let user =
        "#include \"../middle.opencl\"\n__kernel void u(__local float *t, __global float *o) { o[0] = sum_l(t, 1) + nope; }\n";
    let toml = "[[program]]\nname = \"p\"\nsources = [\"first.opencl\", \"middle.opencl\", \"last.opencl\"]\n";
    for (path, text) in
        [("clasp.toml", toml), ("first.opencl", &first), ("middle.opencl", &middle), ("last.opencl", last), ("k/user.cl", user)]
    {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let (code, _, stderr) = clasp_in(root, &["migrate", "--explain", "--no-cache", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("it would edit middle.opencl, which k/user.cl reads, and k/user.cl has errors"), "{stderr}");
    let (code, _, stderr) = clasp_in(root, &["migrate", "-q", "--write", "--no-cache", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(std::fs::read_to_string(root.join("middle.opencl")).unwrap(), middle);
}
