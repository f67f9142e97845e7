//! Writing the changed files: atomically (a temporary file beside the
//! destination, renamed over it), with the destination's permissions, and
//! never over a file that is no longer what was read.
//!
//! Every way a write can fail is an error naming the file and the cause,
//! and leaves the destination as it was and no temporary file behind: a
//! full disk or any I/O error while writing (the temporary file is removed),
//! a read-only file or directory (refused from the permission bits, so that
//! the answer is the same for root, whom the kernel would let write), a file
//! deleted, changed, or turned into a directory or a symbolic link since it
//! was read. A symbolic link is never written through: replacing it would
//! cut the link, and writing its target would edit a file clasp did not read
//! as such.

pub mod batch;
pub mod out_dir;

pub use out_dir::mirrored;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file not written: the file (or the directory that could not be made) and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: error: {cause}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub cause: WriteCause,
}

/// Why a file was not written; each leaves it as it was.
#[derive(Debug, thiserror::Error)]
pub enum WriteCause {
    /// Reading, creating, writing: the I/O error.
    #[error("cannot write: {0}; the file is left as it was")]
    Io(#[from] std::io::Error),
    /// The temporary file could not replace the file.
    #[error("cannot replace the file: {0}; it is left as it was")]
    Replace(std::io::Error),
    /// The file's bytes are no longer those that were read.
    #[error("changed since it was read; not written")]
    Changed,
    /// The file is gone.
    #[error("deleted since it was read; not written")]
    Deleted,
    /// A directory stands where the file was.
    #[error("is a directory now; not written")]
    Directory,
    /// A symbolic link stands where the file is written.
    #[error("is a symbolic link; not written (name the file it points to)")]
    Symlink,
    /// The file has no write permission.
    #[error("is read-only; not written")]
    ReadOnly,
    /// The directory that would hold the temporary file has no write permission.
    #[error("its directory {} is read-only; not written", .0.display())]
    ReadOnlyDirectory(PathBuf),
}

/// Writes `bytes` to `path` atomically, keeping the permissions of the file
/// it replaces. With `expected`, the file must still hold exactly those bytes.
pub fn write_atomically(path: &Path, bytes: &[u8], expected: Option<&[u8]>) -> Result<(), WriteError> {
    stage(path, bytes, expected)?.rename()
}

/// A file's new bytes in a temporary file beside it (`.clasp-*`), synced,
/// with its permissions: renamed over it by `rename`, removed if dropped.
#[derive(Debug)]
pub struct Staged<'a> {
    temp: PathBuf,
    target: PathBuf,
    expected: Option<&'a [u8]>,
    renamed: bool,
}

/// Stages `bytes` for `path`, which must be replaceable now (see `check_destination`).
pub fn stage<'a>(path: &Path, bytes: &[u8], expected: Option<&'a [u8]>) -> Result<Staged<'a>, WriteError> {
    stage_with(path, bytes, expected, &mut |file, bytes| file.write_all(bytes))
}

/// `stage` with the writing of the temporary file given (tests inject faults).
fn stage_with<'a>(
    path: &Path,
    bytes: &[u8],
    expected: Option<&'a [u8]>,
    write: &mut dyn FnMut(&mut File, &[u8]) -> std::io::Result<()>,
) -> Result<Staged<'a>, WriteError> {
    let failed = |at: &Path, cause: WriteCause| WriteError { path: at.to_path_buf(), cause };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e.into()))?;
    check_destination(path, expected).map_err(|cause| failed(path, cause))?;
    if std::fs::metadata(dir).is_ok_and(|m| m.permissions().readonly()) {
        return Err(failed(path, WriteCause::ReadOnlyDirectory(dir.to_path_buf())));
    }
    let (temp, mut file) = temporary_in(dir).map_err(|e| failed(path, e.into()))?;
    // Dropped on any error below: the temporary file is removed.
    let staged = Staged { temp, target: path.to_path_buf(), expected, renamed: false };
    write(&mut file, bytes).map_err(|e| failed(path, e.into()))?;
    // On disk before the rename: a crash then leaves the old file or the new one, never an empty one.
    file.sync_all().map_err(|e| failed(path, e.into()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&staged.temp, meta.permissions()).map_err(|e| failed(path, e.into()))?;
    }
    Ok(staged)
}

/// A new temporary file in `dir`, named in the supervisor's journal before it
/// exists (so that what a killed worker leaves is found and removed).
fn temporary_in(dir: &Path) -> std::io::Result<(PathBuf, File)> {
    use std::os::unix::fs::OpenOptionsExt;
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let number = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let name = format!("{}{}-{number}-{nanos:08x}", crate::isolation::TEMPORARY_PREFIX, std::process::id());
        let path = dir.join(name);
        crate::isolation::journal(&path);
        match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

impl Staged<'_> {
    /// The file it will replace.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Whether the file may still be replaced: unchanged since it was read.
    pub fn check(&self) -> Result<(), WriteError> {
        check_destination(&self.target, self.expected).map_err(|cause| WriteError { path: self.target.clone(), cause })
    }

    /// Renames the temporary file over the file.
    pub fn rename(mut self) -> Result<(), WriteError> {
        std::fs::rename(&self.temp, &self.target)
            .map_err(|e| WriteError { path: self.target.clone(), cause: WriteCause::Replace(e) })?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// What stands at `path` may be replaced: a regular, writable file holding
/// `expected` (or, without `expected`, nothing or such a file).
fn check_destination(path: &Path, expected: Option<&[u8]>) -> Result<(), WriteCause> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return if expected.is_some() { Err(WriteCause::Deleted) } else { Ok(()) };
        }
        Err(e) => return Err(e.into()),
    };
    if meta.file_type().is_symlink() {
        return Err(WriteCause::Symlink);
    }
    if meta.is_dir() {
        return Err(WriteCause::Directory);
    }
    if meta.permissions().readonly() {
        return Err(WriteCause::ReadOnly);
    }
    match expected {
        Some(expected) if std::fs::read(path)? != expected => Err(WriteCause::Changed),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    const READ: &[u8] = b"kernel void k(global int *p) { p[0] = 1; }\n";
    const NEW: &[u8] = b"kernel void k(int *p) { p[0] = 1; }\n";

    fn file_in(dir: &Path) -> PathBuf {
        let path = dir.join("k.cl");
        std::fs::write(&path, READ).unwrap();
        path
    }

    /// The names in `dir`, sorted: no temporary file may be left.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    fn refused(path: &Path) -> String {
        write_atomically(path, NEW, Some(READ)).unwrap_err().to_string()
    }

    #[test]
    fn a_write_replaces_the_file_with_its_permissions_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, NEW, Some(READ)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), NEW);
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(names(dir.path()), ["k.cl"]);
    }

    #[test]
    fn a_full_disk_mid_write_leaves_the_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path());
        let mut full = |file: &mut File, bytes: &[u8]| {
            file.write_all(&bytes[..bytes.len() / 2])?;
            Err(std::io::Error::from_raw_os_error(28))
        };
        let error = stage_with(&path, NEW, Some(READ), &mut full).unwrap_err().to_string();
        let expected =
            format!("{}: error: cannot write: No space left on device (os error 28); the file is left as it was", path.display());
        assert_eq!(error, expected);
        assert_eq!(std::fs::read(&path).unwrap(), READ);
        assert_eq!(names(dir.path()), ["k.cl"]);
    }

    #[test]
    fn a_read_only_file_or_directory_is_refused_even_for_root() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(refused(&path), format!("{}: error: is read-only; not written", path.display()));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
        let error = refused(&path);
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(error, format!("{}: error: its directory {} is read-only; not written", path.display(), dir.path().display()));
        assert_eq!(std::fs::read(&path).unwrap(), READ);
        assert_eq!(names(dir.path()), ["k.cl"]);
    }

    #[test]
    fn a_file_deleted_changed_or_replaced_since_it_was_read_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_in(dir.path());
        std::fs::write(&path, b"edited by someone else\n").unwrap();
        assert!(refused(&path).ends_with("changed since it was read; not written"));
        assert_eq!(std::fs::read(&path).unwrap(), b"edited by someone else\n");
        std::fs::remove_file(&path).unwrap();
        assert!(refused(&path).ends_with("deleted since it was read; not written"));
        assert!(!path.exists());
        std::fs::create_dir(&path).unwrap();
        assert!(refused(&path).ends_with("is a directory now; not written"));
        assert!(path.is_dir());
        std::fs::remove_dir(&path).unwrap();
        let elsewhere = dir.path().join("elsewhere.cl");
        std::fs::write(&elsewhere, READ).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert!(refused(&path).ends_with("is a symbolic link; not written (name the file it points to)"));
        assert_eq!(std::fs::read(&elsewhere).unwrap(), READ);
        assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
        assert_eq!(names(dir.path()), ["elsewhere.cl", "k.cl"]);
    }

    #[test]
    fn an_out_dir_copy_is_created_with_its_directories() {
        let dir = tempfile::tempdir().unwrap();
        let path = mirrored(&dir.path().join("out"), Path::new("/p"), Path::new("/p/src/k.cl")).unwrap();
        write_atomically(&path, NEW, None).unwrap();
        assert_eq!(std::fs::read(dir.path().join("out/src/k.cl")).unwrap(), NEW);
    }
}
