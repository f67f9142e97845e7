//! The migrated sources the interceptor substitutes, laid out for it: `<hash>.cl` holds the migrated
//! text of the original source whose bytes hash to `<hash>` (64-bit FNV-1a, as `intercept.c`
//! computes it over the strings a program is created from), and `options` the options a substituted
//! program is built with in place of its `-cl-std=`.

use std::path::{Path, PathBuf};

/// 64-bit FNV-1a, the interceptor's content hash.
pub fn content_hash(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("{hash:016x}")
}

/// One source the migrated run substitutes.
#[derive(Debug, Clone)]
pub struct Substitution {
    pub original: PathBuf,
    pub hash: String,
    pub migrated: Vec<u8>,
}

/// Pairs each file under `out_dir` (a tree `clasp migrate --out-dir` wrote, mirroring paths relative
/// to `cwd`, an absolute path whole) with its original, keeping those that differ.
pub fn pair_out_dir(out_dir: &Path, bases: &[PathBuf]) -> std::io::Result<Vec<Substitution>> {
    let mut files = Vec::new();
    collect_files(out_dir, &mut files)?;
    files.sort();
    let mut pairs = Vec::new();
    for file in files {
        let relative = file.strip_prefix(out_dir).expect("collected under out_dir");
        let original = bases.iter().map(|base| base.join(relative)).find(|p| p.is_file());
        let Some(original) = original else { continue };
        let (before, after) = (std::fs::read(&original)?, std::fs::read(&file)?);
        if before != after {
            pairs.push(Substitution { original, hash: content_hash(&before), migrated: after });
        }
    }
    Ok(pairs)
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
        std::fs::write(dir.join(format!("{}.cl", s.hash)), &s.migrated)?;
    }
    std::fs::write(dir.join("options"), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_fnv1a_64() {
        // The published FNV-1a 64 values of "" and "a".
        assert_eq!(content_hash(b""), "cbf29ce484222325");
        assert_eq!(content_hash(b"a"), "af63dc4c8601ec8c");
    }
}
