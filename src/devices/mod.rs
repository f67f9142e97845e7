//! The user's OpenCL devices: what each installed platform and device
//! says it supports (OpenCL C versions and features), which `-cl-std` it
//! accepts and which clasp target fits it; `--target device[:NAME]` (the
//! strongest target every selected device takes) and `--device-check`
//! (`check`: the changed programs built by each device's own compiler).
//!
//! Drivers load their own compilers (PoCL its own LLVM) into the process
//! that calls them, beside the LLVM 19 clasp is linked to, and a driver may
//! crash: every OpenCL call runs in a child process (`worker`), which
//! alone touches the loader (`ffi`, the only `unsafe` here).

pub mod check;
pub mod ffi;
pub mod worker;

use serde::{Deserialize, Serialize};

use crate::settings::options::Target;

/// What the ICD loader lists.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Inventory {
    pub platforms: Vec<Platform>,
    /// Why there are no platforms, when there are none (no loader, no driver).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Platform {
    pub name: String,
    pub vendor: String,
    pub version: String,
    pub devices: Vec<Device>,
    /// Why the platform's devices could not be listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One device, as its driver describes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Device {
    pub name: String,
    pub vendor: String,
    pub driver_version: String,
    /// `CL_DEVICE_VERSION` (`OpenCL 3.0 ...`).
    pub version: String,
    /// `CL_DEVICE_OPENCL_C_VERSION` (`OpenCL C 1.2 ...`).
    pub opencl_c_version: String,
    /// `CL_DEVICE_OPENCL_C_ALL_VERSIONS` (OpenCL 3.0), as `1.2`; empty when the device does not answer it.
    pub opencl_c_all_versions: Vec<String>,
    /// `CL_DEVICE_OPENCL_C_FEATURES` (OpenCL 3.0) names; `None` when the device does not answer it.
    pub opencl_c_features: Option<Vec<String>>,
    pub compiler_available: bool,
    /// `CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT` (OpenCL 3.0); `None` when the device does not answer it.
    #[serde(default)]
    pub generic_address_space_support: Option<bool>,
    /// Index among the loader's platforms and the platform's devices: how the worker finds it again.
    pub platform_index: usize,
    pub device_index: usize,
}

/// The two OpenCL C 3.0 features a generic migration needs.
pub const GENERIC_FEATURE: &str = "__opencl_c_generic_address_space";
pub const GLOBALS_FEATURE: &str = "__opencl_c_program_scope_global_variables";

/// Which clasp target fits a device, and why (for reports).
#[derive(Debug, Clone, Serialize)]
pub struct Fit {
    /// The strongest target the device takes, if any.
    pub target: Option<Target>,
    /// Every target it takes, strongest first.
    pub targets: Vec<Target>,
    /// The `-cl-std` values it accepts.
    pub cl_std: Vec<String>,
    pub generic: bool,
    pub program_scope_globals: bool,
    /// Why it cannot take generic code, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl Device {
    /// The OpenCL C versions the device compiles, as (major, minor): its
    /// list (3.0 devices), else every 1.x up to its `CL_DEVICE_OPENCL_C_VERSION`
    /// and that version (a 2.x device compiles 1.x too).
    pub fn c_versions(&self) -> Vec<(u32, u32)> {
        let mut versions: Vec<(u32, u32)> = self.opencl_c_all_versions.iter().filter_map(|v| parse_version(v)).collect();
        if versions.is_empty() {
            if let Some(top) = self.opencl_c_version.split_whitespace().nth(2).and_then(parse_version) {
                versions = [(1, 0), (1, 1), (1, 2)].into_iter().filter(|v| *v < top).collect();
                versions.push(top);
            }
        }
        versions.sort();
        versions.dedup();
        versions
    }

    fn has_feature(&self, name: &str) -> bool {
        self.opencl_c_features.as_ref().is_some_and(|f| f.iter().any(|n| n == name))
    }

    /// Which targets fit: `cl2.0` when it compiles OpenCL C 2.0 (generic is
    /// part of 2.0), `cl3.0` when it compiles 3.0 and advertises both
    /// features, `cl3.0-nogeneric` (1.2 rules) when it compiles 3.0 or 1.2;
    /// none without a compiler or below OpenCL C 1.2. Only what the driver
    /// advertises counts: a driver that compiles generic code without
    /// saying so is found out by `--device-check`, not guessed.
    pub fn fit(&self) -> Fit {
        let versions = self.c_versions();
        let cl_std = versions.iter().map(|(major, minor)| format!("CL{major}.{minor}")).collect();
        let has = |v: (u32, u32)| versions.contains(&v);
        let (generic_feature, globals_feature) = (self.has_feature(GENERIC_FEATURE), self.has_feature(GLOBALS_FEATURE));
        let takes = [
            (Target::Cl20, has((2, 0))),
            (Target::Cl30, has((3, 0)) && generic_feature && globals_feature),
            (Target::Cl30NoGeneric, has((3, 0)) || has((1, 2))),
        ];
        let targets: Vec<Target> =
            takes.into_iter().filter(|(_, on)| *on && self.compiler_available).map(|(target, _)| target).collect();
        let target = targets.first().copied();
        let generic = has((2, 0)) || (has((3, 0)) && generic_feature);
        let why = self.why_not_generic(&versions, target, generic_feature, globals_feature);
        Fit { target, targets, cl_std, generic, program_scope_globals: has((2, 0)) || (has((3, 0)) && globals_feature), why }
    }

    fn why_not_generic(&self, versions: &[(u32, u32)], target: Option<Target>, generic: bool, globals: bool) -> Option<String> {
        if !self.compiler_available {
            return Some("it has no compiler (CL_DEVICE_COMPILER_AVAILABLE is false)".into());
        }
        if target.is_some_and(Target::has_generic) {
            return None;
        }
        let listed: Vec<String> = versions.iter().map(|(a, b)| format!("{a}.{b}")).collect();
        let missing: Vec<&str> =
            [(generic, GENERIC_FEATURE), (globals, GLOBALS_FEATURE)].into_iter().filter(|(on, _)| !on).map(|(_, n)| n).collect();
        let listed = listed.join(", ");
        Some(match versions.contains(&(3, 0)) {
            true => format!("it compiles OpenCL C {listed} (not 2.0) and does not advertise {}", missing.join(" or ")),
            false => format!("it compiles OpenCL C {listed} only"),
        })
    }
}

/// `2.0`, `1.2` (also the `OpenCL C 1.2 PoCL` form's third word).
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()?))
}

/// `--target`: a target, or the devices' (`device`, `device:NAME`; names
/// match a device's or platform's name in part, case aside; `device:A,B`
/// names several).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    Fixed(Target),
    Device(Vec<String>),
}

impl TargetSpec {
    pub fn parse(text: &str) -> Result<TargetSpec, crate::settings::options::UnknownValue> {
        match text.split_once(':') {
            None if text == "device" => Ok(TargetSpec::Device(Vec::new())),
            Some(("device", names)) if !names.trim().is_empty() => {
                Ok(TargetSpec::Device(names.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect()))
            }
            _ => Target::parse(text)
                .map(TargetSpec::Fixed)
                .map_err(|_| crate::settings::options::UnknownValue::Target { text: text.to_string(), device: true }),
        }
    }

    /// As `--target` spells it.
    pub fn spelled(&self) -> String {
        match self {
            TargetSpec::Fixed(target) => target.name().to_string(),
            TargetSpec::Device(names) if names.is_empty() => "device".to_string(),
            TargetSpec::Device(names) => format!("device:{}", names.join(",")),
        }
    }

    /// The fixed target, if this is one.
    pub fn fixed(&self) -> Option<Target> {
        match self {
            TargetSpec::Fixed(target) => Some(*target),
            TargetSpec::Device(_) => None,
        }
    }
}

/// Why no devices (or no target for them) could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum ChoiceError {
    /// No device at all: the inventory's note, or that the loader lists none.
    #[error("no OpenCL device to choose for: {}", note.as_deref().unwrap_or("the OpenCL loader lists no device"))]
    NoDevice { note: Option<String> },
    /// A name matches no device's or platform's name.
    #[error("no OpenCL device matches `{name}` (devices: {})", listed.join(", "))]
    NoMatch { name: String, listed: Vec<String> },
    /// A device takes no target of clasp's: why.
    #[error("no clasp target fits device `{device}`: {why}")]
    NoTargetFits { device: String, why: String },
}

/// The devices `names` select (every one when empty), with their platforms.
pub fn select<'a>(inventory: &'a Inventory, names: &[String]) -> Result<Vec<(&'a Platform, &'a Device)>, ChoiceError> {
    let all: Vec<(&Platform, &Device)> = inventory.platforms.iter().flat_map(|p| p.devices.iter().map(move |d| (p, d))).collect();
    if all.is_empty() {
        return Err(ChoiceError::NoDevice { note: inventory.note.clone() });
    }
    if names.is_empty() {
        return Ok(all);
    }
    let matches = |(p, d): &(&Platform, &Device), name: &str| {
        let name = name.to_lowercase();
        d.name.to_lowercase().contains(&name) || p.name.to_lowercase().contains(&name)
    };
    for name in names {
        if !all.iter().any(|pd| matches(pd, name)) {
            let listed = all.iter().map(|(_, d)| d.name.clone()).collect();
            return Err(ChoiceError::NoMatch { name: name.clone(), listed });
        }
    }
    Ok(all.into_iter().filter(|pd| names.iter().any(|n| matches(pd, n))).collect())
}

/// The target chosen for some devices, and what to say about it.
#[derive(Debug, Clone)]
pub struct Chosen {
    pub target: Target,
    /// `target cl3.0-nogeneric, from the devices: ...`, and one line per device that cannot take generic code.
    pub lines: Vec<String>,
}

/// The strongest target every device in `devices` takes: `cl2.0` when all
/// compile OpenCL C 2.0, `cl3.0` when all take it, else `cl3.0-nogeneric`.
/// A device no target fits is an error naming it.
pub fn choose(devices: &[(&Platform, &Device)]) -> Result<Chosen, ChoiceError> {
    let fits: Vec<Fit> = devices.iter().map(|(_, d)| d.fit()).collect();
    if let Some(((_, device), fit)) = devices.iter().zip(&fits).find(|(_, f)| f.target.is_none()) {
        return Err(ChoiceError::NoTargetFits { device: device.name.clone(), why: fit.why.clone().unwrap_or_default() });
    }
    // Strongest first: the first every device takes (each takes cl3.0-nogeneric's 1.2 rules at least).
    let target = [Target::Cl20, Target::Cl30, Target::Cl30NoGeneric]
        .into_iter()
        .find(|t| fits.iter().all(|f| f.targets.contains(t)))
        .unwrap_or(Target::Cl30NoGeneric);
    let names: Vec<String> = devices.iter().map(|(p, d)| format!("{} ({})", d.name, p.name)).collect();
    let mut lines = vec![format!("target {}, chosen for the devices: {}", target.name(), names.join(", "))];
    for ((_, device), fit) in devices.iter().zip(&fits) {
        if let Some(why) = &fit.why {
            lines.push(format!("device `{}` takes no generic target: {why}", device.name));
        }
    }
    Ok(Chosen { target, lines })
}

#[cfg(test)]
mod tests;
