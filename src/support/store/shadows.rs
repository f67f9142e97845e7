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
/// (with `..` where it is not under it: `#include "../x.h"`), joined to
/// every other directory in `searched`, made plain (no `.` or `..`).
pub fn shadowing_candidates<'a>(files: impl IntoIterator<Item = &'a Path>, searched: &BTreeSet<PathBuf>) -> BTreeSet<PathBuf> {
    let mut candidates = BTreeSet::new();
    for file in files {
        for dir in searched {
            let Some(relative) = relative_to(file, dir) else { continue };
            candidates.extend(searched.iter().map(|other| plain(&other.join(&relative))).filter(|path| path != file));
        }
    }
    candidates
}

/// `path` as reached from `dir` (both absolute): up with `..` to their common
/// part, then down; `None` when one is relative.
fn relative_to(path: &Path, dir: &Path) -> Option<PathBuf> {
    if !path.is_absolute() || !dir.is_absolute() {
        return None;
    }
    let (path, dir): (Vec<_>, Vec<_>) = (path.components().collect(), dir.components().collect());
    let common = path.iter().zip(&dir).take_while(|(a, b)| a == b).count();
    let up = std::iter::repeat_n(std::path::Component::ParentDir, dir.len() - common);
    Some(up.chain(path[common..].iter().copied()).collect())
}

/// `path` with `.` and `..` resolved by name (no link is followed: as a
/// compiler's search joins a directory and a relative name).
fn plain(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where a header of `files` may have been searched for: the current
/// directory (`-include` looks there first), the directories the options
/// name (`include_dirs`, and `-I`, `-isystem`, `-iquote`, `-idirafter` in
/// `clang_extra`), those of the environment (`environment_dirs`), the
/// system's (`/usr/local/include`, `/usr/include`), and each file's own; and
/// `files` themselves; all canonical, so that one spelling compares with another.
pub fn searched(files: &[PathBuf], include_dirs: &[PathBuf], clang_extra: &[String]) -> (Vec<PathBuf>, BTreeSet<PathBuf>) {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let files: Vec<PathBuf> = files.iter().map(|file| canonical(file)).collect();
    let parents = files.iter().filter_map(|file| file.parent().map(Path::to_path_buf));
    let system = ["/usr/local/include", "/usr/include"].map(PathBuf::from);
    let dirs = (include_dirs.iter().cloned())
        .chain(option_dirs(clang_extra))
        .chain(environment_dirs())
        .chain(std::env::current_dir().ok())
        .chain(system)
        .map(|dir| canonical(&dir))
        .chain(parents)
        .collect();
    (files, dirs)
}

/// The directories clang arguments add to the search (`-I DIR`, `-IDIR`,
/// `-isystem`, `-iquote`, `-idirafter`).
fn option_dirs(args: &[String]) -> Vec<PathBuf> {
    const FLAGS: [&str; 4] = ["-isystem", "-iquote", "-idirafter", "-I"];
    let mut dirs = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(flag) = FLAGS.iter().find(|flag| word.starts_with(*flag)) else { continue };
        let attached = &word[flag.len()..];
        let dir = if attached.is_empty() { words.next().map(String::as_str) } else { Some(attached) };
        dirs.extend(dir.map(PathBuf::from));
    }
    dirs
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

/// Whether a file's text asks whether some file exists (`__has_include`,
/// `__has_include_next`): what it finds absent is read by no compile, so a
/// result of a unit holding one is not kept.
pub fn asks_for_files(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"__has_include").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reached_with_dot_dot_is_shadowed_from_every_directory() {
        // include/gpu/../util.h found; `#include "../util.h"` from src/ looks at /p/util.h first.
        let searched: BTreeSet<PathBuf> = ["/p/include/gpu", "/p/src"].iter().map(PathBuf::from).collect();
        let candidates = shadowing_candidates([Path::new("/p/include/util.h")], &searched);
        assert!(candidates.contains(Path::new("/p/util.h")), "{candidates:?}");
        assert_eq!(
            option_dirs(&["-isystem".into(), "a".into(), "-iquoteb".into(), "-Ic".into(), "-O2".into()]),
            ["a", "b", "c"].map(PathBuf::from)
        );
    }

    #[test]
    fn every_searched_directory_at_every_depth_is_a_candidate() {
        let searched: BTreeSet<PathBuf> = ["/p/inc1", "/p/inc2", "/p/k"].iter().map(PathBuf::from).collect();
        let files = [Path::new("/p/inc2/sub/deep/x.h")];
        let candidates = shadowing_candidates(files, &searched);
        let expected: BTreeSet<PathBuf> = ["/p/inc1/sub/deep/x.h", "/p/k/sub/deep/x.h"].iter().map(PathBuf::from).collect();
        assert_eq!(candidates, expected, "reached with .. from inc1/ or k/, the file is itself");
        assert!(!candidates.contains(Path::new("/p/inc2/sub/deep/x.h")), "not the file itself");
    }
}
