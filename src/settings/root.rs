//! The edit root: the one directory under which clasp may edit files.
//!
//! Kernels include headers that sit beside them, below them or in a shared
//! folder of the project; a migration that could only edit the files named
//! on the command line would lose every change (and every repair) a shared
//! header needs. So the edit root is, by default, the git work tree that
//! encloses the paths (where a project's own headers live), else the
//! deepest directory they have in common; `--root DIR` sets it. Files
//! outside it (system and SDK headers, another tree) are never edited.

use std::path::{Path, PathBuf};

/// A path as files are compared across the batch: canonical, or as it is
/// when it cannot be resolved (a file that does not exist, a virtual one).
/// A text laid over a path not on disk (standard input's) is the file at its
/// directory's canonical path.
pub fn canonical(path: &Path) -> PathBuf {
    crate::support::overlay::canonical(path)
}

/// `--root` names something that is not a directory.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: error: --root must be a directory", dir.display())]
pub struct RootError {
    pub dir: PathBuf,
}

/// The edit root for `paths`: `explicit` when given (it must be a
/// directory), else the enclosing git work tree, else the deepest common
/// directory of the paths (a file counts as its directory).
pub fn edit_root(paths: &[PathBuf], explicit: Option<&Path>) -> Result<PathBuf, RootError> {
    if let Some(dir) = explicit {
        if !dir.is_dir() {
            return Err(RootError { dir: dir.to_path_buf() });
        }
        return Ok(canonical(dir));
    }
    let dirs: Vec<PathBuf> = paths
        .iter()
        .map(|p| canonical(p))
        .map(|p| if p.is_dir() { p } else { p.parent().map(Path::to_path_buf).unwrap_or(p) })
        .collect();
    let Some(common) = deepest_common_dir(&dirs) else {
        return Ok(canonical(Path::new(".")));
    };
    Ok(git_work_tree(&common).unwrap_or(common))
}

/// The deepest directory that contains every one of `dirs`.
fn deepest_common_dir(dirs: &[PathBuf]) -> Option<PathBuf> {
    let (first, rest) = dirs.split_first()?;
    let mut common = first.clone();
    for dir in rest {
        while !dir.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    Some(common)
}

/// The nearest directory at or above `dir` holding `.git` (a directory, or
/// the file a linked work tree or submodule has).
fn git_work_tree(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// Whether a (canonical) file may be edited under `root`.
pub fn is_under(root: &Path, canonical_file: &Path) -> bool {
    canonical_file.starts_with(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_directory_without_git() {
        let dir = tempfile::tempdir().unwrap();
        let base = canonical(dir.path());
        std::fs::create_dir_all(base.join("a/k1")).unwrap();
        std::fs::create_dir_all(base.join("a/k2")).unwrap();
        std::fs::write(base.join("a/k1/x.cl"), "").unwrap();
        std::fs::write(base.join("a/k2/y.cl"), "").unwrap();
        let root = edit_root(&[base.join("a/k1/x.cl"), base.join("a/k2/y.cl")], None).unwrap();
        assert_eq!(root, base.join("a"));
        // A single file: its directory.
        assert_eq!(edit_root(&[base.join("a/k1/x.cl")], None).unwrap(), base.join("a/k1"));
    }

    #[test]
    fn enclosing_git_work_tree_wins() {
        let dir = tempfile::tempdir().unwrap();
        let base = canonical(dir.path());
        std::fs::create_dir_all(base.join("repo/.git")).unwrap();
        std::fs::create_dir_all(base.join("repo/kernels/deep")).unwrap();
        std::fs::write(base.join("repo/kernels/deep/x.cl"), "").unwrap();
        let root = edit_root(&[base.join("repo/kernels/deep/x.cl")], None).unwrap();
        assert_eq!(root, base.join("repo"));
        // --root overrides, and must be a directory.
        assert_eq!(
            edit_root(&[base.join("repo/kernels/deep/x.cl")], Some(&base.join("repo/kernels"))).unwrap(),
            base.join("repo/kernels")
        );
        assert!(edit_root(&[], Some(&base.join("repo/kernels/deep/x.cl"))).is_err());
    }
}
