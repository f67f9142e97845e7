//! `[[program]]` in `clasp.toml`: a program built from several sources,
//! concatenated in order as `clCreateProgramWithSource` does with several
//! strings. The program is one unit; its sources are not units of their own.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Config, ConfigError, Job, OptionError};
use crate::settings::options::CompileOptions;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProgramEntry {
    name: String,
    /// Files, relative to the config's directory, in the order they are concatenated.
    sources: Vec<String>,
    #[serde(default)]
    options: Vec<String>,
    /// The configurations that build it (default: all).
    configurations: Option<Vec<String>>,
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
/// present, configurations defined, options readable.
pub(super) fn check(
    programs: &[ProgramEntry],
    configurations: &BTreeSet<&str>,
    dir: &Path,
    at: &dyn Fn(&str, String) -> ConfigError,
) -> Result<(), ConfigError> {
    let mut names = BTreeSet::new();
    for program in programs {
        if !names.insert(program.name.as_str()) {
            return Err(at(&program.name, format!("program `{}` is defined twice", program.name)));
        }
        if program.sources.is_empty() {
            return Err(at(&program.name, format!("program `{}` has no sources", program.name)));
        }
        for source in &program.sources {
            if !dir.join(source).is_file() {
                return Err(at(source, format!("source `{source}` of program `{}` is not a file", program.name)));
            }
        }
        for name in program.configurations.iter().flatten() {
            if !configurations.contains(name.as_str()) {
                return Err(at(name, format!("program `{}` names configuration `{name}`, which is not defined", program.name)));
            }
        }
        super::check_options(&program.options).map_err(|(option, e)| at(option, e.to_string()))?;
    }
    Ok(())
}

impl Config {
    /// The source files of every program (canonical): they are not units of their own.
    pub fn program_sources(&self) -> BTreeSet<PathBuf> {
        self.programs.iter().flat_map(|p| p.sources.iter().map(|s| crate::settings::root::canonical(&self.dir.join(s)))).collect()
    }

    /// A unit per program and configuration that builds it, with the
    /// options of the config, the configuration, the program, then the command line.
    pub fn program_jobs(&self, command_line: &CompileOptions) -> Result<Vec<Job>, OptionError> {
        let mut out = Vec::new();
        for program in &self.programs {
            let builds = |name: &str| program.configurations.as_ref().is_none_or(|c| c.iter().any(|n| n == name));
            for configuration in self.configurations_building(builds) {
                let compile = self.compile_options(configuration, program.options.iter(), command_line)?;
                let files: Vec<PathBuf> = program.sources.iter().map(|s| relative_to_cwd(&self.dir.join(s))).collect();
                out.push(Job {
                    path: relative_to_cwd(&self.dir.join(format!("{}.program", program.name))),
                    configuration: configuration.map(|c| c.name.clone()),
                    compile,
                    embedded: None,
                    program: Some(ProgramSources { name: program.name.clone(), files, prepared: None }),
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
