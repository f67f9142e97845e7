//! The command line: argument parsing and dispatch. `run` takes the
//! arguments and the two output streams, so tests drive it in-process.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};
use serde::Serialize;

use crate::analyze;
use crate::discover::discover;
use crate::migrate::{migrate, MigrateOptions};
use crate::options::{CompileOptions, InputStd, Target};
use crate::render;
use crate::text::plural;
use crate::unit::Workbench;

/// Exit codes, as for ruff and cargo fix.
pub const EXIT_OK: i32 = 0;
pub const EXIT_PENDING: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

#[derive(Parser, Debug)]
#[command(name = "clasp", version, about = "Migrate OpenCL C 1.x kernels to OpenCL C 2.0 generic address spaces")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The host build options that `build_options` turns into the options above.
const HOST_OPTIONS_HELP: &str = "\
Host build options (what a host passes to clBuildProgram) are accepted too:
  -include FILE            include FILE first (looked for in the current directory, then -I)
  -D NAME[=VALUE], -I DIR  also spelled -DNAME[=VALUE], -IDIR
  -cl-std=CL1.2            the input standard (as --std)
  -cl-*                    passed to clang when it accepts them (-cl-mad-enable, ...), else ignored with a note
  -w, -Werror, -g          passed to clang
  --build-options STRING   a host's whole option string, split as a shell would
  PATHS -- ARGS...         any other clang arguments, after the paths";

#[derive(Subcommand, Debug)]
enum Command {
    /// Show, for every pointer declaration, the address spaces that reach it.
    #[command(after_help = HOST_OPTIONS_HELP)]
    Analyze(AnalyzeArgs),
    /// Rewrite helpers to OpenCL C 2.0 generic pointers; prints a unified diff.
    #[command(after_help = HOST_OPTIONS_HELP)]
    Migrate(MigrateArgs),
}

/// Where the units and their options come from, for `migrate` and `analyze`.
#[derive(Args, Debug)]
struct ProjectArgs {
    /// The project's settings and configurations (default: the nearest clasp.toml
    /// in the first path's directory or above).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Ignore any clasp.toml.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
    /// The units, as a JSON list of {"file", "options", "configuration"?}
    /// (from a host's build log); instead of PATHs and clasp.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    compile_commands: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct MigrateArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    discover: DiscoverArgs,
    /// What the result must compile as: cl2.0 (default), cl3.0 (with the generic
    /// and program-scope-global features) or cl3.0-nogeneric.
    #[arg(long, value_parser = Target::parse)]
    target: Option<Target>,
    #[command(flatten)]
    project: ProjectArgs,
    /// Apply the changes in place (atomically).
    #[arg(long, conflicts_with_all = ["check", "out_dir"])]
    write: bool,
    /// With --write, also overwrite files that have uncommitted changes in their git work tree.
    #[arg(long, requires = "write")]
    allow_dirty: bool,
    /// Print counts per rule and per refusal reason instead of the diff.
    #[arg(long, conflicts_with_all = ["json", "format"])]
    statistics: bool,
    /// Only report; exit 1 when changes are pending.
    #[arg(long, conflicts_with = "out_dir")]
    check: bool,
    /// Write migrated copies under DIR, mirroring relative paths.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Worker threads (default: one per core); the output is the same for any number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
    /// Only files under DIR are edited (default: the enclosing git work tree
    /// of the paths, else their deepest common directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Explain every change and refusal (on stderr).
    #[arg(long)]
    explain: bool,
    /// Print a JSON report instead of the diff (as --format json).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// What to print on stdout: diff (default), json (every file, change, refusal,
    /// evidence, configuration and the time per stage) or sarif (SARIF 2.1.0).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Skip verification (recompiling as the target, kernel equivalence).
    #[arg(long)]
    no_verify: bool,
    /// Do not merge helpers duplicated per address space (each still becomes generic on its own).
    #[arg(long)]
    no_merge: bool,
    /// A program's __constant data over BYTES moves to __global, largest variables first.
    #[arg(long, value_name = "BYTES", default_value_t = crate::options::DEFAULT_CONSTANT_BUDGET)]
    constant_budget: u64,
    /// Which program-scope variables move to __global: as-needed (over the budget) or prefer-global (all that can).
    #[arg(long, value_name = "POLICY", default_value = "as-needed", value_parser = crate::options::GlobalsPolicy::parse)]
    globals: crate::options::GlobalsPolicy,
    /// No progress bar (it is only drawn when stderr is a terminal anyway).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Keep changes whose kernels could not be proven equivalent, marked unverified.
    #[arg(long, conflicts_with = "no_verify")]
    allow_unverified: bool,
    /// Testing only: ignore this pin (a reason code), to show verification catching the result.
    #[arg(long, hide = true, value_name = "CODE", value_parser = crate::codes::Code::parse)]
    test_ignore_pin: Vec<crate::codes::Code>,
    /// Files, or directories searched for *.cl.
    #[arg(required_unless_present = "compile_commands", value_name = "PATH")]
    paths: Vec<PathBuf>,
}

/// Which files a directory's walk takes.
#[derive(Args, Debug, Clone)]
pub struct DiscoverArgs {
    /// Also take files with this extension as units (cl, ocl and opencl are; clh files are usually headers).
    #[arg(long = "ext", value_name = "EXT")]
    extensions: Vec<String>,
    /// Skip files matching this gitignore-style glob (relative to the walked directory).
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Only take files matching this gitignore-style glob (relative to the walked directory;
    /// `!GLOB` takes matches out). It narrows the walk: ignored and hidden files stay out.
    // Not `--include`: that is the host option `-include FILE`.
    #[arg(long = "glob", value_name = "GLOB")]
    select: Vec<String>,
    /// Follow symbolic links while walking directories.
    #[arg(long)]
    follow_links: bool,
}

impl DiscoverArgs {
    fn filters(&self) -> crate::discover::Filters {
        crate::discover::Filters {
            extensions: self.extensions.clone(),
            exclude: self.exclude.clone(),
            select: self.select.clone(),
            follow_links: self.follow_links,
        }
    }
}

/// The report `migrate` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Diff,
    Json,
    Sarif,
}

#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Include FILE before the unit (host spelling: -include FILE).
    #[arg(long = "include", value_name = "FILE")]
    preinclude: Vec<PathBuf>,
    /// The OpenCL C standard of the input: auto (per unit, CL1.2 if it
    /// compiles so, else the target's), or CL1.0 ... CL3.0.
    #[arg(long = "std", value_name = "STD", default_value = "auto", value_parser = InputStd::parse)]
    std: InputStd,
    /// Include the full opencl-c.h instead of the lazily declared builtins (slower).
    #[arg(long)]
    full_header: bool,
    /// Canonical form of host options and of the arguments after `--`: passed to clang.
    #[arg(long = "clang-arg", hide = true, value_name = "ARG", allow_hyphen_values = true)]
    clang_arg: Vec<String>,
}

impl CompileArgs {
    fn options(&self) -> CompileOptions {
        CompileOptions {
            std: self.std,
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            includes: self.preinclude.clone(),
            clang_extra: self.clang_arg.clone(),
            full_header: self.full_header,
        }
    }
}

#[derive(Args, Debug)]
struct AnalyzeArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    discover: DiscoverArgs,
    #[command(flatten)]
    project: ProjectArgs,
    /// The target each unit is also compiled as, unchanged: cl2.0 (default, or
    /// clasp.toml's), cl3.0, cl3.0-nogeneric.
    #[arg(long, value_parser = Target::parse)]
    target: Option<Target>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Files, or directories searched for *.cl.
    #[arg(required_unless_present = "compile_commands", value_name = "PATH")]
    paths: Vec<PathBuf>,
}

/// The long options of any subcommand that take a value (`--target`), so
/// that host-option rewriting leaves their values alone.
fn takes_value(option: &str) -> bool {
    let name = option.trim_start_matches('-');
    Cli::command()
        .get_subcommands()
        .flat_map(|c| c.get_arguments())
        .any(|a| a.get_long() == Some(name) && !a.is_positional() && a.get_action().takes_values())
}

/// Runs clasp with `args` (including the program name) and returns the exit code.
pub fn run(args: Vec<String>, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    // clap cannot read host spellings (`-include`, `-cl-mad-enable`): rewrite them first.
    let args = match crate::build_options::canonicalize(&args, &takes_value) {
        Ok(canonical) => {
            for note in &canonical.notes {
                let _ = writeln!(stderr, "clasp: note: {note}");
            }
            canonical.args
        }
        Err(message) => {
            let _ = writeln!(stderr, "clasp: error: {message}");
            return EXIT_ERROR;
        }
    };
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = if e.use_stderr() { write!(stderr, "{e}") } else { write!(stdout, "{e}") };
            return code;
        }
    };
    match cli.command {
        Command::Analyze(args) => run_analyze(args, stdout, stderr),
        Command::Migrate(args) => run_migrate(args, stdout, stderr),
    }
}

#[derive(Serialize)]
struct AnalyzeFile {
    path: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// For a file that could not be analysed because clang rejects it.
    #[serde(skip_serializing_if = "Option::is_none")]
    compiles: Option<analyze::CompileStatus>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    report: Option<analyze::UnitReport>,
}

fn run_analyze(args: AnalyzeArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let found = discover(&args.paths, &args.discover.filters());
    let mut files = Vec::new();
    for (path, message) in &found.errors {
        let _ = writeln!(stderr, "{}: error: {message}", path.display());
    }
    let config = match project_config(&args.project, &args.paths) {
        Ok(config) => config,
        Err(message) => {
            let _ = writeln!(stderr, "{message}");
            return EXIT_ERROR;
        }
    };
    let jobs = match jobs(&args.project, &args.paths, args.compile.options(), config.as_ref(), &found.files) {
        Ok(jobs) => jobs,
        Err(message) => {
            let _ = writeln!(stderr, "{}", config_error(config.as_ref(), &message));
            return EXIT_ERROR;
        }
    };
    let target = args.target.or(config.as_ref().and_then(|c| c.target)).unwrap_or(Target::Cl20);
    let bench = match Workbench::new() {
        Ok(b) => b,
        Err(message) => {
            let _ = writeln!(stderr, "clasp: error: {message}");
            return EXIT_ERROR;
        }
    };
    let mut errors = found.errors.len();
    for job in &jobs {
        let (path, options) = (&job.path, &job.compile);
        let loaded = bench.load(path, options, target).map(|mut unit| {
            unit.configuration = job.configuration.clone();
            unit
        });
        match loaded {
            Ok(unit) => {
                let target_args = options.clang_args(Some(&target.std_flags()));
                let compiles = analyze::CompileStatus {
                    as_input: analyze::CompileCheck::new(unit.standard.std.name(), Ok(())),
                    unchanged_as_target: Some(analyze::CompileCheck::new(
                        target.name(),
                        crate::verify::compiles(path, &target_args, &Default::default()),
                    )),
                };
                let report = analyze::report(&unit, compiles);
                if !args.json {
                    let _ = write!(stdout, "{}", analyze::render_text(&report));
                }
                files.push(AnalyzeFile {
                    path: path.display().to_string(),
                    status: "analysed",
                    error: None,
                    compiles: None,
                    report: Some(report),
                });
            }
            Err(e) => {
                errors += 1;
                match &job.configuration {
                    Some(name) => writeln!(stderr, "{e}\n{}: note: in configuration `{name}`", path.display()),
                    None => writeln!(stderr, "{e}"),
                }
                .ok();
                let compiles = e.is_compile_error().then(|| analyze::CompileStatus {
                    as_input: analyze::CompileCheck::new(options.std.first().name(), Err(e.to_string())),
                    unchanged_as_target: None,
                });
                files.push(AnalyzeFile {
                    path: path.display().to_string(),
                    status: "error",
                    error: Some(e.to_string()),
                    compiles,
                    report: None,
                });
            }
        }
    }
    if args.json {
        let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&serde_json::json!({ "files": files })).unwrap());
    }
    let analysed = files.len() - (errors - found.errors.len());
    let distinct: std::collections::BTreeSet<&PathBuf> = jobs.iter().map(|j| &j.path).collect();
    let what = if distinct.len() == jobs.len() {
        plural(analysed, "file", "analysed")
    } else {
        // A file built in several configurations is a unit in each.
        format!("{} ({})", plural(analysed, "unit", "analysed"), plural(distinct.len(), "file", ""))
    };
    let _ = writeln!(stderr, "clasp: {what}, {}", plural(errors, "error", ""));
    if errors > 0 {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}

/// The `clasp.toml` that applies: `--config`, else the nearest one above the first path.
fn project_config(args: &ProjectArgs, paths: &[PathBuf]) -> Result<Option<crate::config::Config>, String> {
    if args.no_config || args.compile_commands.is_some() {
        return Ok(None);
    }
    let path = match &args.config {
        Some(path) => Some(path.clone()),
        None => paths.first().and_then(|p| crate::config::find(p)),
    };
    path.map(|p| crate::config::Config::load(&p)).transpose()
}

/// An error in the project's settings, named after the file that holds them.
fn config_error(config: Option<&crate::config::Config>, message: &str) -> String {
    match config {
        Some(config) => format!("{}: error: {message}", config.path.display()),
        None => message.to_string(),
    }
}

/// The units to load: every file found (but those the config excludes,
/// unless named on the command line), once per configuration.
fn jobs(
    args: &ProjectArgs,
    paths: &[PathBuf],
    compile: CompileOptions,
    config: Option<&crate::config::Config>,
    files: &[PathBuf],
) -> Result<Vec<crate::config::Job>, String> {
    if let Some(list) = &args.compile_commands {
        return crate::config::compile_commands(list, &compile);
    }
    match config {
        None => Ok(files
            .iter()
            .map(|f| crate::config::Job { path: f.clone(), configuration: None, compile: compile.clone() })
            .collect()),
        Some(config) => {
            let kept: Vec<PathBuf> = files.iter().filter(|f| paths.contains(f) || !config.excludes(f)).cloned().collect();
            config.jobs(&kept, &compile)
        }
    }
}

fn run_migrate(args: MigrateArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let found = discover(&args.paths, &args.discover.filters());
    let bench = match Workbench::new() {
        Ok(b) => b,
        Err(message) => {
            let _ = writeln!(stderr, "clasp: error: {message}");
            return EXIT_ERROR;
        }
    };
    let config = match project_config(&args.project, &args.paths) {
        Ok(config) => config,
        Err(message) => {
            let _ = writeln!(stderr, "{message}");
            return EXIT_ERROR;
        }
    };
    let jobs = match jobs(&args.project, &args.paths, args.compile.options(), config.as_ref(), &found.files) {
        Ok(jobs) => jobs,
        Err(message) => {
            let _ = writeln!(stderr, "{}", config_error(config.as_ref(), &message));
            return EXIT_ERROR;
        }
    };
    let root_option = args.root.clone().or_else(|| config.as_ref().and_then(|c| c.root.clone()));
    // With --compile-commands, the files it lists stand for the paths.
    let paths: Vec<PathBuf> =
        if args.paths.is_empty() { jobs.iter().map(|j| j.path.clone()).collect() } else { args.paths.clone() };
    let root = match crate::root::edit_root(&paths, root_option.as_deref()) {
        Ok(root) => root,
        Err(message) => {
            let _ = writeln!(stderr, "{message}");
            return EXIT_ERROR;
        }
    };
    let options = MigrateOptions {
        compile: args.compile.options(),
        target: args.target.or(config.as_ref().and_then(|c| c.target)).unwrap_or(Target::Cl20),
        root,
        verify: !args.no_verify,
        allow_unverified: args.allow_unverified,
        merge: !args.no_merge,
        constant_budget: args.constant_budget,
        globals: args.globals,
        ignored_pins: args.test_ignore_pin.clone(),
        jobs: args.jobs.map(|n| n as usize).unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)),
        progress: if args.quiet { crate::progress::Progress::hidden() } else { crate::progress::Progress::on_stderr() },
    };
    let mut migration = migrate(&bench, &jobs, &options);
    options.progress.finish();
    for (path, message) in found.errors {
        migration.unanalysable.push(path.clone());
        migration
            .errors
            .push(crate::migrate::FileError { path: path.clone(), message: format!("{}: error: {message}", path.display()) });
    }
    if args.write && !args.allow_dirty {
        let paths: Vec<PathBuf> = migration.changes.iter().map(|c| c.path.clone()).collect();
        match crate::git::dirty(&paths) {
            Ok(dirty) if dirty.is_empty() => {}
            Ok(dirty) => {
                let list: Vec<String> = dirty.iter().map(|p| format!("  {}", p.display())).collect();
                let message = format!(
                    "clasp: error: not writing: these files have uncommitted changes (commit or stash them, or pass --allow-dirty):\n{}",
                    list.join("\n")
                );
                migration.errors.push(crate::migrate::FileError { path: PathBuf::new(), message });
                migration.changes.clear();
            }
            Err(message) => {
                migration
                    .errors
                    .push(crate::migrate::FileError { path: PathBuf::new(), message: format!("clasp: error: {message}") });
                migration.changes.clear();
            }
        }
    }
    if args.write || args.out_dir.is_some() {
        let mut failed = Vec::new();
        for change in &migration.changes {
            let (destination, expected) = match &args.out_dir {
                Some(out) => (render::mirrored(out, &change.path), None),
                None => (change.path.clone(), Some(change.original.as_slice())),
            };
            if let Err(message) = render::write_atomically(&destination, &change.migrated, expected) {
                failed.push(crate::migrate::FileError { path: change.path.clone(), message });
            }
        }
        migration.errors.extend(failed);
    }
    migration.timings = crate::timings::stages();
    let format = if args.json { Format::Json } else { args.format.unwrap_or(Format::Diff) };
    match format {
        Format::Json => {
            let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&migration).unwrap());
        }
        Format::Sarif => {
            let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&crate::sarif::log(&migration)).unwrap());
        }
        Format::Diff if args.statistics => {
            let _ = write!(stdout, "{}", render::statistics(&migration));
        }
        Format::Diff if !args.check && !args.write && args.out_dir.is_none() => {
            for change in &migration.changes {
                // Raw bytes: a file's own encoding goes through untouched, so `git apply` reproduces it.
                let _ = stdout.write_all(&render::diff(change));
            }
        }
        Format::Diff => {}
    }
    for e in &migration.errors {
        let _ = writeln!(stderr, "{}", e.message);
    }
    for w in &migration.warnings {
        let _ = writeln!(stderr, "{}: warning: {}", w.path.display(), w.message);
    }
    if args.explain {
        for line in render::explanations(&migration) {
            let _ = writeln!(stderr, "{line}");
        }
    }
    let _ = writeln!(stderr, "{}", render::summary(&migration));
    if let Some(times) = crate::timings::report() {
        let _ = writeln!(stderr, "{times}");
    }
    if !migration.errors.is_empty() {
        EXIT_ERROR
    } else if args.check && !migration.changes.is_empty() {
        EXIT_PENDING
    } else {
        EXIT_OK
    }
}
