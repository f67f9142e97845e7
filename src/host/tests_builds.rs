//! Build calls of each API with each options form, variable tracing, and
//! `options_edit` for every arm (applied to the file and re-scanned).

use super::tests_literals::scan_str;
use super::*;

const STD: &str = "-cl-std=CL2.0";

fn only_build(name: &str, src: &str) -> BuildCall {
    let facts = scan_str(name, src);
    assert_eq!(facts.build_calls.len(), 1, "one build call in {src}: {:?}", facts.build_calls);
    facts.build_calls.into_iter().next().unwrap()
}

/// Applies `options_edit` and returns the edited file, and the options the
/// re-scanned build call then has.
fn apply(name: &str, src: &str) -> (String, OptionsArg) {
    let call = only_build(name, src);
    let (range, text) = options_edit(&call.options, STD).expect("an edit");
    let mut edited = src.to_string();
    edited.replace_range(range.start as usize..range.end as usize, &text);
    let options = only_build(name, &edited).options;
    assert_eq!(options_edit(&options, STD), None, "the edited options already ask for {STD}: {edited}");
    (edited, options)
}

fn c_build(options: &str) -> String {
    format!("void f(cl_program program, cl_device_id dev) {{\n  clBuildProgram(program, 1, &dev, {options}, NULL, NULL);\n}}\n")
}

#[test]
fn clbuildprogram_options_literal_null_and_zero() {
    let call = only_build("h.c", &c_build("\"-DTILE=16\""));
    assert_eq!((call.api.as_str(), call.function.as_deref()), ("clBuildProgram", Some("f")));
    assert_eq!(call.program, ProgramRef::Expr("program".into()));
    assert!(matches!(&call.options, OptionsArg::Literal { value, python: false, .. } if value == "-DTILE=16"));
    let (edited, _) = apply("h.c", &c_build("\"-DTILE=16\""));
    assert!(edited.contains("\"-DTILE=16 -cl-std=CL2.0\""), "{edited}");
    for null in ["NULL", "0", "(const char *)NULL"] {
        let call = only_build("h.c", &c_build(null));
        assert!(matches!(call.options, OptionsArg::Null { .. }), "{null}: {:?}", call.options);
        let (edited, _) = apply("h.c", &c_build(null));
        assert!(edited.contains("&dev, \"-cl-std=CL2.0\", NULL"), "{edited}");
    }
}

#[test]
fn an_older_std_is_replaced_and_the_same_std_left_alone() {
    let (edited, _) = apply("h.c", &c_build("\"-DTILE=16 -cl-std=CL1.2 -cl-mad-enable\""));
    assert!(edited.contains("\"-DTILE=16 -cl-std=CL2.0 -cl-mad-enable\""), "{edited}");
    let call = only_build("h.c", &c_build("\"-cl-std=CL2.0 -DX\""));
    assert_eq!(options_edit(&call.options, STD), None);
}

#[test]
fn clcompileprogram_options_are_the_fourth_argument() {
    let src = "void f(cl_program p) {\n  clCompileProgram(p, 0, NULL, \"-I inc\", 0, NULL, NULL, NULL, NULL);\n}\n";
    let call = only_build("h.c", src);
    assert_eq!(call.api, "clCompileProgram");
    assert!(matches!(&call.options, OptionsArg::Literal { value, .. } if value == "-I inc"));
}

#[test]
fn a_traced_variable_has_its_initialiser_edited() {
    let src =
        "static const char *OPTS = \"-DTILE=16\";\nvoid f(cl_program p) {\n  clBuildProgram(p, 0, NULL, OPTS, NULL, NULL);\n}\n";
    let call = only_build("h.c", src);
    let OptionsArg::Variable { name, init } = &call.options else { panic!("{:?}", call.options) };
    assert_eq!(name, "OPTS");
    assert!(matches!(**init, OptionsArg::Literal { ref value, .. } if value == "-DTILE=16"));
    let (edited, _) = apply("h.c", src);
    assert!(edited.starts_with("static const char *OPTS = \"-DTILE=16 -cl-std=CL2.0\";"), "{edited}");
}

#[test]
fn buffers_parameters_and_the_environment_are_untraced() {
    let snprintf = "void f(cl_program p, int tile) {\n  char opts[128];\n  snprintf(opts, sizeof opts, \"-DTILE=%d\", tile);\n  \
                    clBuildProgram(p, 0, NULL, opts, NULL, NULL);\n}\n";
    let reassigned = "void f(cl_program p) {\n  const char *o = \"-DX\";\n  if (fast) o = \"-DX -cl-fast-relaxed-math\";\n  \
                      clBuildProgram(p, 0, NULL, o, NULL, NULL);\n}\n";
    let parameter = "void f(cl_program p, const char *o) {\n  clBuildProgram(p, 0, NULL, o, NULL, NULL);\n}\n";
    let cases = [
        (snprintf, "`opts` is written by `snprintf(...)` (line 3)"),
        (reassigned, "`o` is written again: `o = \"-DX -cl-fast-relaxed-math\"` (line 3)"),
        (parameter, "`o` is a parameter of `f`"),
        (&c_build("getenv(\"CL_OPTS\")"), "`getenv(\"CL_OPTS\")` is computed at run time"),
    ];
    for (src, expected) in cases {
        let call = only_build("h.c", src);
        assert_eq!(call.options, OptionsArg::Untraced { why: expected.into() }, "{src}");
        assert_eq!(options_edit(&call.options, STD), None);
    }
}

#[test]
fn cpp_build_with_nothing_devices_null_or_a_string() {
    let wrap = |call: &str| format!("void f(cl::Program program, std::vector<cl::Device> devices) {{\n  {call};\n}}\n");
    let cases = [
        ("program.build()", "program.build(\"-cl-std=CL2.0\")"),
        ("program.build(devices)", "program.build(devices, \"-cl-std=CL2.0\")"),
        ("program.build(devices, nullptr)", "program.build(devices, \"-cl-std=CL2.0\")"),
        ("program.build(\"-DTILE=16\")", "program.build(\"-DTILE=16 -cl-std=CL2.0\")"),
        ("program.compile(\"-cl-std=CL1.2\")", "program.compile(\"-cl-std=CL2.0\")"),
    ];
    for (before, after) in cases {
        let call = only_build("h.cpp", &wrap(before));
        assert_eq!(call.program, ProgramRef::Expr("program".into()));
        assert!(call.api.starts_with("cl::Program::"), "{}", call.api);
        let (edited, _) = apply("h.cpp", &wrap(before));
        assert!(edited.contains(after), "{before}: {edited}");
    }
}

#[test]
fn cpp_build_options_through_c_str_of_a_string() {
    let src = "void f(cl::Program &p) {\n  std::string opts(\"-DTILE=16\");\n  p.build(opts.c_str());\n}\n";
    let (edited, options) = apply("h.cpp", src);
    assert!(edited.contains("std::string opts(\"-DTILE=16 -cl-std=CL2.0\");"), "{edited}");
    assert!(matches!(options, OptionsArg::Variable { ref name, .. } if name == "opts"));
    let built = "void f(cl::Program &p, int n) {\n  std::string opts = \"-DN=\";\n  opts += std::to_string(n);\n  p.build(opts.c_str());\n}\n";
    let call = only_build("h.cpp", built);
    assert!(matches!(&call.options, OptionsArg::Untraced { why } if why.starts_with("`opts` is written again")), "{call:?}");
}

#[test]
fn pyopencl_build_forms() {
    let wrap = |call: &str| format!("import pyopencl as cl\ndef f(ctx, src, d):\n    prg = cl.Program(ctx, src)\n    {call}\n");
    let cases = [
        ("prg.build()", "prg.build(options=[\"-cl-std=CL2.0\"])"),
        ("prg.build(devices=[d])", "prg.build(devices=[d], options=[\"-cl-std=CL2.0\"])"),
        ("prg.build(\"-DX\")", "prg.build(\"-DX -cl-std=CL2.0\")"),
        ("prg.build(options='-DX')", "prg.build(options=\"-DX -cl-std=CL2.0\")"),
        ("prg.build(options=None)", "prg.build(options=\"-cl-std=CL2.0\")"),
        ("prg.build(options=[\"-DX\"])", "prg.build(options=[\"-DX\", \"-cl-std=CL2.0\"])"),
        ("prg.build(options=[\"-DX\", \"-cl-std=CL1.2\"])", "prg.build(options=[\"-DX\", \"-cl-std=CL2.0\"])"),
    ];
    for (before, after) in cases {
        let call = only_build("run.py", &wrap(before));
        assert_eq!((call.api.as_str(), &call.program), ("pyopencl.Program.build", &ProgramRef::Expr("prg".into())));
        let (edited, _) = apply("run.py", &wrap(before));
        assert!(edited.contains(after), "{before}: {edited}");
    }
}

#[test]
fn pyopencl_chained_build_names_its_creation_and_lists_trace() {
    let src = "import pyopencl as cl\nOPTS = ['-DTILE=16']\nprg = cl.Program(ctx, 'kernel void k() {}').build(options=OPTS)\n";
    let facts = scan_str("run.py", src);
    let [call] = facts.build_calls.as_slice() else { panic!("{:?}", facts.build_calls) };
    assert_eq!(call.program, ProgramRef::Creation(0));
    assert_eq!(call.function, None);
    let OptionsArg::Variable { init, .. } = &call.options else { panic!("{:?}", call.options) };
    let OptionsArg::PythonList { values, needs_comma: true, .. } = &**init else { panic!("{init:?}") };
    assert_eq!(values.iter().map(|v| v.value.as_str()).collect::<Vec<_>>(), ["-DTILE=16"]);
    let (edited, _) = apply("run.py", src);
    assert!(edited.contains("OPTS = ['-DTILE=16', \"-cl-std=CL2.0\"]"), "{edited}");
    let appended =
        "import pyopencl as cl\ndef f(prg):\n    opts = ['-DX']\n    opts.append('-DY')\n    prg.build(options=opts)\n";
    let call = only_build("run.py", appended);
    assert!(matches!(&call.options, OptionsArg::Untraced { why } if why.contains("opts.append")), "{call:?}");
}

#[test]
fn python_build_on_unrelated_objects_is_ignored_without_pyopencl() {
    let facts = scan_str("setup.py", "import setuptools\ncmd.build()\n");
    assert!(facts.build_calls.is_empty());
}

#[test]
fn options_edit_of_each_arm_by_itself() {
    let literal = OptionsArg::Literal { range: 5..9, value: "-DTILE=16  -cl-std=CL1.1".into(), python: false };
    assert_eq!(options_edit(&literal, STD), Some((5..9, "\"-DTILE=16  -cl-std=CL2.0\"".into())));
    let empty = OptionsArg::Literal { range: 0..2, value: "".into(), python: true };
    assert_eq!(options_edit(&empty, STD), Some((0..2, "\"-cl-std=CL2.0\"".into())));
    let absent = OptionsArg::Absent { insert_at: 7, needs_comma: true, python: false };
    assert_eq!(options_edit(&absent, STD), Some((7..7, ", \"-cl-std=CL2.0\"".into())));
    let list = OptionsArg::PythonList { range: 0..2, values: vec![], insert_at: 1, needs_comma: false };
    assert_eq!(options_edit(&list, STD), Some((1..1, "\"-cl-std=CL2.0\"".into())));
    assert_eq!(options_edit(&OptionsArg::Untraced { why: "x".into() }, STD), None);
}

#[test]
fn options_a_fixed_size_array_holds_or_another_function_writes_are_untraced() {
    let sized =
        "static const char opts[8] = \"-DX=1\";\nvoid f(cl_program p) { clBuildProgram(p, 0, NULL, opts, NULL, NULL); }\n";
    let call = only_build("h.c", sized);
    assert!(matches!(&call.options, OptionsArg::Untraced { why } if why.contains("fixed size")), "{:?}", call.options);
    let elsewhere = "static char opts[] = \"-DX=1\";\nvoid init(void) { strcpy(opts, \"-DX=2\"); }\n\
                     void f(cl_program p) { clBuildProgram(p, 0, NULL, opts, NULL, NULL); }\n";
    let call = only_build("h.c", elsewhere);
    assert!(matches!(&call.options, OptionsArg::Untraced { why } if why.contains("strcpy")), "{:?}", call.options);
}

#[test]
fn a_newer_standard_already_asked_for_stays() {
    let call = only_build("h.c", &c_build("\"-cl-std=CL3.0 -DZ\""));
    assert_eq!(options_edit(&call.options, STD), None);
    let (edited, _) = apply("h.c", &c_build("\"-cl-std=CL1.2 -DZ\""));
    assert!(edited.contains("\"-cl-std=CL2.0 -DZ\""), "{edited}");
}

#[test]
fn a_cpp_build_method_counts_only_on_what_may_be_a_program() {
    // A member of a type declared in a header, in a file that names cl::Program: counted.
    let member = "class Runner { void go(); };\nvoid Runner::go() { cl::Program *unused; m_program.build(\"-DX=1\"); }\n";
    assert_eq!(only_build("r.cpp", member).program, ProgramRef::Expr("m_program".into()));
    // Through a pointer declared as a program.
    let pointer = "void f(cl::Program *prog) { prog->build(\"-DX=1\"); }\n";
    assert_eq!(only_build("p.cpp", pointer).program, ProgramRef::Expr("prog".into()));
    // A tree's build, declared with its own type; a member in a file naming no Program type.
    for src in [
        "void f(Mesh *m) { Tree *bvh = new Tree(); bvh->build(m, true); }\n",
        "void Broadphase::update() { m_bvh.build(m_boxes, m_small, m_large); clBuildProgramStats(); }\n",
        "void Raycast::cast() { m_data->m_bvh->build(boxes, count); }\n",
    ] {
        let facts = scan_str("t.cpp", src);
        assert!(facts.build_calls.is_empty(), "{src}: {:?}", facts.build_calls);
    }
}
