//! The user's devices, with the real driver `scripts/setup` installs
//! (Debian's PoCL 3.1: OpenCL C 1.2, no generic address space): `clasp
//! devices`, `--target device` and `--device-check`. They need PoCL and
//! fail, saying so, when it is missing. Each run sees PoCL alone (its `.icd`
//! in a directory of its own, through the ICD loader's `OCL_ICD_VENDORS`),
//! whatever else the machine has installed.

use std::path::Path;

use serde_json::Value;

use crate::support::{clasp_env, HELPER_UNIT};

const POCL: &str = "Portable Computing Language";
const POCL_ICD: &str = "/etc/OpenCL/vendors/pocl.icd";

/// A vendors directory holding PoCL's `.icd` only.
fn pocl_only() -> tempfile::TempDir {
    assert!(
        Path::new(POCL_ICD).is_file(),
        "PoCL is not installed ({POCL_ICD} missing): run scripts/setup (Debian: ocl-icd-libopencl1 pocl-opencl-icd)"
    );
    let vendors = tempfile::tempdir().unwrap();
    std::fs::copy(POCL_ICD, vendors.path().join("pocl.icd")).unwrap();
    vendors
}

/// Runs clasp from the repository with PoCL as the only driver.
fn with_pocl(args: &[&str]) -> (i32, String, String) {
    let vendors = pocl_only();
    clasp_env(Path::new(env!("CARGO_MANIFEST_DIR")), args, &[("OCL_ICD_VENDORS", vendors.path())])
}

#[test]
fn devices_lists_pocl_with_no_generic_address_space_and_target_cl3_0_nogeneric() {
    let (code, out, err) = with_pocl(&["devices"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(POCL), "PoCL is not listed (run scripts/setup):\n{out}{err}");
    assert!(out.contains("generic address space: no, program-scope global variables: no"), "{out}");
    assert!(out.contains("OpenCL C           1.0, 1.1, 1.2, 3.0 (reports \"OpenCL C 1.2"), "{out}");
    assert!(out.contains("generic support    no (CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT)"), "{out}");
    assert!(out.contains("-cl-std            CL1.0 CL1.1 CL1.2 CL3.0"), "{out}");
    assert!(out.contains("clasp target       cl3.0-nogeneric (it compiles OpenCL C 1.0, 1.1, 1.2, 3.0 (not 2.0)"), "{out}");

    let (code, out, err) = with_pocl(&["devices", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let platform = &json["platforms"][0];
    assert_eq!(platform["name"], POCL, "{out}");
    let device = &platform["devices"][0];
    assert!(device["opencl_c_version"].as_str().unwrap().starts_with("OpenCL C 1.2"), "{out}");
    assert_eq!(device["opencl_c_all_versions"], serde_json::json!(["1.0", "1.1", "1.2", "3.0"]));
    let features: Vec<&str> = device["opencl_c_features"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(features.contains(&"__opencl_c_fp64") && !features.contains(&"__opencl_c_generic_address_space"), "{out}");
    assert_eq!(device["fit"]["target"], "cl3.0-nogeneric");
    assert_eq!(device["fit"]["generic"], false);
    assert_eq!(device["generic_address_space_support"], false);
    assert_eq!(json["note"], Value::Null);
}

#[test]
fn no_loader_or_no_driver_is_a_note_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("libOpenCL.so.1");
    let (code, out, err) = clasp_env(dir.path(), &["devices", "--json"], &[("CLASP_OPENCL_LIBRARY", &missing)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("clasp: note: no OpenCL ICD loader: cannot load"), "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["platforms"], serde_json::json!([]));

    // A library that is no OpenCL loader: said, with the entry point it lacks.
    let not_opencl = Path::new("/lib/x86_64-linux-gnu/libz.so.1");
    let (code, _, err) = clasp_env(dir.path(), &["devices"], &[("CLASP_OPENCL_LIBRARY", not_opencl)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no OpenCL ICD loader: clGetPlatformIDs: "), "{err}");

    // The loader, but no driver: an empty vendors directory.
    let (code, out, err) = clasp_env(dir.path(), &["devices"], &[("OCL_ICD_VENDORS", dir.path())]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("lists no platform: no OpenCL driver is installed"), "{err}");

    // Asked to choose for devices there are none of: an error saying why.
    let (code, _, err) = clasp_env(dir.path(), &["migrate", "--target", "device", "x.cl"], &[("OCL_ICD_VENDORS", dir.path())]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no OpenCL device to choose for: the OpenCL ICD loader"), "{err}");
}

#[test]
fn device_check_on_the_demo_shows_pocl_building_the_originals_and_rejecting_the_generic_results() {
    let (code, out, err) = with_pocl(&["migrate", "--device-check", "--json", "fixtures/demo"]);
    assert_eq!(code, 2, "a rejected result is an error:\n{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let check = &json["device_check"];
    assert!(check["devices"][0].as_str().unwrap().contains(POCL), "{out}");
    let programs = check["programs"].as_array().unwrap();
    let units: Vec<&str> = programs.iter().map(|p| p["unit"].as_str().unwrap()).collect();
    assert_eq!(
        units,
        ["fixtures/demo/blur.cl", "fixtures/demo/histogram.cl", "fixtures/demo/reduce.cl", "fixtures/demo/stencil.cl"]
    );
    for program in programs {
        let verdict = &program["devices"][0];
        assert_eq!(verdict["original"]["accepted"], true, "{program}");
        assert_eq!(verdict["result"]["accepted"], false, "{program}");
        let log = verdict["result"]["log"].as_array().unwrap();
        assert!(log.iter().any(|l| l.as_str().unwrap().contains("changes address space of pointer")), "{program}");
        assert!(!program["original_options"].as_str().unwrap().contains("-cl-std"), "the host passes none: {program}");
        assert!(program["result_options"].as_str().unwrap().ends_with("-cl-std=CL2.0"), "{program}");
    }
    assert!(err.contains("fixtures/demo/reduce.cl:1:1: error: device `pthread"), "{err}");
    assert!(err.contains("rejects the migrated program (it builds the original)"), "{err}");
    assert!(err.contains("passing '__local float *__private' to parameter of type 'const __private float *'"), "{err}");
    assert!(err.contains("originals built 4/4, results built 0/4, rejected after the migration 4"), "{err}");

    // Reported only: warnings, and the exit code of the migration itself.
    let (code, _, err) = with_pocl(&["migrate", "--device-check=report", "--check", "fixtures/demo"]);
    assert_eq!(code, 1, "changes pending, no error:\n{err}");
    assert!(err.contains("fixtures/demo/blur.cl: warning: device `pthread"), "{err}");
}

#[test]
fn a_result_a_device_rejects_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("reduce.cl");
    let original = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/reduce.cl")).unwrap();
    std::fs::write(&kernel, &original).unwrap();
    let vendors = pocl_only();
    let env = [("OCL_ICD_VENDORS", vendors.path())];
    let (code, _, err) = clasp_env(dir.path(), &["migrate", "--device-check", "--write", "reduce.cl"], &env);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not writing: a device rejects a migrated program"), "{err}");
    assert_eq!(std::fs::read(&kernel).unwrap(), original);
}

#[test]
fn device_check_builds_a_changed_header_as_migrated_and_finds_it_by_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("inc")).unwrap();
    std::fs::write(dir.path().join("inc/sum.h"), "float sum_g(__global const float *v, int n)\n{\n    float s = 0.0f;\n    for (int i = 0; i < n; ++i)\n        s += v[i];\n    return s;\n}\n").unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "#include \"inc/sum.h\"\n__kernel void k(__global const float *in, __global float *out)\n{\n    out[0] = sum_g(in, 4);\n}\n",
    )
    .unwrap();
    let vendors = pocl_only();
    let env = [("OCL_ICD_VENDORS", vendors.path())];
    let (code, out, err) = clasp_env(dir.path(), &["migrate", "--device-check", "--json", "--root", ".", "k.cl"], &env);
    assert_eq!(code, 2, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let changed: Vec<&str> = json["changes"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(changed, ["inc/sum.h"], "only the header changes, named from the current directory");
    let verdict = &json["device_check"]["programs"][0]["devices"][0];
    // The original finds its header; the result is the unchanged kernel with the migrated header
    // (run from the project's directory, where a driver compiling its source as a file of the
    // current directory would find the original header first).
    assert_eq!(verdict["original"]["accepted"], true, "{verdict}");
    assert_eq!(verdict["result"]["accepted"], false, "{verdict}");
    assert!(verdict["result"]["log"][0].as_str().unwrap().contains("changes address space of pointer"), "{verdict}");
}

#[test]
fn device_check_builds_an_embedded_kernel_from_its_literal() {
    let (code, out, err) = with_pocl(&["migrate", "--device-check=report", "--json", "fixtures/host/c_escaped_literals"]);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let program = &json["device_check"]["programs"][0];
    assert_eq!(program["unit"], "fixtures/host/c_escaped_literals/host.c:10");
    // The options its build call passes, then the standard clasp proposes.
    assert!(program["original_options"].as_str().unwrap().ends_with(" -DWIDTH=8"), "{program}");
    assert!(program["result_options"].as_str().unwrap().ends_with(" -DWIDTH=8 -cl-std=CL2.0"), "{program}");
    assert_eq!(program["devices"][0]["original"]["accepted"], true, "{program}");
    assert_eq!(program["devices"][0]["result"]["accepted"], false, "{program}");
}

#[test]
fn target_device_on_a_pocl_only_machine_is_cl3_0_nogeneric_and_migrates_nothing_generic() {
    let (code, out, err) = with_pocl(&["migrate", "--target", "device", "--json", "fixtures/demo"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("clasp: target cl3.0-nogeneric, chosen for the devices: pthread"), "{err}");
    assert!(err.contains("takes no generic target: it compiles OpenCL C 1.0, 1.1, 1.2, 3.0 (not 2.0)"), "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["changes"], serde_json::json!([]), "nothing changes: {out}");
    let reasons: Vec<&str> = json["refusals"].as_array().unwrap().iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert!(reasons.contains(&"target-without-generic"), "{reasons:?}");

    // Named: a part of its name; a name no device has is an error.
    let (code, _, err) = with_pocl(&["analyze", "--target", "device:PTHREAD", "fixtures/demo/reduce.cl"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("clasp: target cl3.0-nogeneric"), "{err}");
    let (code, _, err) = with_pocl(&["migrate", "--target", "device:gfx1100", "fixtures/demo"]);
    assert_eq!(code, 2);
    assert!(err.contains("no OpenCL device matches `gfx1100` (devices: pthread"), "{err}");
}

#[test]
fn device_check_builds_the_text_read_from_standard_input_as_its_file() {
    // The file does not exist: the device builds the original from the text on stdin.
    let vendors = pocl_only();
    let dir = tempfile::tempdir().unwrap();
    let args = ["migrate", "--device-check=report", "--check", "--no-cache", "-", "--stdin-filename", "new.cl"];
    let (code, out, err) =
        crate::support::clasp_stdin(dir.path(), &args, HELPER_UNIT.as_bytes(), &[("OCL_ICD_VENDORS", vendors.path())]);
    assert_eq!(code, 1, "{err}");
    assert!(String::from_utf8_lossy(&out).starts_with("--- a/new.cl\n"), "{err}");
    assert!(
        err.contains("new.cl: warning: device `") && err.contains("rejects the migrated program (it builds the original)"),
        "{err}"
    );
    assert!(err.contains("originals built 1/1, results built 0/1, rejected after the migration 1"), "{err}");
}
