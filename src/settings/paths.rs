//! How reports and diffs name files: tidied (no `.`, no `dir/..`) and, for
//! messages and reports, relative to the current directory. One rule for
//! every stage that names a file, so it sits below all of them.

use std::path::{Path, PathBuf};

/// A path as clang names it (`kernels/../include/a.h`), tidied for people
/// and for `git apply`, which refuses `..`: `include/a.h`.
pub fn display_path(path: &Path) -> String {
    let mut parts: Vec<std::path::Component> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if matches!(parts.last(), Some(std::path::Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.iter().collect::<PathBuf>().display().to_string()
}

/// How messages and reports (JSON, SARIF) name a file: relative to the
/// current directory when it is under it, however it was reached (an
/// absolute `-I` or `-include`, a `--compile-commands` entry, a canonical
/// header), else as given; tidied either way. The one rule for every file
/// a report names.
pub fn shown_path(path: &Path) -> String {
    if path.is_absolute() {
        if let Ok(cwd) = std::env::current_dir() {
            if let Ok(relative) = path.strip_prefix(&cwd) {
                return display_path(relative);
            }
            let (cwd, canonical) = (super::root::canonical(&cwd), super::root::canonical(path));
            if let Ok(relative) = canonical.strip_prefix(&cwd) {
                return display_path(relative);
            }
        }
    }
    display_path(path)
}

/// Serde: a report's path field, named as [`shown_path`] says.
pub fn serialize_shown<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&shown_path(path))
}

/// Serde: a report's optional path field, named as [`shown_path`] says.
pub fn serialize_shown_option<S: serde::Serializer>(path: &Option<PathBuf>, serializer: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => serializer.serialize_some(&shown_path(path)),
        None => serializer.serialize_none(),
    }
}

/// Serde: a report's list of paths, each named as [`shown_path`] says.
pub fn serialize_shown_list<S: serde::Serializer>(paths: &[PathBuf], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(paths.iter().map(|p| shown_path(p)))
}
