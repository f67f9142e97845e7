//! Checks before a command loads any unit, so that a run that cannot do
//! anything says so once: options the in-process clang cannot honour, no
//! unit found under the paths, no file under the edit root, or compile
//! options clang rejects (one error up front, not the same error once per
//! unit).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::Stop;
use crate::cli::project::Project;
use crate::input::config::Job;

/// The source clang compiles to try the options: valid OpenCL C 1.2 and 2.0, warning-free.
const PROBE: &str = "kernel void clasp_probe(global int *p) { p[0] = 0; }\n";

/// Options the in-process clang cannot honour for one unit (`-mllvm`):
/// refused once, up front, rather than once per unit.
pub fn runs_in_process(jobs: &[Job]) -> Result<(), Stop> {
    match jobs.iter().find_map(|j| crate::front::lower::check_in_process(&j.compile.clang_extra).err()) {
        Some(e) => Err(Stop::clasp(e)),
        None => Ok(()),
    }
}

/// No unit at all: a warning, and the command stops (exit 2). A path that
/// could not be read is already an error of its own, which says more.
pub fn units_found(project: &Project, paths: &[PathBuf]) -> Result<(), Stop> {
    if !project.jobs.is_empty() || !project.host_files.is_empty() || !project.unreadable.is_empty() {
        return Ok(());
    }
    Err(no_unit(paths, &[]))
}

/// Where the units were looked for: the paths, or the `--compile-commands` list.
pub fn searched(paths: &[PathBuf], project: &crate::cli::args::ProjectArgs) -> Vec<PathBuf> {
    project.compile_commands.clone().map_or_else(|| paths.to_vec(), |list| vec![list])
}

/// The warning for a batch with no unit: where clasp looked, what it takes,
/// and the files it took as host code (`hosts`), where it found no kernel.
pub fn no_unit(paths: &[PathBuf], hosts: &[PathBuf]) -> Stop {
    let places: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let under = if places.is_empty() { String::new() } else { format!(" in {}", places.join(", ")) };
    Stop::warning(format!(
        "no OpenCL C unit found{under}: nothing to do (units are *.cl, *.ocl, *.opencl and the extensions --ext adds; \
ignored, hidden and --exclude'd files are skipped, and --glob only narrows the walk){}",
        read_as_host(hosts)
    ))
}

/// What the no-unit warning says of the host files found: named (a few), and
/// how to have one read as OpenCL C instead (a `.h` file is C host code by default).
fn read_as_host(hosts: &[PathBuf]) -> String {
    const NAMED: usize = 3;
    if hosts.is_empty() {
        return String::new();
    }
    let mut names: Vec<String> = hosts.iter().take(NAMED).map(|p| p.display().to_string()).collect();
    if hosts.len() > NAMED {
        names.push(format!("and {} more", hosts.len() - NAMED));
    }
    format!(
        "; {} {} taken as host code (C, C++ or Python), not as OpenCL C: to read OpenCL C kept in one, give --no-host \
or name it *.clh",
        names.join(", "),
        if hosts.len() == 1 { "is" } else { "are" }
    )
}

/// Files found, but none under the edit root: nothing could change (exit 2).
pub fn under_root(jobs: &[Job], host_files: &[PathBuf], root: &Path) -> Result<(), Stop> {
    // A `[[program]]`'s job names the program; its sources are the files.
    let sources = |j: &Job| j.program.as_ref().map_or_else(|| vec![j.path.clone()], |p| p.files.clone());
    let files: BTreeSet<PathBuf> = jobs.iter().flat_map(sources).chain(host_files.iter().cloned()).collect();
    if files.is_empty() || files.iter().any(|f| crate::settings::root::canonical(f).starts_with(root)) {
        return Ok(());
    }
    let what = match files.iter().next() {
        Some(only) if files.len() == 1 => format!("the one file found, {}, is not", only.display()),
        _ => format!("none of the {} files found is", files.len()),
    };
    Err(Stop::warning(format!(
        "{what} under the edit root {}: nothing can change (--root, or clasp.toml's `root`, names the directory \
whose files clasp may edit)",
        root.display()
    )))
}

/// Compiles a tiny kernel with each distinct set of clang options the jobs
/// pass (those after `--`, `-cl-*`, `-w`, ...): an option clang rejects is
/// one error here instead of the same error for every unit.
pub fn options_accepted(jobs: &[Job]) -> Result<(), Stop> {
    let extras: BTreeSet<&Vec<String>> = jobs.iter().map(|j| &j.compile.clang_extra).filter(|e| !e.is_empty()).collect();
    if extras.is_empty() {
        return Ok(());
    }
    let dir = tempfile::tempdir().map_err(|e| Stop::clasp(format!("no scratch directory: {e}")))?;
    let probe = dir.path().join("clasp-options-probe.cl");
    std::fs::write(&probe, PROBE).map_err(|e| Stop::clasp(format!("cannot write {}: {e}", probe.display())))?;
    for extra in extras {
        // Only the options that may be rejected: no include path, macro or pre-included file of the project.
        let options = crate::settings::options::CompileOptions { clang_extra: extra.clone(), ..Default::default() };
        if let Err(e) = crate::verify::compiles(&probe, &options.clang_args(None), &Default::default()) {
            let why = e.to_string();
            let why = why.split_once("error: ").map_or(why.as_str(), |(_, rest)| rest);
            return Err(Stop::clasp(format!("clang rejects the options `{}`: {why}", extra.join(" "))));
        }
    }
    Ok(())
}
