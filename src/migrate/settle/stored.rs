//! Verdicts kept in the store (`support::store`) across runs and runners: a
//! check of a unit with some of its change sets, and the proof of a unit's
//! required repairs, are named by everything that decides them, so a run
//! that finds one stored does not compile or compare again.
//!
//! What decides a check: clasp's and clang's builds (the store's stamp);
//! the unit's name, the file clang compiles and its virtual file (an
//! embedded kernel's, a program's); every file the unit read, by path and
//! bytes, and the names in each directory it searched (a new header may
//! shadow one); the clang arguments of the baseline, the result and the
//! as-read build; the texts of the required repairs; the kernels compared,
//! the helpers left out; the texts checked and the proof's scope; and the
//! options a verdict reads. Verdicts hold names and messages only, no ids
//! of this run, so a stored one is what the check would find again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::check::{Checker, Failure, Passed};
use crate::support::ids::UnitId;
use crate::support::store::{Key, KeyBuilder, Store};

/// The store's part of settling: per unit, the digest of what every check of it shares.
#[derive(Default)]
pub(super) struct Stored {
    units: Vec<OnceLock<[u8; 32]>>,
}

impl Stored {
    pub(super) fn new(units: usize) -> Stored {
        Stored { units: (0..units).map(|_| OnceLock::new()).collect() }
    }

    /// The key of unit `u`'s check with `replaced` under `scope`, when the run has a store.
    pub(super) fn check_key<'c>(
        &self,
        checker: &Checker<'c>,
        u: UnitId,
        replaced: &BTreeMap<PathBuf, Vec<u8>>,
        scope: &crate::verify::ProofScope,
    ) -> Option<(Key, &'c Store)> {
        let store = checker.options.store.as_deref()?;
        let mut key = self.unit_key(store, "check", checker, u);
        for (path, text) in replaced {
            key.debug(path).bytes(text);
        }
        key.debug(&(&scope.merged, &scope.shared, scope.limit, scope.every_function));
        Some((key.finish(), store))
    }

    /// The key of the proof of unit `u`'s required repairs.
    pub(super) fn repairs_key<'c>(&self, checker: &Checker<'c>, u: UnitId) -> Option<(Key, &'c Store)> {
        let store = checker.options.store.as_deref()?;
        Some((self.unit_key(store, "repairs", checker, u).finish(), store))
    }

    fn unit_key(&self, store: &Store, kind: &str, checker: &Checker, u: UnitId) -> KeyBuilder {
        let digest = self.units[u].get_or_init(|| unit_digest(checker, u));
        let mut key = store.key(kind);
        key.bytes(digest);
        key
    }
}

/// What every check of unit `u` shares, hashed.
fn unit_digest(checker: &Checker, u: UnitId) -> [u8; 32] {
    let unit = &checker.units[u];
    let options = checker.options;
    let mut key = KeyBuilder::new("unit", b"");
    key.debug(&(&unit.path, &unit.input, unit.label()));
    if let Some(file) = unit.virtual_file() {
        key.debug(&(file.path, file.map)).bytes(file.text);
    }
    let mut searched: BTreeSet<&Path> = unit.compile.include_dirs.iter().map(PathBuf::as_path).collect();
    let mut tests_presence = false;
    for file in 0..unit.syntax.files.len() {
        let text = unit.text(file);
        key.debug(&unit.syntax.files[file]).debug(&unit.canonical(file)).bytes(text);
        searched.extend(unit.syntax.files[file].parent());
        tests_presence |= memchr::memmem::find(text, b"__has_include").is_some();
    }
    // The files a unit includes are those this run's load found, so a header that
    // now shadows another is in the key already; a file only `__has_include`
    // looks for is not among them: its directories' names are.
    if tests_presence {
        let store_name = options.store.as_deref().and_then(|store| store.dir().file_name()).unwrap_or_default();
        for dir in searched {
            key.debug(&(dir, directory_names(dir, store_name)));
        }
    }
    let as_read = unit.compile.clang_args_for(Some(&unit.standard.flags), crate::verify::EQUIVALENCE_TRIPLE);
    key.debug(&(&checker.target_args[u], &checker.result_args[u], as_read));
    let repairs = crate::migrate::plan::apply(checker.plan, &checker.plan.required[u], &checker.files[u]);
    key.debug(&repairs.map_err(|e| e.to_string()));
    key.debug(&(&checker.kernels[u], &checker.left_out[u], &checker.shared_functions[u]));
    key.debug(&(options.target.name(), options.allow_unverified, options.proof_limit));
    key.finish().bytes()
}

/// A directory's entry names, sorted, but the store's own and clasp's temporary
/// files (`None`: it cannot be listed).
fn directory_names(dir: &Path, store: &std::ffi::OsStr) -> Option<Vec<std::ffi::OsString>> {
    let own = |name: &std::ffi::OsString| {
        name == store || name.to_string_lossy().starts_with(crate::isolation::TEMPORARY_PREFIX)
    };
    let mut names: Vec<std::ffi::OsString> =
        std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok().map(|e| e.file_name())).filter(|n| !own(n)).collect();
    names.sort();
    Some(names)
}

/// A check's verdict as stored.
pub(super) fn encode(verdict: &Result<Passed, Failure>) -> Vec<u8> {
    serde_json::to_vec(verdict).unwrap_or_default()
}

/// A stored verdict; `None` when it does not read as one (another format).
pub(super) fn decode(bytes: &[u8]) -> Option<Result<Passed, Failure>> {
    serde_json::from_slice(bytes).ok()
}

/// Whether a repairs proof was stored, and what it found (`Some(why)`: unproven).
pub(super) fn decode_repairs(bytes: &[u8]) -> Option<Option<String>> {
    serde_json::from_slice(bytes).ok()
}

pub(super) fn encode_repairs(why: &Option<String>) -> Vec<u8> {
    serde_json::to_vec(why).unwrap_or_default()
}
