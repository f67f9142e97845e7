//! Units kept in the store (`support::store`) across runs: a unit whose
//! files are all as they were when it was loaded is read back instead of
//! parsed and lowered again (`front::stored`).
//!
//! Two entries per unit, as ccache's direct mode keeps them: what the job is
//! (its file, options, configuration and the target, with clasp's and
//! clang's builds) names the list of files its load read; that key with
//! each listed file's path and bytes names the loaded unit. A unit whose
//! text includes one more header, or any header edited, misses, is loaded
//! and stored again; so does one for which a searched directory gained a
//! file that would now be found first (`store::shadowing_candidates`).
//! A unit whose code clang rejects is kept as its message, so a file that
//! does not compile (or a configuration discovery derives that does not)
//! costs a parse only when it or a file it reads changes; not one missing a
//! header (clang's `file not found`: that header is in no list). Not kept: a unit
//! whose text asks whether a file exists (`__has_include`:
//! what it finds absent is no file its load read), and one read as the
//! target's standard after CL1.2 rejected it (`--std auto`: the files the
//! rejected parse read are in no list).
//!
//! Kernels embedded in host code and `[[program]]`s are compiled from a
//! scratch copy made for each run, so they are loaded every run.

use std::path::PathBuf;

use sha2::Digest;

use crate::front::unit::{Unit, UnitError};
use crate::input::config::Job;
use crate::settings::options::MigrateOptions;
use crate::support::ids::Stamp;
use crate::support::session::Shared;
use crate::support::store::{Key, KeyBuilder, Store};

/// The files a job's load read: each as clang names it.
type Files = Vec<PathBuf>;

/// What a stored failure starts with (its message follows): a unit clang
/// rejects is rejected again while its files are as they were.
const FAILURE: &[u8] = b"clasp-unit-failure 1\n";

/// The stored unit of `job`, or the message it was rejected with and the
/// files its parse read, if its files are unchanged since it was stored.
pub(super) fn find(job: &Job, options: &MigrateOptions) -> Option<Result<Unit, (String, Files)>> {
    let store = reusable(job, options)?;
    let job_key = job_key(store, job, options);
    let files: Files = serde_json::from_slice(&store.get(&job_key)?).ok()?;
    let unit_key = unit_key(store, &job_key, &files, job)?;
    let stored = store.get(&unit_key)?;
    if let Some(message) = stored.strip_prefix(FAILURE) {
        return Some(Err((String::from_utf8(message.to_vec()).ok()?, files)));
    }
    crate::front::stored::decode(&stored, None, None).map(Ok)
}

/// Keeps what loading `job` gave, for the next run: the unit, or the
/// message of a unit whose code clang rejects (not a tool's failure).
pub(super) fn keep(job: &Job, options: &MigrateOptions, loaded: &Result<Unit, UnitError>) {
    let Some(store) = reusable(job, options) else { return };
    let (files, payload) = match loaded {
        Ok(unit) => {
            let first = job.compile.std.candidates(options.target).first().map(|standard| standard.std);
            if first != Some(unit.standard.std) {
                return;
            }
            (unit.syntax.files.clone(), crate::front::stored::encode(unit))
        }
        // Only one whose reads are all known: a header clang did not find is in no
        // list, and a run after it appears must parse again.
        Err(error @ UnitError::Syntax { .. }) if error.files_read().1 => {
            (error.files_read().0.to_vec(), Some([FAILURE, error.to_string().as_bytes()].concat()))
        }
        Err(_) => return,
    };
    let job_key = job_key(store, job, options);
    let Some(unit_key) = unit_key(store, &job_key, &files, job) else { return };
    let (Ok(listed), Some(payload)) = (serde_json::to_vec(&files), payload) else { return };
    store.put(&unit_key, &payload);
    store.put(&job_key, &listed);
}

/// The store, for a job whose unit can be kept.
fn reusable<'o>(job: &Job, options: &'o MigrateOptions) -> Option<&'o Store> {
    let plain = job.embedded.is_none() && job.program.is_none();
    options.store.as_deref().filter(|_| plain)
}

fn job_key(store: &Store, job: &Job, options: &MigrateOptions) -> Key {
    let mut key = store.key("unit-files");
    key.debug(&(&job.path, &job.configuration, &job.compile, options.target.name()));
    key.debug(&std::env::current_dir().ok());
    key.finish()
}

/// What a file's bytes are: their SHA-256, or `None` when it cannot be read
/// or asks whether files exist (`__has_include`: what it finds absent is no
/// file a load read, so no unit reading it is kept). Read once per run
/// however many units read it (a batch's units read the same headers),
/// again when its size or time changed (a run after `--interactive` wrote).
fn content_digest(file: &std::path::Path) -> Option<[u8; 32]> {
    type Known = foldhash::HashMap<PathBuf, (Stamp, Option<[u8; 32]>)>;
    static DIGESTS: Shared<Known> = Shared::new();
    // A text laid over a path is what is read there, whatever the file's stamp: read every time.
    let stamp = crate::support::ids::stamp(file).filter(|_| !crate::support::overlay::is_laid(file));
    let known = DIGESTS.lock().and_then(|digests| digests.get(file).copied());
    if let (Some(now), Some((then, digest))) = (stamp, known) {
        if now == then {
            return digest;
        }
    }
    let digest = crate::support::overlay::read(file)
        .ok()
        .filter(|text| !crate::support::store::asks_for_files(text))
        .map(|text| sha2::Sha256::digest(&text).into());
    if let (Some(stamp), Some(mut digests)) = (stamp, DIGESTS.lock()) {
        digests.insert(file.to_path_buf(), (stamp, digest));
    }
    digest
}

/// The key of the unit read from `files` as they are now; `None` when one cannot be read.
fn unit_key(store: &Store, job_key: &Key, files: &Files, job: &Job) -> Option<Key> {
    let mut key: KeyBuilder = store.key("unit");
    key.bytes(&job_key.bytes());
    for file in files {
        key.debug(file).bytes(&content_digest(file)?);
    }
    // A header that would now be found before one the unit read makes it another unit.
    let (canonical, searched) = crate::support::store::searched(files, &job.compile.include_dirs, &job.compile.clang_extra);
    key.debug(&canonical);
    for candidate in crate::support::store::shadowing_candidates(canonical.iter().map(PathBuf::as_path), &searched) {
        key.debug(&(candidate.exists(), &candidate));
    }
    Some(key.finish())
}
