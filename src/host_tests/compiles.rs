//! `compiles_as` and `compile_all`: clang-19 really checks the source,
//! options split like a shell, and `-cl-std=` in options must agree.

use crate::support::{compile_all, compiles_as, split_options, Recorded};

const GENERIC: &str = "float first(float *p) { return p[0]; }\n\
                       __kernel void k(__global float *g) { g[1] = first(g); }\n";

fn options(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn generic_pointers_need_cl20() {
    let error = compiles_as(GENERIC, "CL1.2", &[]).unwrap_err();
    assert!(error.contains("changes address space"), "{error}");
    compiles_as(GENERIC, "CL2.0", &[]).unwrap();
    compiles_as(GENERIC, "CL2.0", &options(&["-cl-std=CL2.0"])).unwrap();
}

#[test]
fn options_split_like_a_shell() {
    let split = split_options(&options(&["-DA=1 -D 'B=a b'", "-cl-mad-enable"])).unwrap();
    assert_eq!(split, ["-DA=1", "-D", "B=a b", "-cl-mad-enable"]);
    assert!(split_options(&options(&["-DA='open"])).is_err());
    let source = "#if A != 1\n#error A\n#endif\n__kernel void k(__global int *p) { p[0] = A; }\n";
    compiles_as(source, "CL1.2", &options(&["-DA=1 -w"])).unwrap();
    assert!(compiles_as(source, "CL1.2", &[]).is_err());
}

#[test]
fn a_cl_std_option_must_match() {
    let error = compiles_as(GENERIC, "CL2.0", &options(&["-DX -cl-std=CL1.2"])).unwrap_err();
    assert!(error.contains("-cl-std=CL1.2, not CL2.0"), "{error}");
}

#[test]
fn compile_all_names_each_failing_build() {
    let program = Recorded { source: GENERIC.to_string(), builds: vec![None, Some("-cl-std=CL2.0".to_string())] };
    let error = compile_all(std::slice::from_ref(&program), "CL1.2").unwrap_err();
    assert!(error.contains("program 1 with options None"), "{error}");
    assert!(error.contains("program 1 with options Some(\"-cl-std=CL2.0\")"), "{error}");
    compile_all(&[program], "CL2.0").unwrap();
}
