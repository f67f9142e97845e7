//! Detection: a unit's helper definitions as words (qualifiers of pointer
//! declarations, the function's own name and calls to other helpers
//! normalised), classes of identical definitions per unit, joined across
//! units and split into families of per-space copies. Computed once per
//! batch: it depends only on the units and the edit root.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashMapExt, HashSet};
use std::path::Path;
use std::sync::Arc;

use super::Member;
use crate::facts::syntax::{ByteRange, FileIndex, Function, FunctionRef, SourceToken, Space};
use crate::front::unit::Unit;
use crate::support::ids::{DeclKey, UnionFind, UnitId};

/// The batch's duplicate groups, with the per-unit views they were found in.
pub struct Detected<'u> {
    pub(super) views: Vec<UnitView<'u>>,
    /// Per unit: definition -> its class of duplicates there.
    pub(super) per_unit: Vec<BTreeMap<DeclKey, usize>>,
    pub(super) index: Index<'u>,
    /// Families of per-space copies, each of two or more definitions.
    pub(super) groups: Vec<BTreeSet<DeclKey>>,
}

impl<'u> Detected<'u> {
    /// Finds the groups of `units`, among definitions under `root`. Each
    /// unit is read and classed on the current rayon pool's threads.
    pub fn new(units: &'u [Unit], root: &Path) -> Detected<'u> {
        use rayon::prelude::*;
        let kept = std::sync::Mutex::new(Kept::default());
        let mut views: Vec<UnitView> = units.par_iter().map(|u| view(u, root, &kept)).collect();
        let mut per_unit: Vec<BTreeMap<DeclKey, usize>> = views.par_iter().map(classes).collect();
        let mut index = Index::new(&views);
        let groups: Vec<BTreeSet<DeclKey>> =
            join_units(&views, &per_unit).into_iter().flat_map(|g| partition(g, &index, &views)).collect();
        // Later questions are about groups only (their members, the helpers
        // members call): what is kept of the classes, the definitions and the
        // names is what they ask about, kept for the whole batch.
        let grouped: HashSet<DeclKey> = groups.iter().flatten().copied().collect();
        for classes in &mut per_unit {
            classes.retain(|key, _| grouped.contains(key));
        }
        index.name_grouped(units, &views, &grouped);
        for view in &mut views {
            view.defs.retain(|key, _| grouped.contains(key));
        }
        index.defining.retain(|key, _| grouped.contains(key));
        Detected { views, per_unit, index, groups }
    }

    /// The qualifier signature of a definition, as the first unit defining it reads it.
    pub(super) fn signature(&self, key: &DeclKey) -> Option<&Vec<Option<Space>>> {
        self.index.defining.get(key).and_then(|us| self.views[us[0]].defs.get(key)).map(|d| &d.signature)
    }

    /// The distinct qualifier signatures of a group's members.
    pub(super) fn signatures(&self, group: &BTreeSet<DeclKey>) -> BTreeSet<&Vec<Option<Space>>> {
        group.iter().filter_map(|k| self.signature(k)).collect()
    }
}

/// One word of a definition, coded for comparison.
#[derive(Debug, Clone, Copy)]
enum Word {
    /// A text, by its number in the unit.
    Text(u64),
    /// The function's own name.
    Own,
    /// A call to another helper definition, by its place (compared by its class).
    Callee(usize),
}

impl Word {
    /// The word as one number, calls by the callee's class: distinct words, distinct numbers.
    fn number(self, class: &[usize]) -> u64 {
        match self {
            Word::Text(n) => n << 2,
            Word::Own => 1,
            Word::Callee(i) => ((class[i] as u64) << 2) | 2,
        }
    }
}

/// Where each definition and each function name appears in the batch, so
/// that per-group questions do not scan every unit (a batch of a thousand
/// files has thousands of groups).
pub(super) struct Index<'u> {
    /// Definition -> the units defining it, in order.
    pub(super) defining: HashMap<DeclKey, Vec<UnitId>>,
    /// IR name of a grouped definition -> the units declaring, defining or
    /// naming a function of that name.
    pub(super) naming: HashMap<&'u str, BTreeSet<UnitId>>,
}

impl<'u> Index<'u> {
    fn new(views: &[UnitView]) -> Index<'u> {
        let mut defining: HashMap<DeclKey, Vec<UnitId>> = HashMap::new();
        for (u, view) in UnitId::enumerate(views) {
            for key in view.defs.keys() {
                defining.entry(*key).or_default().push(u);
            }
        }
        Index { defining, naming: HashMap::new() }
    }

    /// Fills `naming` for the IR names of the `grouped` definitions.
    fn name_grouped(&mut self, units: &'u [Unit], views: &[UnitView<'u>], grouped: &HashSet<DeclKey>) {
        let wanted: HashSet<&'u str> = (views.iter().flat_map(|v| v.defs.iter()))
            .filter(|(key, _)| grouped.contains(key))
            .map(|(_, def)| def.function.link_name.as_str())
            .collect();
        for (u, unit) in UnitId::enumerate(units) {
            let names = unit.syntax.functions.iter().map(|f| f.link_name.as_str());
            for name in names.chain(unit.syntax.references.iter().map(|r| r.link_name.as_str())) {
                if let Some(name) = wanted.get(name) {
                    self.naming.entry(name).or_default().insert(u);
                }
            }
        }
    }

    /// The units defining a member of `group`.
    pub(super) fn seeing(&self, group: &BTreeSet<DeclKey>) -> BTreeSet<UnitId> {
        group.iter().flat_map(|k| self.defining.get(k).into_iter().flatten().copied()).collect()
    }
}

/// A unit's helper definitions, normalised.
pub(super) struct UnitView<'u> {
    /// Definition -> how the unit reads it. Shared: every unit including a
    /// header reads its helpers alike, and holds one `Def` for the batch.
    pub(super) defs: BTreeMap<DeclKey, Arc<Def<'u>>>,
}

/// A helper definition as a unit reads it.
pub(super) struct Def<'u> {
    pub(super) function: &'u Function,
    /// Its words, with calls to helper definitions left as keys.
    pub(super) words: Arc<[RawWord<'u>]>,
    /// Per pointer declaration, the space of the qualifier the comparison ignores.
    pub(super) signature: Vec<Option<Space>>,
    /// Per pointer declaration, whether it points to read-only data (`const`, `__constant`).
    pub(super) read_only: Vec<bool>,
}

/// The words and definitions already read in the batch, each kept once.
#[derive(Default)]
struct Kept<'u> {
    words: HashSet<Arc<[RawWord<'u>]>>,
    /// (the function's address, its words' address) -> the definition.
    defs: HashMap<(usize, usize), Arc<Def<'u>>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum RawWord<'a> {
    Text(&'a str),
    Own,
    Callee(DeclKey),
}

/// A unit's helper definitions under the edit root, with their words
/// (read unlocked; `kept` locked once per unit to share them).
fn view<'u>(unit: &'u Unit, root: &Path, kept: &std::sync::Mutex<Kept<'u>>) -> UnitView<'u> {
    let (functions, link_to_key) = helper_defs(unit, root);
    let reader = WordReader::new(unit, link_to_key);
    let read: Vec<(DeclKey, &Function, Vec<RawWord>)> =
        functions.into_iter().map(|(key, function)| (key, function, reader.words(function))).collect();
    // A poisoned lock means another unit's reading panicked: the batch is failing anyway.
    let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let kept = &mut *kept;
    let defs = read
        .into_iter()
        .map(|(key, function, words)| {
            let words = crate::support::ids::intern(&mut kept.words, words);
            // One function read into the same words is one definition, whichever unit reads it.
            let identity = (function as *const Function as usize, words.as_ptr() as usize);
            let def = kept.defs.entry(identity).or_insert_with(|| {
                Arc::new(Def { function, signature: signature_of(function), read_only: read_only_of(function), words })
            });
            (key, def.clone())
        })
        .collect();
    UnitView { defs }
}

/// The unit's helper definitions under the edit root (not kernels, not
/// written by a macro, with tokens), and each one's key by its IR name.
fn helper_defs<'u>(unit: &'u Unit, root: &Path) -> (BTreeMap<DeclKey, &'u Function>, HashMap<&'u str, DeclKey>) {
    let mut defs = BTreeMap::new();
    let mut link_to_key: HashMap<&str, DeclKey> = HashMap::new();
    let helpers = unit
        .syntax
        .functions
        .iter()
        .map(|f| &**f)
        .filter(|f| f.is_definition && !f.is_kernel && f.in_macro.is_none() && !f.tokens.is_empty());
    for f in helpers {
        if crate::settings::root::is_under(root, unit.canonical(f.pos.file)) {
            let key = unit.key(f.pos.file, f.pos.offset);
            link_to_key.insert(&f.link_name, key);
            defs.insert(key, f);
        }
    }
    (defs, link_to_key)
}

/// Reads a definition's tokens as words, naming what each spelled call calls.
struct WordReader<'u> {
    /// Helper definitions by IR name.
    link_to_key: HashMap<&'u str, DeclKey>,
    /// Every user function's IR name (defined or only declared).
    user_functions: HashSet<&'u str>,
    /// Spelled calls by where they start.
    refs_at: HashMap<(FileIndex, u32), &'u FunctionRef>,
}

impl<'u> WordReader<'u> {
    fn new(unit: &'u Unit, link_to_key: HashMap<&'u str, DeclKey>) -> Self {
        let syntax = &unit.syntax;
        WordReader {
            link_to_key,
            user_functions: syntax.functions.iter().map(|f| f.link_name.as_str()).collect(),
            refs_at: syntax.references.iter().filter(|r| r.spelled).map(|r| ((r.range.file, r.range.start), r)).collect(),
        }
    }

    /// The definition's words, without the qualifiers the generic rewrite removes.
    fn words(&self, f: &'u Function) -> Vec<RawWord<'u>> {
        let file = f.extent.file;
        // The qualifiers the generic rewrite removes: the first level of each pointer (not of arrays).
        let ignored: Vec<ByteRange> = f
            .pointers
            .iter()
            .filter(|d| d.array.is_none())
            .filter_map(|d| d.levels.first().and_then(|l| l.spelling.range()))
            .filter(|r| r.file == file)
            .collect();
        f.tokens
            .iter()
            .filter(|token| !ignored.iter().any(|r| r.start <= token.start && token.start < r.end))
            .map(|token| self.word(f, token))
            .collect()
    }

    /// One token as a word: the function's own name, a call by what it calls, else its text.
    fn word(&self, f: &Function, token: &'u SourceToken) -> RawWord<'u> {
        if token.start == f.pos.offset && token.text == f.name {
            return RawWord::Own;
        }
        let Some(reference) = self.refs_at.get(&(f.extent.file, token.start)) else { return RawWord::Text(&token.text) };
        // Another helper by its class; another user function by its IR name, so calls
        // to two overloads of one name (`get(__global T *)`, `get(__local T *)`) differ.
        // A builtin by its name: `vload4` of a __global and of a __local pointer is one
        // generic builtin in 2.0 (and pins, where there is none, are the inference's).
        match self.link_to_key.get(reference.link_name.as_str()) {
            Some(callee) => RawWord::Callee(*callee),
            None if self.user_functions.contains(reference.link_name.as_str()) => RawWord::Text(&reference.link_name),
            None => RawWord::Text(&token.text),
        }
    }
}

/// Which declaration names which space: `f(__global a, b)` and `f(a, __global b)` differ.
fn signature_of(f: &Function) -> Vec<Option<Space>> {
    let file = f.extent.file;
    f.pointers
        .iter()
        .filter(|d| d.array.is_none())
        .map(|d| d.levels.first().filter(|l| l.spelling.range().is_some_and(|r| r.file == file)).map(|l| l.space))
        .collect()
}

/// Per pointer declaration (not arrays), whether it points to read-only data.
fn read_only_of(f: &Function) -> Vec<bool> {
    // `__constant float *` is implicitly const: its generic rewrite says so (`const float *`).
    let pointee_const = |d: &crate::facts::syntax::PointerDecl| {
        d.levels.first().is_some_and(|l| l.space == Space::Constant)
            || crate::facts::syntax::says_const(d.type_text.split('*').next().unwrap_or(""))
    };
    f.pointers.iter().filter(|d| d.array.is_none()).map(|d| pointee_const(d)).collect()
}

/// A unit's definitions partitioned into classes of duplicates: identical
/// words, calls compared by the callee's class, refined until stable.
fn classes(view: &UnitView) -> BTreeMap<DeclKey, usize> {
    let keys: Vec<&DeclKey> = view.defs.keys().collect();
    let index: HashMap<&DeclKey, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    // Each definition's words coded once as numbers (a text by its first
    // place in the unit), so that each round compares numbers, not texts:
    // the refinement was most of duplicate detection on big headers.
    let mut texts: HashMap<&str, u64> = HashMap::new();
    let coded: Vec<Vec<Word>> = keys
        .iter()
        .map(|key| {
            view.defs[*key]
                .words
                .iter()
                .map(|w| match w {
                    RawWord::Text(t) => {
                        let next = texts.len() as u64;
                        Word::Text(*texts.entry(t).or_insert(next))
                    }
                    RawWord::Own => Word::Own,
                    RawWord::Callee(k) => Word::Callee(index[k]),
                })
                .collect()
        })
        .collect();
    let mut class: Vec<usize> = (0..keys.len()).collect();
    loop {
        let mut first_with: HashMap<Vec<u64>, usize> = HashMap::new();
        let next: Vec<usize> = coded
            .iter()
            .enumerate()
            .map(|(i, words)| *first_with.entry(words.iter().map(|w| w.number(&class)).collect()).or_insert(i))
            .collect();
        if next == class {
            return keys.into_iter().copied().zip(class).collect();
        }
        class = next;
    }
}

/// Groups of two or more definitions found duplicates by some unit, joined across units.
fn join_units(views: &[UnitView], per_unit: &[BTreeMap<DeclKey, usize>]) -> Vec<BTreeSet<DeclKey>> {
    let mut joined = UnionFind::default();
    for (view, classes) in views.iter().zip(per_unit) {
        let mut first: BTreeMap<usize, &DeclKey> = BTreeMap::new();
        for key in view.defs.keys() {
            match first.get(&classes[key]) {
                Some(head) => joined.union(**head, *key),
                None => {
                    first.insert(classes[key], key);
                }
            }
        }
    }
    joined.sets().into_values().filter(|g| g.len() > 1).collect()
}

/// A joined group split into the merges the batch can make. Joining is
/// transitive: a unit including two headers finds `rows_sum_g`, `rows_sum_l`
/// (rows.h) and `cols_sum_g`, `cols_sum_l` (cols.h) all alike, and a
/// file's own `accum_g` joins a header's `sum_g` it copies. A merge is one
/// family of per-space copies: at most one member per qualifier signature
/// (same-qualifier copies are not per-space duplicates), and a member every
/// unit seeing the part sees (the one a merge could keep: no unit including
/// only rows.h can call a survivor from cols.h). Members pair up closest
/// first: in the same file, then by the longest name they share
/// (`rows_sum_g` with `rows_sum_l`); two in different files whose names
/// share nothing never pair.
fn partition(group: BTreeSet<DeclKey>, index: &Index, views: &[UnitView]) -> Vec<BTreeSet<DeclKey>> {
    let copies = copies_of(group, index, views);
    let families = join_families(&copies, candidate_pairs(&copies));
    families.into_iter().filter(|m| m.len() > 1).map(|m| m.into_iter().map(|i| copies[i].key).collect()).collect()
}

/// A member of a joined group, as `partition` weighs it.
struct SpaceCopy<'v> {
    key: DeclKey,
    seen_by: BTreeSet<UnitId>,
    signature: Option<&'v Vec<Option<Space>>>,
    name: &'v str,
}

/// The group's definitions, as the first unit defining each reads them.
fn copies_of<'v>(group: BTreeSet<DeclKey>, index: &Index, views: &'v [UnitView]) -> Vec<SpaceCopy<'v>> {
    group
        .into_iter()
        .filter_map(|key| {
            let units = index.defining.get(&key)?;
            let view = &views[units[0]];
            let def = view.defs.get(&key)?;
            let name = def.function.name.as_str();
            Some(SpaceCopy { seen_by: units.iter().copied().collect(), signature: Some(&def.signature), name, key })
        })
        .collect()
}

/// Candidate pairs (same file, shared name length, a, b), closest first
/// (deterministic: then by position). Same-signature copies never pair.
fn candidate_pairs(copies: &[SpaceCopy]) -> Vec<(bool, usize, usize, usize)> {
    let mut pairs: Vec<(bool, usize, usize, usize)> = Vec::new();
    for a in 0..copies.len() {
        for b in a + 1..copies.len() {
            if copies[a].signature == copies[b].signature {
                continue;
            }
            let same_file = copies[a].key.file == copies[b].key.file;
            let shared = shared_name_length(copies[a].name, copies[b].name);
            if same_file || shared > 0 {
                pairs.push((same_file, shared, a, b));
            }
        }
    }
    pairs.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then((x.2, x.3).cmp(&(y.2, y.3))));
    pairs
}

/// Union-find over copies, taking the pairs in order, a part joining another
/// only if the result is still one family: one member per signature, and one
/// member every unit seeing the part sees. The parts, by copy index.
fn join_families(copies: &[SpaceCopy], pairs: Vec<(bool, usize, usize, usize)>) -> Vec<Vec<usize>> {
    let mut part: Vec<usize> = (0..copies.len()).collect();
    let mut members: Vec<Vec<usize>> = (0..copies.len()).map(|i| vec![i]).collect();
    for (_, _, a, b) in pairs {
        let (pa, pb) = (part[a], part[b]);
        if pa == pb {
            continue;
        }
        let joined: Vec<usize> = members[pa].iter().chain(&members[pb]).copied().collect();
        let signatures: BTreeSet<_> = joined.iter().map(|&i| copies[i].signature).collect();
        let seen: BTreeSet<UnitId> = joined.iter().flat_map(|&i| copies[i].seen_by.iter().copied()).collect();
        let keeper = joined.iter().any(|&i| copies[i].seen_by.is_superset(&seen));
        if signatures.len() == joined.len() && keeper {
            for &i in &members[pb] {
                part[i] = pa;
            }
            members[pb].clear();
            members[pa] = joined;
        }
    }
    members
}

/// How much of their names two copies share: all of it for an overload set,
/// else the length of the stem a merge would name them by (0: nothing).
fn shared_name_length(a: &str, b: &str) -> usize {
    if a == b {
        return a.len() + 1;
    }
    super::name::stem_of(&[a, b]).map(|s| s.len()).unwrap_or(0)
}

impl Detected<'_> {
    /// The group's members in source order (file, then offset), as the first unit defining each names them.
    pub fn members_of(&self, units: &[Unit], group: &BTreeSet<DeclKey>) -> Vec<Member> {
        let (views, index) = (&self.views, &self.index);
        group
            .iter()
            .filter_map(|key| {
                let u = *index.defining.get(key)?.first()?;
                let f = views[u].defs.get(key)?.function;
                let at = units[u].position(f.pos);
                Some(Member {
                    name: f.name.clone(),
                    file: at.file,
                    line: at.line,
                    col: at.col,
                    key: *key,
                    link_name: f.link_name.clone(),
                    unit_file: units[u].syntax.files[f.pos.file].clone(),
                })
            })
            .collect()
    }

    /// The helper definitions a member calls, in any unit defining it.
    pub fn callees(&self, members: &[Member]) -> BTreeSet<DeclKey> {
        let (views, index) = (&self.views, &self.index);
        let mut out = BTreeSet::new();
        for m in members {
            for &u in index.defining.get(&m.key).into_iter().flatten() {
                for word in views[u].defs.get(&m.key).into_iter().flat_map(|d| d.words.iter()) {
                    if let RawWord::Callee(k) = word {
                        out.insert(*k);
                    }
                }
            }
        }
        out
    }
}
/// Where a member is defined in the files themselves (a program's source,
/// not the program's virtual text).
pub(super) use crate::input::source::Place;

/// The real places of a group's members.
pub(super) fn real_places(units: &[Unit], detected: &Detected, members: &[Member]) -> BTreeSet<Place> {
    members
        .iter()
        .filter_map(|m| {
            let u = *detected.index.defining.get(&m.key)?.first()?;
            let function = detected.views[u].defs.get(&m.key)?.function;
            Some(units[u].position(function.pos))
        })
        .collect()
}
