//! `[[program]]`: a program built from several sources concatenated in
//! order (two of them C++ raw-string wrapped, as a host `#include`s them),
//! none of which compiles alone, migrated as one unit and written back
//! into each source, wrappers kept.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::clasp_in;

const SOURCES: [&str; 3] = ["common.opencl", "rows.hpp", "blur.hpp"];

/// The program as the host gives it to the driver: each source's content
/// (a raw-string wrapped one unwrapped), concatenated.
fn program_text(dir: &Path) -> String {
    SOURCES
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let text = text.trim_end();
            match text.strip_prefix("R\"CLC(").and_then(|t| t.strip_suffix(")CLC\"")) {
                Some(inner) => inner.to_string(),
                None => std::fs::read_to_string(dir.join(name)).unwrap(),
            }
        })
        .collect()
}

fn compiles(text: &str, std: &str) -> Result<(), String> {
    let mut child = Command::new("/usr/lib/llvm-19/bin/clang")
        .args(["-x", "cl", &format!("-cl-std={std}"), "-DRADIUS=2", "-fsyntax-only", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clang-19 (run scripts/setup)");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), text.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/programs/blur");
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn a_program_of_three_sources_is_migrated_as_one_and_written_back_into_each() {
    let dir = copy();
    let original = program_text(dir.path());
    compiles(&original, "CL1.2").unwrap_or_else(|e| panic!("the program compiles as 1.2: {e}"));
    for part in &SOURCES[1..] {
        let text = std::fs::read_to_string(dir.path().join(part)).unwrap();
        let inner = text.trim_end().trim_start_matches("R\"CLC(").trim_end_matches(")CLC\"");
        assert!(compiles(inner, "CL1.2").is_err(), "{part} compiles alone: not a fixture of parts");
    }
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "-q", "."]);
    assert_eq!(code, 0, "{stderr}");
    // Three files read, one unit: a part alone does not compile, so as a unit of its own it would be an error.
    assert!(stderr.contains("clasp: 3 files, 3 functions migrated (verified)"), "{stderr}");
    assert!(stderr.contains(", 0 errors"), "the parts are no units of their own: {stderr}");
    for part in &SOURCES[1..] {
        let text = std::fs::read_to_string(dir.path().join(part)).unwrap();
        assert!(text.starts_with("R\"CLC(\n") && text.trim_end().ends_with(")CLC\""), "{part} keeps its wrapper:\n{text}");
    }
    let migrated = program_text(dir.path());
    assert!(migrated.contains("float sum(const float *p, int n)") && !migrated.contains("sum_l"), "{migrated}");
    compiles(&migrated, "CL2.0").unwrap_or_else(|e| panic!("the migrated program compiles as 2.0: {e}\n{migrated}"));
    let (again, diff, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!((again, diff.is_empty()), (0, true), "a second run changes nothing: {stderr}");
}

#[test]
fn a_program_naming_a_missing_source_is_an_error_at_its_line() {
    let dir = copy();
    let toml = std::fs::read_to_string(dir.path().join("clasp.toml")).unwrap().replace("\"blur.hpp\"", "\"gone.hpp\"");
    std::fs::write(dir.path().join("clasp.toml"), toml).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("clasp.toml:5:") && stderr.contains("source `gone.hpp` of program `blur` is not a file"), "{stderr}");
}

/// Two programs sharing `common.opencl`; program b's own part observes the
/// size of the pointer `ext` takes, so `ext` must stay `__global` in b.
fn shared_source(b_pins: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let toml = "[[program]]\nname = \"a\"\nsources = [\"common.opencl\", \"a.opencl\"]\n\n\
                [[program]]\nname = \"b\"\nsources = [\"common.opencl\", \"b.opencl\"]\n";
    let common = "float ext(__global const float *p);\nfloat get(__global const float *p, int i) { return ext(p + i); }\n";
    let a = "float ext(__global const float *p) { return p[0]; }\n\
             __kernel void ka(__global const float *in, __global float *out) { out[0] = get(in, 0); }\n";
    let b_body = if b_pins { "p[0] + (float)sizeof(p)" } else { "p[1]" };
    let b = format!(
        "float ext(__global const float *p) {{ return {b_body}; }}\n\
         __kernel void kb(__global const float *in, __global float *out) {{ out[0] = get(in, 1); }}\n"
    );
    for (name, text) in [("clasp.toml", toml), ("common.opencl", common), ("a.opencl", a), ("b.opencl", b.as_str())] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn a_source_two_programs_would_edit_differently_is_an_error_and_stays() {
    let dir = shared_source(true);
    let before = std::fs::read_to_string(dir.path().join("common.opencl")).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "-q", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("common.opencl:1:1: error: a source of program `a` and program `b`"), "{stderr}");
    for name in ["common.opencl", "a.opencl"] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.contains("__global const float *p"), "{name} is left as it is:\n{text}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("common.opencl")).unwrap(), before);
}

#[test]
fn a_source_two_programs_edit_alike_is_written_once() {
    let dir = shared_source(false);
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "-q", "."]);
    assert_eq!(code, 0, "{stderr}");
    let common = std::fs::read_to_string(dir.path().join("common.opencl")).unwrap();
    assert!(common.contains("float get(const float *p, int i)"), "{common}");
    let (again, diff, stderr) = clasp_in(dir.path(), &["migrate", "-q", "."]);
    assert_eq!((again, diff.is_empty()), (0, true), "{stderr}");
}

/// `a.opencl` (two copies of one helper, one per space) `#include`d into
/// two programs gathered by the host: `a` + `b` calls both copies, `a` + `c`
/// one; `c_names` is what c's kernel writes besides.
fn gathered_sharing_a_merge(c_names: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = "// shared\nR\"(\nfloat first_g(__global const float *v) { return v[0] * 2.0f; }\n\
             float first_l(__local const float *v) { return v[0] * 2.0f; }\n)\"\n";
    let b = "R\"(\n__kernel void kb(__global float *o, __global const float *x, __local float *t) \
             { t[0] = x[0]; o[0] = first_g(x) + first_l(t); }\n)\"\n";
    let c =
        format!("R\"(\n__kernel void kc(__global float *o, __global const float *x) {{ {c_names}o[1] = first_g(x); }}\n)\"\n");
    let host = "#include <CL/cl.h>\nstatic const char *prog_b[] = {\n#include \"a.opencl\"\n,\n#include \"b.opencl\"\n};\n\
                static const char *prog_c[] = {\n#include \"a.opencl\"\n,\n#include \"c.opencl\"\n};\n\
                cl_int run_b(cl_context ctx, cl_device_id dev) {\n  cl_int err;\n  \
                cl_program p = clCreateProgramWithSource(ctx, 2, prog_b, NULL, &err);\n  \
                return clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n}\n\
                cl_int run_c(cl_context ctx, cl_device_id dev) {\n  cl_int err;\n  \
                cl_program p = clCreateProgramWithSource(ctx, 2, prog_c, NULL, &err);\n  \
                return clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n}\n";
    for (name, text) in [("a.opencl", a), ("b.opencl", b), ("c.opencl", c.as_str()), ("host.cpp", host)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn a_merge_in_a_source_two_gathered_programs_share_takes_one_name_in_both() {
    let dir = gathered_sharing_a_merge("");
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    // One group of definitions in one file, merged in both programs: one merge, one deletion, two functions.
    assert!(stderr.contains("2 functions migrated (verified), 1 duplicate group merged (1 definition deleted)"), "{stderr}");
    let a = std::fs::read_to_string(dir.path().join("a.opencl")).unwrap();
    assert!(a.contains("float first(const float *v)") && !a.contains("first_l"), "{a}");
    let b = std::fs::read_to_string(dir.path().join("b.opencl")).unwrap();
    assert!(b.contains("o[0] = first(x) + first(t);"), "{b}");
    let c = std::fs::read_to_string(dir.path().join("c.opencl")).unwrap();
    assert!(c.contains("o[1] = first(x);"), "{c}");
    let host = std::fs::read_to_string(dir.path().join("host.cpp")).unwrap();
    assert_eq!(host.matches("\"-cl-std=CL2.0\"").count(), 2, "{host}");
}

#[test]
fn programs_left_out_for_a_conflict_count_nothing_as_migrated_or_merged() {
    // `first` is a name of c's own: program c's merge keeps `first_g`, b's takes `first`.
    let dir = gathered_sharing_a_merge("int first = 1; ");
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("a.opencl:1:1: error: a source of program `host.cpp:14` and program `host.cpp:19`"), "{stderr}");
    let summary = stderr.lines().find(|l| l.starts_with("clasp: ")).unwrap();
    assert!(summary.contains("0 functions would migrate") && !summary.contains("would merge"), "{summary}");
    assert!(summary.contains("refused (") && summary.contains("header-conflict"), "{summary}");
}

#[test]
fn analyze_reads_a_program_as_its_sources_concatenated() {
    let dir = copy();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["analyze", "--json", "."]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let [file] = report["files"].as_array().unwrap().as_slice() else { panic!("one unit: {report}") };
    assert_eq!(file["status"], "analysed", "{file}");
    let functions: Vec<&str> = file["functions"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(functions.contains(&"sum_g") && functions.contains(&"blur"), "{functions:?}");
    // Compiled as clasp migrate compiles it: the program's text, not a file of its name.
    assert_eq!(file["compiles"]["unchanged_as_target"]["ok"], true, "{file}");
    assert!(stderr.contains("clasp: 1 file analysed, 0 errors"), "{stderr}");
}

#[test]
fn merges_deleting_the_last_two_functions_of_a_source_both_stand() {
    // Each merge deletes its `__local` copy; the two copies close `a.cl`, one after the other.
    let dir = tempfile::tempdir().unwrap();
    let copy =
        |name: &str, space: &str, k: u32| format!("float {name}({space} const float *v)\n{{\n    return v[0] * {k}.0f;\n}}\n");
    let a =
        [copy("one_g", "__global", 1), copy("two_g", "__global", 2), copy("one_l", "__local", 1), copy("two_l", "__local", 2)];
    std::fs::write(dir.path().join("a.cl"), a.join("\n")).unwrap();
    std::fs::write(
        dir.path().join("b.cl"),
        "__kernel void k(__global float *o, __global const float *x, __local float *t)\n\
         { t[0] = x[0]; o[0] = one_g(x) + two_g(x) + one_l(t) + two_l(t); }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("clasp.toml"), "[[program]]\nname = \"p\"\nsources = [\"a.cl\", \"b.cl\"]\n").unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("2 duplicate groups merged (2 definitions deleted), 0 not merged"), "{stderr}");
    let a = std::fs::read_to_string(dir.path().join("a.cl")).unwrap();
    assert!(!a.contains("one_l") && !a.contains("two_l") && !a.ends_with("\n\n\n"), "{a}");
}

#[test]
fn a_declared_program_a_host_gathers_is_analysed_with_the_hosts_options() {
    // The header is found through the host's `-Iinclude` and needs its `-DTILE=16`.
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("include/tile.h", "#ifndef TILE\n#error TILE is the host's\n#endif\nfloat tsum_l(__local const float *t) { float s = 0; for (int i = 0; i < TILE; ++i) s += t[i]; return s; }\n"),
        ("kernels/tile.cl.inc", "/* wrapped for the host */\nR\"TILE(\n#include \"tile.h\"\n__kernel void tiled(__global float *o)\n{\n    __local float t[TILE];\n    t[0] = o[0];\n    o[1] = tsum_l(t);\n}\n)TILE\"\n"),
        ("host.cpp", "#include <CL/cl.h>\nstatic const char *sources[] = {\n#include \"kernels/tile.cl.inc\"\n};\ncl_program build(cl_context ctx, cl_device_id dev)\n{\n    cl_program p = clCreateProgramWithSource(ctx, 1, sources, NULL, NULL);\n    clBuildProgram(p, 1, &dev, \"-DTILE=16 -Iinclude\", NULL, NULL);\n    return p;\n}\n"),
        ("clasp.toml", "[[program]]\nname = \"tiles\"\nsources = [\"kernels/tile.cl.inc\"]\n"),
    ];
    for (name, text) in files {
        std::fs::create_dir_all(dir.path().join(name).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 function migrated (verified), 1 build call edited"), "{stderr}");
    let header = std::fs::read_to_string(dir.path().join("include/tile.h")).unwrap();
    assert!(header.contains("float tsum_l(const float *t)"), "{header}");
    let host = std::fs::read_to_string(dir.path().join("host.cpp")).unwrap();
    assert!(host.contains("\"-DTILE=16 -Iinclude -cl-std=CL2.0\""), "{host}");
}

#[test]
fn a_programs_error_is_reported_under_the_source_it_is_in() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.cl"), "float first(__global const float *v) { return v[0]; }\n").unwrap();
    std::fs::write(
        dir.path().join("b.cl"),
        "__constant float table[2] = {1, 2};\n__kernel void k(__global float *o) { o[0] = first(table); }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("clasp.toml"), "[[program]]\nname = \"p\"\nsources = [\"a.cl\", \"b.cl\"]\n").unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--json", "."]);
    assert_eq!(code, 2, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let [error] = report["errors"].as_array().unwrap().as_slice() else { panic!("{report}") };
    assert_eq!(error["path"], "b.cl", "{error}");
    assert!(error["message"].as_str().unwrap().starts_with("b.cl:2:"), "{error}");
}

#[test]
fn a_source_split_into_adjacent_raw_strings_is_migrated_inside_them() {
    // A long kernel split in two raw strings (a compiler's limit on one literal), a comment between.
    let dir = tempfile::tempdir().unwrap();
    let common = "R\"CL(float sum_g(__global const float *v, int n)\n{\n    float s = 0;\n    for (int i = 0; i < n; i++)\n        s += v[i];\n    return s;\n}\n)CL\"\n\
                  // second part\nR\"CL(\nfloat sum_l(__local const float *v, int n)\n{\n    float s = 0;\n    for (int i = 0; i < n; i++)\n        s += v[i];\n    return s;\n}\n)CL\"\n";
    let kernel = "__kernel void k(__global float *o, __global const float *x, __local float *t)\n\
                  { t[0] = x[0]; o[0] = sum_g(x, 4) + sum_l(t, 1); }\n";
    std::fs::write(dir.path().join("common.inc"), common).unwrap();
    std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
    std::fs::write(dir.path().join("clasp.toml"), "[[program]]\nname = \"p\"\nsources = [\"common.inc\", \"k.cl\"]\n").unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 duplicate group merged"), "{stderr}");
    let written = std::fs::read_to_string(dir.path().join("common.inc")).unwrap();
    assert!(written.starts_with("R\"CL(float sum(const float *v, int n)"), "{written}");
    assert!(written.contains("// second part") && written.trim_end().ends_with(")CL\""), "wrappers kept:\n{written}");
    assert!(!written.contains("__local") && !written.contains("__global"), "{written}");
    let (again, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(again, 0, "a second run changes nothing: {stderr}");
}

#[test]
fn a_wrapped_source_named_alone_is_one_error_saying_how_to_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let raw = "// licence\nR\"cl(\nfloat f(__global const float *p) { return p[0]; }\n)cl\"\n";
    let escaped = "/* for a C host */\n\"float g(__global const float *p)\\n\"\n\"{ return p[0]; }\\n\"\n";
    std::fs::write(dir.path().join("raw.inc"), raw).unwrap();
    std::fs::write(dir.path().join("escaped.inc"), escaped).unwrap();
    for name in ["raw.inc", "escaped.inc"] {
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", name]);
        assert_eq!(code, 2, "{stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
        assert_eq!(errors.len(), 1, "one error, not clang's cascade: {stderr}");
        assert!(errors[0].starts_with(&format!("{name}:1:1: error: it is wrapped as a string literal")), "{stderr}");
        assert_eq!(std::fs::read_to_string(dir.path().join(name)).unwrap(), if name == "raw.inc" { raw } else { escaped });
    }
}
