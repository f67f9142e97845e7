//! The command line: argument parsing and dispatch. `run` takes the
//! arguments and the two output streams, so tests drive it in-process.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use crate::analyze;
use crate::discover::discover;
use crate::options::{ClStd, CompileOptions};
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

#[derive(Subcommand, Debug)]
enum Command {
    /// Show, for every pointer declaration, the address spaces that reach it.
    Analyze(AnalyzeArgs),
}

#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// The OpenCL C standard of the input.
    #[arg(long = "std", value_name = "STD", default_value = "CL1.2", value_parser = ClStd::parse)]
    std: ClStd,
    /// Include the full opencl-c.h instead of the lazily declared builtins (slower).
    #[arg(long)]
    full_header: bool,
}

impl CompileArgs {
    fn options(&self) -> CompileOptions {
        CompileOptions {
            std: self.std,
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            full_header: self.full_header,
        }
    }
}

#[derive(Args, Debug)]
struct AnalyzeArgs {
    #[command(flatten)]
    compile: CompileArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Files, or directories searched for *.cl.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

/// Runs clasp with `args` (including the program name) and returns the exit code.
pub fn run(args: Vec<String>, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
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
    }
}

#[derive(Serialize)]
struct AnalyzeFile {
    path: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    report: Option<analyze::UnitReport>,
}

fn run_analyze(args: AnalyzeArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let options = args.compile.options();
    let found = discover(&args.paths);
    let mut files = Vec::new();
    for (path, message) in &found.errors {
        let _ = writeln!(stderr, "{}: error: {message}", path.display());
    }
    let bench = match Workbench::new() {
        Ok(b) => b,
        Err(message) => {
            let _ = writeln!(stderr, "clasp: error: {message}");
            return EXIT_ERROR;
        }
    };
    let mut errors = found.errors.len();
    for path in &found.files {
        match bench.load(path, &options) {
            Ok(unit) => {
                let report = analyze::report(&unit);
                if !args.json {
                    let _ = write!(stdout, "{}", analyze::render_text(&report));
                }
                files.push(AnalyzeFile {
                    path: path.display().to_string(),
                    status: "analysed",
                    error: None,
                    report: Some(report),
                });
            }
            Err(e) => {
                errors += 1;
                let _ = writeln!(stderr, "{e}");
                files.push(AnalyzeFile {
                    path: path.display().to_string(),
                    status: "error",
                    error: Some(e.to_string()),
                    report: None,
                });
            }
        }
    }
    if args.json {
        let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&serde_json::json!({ "files": files })).unwrap());
    }
    let analysed = files.len() - (errors - found.errors.len());
    let _ = writeln!(stderr, "clasp: {}, {}", plural(analysed, "file", "analysed"), plural(errors, "error", ""));
    if errors > 0 {
        EXIT_ERROR
    } else {
        EXIT_OK
    }
}

/// "1 file analysed", "2 files analysed", "0 errors".
pub fn plural(n: usize, noun: &str, participle: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    if participle.is_empty() {
        format!("{n} {noun}{s}")
    } else {
        format!("{n} {noun}{s} {participle}")
    }
}
