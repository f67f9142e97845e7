//! `clasp devices`: every installed OpenCL platform and device (through the
//! device worker), what it says it supports and which clasp target fits it,
//! as text or JSON. No loader or no driver is a note, not a failure. Also
//! what `migrate` and `analyze` share for the devices: `--target device`
//! resolved to a target, and the devices `--device-check` builds with.

use std::io::Write;

use super::Stop;
use crate::cli::args::DevicesArgs;
use crate::devices::{self, worker, Device, Inventory, Platform, TargetSpec};
use crate::settings::options::Target;
use crate::support::exit::EXIT_OK;

/// Runs `clasp devices` and returns its exit code.
pub fn run(args: &DevicesArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    super::exit_code(list(args, stdout, stderr), Default::default(), stderr)
}

fn list(args: &DevicesArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<i32, Stop> {
    let inventory = worker::inventory().map_err(Stop::clasp)?;
    if args.json || args.format.as_deref() == Some("json") {
        let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&json(&inventory)).unwrap());
    } else {
        for platform in &inventory.platforms {
            let _ = write!(stdout, "{}", text(platform));
        }
    }
    if let Some(note) = &inventory.note {
        let _ = writeln!(stderr, "clasp: note: {note}");
    }
    Ok(EXIT_OK)
}

/// A platform and its devices, as people read them.
fn text(platform: &Platform) -> String {
    let mut out = format!("{} ({}; {})\n", platform.name, platform.vendor, platform.version);
    if let Some(error) = &platform.error {
        out.push_str(&format!("  cannot list its devices: {error}\n"));
    }
    for device in &platform.devices {
        let fit = device.fit();
        let versions = device.c_versions().iter().map(|(a, b)| format!("{a}.{b}")).collect::<Vec<_>>().join(", ");
        let features = match &device.opencl_c_features {
            Some(_) => format!(
                "generic address space: {}, program-scope global variables: {}",
                yes_no(device.opencl_c_features.iter().flatten().any(|f| f == devices::GENERIC_FEATURE)),
                yes_no(device.opencl_c_features.iter().flatten().any(|f| f == devices::GLOBALS_FEATURE)),
            ),
            None => "not reported (an OpenCL 1.x or 2.x device)".to_string(),
        };
        let target = match (fit.target, &fit.why) {
            (Some(t), Some(why)) => format!("{} ({why})", t.name()),
            (Some(t), None) => t.name().to_string(),
            (None, why) => format!("none ({})", why.clone().unwrap_or_default()),
        };
        out.push_str(&format!("  {}\n", device.name));
        for (key, value) in [
            ("vendor", device.vendor.clone()),
            ("driver version", device.driver_version.clone()),
            ("device version", device.version.clone()),
            ("OpenCL C", format!("{versions} (reports \"{}\")", device.opencl_c_version)),
            ("OpenCL C features", features),
            ("generic support", generic_query(device.generic_address_space_support)),
            ("-cl-std", fit.cl_std.join(" ")),
            ("clasp target", target),
        ] {
            out.push_str(&format!("    {key:<18} {value}\n"));
        }
    }
    out
}

/// `CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT`, as the device answers it.
fn generic_query(answer: Option<bool>) -> String {
    match answer {
        Some(on) => format!("{} (CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT)", yes_no(on)),
        None => "not reported (CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT is an OpenCL 3.0 query)".to_string(),
    }
}

fn yes_no(on: bool) -> &'static str {
    if on {
        "yes"
    } else {
        "no"
    }
}

/// The JSON of `clasp devices --format json`.
fn json(inventory: &Inventory) -> serde_json::Value {
    let device = |d: &Device| {
        serde_json::json!({
            "name": d.name,
            "vendor": d.vendor,
            "driver_version": d.driver_version,
            "version": d.version,
            "opencl_c_version": d.opencl_c_version,
            "opencl_c_all_versions": d.opencl_c_all_versions,
            "opencl_c_features": d.opencl_c_features,
            "compiler_available": d.compiler_available,
            "generic_address_space_support": d.generic_address_space_support,
            "fit": d.fit(),
        })
    };
    let platforms: Vec<serde_json::Value> = inventory
        .platforms
        .iter()
        .map(|p| {
            serde_json::json!({
                "name": p.name, "vendor": p.vendor, "version": p.version, "error": p.error,
                "devices": p.devices.iter().map(device).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({ "platforms": platforms, "note": inventory.note })
}

/// The devices a command works with: `--target device[:NAME]`'s, or, for
/// `--device-check` alone, every one; the target they choose when asked.
pub struct Selected {
    pub inventory: Inventory,
    /// (platform, device) indices of the selected devices.
    indices: Vec<(usize, usize)>,
    pub chosen: Option<devices::Chosen>,
}

impl Selected {
    /// Lists the devices when `spec` is `device[:NAME]` or `wanted` (a device check): else `None`.
    pub fn resolve(spec: Option<&TargetSpec>, wanted: bool) -> Result<Option<Selected>, Stop> {
        let names = match spec {
            Some(TargetSpec::Device(names)) => names.clone(),
            _ if wanted => Vec::new(),
            _ => return Ok(None),
        };
        let inventory = worker::inventory().map_err(Stop::clasp)?;
        let selected = devices::select(&inventory, &names).map_err(Stop::clasp)?;
        let indices = selected.iter().map(|(_, d)| (d.platform_index, d.device_index)).collect();
        let chosen = match spec {
            Some(TargetSpec::Device(_)) => Some(devices::choose(&selected).map_err(Stop::clasp)?),
            _ => None,
        };
        Ok(Some(Selected { inventory, indices, chosen }))
    }

    /// The selected devices with their platforms.
    pub fn devices(&self) -> Vec<(&Platform, &Device)> {
        self.indices.iter().map(|(p, d)| (&self.inventory.platforms[*p], &self.inventory.platforms[*p].devices[*d])).collect()
    }

    /// The target the devices chose, if asked.
    pub fn target(&self) -> Option<Target> {
        self.chosen.as_ref().map(|c| c.target)
    }

    /// What to say about the choice, on stderr (`clasp: target ...`).
    pub fn say(&self, stderr: &mut dyn Write) {
        for line in self.chosen.iter().flat_map(|c| &c.lines) {
            let _ = writeln!(stderr, "clasp: {line}");
        }
    }
}
