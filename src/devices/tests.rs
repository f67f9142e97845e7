//! Which target fits which device, from what drivers report (the facts in
//! the README's driver table), and `--target`'s spelling.

use super::*;

fn device(c_version: &str, all: &[&str], features: Option<&[&str]>) -> Device {
    Device {
        name: format!("dev {c_version}"),
        vendor: "v".into(),
        driver_version: "1".into(),
        version: "OpenCL 3.0".into(),
        opencl_c_version: c_version.into(),
        opencl_c_all_versions: all.iter().map(|s| s.to_string()).collect(),
        opencl_c_features: features.map(|f| f.iter().map(|s| s.to_string()).collect()),
        compiler_available: true,
        generic_address_space_support: None,
        platform_index: 0,
        device_index: 0,
    }
}

fn platform(devices: Vec<Device>) -> Platform {
    Platform { name: "p".into(), vendor: "v".into(), version: "OpenCL 3.0".into(), devices, error: None }
}

/// Debian 12's PoCL 3.1: OpenCL 3.0, OpenCL C 1.2 (and 3.0 listed), no generic feature.
fn pocl3() -> Device {
    device("OpenCL C 1.2 PoCL", &["1.0", "1.1", "1.2", "3.0"], Some(&["__opencl_c_images", "__opencl_c_int64"]))
}

#[test]
fn pocl_3_fits_only_the_target_without_generic() {
    let fit = pocl3().fit();
    assert_eq!(fit.target, Some(Target::Cl30NoGeneric));
    assert_eq!(fit.cl_std, ["CL1.0", "CL1.1", "CL1.2", "CL3.0"]);
    assert!(!fit.generic);
    assert!(fit.why.unwrap().contains(GENERIC_FEATURE));
}

#[test]
fn a_3_0_device_with_both_features_fits_cl3_0_and_a_2_0_device_cl2_0() {
    let pocl5 = device("OpenCL C 3.0 PoCL", &["1.2", "3.0"], Some(&[GENERIC_FEATURE, GLOBALS_FEATURE]));
    assert_eq!(pocl5.fit().target, Some(Target::Cl30));
    assert_eq!(pocl5.fit().why, None);
    // An OpenCL 2.x device answers no OpenCL 3.0 query: its version says it all.
    let old = device("OpenCL C 2.0 AMD", &[], None);
    assert_eq!(old.fit().targets, [Target::Cl20, Target::Cl30NoGeneric]);
    assert_eq!(old.fit().cl_std, ["CL1.0", "CL1.1", "CL1.2", "CL2.0"]);
}

#[test]
fn generic_without_program_scope_globals_is_no_generic_target() {
    let half = device("OpenCL C 3.0", &["1.2", "3.0"], Some(&[GENERIC_FEATURE]));
    let fit = half.fit();
    assert_eq!(fit.target, Some(Target::Cl30NoGeneric));
    assert!(fit.generic);
    assert!(fit.why.unwrap().contains(GLOBALS_FEATURE));
}

#[test]
fn no_compiler_or_only_1_1_fits_nothing() {
    let mut none = pocl3();
    none.compiler_available = false;
    assert_eq!(none.fit().target, None);
    assert!(none.fit().why.unwrap().contains("no compiler"));
    assert_eq!(device("OpenCL C 1.1", &[], None).fit().target, None);
}

#[test]
fn the_devices_choose_the_strongest_target_all_of_them_take() {
    let pocl5 = device("OpenCL C 3.0 PoCL", &["1.2", "3.0"], Some(&[GENERIC_FEATURE, GLOBALS_FEATURE]));
    let both = device("OpenCL C 3.0 Intel", &["1.2", "2.0", "3.0"], Some(&[GENERIC_FEATURE, GLOBALS_FEATURE]));
    let old = device("OpenCL C 2.0 AMD", &[], None);
    let inventory = Inventory { platforms: vec![platform(vec![pocl5, both, old, pocl3()])], note: None };
    let all: Vec<(&Platform, &Device)> = inventory.platforms[0].devices.iter().map(|d| (&inventory.platforms[0], d)).collect();
    assert_eq!(choose(&all[1..3]).unwrap().target, Target::Cl20);
    assert_eq!(choose(&all[0..2]).unwrap().target, Target::Cl30);
    // A 2.0-only device and a 3.0-only one share no generic target.
    assert_eq!(choose(&[all[0], all[2]]).unwrap().target, Target::Cl30NoGeneric);
    let with_pocl3 = choose(&all).unwrap();
    assert_eq!(with_pocl3.target, Target::Cl30NoGeneric);
    assert!(with_pocl3.lines.iter().any(|l| l.contains("dev OpenCL C 1.2 PoCL") && l.contains("takes no generic target")));
}

#[test]
fn names_select_devices_in_part_and_a_name_nothing_matches_is_an_error() {
    let inventory = Inventory { platforms: vec![platform(vec![pocl3(), device("OpenCL C 2.0 AMD", &[], None)])], note: None };
    assert_eq!(select(&inventory, &["amd".into()]).unwrap().len(), 1);
    assert_eq!(select(&inventory, &[]).unwrap().len(), 2);
    assert!(select(&inventory, &["nvidia".into()]).unwrap_err().to_string().contains("no OpenCL device matches `nvidia`"));
    let empty = Inventory { platforms: Vec::new(), note: Some("no loader".into()) };
    assert!(select(&empty, &[]).unwrap_err().to_string().contains("no loader"));
}

#[test]
fn target_spec_reads_targets_and_devices() {
    assert_eq!(TargetSpec::parse("cl3.0").unwrap(), TargetSpec::Fixed(Target::Cl30));
    assert_eq!(TargetSpec::parse("device").unwrap(), TargetSpec::Device(Vec::new()));
    assert_eq!(TargetSpec::parse("device:pthread,gfx").unwrap(), TargetSpec::Device(vec!["pthread".into(), "gfx".into()]));
    assert!(TargetSpec::parse("device:").unwrap_err().to_string().contains("device:NAME"));
    assert!(TargetSpec::parse("cl9").unwrap_err().to_string().contains("device:NAME"));
}

#[test]
fn name_versions_decode_cl_name_version_arrays() {
    let mut bytes = Vec::new();
    for (version, name) in [((1u32 << 22) | (2 << 12), "OpenCL C"), (3 << 22, GENERIC_FEATURE)] {
        bytes.extend_from_slice(&version.to_ne_bytes());
        let mut field = [0u8; 64];
        field[..name.len()].copy_from_slice(name.as_bytes());
        bytes.extend_from_slice(&field);
    }
    assert_eq!(ffi::name_versions(&bytes), [("OpenCL C".to_string(), 1, 2), (GENERIC_FEATURE.to_string(), 3, 0)]);
}
