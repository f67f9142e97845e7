//! `clasp.toml`: a project's settings and the configurations its host builds.
//!
//! Found in the directory of the first path or above it (or given with
//! `--config`); paths in it are relative to its directory. It sets what the
//! command line would (edit root, include directories, build options, input
//! standard, target, excluded globs) and lists *configurations*: the sets of
//! build options a host compiles each kernel file with (`-DREAL=float`,
//! `-DREAL=double`). Each file is loaded once per configuration that applies
//! to it, as its own unit: a change stands only if it is valid and verified
//! in every one. `[[file]]` entries add options (and may restrict the
//! configurations) for the files their glob matches, as hosts do per kernel,
//! and may leave rules out of them (`select`, `ignore`: `Config::file_rules`).
//!
//! ```toml
//! root = "."
//! include = ["include"]
//! options = ["-DTILE=16", "-cl-mad-enable"]
//! exclude = ["third_party/**"]
//!
//! [[configuration]]
//! name = "fp32"
//! options = ["-DREAL=float"]
//!
//! [[configuration]]
//! name = "fp64"
//! options = ["-DREAL=double"]
//!
//! [[file]]
//! path = "kernels/m*.cl"
//! options = ["-DKERN_TYPE=1"]
//! configurations = ["fp32"]
//! ignore = ["generic-local"]
//! ```
//!
//! Command-line options come last, so they win (`-D` given twice: the last).
//!
//! Its globs (`exclude`, `[[file]] path`) are read as `--exclude`'s are
//! (`crate::support::glob`: gitignore-style), based at its directory; a
//! `[[file]]` whose `path` matches no file of a batch that covers its
//! directory is a warning (`files`).

mod compile_commands;
pub mod condition;
mod files;
mod options;
mod program;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use compile_commands::{compile_commands, Listed};
pub use options::apply_option;
pub(crate) use options::apply_words;
pub use program::ProgramSources;

use serde::Deserialize;
use toml::Spanned;

use crate::settings::build_options::BuildOptionsError;
use crate::settings::options::{CompileOptions, InputStd, Target};
use crate::support::glob::Globs;

/// The file name looked for.
pub const FILE_NAME: &str = "clasp.toml";

/// A string checked after parsing, read with where it is written so that
/// its error is at its own line and column (`Located`).
type Value = Spanned<String>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    root: Option<PathBuf>,
    #[serde(default)]
    include: Vec<PathBuf>,
    #[serde(default)]
    options: Vec<Value>,
    std: Option<Value>,
    target: Option<Value>,
    #[serde(default)]
    exclude: Vec<Value>,
    /// Read host files (C, C++, Python) for build calls and embedded kernels (default: true).
    host: Option<bool>,
    /// The time limit in seconds on parsing a unit and on each compile of it.
    timeout: Option<Spanned<u64>>,
    /// Rules that may change code (`--select`), and rules that may not (`--ignore`).
    #[serde(default)]
    select: Vec<Value>,
    #[serde(default)]
    ignore: Vec<Value>,
    #[serde(default, rename = "configuration")]
    configurations: Vec<ConfigurationEntry>,
    #[serde(default, rename = "file")]
    files: Vec<FileEntry>,
    #[serde(default, rename = "program")]
    programs: Vec<program::ProgramEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigurationEntry {
    name: Value,
    #[serde(default)]
    options: Vec<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    path: Value,
    #[serde(default)]
    options: Vec<Value>,
    /// The configurations that apply to these files (default: all).
    configurations: Option<Vec<Value>>,
    /// Rules that may change these files (as `--select` takes them), and rules that may not.
    #[serde(default)]
    select: Vec<Value>,
    #[serde(default)]
    ignore: Vec<Value>,
}

/// A loaded `clasp.toml`.
#[derive(Debug)]
pub struct Config {
    /// The file itself, for messages.
    pub path: PathBuf,
    /// Its directory: what its relative paths are relative to.
    pub dir: PathBuf,
    pub root: Option<PathBuf>,
    pub std: Option<InputStd>,
    pub target: Option<Target>,
    /// Files never migrated (unless named on the command line): `exclude`'s globs, based at `dir`.
    excluded: Globs,
    /// Whether host files are read (`host = false` turns it off).
    pub host: bool,
    /// The time limit in seconds on parsing a unit and on each compile of it.
    pub timeout: Option<u64>,
    /// Rule codes as `--select` and `--ignore` take them (each checked at load).
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Notes for stderr, each at its place (`clasp.toml:3:13: note: ignoring build option ...`).
    pub notes: Vec<String>,
    include: Vec<PathBuf>,
    options: Vec<Value>,
    configurations: Vec<ConfigurationEntry>,
    files: Vec<files::FileGlob>,
    programs: Vec<program::ProgramEntry>,
}

/// One unit to load: a file, the configuration it is built in, and its options.
#[derive(Debug, Clone)]
pub struct Job {
    pub path: PathBuf,
    pub configuration: Option<String>,
    pub compile: CompileOptions,
    /// For a kernel embedded in a host file: its text and where clang reads it.
    pub embedded: Option<std::sync::Arc<crate::input::source::Embedded>>,
    /// For a `[[program]]`: its name and its sources, concatenated in order.
    pub program: Option<program::ProgramSources>,
}

impl Job {
    /// How reports name the unit (as `Unit::label` does once it is loaded).
    pub fn label(&self) -> String {
        let program = self.program.as_ref().map(|p| p.name.as_str());
        crate::input::source::label(&self.path, self.embedded.as_deref(), program, self.configuration.as_deref())
    }
}

/// Why a `clasp.toml` or a `--compile-commands` list cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{}:1:1: error: cannot read: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    /// Something at a line and column of the file (its syntax, a value, a name).
    #[error("{}:{line}:{col}: error: {message}", path.display())]
    At { path: PathBuf, line: usize, col: usize, message: String },
    /// An entry of a `--compile-commands` list (1-based) with options clasp cannot use.
    #[error("{}:1:1: error: entry {entry}: {source}", path.display())]
    Entry { path: PathBuf, entry: usize, source: OptionError },
    /// An entry of clang's form (1-based) with neither `arguments` nor `command`.
    #[error("{}:1:1: error: entry {entry}: it has neither `arguments` nor `command`", path.display())]
    NoCommand { path: PathBuf, entry: usize },
}

/// Why a host option (a `clasp.toml` or `--compile-commands` one) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    /// It does not read as host options do.
    #[error(transparent)]
    Words(#[from] BuildOptionsError),
    /// `-cl-std=` names no standard clasp reads: why.
    #[error("{0}")]
    Std(#[from] crate::settings::options::UnknownValue),
    /// An option clasp does not know (`shown`: the option's words).
    #[error("`{shown}` is not a build option clasp knows (-D, -I, -include, -cl-*, -w, -Werror, -g)")]
    Unknown { shown: String },
}

/// The nearest `clasp.toml` in `start`'s directory or above.
pub fn find(start: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(start).ok()?;
    let first = if absolute.is_dir() { absolute.as_path() } else { absolute.parent()? };
    first.ancestors().map(|dir| dir.join(FILE_NAME)).find(|candidate| candidate.is_file())
}

/// A clasp.toml's path and text, to place messages at the values they are about.
struct Located<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Located<'_> {
    /// An error at `value`.
    fn error<T>(&self, value: &Spanned<T>, message: impl Into<String>) -> ConfigError {
        let (line, col) = self.line_col(value);
        ConfigError::At { path: self.path.to_path_buf(), line, col, message: message.into() }
    }

    /// Checks that every configuration `owner` names (`` `*.cl` ``, ``program
    /// `p` ``) is `defined`: the error is at the first name that is not.
    fn configurations_defined(
        &self,
        named: Option<&Vec<Value>>,
        defined: &BTreeSet<&str>,
        owner: &str,
    ) -> Result<(), ConfigError> {
        match named.into_iter().flatten().find(|name| !defined.contains(name.get_ref().as_str())) {
            Some(name) => {
                Err(self.error(name, format!("{owner} names configuration `{}`, which is not defined", name.get_ref())))
            }
            None => Ok(()),
        }
    }

    /// A note at `value`, as stderr shows it.
    fn note<T>(&self, value: &Spanned<T>, message: &str) -> String {
        let (line, col) = self.line_col(value);
        format!("{}:{line}:{col}: note: {message}", self.path.display())
    }

    /// The 1-based line and byte column where `value` is written: for a
    /// string, its first character (inside its quotes, past a multi-line
    /// string's first line break, which is not part of it).
    fn line_col<T>(&self, value: &Spanned<T>) -> (usize, usize) {
        let start = value.span().start;
        let rest = self.text.get(start..).unwrap_or("");
        let opening = ["\"\"\"", "'''", "\"", "'"].into_iter().find(|quotes| rest.starts_with(quotes)).map_or(0, str::len);
        let after = &rest[opening..];
        let line_break = match opening == 3 {
            true if after.starts_with("\r\n") => 2,
            true if after.starts_with('\n') => 1,
            _ => 0,
        };
        line_col(self.text, start + opening + line_break)
    }
}

impl Config {
    /// Reads and checks a `clasp.toml`; errors name the file, line and column.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        let file = parse(path, &text)?;
        let at = Located { path, text: &text };
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        // Globs are based at the canonical folder: files are matched canonical, whatever links led to them.
        let glob_base = crate::settings::root::canonical(&dir);
        let excluded = excluded(&file.exclude, &glob_base, &at)?;
        let (std, target) = settings(&file, &at)?;
        batch_rules(&file, &at)?;
        let names = configuration_names(&file.configurations, &at)?;
        let files = files::file_entries(file.files, &names, &glob_base, &at)?;
        let arrays = std::iter::once(&file.options)
            .chain(file.configurations.iter().map(|c| &c.options))
            .chain(files.iter().map(|glob| &glob.entry.options));
        let mut notes = Vec::new();
        for options in arrays {
            notes.extend(options::check_options(options, &at)?);
        }
        notes.extend(program::check(&file.programs, &names, &dir, &at)?);
        Ok(Config {
            path: path.to_path_buf(),
            root: file.root.map(|r| dir.join(r)),
            include: file.include.iter().map(|i| dir.join(i)).collect(),
            dir,
            std,
            target,
            excluded,
            host: file.host.unwrap_or(true),
            timeout: file.timeout.map(Spanned::into_inner),
            select: file.select.into_iter().map(Spanned::into_inner).collect(),
            ignore: file.ignore.into_iter().map(Spanned::into_inner).collect(),
            notes,
            options: file.options,
            configurations: file.configurations,
            files,
            programs: file.programs,
        })
    }

    /// Whether `file` matches the `exclude` globs.
    pub fn excludes(&self, file: &Path) -> bool {
        self.excluded.matches(&crate::settings::root::canonical(file), false)
    }

    /// The units to load for `files`: each file once per configuration that
    /// applies to it (once if there are none), with the options of the
    /// config, the configuration, the file's entries, then the command line.
    pub fn jobs(&self, files: &[PathBuf], command_line: &CompileOptions) -> Result<Vec<Job>, OptionError> {
        let mut out = Vec::new();
        for file in files {
            let canonical = crate::settings::root::canonical(file);
            let entries: Vec<&FileEntry> =
                self.files.iter().filter(|f| f.glob.matches(&canonical, false)).map(|f| &f.entry).collect();
            let applies = |name: &str| {
                entries.iter().all(|e| e.configurations.as_ref().is_none_or(|c| c.iter().any(|n| n.get_ref() == name)))
            };
            for configuration in self.configurations_building(applies) {
                let own = entries.iter().flat_map(|e| e.options.iter());
                let compile = self.compile_options(configuration, own, command_line)?;
                out.push(Job {
                    path: file.clone(),
                    configuration: configuration.map(|c| c.name.get_ref().clone()),
                    compile,
                    embedded: None,
                    program: None,
                });
            }
        }
        Ok(out)
    }
}

/// The file's keys and values, or the error at the place toml gives.
fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let (line, col) = e.span().map_or((1, 1), |span| line_col(text, span.start));
        // toml's messages may run over several lines (`invalid array\nexpected `]``): one located line.
        let message = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(": ");
        ConfigError::At { path: path.to_path_buf(), line, col, message }
    })
}

/// `std` and `target`, read as `--std` and `--target` read them; `timeout`, at least a second.
fn settings(file: &ConfigFile, at: &Located) -> Result<(Option<InputStd>, Option<Target>), ConfigError> {
    let std = file.std.as_ref().map(|s| InputStd::parse(s.get_ref()).map_err(|e| at.error(s, e.to_string())));
    let std = std.transpose()?;
    let target = file.target.as_ref().map(|t| Target::parse(t.get_ref()).map_err(|e| at.error(t, e.to_string())));
    let target = target.transpose()?;
    if let Some(zero) = file.timeout.as_ref().filter(|t| *t.get_ref() == 0) {
        return Err(at.error(zero, "the time limit must be at least 1 second"));
    }
    Ok((std, target))
}

/// `exclude`'s globs, each read alone first so that an error is at the one that is wrong.
fn excluded(patterns: &[Value], base: &Path, at: &Located) -> Result<Globs, ConfigError> {
    let globs = |patterns: &[Value]| Globs::new(base, patterns.iter().map(|p| p.get_ref().as_str()));
    for (i, pattern) in patterns.iter().enumerate() {
        globs(&patterns[i..=i]).map_err(|e| at.error(pattern, format!("`exclude`: {e}")))?;
    }
    let message = |e| format!("`exclude`: {e}");
    globs(patterns).map_err(|e| ConfigError::At { path: at.path.to_path_buf(), line: 1, col: 1, message: message(e) })
}

/// Checks `select` and `ignore` (as `--select` and `--ignore` take them), each code at its place.
fn batch_rules(file: &ConfigFile, at: &Located) -> Result<(), ConfigError> {
    for (key, codes) in [("select", &file.select), ("ignore", &file.ignore)] {
        for code in codes {
            let checked = crate::codes::Code::parse_selectable(code.get_ref());
            checked.map_err(|message| at.error(code, format!("`{key}`: {message}")))?;
        }
    }
    Ok(())
}

/// The configurations' names, each defined once.
fn configuration_names<'c>(configurations: &'c [ConfigurationEntry], at: &Located) -> Result<BTreeSet<&'c str>, ConfigError> {
    let mut names = BTreeSet::new();
    for c in configurations {
        if !names.insert(c.name.get_ref().as_str()) {
            return Err(at.error(&c.name, format!("configuration `{}` is defined twice", c.name.get_ref())));
        }
    }
    Ok(names)
}

impl Config {
    /// The configurations `builds` accepts, in the file's order (one `None` when there are none).
    fn configurations_building(&self, builds: impl Fn(&str) -> bool) -> Vec<Option<&ConfigurationEntry>> {
        if self.configurations.is_empty() {
            return vec![None];
        }
        self.configurations.iter().filter(|c| builds(c.name.get_ref())).map(Some).collect()
    }

    /// A job's options: the config's include directories and options, the
    /// configuration's, the job's `own` (a file's entries, a program's), then the command line.
    fn compile_options<'o>(
        &'o self,
        configuration: Option<&'o ConfigurationEntry>,
        own: impl Iterator<Item = &'o Value>,
        command_line: &CompileOptions,
    ) -> Result<CompileOptions, OptionError> {
        let mut compile = CompileOptions { std: self.std.unwrap_or(command_line.std), ..CompileOptions::default() };
        compile.include_dirs.extend(self.include.iter().cloned());
        options::apply_options(&mut compile, &self.options, &self.dir)?;
        if let Some(configuration) = configuration {
            options::apply_options(&mut compile, &configuration.options, &self.dir)?;
        }
        options::apply_options(&mut compile, own, &self.dir)?;
        append_command_line(&mut compile, command_line);
        Ok(compile)
    }
}

/// The command line's options after a job's own, so they win (a forced `--std` too).
pub(crate) fn append_command_line(compile: &mut CompileOptions, command_line: &CompileOptions) {
    if command_line.std != InputStd::Auto {
        compile.std = command_line.std;
    }
    compile.include_dirs.extend(command_line.include_dirs.iter().cloned());
    compile.defines.extend(command_line.defines.iter().cloned());
    compile.includes.extend(command_line.includes.iter().cloned());
    compile.clang_extra.extend(command_line.clang_extra.iter().cloned());
    compile.full_header |= command_line.full_header;
}

/// 1-based line and column of a byte offset; columns count bytes, as
/// clang's do (a `é` before a value moves it two columns on).
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (before.iter().filter(|&&b| b == b'\n').count() + 1, before.len() - line_start + 1)
}

#[cfg(test)]
mod tests;
