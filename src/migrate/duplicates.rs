//! Duplicates: helper definitions written once per address space, found
//! across the batch, and which of them merge into one generic definition.
//!
//! Two helper definitions are duplicates when their tokens as written are
//! the same except for the address-space qualifiers of their pointer
//! declarations, their own names, and calls to functions that are
//! themselves duplicates of each other (so `mid_g` -> `leaf_g` and `mid_l`
//! -> `leaf_l` are found together: classes are refined until stable).
//! Comments and blanks never count; any other token does, so a
//! near-duplicate stays. Units are compared on their own and their answers
//! joined: two definitions in a header are duplicates only if every unit
//! seeing both agrees.
//!
//! A group merges the members whose qualified pointers all become generic
//! under the inference (a `__constant` member, or one pinned by a builtin,
//! stays as its own function), provided no member is used in a way clasp
//! cannot rename (its address taken, named by a macro body or in
//! `#if`-skipped code) and one member is defined, before every use, in every
//! unit that sees the group: that one survives, under the group's common
//! name when it is free.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::infer::{Decision, DeclDecision};
use crate::rules::merge_duplicates::{self, MergeEdits};
use crate::rules::Fix;
use crate::syntax::{ByteRange, FileId, Function, FunctionRef, Space};
use crate::unit::Unit;

/// A helper definition across the batch: its file's canonical path and its name's offset.
pub type DefKey = (PathBuf, u32);

/// A member of a group, for messages and reports.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Member {
    pub name: String,
    pub file: PathBuf,
    pub line: u32,
    #[serde(skip)]
    pub key: DefKey,
    #[serde(skip)]
    pub link_name: String,
}

impl Member {
    /// `dot_l` (a.cl:12)
    pub fn cited(&self) -> String {
        format!("`{}` ({}:{})", self.name, self.file.display(), self.line)
    }
}

/// A merge to make: one change set with the generic rewrites of its members.
#[derive(Debug, Clone)]
pub struct Merge {
    /// The members that become one, the survivor first.
    pub members: Vec<Member>,
    /// Members of the group that stay as they are, with why.
    pub kept: Vec<(Member, String)>,
    /// The survivor's name after the merge.
    pub name: String,
    pub fix: Fix,
    /// The units that see a member.
    pub units: BTreeSet<usize>,
    /// Keys of the members' declarations that become generic: their fixes join the merge's set.
    pub decl_keys: Vec<(PathBuf, u32)>,
    /// Other merges this one needs (its members call theirs).
    pub depends_on: BTreeSet<usize>,
    /// Files the merge edits: (canonical path, a unit that has it, its id there).
    pub files: Vec<(PathBuf, usize, FileId)>,
}

/// A group of duplicates that is not merged, with a stable reason code.
#[derive(Debug, Clone, Serialize)]
pub struct Unmerged {
    pub members: Vec<Member>,
    pub reason: &'static str,
    pub detail: String,
}

impl Unmerged {
    pub fn names(&self) -> String {
        self.members.iter().map(|m| format!("`{}`", m.name)).collect::<Vec<_>>().join(", ")
    }
}

/// Reason codes of groups that are not merged.
pub const ADDRESS_TAKEN: &str = "address-taken";
pub const MACRO: &str = "macro";
pub const SKIPPED_IF: &str = "skipped-if";
pub const CONFIGURATION: &str = "configuration";
pub const OUTSIDE_ROOT: &str = "outside-root";
pub const PINNED: &str = "pinned";
pub const CALLS_UNMERGED: &str = "calls-unmerged";
pub const NO_SURVIVOR: &str = "no-survivor";
pub const DECLARED_ELSEWHERE: &str = "declared-elsewhere";

/// What the batch's duplicates come to.
#[derive(Debug, Default)]
pub struct Duplicates {
    pub merges: Vec<Merge>,
    pub unmerged: Vec<Unmerged>,
}

/// Checks new names: returns those already taken (keywords, builtins).
pub type NameProbe<'a> = &'a dyn Fn(&[String]) -> Result<BTreeSet<String>, String>;

/// One word of a definition, normalised for comparison.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Word<'a> {
    Text(&'a str),
    /// The function's own name.
    Own,
    /// A call to another helper definition, by its class.
    Callee(usize),
}

/// Where each definition and each function name appears in the batch, so
/// that per-group questions do not scan every unit (a batch of a thousand
/// files has thousands of groups).
struct Index<'u> {
    /// Definition -> the units defining it, in order.
    defining: HashMap<DefKey, Vec<usize>>,
    /// IR name -> the units declaring, defining or naming a function of that name.
    naming: HashMap<&'u str, BTreeSet<usize>>,
}

impl<'u> Index<'u> {
    fn new(units: &'u [Unit], views: &[UnitView]) -> Index<'u> {
        let mut defining: HashMap<DefKey, Vec<usize>> = HashMap::new();
        for (u, view) in views.iter().enumerate() {
            for key in view.defs.keys() {
                defining.entry(key.clone()).or_default().push(u);
            }
        }
        let mut naming: HashMap<&str, BTreeSet<usize>> = HashMap::new();
        for (u, unit) in units.iter().enumerate() {
            let names = unit.syntax.functions.iter().map(|f| f.link_name.as_str());
            for name in names.chain(unit.syntax.references.iter().map(|r| r.link_name.as_str())) {
                naming.entry(name).or_default().insert(u);
            }
        }
        Index { defining, naming }
    }

    /// The units defining a member of `group`.
    fn seeing(&self, group: &BTreeSet<DefKey>) -> BTreeSet<usize> {
        group.iter().flat_map(|k| self.defining.get(k).into_iter().flatten().copied()).collect()
    }
}

/// A unit's helper definitions, normalised.
struct UnitView<'u> {
    /// Definition -> the function.
    defs: BTreeMap<DefKey, &'u Function>,
    /// Definition -> its words, with calls to helper definitions left as keys.
    words: BTreeMap<DefKey, Vec<RawWord<'u>>>,
    /// Definition -> per pointer declaration, the space of the qualifier the comparison ignores.
    signature: BTreeMap<DefKey, Vec<Option<Space>>>,
    /// Definition -> per pointer declaration, whether it points to read-only data (`const`, `__constant`).
    read_only: BTreeMap<DefKey, Vec<bool>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum RawWord<'a> {
    Text(&'a str),
    Own,
    Callee(DefKey),
}

/// Finds the batch's duplicate groups and decides which merge.
pub fn find(
    units: &[Unit],
    decisions: &[Vec<DeclDecision>],
    root: &Path,
    withdrawn: &BTreeMap<DefKey, (&'static str, String)>,
    taken: NameProbe,
    constant_stays: &BTreeMap<DefKey, String>,
) -> Duplicates {
    let views: Vec<UnitView> = units.iter().map(|u| view(u, root)).collect();
    let per_unit: Vec<BTreeMap<DefKey, usize>> = views.iter().map(classes).collect();
    let index = Index::new(units, &views);
    let groups = join_units(&views, &per_unit).into_iter().flat_map(|g| partition(g, &index, &views));
    let mut out = Duplicates::default();
    let mut candidates = Vec::new();
    for group in groups {
        let members = members_of(units, &views, &index, &group);
        let signatures: BTreeSet<&Vec<Option<Space>>> =
            group.iter().filter_map(|k| index.defining.get(k).and_then(|us| views[us[0]].signature.get(k))).collect();
        // Copies with the same qualifiers are not per-space duplicates: not clasp's business.
        if signatures.len() < 2 {
            continue;
        }
        let seeing = index.seeing(&group);
        let (declaring, refused) = batch_refusal(units, &views, &index, &per_unit, &group, &members, &seeing, root, withdrawn);
        if let Some((reason, detail)) = refused {
            out.unmerged.push(Unmerged { members, reason, detail });
            continue;
        }
        let kept = unmergeable_members(units, &views, decisions, &members, &seeing, constant_stays);
        candidates.push(Candidate { members, kept, seeing, declaring });
    }
    let grouped: BTreeSet<DefKey> = candidates
        .iter()
        .flat_map(|c| c.members.iter())
        .chain(out.unmerged.iter().flat_map(|g| g.members.iter()))
        .map(|m| m.key.clone())
        .collect();
    keep_what_would_lose_const(units, &views, &mut candidates);
    drop_calls_to_unmerged(&views, &index, &grouped, &mut candidates);
    let stems: Vec<Option<String>> = candidates.iter().map(|c| stem(&c.merging())).collect();
    let mut probe: Vec<String> = stems.iter().flatten().cloned().collect();
    probe.sort();
    probe.dedup();
    let taken = taken(&probe).unwrap_or_else(|_| probe.iter().cloned().collect());
    let mut claimed: BTreeSet<String> = BTreeSet::new();
    let index_of_member: BTreeMap<DefKey, usize> =
        candidates.iter().enumerate().flat_map(|(i, c)| c.merging().into_iter().map(move |m| (m.key.clone(), i))).collect();
    let mut merge_of_candidate: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, candidate) in candidates.iter().enumerate() {
        let merging = candidate.merging();
        if merging.len() < 2 {
            let detail = candidate.kept.iter().map(|(m, why)| format!("{} {why}", m.cited())).collect::<Vec<_>>().join("; ");
            let reason = if candidate.kept.iter().any(|(_, why)| why.contains("calls ")) { CALLS_UNMERGED } else { PINNED };
            out.unmerged.push(Unmerged { members: candidate.members.clone(), reason, detail });
            continue;
        }
        let Some(survivor) = survivor(units, &views, &merging, &candidate.seeing) else {
            let detail = "no member is defined before every use of the group in every unit that sees it".to_string();
            out.unmerged.push(Unmerged { members: candidate.members.clone(), reason: NO_SURVIVOR, detail });
            continue;
        };
        let touched: BTreeSet<usize> = candidate.seeing.union(&candidate.declaring).copied().collect();
        let name = new_name(&merging, &survivor, stems[i].as_deref(), &taken, &claimed, units, &touched);
        claimed.insert(name.clone());
        let mut members: Vec<Member> = vec![survivor.clone()];
        members.extend(merging.into_iter().filter(|m| m.key != survivor.key));
        let depends_on = callees(&views, &index, &members)
            .into_iter()
            .filter_map(|k| index_of_member.get(&k).copied())
            .filter(|j| *j != i)
            .collect();
        merge_of_candidate.insert(i, out.merges.len());
        out.merges.push(build(units, &views, decisions, candidate, members, name, depends_on));
    }
    // Dependencies were found as candidate indexes: make them merge indexes.
    for merge in out.merges.iter_mut() {
        merge.depends_on = merge.depends_on.iter().filter_map(|c| merge_of_candidate.get(c).copied()).collect();
    }
    out
}

/// A member of a per-space duplicate group that takes `__constant` pointers:
/// it joins the merge only if the tables they receive move to `__global`.
#[derive(Debug, Clone)]
pub struct ConstantTwin {
    pub key: DefKey,
    /// `norm2_c` (a.cl:7)
    pub cited: String,
    /// The other members: `norm2_g`, `norm2_l`.
    pub others: String,
}

/// The `__constant` members of the batch's duplicate groups that pass the
/// batch-wide checks (so moving their tables can let them merge).
pub fn constant_twins(units: &[Unit], root: &Path, withdrawn: &BTreeMap<DefKey, (&'static str, String)>) -> Vec<ConstantTwin> {
    let views: Vec<UnitView> = units.iter().map(|u| view(u, root)).collect();
    let per_unit: Vec<BTreeMap<DefKey, usize>> = views.iter().map(classes).collect();
    let mut out = Vec::new();
    let index = Index::new(units, &views);
    for group in join_units(&views, &per_unit).into_iter().flat_map(|g| partition(g, &index, &views)) {
        let signature = |k: &DefKey| index.defining.get(k).and_then(|us| views[us[0]].signature.get(k));
        let signatures: BTreeSet<&Vec<Option<Space>>> = group.iter().filter_map(signature).collect();
        // Cheap first: only groups with a __constant member matter here.
        if signatures.len() < 2 || !signatures.iter().any(|s| s.contains(&Some(Space::Constant))) {
            continue;
        }
        let members = members_of(units, &views, &index, &group);
        let seeing = index.seeing(&group);
        if batch_refusal(units, &views, &index, &per_unit, &group, &members, &seeing, root, withdrawn).1.is_some() {
            continue;
        }
        for m in &members {
            if signature(&m.key).is_some_and(|s| s.contains(&Some(Space::Constant))) {
                let others = members.iter().filter(|o| o.key != m.key).map(|o| format!("`{}`", o.name)).collect::<Vec<_>>();
                out.push(ConstantTwin { key: m.key.clone(), cited: m.cited(), others: others.join(", ") });
            }
        }
    }
    out
}

/// The checks that refuse a whole group, whatever the inference decides: the
/// units declaring a member without defining it, and the refusal if any.
#[allow(clippy::too_many_arguments)]
fn batch_refusal(
    units: &[Unit],
    views: &[UnitView],
    index: &Index,
    per_unit: &[BTreeMap<DefKey, usize>],
    group: &BTreeSet<DefKey>,
    members: &[Member],
    seeing: &BTreeSet<usize>,
    root: &Path,
    withdrawn: &BTreeMap<DefKey, (&'static str, String)>,
) -> (BTreeSet<usize>, Option<(&'static str, String)>) {
    let (declaring, calling_elsewhere) = declared_elsewhere(units, views, index, members, seeing);
    let refused = calling_elsewhere
        .or_else(|| disagreement(units, per_unit, group, seeing))
        .or_else(|| other_definition(units, members, group, seeing))
        .or_else(|| unrenameable(units, members, seeing, root))
        .or_else(|| members.iter().find_map(|m| withdrawn.get(&m.key)).map(|(r, d)| (*r, d.clone())));
    (declaring, refused)
}

/// A group that passed the batch-wide checks, with the members that cannot join it.
struct Candidate {
    members: Vec<Member>,
    kept: Vec<(Member, String)>,
    /// Units defining a member.
    seeing: BTreeSet<usize>,
    /// Other units with a prototype of a member (from a shared header): edited and verified too.
    declaring: BTreeSet<usize>,
}

impl Candidate {
    fn merging(&self) -> Vec<Member> {
        self.members.iter().filter(|m| !self.kept.iter().any(|(k, _)| k.key == m.key)).cloned().collect()
    }
}

/// A unit's helper definitions under the edit root, with their words.
fn view<'u>(unit: &'u Unit, root: &Path) -> UnitView<'u> {
    let syntax = &unit.syntax;
    let mut defs = BTreeMap::new();
    let mut link_to_key: HashMap<&str, DefKey> = HashMap::new();
    for f in syntax.functions.iter().filter(|f| f.is_definition && !f.is_kernel && f.in_macro.is_none() && !f.tokens.is_empty()) {
        let file = unit.canonical(f.pos.file);
        if crate::root::is_under(root, file) {
            let key = (file.to_path_buf(), f.pos.offset);
            link_to_key.insert(&f.link_name, key.clone());
            defs.insert(key, f);
        }
    }
    let user_functions: HashSet<&str> = syntax.functions.iter().map(|f| f.link_name.as_str()).collect();
    let refs_at: HashMap<(FileId, u32), &FunctionRef> =
        syntax.references.iter().filter(|r| r.spelled).map(|r| ((r.range.file, r.range.start), r)).collect();
    let mut words = BTreeMap::new();
    let mut signature = BTreeMap::new();
    let mut read_only = BTreeMap::new();
    for (key, f) in &defs {
        let file = f.extent.file;
        // The qualifiers the generic rewrite removes: the first level of each pointer (not of arrays).
        let ignored: Vec<(ByteRange, Space)> = f
            .pointers
            .iter()
            .filter(|d| d.array.is_none())
            .filter_map(|d| d.levels.first().and_then(|l| l.spelling.range().map(|r| (r, l.space))))
            .filter(|(r, _)| r.file == file)
            .collect();
        // Which declaration names which space: `f(__global a, b)` and `f(a, __global b)` differ.
        let spaces: Vec<Option<Space>> = f
            .pointers
            .iter()
            .filter(|d| d.array.is_none())
            .map(|d| d.levels.first().filter(|l| l.spelling.range().is_some_and(|r| r.file == file)).map(|l| l.space))
            .collect();
        let mut out = Vec::new();
        for token in &f.tokens {
            if ignored.iter().any(|(r, _)| r.start <= token.start && token.start < r.end) {
                continue;
            }
            let word = if token.start == f.pos.offset && token.text == f.name {
                RawWord::Own
            } else if let Some(reference) = refs_at.get(&(file, token.start)) {
                // Another helper by its class; another user function by its IR name, so calls
                // to two overloads of one name (`get(__global T *)`, `get(__local T *)`) differ.
                // A builtin by its name: `vload4` of a __global and of a __local pointer is one
                // generic builtin in 2.0 (and pins, where there is none, are the inference's).
                match link_to_key.get(reference.link_name.as_str()) {
                    Some(callee) => RawWord::Callee(callee.clone()),
                    None if user_functions.contains(reference.link_name.as_str()) => RawWord::Text(&reference.link_name),
                    None => RawWord::Text(&token.text),
                }
            } else {
                RawWord::Text(&token.text)
            };
            out.push(word);
        }
        words.insert(key.clone(), out);
        signature.insert(key.clone(), spaces);
        // `__constant float *` is implicitly const: its generic rewrite says so (`const float *`).
        let pointee_const = |d: &crate::syntax::PointerDecl| {
            d.levels.first().is_some_and(|l| l.space == Space::Constant)
                || crate::rules::constant_to_global::says_const(d.type_text.split('*').next().unwrap_or(""))
        };
        read_only.insert(key.clone(), f.pointers.iter().filter(|d| d.array.is_none()).map(pointee_const).collect());
    }
    UnitView { defs, words, signature, read_only }
}

/// A unit's definitions partitioned into classes of duplicates: identical
/// words, calls compared by the callee's class, refined until stable.
fn classes(view: &UnitView) -> BTreeMap<DefKey, usize> {
    let keys: Vec<&DefKey> = view.words.keys().collect();
    let index: HashMap<&DefKey, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let mut class: Vec<usize> = (0..keys.len()).collect();
    loop {
        let mut first_with: HashMap<Vec<Word>, usize> = HashMap::new();
        let next: Vec<usize> = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let words: Vec<Word> = view.words[*key]
                    .iter()
                    .map(|w| match w {
                        RawWord::Text(t) => Word::Text(t),
                        RawWord::Own => Word::Own,
                        RawWord::Callee(k) => Word::Callee(class[index[k]]),
                    })
                    .collect();
                *first_with.entry(words).or_insert(i)
            })
            .collect();
        if next == class {
            return keys.into_iter().cloned().zip(class).collect();
        }
        class = next;
    }
}

/// Groups of two or more definitions found duplicates by some unit, joined across units.
fn join_units(views: &[UnitView], per_unit: &[BTreeMap<DefKey, usize>]) -> Vec<BTreeSet<DefKey>> {
    let mut leader: BTreeMap<DefKey, DefKey> = BTreeMap::new();
    fn find(leader: &mut BTreeMap<DefKey, DefKey>, k: &DefKey) -> DefKey {
        let parent = leader.get(k).cloned().unwrap_or_else(|| k.clone());
        if &parent == k {
            return parent;
        }
        let root = find(leader, &parent);
        leader.insert(k.clone(), root.clone());
        root
    }
    for (view, classes) in views.iter().zip(per_unit) {
        let mut first: BTreeMap<usize, &DefKey> = BTreeMap::new();
        for key in view.defs.keys() {
            let class = classes[key];
            match first.get(&class) {
                Some(head) => {
                    let (a, b) = (find(&mut leader, head), find(&mut leader, key));
                    if a != b {
                        let (low, high) = if a < b { (a, b) } else { (b, a) };
                        leader.insert(high, low);
                    }
                }
                None => {
                    first.insert(class, key);
                }
            }
        }
    }
    let keys: Vec<DefKey> = leader.keys().cloned().collect();
    let mut groups: BTreeMap<DefKey, BTreeSet<DefKey>> = BTreeMap::new();
    for key in keys {
        let root = find(&mut leader, &key);
        groups.entry(root.clone()).or_default().insert(root);
        groups.entry(find(&mut leader, &key)).or_default().insert(key);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
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
fn partition(group: BTreeSet<DefKey>, index: &Index, views: &[UnitView]) -> Vec<BTreeSet<DefKey>> {
    struct Copy<'v> {
        key: DefKey,
        seen_by: BTreeSet<usize>,
        signature: Option<&'v Vec<Option<Space>>>,
        name: &'v str,
    }
    let copies: Vec<Copy> = group
        .into_iter()
        .filter_map(|key| {
            let units = index.defining.get(&key)?;
            let view = &views[units[0]];
            let name = view.defs.get(&key)?.name.as_str();
            Some(Copy { seen_by: units.iter().copied().collect(), signature: view.signature.get(&key), name, key })
        })
        .collect();
    // Candidate pairs, closest first (deterministic: then by position).
    let mut pairs: Vec<(bool, usize, usize, usize)> = Vec::new();
    for a in 0..copies.len() {
        for b in a + 1..copies.len() {
            if copies[a].signature == copies[b].signature {
                continue;
            }
            let same_file = copies[a].key.0 == copies[b].key.0;
            let shared = shared_name_length(copies[a].name, copies[b].name);
            if same_file || shared > 0 {
                pairs.push((same_file, shared, a, b));
            }
        }
    }
    pairs.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then((x.2, x.3).cmp(&(y.2, y.3))));
    // Union-find over copies, a part joining another only if the result is still one family.
    let mut part: Vec<usize> = (0..copies.len()).collect();
    let mut members: Vec<Vec<usize>> = (0..copies.len()).map(|i| vec![i]).collect();
    for (_, _, a, b) in pairs {
        let (pa, pb) = (part[a], part[b]);
        if pa == pb {
            continue;
        }
        let joined: Vec<usize> = members[pa].iter().chain(&members[pb]).copied().collect();
        let signatures: BTreeSet<_> = joined.iter().map(|&i| copies[i].signature).collect();
        let seen: BTreeSet<usize> = joined.iter().flat_map(|&i| copies[i].seen_by.iter().copied()).collect();
        let keeper = joined.iter().any(|&i| copies[i].seen_by.is_superset(&seen));
        if signatures.len() == joined.len() && keeper {
            for &i in &members[pb] {
                part[i] = pa;
            }
            members[pb].clear();
            members[pa] = joined;
        }
    }
    members.into_iter().filter(|m| m.len() > 1).map(|m| m.into_iter().map(|i| copies[i].key.clone()).collect()).collect()
}

/// How much of their names two copies share: all of it for an overload set,
/// else the length of the stem a merge would name them by (0: nothing).
fn shared_name_length(a: &str, b: &str) -> usize {
    if a == b {
        return a.len() + 1;
    }
    stem_of(&[a, b]).map(|s| s.len()).unwrap_or(0)
}

/// The group's members in source order (file, then offset), as the first unit defining each names them.
fn members_of(units: &[Unit], views: &[UnitView], index: &Index, group: &BTreeSet<DefKey>) -> Vec<Member> {
    group
        .iter()
        .filter_map(|key| {
            let u = *index.defining.get(key)?.first()?;
            let f = views[u].defs.get(key)?;
            Some(Member {
                name: f.name.clone(),
                file: units[u].syntax.files[f.pos.file].clone(),
                line: f.pos.line,
                key: key.clone(),
                link_name: f.link_name.clone(),
            })
        })
        .collect()
}

/// Units that declare a member without defining it (a header's prototypes), and,
/// if one of them calls a member, the refusal: its program links the definition
/// from another unit, which clasp would have to rename in step.
fn declared_elsewhere(
    units: &[Unit],
    views: &[UnitView],
    index: &Index,
    members: &[Member],
    seeing: &BTreeSet<usize>,
) -> (BTreeSet<usize>, Option<(&'static str, String)>) {
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    let mut declaring = BTreeSet::new();
    // Only units that name a member at all (the index), in order.
    let naming: BTreeSet<usize> = links.iter().flat_map(|l| index.naming.get(l).into_iter().flatten().copied()).collect();
    for u in naming.into_iter().filter(|u| !seeing.contains(u)) {
        let unit = &units[u];
        let syntax = &unit.syntax;
        // A unit defining its own function of that name is about another function.
        if views[u].defs.values().any(|f| links.contains(f.link_name.as_str()))
            || syntax.functions.iter().any(|f| f.is_definition && links.contains(f.link_name.as_str()))
        {
            continue;
        }
        if let Some(call) = syntax.references.iter().find(|r| links.contains(r.link_name.as_str())) {
            let detail = format!(
                "{} calls `{}` without defining it (its program links another unit's definition)",
                unit.label(),
                call.callee
            );
            return (declaring, Some((DECLARED_ELSEWHERE, detail)));
        }
        if syntax.functions.iter().any(|f| links.contains(f.link_name.as_str())) {
            declaring.insert(u);
        }
    }
    (declaring, None)
}

/// A unit that sees a member and defines another function of a member's name
/// (the other branch of an `#if` in a shared header, built with other options):
/// its calls of that name reach that other function, which renaming them to
/// the survivor would replace.
fn other_definition(
    units: &[Unit],
    members: &[Member],
    group: &BTreeSet<DefKey>,
    seeing: &BTreeSet<usize>,
) -> Option<(&'static str, String)> {
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    for &u in seeing {
        let unit = &units[u];
        for f in unit.syntax.functions.iter().filter(|f| f.is_definition && links.contains(f.link_name.as_str())) {
            let key = (unit.canonical(f.pos.file).to_path_buf(), f.pos.offset);
            if !group.contains(&key) {
                let file = unit.syntax.files[f.pos.file].display();
                let detail = format!(
                    "compiled as part of {}, `{}` is another definition ({file}:{}), which its calls there reach",
                    unit.label(),
                    f.name,
                    f.pos.line
                );
                return Some((CONFIGURATION, detail));
            }
        }
    }
    None
}

/// A unit that sees two members but does not find them duplicates (another
/// configuration of a shared header: different macros, different `#if`s).
fn disagreement(
    units: &[Unit],
    per_unit: &[BTreeMap<DefKey, usize>],
    group: &BTreeSet<DefKey>,
    seeing: &BTreeSet<usize>,
) -> Option<(&'static str, String)> {
    for &u in seeing {
        let classes: BTreeSet<usize> = group.iter().filter_map(|k| per_unit[u].get(k)).copied().collect();
        if classes.len() > 1 {
            let detail = format!("compiled as part of {}, they differ in more than address spaces", units[u].label());
            return Some((CONFIGURATION, detail));
        }
    }
    None
}

/// A use of a member clasp cannot rename, or a member named where it cannot see.
fn unrenameable(units: &[Unit], members: &[Member], seeing: &BTreeSet<usize>, root: &Path) -> Option<(&'static str, String)> {
    for &u in seeing {
        let unit = &units[u];
        let syntax = &unit.syntax;
        for m in members {
            let place = |range: &ByteRange| format!("{}", syntax.files[range.file].display());
            for r in syntax.references.iter().filter(|r| r.link_name == m.link_name) {
                let line = line_of(unit, r.range);
                if !r.called {
                    return Some((ADDRESS_TAKEN, format!("the address of `{}` is taken at {}:{line}", m.name, place(&r.range))));
                }
                if !r.spelled {
                    let detail = format!("`{}` is called through a macro at {}:{line}", m.name, place(&r.range));
                    return Some((MACRO, detail));
                }
                if !crate::root::is_under(root, unit.canonical(r.range.file)) {
                    let detail = format!("`{}` is called at {}:{line}, outside the edit root", m.name, place(&r.range));
                    return Some((OUTSIDE_ROOT, detail));
                }
            }
            if let Some(macro_name) = syntax.macro_bodies.get(&m.name) {
                return Some((MACRO, format!("`{}` is named in the body of macro `{macro_name}`", m.name)));
            }
            if let Some(skipped) = syntax.skipped.iter().find(|s| s.identifiers.contains(&m.name)) {
                let at = format!("{}:{}", place(&skipped.range), skipped.first_line);
                return Some((SKIPPED_IF, format!("`{}` is named in code skipped by #if at {at}", m.name)));
            }
        }
    }
    None
}

/// The line of a byte offset in a unit's file.
fn line_of(unit: &Unit, range: ByteRange) -> usize {
    let text = unit.text(range.file);
    1 + text[..(range.start as usize).min(text.len())].iter().filter(|b| **b == b'\n').count()
}

/// Members that stay as they are: one of their qualified pointers cannot become
/// generic in some unit (`__constant`, a builtin pin, ...), with why.
fn unmergeable_members(
    units: &[Unit],
    views: &[UnitView],
    decisions: &[Vec<DeclDecision>],
    members: &[Member],
    seeing: &BTreeSet<usize>,
    constant_stays: &BTreeMap<DefKey, String>,
) -> Vec<(Member, String)> {
    let mut kept = Vec::new();
    'member: for m in members {
        for &u in seeing {
            let Some(f) = views[u].defs.get(&m.key) else { continue };
            for decl in f.pointers.iter().filter(|d| d.array.is_none()) {
                let Some(level) = decl.levels.first().filter(|l| l.spelling.range().is_some()) else { continue };
                let decision = decisions[u].iter().find(|d| {
                    d.link_name == f.link_name && d.decl.pos == decl.pos && units[u].canonical(d.decl.pos.file) == m.key.0
                });
                // A __constant pointer is generic only when the tables it receives move to __global.
                let generic = matches!(decision.map(|d| &d.decision), Some(Decision::Generic { .. }));
                if level.space == Space::Constant && !generic {
                    let why = match constant_stays.get(&m.key) {
                        Some(why) => format!("takes a __constant pointer whose data cannot move to __global: {why}"),
                        None => format!("takes a __constant pointer (`{}`) whose data cannot move to __global", decl.name),
                    };
                    kept.push((m.clone(), why));
                    continue 'member;
                }
                match decision.map(|d| &d.decision) {
                    Some(Decision::Generic { .. }) => {}
                    Some(Decision::Refused { reason, detail } | Decision::Impossible { reason, detail }) => {
                        kept.push((m.clone(), format!("keeps `{}` named: {} ({detail})", decl.name, reason.code())));
                        continue 'member;
                    }
                    _ => {
                        kept.push((m.clone(), format!("keeps `{}` named", decl.name)));
                        continue 'member;
                    }
                }
            }
        }
    }
    kept
}

/// The helper definitions a member calls, in any unit defining it.
fn callees(views: &[UnitView], index: &Index, members: &[Member]) -> BTreeSet<DefKey> {
    let mut out = BTreeSet::new();
    for m in members {
        for &u in index.defining.get(&m.key).into_iter().flatten() {
            for word in views[u].words.get(&m.key).into_iter().flatten() {
                if let RawWord::Callee(k) = word {
                    out.insert(k.clone());
                }
            }
        }
    }
    out
}

/// A member that calls a duplicate which does not merge must stay: after the
/// merge it would call the survivor of another group than its twins do. To a fixpoint.
fn drop_calls_to_unmerged(views: &[UnitView], index: &Index, in_groups: &BTreeSet<DefKey>, candidates: &mut [Candidate]) {
    loop {
        let merging: BTreeSet<DefKey> =
            candidates.iter().filter(|c| c.merging().len() > 1).flat_map(|c| c.merging().into_iter().map(|m| m.key)).collect();
        let mut changed = false;
        for candidate in candidates.iter_mut() {
            for m in candidate.merging() {
                let stray = callees(views, index, std::slice::from_ref(&m))
                    .into_iter()
                    .find(|k| in_groups.contains(k) && !merging.contains(k) && *k != m.key);
                if let Some(k) = stray {
                    let defined = index.defining.get(&k).and_then(|us| views[us[0]].defs.get(&k));
                    let name = defined.map(|f| f.name.clone()).unwrap_or_default();
                    candidate.kept.push((m.clone(), format!("calls `{name}`, whose group does not merge")));
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// The member to keep: defined in every unit that sees the group, and declared
/// there before every function that uses a member (the others' uses will call
/// it); among those, the first reading through `const` pointers wherever a
/// member does (a `__constant` member's callers pass read-only data).
fn survivor(units: &[Unit], views: &[UnitView], merging: &[Member], seeing: &BTreeSet<usize>) -> Option<Member> {
    let valid = survivors(units, views, merging, seeing);
    valid.iter().find(|s| merging.iter().all(|m| covers_const(views, seeing, s, m))).or(valid.first()).cloned()
}

/// Whether `survivor` points to read-only data wherever `member` does.
fn covers_const(views: &[UnitView], seeing: &BTreeSet<usize>, survivor: &Member, member: &Member) -> bool {
    let read_only = |m: &Member| seeing.iter().find_map(|u| views[*u].read_only.get(&m.key)).cloned().unwrap_or_default();
    let (s, m) = (read_only(survivor), read_only(member));
    m.iter().enumerate().all(|(i, ro)| !ro || s.get(i) == Some(&true))
}

/// Members that would lose `const` in the merge (no member that could
/// survive reads through `const` pointers wherever they do) stay as they are.
fn keep_what_would_lose_const(units: &[Unit], views: &[UnitView], candidates: &mut [Candidate]) {
    for candidate in candidates.iter_mut() {
        let merging = candidate.merging();
        let valid = survivors(units, views, &merging, &candidate.seeing);
        let Some(first) = valid.first() else { continue };
        if valid.iter().any(|s| merging.iter().all(|m| covers_const(views, &candidate.seeing, s, m))) {
            continue;
        }
        for m in merging.iter().filter(|m| !covers_const(views, &candidate.seeing, first, m)) {
            let why =
                format!("reads through const pointers where `{}`, the member defined before every use, does not", first.name);
            candidate.kept.push((m.clone(), why));
        }
    }
}

/// The members that could survive, in order: see `survivor`.
fn survivors(units: &[Unit], views: &[UnitView], merging: &[Member], seeing: &BTreeSet<usize>) -> Vec<Member> {
    let links: BTreeSet<&str> = merging.iter().map(|m| m.link_name.as_str()).collect();
    let keys: BTreeSet<&DefKey> = merging.iter().map(|m| &m.key).collect();
    merging
        .iter()
        .filter(|s| {
            seeing.iter().all(|&u| {
                let view = &views[u];
                let functions = &units[u].syntax.functions;
                if !view.defs.contains_key(&s.key) {
                    return false;
                }
                let first_declared = functions.iter().position(|f| f.link_name == s.link_name);
                let deleted = |f: &Function| {
                    f.is_definition && keys.contains(&(units[u].canonical(f.pos.file).to_path_buf(), f.pos.offset))
                };
                let first_use = units[u]
                    .syntax
                    .references
                    .iter()
                    .filter(|r| links.contains(r.link_name.as_str()))
                    .filter_map(|r| functions.iter().position(|f| f.is_definition && f.link_name == r.caller && !deleted(f)))
                    .min();
                match (first_declared, first_use) {
                    (Some(d), Some(use_at)) => d < use_at,
                    (Some(_), None) => true,
                    (None, _) => false,
                }
            })
        })
        .cloned()
        .collect()
}

/// The group's common name: the words (split at `_` and at camelCase
/// humps) the names share at their start and end: `dot_g`, `dot_l` -> `dot`;
/// `load_global_f`, `load_local_f` -> `load_f`; `copyGlobal`, `copyLocal` ->
/// `copy`; one-word names share letters instead (`gsum`, `lsum` -> `sum`).
/// None when the names share too little, or are the same (an overload set keeps its name).
fn stem(members: &[Member]) -> Option<String> {
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    stem_of(&names)
}

/// The words `names` share at start and end (see `stem`).
fn stem_of(names: &[&str]) -> Option<String> {
    let first = *names.first()?;
    if names.iter().all(|n| *n == first) {
        return None;
    }
    let words: Vec<Vec<&str>> = names.iter().map(|n| words_of(n)).collect();
    let shortest = words.iter().map(|w| w.len()).min().unwrap_or(0);
    let head = (0..shortest).take_while(|&i| words.iter().all(|w| w[i] == words[0][i])).count();
    let from_end = |w: &Vec<&str>, i: usize| w[w.len() - 1 - i].to_string();
    let tail = (0..shortest - head).take_while(|&i| words.iter().all(|w| from_end(w, i) == from_end(&words[0], i))).count();
    let stem = if head + tail > 0 {
        let ours = &words[0];
        let (front, back) = (&ours[..head], &ours[ours.len() - tail..]);
        let mut stem: String = front.concat();
        let joined_by_underscore = stem.ends_with('_') || back.first().is_some_and(|w| w.starts_with('_'));
        stem = stem.trim_end_matches('_').to_string();
        let rest = back.concat();
        let rest = rest.trim_start_matches('_');
        if !stem.is_empty() && !rest.is_empty() && joined_by_underscore {
            stem.push('_');
        }
        stem.push_str(rest);
        stem
    } else if shortest == 1 {
        // One word each: the letters they share at the end (`gsum`, `lsum`), or the start.
        let suffix = names.iter().fold(first.len(), |n, name| common_suffix(&first[first.len() - n..], name));
        let prefix = names.iter().fold(first.len(), |n, name| common_prefix(&first[..n], name));
        let longer = if suffix >= prefix { &first[first.len() - suffix..] } else { &first[..prefix] };
        if longer.len() < 3 {
            return None;
        }
        longer.to_string()
    } else {
        return None;
    };
    let valid = stem.len() >= 2
        && !stem.starts_with("__")
        && stem.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(stem)
}

/// A name's words, each with the `_`s before it: `load_global_f` -> `load`,
/// `_global`, `_f`; `copyGlobal` -> `copy`, `Global`.
fn words_of(name: &str) -> Vec<&str> {
    let bytes = name.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..bytes.len() {
        let underscore = bytes[i] == b'_' && bytes[i - 1] != b'_';
        let hump = bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase();
        if underscore || hump {
            out.push(&name[start..i]);
            start = i;
        }
    }
    out.push(&name[start..]);
    out
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &str, b: &str) -> usize {
    a.bytes().rev().zip(b.bytes().rev()).take_while(|(x, y)| x == y).count()
}

/// The survivor's name: the shared name of an overload set; else the common
/// stem when no unit seeing the group writes it anywhere, it is no keyword or
/// builtin, and no other merge took it; else the survivor's own.
fn new_name(
    merging: &[Member],
    survivor: &Member,
    stem: Option<&str>,
    taken: &BTreeSet<String>,
    claimed: &BTreeSet<String>,
    units: &[Unit],
    seeing: &BTreeSet<usize>,
) -> String {
    let _ = merging;
    match stem {
        Some(stem)
            if !taken.contains(stem)
                && !claimed.contains(stem)
                && seeing.iter().all(|&u| !units[u].syntax.identifiers.contains(stem)) =>
        {
            stem.to_string()
        }
        _ => survivor.name.clone(),
    }
}

/// The merge's fix: edits in every unit seeing the group, and the keys of the
/// members' generic declarations (their fixes stand or fall with it).
fn build(
    units: &[Unit],
    views: &[UnitView],
    decisions: &[Vec<DeclDecision>],
    candidate: &Candidate,
    members: Vec<Member>,
    name: String,
    depends_on: BTreeSet<usize>,
) -> Merge {
    let keys: BTreeSet<&DefKey> = members.iter().map(|m| &m.key).collect();
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    let mut decl_keys = Vec::new();
    for &u in &candidate.seeing {
        for d in &decisions[u] {
            let defined_here = views[u].defs.iter().any(|(k, f)| keys.contains(k) && f.link_name == d.link_name);
            if defined_here && links.contains(d.link_name.as_str()) && matches!(d.decision, Decision::Generic { .. }) {
                decl_keys.push((units[u].canonical(d.decl.pos.file).to_path_buf(), d.decl.pos.offset));
            }
        }
    }
    let touched: BTreeSet<usize> = candidate.seeing.union(&candidate.declaring).copied().collect();
    let MergeEdits { fix, files } = merge_duplicates::fix(units, &touched, &members, &candidate.kept, &name);
    Merge { members, kept: candidate.kept.clone(), name, fix, units: touched, decl_keys, depends_on, files }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(names: &[&str]) -> Vec<Member> {
        names
            .iter()
            .map(|n| Member {
                name: n.to_string(),
                file: PathBuf::new(),
                line: 0,
                key: (PathBuf::new(), 0),
                link_name: n.to_string(),
            })
            .collect()
    }

    #[test]
    fn stems_drop_what_the_names_do_not_share() {
        let cases = [
            (vec!["dot_g", "dot_l"], Some("dot")),
            (vec!["dot_g", "dot_l", "dot_p"], Some("dot")),
            (vec!["load_global_f", "load_local_f"], Some("load_f")),
            (vec!["gsum", "lsum"], Some("sum")),
            (vec!["memcpy_pg", "memcpy_gp"], Some("memcpy")),
            (vec!["copyGlobal", "copyLocal"], Some("copy")),
            (vec!["f", "g"], None),
            (vec!["a_g", "a_l"], None),
            (vec!["vload_g", "vload_l"], Some("vload")),
            (vec!["reduce_g_f4", "reduce_l_f4"], Some("reduce_f4")),
            (vec!["g_reduce", "l_reduce"], Some("reduce")),
            (vec!["sumG", "sumL"], Some("sum")),
            (vec!["same", "same"], None),
        ];
        for (names, expected) in cases {
            assert_eq!(stem(&members(&names)).as_deref(), expected, "{names:?}");
        }
    }
}
