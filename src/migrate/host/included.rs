//! Programs a host gathers from `#include`d files (see `crate::host`'s
//! `includes`): an array or a concatenation of wrapped files passed to a
//! program creation is one program, its files' contents concatenated in
//! order. It is the `[[program]]` of `clasp.toml` with those sources, in
//! that order, when one is declared; otherwise clasp infers it from the
//! host: a program unit named after the creation (`host.c:12`), built with
//! the options of the host's build call, and reported as inferred. Either
//! way its files are neither kernel units nor host files of their own; nor
//! is any file a host `#include`s where a string is expected, even one in
//! no program clasp traced.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::input::config::{Job, ProgramSources};
use crate::migrate::report::{IncludedProgramReport, Migration};
use crate::rules::host_build_options::HostInput;
use crate::settings::options::MigrateOptions;
use crate::settings::root::canonical;

/// The programs the hosts gather by `#include`: the jobs of those no
/// `[[program]]` declares, and every file they are made of (canonical).
pub(super) fn find(
    hosts: &[HostInput],
    jobs: &[Job],
    options: &MigrateOptions,
    result: &mut Migration,
) -> (Vec<Job>, BTreeSet<PathBuf>) {
    let declared: Vec<(&str, Vec<PathBuf>)> = (jobs.iter())
        .filter_map(|j| j.program.as_ref())
        .map(|p| (p.name.as_str(), p.files.iter().map(|f| canonical(f)).collect()))
        .collect();
    let (mut inferred, mut parts) = (Vec::new(), BTreeSet::new());
    let mut operands: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    for host in hosts {
        let dir = host.path.parent().unwrap_or(Path::new(""));
        // A file `#include`d where a string is expected is a source, never a
        // kernel unit of its own, whatever the host does with it afterwards.
        operands
            .extend(host.facts.included.iter().map(|name| dir.join(name)).filter(|f| f.is_file()).map(|f| (canonical(&f), f)));
        for (c, creation) in host.facts.programs.iter().enumerate() {
            if creation.included.is_empty() || creation.untraced.is_some() || !creation.literals.is_empty() {
                continue;
            }
            let files: Vec<PathBuf> = creation.included.iter().map(|name| dir.join(name)).collect();
            if !files.iter().all(|f| f.is_file()) {
                continue;
            }
            let canonicals: Vec<PathBuf> = files.iter().map(|f| canonical(f)).collect();
            parts.extend(canonicals.iter().cloned());
            let name = format!("{}:{}", host.path.file_name().unwrap_or_default().to_string_lossy(), creation.at.line);
            let found = declared.iter().find(|(_, sources)| *sources == canonicals).map(|(n, _)| n.to_string());
            let report = IncludedProgramReport {
                file: host.path.clone(),
                line: creation.at.line,
                sources: files.clone(),
                program: found.clone().unwrap_or_else(|| name.clone()),
                inferred: found.is_none(),
            };
            result.host.programs.push(report);
            if found.is_none() {
                let compile = super::embedded::creation_options(host, c, &options.compile, result);
                let program = ProgramSources { name: name.clone(), files, prepared: None };
                let path = dir.join(format!("{name}.program"));
                inferred.push(Job { path, configuration: None, compile, embedded: None, program: Some(program) });
            }
        }
    }
    let declared: BTreeSet<&PathBuf> = declared.iter().flat_map(|(_, sources)| sources.iter()).collect();
    for (file, as_named) in operands {
        if !parts.contains(&file) && !declared.contains(&file) {
            let message = "a host `#include`s it where a program's source is expected, in no program clasp could trace: \
                           it is left as it is (a `[[program]]` in clasp.toml names its program)"
                .to_string();
            result.warnings.push(crate::rules::Warning::new(as_named, message));
        }
        parts.insert(file);
    }
    (inferred, parts)
}
