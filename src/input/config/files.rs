//! clasp.toml's `[[file]]` entries: their globs (read by
//! `crate::support::glob`, based at the clasp.toml's folder, as its
//! `exclude` is), the rules they leave out, and the warning for an entry
//! whose `path` matches no file of the batch (a typo would otherwise
//! silently turn the entry off).

use std::path::{Path, PathBuf};

use super::{Config, ConfigError, FileEntry, Located};
use crate::codes::{Code, Scope};
use crate::support::glob::Globs;

/// A `[[file]]` entry with its glob and where its `path` is written.
#[derive(Debug)]
pub(super) struct FileGlob {
    pub glob: Globs,
    /// 1-based line and column of the `path` value in clasp.toml.
    pub at: (usize, usize),
    pub entry: FileEntry,
}

/// The `[[file]]` entries with their globs, each naming defined configurations only.
pub(super) fn file_entries(
    entries: Vec<FileEntry>,
    names: &std::collections::BTreeSet<&str>,
    dir: &Path,
    at: &Located,
) -> Result<Vec<FileGlob>, ConfigError> {
    let mut files = Vec::new();
    for entry in entries {
        check_entry(&entry, names, at)?;
        let glob = Globs::new(dir, [entry.path.get_ref().as_str()]).map_err(|e| at.error(&entry.path, e.to_string()))?;
        files.push(FileGlob { glob, at: at.line_col(&entry.path), entry });
    }
    Ok(files)
}

/// Checks an entry's configurations (defined) and rules (per-file ones), each at its place.
fn check_entry(entry: &FileEntry, names: &std::collections::BTreeSet<&str>, at: &Located) -> Result<(), ConfigError> {
    let path = entry.path.get_ref();
    at.configurations_defined(entry.configurations.as_ref(), names, &format!("`{path}`"))?;
    for code in entry.select.iter().chain(&entry.ignore) {
        file_rule(code.get_ref()).map_err(|message| at.error(code, format!("[[file]] `{path}`: {message}")))?;
    }
    Ok(())
}

/// The rule a `[[file]]`'s `select` or `ignore` names: one that changes
/// declarations (`merge-duplicates` joins helpers across files: the batch's).
pub(super) fn file_rule(text: &str) -> Result<Code, String> {
    let code = Code::parse(text.trim()).map_err(|e| format!("{e}; `clasp rule` lists every code"))?;
    let rules = || Code::selectable().filter(|c| c.scope() == Some(Scope::Declaration));
    if rules().any(|c| c == code) {
        return Ok(code);
    }
    let names = rules().map(Code::as_str).collect::<Vec<_>>().join(", ");
    let batch = match code.scope() {
        Some(Scope::Batch) => {
            format!(" (`{code}` works across files: select or ignore it for the batch, at the top of clasp.toml)")
        }
        _ => String::new(),
    };
    Err(format!("`{code}` cannot be selected or ignored per file; these rules can: {names}{batch}"))
}

impl Config {
    /// The rules each `[[file]]` entry leaves out of the files it matches
    /// (its `select`: every other rule of a declaration; its `ignore`), each with why.
    pub fn file_rules(&self) -> Vec<crate::settings::options::FileRules> {
        let shown =
            |key: &str, entry: &FileEntry| format!("`{key}` of [[file]] `{}` in {}", entry.path.get_ref(), self.path.display());
        let mut out = Vec::new();
        for FileGlob { glob, entry, .. } in &self.files {
            let mut left_out = std::collections::BTreeMap::new();
            let selected: Vec<Code> = entry.select.iter().filter_map(|c| file_rule(c.get_ref()).ok()).collect();
            if !selected.is_empty() {
                let list = selected.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(",");
                let rules = Code::selectable().filter(|c| c.scope() == Some(Scope::Declaration));
                for rule in rules.filter(|r| !selected.contains(r)) {
                    left_out.insert(rule, format!("{rule} is not selected ({}: {list})", shown("select", entry)));
                }
            }
            for rule in entry.ignore.iter().filter_map(|c| file_rule(c.get_ref()).ok()) {
                left_out.insert(rule, format!("{rule} is ignored ({})", shown("ignore", entry)));
            }
            if !left_out.is_empty() {
                out.push(crate::settings::options::FileRules { glob: glob.clone(), left_out });
            }
        }
        out
    }

    /// The warnings for `[[file]]` entries whose `path` matches none of
    /// `files`; only when one of the walked `paths` is the clasp.toml's
    /// folder or above it (migrating one file is no reason to warn).
    pub fn unmatched_file_entries(&self, paths: &[PathBuf], files: &[PathBuf]) -> Vec<String> {
        let dir = crate::settings::root::canonical(&self.dir);
        let covers = paths.iter().any(|p| p.is_dir() && dir.starts_with(crate::settings::root::canonical(p)));
        if !covers {
            return Vec::new();
        }
        let files: Vec<PathBuf> = files.iter().map(|f| crate::settings::root::canonical(f)).collect();
        self.files
            .iter()
            .filter(|f| !files.iter().any(|file| f.glob.matches(file, false)))
            .map(|f| {
                let (line, col) = f.at;
                let path = self.path.display();
                format!("{path}:{line}:{col}: warning: [[file]] `{}` matches no file of the batch", f.entry.path.get_ref())
            })
            .collect()
    }
}
