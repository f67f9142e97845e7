//! A run's precompiled preambles of one kind, by key: what `lower::preamble`
//! (clang's compiles) and `parse::preamble` (libclang's parses) share.
//!
//! The first unit asking for a key compiles whole and weighs the preamble
//! (the bytes of the headers it read); a later one builds it, once, if it is
//! heavy enough (precompiling costs more than it saves for light headers),
//! while other threads asking wait for it. A built preamble whose files
//! changed since (a run after `--interactive` wrote its answers) is stale and
//! built again. The files live in a directory of the process's temporary
//! directory, deleted when the store is cleared (`crate::support::session`).

use std::collections::HashMap;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::support::ids::{hash_of, stamp, Stamp};
use crate::support::session::Shared;

/// Headers a precompiled preamble must weigh at least (with the compile's
/// other files) to be worth building: it costs about two compiles (the header,
/// and the preamble alone for the facts), and saves a share of each compile
/// as large as the headers' share of it. Measured with `scripts/bench`: 4,600
/// lines of shared headers (about 150 KB) compile 2-4x faster against one;
/// headers of a few KB (the small-files shape, 2-3 units a preamble) made
/// the batch 8% slower. OpenCL's base header (31 KB) is in every compile.
pub const WORTH_PRECOMPILING: u64 = 64 * 1024;

/// What a built preamble says of the files it was built from.
pub trait Built {
    /// Every file it read, as it was then.
    fn read(&self) -> &[(PathBuf, Option<Stamp>)];
}

/// Where a key's preamble stands for the unit asking.
pub enum Ready<B> {
    Built(Arc<B>),
    /// The first unit asking: it goes whole and weighs the preamble (`Precompiled::weigh`, with this hash).
    Weigh(u64),
}

type Slot<B> = Arc<OnceLock<Option<Arc<B>>>>;

struct Store<K, B> {
    dir: Option<tempfile::TempDir>,
    /// Preambles built so far: each at its own path, never reused.
    count: usize,
    built: HashMap<K, Slot<B>>,
    /// Per key hash, the bytes the first unit asking for it read besides its
    /// own file (`None` until it says). A collision only lends one preamble
    /// another's weight.
    weights: HashMap<u64, Option<u64>>,
}

impl<K, B> Default for Store<K, B> {
    fn default() -> Self {
        Store { dir: None, count: 0, built: HashMap::new(), weights: HashMap::new() }
    }
}

/// The preambles of one kind.
pub struct Precompiled<K, B> {
    /// The prefix of the store's directory's name.
    prefix: &'static str,
    /// What the build is timed as (`--timings`).
    timer: &'static str,
    store: Shared<Store<K, B>>,
}

impl<K: Hash + Eq + Clone + Send, B: Built + Send + Sync> Precompiled<K, B> {
    pub const fn new(prefix: &'static str, timer: &'static str) -> Self {
        Precompiled { prefix, timer, store: Shared::new() }
    }

    /// Whether `path` is in the store's directory (a preamble it built).
    pub fn holds(&'static self, path: &Path) -> bool {
        let Some(store) = self.store.lock() else { return false };
        store.dir.as_ref().is_some_and(|dir| path.starts_with(dir.path()))
    }

    /// The preamble for `key`: the first unit asking weighs it, a later one
    /// builds it with `build` (given a path of its own in the store's
    /// directory) if it is heavy enough; `None`: go whole.
    pub fn ready(&'static self, key: &K, build: impl FnOnce(&Path) -> Option<B>) -> Option<Ready<B>> {
        let (slot, path) = {
            let mut store = self.store.lock()?;
            if !store.built.contains_key(key) {
                let hash = hash_of(key);
                match store.weights.get(&hash) {
                    None => {
                        store.weights.insert(hash, None);
                        return Some(Ready::Weigh(hash));
                    }
                    Some(Some(bytes)) if *bytes >= WORTH_PRECOMPILING => {}
                    Some(_) => return None,
                }
            }
            let stale = store.built.get(key).and_then(|slot| slot.get()).and_then(Option::as_ref).is_some_and(|b| stale(&**b));
            if stale {
                store.built.remove(key);
            }
            if store.dir.is_none() {
                store.dir = tempfile::Builder::new().prefix(self.prefix).tempdir().ok();
            }
            let path = store.dir.as_ref()?.path().join(format!("{}", store.count));
            store.count += 1;
            (store.built.entry(key.clone()).or_default().clone(), path)
        };
        let built = slot.get_or_init(|| crate::support::timings::time(self.timer, || build(&path)).map(Arc::new));
        built.clone().map(Ready::Built)
    }

    /// Lets go of the preambles whose key `done` picks (a unit asking for one
    /// again builds it again), while the calling run is the only one in
    /// progress: what another run shares stays.
    pub fn forget(&'static self, done: impl Fn(&K) -> bool) {
        if let Some(mut store) = self.store.lock_if_alone() {
            store.built.retain(|key, _| !done(key));
        }
    }

    /// What the first unit of a preamble (`Ready::Weigh`) read: every file but
    /// `main`, in bytes, decides whether later units share a precompiled one.
    pub fn weigh(&'static self, hash: u64, main: &Path, read: &[PathBuf]) {
        let main = crate::support::overlay::canonical(main);
        let bytes = read
            .iter()
            .filter(|path| crate::support::overlay::canonical(path) != main)
            .filter_map(|path| std::fs::metadata(path).ok())
            .map(|metadata| metadata.len())
            .sum();
        if let Some(mut store) = self.store.lock() {
            store.weights.insert(hash, Some(bytes));
        }
    }
}

fn stale(built: &impl Built) -> bool {
    built.read().iter().any(|(path, then)| stamp(path) != *then)
}

/// Whether `args` put text before the main file (`-include`, `-include-pch`,
/// `-imacros`): a preamble precompiled on its own would not stand for it.
pub fn text_before_main(args: &[String]) -> bool {
    args.iter().any(|a| a.starts_with("-include") || a.starts_with("-imacros"))
}

/// A unit's arguments for its preamble compiled as a header (`-x cl`
/// becomes `-x cl-header`).
pub fn as_header(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut words = args.iter().peekable();
    while let Some(arg) = words.next() {
        if arg == "-x" && words.peek().is_some_and(|w| *w == "cl") {
            words.next();
            out.extend(["-x".to_string(), "cl-header".to_string()]);
        } else {
            out.push(arg.clone());
        }
    }
    out
}

/// The files a build read, stamped now (`None` when one has no stamp: a
/// file only an overlay provides, which could not go stale).
pub fn stamped(read: impl IntoIterator<Item = PathBuf>) -> Option<Vec<(PathBuf, Option<Stamp>)>> {
    let read: Vec<(PathBuf, Option<Stamp>)> = read
        .into_iter()
        .map(|path| {
            let then = stamp(&path);
            (path, then)
        })
        .collect();
    read.iter().all(|(_, then)| then.is_some()).then_some(read)
}
