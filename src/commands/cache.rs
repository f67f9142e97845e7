//! The result cache of `clasp migrate` (as ruff's `.ruff_cache`): a run that
//! writes nothing is stored under the edit root, in `.clasp_cache/`, keyed by
//! everything that decides its output (clasp's version, the arguments, the
//! working directory, the project's units and options, colour, clang's
//! executable), with the contents of every file the batch read and the
//! listing of every directory they, and the include paths, are in. A later
//! run with the same key whose files and directories are all unchanged
//! replays the stored stdout, stderr and exit code instead of parsing,
//! compiling and verifying: byte for byte what the run printed. A batch with
//! an error is not stored (its units' includes are not all known), nor a
//! run that writes, asks questions or reports its times. `--no-cache` turns
//! it off.
//!
//! Both live in the store (`support::store`): the run's result as one
//! entry (what it read, then what it printed), checked on read and bounded
//! as the verdicts are; `open_store` opens it for the migration, and `clasp
//! cache clean` removes it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::cli::args::MigrateArgs;
use crate::cli::project::Project;
use crate::migrate::report::Migration;
use crate::settings::options::MigrateOptions;
use crate::support::store::{asks_for_files, sha256_hex, Key, Store, StoreConfig, DIRECTORY};
use crate::support::style::Palettes;

/// Where one run's result is, or would be, stored.
pub struct Cache {
    store: Arc<Store>,
    key: Key,
}

/// A stored run: what it depends on and what it printed (the payload is
/// this as one JSON line, then stdout, then stderr).
#[derive(Serialize, Deserialize)]
struct Entry {
    /// Every file read, with the hash of its contents (`None`: it did not exist).
    files: Vec<(PathBuf, Option<String>)>,
    /// Every directory a file was looked for in, with the hash of its names.
    dirs: Vec<(PathBuf, Option<String>)>,
    code: i32,
    stdout_len: usize,
    stderr_len: usize,
}

impl Cache {
    /// The cache of this run, or `None` when the run is not one to cache.
    pub fn for_run(args: &MigrateArgs, palettes: Palettes, project: &Project, options: &MigrateOptions) -> Option<Cache> {
        let writes = args.write || args.interactive || args.out_dir.is_some();
        // The installed devices and their drivers decide a device target and check: not files clasp reads.
        let devices = args.device_check.is_some() || matches!(args.target, Some(crate::devices::TargetSpec::Device(_)));
        // A shard prints no result: its verdicts are what it keeps.
        let shard = args.shard.is_some();
        if writes || devices || shard || args.timings || crate::support::timings::requested() {
            return None;
        }
        let store = options.store.clone()?;
        let mut key = store.key("run");
        // What decides the output, not how the run gets to it: the workers, where entries
        // are kept, and the testing-only switch that asks for a stored result.
        let mut decisive = args.clone();
        (decisive.jobs, decisive.test_cache_only, decisive.store) = (None, false, Default::default());
        let decisive_options = MigrateOptions { jobs: 0, store: None, ..options.clone() };
        key.debug(&decisive);
        key.debug(&std::env::current_dir().ok());
        key.debug(&(palettes.stdout.on, palettes.stderr.on));
        key.bytes(format!("{:?}{:?}{:?}", project.jobs, project.host_files, project.target).as_bytes());
        key.debug(&decisive_options);
        key.debug(&std::env::var_os("CLASP_CLANG"));
        Some(Cache { store, key: key.finish() })
    }

    /// The stored output of an identical run over unchanged files, replayed.
    pub fn replay(&self, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Option<i32> {
        let payload = self.store.get(&self.key)?;
        let newline = payload.iter().position(|b| *b == b'\n')?;
        let entry: Entry = serde_json::from_slice(&payload[..newline]).ok()?;
        let unchanged = entry.files.iter().all(|(file, hash)| file_hash(file) == *hash)
            && entry.dirs.iter().all(|(dir, hash)| dir_hash(dir, self.store.dir()) == *hash);
        let printed = &payload[newline + 1..];
        if !unchanged || printed.len() != entry.stdout_len + entry.stderr_len {
            return None;
        }
        let (out, err) = printed.split_at(entry.stdout_len);
        let _ = stdout.write_all(out);
        let _ = stderr.write_all(err);
        Some(entry.code)
    }

    /// Stores what a run printed, when its batch had no error.
    pub fn store(&self, migration: &Migration, jobs: &[crate::input::config::Job], out: &[u8], err: &[u8], code: i32) {
        // A configuration discovery dropped read files no unit lists: such a run is done again.
        let dropped = migration.discovered.iter().any(|d| !d.analysed);
        if !migration.errors.is_empty() || !migration.unanalysable.is_empty() || dropped {
            return;
        }
        let inputs: Vec<PathBuf> = migration.inputs.iter().cloned().collect();
        let include_dirs: Vec<PathBuf> = jobs.iter().flat_map(|j| j.compile.include_dirs.iter().cloned()).collect();
        let extra: Vec<String> = jobs.iter().flat_map(|j| j.compile.clang_extra.iter().cloned()).collect();
        // And every path at which a new file would be found before one the batch read.
        let (canonical, searched) = crate::support::store::searched(&inputs, &include_dirs, &extra);
        let shadows = crate::support::store::shadowing_candidates(canonical.iter().map(PathBuf::as_path), &searched);
        // Each file read once: hashed, and looked at for a question no list answers.
        let mut asks = false;
        let files = (inputs.iter().chain(&shadows))
            .map(|file| {
                let bytes = crate::support::overlay::read(file).ok();
                asks |= bytes.as_deref().is_some_and(asks_for_files);
                (file.clone(), bytes.map(|bytes| hash_at(file, &bytes)))
            })
            .collect();
        // A file asking whether another exists found what no list holds: such a run is done again.
        if asks {
            return;
        }
        let dirs: BTreeSet<PathBuf> = searched.into_iter().collect();
        let dirs = dirs.into_iter().map(|d| (d.clone(), dir_hash(&d, self.store.dir()))).collect();
        let entry = Entry { files, dirs, code, stdout_len: out.len(), stderr_len: err.len() };
        let Ok(mut payload) = serde_json::to_vec(&entry) else { return };
        payload.push(b'\n');
        payload.extend_from_slice(out);
        payload.extend_from_slice(err);
        self.store.put(&self.key, &payload);
    }
}

/// The hash of a file's bytes and of where it is (a link pointed elsewhere is
/// another file, whatever its bytes), `None` when it cannot be read.
fn file_hash(path: &Path) -> Option<String> {
    crate::support::overlay::read(path).ok().map(|bytes| hash_at(path, &bytes))
}

/// The hash of `bytes`, read at `path`, and of where `path` leads.
fn hash_at(path: &Path, bytes: &[u8]) -> String {
    let place = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    sha256_hex(&[place.as_os_str().as_encoded_bytes(), &[0], bytes].concat())
}

/// The hash of a directory's entry names (a new file may shadow an included one).
fn dir_hash(dir: &Path, store: &Path) -> Option<String> {
    // The cache's own directory comes and goes with the first store: not a change of the tree.
    let own = store.file_name().unwrap_or_default();
    let mut names: Vec<std::ffi::OsString> =
        std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok().map(|e| e.file_name())).filter(|name| name != own).collect();
    names.sort();
    Some(sha256_hex(format!("{names:?}").as_bytes()))
}

/// The store's directory: `--cache-dir`, else `.clasp_cache` under the edit root.
fn store_dir(args: &crate::cli::args::StoreArgs, root: &Path) -> PathBuf {
    args.cache_dir.clone().unwrap_or_else(|| root.join(DIRECTORY))
}

/// The store of a migration's verdicts, unless `--no-cache`: keyed by this
/// build of clasp (its source's digest) and clang's version.
pub fn open_store(args: &MigrateArgs, root: &Path) -> Result<Option<std::sync::Arc<Store>>, super::Stop> {
    if args.no_cache {
        return Ok(None);
    }
    let config = StoreConfig {
        dir: store_dir(&args.store, root),
        remote: args.store.remote_cache.clone(),
        max_bytes: args.store.cache_size.saturating_mul(1 << 20),
    };
    let mut stamp = env!("CLASP_SOURCE_DIGEST").as_bytes().to_vec();
    stamp.extend(clang_version().map_err(super::Stop::clasp)?);
    // Where clang looks for headers besides the options, and what its driver takes from the
    // environment: part of every result.
    stamp.extend(format!("{:?}", crate::support::store::environment_dirs()).bytes());
    stamp.extend(format!("{:?}", std::env::var_os("CCC_OVERRIDE_OPTIONS")).bytes());
    Store::open(config, stamp).map(|store| Some(std::sync::Arc::new(store))).map_err(super::Stop::clasp)
}

/// What `clang --version` says of the clang that compiles (its build and
/// version): another clang may compile otherwise, so it is part of every key.
fn clang_version() -> Result<Vec<u8>, String> {
    let clang = crate::front::lower::clang_path().map_err(|e| e.to_string())?;
    let output = std::process::Command::new(&clang).arg("--version").output();
    match output {
        Ok(output) if output.status.success() => Ok(output.stdout),
        Ok(output) => Err(format!("{} --version failed: {}", clang.display(), String::from_utf8_lossy(&output.stderr))),
        Err(e) => Err(format!("cannot run {}: {e}", clang.display())),
    }
}

/// `clasp cache clean`: removes the cache directory's entries, and says what it held.
pub fn run(args: &crate::cli::args::CacheArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    use crate::support::exit::{EXIT_ERROR, EXIT_OK};
    use crate::support::store::NotCleaned;
    let crate::cli::args::CacheAction::Clean { path, cache_dir, root } = &args.action;
    let dir = match (cache_dir, root, path) {
        (Some(dir), _, _) => dir.clone(),
        (None, Some(root), _) => root.join(DIRECTORY),
        (None, None, path) => {
            let path = path.clone().unwrap_or_else(|| PathBuf::from("."));
            let root = if path.exists() {
                crate::settings::root::edit_root(std::slice::from_ref(&path), None).map_err(|e| e.to_string())
            } else {
                Err(format!("{}: no such file or directory", path.display()))
            };
            match root {
                Ok(root) => root.join(DIRECTORY),
                Err(message) => {
                    let _ = writeln!(stderr, "clasp: error: {message}");
                    return EXIT_ERROR;
                }
            }
        }
    };
    match crate::support::store::clean(&dir) {
        Ok(Ok((files, bytes))) => {
            let _ = writeln!(stdout, "removed the cache {} ({files} files, {bytes} bytes)", dir.display());
            EXIT_OK
        }
        Ok(Err(NotCleaned::Absent)) => {
            let _ = writeln!(stdout, "no cache at {}", dir.display());
            EXIT_OK
        }
        Ok(Err(NotCleaned::NotACache)) => {
            let _ = writeln!(
                stderr,
                "clasp: error: {} is not a clasp cache (it has no CACHEDIR.TAG of clasp's): left as it is",
                dir.display()
            );
            EXIT_ERROR
        }
        Err(e) => {
            let _ = writeln!(stderr, "clasp: error: cannot remove the cache {}: {e}", dir.display());
            EXIT_ERROR
        }
    }
}
