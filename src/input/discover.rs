//! `discover`: command-line paths -> the sorted lists of OpenCL source files
//! and host files (C, C++ and Python, which may embed kernels and build programs).
//!
//! A file named on the command line is taken whatever its extension and
//! whatever the ignore rules. A directory is walked with the `ignore` crate
//! (ripgrep's walker): `.gitignore`, `.ignore` and `.git/info/exclude` are
//! honoured (also outside a git repository), hidden files and directories
//! are skipped, symlinks are not followed, and `--exclude`/`--glob`
//! (relative to the walked directory, read by `crate::support::glob`, as
//! clasp.toml's globs are) narrow the walk.
//! Units are files ending in `.cl`, `.ocl` or `.opencl`, plus the extensions
//! given with `--ext` (`clh` files are usually headers, included by units,
//! so they are not units by default). Host files are files ending in `.c`,
//! `.cc`, `.cpp`, `.cxx`, `.h`, `.hh`, `.hpp`, `.hxx` or `.py`, found by the
//! same walk under the same rules, unless host files are turned off (a host
//! file named on the command line is then a unit, as any named file is). A
//! path that does not exist is an error for that path only. The order is
//! sorted, whatever the walk's.
//!
//! `--glob` only narrows: unlike ripgrep's `-g` (an `ignore` override
//! whitelist, which wins over `.gitignore` and the hidden rule), a file the
//! walk skips stays skipped, so `--glob '*.cl'` never brings back a
//! generated or hidden copy. It is therefore matched after the walk, not
//! given to the walker as an override.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use crate::support::glob::Globs;

/// Extensions of kernel units found in directories.
pub const DEFAULT_EXTENSIONS: [&str; 3] = ["cl", "ocl", "opencl"];

/// Extensions of host files: C, C++ (sources and headers) and Python.
pub const HOST_EXTENSIONS: [&str; 9] = ["c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "py"];

/// How directories are walked.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Further unit extensions (without the dot).
    pub extensions: Vec<String>,
    /// Gitignore-style globs of files not to take.
    pub exclude: Vec<String>,
    /// Gitignore-style globs: when any is given, only files matching one (or
    /// under a directory matching one) are taken; `!GLOB` takes matches out again.
    pub select: Vec<String>,
    /// Follow symbolic links while walking.
    pub follow_links: bool,
    /// Also take host files (`HOST_EXTENSIONS`).
    pub host: bool,
}

/// Source files found, and paths that could not be used.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// Host files: C, C++ and Python sources that may embed kernels or build programs.
    pub host_files: Vec<PathBuf>,
    pub errors: Vec<(PathBuf, String)>,
}

/// Why a path named on the command line cannot be used (as a whole).
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("no such file or directory")]
    NotFound,
    /// An `--exclude` glob that does not parse.
    #[error("bad --exclude `{glob}`: {source}")]
    BadExclude { glob: String, source: ignore::Error },
    /// A `--glob` glob that does not parse.
    #[error("bad --glob `{glob}`: {source}")]
    BadGlob { glob: String, source: ignore::Error },
}

pub fn discover(paths: &[PathBuf], filters: &Filters) -> Discovered {
    let mut found = Discovered::default();
    for path in paths {
        if path.is_dir() {
            if let Err(error) = walk(path, filters, &mut found) {
                found.errors.push((path.clone(), error.to_string()));
            }
        } else if crate::support::overlay::exists(path) {
            match filters.host && is_host(path) {
                true => found.host_files.push(path.clone()),
                false => found.files.push(path.clone()),
            }
        } else {
            found.errors.push((path.clone(), DiscoverError::NotFound.to_string()));
        }
    }
    found.files.sort();
    found.files.dedup();
    found.host_files.sort();
    found.host_files.dedup();
    found
}

fn walk(dir: &Path, filters: &Filters, found: &mut Discovered) -> Result<(), DiscoverError> {
    let excluded = Globs::new(dir, filters.exclude.iter().map(String::as_str))
        .map_err(|bad| DiscoverError::BadExclude { glob: bad.pattern, source: bad.source })?;
    let selection = selection(dir, &filters.select)?;
    let walker = WalkBuilder::new(dir)
        // Exclusions prune the walk, so an excluded directory is not even read.
        .filter_entry(move |entry| !excluded.matches(entry.path(), entry.file_type().is_some_and(|t| t.is_dir())))
        .follow_links(filters.follow_links)
        // A tree copied out of its repository (a release tarball, a fixture) keeps its .gitignore.
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        match entry {
            Ok(e)
                if e.file_type().is_some_and(|t| t.is_file())
                    && selection.as_ref().is_none_or(|s| s.matches(e.path(), false)) =>
            {
                if is_unit(e.path(), filters) {
                    found.files.push(e.path().to_path_buf())
                } else if filters.host && is_host(e.path()) {
                    found.host_files.push(e.path().to_path_buf())
                }
            }
            Ok(_) => {}
            Err(e) => found.errors.push((dir.to_path_buf(), e.to_string())),
        }
    }
    Ok(())
}

/// The `--glob` globs as one matcher where "matched" means "selected" (so
/// `!GLOB` unselects, and a directory's glob covers its files). Only negated
/// globs select everything but their matches, as a lone `-g '!x'` does in ripgrep.
fn selection(dir: &Path, globs: &[String]) -> Result<Option<Globs>, DiscoverError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let everything = globs.iter().all(|g| g.starts_with('!')).then_some("*");
    let patterns = everything.into_iter().chain(globs.iter().map(String::as_str));
    let selection = Globs::new(dir, patterns).map_err(|bad| DiscoverError::BadGlob { glob: bad.pattern, source: bad.source })?;
    Ok(Some(selection))
}

fn is_unit(path: &Path, filters: &Filters) -> bool {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else { return false };
    DEFAULT_EXTENSIONS.contains(&ext) || filters.extensions.iter().any(|x| x.trim_start_matches('.') == ext)
}

fn is_host(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|ext| HOST_EXTENSIONS.contains(&ext))
}
