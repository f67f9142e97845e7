//! Git work-tree state, for `--write`: like `cargo fix`, clasp refuses to
//! overwrite files with uncommitted changes (they could not be told apart
//! from clasp's in review, nor restored with `git checkout`), unless
//! `--allow-dirty`. Files outside any git work tree are not affected.
//!
//! It runs the `git` command (`rev-parse`, `status --porcelain -z`) rather
//! than linking a git library: the answer is then exactly what the user's
//! own git says, with their configuration. When git cannot answer for a
//! file that sits in what looks like a repository (git missing, a repository
//! git refuses to read as of "dubious ownership"), that is an error, not a
//! clean tree: the check must not pass silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Pathspecs per `git status` call: far below any command-line limit.
const CHUNK: usize = 500;

/// Why git could not say which files are dirty.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` could not be started in a work tree.
    #[error("cannot run git in {}: {source}", top.display())]
    CannotRun { top: PathBuf, source: std::io::Error },
    /// `git status` failed: its stderr.
    #[error("git status failed in {}: {}", top.display(), stderr.trim())]
    StatusFailed { top: PathBuf, stderr: String },
    /// A file sits in what looks like a repository (`repo`) but git cannot answer for its directory.
    #[error("cannot tell whether files in {} have uncommitted changes ({}): {failure}", dir.display(), repo.display())]
    Unknown { dir: PathBuf, repo: PathBuf, failure: RevParseFailure },
}

/// Why `git rev-parse` gave no work tree.
#[derive(Debug, thiserror::Error)]
pub enum RevParseFailure {
    /// git ran and refused: its stderr.
    #[error("{}", stderr.trim())]
    Refused { stderr: String },
    /// git could not be started.
    #[error("cannot run git: {0}")]
    CannotRun(std::io::Error),
}

/// The files among `paths` that are modified, staged or untracked in their git work tree.
pub fn dirty(paths: &[PathBuf]) -> Result<Vec<PathBuf>, GitError> {
    // One `rev-parse` per directory, not per file: a batch has many files per directory.
    let mut tops: BTreeMap<PathBuf, Option<PathBuf>> = BTreeMap::new();
    let mut by_tree: BTreeMap<PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for path in paths {
        let dir = absolute(path).parent().map(Path::to_path_buf).unwrap_or_default();
        let top = match tops.get(&dir) {
            Some(top) => top.clone(),
            None => {
                let top = work_tree(&dir)?;
                tops.insert(dir, top.clone());
                top
            }
        };
        if let Some(top) = top {
            by_tree.entry(top).or_default().push(path);
        }
    }
    let mut out = Vec::new();
    for (top, files) in by_tree {
        let mut listed = Vec::new();
        for chunk in files.chunks(CHUNK) {
            listed.extend(status(&top, chunk)?);
        }
        let listed: Vec<PathBuf> = listed.iter().map(|l| canonical(l)).collect();
        for file in files {
            if listed.contains(&canonical(file)) {
                out.push(file.clone());
            }
        }
    }
    Ok(out)
}

/// The paths `git status` lists among `files` (absolute), in the work tree `top`.
fn status(top: &Path, files: &[&PathBuf]) -> Result<Vec<PathBuf>, GitError> {
    let output = Command::new("git")
        // A file named `k[1].cl` is that file, not a pattern.
        .arg("--literal-pathspecs")
        .arg("-C")
        .arg(top)
        .args(["status", "--porcelain", "-z", "--untracked-files=all", "--"])
        .args(files.iter().map(|f| absolute(f)))
        .output()
        .map_err(|source| GitError::CannotRun { top: top.to_path_buf(), source })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        return Err(GitError::StatusFailed { top: top.to_path_buf(), stderr });
    }
    Ok(porcelain_paths(&output.stdout).into_iter().map(|p| top.join(p)).collect())
}

/// The paths of `git status --porcelain -z` entries, relative to the work tree's top.
/// Entries are `XY path\0`; a rename or copy adds its source as a further `source\0`,
/// which is skipped (it is not a path in the work tree, and not an entry of its own).
fn porcelain_paths(stdout: &[u8]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries = stdout.split(|b| *b == 0);
    while let Some(entry) = entries.next() {
        if entry.len() < 4 {
            continue;
        }
        out.push(path_from_bytes(&entry[3..]));
        if entry[..2].iter().any(|c| matches!(c, b'R' | b'C')) {
            entries.next();
        }
    }
    out
}

/// The top of the git work tree holding directory `dir`, if any.
fn work_tree(dir: &Path) -> Result<Option<PathBuf>, GitError> {
    let output = Command::new("git").arg("-C").arg(dir).args(["rev-parse", "--show-toplevel"]).output();
    let failure = match output {
        Ok(o) if o.status.success() => {
            return Ok(Some(path_from_bytes(o.stdout.strip_suffix(b"\n").unwrap_or(&o.stdout))));
        }
        Ok(o) => RevParseFailure::Refused { stderr: String::from_utf8_lossy(&o.stderr).into_owned() },
        Err(e) => RevParseFailure::CannotRun(e),
    };
    // Not a repository, as far as anyone can tell: nothing to protect. A `.git` that holds no
    // repository (an empty directory marking a project's root) is not one either; a repository
    // is a `.git` directory with a HEAD, or a `.git` file pointing to one (worktrees, submodules).
    let repository = |a: &Path| a.join(".git/HEAD").is_file() || a.join(".git").is_file();
    match dir.ancestors().find(|a| repository(a)) {
        None => Ok(None),
        Some(repo) => Err(GitError::Unknown { dir: dir.to_path_buf(), repo: repo.to_path_buf(), failure }),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Symlinks and `..` resolved, so that git's spelling and clasp's compare.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| absolute(path))
}

/// Git prints paths as the bytes they are (with `-z`, unquoted); on Unix so are paths.
#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_name_their_source_once_and_it_is_skipped() {
        let out = porcelain_paths(b" M a.cl\0R  ab/m.cl\0ab/k.cl\0?? new dir/x.cl\0");
        assert_eq!(out, [PathBuf::from("a.cl"), PathBuf::from("ab/m.cl"), PathBuf::from("new dir/x.cl")]);
    }
}
