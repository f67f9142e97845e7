//! The project the command line names: the files discovered under the
//! paths, the `clasp.toml` that applies (`--config`, `--no-config` or the
//! nearest), the units to load (a file per configuration, with its options,
//! or `--compile-commands`), the target and, for `migrate`, the edit root.
//! Every failure is one `Problem`, worded as the user sees it when shown.

use std::path::{Path, PathBuf};

use crate::cli::args::{AnalyzeArgs, CompileArgs, DiscoverArgs, MigrateArgs, ProjectArgs};
use crate::input::config::{Config, ConfigError, Job, Listed, OptionError};
use crate::input::discover::discover;
use crate::settings::options::{CompileOptions, Target};

/// What a command's arguments say about where its units come from.
pub struct Inputs<'a> {
    pub paths: &'a [PathBuf],
    pub discover: &'a DiscoverArgs,
    pub project: &'a ProjectArgs,
    pub compile: &'a CompileArgs,
    pub target: Option<Target>,
}

impl<'a> From<&'a AnalyzeArgs> for Inputs<'a> {
    fn from(args: &'a AnalyzeArgs) -> Inputs<'a> {
        Inputs {
            paths: &args.paths,
            discover: &args.discover,
            project: &args.project,
            compile: &args.compile,
            // `--target device` is resolved by the command, which sets the target it chose.
            target: args.target.as_ref().and_then(crate::devices::TargetSpec::fixed),
        }
    }
}

impl<'a> From<&'a MigrateArgs> for Inputs<'a> {
    fn from(args: &'a MigrateArgs) -> Inputs<'a> {
        Inputs {
            paths: &args.paths,
            discover: &args.discover,
            project: &args.project,
            compile: &args.compile,
            // `--target device` is resolved by the command, which sets the target it chose.
            target: args.target.as_ref().and_then(crate::devices::TargetSpec::fixed),
        }
    }
}

/// A resolved project: what a command works on.
#[derive(Debug)]
pub struct Project {
    /// The paths named on the command line (none with `--compile-commands`).
    paths: Vec<PathBuf>,
    /// Paths that discovery could not read, with why.
    pub unreadable: Vec<(PathBuf, String)>,
    /// The units to load.
    pub jobs: Vec<Job>,
    /// Host files (C, C++, Python) to read for build calls and embedded kernels.
    pub host_files: Vec<PathBuf>,
    /// Whether host code is read at all (not `--no-host`, not `host = false`).
    pub host: bool,
    /// The compile options given on the command line.
    pub compile: CompileOptions,
    /// `--target`, else clasp.toml's, else cl2.0.
    pub target: Target,
    /// `--timeout`, else clasp.toml's, else the supervisor's default (seconds).
    pub timeout: u64,
    /// clasp.toml's `root`, the edit root when `--root` is not given.
    config_root: Option<PathBuf>,
    /// clasp.toml's `select` and `ignore` rule codes, and the file, for messages.
    pub config_rules: Option<(PathBuf, Vec<String>, Vec<String>)>,
    /// The rules clasp.toml's `[[file]]` entries leave out of the files they match.
    pub file_rules: Vec<crate::settings::options::FileRules>,
    /// clasp.toml's notes and warnings (a vendor option it ignores, a `[[file]]`
    /// matching no file of the batch), and a `--compile-commands` list's notes: lines for stderr.
    pub config_warnings: Vec<String>,
}

/// Why a project could not be resolved.
#[derive(Debug)]
pub struct Error {
    /// Paths that discovery could not read before the failure (`analyze` reports them first).
    pub unreadable: Vec<(PathBuf, String)>,
    /// The failure.
    pub problem: Problem,
}

/// What stopped a project's resolution; its text is the line printed.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// `--compile-commands` with paths beside it.
    #[error(
        "clasp: error: --compile-commands {} lists the units: give no PATH beside it (`{}` was given); \
list every file in it, or name the files without it",
        list.display(),
        path.display()
    )]
    PathsBesideList { list: PathBuf, path: PathBuf },
    /// The `clasp.toml` or the `--compile-commands` list cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An option of the `clasp.toml` at `config` cannot be used.
    #[error("{}: error: {source}", config.display())]
    ConfigOption { config: PathBuf, source: OptionError },
    /// No edit root.
    #[error(transparent)]
    Root(#[from] crate::settings::root::RootError),
}

impl Project {
    /// Discovers the files, loads the clasp.toml that applies and builds the units and the target.
    pub fn resolve(inputs: Inputs<'_>) -> Result<Project, Error> {
        if let (Some(list), Some(path)) = (&inputs.project.compile_commands, inputs.paths.first()) {
            let problem = Problem::PathsBesideList { list: list.clone(), path: path.clone() };
            return Err(Error { unreadable: Vec::new(), problem });
        }
        let mut found = discover(inputs.paths, &inputs.discover.filters());
        let fail = |problem: Problem| Error { unreadable: found.errors.clone(), problem };
        let config = project_config(inputs.project, inputs.paths).map_err(|e| fail(e.into()))?;
        let host = !inputs.discover.no_host && config.as_ref().is_none_or(|c| c.host);
        // Every file the walk found (units, host files and headers among them) may be a [[file]]'s.
        let walked: Vec<PathBuf> = found.files.iter().chain(&found.host_files).cloned().collect();
        // Its notes (a vendor option it ignores), then its [[file]]s that match nothing.
        let mut config_warnings = config.as_ref().map_or_else(Vec::new, |c| c.notes.clone());
        config_warnings.extend(config.as_ref().map_or_else(Vec::new, |c| c.unmatched_file_entries(inputs.paths, &walked)));
        let mut host_files = host_files(&mut found, config.as_ref(), inputs.paths);
        let fail = |problem: Problem| Error { unreadable: found.errors.clone(), problem };
        let compile = inputs.compile.options();
        let listed = jobs(inputs.project, inputs.paths, compile.clone(), config.as_ref(), &found.files).map_err(fail)?;
        if host {
            host_files.extend(listed.hosts);
        }
        config_warnings.extend(listed.notes);
        let jobs = listed.jobs;
        let target = inputs.target.or(config.as_ref().and_then(|c| c.target)).unwrap_or(Target::Cl20);
        let timeout = (inputs.project.timeout.or(config.as_ref().and_then(|c| c.timeout)))
            .unwrap_or(crate::isolation::supervisor::DEFAULT_TIMEOUT_SECONDS);
        Ok(Project {
            paths: inputs.paths.to_vec(),
            unreadable: found.errors,
            jobs,
            host_files,
            host,
            compile,
            target,
            timeout,
            config_rules: config.as_ref().map(|c| (c.path.clone(), c.select.clone(), c.ignore.clone())),
            file_rules: config.as_ref().map(Config::file_rules).unwrap_or_default(),
            config_warnings,
            config_root: config.and_then(|c| c.root),
        })
    }

    /// The paths it was resolved from (the file standard input stands for, for `-`).
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The edit root (canonical): `explicit` (`--root`), else clasp.toml's,
    /// else the one the paths imply (see `crate::settings::root`).
    pub fn edit_root(&self, explicit: Option<&Path>) -> Result<PathBuf, Error> {
        let root_option = explicit.map(Path::to_path_buf).or_else(|| self.config_root.clone());
        // With --compile-commands, the files it lists (units and host files) stand for the paths.
        let listed = || self.jobs.iter().map(|j| j.path.clone()).chain(self.host_files.iter().cloned()).collect();
        let paths: Vec<PathBuf> = if self.paths.is_empty() { listed() } else { self.paths.clone() };
        crate::settings::root::edit_root(&paths, root_option.as_deref())
            .map_err(|e| Error { unreadable: self.unreadable.clone(), problem: e.into() })
    }
}

/// The `clasp.toml` that applies: `--config`, else the nearest one above the first path.
fn project_config(args: &ProjectArgs, paths: &[PathBuf]) -> Result<Option<Config>, ConfigError> {
    if args.no_config || args.compile_commands.is_some() {
        return Ok(None);
    }
    let path = match &args.config {
        Some(path) => Some(path.clone()),
        None => paths.first().and_then(|p| crate::input::config::find(p)),
    };
    path.map(|p| Config::load(&p)).transpose()
}

/// The host files to read: none when clasp.toml says `host = false` (a
/// host file named on the command line is then a unit, as with `--no-host`),
/// and none that clasp.toml excludes unless named on the command line.
fn host_files(found: &mut crate::input::discover::Discovered, config: Option<&Config>, paths: &[PathBuf]) -> Vec<PathBuf> {
    let host = std::mem::take(&mut found.host_files);
    match config {
        Some(config) if !config.host => {
            found.files.extend(host.into_iter().filter(|f| paths.contains(f)));
            found.files.sort();
            Vec::new()
        }
        Some(config) => {
            let parts = config.program_sources();
            let part = |f: &PathBuf| parts.contains(&crate::settings::root::canonical(f));
            host.into_iter().filter(|f| !part(f) && (paths.contains(f) || !config.excludes(f))).collect()
        }
        None => host,
    }
}

/// The units to load: every file found (but those the config excludes,
/// unless named on the command line), once per configuration; or those
/// `--compile-commands` lists, with the host files it lists (and its notes).
fn jobs(
    args: &ProjectArgs,
    paths: &[PathBuf],
    compile: CompileOptions,
    config: Option<&Config>,
    files: &[PathBuf],
) -> Result<Listed, Problem> {
    if let Some(list) = &args.compile_commands {
        return Ok(crate::input::config::compile_commands(list, &compile)?);
    }
    project_jobs(paths, compile, config, files).map(|jobs| Listed { jobs, hosts: Vec::new(), notes: Vec::new() })
}

fn project_jobs(
    paths: &[PathBuf],
    compile: CompileOptions,
    config: Option<&Config>,
    files: &[PathBuf],
) -> Result<Vec<Job>, Problem> {
    match config {
        None => Ok(files
            .iter()
            .map(|f| Job { path: f.clone(), configuration: None, compile: compile.clone(), embedded: None, program: None })
            .collect()),
        Some(config) => {
            // A file that is only part of a `[[program]]` is not a unit of its own.
            let parts = config.program_sources();
            let part = |f: &PathBuf| parts.contains(&crate::settings::root::canonical(f));
            let kept: Vec<PathBuf> =
                files.iter().filter(|f| !part(f) && (paths.contains(f) || !config.excludes(f))).cloned().collect();
            // An option's error is named after the file that holds it.
            let in_config = |source| Problem::ConfigOption { config: config.path.clone(), source };
            let mut jobs = config.jobs(&kept, &compile).map_err(in_config)?;
            jobs.extend(config.program_jobs(&compile).map_err(in_config)?);
            Ok(jobs)
        }
    }
}
