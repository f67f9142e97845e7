//! The files that would shadow a file a compile read, were they to appear:
//! what a stored result must see absent to still hold.
//!
//! A header found in one directory of the search (an `-I` directory, the
//! includer's own, one `CPATH` names) as `sub/x.h` would not have been, had
//! `sub/x.h` been in a directory searched before it. Which directories come
//! first depends on the `#include` form and the includer, which a stored
//! result does not keep, so every searched directory counts: a result holds
//! while no searched directory gains a file at the relative path of any
//! file it read (at any depth: `inc1/sub/deep/x.h` shadows
//! `inc2/sub/deep/x.h`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The paths, absent or not, at which a new file could shadow one of
/// `files`: each file's path relative to every directory in `searched`
/// holding it, joined to every other directory in `searched`.
pub fn shadowing_candidates<'a>(files: impl IntoIterator<Item = &'a Path>, searched: &BTreeSet<PathBuf>) -> BTreeSet<PathBuf> {
    let mut candidates = BTreeSet::new();
    for file in files {
        for dir in searched {
            let Ok(relative) = file.strip_prefix(dir) else { continue };
            candidates.extend(searched.iter().map(|other| other.join(relative)).filter(|path| path != file));
        }
    }
    candidates
}

/// Where a header of `files` may have been searched for: the directories
/// `include_dirs` and the environment (`environment_dirs`) name, and each
/// file's own; and `files` themselves; all canonical, so that one spelling
/// compares with another.
pub fn searched(files: &[PathBuf], include_dirs: &[PathBuf]) -> (Vec<PathBuf>, BTreeSet<PathBuf>) {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let files: Vec<PathBuf> = files.iter().map(|file| canonical(file)).collect();
    let parents = files.iter().filter_map(|file| file.parent().map(Path::to_path_buf));
    let dirs = include_dirs.iter().cloned().chain(environment_dirs()).map(|dir| canonical(&dir)).chain(parents).collect();
    (files, dirs)
}

/// The directories the compiler's environment adds to every search
/// (`CPATH`, `C_INCLUDE_PATH`), as clang reads them.
pub fn environment_dirs() -> Vec<PathBuf> {
    ["CPATH", "C_INCLUDE_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .flat_map(|value| std::env::split_paths(&value).collect::<Vec<_>>())
        .filter(|dir| !dir.as_os_str().is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_searched_directory_at_every_depth_is_a_candidate() {
        let searched: BTreeSet<PathBuf> = ["/p/inc1", "/p/inc2", "/p/k"].iter().map(PathBuf::from).collect();
        let files = [Path::new("/p/inc2/sub/deep/x.h"), Path::new("/p/k/k.cl"), Path::new("/usr/include/y.h")];
        let candidates = shadowing_candidates(files, &searched);
        let expected: BTreeSet<PathBuf> =
            ["/p/inc1/sub/deep/x.h", "/p/k/sub/deep/x.h", "/p/inc1/k.cl", "/p/inc2/k.cl"].iter().map(PathBuf::from).collect();
        assert_eq!(candidates, expected, "a file outside every searched directory has none");
    }
}
