//! `clasp run-check`: runs the user's program twice as it is and once with clasp's migrated sources
//! substituted, under the interceptor (`trace::interceptor`), then compares and times the three
//! traces (`trace::compare`, `trace::timing`) and reports (`trace::report`).
//!
//! The migrated sources come from the migrate command itself, run over PATHS into a temporary
//! `--out-dir` in the scratch folder (so nothing is written to the user's tree), or from
//! `--migrated DIR`. `CLASP_TEST_RUNCHECK_EDIT="FROM=>TO"` (testing only) replaces FROM by TO in
//! every migrated source before the run, so that the tests can plant a wrong substitution.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Output};

use super::Stop;
use crate::cli::args::{Command, RunCheckArgs};
use crate::devices::TargetSpec;
use crate::output::residual::{residual_generic_by_kernel, ResidualKernel};
use crate::settings::options::{ClStd, Target};
use crate::support::style::Palettes;
use crate::trace::record::{self, FailedBuild, Trace};
use crate::trace::report::Report;
use crate::trace::substitute::{self, Substitution};
use crate::trace::{compare, interceptor, timing};

/// The testing-only hook that plants a wrong substitution.
const TEST_EDIT_VAR: &str = "CLASP_TEST_RUNCHECK_EDIT";
/// Set for the run that builds the original sources with the migrated options (`intercept/sources.c`).
const OPTIONS_ONLY_VAR: &str = "CLASP_RUNCHECK_OPTIONS_ONLY";

/// The scratch folder's name starts with this and clasp's process id: a run-check that was killed
/// (and so could not remove its folder, which holds every buffer copied) is cleaned up by the next.
const SCRATCH_PREFIX: &str = "clasp-run-check-";

/// Removes the scratch folders of run-checks whose process is gone.
fn remove_stale_scratch() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let pid = name.strip_prefix(SCRATCH_PREFIX).and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// What one run of the program gets.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Original,
    Migrated,
    /// The original sources with the migrated run's build options.
    OptionsOnly,
}

pub fn run(args: &RunCheckArgs, palettes: Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    super::exit_code(check(args, palettes, stdout, stderr), palettes.stderr, stderr)
}

/// The program's runs, with what it needs to run it once more.
struct Runs<'a> {
    args: &'a RunCheckArgs,
    scratch: &'a Path,
    library: PathBuf,
    map: PathBuf,
    first_status: Option<ExitStatus>,
    count: usize,
}

impl Runs<'_> {
    /// Runs the program once under the interceptor and reads its trace.
    fn run(&mut self, name: &str, mode: Mode) -> Result<Trace, Stop> {
        let log = self.scratch.join(format!("run{}", self.count));
        self.count += 1;
        std::fs::create_dir(&log).map_err(Stop::clasp)?;
        let map = (mode != Mode::Original).then_some(self.map.as_path());
        let output = run_program(&self.args.command, &self.library, &log, map, mode == Mode::OptionsOnly)?;
        let trace = record::read(&log).map_err(|e| Stop::clasp(format!("the {name}'s trace: {e}")));
        if let Err(stop) = check_status(name, &output, self.first_status) {
            // A migrated build that failed is why, more often than not: say so first.
            let failed = trace.as_ref().ok().and_then(|t| t.failed_builds.iter().find(|b| b.migrated));
            return Err(failed.map_or(stop, |build| failed_build(build, Some(name))));
        }
        self.first_status.get_or_insert(output.status);
        trace
    }
}

fn check(args: &RunCheckArgs, palettes: Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<i32, Stop> {
    remove_stale_scratch();
    let prefix = format!("{SCRATCH_PREFIX}{}-", std::process::id());
    let scratch = tempfile::Builder::new().prefix(&prefix).tempdir().map_err(Stop::clasp)?;
    let library = interceptor::install(scratch.path()).map_err(Stop::clasp)?;
    let Migrated { sources: substitutions, residual_generic } = migrated_sources(args, palettes, scratch.path())?;
    if substitutions.is_empty() {
        let _ = writeln!(stderr, "clasp: warning: clasp changes nothing in the kernels given: the migrated run runs the original kernels with the migrated build options");
    }
    let map = scratch.path().join("map");
    substitute::write_map(&map, &substitutions, &migrated_build_options(args.target.as_ref())).map_err(Stop::clasp)?;
    let mut runs = Runs { args, scratch: scratch.path(), library, map, first_status: None, count: 0 };
    // The migrated run comes between original runs: drift in the device's speed moves both.
    let mut originals = vec![runs.run("first original run", Mode::Original)?];
    let m = runs.run("migrated run", Mode::Migrated)?;
    for n in 2..=args.runs {
        originals.push(runs.run(&format!("original run {n}"), Mode::Original)?);
    }
    check_builds(&originals[0], &m)?;
    check_something_ran(args, &originals[0], &m, &substitutions)?;
    let references: Vec<&Trace> = originals.iter().collect();
    let mut comparison = compare::compare(&references, &m, args.tolerance);
    if comparison.buffers > 0 && comparison.buffers_left_out == comparison.buffers && comparison.differences.is_empty() {
        return Err(Stop::clasp(format!(
            "every buffer varied between the original runs, so nothing could be compared ({} buffers left out as nondeterministic)",
            comparison.buffers
        )));
    }
    if !comparison.differences.is_empty() {
        let options_run = runs.run("run of the original sources with the migrated options", Mode::OptionsOnly)?;
        compare::explain_by_options(&mut comparison, &references, &m, &options_run);
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let substituted = m.sources.iter().filter(|(_, replaced)| *replaced).count();
    let mut times = timing::per_kernel(&references, &m);
    timing::link_residual_generic(&mut times, &residual_generic);
    let report = Report::new(
        comparison,
        times,
        substitutions.iter().map(|s| s.shown(&cwd)).collect(),
        substituted,
        usize::from(args.runs),
    );
    let printed = if args.format.as_deref() == Some("json") {
        serde_json::to_string_pretty(&report).expect("a report serialises") + "\n"
    } else {
        report.text()
    };
    stdout.write_all(printed.as_bytes()).map_err(Stop::clasp)?;
    Ok(if report.identical() { 0 } else { 1 })
}

/// The options a program that gets migrated text is built with, in place of its own `-cl-std=`:
/// the target's language as a driver takes it.
fn migrated_build_options(target: Option<&TargetSpec>) -> String {
    match target.and_then(TargetSpec::fixed) {
        Some(Target::Cl30 | Target::Cl30NoGeneric) => ClStd::Cl30.flag(),
        _ => ClStd::Cl20.flag(),
    }
}

/// An error when a build of the migrated run failed that the original run did not fail.
fn check_builds(original: &Trace, m: &Trace) -> Result<(), Stop> {
    let Some(failed) = m.failed_builds.iter().find(|b| b.migrated) else { return Ok(()) };
    if original.failed_builds.len() >= m.failed_builds.len() {
        return Ok(());
    }
    Err(failed_build(failed, None))
}

/// A migrated build that failed, with the driver's error lines (else the end of its log); `ended`
/// names the run when it also ended otherwise than the first original run.
fn failed_build(failed: &FailedBuild, ended: Option<&str>) -> Stop {
    let lines: Vec<&str> = failed.log.trim_end().lines().collect();
    let errors: Vec<&str> = lines.iter().copied().filter(|l| l.to_ascii_lowercase().contains("error")).take(20).collect();
    let shown = if errors.is_empty() { &lines[lines.len().saturating_sub(20)..] } else { &errors[..] };
    let log: String = shown.iter().map(|l| format!("\n  | {l}")).collect();
    let then = ended.map_or(String::new(), |run| format!(" (and the {run} then ended otherwise than the first original run)"));
    Stop::clasp(format!(
        "the migrated run's build of a migrated program failed (OpenCL error {}), where the original run's built{then}; the driver's log says:{log}",
        failed.status
    ))
}

/// An error when nothing was checked: no launch or read, or migrated sources that no program
/// of the migrated run was created from (a host that edits the text it reads, say).
fn check_something_ran(args: &RunCheckArgs, original: &Trace, m: &Trace, substitutions: &[Substitution]) -> Result<(), Stop> {
    let substituted = m.sources.iter().filter(|(_, replaced)| *replaced).count();
    if original.steps.is_empty() {
        return Err(Stop::clasp(format!(
            "`{}` launched no kernel and read no buffer through OpenCL: nothing was compared",
            args.command[0]
        )));
    }
    if !substitutions.is_empty() && substituted == 0 {
        return Err(Stop::clasp(format!("no program `{}` created has the content of a source clasp migrated, so the migrated run ran the original kernels and nothing was checked (a host that changes the text it reads before creating the program cannot be matched: give run-check a tree with --migrated holding the text the host creates the program from)", args.command[0])));
    }
    Ok(())
}

/// The migrated sources and what the `residual-generic` lint says of their kernels (nothing for
/// a tree given with `--migrated`).
struct Migrated {
    sources: Vec<Substitution>,
    residual_generic: BTreeMap<String, ResidualKernel>,
}

/// The migrated sources: those of `--migrated DIR`, or clasp migrate's over PATHS.
fn migrated_sources(args: &RunCheckArgs, palettes: Palettes, scratch: &Path) -> Result<Migrated, Stop> {
    // `--out-dir` mirrors paths from the edit root: the tree is paired from there.
    let (out_dir, bases, residual_generic) = match &args.migrated {
        Some(dir) if dir.is_dir() => (dir.clone(), tree_bases(args)?, BTreeMap::new()),
        Some(dir) => return Err(Stop::clasp(format!("--migrated {}: no such directory", dir.display()))),
        None if args.paths.is_empty() => return Err(Stop::clasp("give the kernel PATHS to migrate, or --migrated DIR")),
        None if let Some(missing) = args.paths.iter().find(|p| !p.exists()) => {
            return Err(Stop::clasp(format!("{}: no such file or directory", missing.display())))
        }
        None => {
            let root = crate::settings::root::edit_root(&args.paths, args.root.as_deref()).map_err(Stop::clasp)?;
            let out_dir = scratch.join("migrated");
            let lint = migrate_into(args, &root, palettes, &out_dir)?;
            (out_dir, vec![root], lint)
        }
    };
    let Some(mut sources) = substitute::pair_out_dir(&out_dir, &bases).map_err(Stop::clasp)? else {
        return Err(unpaired(&out_dir, args.root.as_deref()));
    };
    if let Some((from, to)) = std::env::var(TEST_EDIT_VAR).ok().as_deref().and_then(|e| e.split_once("=>")) {
        for source in &mut sources {
            source.migrated = String::from_utf8_lossy(&source.migrated).replace(from, to).into_bytes();
        }
    }
    Ok(Migrated { sources, residual_generic })
}

/// The error for a `--migrated` tree none of whose files has an original where it was looked for.
fn unpaired(tree: &Path, root: Option<&Path>) -> Stop {
    let looked = match root {
        Some(root) => format!("from --root {}", root.display()),
        None => "from the current directory or any folder above it".to_string(),
    };
    Stop::clasp(format!(
        "--migrated {}: none of its files has an original at its path {looked}: give --root the edit root the tree \
         mirrors (clasp migrate --out-dir lays files out from it)",
        tree.display()
    ))
}

/// Where a tree given with `--migrated` may mirror paths from: `--root`, else
/// the current directory and each folder above it (`pair_out_dir` takes the
/// one holding the most of the tree's originals).
fn tree_bases(args: &RunCheckArgs) -> Result<Vec<PathBuf>, Stop> {
    if let Some(root) = &args.root {
        return Ok(vec![crate::settings::root::edit_root(&[], Some(root)).map_err(Stop::clasp)?]);
    }
    let cwd = std::env::current_dir().map_err(Stop::clasp)?;
    Ok(cwd.ancestors().map(Path::to_path_buf).collect())
}

/// Runs clasp migrate over `paths` into `out_dir` (its report is not shown; its errors are) and
/// returns what its `residual-generic` lint says per kernel.
fn migrate_into(
    args: &RunCheckArgs,
    root: &Path,
    palettes: Palettes,
    out_dir: &Path,
) -> Result<BTreeMap<String, ResidualKernel>, Stop> {
    let mut argv = vec!["clasp".to_string(), "migrate".to_string()];
    argv.extend(args.paths.iter().map(|p| p.display().to_string()));
    argv.extend(args.compile.to_argv());
    argv.extend(args.project.to_argv());
    argv.extend(args.target.as_ref().map(|target| format!("--target={}", target.spelled())));
    argv.extend(["--out-dir".to_string(), out_dir.display().to_string()]);
    argv.extend(["--root".to_string(), root.display().to_string(), "--format=json".to_string()]);
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
    let report: serde_json::Value = serde_json::from_slice(&diff).unwrap_or_default();
    Ok(residual_generic_by_kernel(&report))
}

/// Runs the program once under the interceptor, with the user's environment, working directory
/// and arguments; its output is captured.
fn run_program(command: &[String], library: &Path, log: &Path, map: Option<&Path>, options_only: bool) -> Result<Output, Stop> {
    let mut process = std::process::Command::new(&command[0]);
    process.args(&command[1..]).stdin(std::process::Stdio::null());
    // A run-check that is killed takes the program with it.
    crate::isolation::signals::die_with_parent(&mut process, std::process::id());
    process.env("LD_PRELOAD", interceptor::preload_value(library, std::env::var_os("LD_PRELOAD").as_deref()));
    process.env(interceptor::LOG_VAR, log);
    // pyopencl builds a program from its binary cache when it can, and a program made from a
    // binary has no source to substitute: every run compiles from source.
    process.env("PYOPENCL_NO_CACHE", "1");
    match map {
        Some(map) => process.env(interceptor::MAP_VAR, map),
        None => process.env_remove(interceptor::MAP_VAR),
    };
    match options_only {
        true => process.env(OPTIONS_ONLY_VAR, "1"),
        false => process.env_remove(OPTIONS_ONLY_VAR),
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
