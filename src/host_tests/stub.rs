//! The stub OpenCL itself, through small hosts under
//! `fixtures/host/stub/checks/` (not clasp fixtures): how sources are
//! concatenated, how options are recorded (NULL, empty, lists), escapes.

use crate::support::{run_host, stub_dir, Recorded};

fn recorded(source: &str, builds: &[Option<&str>]) -> Recorded {
    Recorded { source: source.to_string(), builds: builds.iter().map(|b| b.map(str::to_string)).collect() }
}

#[test]
fn c_api_concatenates_strings_and_records_options() {
    let programs = run_host(&stub_dir().join("checks/c_api"));
    let first = "kernel void a() {}\n// \"quoted\" \\ back\tslash\u{1}\nkernel void b() {}\n";
    assert_eq!(programs, [recorded(first, &[None, Some("-DX=1 -I \"a b\"")]), recorded("kernel void c() {}\n", &[Some("")])]);
}

#[test]
fn cpp_bindings_record_sources_compile_and_both_builds() {
    let programs = run_host(&stub_dir().join("checks/cpp_api"));
    assert_eq!(
        programs,
        [
            recorded("kernel void a() {}\nkernel void b() {}\n", &[Some("-DX=1"), Some("-cl-std=CL1.2"), None]),
            recorded("kernel void c() {}\n", &[None]),
        ]
    );
}

#[test]
fn pyopencl_joins_option_lists() {
    let programs = run_host(&stub_dir().join("checks/python_api"));
    assert_eq!(
        programs,
        [
            recorded("kernel void a() {}\n", &[Some("-DA=1"), Some("-DB=2 -cl-std=CL1.2"), None, Some("")]),
            recorded("kernel void b() { /* \"\u{e9}\" */ }\n", &[]),
        ]
    );
}
