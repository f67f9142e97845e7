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
mod program;

use std::path::{Path, PathBuf};

pub use compile_commands::compile_commands;
pub use program::ProgramSources;

use serde::Deserialize;

use crate::settings::build_options::BuildOptionsError;
use crate::settings::options::{CompileOptions, InputStd, Target};
use crate::support::glob::Globs;

/// The file name looked for.
pub const FILE_NAME: &str = "clasp.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    root: Option<PathBuf>,
    #[serde(default)]
    include: Vec<PathBuf>,
    #[serde(default)]
    options: Vec<String>,
    std: Option<String>,
    target: Option<String>,
    #[serde(default)]
    exclude: Vec<String>,
    /// Read host files (C, C++, Python) for build calls and embedded kernels (default: true).
    host: Option<bool>,
    /// The time limit in seconds on parsing a unit and on each compile of it.
    timeout: Option<u64>,
    /// Rules that may change code (`--select`), and rules that may not (`--ignore`).
    #[serde(default)]
    select: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
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
    name: String,
    #[serde(default)]
    options: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    path: String,
    #[serde(default)]
    options: Vec<String>,
    /// The configurations that apply to these files (default: all).
    configurations: Option<Vec<String>>,
    /// Rules that may change these files (as `--select` takes them), and rules that may not.
    #[serde(default)]
    select: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
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
    /// Rule codes as `--select` and `--ignore` take them (checked by the command).
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    include: Vec<PathBuf>,
    options: Vec<String>,
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
    /// A `--compile-commands` entry's option string does not split as a shell would.
    #[error(transparent)]
    BuildString(#[from] BuildOptionsError),
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

impl Config {
    /// Reads and checks a `clasp.toml`; errors name the file, line and column.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        let file: ConfigFile = toml::from_str(&text).map_err(|e| {
            let (line, col) = e.span().map_or((1, 1), |span| line_col(&text, span.start));
            // toml's messages may run over several lines (`invalid array\nexpected `]``): one located line.
            let message = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(": ");
            ConfigError::At { path: path.to_path_buf(), line, col, message }
        })?;
        // Where a key is set (`std = ...` at the start of a line) or a string value written.
        let at = |what: &str, message: String| {
            let key = text.match_indices(what).find(|(i, _)| *i == 0 || text.as_bytes()[i - 1] == b'\n').map(|(i, _)| i);
            let offset = key.or_else(|| text.find(&format!("\"{what}\"")).map(|i| i + 1)).unwrap_or(0);
            let (line, col) = line_col(&text, offset);
            ConfigError::At { path: path.to_path_buf(), line, col, message }
        };
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        // Globs are based at the canonical folder: files are matched canonical, whatever links led to them.
        let glob_base = crate::settings::root::canonical(&dir);
        let excluded = Globs::new(&glob_base, file.exclude.iter().map(String::as_str))
            .map_err(|e| at(&e.pattern, format!("`exclude`: {e}")))?;
        let std = file.std.as_deref().map(|s| InputStd::parse(s).map_err(|e| at("std", e.to_string()))).transpose()?;
        let target = file.target.as_deref().map(|t| Target::parse(t).map_err(|e| at("target", e.to_string()))).transpose()?;
        if file.timeout == Some(0) {
            return Err(at("timeout", "the time limit must be at least 1 second".into()));
        }
        let mut names = std::collections::BTreeSet::new();
        for c in &file.configurations {
            if !names.insert(c.name.as_str()) {
                return Err(at(&c.name, format!("configuration `{}` is defined twice", c.name)));
            }
        }
        let files = files::file_entries(file.files, &names, &glob_base, &text, &at)?;
        let arrays = std::iter::once(&file.options)
            .chain(file.configurations.iter().map(|c| &c.options))
            .chain(files.iter().map(|glob| &glob.entry.options));
        for options in arrays {
            check_options(options).map_err(|(option, e)| at(option, e.to_string()))?;
        }
        program::check(&file.programs, &names, &dir, &at)?;
        Ok(Config {
            path: path.to_path_buf(),
            root: file.root.map(|r| dir.join(r)),
            include: file.include.iter().map(|i| dir.join(i)).collect(),
            dir,
            std,
            target,
            excluded,
            host: file.host.unwrap_or(true),
            timeout: file.timeout,
            select: file.select,
            ignore: file.ignore,
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
            let applies =
                |name: &str| entries.iter().all(|e| e.configurations.as_ref().is_none_or(|c| c.iter().any(|n| n == name)));
            for configuration in self.configurations_building(applies) {
                let own = entries.iter().flat_map(|e| e.options.iter());
                let compile = self.compile_options(configuration, own, command_line)?;
                out.push(Job {
                    path: file.clone(),
                    configuration: configuration.map(|c| c.name.clone()),
                    compile,
                    embedded: None,
                    program: None,
                });
            }
        }
        Ok(out)
    }
}

impl Config {
    /// The configurations `builds` accepts, in the file's order (one `None` when there are none).
    fn configurations_building(&self, builds: impl Fn(&str) -> bool) -> Vec<Option<&ConfigurationEntry>> {
        if self.configurations.is_empty() {
            return vec![None];
        }
        self.configurations.iter().filter(|c| builds(&c.name)).map(Some).collect()
    }

    /// A job's options: the config's include directories and options, the
    /// configuration's, the job's `own` (a file's entries, a program's), then the command line.
    fn compile_options<'o>(
        &'o self,
        configuration: Option<&'o ConfigurationEntry>,
        own: impl Iterator<Item = &'o String>,
        command_line: &CompileOptions,
    ) -> Result<CompileOptions, OptionError> {
        let mut compile = CompileOptions { std: self.std.unwrap_or(command_line.std), ..CompileOptions::default() };
        compile.include_dirs.extend(self.include.iter().cloned());
        apply_options(&mut compile, &self.options, &self.dir)?;
        if let Some(configuration) = configuration {
            apply_options(&mut compile, &configuration.options, &self.dir)?;
        }
        apply_options(&mut compile, own, &self.dir)?;
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

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// Checks one `options` array: its elements read as one command line, so an
/// option's value may be the next element (`["-I", "include"]`, as hosts
/// and build scripts list them), each element split as a shell would
/// (`"-D X=1"`). On an error, the element it is at.
pub(super) fn check_options(options: &[String]) -> Result<(), (&String, OptionError)> {
    let split = crate::settings::build_options::split_build_string;
    let mut words = Vec::new();
    for (i, option) in options.iter().enumerate() {
        words.extend(split(option).map_err(|e| (option, e.into()))?);
        let applied = |words: Vec<String>| apply_words(&mut CompileOptions::default(), words, Path::new("."));
        match applied(words.clone()) {
            Ok(()) => {}
            // An option that takes the next element as its value.
            Err(_) if i + 1 < options.len() && applied([&words[..], &["value".to_string()]].concat()).is_ok() => {}
            // Said of the element alone where it is wrong alone (`-fancy`, not every option before it).
            Err(e) => return Err((option, applied(split(option).unwrap_or_default()).err().unwrap_or(e))),
        }
    }
    Ok(())
}

/// Adds one `options` array (`check_options`) to `compile`.
fn apply_options<'o>(
    compile: &mut CompileOptions,
    options: impl IntoIterator<Item = &'o String>,
    dir: &Path,
) -> Result<(), OptionError> {
    let mut words = Vec::new();
    for option in options {
        words.extend(crate::settings::build_options::split_build_string(option)?);
    }
    apply_words(compile, words, dir)
}

/// Adds one host option string (`-DX`, `-I dir`, `-include f`, `-cl-std=CL1.2`,
/// `-cl-mad-enable`, `-w`, ...; split as a shell would) to `compile`.
pub fn apply_option(compile: &mut CompileOptions, option: &str, dir: &Path) -> Result<(), OptionError> {
    apply_words(compile, crate::settings::build_options::split_build_string(option)?, dir)
}

/// Adds host option words, read as `build_options` reads the command line;
/// relative paths are relative to `dir`.
pub(crate) fn apply_words(compile: &mut CompileOptions, words: Vec<String>, dir: &Path) -> Result<(), OptionError> {
    let shown = words.join(" ");
    let argv: Vec<String> = std::iter::once("clasp".to_string()).chain(words).collect();
    for word in crate::settings::build_options::canonicalize(&argv, &|_| false)?.args.into_iter().skip(1) {
        if let Some(define) = word.strip_prefix("-D") {
            compile.defines.push(define.to_string());
        } else if let Some(include) = word.strip_prefix("-I") {
            compile.include_dirs.push(dir.join(include));
        } else if let Some(file) = word.strip_prefix("--include=") {
            let in_dir = dir.join(file);
            compile.includes.push(if in_dir.exists() { in_dir } else { PathBuf::from(file) });
        } else if let Some(std) = word.strip_prefix("--std=") {
            compile.std = InputStd::parse(std).map_err(OptionError::Std)?;
        } else if let Some(arg) = word.strip_prefix("--clang-arg=") {
            compile.clang_extra.push(arg.to_string());
        } else {
            return Err(OptionError::Unknown { shown });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<Config, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, text).unwrap();
        Config::load(&path).map_err(|e| e.to_string())
    }

    #[test]
    fn errors_name_the_line() {
        let e = config("target = \"cl2.0\"\nstd = \"CL9\"\n").unwrap_err();
        assert!(e.contains("clasp.toml:2:1: error:") && e.contains("CL9"), "{e}");
        let e = config("[[configuration]]\nname = \"a\"\nopts = []\n").unwrap_err();
        assert!(e.contains("clasp.toml:3:1: error:") && e.contains("unknown field"), "{e}");
        let e = config("[[file]]\npath = \"*.cl\"\nconfigurations = [\"nope\"]\n").unwrap_err();
        assert!(e.contains("configuration `nope`"), "{e}");
        let e = config("options = [\"-fancy\"]\n").unwrap_err();
        assert!(e.contains("clasp.toml:1:") && e.contains("-fancy"), "{e}");
    }

    /// An `options` array reads as one command line: a value may be the next
    /// element, as hosts list them; an option left without one is an error there.
    #[test]
    fn an_options_array_is_one_command_line() {
        let options = |text: &str| {
            let c = config(text)?;
            let jobs = c.jobs(&[c.dir.join("k.cl")], &CompileOptions::default()).map_err(|e| e.to_string())?;
            let compile = &jobs[0].compile;
            let dirs: Vec<PathBuf> = compile.include_dirs.iter().map(|d| d.strip_prefix(&c.dir).unwrap().to_path_buf()).collect();
            Ok::<_, String>((dirs, compile.defines.clone(), compile.clang_extra.clone()))
        };
        let split = options("options = [\"-I\", \"inc\", \"-D\", \"X=1\", \"-cl-mad-enable\"]\n").unwrap();
        let joined = options("options = [\"-Iinc\", \"-D X=1\", \"-cl-mad-enable\"]\n").unwrap();
        assert_eq!(split, joined);
        assert!(split.0 == [Path::new("inc")] && split.1 == ["X=1"], "{split:?}");
        // Per file and per configuration too, each array on its own.
        let per_file = "[[configuration]]\nname = \"a\"\noptions = [\"-D\", \"A\"]\n\n[[file]]\npath = \"k.cl\"\noptions = [\"-I\", \"inc\"]\n";
        let (dirs, defines, _) = options(per_file).unwrap();
        assert!(dirs == [Path::new("inc")] && defines == ["A"], "{dirs:?} {defines:?}");
        let e = options("options = [\"-DX\",\n  \"-I\"]\n").unwrap_err();
        assert!(e.contains("clasp.toml:2:4: error:") && e.contains("`-I` needs a directory"), "{e}");
        let e = options("[[file]]\npath = \"k.cl\"\noptions = [\"-D\"]\n").unwrap_err();
        assert!(e.contains("clasp.toml:3:") && e.contains("-D"), "{e}");
        // Said of the element that is wrong, not of every option before it.
        let e = options("options = [\"-DX\", \"-fancy\"]\n").unwrap_err();
        assert!(e.contains("unknown option `-fancy`") && !e.contains("-DX"), "{e}");
    }

    #[test]
    fn jobs_follow_configurations_and_file_entries() {
        let c = config(
            "options = [\"-DTILE=16\"]\n\
             [[configuration]]\nname = \"fp32\"\noptions = [\"-DREAL=float\"]\n\
             [[configuration]]\nname = \"fp64\"\noptions = [\"-D REAL=double\", \"-cl-mad-enable\"]\n\
             [[file]]\npath = \"k/m*.cl\"\noptions = [\"-DKERN=1\"]\nconfigurations = [\"fp32\"]\n",
        )
        .unwrap();
        let files = [c.dir.join("k/a.cl"), c.dir.join("k/m1.cl")];
        let cli = CompileOptions { defines: vec!["TILE=8".into()], ..CompileOptions::default() };
        let jobs = c.jobs(&files, &cli).unwrap();
        let summary: Vec<(String, Option<String>, Vec<String>)> = jobs
            .iter()
            .map(|j| {
                (j.path.file_name().unwrap().to_string_lossy().into_owned(), j.configuration.clone(), j.compile.defines.clone())
            })
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            summary,
            vec![
                ("a.cl".into(), Some("fp32".into()), s(&["TILE=16", "REAL=float", "TILE=8"])),
                ("a.cl".into(), Some("fp64".into()), s(&["TILE=16", "REAL=double", "TILE=8"])),
                ("m1.cl".into(), Some("fp32".into()), s(&["TILE=16", "REAL=float", "KERN=1", "TILE=8"])),
            ]
        );
        assert_eq!(jobs[1].compile.clang_extra, ["-cl-mad-enable"]);
    }
}
