//! `[[program]]` in `clasp.toml`: a program built from several sources,
//! concatenated in order as `clCreateProgramWithSource` does with several
//! strings. The program is one unit; its sources are not units of their own.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::{Config, ConfigError, Job, Located, OptionError, Value};
use crate::settings::options::CompileOptions;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProgramEntry {
    name: Value,
    /// Files, relative to the config's directory, in the order they are concatenated.
    sources: Spanned<Vec<Value>>,
    #[serde(default)]
    options: Vec<Value>,
    /// The configurations that build it (default: all).
    configurations: Option<Vec<Value>>,
}

/// A program's name and its source files, in order.
#[derive(Debug, Clone)]
pub struct ProgramSources {
    pub name: String,
    pub files: Vec<PathBuf>,
    /// Its text and scratch files, once the batch has prepared them.
    pub prepared: Option<std::sync::Arc<crate::input::source::Program>>,
}

/// Checks the programs of a config: names unique, sources listed and
/// present, configurations defined, options readable (the notes of those
/// it ignores).
pub(super) fn check(
    programs: &[ProgramEntry],
    configurations: &BTreeSet<&str>,
    dir: &Path,
    at: &Located,
) -> Result<Vec<String>, ConfigError> {
    let mut names = BTreeSet::new();
    let mut notes = Vec::new();
    for program in programs {
        let name = program.name.get_ref();
        if !names.insert(name.as_str()) {
            return Err(at.error(&program.name, format!("program `{name}` is defined twice")));
        }
        check_sources(program, dir, at)?;
        at.configurations_defined(program.configurations.as_ref(), configurations, &format!("program `{name}`"))?;
        notes.extend(super::options::check_options(&program.options, at)?);
    }
    Ok(notes)
}

/// A program's sources: some, each a file.
fn check_sources(program: &ProgramEntry, dir: &Path, at: &Located) -> Result<(), ConfigError> {
    let name = program.name.get_ref();
    if program.sources.get_ref().is_empty() {
        return Err(at.error(&program.sources, format!("program `{name}` has no sources")));
    }
    for source in program.sources.get_ref() {
        if !dir.join(source.get_ref()).is_file() {
            return Err(at.error(source, format!("source `{}` of program `{name}` is not a file", source.get_ref())));
        }
    }
    Ok(())
}

impl Config {
    /// The source files of every program (canonical): they are not units of their own.
    pub fn program_sources(&self) -> BTreeSet<PathBuf> {
        let sources = self.programs.iter().flat_map(|p| p.sources.get_ref());
        sources.map(|s| crate::settings::root::canonical(&self.dir.join(s.get_ref()))).collect()
    }

    /// A unit per program and configuration that builds it, with the
    /// options of the config, the configuration, the program, then the command line.
    pub fn program_jobs(&self, command_line: &CompileOptions) -> Result<Vec<Job>, OptionError> {
        let mut out = Vec::new();
        for program in &self.programs {
            let builds = |name: &str| program.configurations.as_ref().is_none_or(|c| c.iter().any(|n| n.get_ref() == name));
            for configuration in self.configurations_building(builds) {
                let compile = self.compile_options(configuration, program.options.iter(), command_line)?;
                let files: Vec<PathBuf> =
                    program.sources.get_ref().iter().map(|s| relative_to_cwd(&self.dir.join(s.get_ref()))).collect();
                let name = program.name.get_ref().clone();
                out.push(Job {
                    path: relative_to_cwd(&self.dir.join(format!("{name}.program"))),
                    configuration: configuration.map(|c| c.name.get_ref().clone()),
                    compile,
                    embedded: None,
                    program: Some(ProgramSources { name, files, prepared: None }),
                });
            }
        }
        Ok(out)
    }
}

/// `path` relative to the current directory when it is under it (reports
/// name files as the user would), else as it is.
fn relative_to_cwd(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().ok();
    match cwd.as_deref().and_then(|cwd| path.strip_prefix(cwd).ok()) {
        Some(relative) => relative.to_path_buf(),
        None => path.to_path_buf(),
    }
}
