//! Verdicts kept in the store (`support::store`) across runs and runners: a
//! check of a unit with some of its change sets, and the proof of a unit's
//! required repairs, are named by everything that decides them, so a run
//! that finds one stored does not compile or compare again.
//!
//! What decides a check: clasp's and clang's builds (the store's stamp);
//! the unit's name, the file clang compiles and its virtual file (an
//! embedded kernel's, a program's); every file the unit read, by path and
//! bytes (a unit loaded now, or read back only while no header would now be
//! found before one it read: `migrate::reused`); the clang arguments of the baseline, the result and the
//! as-read build; the texts of the required repairs; the kernels compared,
//! the helpers left out; the texts checked and the proof's scope; and the
//! options a verdict reads. Verdicts hold names and messages only, no ids
//! of this run, so a stored one is what the check would find again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::front::unit::Unit;
use crate::settings::options::MigrateOptions;
use crate::support::ids::UnitId;
use crate::support::store::{Key, KeyBuilder, Store};

/// What every check of one unit shares besides its files (the checker's
/// view of the unit), for its digest.
pub(super) struct UnitChecks<'a> {
    pub(super) unit: &'a Unit,
    pub(super) target_args: &'a [String],
    pub(super) result_args: &'a [String],
    /// The required repairs' texts, or why they do not apply.
    pub(super) repairs: Result<BTreeMap<PathBuf, Vec<u8>>, String>,
    pub(super) kernels: &'a BTreeSet<String>,
    pub(super) left_out: Option<std::sync::Arc<BTreeSet<String>>>,
    pub(super) shared_functions: &'a BTreeSet<String>,
}

/// The store's part of settling: per unit, the digest of what every check of it shares.
#[derive(Default)]
pub(super) struct Stored {
    /// `None` for a unit whose verdicts are not kept (`unit_digest`).
    units: Vec<OnceLock<Option<[u8; 32]>>>,
}

impl Stored {
    pub(super) fn new(units: usize) -> Stored {
        Stored { units: (0..units).map(|_| OnceLock::new()).collect() }
    }

    /// The key of unit `u`'s check with `replaced` under `scope`, when the run has a store.
    pub(super) fn check_key<'o, 'c>(
        &self,
        options: &'o MigrateOptions,
        u: UnitId,
        checks: impl FnOnce() -> UnitChecks<'c>,
        replaced: &BTreeMap<PathBuf, Vec<u8>>,
        scope: &crate::verify::ProofScope,
    ) -> Option<(Key, &'o Store)> {
        let store = options.store.as_deref()?;
        let mut key = self.unit_key(store, "check", options, u, checks)?;
        for (path, text) in replaced {
            key.debug(path).bytes(text);
        }
        key.debug(&(&scope.merged, &scope.shared, scope.limit, scope.every_function));
        Some((key.finish(), store))
    }

    /// The key of the proof of unit `u`'s required repairs.
    pub(super) fn repairs_key<'o, 'c>(
        &self,
        options: &'o MigrateOptions,
        u: UnitId,
        checks: impl FnOnce() -> UnitChecks<'c>,
    ) -> Option<(Key, &'o Store)> {
        let store = options.store.as_deref()?;
        Some((self.unit_key(store, "repairs", options, u, checks)?.finish(), store))
    }

    fn unit_key<'c>(
        &self,
        store: &Store,
        kind: &str,
        options: &MigrateOptions,
        u: UnitId,
        checks: impl FnOnce() -> UnitChecks<'c>,
    ) -> Option<KeyBuilder> {
        let digest = self.units[u].get_or_init(|| unit_digest(&checks(), options)).as_ref()?;
        let mut key = store.key(kind);
        key.bytes(digest);
        Some(key)
    }
}

/// What every check of a unit shares, hashed; `None` for a unit whose text
/// asks whether a file exists (`__has_include`: what it finds absent is read
/// by no compile, so no key could hold it).
fn unit_digest(checks: &UnitChecks, options: &MigrateOptions) -> Option<[u8; 32]> {
    let unit = checks.unit;
    let mut key = KeyBuilder::new("unit", b"");
    key.debug(&(&unit.path, &unit.input, unit.label()));
    if let Some(file) = unit.virtual_file() {
        key.debug(&(file.path, file.map)).bytes(file.text);
    }
    for file in 0..unit.syntax.files.len() {
        let text = unit.text(file);
        if crate::support::store::asks_for_files(text) {
            return None;
        }
        key.debug(&unit.syntax.files[file]).debug(&unit.canonical(file)).bytes(text);
    }
    let as_read = unit.compile.clang_args_for(Some(&unit.standard.flags), crate::verify::EQUIVALENCE_TRIPLE);
    key.debug(&(checks.target_args, checks.result_args, as_read));
    key.debug(&checks.repairs);
    key.debug(&(checks.kernels, checks.left_out.as_deref(), checks.shared_functions));
    key.debug(&(options.target.name(), options.allow_unverified, options.proof_limit));
    Some(key.finish().bytes())
}

/// A verdict as stored.
pub(super) fn encode(verdict: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(verdict).unwrap_or_default()
}

/// A stored verdict; `None` when it does not read as one (another format).
pub(super) fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    serde_json::from_slice(bytes).ok()
}
