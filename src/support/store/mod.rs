//! The store: results kept across runs, named by the SHA-256 of everything
//! that decides them, in the layout of the Bazel HTTP remote-cache
//! protocol, so that a directory (`--cache-dir`, which runners may share)
//! and a cache server (`--remote-cache`: bazel-remote, nginx's WebDAV, any
//! server answering `GET`/`PUT` of `/ac/<sha256>` and `/cas/<sha256>`) hold
//! the same entries.
//!
//! An entry is two objects: the payload in `cas/<sha256 of the payload>`,
//! and a small record in `ac/<key>` that names the key and the payload's
//! digest and size. Reading checks all three, so a truncated, corrupt or
//! misplaced entry is a miss, never a result (a local one is removed). Each
//! object is written to a temporary file and renamed: a run killed while
//! storing leaves whole entries or none. The directory is bounded: after a
//! run stores, the entries least recently used go until it is under its
//! limit. A remote server that cannot be reached or answers an error is a
//! warning, once, and the run goes on with the directory alone.
//!
//! The directory is marked as a cache (`CACHEDIR.TAG`, which backup tools
//! skip, and a `.gitignore` of `*` in each folder, which git honours even
//! where the directory is a work tree's own), and `clean` removes only what
//! the store put there, and only from a directory so marked.

mod remote;
mod shadows;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

pub use remote::Remote;
pub use shadows::{asks_for_files, environment_dirs, searched, shadowing_candidates};

/// The directory of the store under the edit root, unless `--cache-dir` names another.
pub const DIRECTORY: &str = ".clasp_cache";

/// The mark of a cache directory (https://bford.info/cachedir/).
const CACHEDIR_TAG: &str =
    "Signature: 8a477f597d28d172789f06886806bc55\n# This is a cache directory of clasp: `clasp cache clean` removes it.\n";

/// What every entry's record starts with: a store of another format reads as empty.
const RECORD_HEADER: &str = "clasp-ac 1";

/// A key: the SHA-256 of what decides an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key([u8; 32]);

impl Key {
    pub fn hex(&self) -> String {
        hex(&self.0)
    }

    pub fn bytes(&self) -> [u8; 32] {
        self.0
    }
}

/// Builds a key from parts; each part is length-prefixed, so no two lists of parts collide.
pub struct KeyBuilder(Sha256);

impl KeyBuilder {
    /// A key of one kind of entry (a verdict, a run's output), for one build of clasp and clang.
    pub fn new(kind: &str, stamp: &[u8]) -> KeyBuilder {
        let mut builder = KeyBuilder(Sha256::new());
        builder.bytes(kind.as_bytes());
        builder.bytes(stamp);
        builder
    }

    pub fn bytes(&mut self, part: &[u8]) -> &mut KeyBuilder {
        self.0.update((part.len() as u64).to_le_bytes());
        self.0.update(part);
        self
    }

    /// A part as `Debug` writes it: for ordered collections, paths and numbers, one text per value.
    pub fn debug(&mut self, part: &impl std::fmt::Debug) -> &mut KeyBuilder {
        self.bytes(format!("{part:?}").as_bytes())
    }

    pub fn finish(self) -> Key {
        Key(self.0.finalize().into())
    }
}

/// The SHA-256 of `bytes`, in hexadecimal.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where entries are kept and how much of it.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// The directory (`.clasp_cache` under the edit root, or `--cache-dir`).
    pub dir: PathBuf,
    /// `--remote-cache URL`.
    pub remote: Option<String>,
    /// The directory's bound in bytes: the least recently used entries go past it.
    pub max_bytes: u64,
}

/// An open store: the directory, and the server when one is named.
pub struct Store {
    config: StoreConfig,
    /// Why the directory cannot be used, if it cannot (it names a file, it cannot be made).
    unusable: Option<String>,
    remote: Option<Remote>,
    /// Identifies the build of clasp and of clang: part of every key.
    stamp: Vec<u8>,
    stored: Mutex<u64>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("config", &self.config).finish()
    }
}

impl Store {
    pub fn open(config: StoreConfig, stamp: Vec<u8>) -> Result<Store, String> {
        let remote = config.remote.as_deref().map(Remote::new).transpose()?;
        let unusable = unusable(&config.dir);
        Ok(Store { config, unusable, remote, stamp, stored: Mutex::new(0) })
    }

    pub fn dir(&self) -> &Path {
        &self.config.dir
    }

    /// Where entries are kept, for people: the directory, and the server.
    pub fn describe(&self) -> String {
        match &self.config.remote {
            Some(url) => format!("{} and on {url}", self.config.dir.display()),
            None => self.config.dir.display().to_string(),
        }
    }

    /// A key for an entry of `kind`, to which the caller adds what decides it.
    pub fn key(&self, kind: &str) -> KeyBuilder {
        KeyBuilder::new(kind, &self.stamp)
    }

    /// The payload stored under `key`, checked: from the directory, else from the server
    /// (then kept in the directory too).
    pub fn get(&self, key: &Key) -> Option<Vec<u8>> {
        if let Some(payload) = self.get_local(key) {
            return Some(payload);
        }
        let remote = self.remote.as_ref()?;
        let record = remote.get(&format!("ac/{}", key.hex()))?;
        let (digest, size) = parse_record(&record, key)?;
        let payload = remote.get(&format!("cas/{digest}"))?;
        if !is_whole(&payload, &digest, size) {
            return None;
        }
        let _ = self.put_local(key, &payload, &digest);
        Some(payload)
    }

    /// Stores `payload` under `key`, in the directory and on the server. A store
    /// that cannot be written (a read-only tree) is no error: the run is only slower next time.
    pub fn put(&self, key: &Key, payload: &[u8]) {
        let digest = sha256_hex(payload);
        if self.put_local(key, payload, &digest).is_ok() {
            if let Ok(mut stored) = self.stored.lock() {
                *stored += 1;
            }
        }
        if let Some(remote) = &self.remote {
            if remote.put(&format!("cas/{digest}"), payload) {
                remote.put(&format!("ac/{}", key.hex()), record(key, &digest, payload.len()).as_bytes());
            }
        }
    }

    /// What the run should be told about the store: an unusable directory, the server's failure, once.
    pub fn warnings(&self) -> Vec<String> {
        self.unusable.iter().cloned().chain(self.remote.iter().filter_map(Remote::failure)).collect()
    }

    /// Keeps the directory under its bound once a run has stored entries.
    pub fn trim(&self) {
        if self.stored.lock().is_ok_and(|n| *n > 0) {
            let _ = trim(&self.config.dir, self.config.max_bytes);
        }
    }

    fn get_local(&self, key: &Key) -> Option<Vec<u8>> {
        let record_path = self.config.dir.join("ac").join(key.hex());
        let record = std::fs::read(&record_path).ok()?;
        let checked = parse_record(&record, key).and_then(|(digest, size)| {
            let path = self.config.dir.join("cas").join(&digest);
            let payload = std::fs::read(&path).ok()?;
            is_whole(&payload, &digest, size).then_some((path, payload))
        });
        let Some((payload_path, payload)) = checked else {
            // Never trusted, and not read again.
            let _ = std::fs::remove_file(&record_path);
            return None;
        };
        // Recently used: the last to go when the directory is trimmed.
        for path in [&record_path, &payload_path] {
            let _ = std::fs::File::options().append(true).open(path).and_then(|f| f.set_modified(std::time::SystemTime::now()));
        }
        Some(payload)
    }

    /// Writes `payload`, whose SHA-256 is `digest`, and its record.
    fn put_local(&self, key: &Key, payload: &[u8], digest: &str) -> std::io::Result<()> {
        let dir = &self.config.dir;
        if self.unusable.is_some() {
            return Err(std::io::ErrorKind::Unsupported.into());
        }
        mark(dir)?;
        write_atomically(&dir.join("cas"), digest, payload)?;
        write_atomically(&dir.join("ac"), &key.hex(), record(key, digest, payload.len()).as_bytes())?;
        Ok(())
    }
}

/// Why `dir` cannot be the store's directory, if it cannot: it cannot be
/// made, or it holds other things and is not marked as a cache (the store
/// writes only in a directory of its own: `clean` may remove it). One that
/// can be read but not written (a read-only share) still serves.
fn unusable(dir: &Path) -> Option<String> {
    let why = match std::fs::create_dir_all(dir) {
        Err(_) if dir.is_dir() => return None,
        Err(e) => e.to_string(),
        Ok(()) if is_marked(dir) => return None,
        Ok(()) if std::fs::read_dir(dir).ok()?.next().is_none() => return None,
        Ok(()) => "it holds other files and is no clasp cache (name a new or an empty directory)".to_string(),
    };
    Some(format!("cannot use the cache directory {}: {why}; not caching", dir.display()))
}

/// Whether `dir` is marked as the store's: its tag, or (as clasp marked its
/// cache before it had one) a `.gitignore` of `*` alone.
fn is_marked(dir: &Path) -> bool {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    read("CACHEDIR.TAG").as_deref() == Some(CACHEDIR_TAG) || read(".gitignore").as_deref() == Some("*\n")
}

/// Marks `dir` as a cache, once: the tag, and a `.gitignore` of `*` in it and
/// in each folder (the store is never a change to review or commit, even in
/// a directory holding a `.gitignore` of its own).
fn mark(dir: &Path) -> std::io::Result<()> {
    let tag = dir.join("CACHEDIR.TAG");
    if tag.exists() {
        return Ok(());
    }
    for sub in ["", "ac", "cas"] {
        std::fs::create_dir_all(dir.join(sub))?;
        let ignore = dir.join(sub).join(".gitignore");
        if !ignore.exists() {
            std::fs::write(ignore, "*\n")?;
        }
    }
    write_atomically(dir, "CACHEDIR.TAG", CACHEDIR_TAG.as_bytes())
}

/// The record of an entry: the key it answers, and its payload's digest and size.
fn record(key: &Key, digest: &str, size: usize) -> String {
    format!("{RECORD_HEADER}\n{}\n{digest}\n{size}\n", key.hex())
}

/// Whether `payload` is the one a record names: its size and SHA-256.
fn is_whole(payload: &[u8], digest: &str, size: u64) -> bool {
    payload.len() as u64 == size && sha256_hex(payload) == digest
}

/// The payload's digest and size from a record, if it is whole and answers `key`.
fn parse_record(record: &[u8], key: &Key) -> Option<(String, u64)> {
    let text = std::str::from_utf8(record).ok()?;
    let lines: Vec<&str> = text.strip_suffix('\n')?.split('\n').collect();
    let [header, answered, digest, size] = lines[..] else { return None };
    let is_digest = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit());
    if header != RECORD_HEADER || answered != key.hex() || !is_digest {
        return None;
    }
    Some((digest.to_string(), size.parse().ok()?))
}

fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// The objects of a store directory: (path, size, last use).
fn objects(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut found = Vec::new();
    for sub in ["ac", "cas"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() && !entry.file_name().to_string_lossy().starts_with('.') {
                found.push((entry.path(), meta.len(), meta.modified().unwrap_or(std::time::UNIX_EPOCH)));
            }
        }
    }
    found
}

/// Removes the least recently used objects until the directory holds at most
/// three quarters of `max_bytes` (trimming again at once would cost a listing for little).
fn trim(dir: &Path, max_bytes: u64) -> std::io::Result<()> {
    let mut found = objects(dir);
    let mut total: u64 = found.iter().map(|(_, size, _)| size).sum();
    if total <= max_bytes {
        return Ok(());
    }
    found.sort_by_key(|(_, _, used)| *used);
    for (path, size, _) in found {
        if total <= max_bytes / 4 * 3 {
            break;
        }
        std::fs::remove_file(&path)?;
        total -= size;
    }
    Ok(())
}

/// Why `clean` removed nothing from a directory.
#[derive(Debug, PartialEq, Eq)]
pub enum NotCleaned {
    /// There is no such directory: nothing was stored there.
    Absent,
    /// The directory is not marked as clasp's cache (`CACHEDIR.TAG`): it is left alone.
    NotACache,
}

/// `clasp cache clean`: removes what the store put in `dir` (its folders, the
/// tag, its `.gitignore`), then `dir` if that left it empty; the objects
/// and bytes removed. Only from a directory the store marked: any other is
/// left as it is, however it is named.
pub fn clean(dir: &Path) -> std::io::Result<Result<(usize, u64), NotCleaned>> {
    let tag = dir.join("CACHEDIR.TAG");
    if !dir.exists() {
        return Ok(Err(NotCleaned::Absent));
    }
    if !is_marked(dir) {
        return Ok(Err(NotCleaned::NotACache));
    }
    let found = objects(dir);
    let bytes = found.iter().map(|(_, size, _)| size).sum();
    for sub in ["ac", "cas"] {
        if dir.join(sub).exists() {
            std::fs::remove_dir_all(dir.join(sub))?;
        }
    }
    let ignore = dir.join(".gitignore");
    if std::fs::read_to_string(&ignore).is_ok_and(|text| text == "*\n") {
        std::fs::remove_file(ignore)?;
    }
    if tag.exists() {
        std::fs::remove_file(tag)?;
    }
    // Left in place when something else is there: not the store's to remove.
    let _ = std::fs::remove_dir(dir);
    Ok(Ok((found.len(), bytes)))
}

#[cfg(test)]
mod tests;
