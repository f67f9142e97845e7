//! Where reports place the code of a unit that is in no file as it is: a
//! `[[program]]` declared in `clasp.toml`, a program a host gathers from
//! `#include`d wrapped sources, a kernel embedded in a host's literal.
//! Every place (a compiler error, evidence, a refusal's detail) names the
//! real file, line and column; a definition in a source several programs
//! share is one function and one refusal; `#if` code one program skips and
//! another compiles is not `skipped-if`.

use std::path::Path;

use crate::support::clasp_in;

/// A directory holding `files`.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// A C++ host gathering two programs, `a` + `b` and `a` + `c` (each name a
/// `.opencl` file it `#include`s as a source), optionally `pin` first in the second.
fn gathering_host(second_pin: bool) -> String {
    let pin = if second_pin { "#include \"pin.opencl\"\n,\n" } else { "" };
    format!(
        "#include <CL/cl.h>\nstatic const char *prog_b[] = {{\n#include \"a.opencl\"\n,\n#include \"b.opencl\"\n}};\n\
         static const char *prog_c[] = {{\n{pin}#include \"a.opencl\"\n,\n#include \"c.opencl\"\n}};\n\
         cl_int run_b(cl_context ctx, cl_device_id dev) {{\n  cl_int err;\n  \
         cl_program p = clCreateProgramWithSource(ctx, 2, prog_b, NULL, &err);\n  \
         return clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n}}\n\
         cl_int run_c(cl_context ctx, cl_device_id dev) {{\n  cl_int err;\n  \
         cl_program p = clCreateProgramWithSource(ctx, {n}, prog_c, NULL, &err);\n  \
         return clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n}}\n",
        n = if second_pin { 3 } else { 2 }
    )
}

/// `text` wrapped as a C++ raw string, the way a host `#include`s it.
fn wrapped(delimiter: &str, text: &str) -> String {
    format!("// wrapped\nR\"{delimiter}(\n{text}){delimiter}\"\n")
}

/// Programs `b` (`a`, `b`) and `c` (`a`, `c`, or `pin`, `a`, `c`) in one of the forms projects ship them.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// Raw-string wrapped `.opencl` files a C++ host gathers.
    Gathered,
    /// Plain `.cl` files, the programs declared in `clasp.toml`.
    Declared,
}

impl Form {
    /// The name of source `stem` in this form.
    fn name(self, stem: &str) -> String {
        match self {
            Form::Gathered => format!("{stem}.opencl"),
            Form::Declared => format!("{stem}.cl"),
        }
    }

    /// The project: `sources` are (stem, text) of `a`, `b`, `c` and maybe `pin`.
    fn project(self, sources: &[(&str, &str)]) -> tempfile::TempDir {
        let pin = sources.iter().any(|(stem, _)| *stem == "pin");
        let mut files: Vec<(String, String)> = match self {
            Form::Gathered => sources.iter().map(|(s, t)| (self.name(s), wrapped("clc", t))).collect(),
            Form::Declared => sources.iter().map(|(s, t)| (self.name(s), t.to_string())).collect(),
        };
        match self {
            Form::Gathered => files.push(("host.cpp".into(), gathering_host(pin))),
            Form::Declared => {
                let first = if pin { "\"pin.cl\", " } else { "" };
                let toml = format!(
                    "[[program]]\nname = \"b\"\nsources = [\"a.cl\", \"b.cl\"]\n\n\
                     [[program]]\nname = \"c\"\nsources = [{first}\"a.cl\", \"c.cl\"]\n"
                );
                files.push(("clasp.toml".into(), toml));
            }
        }
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        project(&borrowed)
    }

    /// The line of a source's text `line` (1-based) is on in its file.
    fn line(self, line: usize) -> usize {
        match self {
            // `// wrapped` and `R"clc(` come first.
            Form::Gathered => line + 2,
            Form::Declared => line,
        }
    }
}

/// What a run prints anywhere (stdout and stderr), for the places it names.
fn everything(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, stdout, stderr) = clasp_in(dir, args);
    (code, format!("{}\n{stderr}", String::from_utf8_lossy(&stdout)))
}

/// No place named in a unit's virtual file, nor spelled absolute.
fn only_real_places(dir: &Path, out: &str) {
    assert!(!out.contains(".program"), "a program's virtual name: {out}");
    for spelled in [dir.to_path_buf(), dir.canonicalize().unwrap()] {
        assert!(!out.contains(&*spelled.to_string_lossy()), "an absolute path: {out}");
    }
}

/// The 1-based column of `needle` in `line`.
fn col(line: &str, needle: &str) -> usize {
    line.find(needle).unwrap_or_else(|| panic!("{needle} in {line}")) + 1
}

#[test]
fn a_programs_compile_error_names_the_source_line_and_column() {
    let a = "float first(__global const float *v) { return v[0]; }\n";
    let b = "__kernel void kb(__global float *o, __global const float *x) { o[0] = first(x); }\n";
    // On its source's third line, passing a __constant pointer where __global is wanted.
    let c_line = "__kernel void kc(__global float *o, __constant float *x) { o[0] = first(x); }";
    let c = format!("// c\n\n{c_line}\n");
    for form in [Form::Gathered, Form::Declared] {
        let dir = form.project(&[("a", a), ("b", b), ("c", &c)]);
        let (code, out) = everything(dir.path(), &["migrate", "--check", "."]);
        assert_eq!(code, 2, "{form:?}: {out}");
        let at = format!("{}:{}:{}: error: passing", form.name("c"), form.line(3), col(c_line, "x); }"));
        assert!(out.contains(&at), "{form:?}: {at} in {out}");
        only_real_places(dir.path(), &out);
    }
}

#[test]
fn an_embedded_kernels_compile_error_names_the_host_line_and_column() {
    // The error is on the host's fifth line, inside an escaped literal indented by four.
    let host = "#include <CL/cl.h>\nstatic const char *src =\n\
                \x20   \"float first(__global const float *v) { return v[0]; }\\n\"\n\
                \x20   \"\\n\"\n\
                \x20   \"__kernel void k(__global float *o, __constant float *x) { o[0] = first(x); }\\n\";\n\
                int run(cl_context ctx, cl_device_id dev) {\n  cl_int err;\n  \
                cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);\n  \
                return clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n}\n";
    let dir = project(&[("host.c", host)]);
    let (_, out) = everything(dir.path(), &["migrate", "--check", "."]);
    let line = host.lines().nth(4).unwrap();
    let at = format!("host.c:5:{}: error: passing", col(line, "x); }"));
    assert!(out.contains(&at), "{at} in {out}");
    only_real_places(dir.path(), &out);
}

#[test]
fn evidence_names_the_source_line_in_every_report() {
    let a = "float first(__global const float *v)\n{\n    return v[0];\n}\n";
    // The call passing __global is on the source's second line.
    let b = "__kernel void kb(__global float *o,\n    __global const float *x) { o[0] = first(x); }\n";
    let c = "__kernel void kc(__global float *o, __global const float *x) { o[1] = first(x) + 1.0f; }\n";
    for form in [Form::Gathered, Form::Declared] {
        let dir = form.project(&[("a", a), ("b", b), ("c", c)]);
        let (code, out) = everything(dir.path(), &["migrate", "--check", "--explain", "."]);
        assert_eq!(code, 1, "{form:?}: {out}");
        let receives = format!("receives __global ({}:{})", form.name("b"), form.line(2));
        assert!(out.contains(&receives), "{form:?}: {receives} in {out}");
        only_real_places(dir.path(), &out);
        for format in ["json", "sarif"] {
            let (_, out) = everything(dir.path(), &["migrate", "--check", "--format", format, "."]);
            assert!(out.contains(&receives), "{form:?} {format}: {receives} in {out}");
            only_real_places(dir.path(), &out);
        }
    }
}

#[test]
fn an_embedded_kernels_evidence_and_refusals_name_host_lines() {
    let host = "#include <CL/cl.h>\nstatic const char *src =\n\
                \x20   \"int first(__global int *v)\\n\"\n\
                \x20   \"{\\n\"\n\
                \x20   \"#ifdef PIN\\n\"\n\
                \x20   \"    return atomic_inc(v);\\n\"\n\
                \x20   \"#endif\\n\"\n\
                \x20   \"    return v[0];\\n\"\n\
                \x20   \"}\\n\"\n\
                \x20   \"float two(__global float *v) { return v[0]; }\\n\"\n\
                \x20   \"__kernel void k(__global int *o, __global int *x,\\n\"\n\
                \x20   \"    __global float *f) { o[0] = first(x) + two(f); }\\n\";\n\
                int run(cl_context ctx, cl_device_id dev) {\n  cl_int err;\n  \
                cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);\n  \
                return clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n}\n";
    let dir = project(&[("host.c", host)]);
    let (_, out) = everything(dir.path(), &["migrate", "--check", "--explain", "."]);
    // `two` receives `f` from the call on line 12; `first`'s `v` is used under `#ifdef PIN` (line 5).
    assert!(out.contains("receives __global (host.c:12)"), "{out}");
    assert!(out.contains("skipped by #if at host.c:5"), "{out}");
    // Each placed in the host: the refusal at `v` (column 30 of line 3), the fix at its `__global` (column 16 of line 10).
    assert!(out.contains("host.c:3:30: refused skipped-if"), "{out}");
    assert!(out.contains("host.c:10:16: generic-param"), "{out}");
    only_real_places(dir.path(), &out);
}

#[test]
fn a_definition_in_a_source_two_programs_share_counts_once() {
    let a = "float first(__global const float *v) { return v[0]; }\n";
    let b = "__kernel void kb(__global float *o, __global const float *x) { o[0] = first(x); }\n";
    let c = "__kernel void kc(__global float *o, __global const float *x) { o[1] = first(x) + 1.0f; }\n";
    for form in [Form::Gathered, Form::Declared] {
        let dir = form.project(&[("a", a), ("b", b), ("c", c)]);
        let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--json", "."]);
        assert_eq!(code, 1, "{form:?}: {stderr}");
        assert!(stderr.contains("1 function would migrate"), "{form:?}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
        let firsts: Vec<&serde_json::Value> =
            report["functions"].as_array().unwrap().iter().filter(|f| f["name"] == "first").collect();
        assert_eq!(firsts.len(), 1, "{form:?}: {}", report["functions"]);
        assert_eq!(firsts[0]["file"].as_str().map(|f| f.ends_with(&form.name("a"))), Some(true), "{form:?}: {firsts:?}");
    }
}

#[test]
fn code_one_program_skips_and_another_compiles_is_not_skipped_if() {
    let a = "int first(__global int *v)\n{\n#ifdef PIN\n    return atomic_inc(v);\n#else\n    return v[0];\n#endif\n}\n";
    let b = "__kernel void kb(__global int *o, __global int *x) { o[0] = first(x); }\n";
    let c = "__kernel void kc(__global int *o, __global int *x) { o[1] = first(x); }\n";
    let pin = "#define PIN 1\n";
    for form in [Form::Gathered, Form::Declared] {
        let dir = form.project(&[("pin", pin), ("a", a), ("b", b), ("c", c)]);
        let (code, out) = everything(dir.path(), &["migrate", "--check", "--explain", "."]);
        assert_eq!(code, 0, "{form:?}: {out}");
        // Program c compiles the PIN branch: its builtin pin keeps `v` named in both, one refusal.
        assert!(!out.contains("skipped-if"), "{form:?}: {out}");
        let pinned = format!("builtin-pin (passed to `atomic_inc` at {}:{}", form.name("a"), form.line(4));
        assert!(out.contains(&pinned), "{form:?}: {pinned} in {out}");
        assert!(out.contains("1 refused (1 header-conflict)"), "{form:?}: {out}");
        only_real_places(dir.path(), &out);
    }
    // Where no program compiles it, it is skipped-if, once.
    for form in [Form::Gathered, Form::Declared] {
        let dir = form.project(&[("a", a), ("b", b), ("c", c)]);
        let (_, out) = everything(dir.path(), &["migrate", "--check", "--explain", "."]);
        let skipped = format!("skipped by #if at {}:{}", form.name("a"), form.line(3));
        assert!(out.contains(&skipped), "{form:?}: {skipped} in {out}");
        assert!(out.contains("1 refused (1 skipped-if)"), "{form:?}: {out}");
    }
}

#[test]
fn a_merge_leaves_a_wrapped_source_as_it_leaves_a_plain_one() {
    let a = "float sum(__global const float *v)\n{\n    return v[0];\n}\n\nfloat sum_l(__local const float *v)\n{\n    return v[0];\n}\n";
    let b = "__kernel void kb(__global float *o, __global const float *x, __local float *t)\n\
             { t[0] = x[0]; o[0] = sum(x) + sum_l(t); }\n";
    let c = "__kernel void kc(__global float *o, __global const float *x) { o[0] = sum(x); }\n";
    let mut contents = Vec::new();
    for form in [Form::Gathered, Form::Declared] {
        let dir = form.project(&[("a", a), ("b", b), ("c", c)]);
        let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--json", "."]);
        assert_eq!(code, 1, "{form:?}: {stderr}");
        // Nothing is written with --check: the build call's detail must not say it was.
        let detail = String::from_utf8_lossy(&stdout);
        assert!(!detail.contains(" now "), "{form:?}: {detail}");
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
        assert_eq!(code, 0, "{form:?}: {stderr}");
        let written = std::fs::read_to_string(dir.path().join(form.name("a"))).unwrap();
        let content = match form {
            Form::Gathered => written.split_once("R\"clc(\n").unwrap().1.split_once(")clc\"").unwrap().0.to_string(),
            Form::Declared => written,
        };
        contents.push(content);
    }
    assert_eq!(contents[0], contents[1], "the wrapped source's content and the plain source");
}
