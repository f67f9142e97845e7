//! The command line's shape: the clap structs for `clasp analyze` and
//! `clasp migrate` and the options they share. Parsing only: `cli::project`
//! turns them into a project and `commands` does the work.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::help;
use crate::devices::TargetSpec;
use crate::settings::options::{CompileOptions, InputStd};

#[derive(Parser, Debug)]
#[command(
    name = "clasp",
    version,
    about = "Migrate OpenCL C 1.x kernels to OpenCL C 2.0 generic address spaces",
    after_help = "`clasp COMMAND -h` summarises a command's options; `clasp COMMAND --help` is its full reference."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour: auto (on a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always, never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t, long_help = help::COLOR)]
    pub color: crate::support::style::ColorWhen,
}

/// The host build options that `build_options` turns into the options above
/// (`-h`'s summary; `--help` prints the HOST BUILD OPTIONS section instead).
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
pub enum Command {
    /// Show, for every pointer declaration, the address spaces that reach it.
    #[command(after_help = HOST_OPTIONS_HELP, long_about = help::ANALYZE_ABOUT, after_long_help = help::analyze_after())]
    Analyze(AnalyzeArgs),
    /// Rewrite helpers to OpenCL C 2.0 generic pointers; prints a unified diff.
    #[command(after_help = HOST_OPTIONS_HELP, long_about = help::MIGRATE_ABOUT, after_long_help = help::migrate_after())]
    Migrate(Box<MigrateArgs>),
    /// List the installed OpenCL platforms and devices, and which clasp target fits each.
    #[command(long_about = help::DEVICES_ABOUT, after_long_help = help::DEVICES_AFTER)]
    Devices(DevicesArgs),
    /// Run a program before and after migration and compare what its kernels compute.
    #[command(name = "run-check", long_about = help::RUN_CHECK_ABOUT)]
    RunCheck(RunCheckArgs),
    /// Explain a rule or reason code (`clasp rule builtin-pin`), or list every code.
    #[command(long_about = help::RULE_ABOUT)]
    Rule(RuleArgs),
    /// Print the completion script for a shell (bash, zsh, fish, elvish, powershell).
    #[command(long_about = help::COMPLETIONS_ABOUT)]
    Completions(CompletionsArgs),
    /// Print a man page (roff), generated from the same definitions as --help (see scripts/man).
    #[command(hide = true)]
    Manpage(ManpageArgs),
    /// Remove what clasp keeps across runs (`clasp cache clean`).
    #[command(long_about = help::CACHE_ABOUT)]
    Cache(CacheArgs),
    /// Run the language server over stdio: diagnostics and verified code actions in editors.
    #[command(long_about = help::SERVER_ABOUT)]
    Server(ServerArgs),
}

/// Where verdicts are kept across runs (`clasp migrate`, `clasp cache`).
#[derive(Args, Debug, Clone, Default)]
pub struct StoreArgs {
    /// The cache directory (default: .clasp_cache under the edit root); runners may share one.
    #[arg(long, value_name = "DIR", long_help = help::CACHE_DIR)]
    pub cache_dir: Option<PathBuf>,
    /// Also keep and read verdicts on a cache server speaking the Bazel HTTP
    /// remote-cache protocol (bazel-remote, nginx with WebDAV).
    #[arg(long, value_name = "URL", long_help = help::REMOTE_CACHE)]
    pub remote_cache: Option<String>,
    /// The cache directory's bound in MiB: the entries least recently used go past it.
    #[arg(long, value_name = "MIB", default_value_t = 1024, long_help = help::CACHE_SIZE)]
    pub cache_size: u64,
}

/// `clasp cache`.
#[derive(Args, Debug)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// Remove the cache directory (`.clasp_cache` under the edit root of PATH, or --cache-dir).
    Clean {
        /// A path in the project (default: the current directory).
        #[arg(value_name = "PATH")]
        path: Option<PathBuf>,
        #[arg(long, value_name = "DIR", long_help = help::CACHE_DIR)]
        cache_dir: Option<PathBuf>,
        /// The edit root the cache is under (as migrate's --root).
        #[arg(long, value_name = "DIR", conflicts_with = "cache_dir")]
        root: Option<PathBuf>,
    },
}

/// `clasp server`.
#[derive(Args, Debug)]
pub struct ServerArgs {
    /// Speak over standard input and output (the only transport; accepted as editors pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// The PATH that reads the unit's text from standard input.
pub const STDIN_PATH: &str = "-";

/// `clasp completions SHELL`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum, value_name = "SHELL", long_help = help::COMPLETIONS_SHELL)]
    pub shell: clap_complete::Shell,
}

/// `clasp manpage [COMMAND]`.
#[derive(Args, Debug)]
pub struct ManpageArgs {
    /// The command whose page to print (clasp-COMMAND(1)); without it, clasp(1).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

impl Command {
    /// `migrate` and `analyze` given no PATH (nor `--compile-commands`) work
    /// on the current directory, as ruff and black do.
    pub fn default_paths(&mut self) {
        let (paths, project) = match self {
            Command::Migrate(args) => (&mut args.paths, &args.project),
            Command::Analyze(args) => (&mut args.paths, &args.project),
            // run-check says which kernels to migrate, or takes --migrated.
            Command::Devices(_)
            | Command::Rule(_)
            | Command::Cache(_)
            | Command::RunCheck(_)
            | Command::Completions(_)
            | Command::Manpage(_)
            | Command::Server(_) => return,
        };
        if paths.is_empty() && project.compile_commands.is_none() {
            // `--stdin-filename` alone reads standard input, as ruff's does.
            let default = if project.stdin_filename.is_some() { STDIN_PATH } else { "." };
            paths.push(PathBuf::from(default));
        }
    }
}

/// `clasp rule [CODE]`.
#[derive(Args, Debug)]
pub struct RuleArgs {
    /// The code to explain (a rule such as generic-param, or a reason such as
    /// builtin-pin); without it, every code with its summary.
    #[arg(value_name = "CODE", long_help = help::RULE_CODE)]
    pub code: Option<String>,
    /// text (default) or json.
    #[arg(long, value_enum, long_help = help::RULE_FORMAT)]
    pub format: Option<RuleFormat>,
}

/// How `clasp rule` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RuleFormat {
    Text,
    Json,
}

impl ProjectArgs {
    /// These options as clasp's command line spells them (run-check hands them to migrate).
    pub fn to_argv(&self) -> Vec<String> {
        let mut argv = Vec::new();
        argv.extend(self.config.iter().map(|file| format!("--config={}", file.display())));
        if self.no_config {
            argv.push("--no-config".into());
        }
        argv.extend(self.compile_commands.iter().map(|file| format!("--compile-commands={}", file.display())));
        argv.extend(self.timeout.iter().map(|seconds| format!("--timeout={seconds}")));
        argv
    }
}

/// `clasp run-check [PATHS] [OPTIONS] -- COMMAND [ARGS...]`.
#[derive(Args, Debug)]
pub struct RunCheckArgs {
    /// Kernel files or folders to migrate (as for clasp migrate).
    #[arg(value_name = "PATHS", conflicts_with = "migrated", long_help = help::RUN_CHECK_PATHS)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub project: ProjectArgs,
    /// What the migrated code must compile as, as for clasp migrate (cl2.0 default).
    #[arg(long, value_parser = TargetSpec::parse, long_help = help::RUN_CHECK_TARGET)]
    pub target: Option<TargetSpec>,
    /// Take the migrated sources from DIR (written by clasp migrate --out-dir DIR).
    #[arg(long, value_name = "DIR", long_help = help::RUN_CHECK_MIGRATED)]
    pub migrated: Option<PathBuf>,
    /// The edit root (as clasp migrate's --root); with --migrated, the folder the tree mirrors.
    #[arg(long, value_name = "DIR", long_help = help::RUN_CHECK_ROOT)]
    pub root: Option<PathBuf>,
    /// Run the original program N times (default 2, at least 2): a result that differs
    /// between them is nondeterministic.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u16).range(2..), long_help = help::RUN_CHECK_RUNS)]
    pub runs: u16,
    /// Accept floats within ULPS units in the last place (default 0: bit for bit).
    #[arg(long, value_name = "ULPS", default_value_t = 0, long_help = help::RUN_CHECK_TOLERANCE)]
    pub tolerance: u64,
    /// text (default) or json.
    #[arg(long, value_name = "FORMAT", value_parser = ["text", "json"], long_help = help::RUN_CHECK_FORMAT)]
    pub format: Option<String>,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND", long_help = help::RUN_CHECK_COMMAND)]
    pub command: Vec<String>,
}

/// `clasp devices`.
#[derive(Args, Debug)]
pub struct DevicesArgs {
    /// Print JSON instead of text (as --format json).
    #[arg(long, conflicts_with = "format", long_help = help::DEVICES_JSON)]
    pub json: bool,
    /// text (default) or json.
    #[arg(long, value_name = "FORMAT", value_parser = ["text", "json"], long_help = help::DEVICES_FORMAT)]
    pub format: Option<String>,
}

/// Where the units and their options come from, for `migrate` and `analyze`.
#[derive(Args, Debug, Clone)]
pub struct ProjectArgs {
    /// The project's settings and configurations (default: the nearest clasp.toml
    /// in the first path's directory or above).
    #[arg(long, value_name = "FILE", long_help = help::CONFIG)]
    pub config: Option<PathBuf>,
    /// Ignore any clasp.toml.
    #[arg(long, conflicts_with = "config", long_help = help::NO_CONFIG)]
    pub no_config: bool,
    /// The units, from clang's compile_commands.json (its OpenCL C entries) or a
    /// JSON list of {"file", "options", "configuration"?}; instead of PATHs and clasp.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "config", long_help = help::COMPILE_COMMANDS)]
    pub compile_commands: Option<PathBuf>,
    /// The time limit, in seconds, on parsing a unit and on each compile of it: a unit
    /// that takes longer is an error and the batch goes on without it (default: 300,
    /// or clasp.toml's `timeout`).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..), long_help = help::TIMEOUT)]
    pub timeout: Option<u64>,
    /// With PATH `-` (or no PATH): the unit's text is read from standard input and
    /// stands for this file, whose options and clasp.toml apply (default: stdin.cl).
    #[arg(long, value_name = "PATH", conflicts_with = "compile_commands", long_help = help::STDIN_FILENAME)]
    pub stdin_filename: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
#[command(group = clap::ArgGroup::new("writing").args(["write", "interactive"]).multiple(true))]
pub struct MigrateArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub discover: DiscoverArgs,
    /// What the result must compile as: cl2.0 (default), cl3.0 (with the generic
    /// and program-scope-global features), cl3.0-nogeneric, or device[:NAME,...]
    /// (the strongest target every installed device, or the named ones, supports).
    #[arg(long, value_parser = TargetSpec::parse, long_help = help::TARGET)]
    pub target: Option<TargetSpec>,
    /// After verification, build every changed program with each device's compiler
    /// (the selected devices with --target device:NAME, else all): a result a device
    /// rejects while it builds the original is an error, unless =report.
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "error", value_enum, long_help = help::DEVICE_CHECK)]
    pub device_check: Option<crate::settings::options::DeviceCheckMode>,
    #[command(flatten)]
    pub project: ProjectArgs,
    /// Apply the changes in place (atomically).
    #[arg(long, conflicts_with_all = ["check", "out_dir"], long_help = help::WRITE)]
    pub write: bool,
    /// Show each change set (its diff and evidence) and ask whether to apply it; then
    /// verify the accepted sets again and write them in place (answers from stdin).
    #[arg(long, conflicts_with_all = ["check", "write", "statistics", "json", "format"], long_help = help::INTERACTIVE)]
    pub interactive: bool,
    /// With --write (or --interactive), also overwrite files that have uncommitted changes
    /// in their git work tree.
    #[arg(long, requires = "writing", long_help = help::ALLOW_DIRTY)]
    pub allow_dirty: bool,
    /// Print counts per rule and per refusal reason instead of the diff.
    #[arg(long, conflicts_with_all = ["json", "format"], long_help = help::STATISTICS)]
    pub statistics: bool,
    /// Write nothing: print the diff that would be applied (with --quiet, only the
    /// files that would change) and exit 1 when changes are pending.
    #[arg(long, conflicts_with = "out_dir", long_help = help::CHECK)]
    pub check: bool,
    /// Write migrated copies under DIR, mirroring paths from the edit root.
    #[arg(long, value_name = "DIR", long_help = help::OUT_DIR)]
    pub out_dir: Option<PathBuf>,
    /// Worker threads (default: one per core); the output is the same for any number.
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_jobs, long_help = help::JOBS)]
    pub jobs: Option<u32>,
    /// Only files under DIR are edited (default: the enclosing git work tree
    /// of the paths, else their deepest common directory).
    #[arg(long, value_name = "DIR", long_help = help::ROOT)]
    pub root: Option<PathBuf>,
    /// Explain every change and refusal (on stderr).
    #[arg(long, long_help = help::EXPLAIN)]
    pub explain: bool,
    /// Print a JSON report instead of the diff (as --format json).
    #[arg(long, conflicts_with = "format", long_help = help::JSON)]
    pub json: bool,
    /// What to print on stdout: diff (default), json (every file, change, refusal,
    /// evidence and configuration) or sarif (SARIF 2.1.0).
    #[arg(long, value_enum, long_help = help::FORMAT)]
    pub format: Option<Format>,
    /// Do not read or store the result cache (`.clasp_cache/` under the edit root).
    #[arg(long, long_help = help::NO_CACHE, conflicts_with_all = ["cache_dir", "remote_cache", "shard"])]
    pub no_cache: bool,
    /// Testing only: fail unless the result comes from the cache.
    #[arg(long, hide = true)]
    pub test_cache_only: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Verify only the K-th of N parts of the batch and keep the verdicts in
    /// the cache, printing no diff; a later run without --shard prints from them.
    #[arg(long, value_name = "K/N", value_parser = crate::settings::options::Shard::parse, long_help = help::SHARD,
          conflicts_with_all = ["write", "interactive", "out_dir", "no_verify"])]
    pub shard: Option<crate::settings::options::Shard>,
    /// The wall time per stage: on stderr, and in the JSON report (left out
    /// otherwise, so that two runs print the same JSON). As CLASP_TIMINGS=1.
    #[arg(long, long_help = help::TIMINGS)]
    pub timings: bool,
    /// Skip verification (recompiling as the target, kernel equivalence).
    #[arg(long, long_help = help::NO_VERIFY)]
    pub no_verify: bool,
    /// Do not merge helpers duplicated per address space (each still becomes generic on its own).
    #[arg(long, long_help = help::NO_MERGE)]
    pub no_merge: bool,
    /// A program's __constant data over BYTES moves to __global, largest variables first.
    #[arg(long, value_name = "BYTES", default_value_t = crate::settings::options::DEFAULT_CONSTANT_BUDGET, long_help = help::CONSTANT_BUDGET)]
    pub constant_budget: u64,
    /// Verification optimises no kernel over about N instructions once its
    /// changed helpers are inlined (estimated before it runs); a change set
    /// whose proof would need more is withdrawn as proof-too-large instead of
    /// running for minutes. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = crate::settings::options::DEFAULT_PROOF_LIMIT, long_help = help::PROOF_LIMIT)]
    pub proof_limit: u64,
    /// Build each unit in at most N more configurations, derived from the #if
    /// conditions of code every given configuration skips where a helper's
    /// pointer is used (`-DFAST` for `#ifdef FAST`); a change must hold in each. 0: none.
    #[arg(long, value_name = "N", default_value_t = crate::settings::options::DEFAULT_DISCOVERED_CONFIGURATIONS, long_help = help::DISCOVER)]
    pub discover_configurations: usize,
    /// Which program-scope variables move to __global: as-needed (over the budget) or prefer-global (all that can).
    #[arg(long, value_name = "POLICY", default_value = "as-needed", value_parser = crate::settings::options::GlobalsPolicy::parse, long_help = help::GLOBALS)]
    pub globals: crate::settings::options::GlobalsPolicy,
    /// No progress bar (it is only drawn when stderr is a terminal anyway); with
    /// --check, the names of the files that would change instead of their diff.
    #[arg(long, short = 'q', long_help = help::QUIET)]
    pub quiet: bool,
    /// Exit 0 even when changes are pending (with --check); errors still exit 2.
    #[arg(long, long_help = help::EXIT_ZERO)]
    pub exit_zero: bool,
    /// Keep changes whose kernels could not be proven equivalent, marked unverified.
    #[arg(long, conflicts_with = "no_verify", long_help = help::ALLOW_UNVERIFIED)]
    pub allow_unverified: bool,
    /// Only these rules change code (comma-separated or repeated; `clasp rule` lists them):
    /// generic-param, generic-local, generic-return, array-param-to-pointer, merge-duplicates.
    #[arg(long = "select", value_name = "CODES", value_delimiter = ',', long_help = help::SELECT)]
    pub select_rules: Vec<String>,
    /// These rules change nothing (as --select takes them); a `// clasp: keep` comment
    /// before a declaration or function keeps just that one.
    #[arg(long = "ignore", value_name = "CODES", value_delimiter = ',', long_help = help::IGNORE)]
    pub ignore_rules: Vec<String>,
    /// Testing only: ignore this pin (a reason code), to show verification catching the result.
    #[arg(long, hide = true, value_name = "CODE", value_parser = crate::codes::Code::parse)]
    pub test_ignore_pin: Vec<crate::codes::Code>,
    /// Files, or directories searched for *.cl (default: the current directory).
    #[arg(value_name = "PATH", long_help = help::PATHS)]
    pub paths: Vec<PathBuf>,
}

/// Which files a directory's walk takes.
#[derive(Args, Debug, Clone)]
pub struct DiscoverArgs {
    /// Also take files with this extension as units (cl, ocl and opencl are; clh files are usually headers).
    #[arg(long = "ext", value_name = "EXT", long_help = help::EXTENSIONS)]
    pub extensions: Vec<String>,
    /// Skip files matching this gitignore-style glob (relative to the walked directory).
    #[arg(long, value_name = "GLOB", long_help = help::EXCLUDE)]
    pub exclude: Vec<String>,
    /// Only take files matching this gitignore-style glob (relative to the walked directory;
    /// `!GLOB` takes matches out). It narrows the walk: ignored and hidden files stay out.
    // Not `--include`: that is the host option `-include FILE`.
    #[arg(long = "glob", value_name = "GLOB", long_help = help::GLOB)]
    pub select: Vec<String>,
    /// Follow symbolic links while walking directories.
    #[arg(long, long_help = help::FOLLOW_LINKS)]
    pub follow_links: bool,
    /// Leave host code alone: no C, C++ or Python file is read for build calls or embedded kernels.
    #[arg(long, long_help = help::NO_HOST)]
    pub no_host: bool,
}

impl DiscoverArgs {
    /// What discovery takes from a directory's walk, as these options ask.
    pub fn filters(&self) -> crate::input::discover::Filters {
        crate::input::discover::Filters {
            extensions: self.extensions.clone(),
            exclude: self.exclude.clone(),
            select: self.select.clone(),
            follow_links: self.follow_links,
            host: !self.no_host,
        }
    }
}

/// The report `migrate` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Diff,
    Json,
    Sarif,
}

#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR", long_help = help::INCLUDE_DIR)]
    pub include: Vec<PathBuf>,
    /// Define a macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]", long_help = help::DEFINE)]
    pub define: Vec<String>,
    /// Include FILE before the unit (host spelling: -include FILE).
    #[arg(long = "include", value_name = "FILE", long_help = help::PREINCLUDE)]
    pub preinclude: Vec<PathBuf>,
    /// The OpenCL C standard of the input: auto (per unit, CL1.2 if it
    /// compiles so, else the target's), or CL1.0 ... CL3.0.
    #[arg(long = "std", value_name = "STD", default_value = "auto", value_parser = InputStd::parse, long_help = help::STD)]
    pub std: InputStd,
    /// Include the full opencl-c.h instead of the lazily declared builtins (slower).
    #[arg(long, long_help = help::FULL_HEADER)]
    pub full_header: bool,
    /// Canonical form of host options and of the arguments after `--`: passed to clang.
    #[arg(long = "clang-arg", hide = true, value_name = "ARG", allow_hyphen_values = true)]
    pub clang_arg: Vec<String>,
}

impl CompileArgs {
    /// These options as clasp's command line spells them (run-check hands them to migrate).
    pub fn to_argv(&self) -> Vec<String> {
        let mut argv = Vec::new();
        argv.extend(self.include.iter().map(|dir| format!("-I{}", dir.display())));
        argv.extend(self.define.iter().map(|define| format!("-D{define}")));
        argv.extend(self.preinclude.iter().map(|file| format!("--include={}", file.display())));
        if let InputStd::Fixed(std) = self.std {
            argv.push(format!("--std={}", std.name()));
        }
        if self.full_header {
            argv.push("--full-header".into());
        }
        argv.extend(self.clang_arg.iter().map(|arg| format!("--clang-arg={arg}")));
        argv
    }

    /// The compile options given on the command line (before clasp.toml's).
    pub fn options(&self) -> CompileOptions {
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
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub discover: DiscoverArgs,
    #[command(flatten)]
    pub project: ProjectArgs,
    /// The target each unit is also compiled as, unchanged: cl2.0 (default, or
    /// clasp.toml's), cl3.0, cl3.0-nogeneric, or device[:NAME,...] (the devices').
    #[arg(long, value_parser = TargetSpec::parse, long_help = help::ANALYZE_TARGET)]
    pub target: Option<TargetSpec>,
    /// Print JSON instead of text (as --format json).
    #[arg(long, conflicts_with = "format", long_help = help::ANALYZE_JSON)]
    pub json: bool,
    /// What to print on stdout: text (default; `diff` is accepted for it, as
    /// `migrate` takes it) or json.
    #[arg(long, value_enum, long_help = help::ANALYZE_FORMAT)]
    pub format: Option<AnalyzeFormat>,
    /// No count of the files analysed on stderr (errors are still printed).
    #[arg(long, short = 'q', long_help = help::ANALYZE_QUIET)]
    pub quiet: bool,
    /// Files, or directories searched for *.cl (default: the current directory).
    #[arg(value_name = "PATH", long_help = help::PATHS)]
    pub paths: Vec<PathBuf>,
}

impl AnalyzeArgs {
    /// Whether the report is JSON (`--json` or `--format json`).
    pub fn json(&self) -> bool {
        self.json || self.format == Some(AnalyzeFormat::Json)
    }
}

/// The report `analyze` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AnalyzeFormat {
    /// Per unit, as it goes.
    #[value(alias = "diff")]
    Text,
    Json,
}

/// `-j N`: at least one worker; `-j 0` is refused with what to do instead.
fn parse_jobs(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err("at least 1 worker thread is needed; leave -j out for one per core".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number of worker threads")),
    }
}
