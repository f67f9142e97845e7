//! `clasp analyze`: loads every unit of the project and prints, for every
//! pointer declaration, the address spaces that reach it (text per unit as
//! it goes, or one JSON document at the end), then a count on stderr.
//! Stages: resolve the project -> load and report each unit -> summary.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Stop;
use crate::cli::args::AnalyzeArgs;
use crate::cli::project::{Inputs, Project};
use crate::front::unit::{Unit, Workbench};
use crate::input::config::Job;
use crate::output::analysis;
use crate::settings::options::Target;
use crate::support::exit::{EXIT_ERROR, EXIT_OK};
use crate::support::text::plural;

/// One unit in the JSON report.
#[derive(Serialize)]
struct AnalyzeFile {
    path: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// For a file that could not be analysed because clang rejects it.
    #[serde(skip_serializing_if = "Option::is_none")]
    compiles: Option<analysis::CompileStatus>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    report: Option<analysis::UnitReport>,
}

/// Runs `clasp analyze` and returns its exit code.
pub fn run(args: &AnalyzeArgs, palettes: crate::support::style::Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    // Messages are written as each unit is analysed: coloured line by line on their way out.
    let mut stderr = crate::support::style::Diagnostics::new(stderr, palettes.stderr);
    let result = analyze_project(args, stdout, &mut stderr);
    super::exit_code(result, Default::default(), &mut stderr)
}

fn analyze_project(args: &AnalyzeArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<i32, Stop> {
    super::rule::code_given_as_path(&args.paths)?;
    // Laid over its file until the run ends.
    let stdin = super::stdin::take(&args.paths, args.project.stdin_filename.as_deref(), &[])?;
    let paths = stdin.as_ref().map_or_else(|| args.paths.clone(), super::stdin::Stdin::paths);
    let selected = super::devices::Selected::resolve(args.target.as_ref(), false)?;
    if let Some(selected) = &selected {
        selected.say(stderr);
    }
    let mut inputs = Inputs::from(args);
    inputs.paths = &paths;
    inputs.target = selected.as_ref().and_then(super::devices::Selected::target).or(inputs.target);
    let project = Project::resolve(inputs).inspect_err(|e| report_unreadable(&e.unreadable, stderr))?;
    report_unreadable(&project.unreadable, stderr);
    for warning in &project.config_warnings {
        let _ = writeln!(stderr, "{warning}");
    }
    super::preflight::runs_in_process(&project.jobs)?;
    crate::isolation::announce_timeout(project.timeout);
    let searched = super::preflight::searched(&paths, &args.project);
    super::preflight::units_found(&project, &searched)?;
    // analyze reads no host file: host files alone are nothing to analyse.
    if project.jobs.is_empty() && project.unreadable.is_empty() {
        return Err(super::preflight::no_unit(&searched, &project.host_files));
    }
    super::preflight::options_accepted(&project.jobs)?;
    let bench = Workbench::new().map_err(|e| Stop::clasp(e.to_string()))?;
    // A `[[program]]`'s concatenated text and its wrapper live here for the run.
    let scratch = tempfile::tempdir().map_err(|e| Stop::clasp(format!("no scratch directory for programs: {e}")))?;
    let target = project.target;
    // Each unit's work is the unit's, for the supervisor (a crash or hang in it costs that unit).
    let mut analyse = |job: &Job| analyze_job(&bench, scratch.path(), job, target, args.json(), stdout, stderr);
    let files: Vec<AnalyzeFile> =
        project.jobs.iter().map(|job| crate::isolation::for_unit(&job.label(), || analyse(job))).collect();
    if args.json() {
        let _ = writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&crate::migrate::report::Versioned::new(serde_json::json!({ "files": files }))).unwrap()
        );
    }
    let analysed = files.iter().filter(|f| f.error.is_none()).count();
    let errors = project.unreadable.len() + (files.len() - analysed);
    if !args.quiet {
        let _ = writeln!(stderr, "clasp: {}, {}", what_was_analysed(analysed, &project.jobs), plural(errors, "error", ""));
    }
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

/// Loads a job: a kernel file, or a `[[program]]`'s sources concatenated
/// (as `clasp migrate` compiles it).
fn load(bench: &Workbench, scratch: &Path, job: &Job, target: Target) -> Result<Unit, crate::front::unit::UnitError> {
    let Some(sources) = &job.program else { return bench.load(&job.path, &job.compile, target) };
    let program = crate::input::source::Program::prepare(scratch, &job.path, &sources.name, &sources.files).map_err(|e| {
        let source = std::io::Error::new(e.kind(), format!("the sources of program `{}`: {e}", sources.name));
        crate::front::unit::UnitError::Read { path: job.path.display().to_string(), source: std::sync::Arc::new(source) }
    })?;
    bench.load_program(&std::sync::Arc::new(program), &job.compile, target)
}

/// Each path that discovery could not read, as an error on stderr.
fn report_unreadable(unreadable: &[(PathBuf, String)], stderr: &mut dyn Write) {
    for (path, message) in unreadable {
        let _ = writeln!(stderr, "{}:1:1: error: {message}", path.display());
    }
}

/// Loads one unit and reports it: its text report on stdout (unless
/// `json`), or its error on stderr; the entry for the JSON report either way.
/// A unit the supervisor took out (it crashed or hung clang) is its error.
fn analyze_job(
    bench: &Workbench,
    scratch: &Path,
    job: &Job,
    target: Target,
    json: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> AnalyzeFile {
    let (path, options) = (&job.path, &job.compile);
    if let Some(message) = crate::isolation::exclusion_error(&job.label(), path) {
        let message = crate::output::render::error_message(&crate::migrate::report::FileError { path: path.clone(), message });
        let _ = writeln!(stderr, "{message}");
        return AnalyzeFile {
            path: path.display().to_string(),
            status: "error",
            error: Some(message),
            compiles: None,
            report: None,
        };
    }
    let loaded = load(bench, scratch, job, target).map(|mut unit| {
        unit.configuration = job.configuration.clone();
        unit
    });
    match loaded {
        Ok(unit) => {
            let report = analysis::report(&unit, compile_status(&unit, target));
            if !json {
                let _ = write!(stdout, "{}", analysis::render_text(&report));
            }
            AnalyzeFile {
                path: path.display().to_string(),
                status: "analysed",
                error: None,
                compiles: None,
                report: Some(report),
            }
        }
        Err(e) => {
            match &job.configuration {
                Some(name) => writeln!(stderr, "{}\n{}: note: in configuration `{name}`", error_line(path, &e), path.display()),
                None => writeln!(stderr, "{}", error_line(path, &e)),
            }
            .ok();
            let compiles = e.is_compile_error().then(|| analysis::CompileStatus {
                as_input: analysis::CompileCheck::new(options.std.first().name(), Err(e.to_string())),
                unchanged_as_target: None,
            });
            AnalyzeFile { path: path.display().to_string(), status: "error", error: Some(e.to_string()), compiles, report: None }
        }
    }
}

/// A unit's error as printed: placed at `file:line:col` like every error line.
fn error_line(path: &Path, error: &crate::front::unit::UnitError) -> String {
    crate::output::render::error_message(&crate::migrate::report::FileError {
        path: path.to_path_buf(),
        message: error.to_string(),
    })
}

/// A loaded unit compiles as its input standard; whether it also compiles, unchanged, as the target.
fn compile_status(unit: &Unit, target: Target) -> analysis::CompileStatus {
    // The file clang compiles: the unit's input (a program's wrapper, its
    // text laid over by the overlay its options carry).
    let path: &Path = &unit.input;
    let target_args = unit.compile.clang_args(Some(&target.std_flags()));
    analysis::CompileStatus {
        as_input: analysis::CompileCheck::new(unit.standard.std.name(), Ok(())),
        unchanged_as_target: Some(analysis::CompileCheck::new(
            target.name(),
            crate::verify::compiles(path, &target_args, &Default::default()).map_err(|e| e.to_string()),
        )),
    }
}

/// "3 files analysed", or "4 units analysed (2 files)" when a file is built
/// in several configurations (a unit in each).
fn what_was_analysed(analysed: usize, jobs: &[Job]) -> String {
    let distinct: BTreeSet<&PathBuf> = jobs.iter().map(|j| &j.path).collect();
    if distinct.len() == jobs.len() {
        plural(analysed, "file", "analysed")
    } else {
        // A file built in several configurations is a unit in each.
        format!("{} ({})", plural(analysed, "unit", "analysed"), plural(distinct.len(), "file", ""))
    }
}
