//! `clasp run-check`: runs the user's program twice as it is and once with clasp's migrated sources
//! substituted, under the interceptor (`trace::interceptor`), then compares and times the three
//! traces (`trace::compare`, `trace::timing`) and reports (`trace::report`).
//!
//! The migrated sources come from the migrate command itself, run over PATHS into a temporary
//! `--out-dir` in the scratch folder (so nothing is written to the user's tree), or from
//! `--migrated DIR`. `CLASP_TEST_RUNCHECK_EDIT="FROM=>TO"` (testing only) replaces FROM by TO in
//! every migrated source before the run, so that the tests can plant a wrong substitution.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Output};

use super::Stop;
use crate::cli::args::{Command, RunCheckArgs};
use crate::support::style::Palettes;
use crate::trace::record::{self, Trace};
use crate::trace::report::Report;
use crate::trace::substitute::{self, Substitution};
use crate::trace::{compare, interceptor, timing};

/// The options a substituted program is built with, in place of its own `-cl-std=`.
const MIGRATED_BUILD_OPTIONS: &str = "-cl-std=CL2.0";

/// The testing-only hook that plants a wrong substitution.
const TEST_EDIT_VAR: &str = "CLASP_TEST_RUNCHECK_EDIT";

pub fn run(args: &RunCheckArgs, palettes: Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    super::exit_code(check(args, palettes, stdout, stderr), palettes.stderr, stderr)
}

fn check(args: &RunCheckArgs, palettes: Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<i32, Stop> {
    let scratch = tempfile::Builder::new().prefix("clasp-run-check").tempdir().map_err(Stop::clasp)?;
    let library = interceptor::install(scratch.path()).map_err(Stop::clasp)?;
    let substitutions = migrated_sources(args, palettes, scratch.path())?;
    let map = scratch.path().join("map");
    substitute::write_map(&map, &substitutions, MIGRATED_BUILD_OPTIONS).map_err(Stop::clasp)?;
    let runs = [("first original run", None), ("second original run", None), ("migrated run", Some(map.as_path()))];
    let mut traces: Vec<Trace> = Vec::new();
    let mut first_status = None;
    for (index, (name, map)) in runs.into_iter().enumerate() {
        let log = scratch.path().join(format!("run{index}"));
        std::fs::create_dir(&log).map_err(Stop::clasp)?;
        let output = run_program(&args.command, &library, &log, map)?;
        check_status(name, &output, first_status)?;
        first_status.get_or_insert(output.status);
        traces.push(record::read(&log).map_err(|e| Stop::clasp(format!("the {name}'s trace: {e}")))?);
    }
    let [a, b, m] = <[Trace; 3]>::try_from(traces).expect("three runs");
    let substituted = m.sources.iter().filter(|(_, replaced)| *replaced).count();
    if a.steps.is_empty() {
        let _ = writeln!(
            stderr,
            "clasp: warning: `{}` launched no kernel and read no buffer through OpenCL: nothing was compared",
            args.command[0]
        );
    } else if !substitutions.is_empty() && substituted == 0 {
        let _ = writeln!(stderr, "clasp: warning: no program `{}` created has the content of a source clasp migrated: the migrated run ran the original kernels", args.command[0]);
    }
    let report = Report::new(
        compare::compare(&a, &b, &m, args.tolerance),
        timing::per_kernel(&a, &b, &m),
        sources_shown(&substitutions),
        substituted,
    );
    let printed = if args.format.as_deref() == Some("json") {
        serde_json::to_string_pretty(&report).expect("a report serialises") + "\n"
    } else {
        report.text()
    };
    stdout.write_all(printed.as_bytes()).map_err(Stop::clasp)?;
    Ok(if report.identical() { 0 } else { 1 })
}

/// The original files of the substitutions, as the user named them (relative to the current
/// directory where they are under it).
fn sources_shown(substitutions: &[Substitution]) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    substitutions.iter().map(|s| s.original.strip_prefix(&cwd).unwrap_or(&s.original).display().to_string()).collect()
}

/// The migrated sources: those of `--migrated DIR`, or clasp migrate's over PATHS.
fn migrated_sources(args: &RunCheckArgs, palettes: Palettes, scratch: &Path) -> Result<Vec<Substitution>, Stop> {
    let cwd = std::env::current_dir().map_err(Stop::clasp)?;
    // `--out-dir` lays files out from the edit root: pair them from there (a tree
    // the user migrated: from here), or from `/` for absolute paths.
    let (out_dir, bases) = match &args.migrated {
        Some(dir) if dir.is_dir() => (dir.clone(), vec![cwd, PathBuf::from("/")]),
        Some(dir) => return Err(Stop::clasp(format!("--migrated {}: no such directory", dir.display()))),
        None if args.paths.is_empty() => return Err(Stop::clasp("give the kernel PATHS to migrate, or --migrated DIR")),
        None => {
            let root = crate::settings::root::edit_root(&args.paths, None).map_err(Stop::clasp)?;
            // `--out-dir` keeps an absolute PATH's files under their absolute path.
            (migrate_into(&args.paths, &root, palettes, &scratch.join("migrated"))?, vec![root, PathBuf::from("/")])
        }
    };
    let mut pairs = substitute::pair_out_dir(&out_dir, &bases).map_err(Stop::clasp)?;
    if let Some((from, to)) = std::env::var(TEST_EDIT_VAR).ok().as_deref().and_then(|e| e.split_once("=>")) {
        for pair in &mut pairs {
            pair.migrated = String::from_utf8_lossy(&pair.migrated).replace(from, to).into_bytes();
        }
    }
    Ok(pairs)
}

/// Runs clasp migrate over `paths` into `out_dir` (its diff is not shown; its errors are).
fn migrate_into(paths: &[PathBuf], root: &Path, palettes: Palettes, out_dir: &Path) -> Result<PathBuf, Stop> {
    let mut argv = vec!["clasp".to_string(), "migrate".to_string()];
    argv.extend(paths.iter().map(|p| p.display().to_string()));
    argv.extend(["--out-dir".to_string(), out_dir.display().to_string()]);
    argv.extend(["--root".to_string(), root.display().to_string()]);
    let (mut diff, mut messages) = (Vec::new(), Vec::new());
    let code = match crate::cli::parse(argv, &mut diff, &mut messages) {
        Ok(crate::cli::args::Cli { command: Command::Migrate(migrate), .. }) => {
            super::migrate::run(&migrate, palettes, &mut diff, &mut messages)
        }
        Ok(_) => unreachable!("parsed as migrate"),
        Err(code) => code,
    };
    if code == crate::support::exit::EXIT_ERROR {
        let messages = String::from_utf8_lossy(&messages);
        return Err(Stop::clasp(format!("clasp migrate failed, so there is nothing to run-check:\n{}", messages.trim_end())));
    }
    Ok(out_dir.to_path_buf())
}

/// Runs the program once under the interceptor, with the user's environment, working directory
/// and arguments; its output is captured.
fn run_program(command: &[String], library: &Path, log: &Path, map: Option<&Path>) -> Result<Output, Stop> {
    let mut process = std::process::Command::new(&command[0]);
    process.args(&command[1..]).stdin(std::process::Stdio::null());
    process.env("LD_PRELOAD", interceptor::preload_value(library, std::env::var_os("LD_PRELOAD").as_deref()));
    process.env(interceptor::LOG_VAR, log);
    // pyopencl builds a program from its binary cache when it can, and a program made from a
    // binary has no source to substitute: every run compiles from source.
    process.env("PYOPENCL_NO_CACHE", "1");
    match map {
        Some(map) => process.env(interceptor::MAP_VAR, map),
        None => process.env_remove(interceptor::MAP_VAR),
    };
    process.output().map_err(|e| Stop::clasp(format!("cannot run `{}`: {e}", command[0])))
}

/// An error when the first original run failed, or a later run ended otherwise than it.
fn check_status(name: &str, output: &Output, first: Option<ExitStatus>) -> Result<(), Stop> {
    let failed = match first {
        None if !output.status.success() => format!("the {name} failed ({})", output.status),
        Some(first) if first != output.status => {
            format!("the {name} ended otherwise than the first original run ({}, not {first})", output.status)
        }
        _ => return Ok(()),
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.trim().is_empty() {
        return Err(Stop::clasp(format!("{failed}; it wrote nothing to standard error")));
    }
    let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
    let shown: String = tail.iter().rev().map(|line| format!("\n  | {line}")).collect();
    Err(Stop::clasp(format!("{failed}; its standard error ends:{shown}")))
}
