//! `compiles_as_built` and `compile_all`: clang-19 really checks the source,
//! options split like a shell, and the standard is the one a driver would
//! build in (the options' last `-cl-std=`, else 1.2).

use crate::support::{compile_all, compiles_as_built, driver_standard, split_options, Recorded};

const GENERIC: &str = "float first(float *p) { return p[0]; }\n\
                       __kernel void k(__global float *g) { g[1] = first(g); }\n";

fn options(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn generic_pointers_need_cl20_and_no_standard_is_cl12() {
    let error = compiles_as_built(GENERIC, &[]).unwrap_err();
    assert!(error.contains("-cl-std=CL1.2") && error.contains("changes address space"), "{error}");
    let error = compiles_as_built(GENERIC, &options(&["-cl-mad-enable"])).unwrap_err();
    assert!(error.contains("changes address space"), "{error}");
    assert_eq!(compiles_as_built(GENERIC, &options(&["-cl-std=CL2.0"])).unwrap(), "CL2.0");
    assert_eq!(compiles_as_built(GENERIC, &options(&["-DX", "-cl-std=CL3.0"])).unwrap(), "CL3.0");
}

#[test]
fn options_split_like_a_shell() {
    let split = split_options(&options(&["-DA=1 -D 'B=a b'", "-cl-mad-enable"])).unwrap();
    assert_eq!(split, ["-DA=1", "-D", "B=a b", "-cl-mad-enable"]);
    assert!(split_options(&options(&["-DA='open"])).is_err());
    let source = "#if A != 1\n#error A\n#endif\n__kernel void k(__global int *p) { p[0] = A; }\n";
    assert_eq!(compiles_as_built(source, &options(&["-DA=1 -w"])).unwrap(), "CL1.2");
    assert!(compiles_as_built(source, &[]).is_err());
}

#[test]
fn the_last_cl_std_option_is_the_standard() {
    assert_eq!(driver_standard(&options(&["-DX"])), "CL1.2");
    assert_eq!(driver_standard(&options(&["-cl-std=CL2.0", "-DX", "-cl-std=CL1.2"])), "CL1.2");
    let error = compiles_as_built(GENERIC, &options(&["-cl-std=CL2.0 -DX -cl-std=CL1.2"])).unwrap_err();
    assert!(error.contains("changes address space"), "{error}");
    assert_eq!(compiles_as_built(GENERIC, &options(&["-cl-std=CL1.2 -cl-std=CL2.0"])).unwrap(), "CL2.0");
}

#[test]
fn compile_all_names_each_failing_build() {
    // A migrated (generic) program: built with no options, or options naming no standard, the driver builds 1.2.
    let builds = vec![None, Some("-cl-mad-enable".to_string()), Some("-cl-std=CL2.0".to_string())];
    let program = Recorded { source: GENERIC.to_string(), builds };
    let error = compile_all(std::slice::from_ref(&program)).unwrap_err();
    assert!(error.contains("program 1 with options None: clang -cl-std=CL1.2"), "{error}");
    assert!(error.contains("program 1 with options Some(\"-cl-mad-enable\"): clang -cl-std=CL1.2"), "{error}");
    assert!(!error.contains("Some(\"-cl-std=CL2.0\")"), "{error}");
    let built = Recorded { source: GENERIC.to_string(), builds: vec![Some("-cl-std=CL2.0".to_string())] };
    compile_all(&[built]).unwrap();
}
