//! The migrated sources the interceptor substitutes, laid out for it (`src/native/intercept/sources.c`
//! reads them): `<hash>.orig` and `<hash>.cl` hold the original and migrated text of each source
//! clasp changed (`<hash>` the original bytes' 64-bit FNV-1a); `tree/` each migrated file at its
//! original absolute path below it, for programs that `#include` it; and `options` the options a
//! program that gets migrated text is built with in place of its `-cl-std=`.
//!
//! A source is a kernel file, or a kernel embedded in a host file as string literals: the host
//! file's original and migrated versions are scanned (`host::scan`) and their kernel literals paired
//! in order, so that the interceptor finds each literal's decoded text in the program the host
//! creates from it.

use std::path::{Path, PathBuf};

use crate::host::{self, HostLanguage};

/// 64-bit FNV-1a, the interceptor's content hash.
pub fn content_hash(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("{hash:016x}")
}

/// One source the migrated run substitutes.
#[derive(Debug, Clone)]
pub struct Substitution {
    /// The kernel file, or the host file that embeds the kernel.
    pub file: PathBuf,
    /// The line of an embedded kernel's first literal in the host file.
    pub embedded_at: Option<u32>,
    pub original: Vec<u8>,
    pub migrated: Vec<u8>,
}

impl Substitution {
    pub fn hash(&self) -> String {
        content_hash(&self.original)
    }

    /// `file` relative to `cwd` (`../k.cl` for one beside it), or `file:line` for an embedded kernel.
    pub fn shown(&self, cwd: &Path) -> String {
        let relative = cwd.ancestors().enumerate().take_while(|(_, above)| above.parent().is_some()).find_map(|(up, above)| {
            let rest = self.file.strip_prefix(above).ok()?;
            Some(Path::new(&"../".repeat(up)).join(rest))
        });
        let file = relative.as_deref().unwrap_or(&self.file).display().to_string();
        self.embedded_at.map_or(file.clone(), |line| format!("{file}:{line}"))
    }
}

/// Pairs each file under `out_dir` (a tree `clasp migrate --out-dir` wrote: paths relative to the
/// edit root, mirrored) with its original under one of `bases`, the first holding the most of the
/// tree's files (a tree mirrors one root), keeping the sources that differ. An `out_dir` that does
/// not exist holds nothing (migrate changed nothing); None when it holds files none of `bases` has.
pub fn pair_out_dir(out_dir: &Path, bases: &[PathBuf]) -> std::io::Result<Option<Vec<Substitution>>> {
    let mut files = Vec::new();
    if out_dir.is_dir() {
        collect_files(out_dir, &mut files)?;
    }
    files.sort();
    let relative: Vec<&Path> = files.iter().map(|file| file.strip_prefix(out_dir).expect("collected under out_dir")).collect();
    let Some(base) = tree_base(&relative, bases) else { return Ok(files.is_empty().then(Vec::new)) };
    let mut pairs = Vec::new();
    for (file, relative) in files.iter().zip(relative) {
        let original = base.join(relative);
        if !original.is_file() {
            continue;
        }
        let (before, after) = (std::fs::read(&original)?, std::fs::read(file)?);
        if before != after {
            pairs.extend(sources_of(original, before, after));
        }
    }
    Ok(Some(pairs))
}

/// The first of `bases` under which the most of `files` (relative paths) are found; none when
/// none is found anywhere.
fn tree_base<'a>(files: &[&Path], bases: &'a [PathBuf]) -> Option<&'a Path> {
    let found = |base: &Path| files.iter().filter(|file| base.join(file).is_file()).count();
    let mut best: Option<(usize, &Path)> = None;
    for base in bases {
        let count = found(base);
        if count > best.map_or(0, |(most, _)| most) {
            best = Some((count, base));
        }
    }
    best.map(|(_, base)| base)
}

/// The sources a changed file holds: a host file's embedded kernels that changed, or the file.
fn sources_of(file: PathBuf, before: Vec<u8>, after: Vec<u8>) -> Vec<Substitution> {
    let Some(language) = HostLanguage::of(&file) else {
        return vec![Substitution { file, embedded_at: None, original: before, migrated: after }];
    };
    let (old, new) = (host::scan(&file, &before, language), host::scan(&file, &after, language));
    let is_host = !old.programs.is_empty() || !old.build_calls.is_empty();
    let kernels = |facts: &host::HostFacts| -> Vec<(u32, String)> {
        let literals = facts.literals.iter().filter(|l| l.undecodable.is_none() && (l.declares_kernel || l.passed_to.is_some()));
        literals.map(|l| (l.start.line, l.text.clone())).collect()
    };
    let (old_kernels, new_kernels) = (kernels(&old), kernels(&new));
    if !is_host && old_kernels.is_empty() {
        // A header of kernel code that reads as C++ (`.h`): a kernel file.
        return vec![Substitution { file, embedded_at: None, original: before, migrated: after }];
    }
    if old_kernels.len() != new_kernels.len() {
        return Vec::new();
    }
    old_kernels
        .into_iter()
        .zip(new_kernels)
        .filter(|((_, x), (_, y))| x != y)
        .map(|((line, x), (_, y))| Substitution {
            file: file.clone(),
            embedded_at: Some(line),
            original: x.into_bytes(),
            migrated: y.into_bytes(),
        })
        .collect()
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_files(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Writes the map folder the interceptor reads: each substitution and the build options.
pub fn write_map(dir: &Path, substitutions: &[Substitution], options: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for s in substitutions {
        std::fs::write(dir.join(format!("{}.orig", s.hash())), &s.original)?;
        std::fs::write(dir.join(format!("{}.cl", s.hash())), &s.migrated)?;
        if s.embedded_at.is_none() {
            let absolute = std::fs::canonicalize(&s.file)?;
            let in_tree = dir.join("tree").join(absolute.strip_prefix("/").unwrap_or(&absolute));
            std::fs::create_dir_all(in_tree.parent().expect("a file has a folder"))?;
            std::fs::write(in_tree, &s.migrated)?;
        }
    }
    std::fs::write(dir.join("options"), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_is_shown_from_the_current_folder() {
        let source =
            |file: &str, embedded_at| Substitution { file: file.into(), embedded_at, original: vec![], migrated: vec![] };
        let cwd = Path::new("/p/run");
        assert_eq!(source("/p/run/k.cl", None).shown(cwd), "k.cl");
        assert_eq!(source("/p/k.cl", None).shown(cwd), "../k.cl");
        assert_eq!(source("/p/run/host.c", Some(12)).shown(cwd), "host.c:12");
        assert_eq!(source("/q/k.cl", None).shown(cwd), "/q/k.cl");
    }

    /// A tree mirrors one root: its files are paired from the folder holding the most of them,
    /// not each from wherever a file of its name happens to be.
    #[test]
    fn a_tree_is_paired_from_the_one_folder_holding_most_of_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // The root `p` holds kernels/k.cl and include/h.h; `p/run` (the current folder, say)
        // holds another include/h.h, which is not the one migrated.
        write("p/kernels/k.cl", "kernel old\n");
        write("p/include/h.h", "header old\n");
        write("p/run/include/h.h", "unrelated\n");
        write("out/kernels/k.cl", "kernel new\n");
        write("out/include/h.h", "header new\n");
        let bases = [dir.path().join("p/run"), dir.path().join("p"), dir.path().to_path_buf()];
        let pairs = pair_out_dir(&dir.path().join("out"), &bases).unwrap().unwrap();
        let files: Vec<&Path> = pairs.iter().map(|p| p.file.as_path()).collect();
        assert_eq!(files, [dir.path().join("p/include/h.h"), dir.path().join("p/kernels/k.cl")]);
        assert_eq!(pairs[0].original, b"header old\n");
        let nowhere = pair_out_dir(&dir.path().join("out"), &[dir.path().join("p/run/include")]).unwrap();
        assert!(nowhere.is_none(), "no file of the tree is found there");
        assert_eq!(pair_out_dir(&dir.path().join("none"), &bases).unwrap().map(|p| p.len()), Some(0), "an empty tree");
    }

    #[test]
    fn content_hash_is_fnv1a_64() {
        // The published FNV-1a 64 values of "" and "a".
        assert_eq!(content_hash(b""), "cbf29ce484222325");
        assert_eq!(content_hash(b"a"), "af63dc4c8601ec8c");
    }
}
