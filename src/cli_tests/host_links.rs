//! Which build calls clasp switches to 2.0: only those every program of
//! which it migrated in this run (an excluded or unanalysable kernel file is
//! never switched), through helpers that take the file name as a parameter
//! (same file or another), and never `unchanged` when it cannot tell; and
//! `--compile-commands` with absolute paths, host entries and `-Xclang` pairs.

use std::path::Path;

use crate::support::{clasp_in, git, HELPER_UNIT};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// One function builds kernels/sum.cl and kernels/tile.cl, each read from its file.
const TWO_PROGRAMS: &str = "#include <CL/cl.h>\nchar *read_text(const char *path);\nvoid run(cl_context ctx) {\n\
    char *s = read_text(\"kernels/sum.cl\");\n\
    cl_program ps = clCreateProgramWithSource(ctx, 1, (const char **)&s, NULL, NULL);\n\
    clBuildProgram(ps, 0, NULL, NULL, NULL, NULL);\n\
    char *t = read_text(\"kernels/tile.cl\");\n\
    cl_program pt = clCreateProgramWithSource(ctx, 1, (const char **)&t, NULL, NULL);\n\
    clBuildProgram(pt, 0, NULL, \"-DX=1\", NULL, NULL);\n}\n";

fn two_programs(tile: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("kernels/sum.cl", HELPER_UNIT), ("kernels/tile.cl", tile), ("host/main.c", TWO_PROGRAMS)]);
    dir
}

/// The migrated host/main.c written under `out` by `--out-dir`, and clasp's stderr.
fn out_dir_host(dir: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec!["migrate", "--explain", "--out-dir", "out", "."];
    args.extend_from_slice(extra);
    let (code, _, stderr) = clasp_in(dir, &args);
    assert!(code == 0 || code == 2, "{stderr}");
    (read(&dir.join("out/host/main.c")), stderr)
}

#[test]
fn a_call_building_an_excluded_program_is_not_switched() {
    let dir = two_programs(&HELPER_UNIT.replace("first", "head"));
    let (host, stderr) = out_dir_host(dir.path(), &["--exclude", "kernels/tile.cl"]);
    assert!(host.contains("clBuildProgram(ps, 0, NULL, \"-cl-std=CL2.0\", NULL, NULL);"), "{host}");
    assert!(host.contains("clBuildProgram(pt, 0, NULL, \"-DX=1\", NULL, NULL);"), "{host}");
    assert!(stderr.contains("host/main.c:6:1: host-build-options: clBuildProgram: builds kernels/sum.cl, migrated"), "{stderr}");
    assert!(stderr.contains("host/main.c:9:1: host-build-options unchanged: clBuildProgram (kernels/tile.cl)"), "{stderr}");
}

#[test]
fn a_call_building_an_unanalysable_program_is_not_switched() {
    // tile.cl needs a -D the batch does not give: unanalysable, so unchanged.
    let dir = two_programs(
        "float head(__global float *p) { return p[0] * SCALE; }\n__kernel void k(__global float *a) { a[1] = head(a); }\n",
    );
    let (host, stderr) = out_dir_host(dir.path(), &[]);
    assert!(stderr.contains("1 unanalysable"), "{stderr}");
    assert!(host.contains("clBuildProgram(ps, 0, NULL, \"-cl-std=CL2.0\", NULL, NULL);"), "{host}");
    assert!(host.contains("clBuildProgram(pt, 0, NULL, \"-DX=1\", NULL, NULL);"), "{host}");
}

/// A helper that reads the file named by its parameter through a stream.
const CPP_LOADER: &str = "#include <CL/cl.h>\n#include <fstream>\n#include <sstream>\n#include <string>\n\
    cl_program CreateProgram(cl_context context, cl_device_id device, const char *fileName)\n{\n\
    std::ifstream kernelFile(fileName, std::ios::in);\n    std::ostringstream oss;\n    oss << kernelFile.rdbuf();\n\
    std::string srcStdStr = oss.str();\n    const char *srcStr = srcStdStr.c_str();\n\
    cl_program program = clCreateProgramWithSource(context, 1, (const char **)&srcStr, NULL, NULL);\n\
    clBuildProgram(program, 0, NULL, NULL, NULL, NULL);\n    return program;\n}\n";

#[test]
fn a_cpp_helper_in_the_same_file_is_linked_through_its_callers_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let host = format!("{CPP_LOADER}int main() {{ CreateProgram(0, 0, \"k.cl\"); return 0; }}\n");
    write(dir.path(), &[("k.cl", HELPER_UNIT), ("host.cpp", &host)]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--explain", "."]);
    assert_eq!(code, 0, "{stderr}");
    let diff = String::from_utf8(stdout).unwrap();
    assert!(diff.contains("+clBuildProgram(program, 0, NULL, \"-cl-std=CL2.0\", NULL, NULL);"), "{diff}");
    assert!(stderr.contains("host.cpp:13:1: host-build-options: clBuildProgram: builds k.cl, migrated"), "{stderr}");
}

#[test]
fn a_c_helper_in_another_file_is_linked_through_its_callers_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let loader = "#include <CL/cl.h>\nchar *read_text(const char *path);\n\
        cl_program load(cl_context c, const char *name) {\n  char *text = read_text(name);\n\
        cl_program p = clCreateProgramWithSource(c, 1, (const char **)&text, NULL, NULL);\n\
        clBuildProgram(p, 0, NULL, \"-DTILE=4\", NULL, NULL);\n  return p;\n}\n";
    let main = "#include <CL/cl.h>\ncl_program load(cl_context c, const char *name);\n\
        int main(void) {\n  const char *file = \"kernels/k.cl\";\n  load(0, file);\n  return 0;\n}\n";
    write(dir.path(), &[("kernels/k.cl", HELPER_UNIT), ("src/load.c", loader), ("src/main.c", main)]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--explain", "."]);
    assert_eq!(code, 0, "{stderr}");
    let diff = String::from_utf8(stdout).unwrap();
    assert!(diff.contains("+clBuildProgram(p, 0, NULL, \"-DTILE=4 -cl-std=CL2.0\", NULL, NULL);"), "{diff}");
    assert!(stderr.contains("builds kernels/k.cl, migrated"), "{stderr}");
}

#[test]
fn a_program_whose_file_name_cannot_be_traced_is_unlinked_with_a_warning_and_fails_check() {
    let dir = tempfile::tempdir().unwrap();
    let host = format!(
        "{CPP_LOADER}#include <cstdlib>\nint main() {{ CreateProgram(0, 0, \"k.cl\"); CreateProgram(0, 0, std::getenv(\"K\")); return 0; }}\n"
    );
    write(dir.path(), &[("k.cl", HELPER_UNIT), ("host.cpp", &host)]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
    assert_eq!(code, 1, "{stderr}");
    let diff = String::from_utf8(stdout).unwrap();
    assert!(!diff.contains("host.cpp"), "the call is not edited:\n{diff}");
    let warning = stderr.lines().find(|l| l.contains("warning:")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(warning.starts_with("./host.cpp:13:1: warning: clBuildProgram: clasp cannot tell what it builds"), "{warning}");
    assert!(warning.contains("getenv(\"K\")"), "{warning}");
    assert!(warning.ends_with("pass -cl-std=CL2.0 (unlinked-build)"), "{warning}");
    assert!(stderr.contains("0 build calls would change (0 untraced, 1 unlinked)"), "{stderr}");
    let (_, json, _) = clasp_in(dir.path(), &["migrate", "--json", "."]);
    let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let call = &report["host"]["build_calls"][0];
    assert_eq!((&call["status"], &call["pending"]), (&"unlinked".into(), &true.into()), "{call}");
}

/// A project whose compile_commands.json (as clang writes it: absolute
/// paths) lists a kernel, its `-Xclang` option, and the C host that builds it.
fn compile_commands_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = crate::support::canonical(dir.path());
    // Builds only when the -Xclang option reaches clang (fp64 off).
    let kernel = format!("#ifdef cl_khr_fp64\n#error fp64 must be off\n#endif\n{HELPER_UNIT}");
    let host = "#include <CL/cl.h>\nchar *read_text(const char *path);\nvoid run(cl_context ctx) {\n\
        char *s = read_text(\"kernels/hist.cl\");\n\
        cl_program p = clCreateProgramWithSource(ctx, 1, (const char **)&s, NULL, NULL);\n\
        clBuildProgram(p, 0, NULL, NULL, NULL, NULL);\n}\n";
    let r = root.display();
    let commands = format!(
        "[{{\"directory\": \"{r}/build\", \"file\": \"{r}/kernels/hist.cl\", \"arguments\": [\"clang\", \"-x\", \"cl\", \
         \"-Xclang\", \"-cl-ext=-cl_khr_fp64\", \"-c\", \"-o\", \"hist.o\", \"{r}/kernels/hist.cl\"]}},\n\
         {{\"directory\": \"{r}/build\", \"file\": \"{r}/host/main.c\", \"arguments\": [\"cc\", \"-c\", \"-o\", \"main.o\", \"{r}/host/main.c\"]}}]\n"
    );
    write(dir.path(), &[("kernels/hist.cl", &kernel), ("host/main.c", host), ("build/compile_commands.json", &commands)]);
    git(dir.path(), &["init", "-q"]);
    dir
}

#[test]
fn compile_commands_diffs_apply_and_match_write_and_its_host_and_xclang_entries_count() {
    let dir = compile_commands_project();
    let args = ["migrate", "--compile-commands", "build/compile_commands.json"];
    let (code, diff, stderr) = clasp_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let text = String::from_utf8(diff.clone()).unwrap();
    assert!(text.contains("--- a/kernels/hist.cl\n+++ b/kernels/hist.cl\n"), "{text}");
    assert!(text.contains("--- a/host/main.c\n"), "the listed host is read:\n{text}");
    // `git apply` takes the printed diff; the result is what --write writes.
    let applied = tempfile::tempdir().unwrap();
    crate::support::copy_tree(dir.path(), applied.path());
    std::fs::write(applied.path().join("clasp.diff"), &diff).unwrap();
    git(applied.path(), &["apply", "clasp.diff"]);
    let (code, _, stderr) = clasp_in(dir.path(), &[&args[..], &["--write", "--allow-dirty"]].concat());
    assert_eq!(code, 0, "{stderr}");
    for file in ["kernels/hist.cl", "host/main.c"] {
        assert_eq!(read(&applied.path().join(file)), read(&dir.path().join(file)), "{file}");
    }
    assert!(read(&dir.path().join("host/main.c")).contains("\"-cl-std=CL2.0\""));
}

/// `setup` builds a.cl, then a program read from the file `name` (an
/// expression computed at run time) with the options `-DOTHER=1`.
fn run_time_named_host(name: &str) -> String {
    format!(
        "#include <stdlib.h>\n#include <CL/cl.h>\nextern const char *slurp(const char *path);\n\
         struct config {{ const char *kernel; }};\nextern void load_config(struct config *c);\n\
         extern const char *kernel_name(void);\n\
         int main(int argc, char **argv) {{\n  cl_context ctx = 0;\n  struct config cfg;\n  load_config(&cfg);\n\
         const char *a = slurp(\"a.cl\");\n  cl_program pa = clCreateProgramWithSource(ctx, 1, &a, NULL, NULL);\n\
         clBuildProgram(pa, 0, NULL, NULL, NULL, NULL);\n\
         const char *other = slurp({name});\n  cl_program po = clCreateProgramWithSource(ctx, 1, &other, NULL, NULL);\n\
         clBuildProgram(po, 0, NULL, \"-DOTHER=1\", NULL, NULL);\n  return 0;\n}}\n"
    )
}

#[test]
fn a_program_read_from_a_file_named_at_run_time_is_unlinked_though_its_function_names_a_kernel_file() {
    for name in ["getenv(\"KERNEL_FILE\")", "cfg.kernel", "kernel_name()", "argv[1]"] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &[("a.cl", HELPER_UNIT), ("host.c", &run_time_named_host(name))]);
        let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--explain", "."]);
        assert_eq!(code, 1, "{name}: {stderr}");
        let diff = String::from_utf8(stdout).unwrap();
        assert!(diff.contains("+clBuildProgram(pa, 0, NULL, \"-cl-std=CL2.0\", NULL, NULL);"), "{name}: {diff}");
        assert!(!diff.contains("-clBuildProgram(po"), "{name}: the run-time named build is not edited:\n{diff}");
        assert!(stderr.contains("./host.c:16:1: warning: clBuildProgram: clasp cannot tell what it builds"), "{name}: {stderr}");
        assert!(stderr.contains("1 build call would change (0 untraced, 1 unlinked)"), "{name}: {stderr}");
        // Its options are no configuration a.cl is analysed in.
        let (_, json, _) = clasp_in(dir.path(), &["migrate", "--json", "."]);
        let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let configurations = report["changes"].to_string();
        assert!(!configurations.contains("host.c:16"), "{name}: {configurations}");
    }
}

#[test]
fn a_python_program_read_from_a_file_named_by_the_environment_is_unlinked() {
    let dir = tempfile::tempdir().unwrap();
    let host =
        "import os\nimport pyopencl as cl\n\ndef setup(ctx):\n    a = cl.Program(ctx, open(\"a.cl\").read()).build()\n    \
        b = cl.Program(ctx, open(os.environ[\"KERNEL_FILE\"]).read())\n    b.build()\n";
    write(dir.path(), &[("a.cl", HELPER_UNIT), ("host.py", host)]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--explain", "."]);
    assert_eq!(code, 1, "{stderr}");
    let diff = String::from_utf8(stdout).unwrap();
    assert!(diff.contains("+    a = cl.Program(ctx, open(\"a.cl\").read()).build(options=[\"-cl-std=CL2.0\"])"), "{diff}");
    assert!(!diff.contains("-    b.build()"), "{diff}");
    assert!(stderr.contains("host.py:7:5: warning: pyopencl.Program.build: clasp cannot tell what it builds"), "{stderr}");
    assert!(stderr.contains("os.environ[\"KERNEL_FILE\"]"), "the name is the reason: {stderr}");
}

#[test]
fn a_reader_call_inline_as_the_source_is_followed_to_the_file_its_caller_names() {
    let cpp = "#include <CL/opencl.hpp>\n#include <string>\n#include <fstream>\n#include <sstream>\n\
        static std::string readAll(const std::string &name)\n{\n\
        std::ifstream in(name);\n    std::stringstream ss;\n    ss << in.rdbuf();\n    return ss.str();\n}\n\
        static cl::Program makeProgram(cl::Context &ctx, const std::string &file)\n{\n\
        cl::Program prog(ctx, readAll(file));\n    prog.build();\n    return prog;\n}\n\
        int main() { cl::Context ctx; makeProgram(ctx, \"a.cl\"); return 0; }\n";
    let c = "#include <CL/cl.h>\nextern const char *read_all(const char *path);\n\
        static cl_program make(cl_context ctx, const char *path)\n{\n\
        cl_program p = clCreateProgramWithSource(ctx, 1, (const char *[]){read_all(path)}, NULL, NULL);\n\
        clBuildProgram(p, 0, NULL, NULL, NULL, NULL);\n    return p;\n}\n\
        int main(void) { make(0, \"a.cl\"); return 0; }\n";
    let python = "import pyopencl as cl\n\ndef make(ctx, path):\n    prg = cl.Program(ctx, open(path).read())\n    \
        prg.build()\n    return prg\n\nmake(None, \"a.cl\")\n";
    for (host, text, line, column) in [("host.cpp", cpp, 15, 5), ("host.c", c, 6, 1), ("host.py", python, 5, 5)] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &[("a.cl", HELPER_UNIT), (host, text)]);
        let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--explain", "."]);
        assert_eq!(code, 0, "{host}: {stderr}");
        assert!(stderr.contains(&format!("{host}:{line}:{column}: host-build-options: ")), "{host}: {stderr}");
        assert!(stderr.contains("builds a.cl, migrated"), "{host}: {stderr}");
        assert!(String::from_utf8(stdout).unwrap().contains("-cl-std=CL2.0"), "{host}");
    }
}

/// A kernel that includes `helper.h`, whose helper clasp makes generic, and
/// nothing of its own to change, as a host gives it to the driver: wrapped
/// and `#include`d (a program clasp infers, or one `clasp.toml` declares),
/// or embedded as a raw string.
#[test]
fn a_program_changed_only_in_a_header_it_includes_is_built_as_the_target() {
    let helper = "float first_l(__local const float *t) { return t[0]; }\n";
    let kernel = "#include \"helper.h\"\n__kernel void k(__global float *o)\n{\n    __local float t[4];\n    t[0] = o[0];\n    o[1] = first_l(t);\n}\n";
    let wrapped = format!("// the kernel, for the host to include\nR\"cl(\n{kernel})cl\"\n");
    let gathered = "#include <CL/cl.h>\nstatic const char *sources[] = {\n#include \"k.cl.inc\"\n};\n\
                    cl_program build(cl_context ctx, cl_device_id dev)\n{\n    cl_int err;\n\
                    cl_program p = clCreateProgramWithSource(ctx, 1, sources, NULL, &err);\n\
                    clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n    return p;\n}\n";
    let embedded = format!(
        "#include <CL/cl.h>\nstatic const char *src = R\"cl(\n{kernel})cl\";\n\
         cl_program build(cl_context ctx, cl_device_id dev)\n{{\n    cl_int err;\n\
         cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);\n\
         clBuildProgram(p, 1, &dev, NULL, NULL, NULL);\n    return p;\n}}\n"
    );
    let declared = "[[program]]\nname = \"kp\"\nsources = [\"k.cl.inc\"]\n";
    let variants: [(&str, Vec<(&str, &str)>); 3] = [
        ("inferred", vec![("helper.h", helper), ("k.cl.inc", &wrapped), ("host.cpp", gathered)]),
        ("declared", vec![("helper.h", helper), ("k.cl.inc", &wrapped), ("host.cpp", gathered), ("clasp.toml", declared)]),
        ("embedded", vec![("helper.h", helper), ("host.cpp", &embedded)]),
    ];
    for (name, files) in variants {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &files);
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--write", "."]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(stderr.contains("1 build call edited"), "{name}: {stderr}");
        assert!(read(&dir.path().join("helper.h")).contains("float first_l(const float *t)"), "{name}");
        let host = read(&dir.path().join("host.cpp"));
        assert!(host.contains("clBuildProgram(p, 1, &dev, \"-cl-std=CL2.0\", NULL, NULL);"), "{name}:\n{host}");
        let (again, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "."]);
        assert_eq!(again, 0, "{name}: a second run changes nothing: {stderr}");
    }
}
