//! Runs that can do nothing say so and exit 2: no unit under the paths, no
//! file under the edit root, or clang options clang rejects (one error up
//! front, not one per unit).

use crate::support::{clasp, clasp_in, HELPER_UNIT};

#[test]
fn an_empty_directory_is_a_warning_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["migrate", "analyze"] {
        let (code, stdout, stderr) = clasp_in(dir.path(), &[command, "."]);
        assert_eq!((code, stdout.as_slice()), (2, &b""[..]), "{command}: {stderr}");
        assert!(stderr.starts_with("clasp: warning: no OpenCL C unit found in .: nothing to do"), "{command}: {stderr}");
    }
}

#[test]
fn a_glob_matching_nothing_is_a_warning_and_exit_2() {
    let (code, _, stderr) = clasp(&["migrate", "--glob", "*.nothing", "fixtures/demo"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("clasp: warning: no OpenCL C unit found in fixtures/demo"), "{stderr}");
    assert!(!stderr.contains("clasp: 0 files"), "{stderr}");
}

#[test]
fn host_files_without_kernels_are_no_unit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.c"), "int main(void) { return 0; }\n").unwrap();
    for command in ["migrate", "analyze"] {
        let (code, _, stderr) = clasp_in(dir.path(), &[command, "."]);
        assert_eq!(code, 2, "{command}: {stderr}");
        assert!(stderr.contains("clasp: warning: no OpenCL C unit found in ."), "{command}: {stderr}");
    }
}

#[test]
fn a_root_holding_no_file_found_is_a_warning_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (kernels, elsewhere) = (dir.path().join("kernels"), dir.path().join("elsewhere"));
    std::fs::create_dir_all(&kernels).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(kernels.join("k.cl"), HELPER_UNIT).unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--root", "elsewhere", "kernels"]);
    assert_eq!((code, stdout.as_slice()), (2, &b""[..]), "{stderr}");
    assert!(stderr.starts_with("clasp: warning: the one file found, kernels/k.cl, is not under the edit root"), "{stderr}");
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--root", "kernels", "kernels"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn an_option_clang_rejects_is_one_error_up_front() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.cl", "b.cl", "c.cl"] {
        std::fs::write(dir.path().join(name), HELPER_UNIT).unwrap();
    }
    for command in ["migrate", "analyze"] {
        let (code, stdout, stderr) = clasp_in(dir.path(), &[command, ".", "--", "-fno-such-option"]);
        assert_eq!((code, stdout.as_slice()), (2, &b""[..]), "{stderr}");
        assert_eq!(
            stderr, "clasp: error: clang rejects the options `-fno-such-option`: unknown argument: '-fno-such-option'\n",
            "{command}"
        );
    }
    // Options clang takes pass the check.
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", ".", "--", "-w", "-cl-mad-enable"]);
    assert_eq!(code, 1, "{stderr}");
}
