//! Texts laid over files on disk: what `clasp migrate - --stdin-filename
//! PATH` read from standard input stands for PATH, whether PATH exists or not.
//!
//! Every reader of a unit's text asks here first (`read`, `text`), so the
//! parse, the facts, the program and host readers, the device check and the
//! result cache's content hashes all see the laid text; `canonical` and
//! `exists` answer for a laid path that is not on disk. clang sees it through
//! a VFS overlay (`clang_args`), which every clang entry lays first among its
//! arguments (libclang's parse, the in-process compile, a clang process), so
//! that an overlay laid later, a result being verified, wins over it; a
//! compile whose main file is laid is given a stand-in that exists
//! (`stand_in`): the in-process clang compiles it *as* the laid path (its
//! `main_as`: diagnostics and debug information name the path, and its
//! quoted includes are looked up beside it); a clang process, which cannot,
//! compiles a wrapper that includes the laid path.
//!
//! Standard input is the process's, and so is the overlay: one per process,
//! installed by the command that read it (`install`) and gone when the
//! returned guard drops. A laid header (`clasp server` lays every open
//! buffer) is read by every reader as its laid text, the parse's and the
//! compiles' included; files no text is laid over are read from disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The texts laid over, by their canonical path, and their files for clang.
struct Overlay {
    texts: BTreeMap<PathBuf, Laid>,
    /// The VFS overlay (clang's YAML) laying every text over its path.
    yaml: PathBuf,
    _dir: tempfile::TempDir,
}

/// One laid text: its bytes, a copy clang's driver can be given as the
/// main file, and a wrapper that includes the laid path.
struct Laid {
    text: Arc<[u8]>,
    copy: PathBuf,
    wrapper: PathBuf,
}

static CURRENT: RwLock<Option<Arc<Overlay>>> = RwLock::new(None);

fn current() -> Option<Arc<Overlay>> {
    CURRENT.read().ok().and_then(|c| c.clone())
}

/// The installed overlay; dropping it lays nothing over any more.
#[must_use = "the overlay is removed when the guard drops"]
pub struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(mut current) = CURRENT.write() {
            *current = None;
        }
    }
}

/// Lays each `(path, text)` over its path (the path as given: relative to
/// the working directory, existing or not), replacing any overlay before.
pub fn install(files: Vec<(PathBuf, Vec<u8>)>) -> std::io::Result<Guard> {
    let dir = tempfile::Builder::new().prefix("clasp-stdin-").tempdir()?;
    let mut texts = BTreeMap::new();
    let mut roots = Vec::new();
    for (i, (path, text)) in files.into_iter().enumerate() {
        let key = resolved(&path)?;
        let copy = dir.path().join(format!("{i}-{}", key.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()));
        std::fs::write(&copy, &text)?;
        let wrapper = dir.path().join(format!("{i}-wrapper.cl"));
        std::fs::write(&wrapper, format!("#include \"{}\"\n", key.display()))?;
        roots.push(serde_json::json!({ "type": "file", "name": key.display().to_string(), "external-contents": copy.display().to_string() }));
        texts.insert(key, Laid { text: text.into(), copy, wrapper });
    }
    let yaml = dir.path().join("overlay.yaml");
    let overlay = serde_json::json!({ "version": 0, "case-sensitive": "true", "use-external-names": false, "roots": roots });
    std::fs::write(&yaml, overlay.to_string())?;
    let installed = Arc::new(Overlay { texts, yaml, _dir: dir });
    if let Ok(mut current) = CURRENT.write() {
        *current = Some(installed);
    }
    Ok(Guard(()))
}

/// `path` made absolute with its directory's links resolved: the key a laid
/// text is found by, whether the file exists or not (its directory must).
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    if let Ok(canonical) = std::fs::canonicalize(path) {
        return Ok(canonical);
    }
    let absolute = std::path::absolute(path)?;
    let (Some(dir), Some(name)) = (absolute.parent(), absolute.file_name()) else { return Ok(absolute) };
    Ok(std::fs::canonicalize(dir).map(|dir| dir.join(name)).unwrap_or(absolute))
}

/// The laid entry for `path`, if any.
fn laid<T>(path: &Path, with: impl FnOnce(&Laid) -> T) -> Option<T> {
    let overlay = current()?;
    let key = resolved(path).ok()?;
    overlay.texts.get(&key).map(with)
}

/// The text laid over `path`, if one is.
pub fn text(path: &Path) -> Option<Arc<[u8]>> {
    laid(path, |l| l.text.clone())
}

/// Whether a text is laid over `path`.
pub fn is_laid(path: &Path) -> bool {
    laid(path, |_| ()).is_some()
}

/// `path`'s bytes: the laid text, else the file's (`std::fs::read`).
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    match text(path) {
        Some(text) => Ok(text.to_vec()),
        None => std::fs::read(path),
    }
}

/// Whether `path` exists: on disk, or as a laid text.
pub fn exists(path: &Path) -> bool {
    path.exists() || is_laid(path)
}

/// `std::fs::canonicalize`, but a laid path not on disk is its directory's
/// canonical path and its name.
pub fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    std::fs::canonicalize(path).or_else(|error| match is_laid(path) {
        true => resolved(path),
        false => Err(error),
    })
}

/// `path` as files are compared across a batch: `canonicalize`d, else as it is.
pub fn canonical(path: &Path) -> PathBuf {
    canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The arguments that lay the texts over the disk for clang (none without an overlay).
pub fn clang_args() -> Vec<String> {
    current().map_or_else(Vec::new, |o| vec!["-ivfsoverlay".to_string(), o.yaml.display().to_string()])
}

/// What clang's driver is given for a main file `path` whose text is laid
/// (the driver wants a file that exists): a copy of the text, to compile
/// as `path` (`in_process`'s `main_as`), or with `wrapper` a file that includes it.
pub fn stand_in(path: &Path, wrapper: bool) -> Option<PathBuf> {
    laid(path, |l| if wrapper { l.wrapper.clone() } else { l.copy.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    // `install` is the process's, so it is tested through the binary
    // (`cli_tests/stdin.rs`), never beside the other unit tests' compiles.
    #[test]
    fn a_path_not_on_disk_resolves_through_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let canonical_dir = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(resolved(&dir.path().join("new.cl")).unwrap(), canonical_dir.join("new.cl"));
        std::fs::write(dir.path().join("k.cl"), "").unwrap();
        assert_eq!(resolved(&dir.path().join("./k.cl")).unwrap(), canonical_dir.join("k.cl"));
        assert!(!is_laid(&dir.path().join("new.cl")) && canonical(&dir.path().join("new.cl")) == dir.path().join("new.cl"));
    }
}
