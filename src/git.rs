//! Git work-tree state, for `--write`: like `cargo fix`, clasp refuses to
//! overwrite files with uncommitted changes (they could not be told apart
//! from clasp's in review, nor restored with `git checkout`), unless
//! `--allow-dirty`. Files outside any git work tree are not affected.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The files among `paths` that are modified, staged or untracked in their git work tree.
pub fn dirty(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut by_tree: BTreeMap<PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for path in paths {
        if let Some(top) = work_tree(path) {
            by_tree.entry(top).or_default().push(path);
        }
    }
    let mut out = Vec::new();
    for (top, files) in by_tree {
        let output = Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["status", "--porcelain", "-z", "--untracked-files=all", "--"])
            .args(files.iter().map(|f| absolute(f)))
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !output.status.success() {
            return Err(format!("git status failed in {}: {}", top.display(), String::from_utf8_lossy(&output.stderr).trim()));
        }
        // Entries are `XY path\0` (a rename adds `\0old`): the paths clasp would write are the ones it asked about.
        let listed: Vec<PathBuf> = output
            .stdout
            .split(|b| *b == 0)
            .filter(|e| e.len() > 3)
            .map(|e| top.join(String::from_utf8_lossy(&e[3..]).as_ref()))
            .collect();
        for file in files {
            let file_abs = std::fs::canonicalize(file).unwrap_or_else(|_| absolute(file));
            if listed.iter().any(|l| std::fs::canonicalize(l).unwrap_or_else(|_| l.clone()) == file_abs) {
                out.push(file.clone());
            }
        }
    }
    Ok(out)
}

/// The top of the git work tree holding `path`, if any.
fn work_tree(path: &Path) -> Option<PathBuf> {
    let dir = absolute(path).parent()?.to_path_buf();
    let output = Command::new("git").arg("-C").arg(&dir).args(["rev-parse", "--show-toplevel"]).output().ok()?;
    output.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
