//! Program creations: which literals each takes, in order, through
//! variables and arrays; the program's variable; file names nearby; and
//! facts found around a syntax error.

use super::tests_literals::scan_str;
use super::*;

fn texts(facts: &HostFacts, program: &ProgramCreation) -> Vec<String> {
    program.literals.iter().map(|&i| facts.literals[i].text.clone()).collect()
}

#[test]
fn clcreateprogramwithsource_through_a_pointer_variable() {
    let src = "static const char *src = \"kernel void k(global int *p) { *p = 1; }\";\n\
               cl_program make(cl_context ctx) {\n  cl_int err;\n  \
               cl_program program = clCreateProgramWithSource(ctx, 1, (const cl_char **)&src, NULL, &err);\n  return program;\n}\n";
    let facts = scan_str("host.c", src);
    let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert_eq!(program.api, "clCreateProgramWithSource");
    assert_eq!((program.function.as_deref(), program.variable.as_deref()), (Some("make"), Some("program")));
    assert_eq!((program.at.line, program.at.col), (4, 24));
    assert_eq!(texts(&facts, program), ["kernel void k(global int *p) { *p = 1; }"]);
    assert_eq!(program.untraced, None);
    assert_eq!(facts.literals[0].passed_to.as_deref(), Some("clCreateProgramWithSource"));
}

#[test]
fn an_array_of_sources_is_concatenated_in_order() {
    let src = "static const char *common = \"#define N 4\\n\";\n\
               void f(cl_context ctx) {\n  const char *body = \"kernel void k(global int *p) { *p = N; }\";\n  \
               const char *parts[] = { common, \"// sep\\n\", body };\n  \
               program = clCreateProgramWithSource(ctx, 3, parts, NULL, NULL);\n}\n";
    let facts = scan_str("host.c", src);
    let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert_eq!(texts(&facts, program), ["#define N 4\n", "// sep\n", "kernel void k(global int *p) { *p = N; }"]);
    let separator = facts.literals.iter().find(|l| l.text == "// sep\n").unwrap();
    assert_eq!(separator.variable.as_deref(), Some("parts"), "an array element initialises the array");
    assert!(facts.literals.iter().all(|l| l.passed_to.is_some()));
}

#[test]
fn a_source_read_from_a_file_is_untraced_and_the_file_name_is_kept() {
    let src = "void f(cl_context ctx) {\n  const char *path = \"kernels/scan.cl\";\n  char *text = read_file(path);\n  \
               program = clCreateProgramWithSource(ctx, 1, (const char **)&text, NULL, NULL);\n  puts(\"notes.txt\");\n}\n";
    let facts = scan_str("host.c", src);
    let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert!(program.literals.is_empty());
    assert_eq!(program.untraced.as_deref(), Some("`read_file(path)` is computed at run time"));
    assert_eq!(program.file_names, ["kernels/scan.cl"]);
}

#[test]
fn cpp_program_declarations_sources_and_std_string() {
    let src = "const char *k = R\"(kernel void k(global int *p) {})\";\n\
               void f(cl::Context ctx) {\n  cl::Program program(ctx, std::string(k));\n  \
               cl::Program::Sources sources{ {k, strlen(k)} };\n  cl::Program p2 = cl::Program(ctx, sources);\n  \
               auto p3 = cl::Program(ctx, \"kernel void g() {}\");\n}\n";
    let facts = scan_str("host.cpp", src);
    let names: Vec<_> = facts.programs.iter().map(|p| (p.api.as_str(), p.variable.as_deref())).collect();
    assert_eq!(names, [("cl::Program", Some("program")), ("cl::Program", Some("p2")), ("cl::Program", Some("p3"))]);
    for program in &facts.programs[..2] {
        assert_eq!(texts(&facts, program), ["kernel void k(global int *p) {}"], "{program:?}");
        assert_eq!(program.untraced, None);
    }
    assert_eq!(texts(&facts, &facts.programs[2]), ["kernel void g() {}"]);
}

#[test]
fn sources_pushed_back_are_followed() {
    let src = "void f(cl::Context ctx) {\n  cl::Program::Sources sources;\n  \
               sources.push_back(\"kernel void a() {}\");\n  sources.push_back({\"kernel void b() {}\", 18});\n  \
               cl::Program program(ctx, sources);\n}\n";
    let facts = scan_str("host.cpp", src);
    assert_eq!(texts(&facts, &facts.programs[0]), ["kernel void a() {}", "kernel void b() {}"]);
    assert_eq!(facts.programs[0].untraced, None);
}

#[test]
fn pyopencl_programs_under_any_alias() {
    let src = "import pyopencl as ocl\nSRC = \"\"\"kernel void k(global int *p) { *p = 1; }\"\"\"\n\
               def run(ctx):\n    prg = ocl.Program(ctx, SRC).build()\n    other = ocl.Program(ctx, open('k.cl').read())\n";
    let facts = scan_str("run.py", src);
    let [first, second] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert_eq!((first.api.as_str(), first.variable.as_deref()), ("pyopencl.Program", Some("prg")));
    assert_eq!(texts(&facts, first), ["kernel void k(global int *p) { *p = 1; }"]);
    assert_eq!(facts.literals[0].variable.as_deref(), Some("SRC"));
    assert!(second.literals.is_empty());
    assert!(second.untraced.as_deref().is_some_and(|w| w.contains("open('k.cl')")), "{second:?}");
    assert_eq!(second.file_names, ["k.cl"]);
}

#[test]
fn a_parameter_source_is_untraced() {
    let facts =
        scan_str("host.c", "void f(cl_context c, const char *src) {\n  clCreateProgramWithSource(c, 1, &src, 0, 0);\n}\n");
    assert_eq!(facts.programs[0].untraced.as_deref(), Some("`src` is a parameter of `f`"));
}

#[test]
fn facts_survive_a_syntax_error_elsewhere() {
    let src = "static const char *src = \"kernel void k(global int *p) {}\";\n\
               void broken( { int x = ; }}\n\
               void f(cl_context ctx) {\n  program = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);\n  \
               clBuildProgram(program, 0, NULL, \"-DX\", NULL, NULL);\n}\n";
    let facts = scan_str("host.c", src);
    assert_eq!(facts.programs.len(), 1);
    assert_eq!(texts(&facts, &facts.programs[0]), ["kernel void k(global int *p) {}"]);
    assert_eq!(facts.build_calls.len(), 1);
    assert!(matches!(&facts.build_calls[0].options, OptionsArg::Literal { value, .. } if value == "-DX"));
    let py = "SRC = 'kernel void k() {}'\ndef broken(:\n    pass\nimport pyopencl as cl\nprg = cl.Program(ctx, SRC).build()\n";
    let facts = scan_str("run.py", py);
    assert_eq!(facts.programs.len(), 1, "{facts:?}");
    assert_eq!(facts.build_calls.len(), 1);
}

#[test]
fn files_included_where_sources_are_expected_are_the_programs_sources() {
    let c = "static const char *sources[] = {\n#include \"common.opencl\"\n,\n#include \"kernels/axpy.opencl\"\n};\n\
             void f(cl_context ctx) {\n  cl_program p = clCreateProgramWithSource(ctx, 2, sources, NULL, NULL);\n}\n";
    let cpp =
        "void f(cl::Context ctx) {\n  cl::Program::Sources sources{\n#include \"a.hpp\"\n    ,\n#include \"b.hpp\"\n  };\n  \
               cl::Program program(ctx, sources);\n}\n";
    let one =
        "void f(cl::Context ctx) {\n  std::string src =\n#include \"a.hpp\"\n  ;\n  cl::Program program(ctx, src, true);\n}\n";
    for (name, src, files) in [
        ("host.c", c, vec!["common.opencl", "kernels/axpy.opencl"]),
        ("host.cpp", cpp, vec!["a.hpp", "b.hpp"]),
        ("host.cpp", one, vec!["a.hpp"]),
    ] {
        let facts = scan_str(name, src);
        let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
        assert_eq!(program.included, files, "{name}");
        assert_eq!((program.literals.len(), program.untraced.as_deref()), (0, None), "{name}");
        assert!(facts.literals.is_empty(), "an `#include` line is no kernel literal: {:?}", facts.literals);
    }
    // A literal beside an included file: which comes first is not recorded.
    let mixed = "static const char *sources[] = { \"#define N 4\\n\",\n#include \"a.opencl\"\n};\n\
                 void f(cl_context ctx) { clCreateProgramWithSource(ctx, 2, sources, NULL, NULL); }\n";
    let facts = scan_str("host.c", mixed);
    assert!(facts.programs[0].untraced.as_deref().is_some_and(|w| w.contains("`#include`d")), "{:?}", facts.programs);
}

#[test]
fn the_bindings_constructors_from_binaries_or_built_in_kernels_take_no_source() {
    let src = "void f(cl::Context ctx, std::vector<cl::Device> devices, cl::Program::Binaries bins, cl_int err) {\n  \
               cl::Program kernels(ctx, devices, \"scan;sort\");\n  cl::Program binary(ctx, devices, bins, nullptr, &err);\n  \
               cl::Program built(\"kernel void k() {}\", true, &err);\n}\n";
    let facts = scan_str("host.cpp", src);
    let literals: Vec<usize> = facts.programs.iter().map(|p| p.literals.len()).collect();
    assert_eq!(literals, [0, 0, 1], "{:?}", facts.programs);
    assert_eq!(facts.literals.len(), 1, "`scan;sort` names built-in kernels: no kernel text: {:?}", facts.literals);
}

#[test]
fn programs_kept_in_members_are_named_by_class_and_member() {
    let py = "import pyopencl as cl\nclass Blur:\n    def __init__(self, ctx):\n        self.prg = cl.Program(ctx, SRC)\n\
              \n    def prepare(self):\n        self.prg.build()\n\ndef f(ctx):\n    prg = cl.Program(ctx, SRC)\n    prg.build()\n";
    let cpp = "class Blur {\n  Blur(const cl::Context &c) : program_(c, src, true) {}\n  void reload(const cl::Context &c);\n  \
               int prepare() { return this->program_.build(); }\n  cl::Program program_;\n};\n\
               void Blur::reload(const cl::Context &c) { program_ = cl::Program(c, src); program_.build(); }\n\
               void f(cl::Context c) { cl::Program program_(c, src); program_.build(); }\n";
    for (name, src, creations, builds) in [
        ("host.py", py, vec![Some("Blur::prg"), None], vec![Some("Blur::prg"), None]),
        (
            "host.cpp",
            cpp,
            vec![Some("Blur::program_"), Some("Blur::program_"), None],
            vec![
                None, // the member initializer's own build, a creation of its own
                Some("Blur::program_"),
                Some("Blur::program_"),
                None,
            ],
        ),
    ] {
        let facts = scan_str(name, src);
        let members: Vec<Option<&str>> = facts.programs.iter().map(|p| p.member.as_deref()).collect();
        assert_eq!(members, creations, "{name}: {:?}", facts.programs);
        let members: Vec<Option<&str>> = facts.build_calls.iter().map(|c| c.member.as_deref()).collect();
        assert_eq!(members, builds, "{name}: {:?}", facts.build_calls);
    }
}

#[test]
fn a_helper_reading_a_file_its_caller_names_is_followed_through_its_parameters() {
    // The file name reaches the source through a call: that parameter.
    let src = "cl_program load(cl_context c, const char *name) {\n  char *text = read_text(name);\n  \
               return clCreateProgramWithSource(c, 1, (const char **)&text, NULL, NULL);\n}\n\
               void run(cl_context c) {\n  const char *file = \"kernels/a.cl\";\n  load(c, file);\n  load(c, getenv(\"K\"));\n}\n";
    let facts = scan_str("host.c", src);
    let through = facts.programs[0].through.as_ref().expect("through its parameters");
    assert_eq!((through.function.as_str(), through.parameters.as_slice()), ("load", &[1][..]));
    let names = ["load".to_string()].into_iter().collect();
    let calls = helper_calls(src.as_bytes(), HostLanguage::C, &names);
    assert_eq!(calls.defines, ["load"]);
    let passed: Vec<(&[String], bool)> =
        calls.calls.iter().map(|c| (c.arguments[1].file_names.as_slice(), c.arguments[1].opaque.is_some())).collect();
    assert_eq!(passed, [(&["kernels/a.cl".to_string()][..], false), (&[][..], true)]);
}

#[test]
fn a_helper_reading_through_a_stream_may_take_its_file_name_in_any_parameter() {
    let src = "cl_program Loader::Create(cl_context context, const char *fileName) {\n  \
               std::ifstream in(fileName);\n  std::ostringstream oss;\n  oss << in.rdbuf();\n  \
               std::string s = oss.str();\n  const char *text = s.c_str();\n  \
               return clCreateProgramWithSource(context, 1, &text, NULL, NULL);\n}\n";
    let facts = scan_str("loader.cpp", src);
    let program = &facts.programs[0];
    assert!(program.opaque.is_some() && program.file_names.is_empty(), "{program:?}");
    let through = program.through.as_ref().expect("through its parameters");
    assert_eq!((through.function.as_str(), through.parameters.as_slice()), ("Create", &[0, 1][..]));
    let names = ["Create".to_string()].into_iter().collect();
    let caller = "void f(Loader &l, cl_context c) { l.Create(c, \"k.cl\"); }\n";
    let calls = helper_calls(caller.as_bytes(), HostLanguage::Cpp, &names);
    assert!(calls.defines.is_empty());
    assert_eq!(calls.calls[0].arguments[1].file_names, ["k.cl"]);
}

#[test]
fn elements_of_a_list_of_included_files_are_followed_by_index_through_c_str() {
    let src = "int run(cl_context ctx) {\n  std::vector<std::string> srcs = {\n#include \"a.opencl\"\n,\n#include \"b.opencl\"\n  };\n  \
               const char *ptrs[2] = {srcs[1].c_str(), srcs[0].data()};\n  \
               cl_program p = clCreateProgramWithSource(ctx, 2, ptrs, NULL, NULL);\n  return 0;\n}\n";
    let facts = scan_str("host.cpp", src);
    let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert_eq!(program.included, ["b.opencl", "a.opencl"], "indices as written: {program:?}");
    assert_eq!((program.untraced.as_deref(), program.through.is_none()), (None, true), "{program:?}");
    assert_eq!(facts.included, ["a.opencl", "b.opencl"]);
}

#[test]
fn an_array_of_sources_filled_element_by_element_keeps_the_order_of_its_parts() {
    // In a loop from a list of included files (C++), at literal indices written out of order (C),
    // and by element assignment in Python.
    let looped = "int run(cl_context ctx) {\n  std::vector<std::string> srcs = {\n#include \"a.opencl\"\n,\n#include \"b.opencl\"\n  };\n  \
                  const char *ptrs[2];\n  for (size_t i = 0; i < srcs.size(); ++i)\n    ptrs[i] = srcs[i].c_str();\n  \
                  cl_program p = clCreateProgramWithSource(ctx, 2, ptrs, NULL, NULL);\n  return 0;\n}\n";
    let facts = scan_str("host.cpp", looped);
    let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert_eq!(program.included, ["a.opencl", "b.opencl"], "{program:?}");
    assert_eq!(program.untraced, None, "{program:?}");

    let reversed =
        "static const char a_src[] = {\n#include \"a.opencl\"\n};\nstatic const char b_src[] = {\n#include \"b.opencl\"\n};\n\
                    int run(cl_context ctx) {\n  const char *parts[2];\n  parts[1] = b_src;\n  parts[0] = a_src;\n  \
                    cl_program p = clCreateProgramWithSource(ctx, 2, parts, NULL, NULL);\n  return 0;\n}\n";
    let facts = scan_str("host.c", reversed);
    let [program] = facts.programs.as_slice() else { panic!("{:?}", facts.programs) };
    assert_eq!(program.included, ["a.opencl", "b.opencl"], "by index, not as written: {program:?}");
    assert_eq!(program.untraced, None, "{program:?}");
}
