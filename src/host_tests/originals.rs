//! The fixtures as written, before clasp reads host code: every host builds,
//! runs, records the programs and options expected of it, and every
//! recorded source compiles as OpenCL C 1.2 with its recorded options.

use crate::support::{compile_all_in, fixture_dir, fixture_names, run_host, Recorded};

/// What one fixture's host must record.
struct Expected {
    /// The directory under `fixtures/host/`.
    name: &'static str,
    /// Per program, in creation order: each build's options (`None`: NULL).
    builds: &'static [&'static [Option<&'static str>]],
    /// A kernel file the (single) program's source must equal, as the driver gets it.
    source_file: Option<&'static str>,
}

const FIXTURES: &[Expected] = &[
    Expected { name: "c_escaped_literals", builds: &[&[Some("-DWIDTH=8")], &[None]], source_file: None },
    Expected { name: "c_escaped_snprintf", builds: &[&[Some("-DWIDTH=8")]], source_file: None },
    Expected { name: "c_file_options", builds: &[&[Some("-DTILE=16 -Iinclude")]], source_file: Some("kernels/tile.cl") },
    Expected { name: "c_file_snprintf", builds: &[&[Some("-DLANES=4")]], source_file: Some("kernels/blend.cl") },
    Expected { name: "c_generated_header", builds: &[&[None]], source_file: Some("kernels/reduce.cl") },
    Expected { name: "c_helper_parameter", builds: &[&[None]], source_file: Some("kernels/blur.cl") },
    Expected { name: "c_included_sources", builds: &[&[Some("")]], source_file: None },
    Expected { name: "c_kernel_file", builds: &[&[None]], source_file: Some("kernels/scale.cl") },
    Expected { name: "c_stringify", builds: &[&[Some("-cl-mad-enable")]], source_file: None },
    Expected {
        name: "c_two_builds",
        builds: &[&[Some("-DLANES=4")], &[Some("-DLANES=8 -DWIDE")]],
        source_file: Some("kernels/lanes.cl"),
    },
    Expected { name: "c_two_sources", builds: &[&[None]], source_file: None },
    Expected { name: "c_untouched", builds: &[&[None]], source_file: Some("kernels/copy.cl") },
    Expected { name: "cpp_build_forms", builds: CPP_BUILD_FORMS, source_file: None },
    Expected { name: "cpp_building_constructor", builds: &[&[None]], source_file: None },
    Expected { name: "cpp_helper_other_file", builds: &[&[None]], source_file: Some("kernels/gather.cl") },
    Expected { name: "cpp_included_sources", builds: &[&[Some("")]], source_file: None },
    Expected {
        name: "cpp_kernel_file",
        builds: &[&[Some("-cl-mad-enable -cl-std=CL1.2")]],
        source_file: Some("kernels/offsets.cl"),
    },
    Expected { name: "cpp_program_parts", builds: &[&[Some("-DRADIUS=2")]], source_file: None },
    Expected { name: "cpp_raw_string", builds: &[&[Some("-DTILE=16 -cl-std=CL1.2")]], source_file: None },
    Expected { name: "py_build_forms", builds: PY_BUILD_FORMS, source_file: None },
    Expected { name: "py_file_options", builds: &[&[Some("-D RADIUS=2 -DREAL=float")]], source_file: Some("kernels/window.cl") },
    Expected { name: "py_kernel_file", builds: &[&[Some("-cl-fast-relaxed-math")]], source_file: Some("kernels/smooth.cl") },
    Expected { name: "py_triple_quoted", builds: &[&[Some("-DN=4")]], source_file: None },
];

/// `cpp_build_forms`: build(), build(devices), build(device), build(devices,
/// "-DSCALE=2.0f", ...), compile(), and four constructors that build or
/// methods that build members, none with options.
const CPP_BUILD_FORMS: &[&[Option<&str>]] =
    &[&[None], &[None], &[None], &[Some("-DSCALE=2.0f")], &[None], &[None], &[None], &[None], &[None]];

/// `py_build_forms`: build(), options=[...], "...", a variable's build(), an attribute's build(devices=...).
const PY_BUILD_FORMS: &[&[Option<&str>]] = &[&[None], &[Some("-DUNROLL=2")], &[Some("-DUNROLL=2")], &[None], &[None]];

/// Runs the fixture `name`'s host, checks what it recorded against
/// `FIXTURES`, and that it compiles as CL1.2; returns the recording.
fn check_original(name: &str) -> Vec<Recorded> {
    let expected = FIXTURES.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} is not in FIXTURES"));
    let dir = fixture_dir(name);
    let programs = run_host(&dir);
    let builds: Vec<Vec<Option<String>>> = programs.iter().map(|p| p.builds.clone()).collect();
    let want: Vec<Vec<Option<String>>> =
        expected.builds.iter().map(|b| b.iter().map(|o| o.map(str::to_string)).collect()).collect();
    assert_eq!(builds, want, "{name}: programs and build options");
    if let Some(file) = expected.source_file {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(programs[0].source, text, "{name}: the source is {file} as it is");
    }
    // Where the host ran: a relative `-I` among its options is relative to it.
    if let Err(e) = compile_all_in(&programs, Some(&dir)) {
        panic!("{name}: a recorded program does not compile as its build asks (1.2 where it names no standard):\n{e}");
    }
    programs
}

#[test]
fn every_fixture_is_expected() {
    let listed: Vec<&str> = FIXTURES.iter().map(|f| f.name).collect();
    assert_eq!(fixture_names(), listed, "fixtures/host/ and FIXTURES differ");
}

#[test]
fn c_kernel_file() {
    check_original("c_kernel_file");
}

#[test]
fn c_escaped_literals() {
    check_original("c_escaped_literals");
}

#[test]
fn c_two_sources() {
    let programs = check_original("c_two_sources");
    assert!(programs[0].source.starts_with("float peak_g(") && programs[0].source.contains("__kernel void peaks("));
}

#[test]
fn cpp_program_parts() {
    let programs = check_original("cpp_program_parts");
    assert!(programs[0].source.starts_with("// Shared by every program"), "{}", programs[0].source);
}

#[test]
fn c_file_snprintf() {
    check_original("c_file_snprintf");
}

#[test]
fn cpp_kernel_file() {
    check_original("cpp_kernel_file");
}

#[test]
fn py_kernel_file() {
    check_original("py_kernel_file");
}

#[test]
fn cpp_raw_string() {
    let programs = check_original("cpp_raw_string");
    assert!(programs[0].source.starts_with("\n#ifndef TILE\n"), "{}", programs[0].source);
}

#[test]
fn c_escaped_snprintf() {
    let programs = check_original("c_escaped_snprintf");
    // The escapes as the driver gets them: a backslash-newline, tabs.
    assert!(programs[0].source.starts_with("#define AT(p, i) \\\n    ((p)[(i)])\n"), "{}", programs[0].source);
    assert!(programs[0].source.contains("\n\treturn (AT(p, i - 1)"), "{}", programs[0].source);
}

#[test]
fn py_triple_quoted() {
    let programs = check_original("py_triple_quoted");
    assert!(programs[0].source.starts_with("\nfloat norm_g("), "{}", programs[0].source);
}

#[test]
fn c_stringify() {
    let programs = check_original("c_stringify");
    // Stringified: one line, tokens separated by single spaces.
    assert!(programs[0].source.starts_with("float dot_g(__global const float *a, "), "{}", programs[0].source);
    assert!(!programs[0].source.contains('\n'), "{}", programs[0].source);
}

#[test]
fn c_generated_header() {
    check_original("c_generated_header");
}

#[test]
fn c_untouched() {
    check_original("c_untouched");
}

#[test]
fn cpp_building_constructor() {
    let programs = check_original("cpp_building_constructor");
    assert!(programs[0].source.starts_with("\nfloat length_g("), "the wrapper's content: {}", programs[0].source);
}

#[test]
fn c_included_sources() {
    let programs = check_original("c_included_sources");
    // The two files' literals as the compiler concatenates and decodes them, in array order.
    let source = &programs[0].source;
    assert!(source.starts_with("float first_g(__global const float *p, int n)\n{\n\treturn"), "{source}");
    assert!(source.contains("}\n/* \"offsets\": each item"), "{source}");
    assert!(source.ends_with("first_g(in, 4);\n}\n"), "{source}");
}

#[test]
fn cpp_included_sources() {
    let programs = check_original("cpp_included_sources");
    assert!(programs[0].source.starts_with("\nfloat total_g("), "{}", programs[0].source);
    assert!(programs[0].source.contains("__kernel void scale("), "{}", programs[0].source);
}

#[test]
fn cpp_build_forms() {
    let programs = check_original("cpp_build_forms");
    assert!(programs[5].source.contains("__kernel void bits("), "the default context's program: {}", programs[5].source);
    assert!(programs[8].source.contains("__kernel void edges("), "{}", programs[8].source);
}

#[test]
fn py_build_forms() {
    let programs = check_original("py_build_forms");
    assert!(programs[4].source.contains("__kernel void smooth("), "{}", programs[4].source);
}

#[test]
fn c_file_options() {
    let programs = check_original("c_file_options");
    // The options are needed: without them the file does not compile.
    let error = crate::support::compiles_as_built(&programs[0].source, &[]).unwrap_err();
    assert!(error.contains("'tile_types.h' file not found"), "{error}");
}

#[test]
fn py_file_options() {
    let programs = check_original("py_file_options");
    let error = crate::support::compiles_as_built(&programs[0].source, &[]).unwrap_err();
    assert!(error.contains("use of undeclared identifier 'RADIUS'"), "{error}");
}

#[test]
fn c_two_builds() {
    let programs = check_original("c_two_builds");
    assert_eq!(programs[0].source, programs[1].source, "one source, built twice");
    let error = crate::support::compiles_as_built(&programs[0].source, &[]).unwrap_err();
    assert!(error.contains("LANES comes from the host's build options"), "{error}");
}
