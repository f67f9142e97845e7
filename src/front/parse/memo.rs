//! The walk of a header function, done once per batch for every unit that
//! includes it the same way.
//!
//! Units of a big codebase include the same large headers through the same
//! preamble (`lower::preamble`), and walking their functions (tokens, pointer
//! declarations, the uses in their bodies) was most of the walk of each unit.
//! What a function's walk adds to a unit's syntax depends on: the text before
//! it (the same preamble, the same files as they are on disk, the same
//! arguments), every macro the unit defines (a macro is known by name to the
//! whole walk, whatever its place), and the files the walk has met so far
//! (a file's index is its place in that list). Those make the key, with the
//! function's place and the stage of the walk; a hit replays what the walk
//! added, in the same order, as the walk would have (files met, references,
//! `sizeof` and cast targets, the function, its `static` variables, its words).
//!
//! Only functions in files the preamble includes are shared: anything after
//! the preamble may differ from one unit to the next.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use crate::facts::syntax::*;
use crate::support::session::Shared;

/// What one function's walk added at one stage, to replay.
#[derive(Debug, Clone, Default)]
pub(super) struct Added {
    /// Files met for the first time, in order.
    pub(super) files: Vec<String>,
    pub(super) references: Arc<[FunctionRef]>,
    pub(super) unqualified_cast_args: Vec<UnqualifiedCastArg>,
    pub(super) sizeof_targets: Vec<(FileIndex, u32)>,
    pub(super) cast_targets: Vec<((FileIndex, u32), NamedCast)>,
    pub(super) function: Option<std::sync::Arc<Function>>,
    pub(super) program_vars: Vec<ProgramVar>,
    pub(super) identifiers: Arc<[String]>,
}

/// The stages of the walk that visit a function, and a program-scope variable's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Stage {
    Uses,
    Declaration,
    Variable,
}

/// A function's walk at one stage, in one context.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    /// The unit's preamble (`Preamble::identity`): what walks are let go of by.
    pub(super) preamble: u64,
    /// The unit's context: preamble, files on disk, arguments, macros.
    pub(super) context: u64,
    /// The files met so far, in order.
    pub(super) files: u64,
    pub(super) file: FileIndex,
    pub(super) offset: u32,
    /// The function's link name: a macro can define several functions at one place.
    pub(super) name: String,
    pub(super) stage: Stage,
}

/// The runs of words a unit met, and their union.
type SharedWords = (Vec<Arc<[String]>>, Arc<std::collections::BTreeSet<String>>);

#[derive(Default)]
struct Store {
    /// By preamble, then by key.
    walks: HashMap<u64, HashMap<Key, Arc<Added>>>,
    /// The shared walks' words a unit met (by the runs' addresses, in
    /// order) -> the runs, held so that no address is reused while the
    /// key stands (a walk two units made at once keeps one unit's), and
    /// their union, one set for those units.
    words: HashMap<Vec<usize>, SharedWords>,
    /// `#if`-skipped ranges, each once (a header's is the same in every unit including it alike).
    skipped: std::collections::HashSet<Arc<SkippedRange>>,
    /// The words of shared walks, each run once: a header function walked in
    /// every include set that holds it writes the same words in each (most of
    /// the store's memory on big-header code when each context had its own copy).
    word_runs: std::collections::HashSet<Arc<[String]>>,
}

static STORE: Shared<Store> = Shared::new();

/// The walk stored under `key`, if a unit made it.
pub(super) fn find(key: &Key) -> Option<Arc<Added>> {
    let found = STORE.lock()?.walks.get(&key.preamble)?.get(key).cloned();
    #[cfg(test)]
    if found.is_some() {
        tests::HITS.with(|hits| hits.set(hits.get() + 1));
    }
    found
}

/// Stores a walk for the units after this one.
pub(super) fn keep(key: Key, added: Added) {
    if let Some(mut store) = STORE.lock() {
        store.walks.entry(key.preamble).or_default().entry(key).or_insert_with(|| Arc::new(added));
    }
}

/// Lets go of the walks of units parsed with `preamble`, once no unit left
/// to load has it: a batch of many include sets would otherwise hold one
/// entry per header function and set until the batch is loaded.
pub(super) fn forget_preamble(preamble: u64) {
    if let Some(mut store) = STORE.lock_if_alone() {
        store.walks.remove(&preamble);
    }
}

/// The union of the words of shared walks `runs` (each an `Added::identifiers`),
/// one value for every unit that met the same runs.
pub(super) fn shared_words(runs: &[Arc<[String]>]) -> Arc<std::collections::BTreeSet<String>> {
    let union = || Arc::new(runs.iter().flat_map(|run| run.iter().cloned()).collect());
    let key: Vec<usize> = runs.iter().map(|run| run.as_ptr() as usize).collect();
    match STORE.lock() {
        Some(mut store) => store.words.entry(key).or_insert_with(|| (runs.to_vec(), union())).1.clone(),
        None => union(),
    }
}

/// The words a shared walk writes, or the equal run a walk in another context wrote.
pub(super) fn intern_words(words: Vec<String>) -> Arc<[String]> {
    match STORE.lock() {
        Some(mut store) => crate::support::ids::intern(&mut store.word_runs, words),
        None => words.into(),
    }
}

/// Each file's conditional directives (`branches::directives`), by its name
/// and a hash of its bytes: raw tokens are the same in every unit reading the
/// same bytes, and a big header's are a walk of their own.
static DIRECTIVES: Shared<HashMap<(String, u64), Directives>> = Shared::new();

/// A file's directives, shared by every unit reading it.
type Directives = Arc<[super::branches::Directive]>;

/// The directives of the file `key` names, read by `read` once per batch.
pub(super) fn file_directives(key: (String, u64), read: impl FnOnce() -> Vec<super::branches::Directive>) -> Directives {
    // `read` always gives a value, so one always comes back.
    DIRECTIVES.get_or_read(&key, || key.clone(), || Some(read().into())).unwrap_or_default()
}

/// Lets go of the walks kept to replay and of the directives read, once a
/// batch is loaded (when no other run is in progress: `lock_if_alone`): the
/// units hold what they share of them, and the store
/// held one entry per function and include set (tens of megabytes on a big
/// batch of many include sets, most never replayed).
pub(super) fn forget() {
    if let Some(mut store) = STORE.lock_if_alone() {
        *store = Store::default();
    }
    if let Some(mut directives) = DIRECTIVES.lock_if_alone() {
        directives.clear();
    }
}

/// `skipped`, or the equal range a unit read before.
pub(super) fn intern_skipped(skipped: SkippedRange) -> Arc<SkippedRange> {
    match STORE.lock() {
        Some(mut store) => crate::support::ids::intern_value(&mut store.skipped, skipped),
        None => Arc::new(skipped),
    }
}

#[cfg(test)]
mod tests {
    use crate::front::parse::{Parser, Preamble};
    use crate::support::session::Session;

    thread_local! {
        /// Walks this thread replayed (tests parse on their own thread).
        pub(super) static HITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    const HEADER: &str = "#define GLOBAL_AS __global\n\
        typedef GLOBAL_AS float *gptr;\n\
        __constant float table[2] = {1.0f, 2.0f};\n\
        float first(GLOBAL_AS const float *p) { return p[0] * (float)sizeof(p); }\n\
        void copy(gptr dst, __constant float *src) { dst[0] = src[0]; }\n\
        float pick(GLOBAL_AS float *p) { return first((__global const float *)p) + first(p); }\n\
        inline static void fill(__local float *l) { static __constant float one = 1.0f; l[0] = one; }\n";

    /// A unit whose header functions' walks are replayed from another unit's
    /// has the syntax it has walked whole.
    #[test]
    fn a_replayed_walk_is_the_whole_walk() {
        let _session = Session::begin();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("h.h"), HEADER).unwrap();
        let args = crate::settings::options::CompileOptions::default().clang_args(None);
        let parser = Parser::new().unwrap();
        let units = [
            ("a.cl", "// a\n#include \"h.h\"\n\nkernel void ka(__global float *o) { o[0] = pick(o); copy(o, table); }\n"),
            ("b.cl", "// b, with another comment\n#include \"h.h\"\n\nkernel void kb(__global float *o) { o[1] = first(o); }\n"),
            // A header after its own code: not the preamble's; the files the walk has met
            // differ from a's and b's, so nothing is replayed.
            (
                "c.cl",
                "// c\n#include \"h.h\"\n\nfloat own(void) { return 1.0f; }\n#include \"later.h\"\nkernel void kc(__global float *o) { o[1] = first(o) + later(o) + own(); }\n",
            ),
        ];
        std::fs::write(dir.path().join("later.h"), "float later(__global float *p) { return p[2]; }\n").unwrap();
        let before = HITS.with(|h| h.get());
        for (name, text) in units {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let preamble = Some(Preamble::of(&path, text.as_bytes(), &args).unwrap());
            let shared = parser.parse_sharing(&path, text.as_bytes(), &args, preamble).unwrap();
            let whole = parser.parse(&path, text.as_bytes(), &args).unwrap();
            let json = |s: &crate::facts::syntax::KernelSyntax| {
                (serde_json::to_string_pretty(s).unwrap(), format!("{:?}", s.identifiers))
            };
            assert_eq!(json(&shared), json(&whole), "{name}");
        }
        // Four functions, each walked twice (their uses, then their declaration), and the
        // program-scope `table`, replayed in b only.
        assert_eq!(HITS.with(|h| h.get()) - before, 9);
    }
}
