//! Planning: decisions of every unit -> change sets.
//!
//! Units sharing a header are inferred again until they agree on every
//! declaration in it. Fixes are then grouped into *change sets*: the fixes
//! of declarations linked by a pointer flow (a generic parameter and the
//! generic parameter it passes its value to, a helper's generic result and
//! the kernel local receiving it), across every unit of the batch. A change
//! set is the unit of verification and withdrawal: removing it leaves every
//! remaining flow legal under the target, because nothing outside the set
//! that receives its values was made generic because of it.

mod agree;
mod apply;
mod keep;
mod outside;

use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::{Path, PathBuf};

use crate::codes::Code;
use crate::facts::ir::{Sink, Source};
use crate::facts::syntax::FileIndex;
use crate::front::unit::Unit;
use crate::infer::{Decision, Decisions};
use crate::migrate::report::{Refusal, Warning};
use crate::rules::merge_duplicates::{self, Detected, Duplicates, FindContext, Merge, NameProbe, Unmerged, Withdrawn};
use crate::rules::program_scope::{self, Choice, Move};
use crate::rules::{self, Edit, Fix};
use crate::settings::options::MigrateOptions;
use crate::support::ids::{DeclKey, Files, SharedText, UnionFind, UnitId};
use agree::{agree_on_headers, refusal_of};
pub use apply::apply_edits;
pub use apply::{apply, ApplyError};
pub use outside::outside_root_warnings;

pub use crate::support::ids::SetId;

/// Fixes that stand or fall together.
#[derive(Debug, Default)]
pub struct ChangeSet {
    /// Each fix once, however many units planned it.
    pub fixes: Vec<Fix>,
    /// Edits by canonical file, identical edits once.
    pub edits: BTreeMap<PathBuf, BTreeSet<Edit>>,
    /// IR names of functions the set changes beyond its fixes' own (merged duplicates).
    pub links: BTreeSet<String>,
}

impl std::ops::Index<SetId> for Vec<ChangeSet> {
    type Output = ChangeSet;
    fn index(&self, id: SetId) -> &ChangeSet {
        &self[id.0]
    }
}

impl std::ops::IndexMut<SetId> for Vec<ChangeSet> {
    fn index_mut(&mut self, id: SetId) -> &mut ChangeSet {
        &mut self[id.0]
    }
}

impl ChangeSet {
    /// The IR names of every function the set changes.
    pub fn link_names(&self) -> BTreeSet<String> {
        self.fixes.iter().map(|f| f.link_name.clone()).chain(self.links.iter().cloned()).collect()
    }

    /// Whether it changes a program-scope variable (a fix that is not a
    /// function's): kernels read such a variable directly, not only through
    /// the functions the set changes.
    pub fn changes_program_scope_data(&self) -> bool {
        self.fixes.iter().any(|f| f.link_name.is_empty())
    }

    /// The functions the set changes, for messages: `a`, `b`.
    pub fn functions(&self) -> String {
        let names: BTreeSet<&str> = self.fixes.iter().map(|f| f.function.as_str()).collect();
        names.into_iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    }
}

/// Everything verification and accounting need from planning.
#[derive(Debug, Default)]
pub struct Plan {
    pub sets: Vec<ChangeSet>,
    /// Per unit: the sets with a fix in it.
    pub unit_sets: Vec<BTreeSet<SetId>>,
    /// Per unit: the sets it requires (the unit does not compile as the target without them).
    pub required: Vec<BTreeSet<SetId>>,
    /// Per unit: declarations that keep it from compiling as the target whatever changes.
    pub blocking: Vec<Vec<Refusal>>,
    /// Every refusal once, sorted.
    pub refusals: Vec<Refusal>,
    /// (canonical file, function) -> the sets changing it.
    pub planned: BTreeMap<(PathBuf, String), BTreeSet<SetId>>,
    /// Canonical file -> (path as the units name it, text as read).
    pub originals: BTreeMap<PathBuf, (PathBuf, SharedText)>,
    /// Sets that cannot stand whatever verification finds, with the code and
    /// the detail of their withdrawal: they would edit a file outside the edit
    /// root (a prototype there), or a file whose own unit failed in a configuration.
    pub withheld: BTreeMap<SetId, (Code, String)>,
    /// Duplicate groups to merge, each with its set.
    pub merges: Vec<(Merge, SetId)>,
    /// Duplicate groups that are not merged, with why.
    pub unmerged: Vec<Unmerged>,
    /// Programs left over the constant budget.
    pub warnings: Vec<Warning>,
}

/// What planning decides before grouping: the decisions (with the
/// followers of moved tables moved), the moves, the merges, and what stays.
struct Decided {
    decisions: Vec<Decisions>,
    moves: Vec<Move>,
    merges: Vec<Merge>,
    unmerged: Vec<Unmerged>,
    warnings: Vec<Warning>,
    /// Tables that stay `__constant` although a move was wanted.
    stays: Vec<Refusal>,
}

/// Which tables move, the decisions with their followers moved, and the
/// duplicates that merge. A table a merge needs moves only if the merge is
/// planned after all: otherwise the batch is inferred again without it.
fn decide(units: &[Unit], detected: &Detected, options: &MigrateOptions, probe: NameProbe, withdrawn: &Withdrawn) -> Decided {
    let root = options.root.as_path();
    let first =
        crate::support::timings::time("plan: infer", || agree_on_headers(units, options, &vec![BTreeSet::new(); units.len()]));
    let mut twins = if options.merge { merge_duplicates::constant_twins(units, detected, root, withdrawn) } else { Vec::new() };
    loop {
        let choice =
            crate::support::timings::time("plan: program scope", || program_scope::choose(units, &first, options, &twins));
        // Inferred again with the pointers that follow the moved tables moved too
        // (they are __global now, and may become generic like any other).
        let decisions = if choice.chosen.is_empty() {
            first.clone()
        } else {
            let mut moved = vec![BTreeSet::new(); units.len()];
            for c in &choice.chosen {
                moved[c.unit()].extend(c.followers.iter().copied());
            }
            agree_on_headers(units, options, &moved)
        };
        let found = if options.merge {
            let cx = FindContext { decisions: &decisions, root, withdrawn, taken: probe, constant_stays: &choice.twin_stays };
            crate::support::timings::time("plan: duplicates", || merge_duplicates::find(units, detected, &cx))
        } else {
            Duplicates::default()
        };
        let merging: BTreeSet<&DeclKey> = found.merges.iter().flat_map(|m| m.members.iter().map(|member| &member.key)).collect();
        let unneeded: BTreeSet<DeclKey> =
            choice.chosen.iter().filter_map(|c| c.needed_by().copied()).filter(|k| !merging.contains(k)).collect();
        if unneeded.is_empty() {
            let Choice { chosen, warnings, stays, .. } = choice;
            let moves = chosen.iter().filter_map(|c| program_scope::build(units, &decisions, c)).collect();
            let Duplicates { merges, unmerged } = found;
            return Decided { decisions, moves, merges, unmerged, warnings, stays };
        }
        twins.retain(|t| !unneeded.contains(&t.key));
    }
}

/// Infers every unit, finds the duplicates that merge (but those `withdrawn`
/// by an earlier round), then groups the fixes into change sets.
pub fn plan(
    units: &[Unit],
    files: &Files,
    detected: &Detected,
    options: &MigrateOptions,
    probe: NameProbe,
    withdrawn: &Withdrawn,
) -> Plan {
    let Decided { decisions, moves, merges, unmerged, warnings, stays } = decide(units, detected, options, probe, withdrawn);
    let mut keys = UnionFind::default();
    link_generic_flows(units, &decisions, &mut keys);
    link_macro_sites(units, &decisions, &mut keys);
    // The rules' fixes of each unit are made as its turn comes to be grouped
    // (`group_into_sets`): every unit's at once, mostly the same header
    // edits again, was the most planning held. These come after them.
    let mut unit_fixes: Vec<Vec<(DeclKey, Fix)>> = vec![Vec::new(); units.len()];
    let mut plan = Plan { unmerged, warnings, ..Plan::default() };
    // Moved variables stand or fall with the pointers that follow them.
    for m in moves {
        for key in &m.keys {
            keys.union(m.keys[0], *key);
        }
        unit_fixes[m.unit].extend(m.fixes.into_iter().map(|fix| (m.keys[0], fix)));
    }
    // A variable written with no address space gets one, on its own.
    for (u, key, fix) in program_scope::infer_spaces(units, options) {
        unit_fixes[u].push((key, fix));
    }
    join_merges(units, &merges, &mut keys, &mut unit_fixes, &mut plan);
    let set_of_root = group_into_sets(units, &decisions, unit_fixes, &mut keys, &mut plan);
    register_merges(merges, files, &set_of_root, &mut keys, &mut plan);
    drop_deleted_edits(&mut plan);
    add_units_editing_each_set(units, &mut plan);
    withhold_sets_editing_what_may_not_change(units, options, &mut plan);
    collect_refusals(units, &decisions, stays, &mut plan);
    plan
}

/// Withholds each set that edits a file the run may not edit (`MigrateOptions::not_editable`).
fn withhold_sets_editing_what_may_not_change(units: &[Unit], options: &MigrateOptions, plan: &mut Plan) {
    for (id, set) in plan.sets.iter().enumerate() {
        let edited = set.edits.iter().flat_map(|(file, edits)| real_files(units, file, edits));
        if let Some(file) = edited.into_iter().find(|f| options.not_editable(f).is_some()) {
            let detail = match crate::settings::root::is_under(&options.root, &file) {
                false => format!("it would edit {}, outside the edit root", file.display()),
                true => format!("it would edit {}, not the file standard input stands for", file.display()),
            };
            plan.withheld.insert(SetId(id), (Code::OutsideRoot, detail));
        }
    }
}

/// The real files `edits` of `file` change: a unit's virtual file (an
/// embedded kernel's, a program's) is the files holding its text (the host
/// file, the program's sources), as `Unit::origin` maps it; any other file is itself.
fn real_files(units: &[Unit], file: &Path, edits: &BTreeSet<Edit>) -> Vec<PathBuf> {
    let Some(text) = units.iter().find_map(|u| u.virtual_file().filter(|v| v.path == file)) else {
        return vec![file.to_path_buf()];
    };
    // An edit across two sources (a deletion taking the blank line after one) changes both.
    let mut files: Vec<PathBuf> = (edits.iter().filter_map(|e| text.map.to_files(e.start..e.end)))
        .flat_map(|pieces| pieces.into_iter().map(|piece| piece.canonical.to_path_buf()))
        .collect();
    files.sort();
    files.dedup();
    if files.is_empty() {
        files.push(file.to_path_buf());
    }
    files
}

/// The files units that failed stand on: no set may edit them, for an edit
/// there (a merge renaming a helper such a unit calls) could break the unit
/// in a way no check of this run sees.
#[derive(Debug, Default)]
pub struct FailedFiles {
    /// Canonical path -> why, completing "it would edit FILE, which ...":
    /// a failed unit's own file, and every file its parses read.
    pub read: BTreeMap<PathBuf, String>,
    /// Failed units that may read more than `read` says (`UnitError::files_read`):
    /// while there is one, only the main files of units that loaded may change.
    pub unknown: Vec<String>,
    /// The main files of units that loaded (canonical).
    pub loaded: BTreeSet<PathBuf>,
}

impl FailedFiles {
    /// Why a set editing `files` may not stand, if it may not: each edited
    /// file as the set names it (canonical, or a unit's virtual file) with
    /// the real files that edits there change (`real_files`: canonical too).
    fn refusal(&self, files: &[(&PathBuf, Vec<PathBuf>)]) -> Option<String> {
        let shown = crate::settings::paths::shown_path;
        let real = || files.iter().flat_map(|(_, real)| real);
        if let Some((file, why)) = real().find_map(|f| self.read.get_key_value(f)) {
            return Some(format!("it would edit {}, which {why}", shown(file)));
        }
        let unit = self.unknown.first()?;
        // A loaded unit's own file is known whole, under its name or its virtual file's.
        let unknown = files.iter().filter(|(named, _)| !self.loaded.contains(*named));
        let file = unknown.flat_map(|(_, real)| real).find(|f| !self.loaded.contains(*f))?;
        Some(format!(
            "it would edit {}, which {unit} may include: {unit} failed before clasp could see all it reads",
            shown(file)
        ))
    }
}

impl Plan {
    /// Withholds the sets that edit a file a failed unit stands on
    /// (`FailedFiles`), an edit of a unit's virtual file standing for the real
    /// files holding its text (a program's sources, an embedded kernel's host).
    pub fn refuse_failed_files(&mut self, units: &[Unit], failed: &FailedFiles) {
        for (id, set) in self.sets.iter().enumerate() {
            let files: Vec<(&PathBuf, Vec<PathBuf>)> =
                set.edits.iter().map(|(file, edits)| (file, real_files(units, file, edits))).collect();
            if let Some(detail) = failed.refusal(&files) {
                self.withheld.entry(SetId(id)).or_insert((Code::FailedUnit, detail));
            }
        }
    }
}

/// Declarations becoming generic that a flow links are joined in `keys`
/// (they stand or fall together).
fn link_generic_flows(units: &[Unit], decisions: &[Decisions], keys: &mut UnionFind<DeclKey>) {
    for (unit, decided) in units.iter().zip(decisions) {
        let key_of_node: HashMap<&crate::facts::ir::Node, DeclKey> = decided
            .iter()
            .filter(|d| matches!(d.decision, Decision::Generic { .. }))
            .map(|d| (&d.node, unit.key(d.decl.pos.file, d.decl.pos.offset)))
            .collect();
        for key in key_of_node.values() {
            keys.find(*key);
        }
        for flow in &unit.ir.flows {
            if let (Source::Decl { node: from }, Sink::Decl { node: to }) = (&flow.from, &flow.to) {
                if let (Some(a), Some(b)) = (key_of_node.get(from), key_of_node.get(to)) {
                    keys.union(*a, *b);
                }
            }
        }
    }
}

/// Declarations becoming generic through one qualifier token inside a macro
/// (its definition, or an argument of a use) take one edit: they stand or
/// fall together, in every unit.
fn link_macro_sites(units: &[Unit], decisions: &[Decisions], keys: &mut UnionFind<DeclKey>) {
    let mut first: HashMap<(PathBuf, u32), DeclKey> = HashMap::new();
    for (unit, decided) in units.iter().zip(decisions) {
        for d in decided.iter().filter(|d| matches!(d.decision, Decision::Generic { .. })) {
            let Some(crate::facts::syntax::Spelling::MacroSite { site, .. }) = d.decl.levels.first().map(|l| &l.spelling) else {
                continue;
            };
            let key = keys.find(unit.key(d.decl.pos.file, d.decl.pos.offset));
            match first.entry((unit.canonical(site.range.file).to_path_buf(), site.range.start)) {
                std::collections::hash_map::Entry::Occupied(known) => keys.union(*known.get(), key),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(key);
                }
            }
        }
    }
}

/// A merge stands or falls with its members' generic rewrites and the merges it calls into.
fn join_merges(
    units: &[Unit],
    merges: &[Merge],
    keys: &mut UnionFind<DeclKey>,
    unit_fixes: &mut [Vec<(DeclKey, Fix)>],
    plan: &mut Plan,
) {
    for merge in merges {
        let key = merge_key(merge);
        keys.find(key);
        for decl in &merge.decl_keys {
            keys.union(key, *decl);
        }
        for other in &merge.depends_on {
            keys.union(key, merge_key(&merges[*other]));
        }
        for (file, u, id) in &merge.files {
            plan.originals
                .entry(file.clone())
                .or_insert_with(|| (units[*u].syntax.files[*id].clone(), units[*u].shared_text(*id)));
        }
        if let Some(first) = merge.units.first() {
            unit_fixes[*first].push((key, merge.fix.clone()));
        }
    }
}

/// The change sets: one per set of joined keys, numbered in the order their
/// first fix comes (units in order); each fix once, identical edits once.
fn group_into_sets(
    units: &[Unit],
    decisions: &[Decisions],
    unit_fixes: Vec<Vec<(DeclKey, Fix)>>,
    keys: &mut UnionFind<DeclKey>,
    plan: &mut Plan,
) -> BTreeMap<DeclKey, SetId> {
    let mut set_of_root: BTreeMap<DeclKey, SetId> = BTreeMap::new();
    for ((unit, decided), more) in units.iter().zip(decisions).zip(unit_fixes) {
        let rules = rules::fixes(unit, decided).into_iter().map(|fix| (unit.key(fix.decl.file, fix.decl.offset), fix));
        let fixes = rules.chain(more);
        // A file of the unit as clang names it -> its id (for its text, read once by the unit).
        let id_of: HashMap<&Path, FileIndex> =
            (0..unit.syntax.files.len()).map(|id| (unit.syntax.files[id].as_path(), id)).collect();
        let canonical =
            |path: &Path| id_of.get(path).map(|id| unit.canonical(*id).to_path_buf()).unwrap_or_else(|| path.to_path_buf());
        let (mut mine, mut required) = (BTreeSet::new(), BTreeSet::new());
        for (key, fix) in fixes {
            let root_key = keys.find(key);
            let next = SetId(set_of_root.len());
            let id = *set_of_root.entry(root_key).or_insert(next);
            if id.0 == plan.sets.len() {
                plan.sets.push(ChangeSet::default());
            }
            mine.insert(id);
            if fix.required {
                required.insert(id);
            }
            plan.planned.entry((canonical(&fix.file), fix.function.clone())).or_default().insert(id);
            let set = &mut plan.sets[id];
            if set.fixes.iter().any(|f| same_fix(f, &fix)) {
                continue;
            }
            for edit in &fix.edits {
                let file = canonical(&edit.file);
                if !plan.originals.contains_key(&file) {
                    // The bytes the unit parsed (empty if unreadable: then its set never applies, see `apply`).
                    let text = id_of.get(edit.file.as_path()).map(|id| unit.shared_text(*id)).unwrap_or_default();
                    plan.originals.insert(file.clone(), (edit.file.clone(), text));
                }
                set.edits.entry(file).or_default().insert(edit.clone());
            }
            set.fixes.push(fix);
        }
        plan.unit_sets.push(mine);
        plan.required.push(required);
    }
    set_of_root
}

/// The same fix planned again (by another unit including its header): the
/// same edits for the same declaration. (Declarations spelled through one
/// token inside a macro share its edit, each with a fix of its own.)
fn same_fix(a: &Fix, b: &Fix) -> bool {
    let subject = |f: &Fix| f.message.split(' ').next().unwrap_or_default().to_string();
    a.edits == b.edits && (&a.function, a.line, a.col) == (&b.function, b.line, b.col) && subject(a) == subject(b)
}

/// Each merge with its set: the units seeing it check the set, and its members count as changed by it.
fn register_merges(
    merges: Vec<Merge>,
    files: &Files,
    set_of_root: &BTreeMap<DeclKey, SetId>,
    keys: &mut UnionFind<DeclKey>,
    plan: &mut Plan,
) {
    for merge in merges {
        let id = set_of_root[&keys.find(merge_key(&merge))];
        for u in &merge.units {
            plan.unit_sets[*u].insert(id);
        }
        for member in &merge.members {
            plan.planned.entry((files.path(member.key.file).to_path_buf(), member.name.clone())).or_default().insert(id);
            plan.sets[id].links.insert(member.link_name.clone());
        }
        plan.merges.push((merge, id));
    }
}

/// Every unit whose files a set edits checks it (a header's pointer that follows a moved
/// variable of one program is the same pointer in every program including the header).
fn add_units_editing_each_set(units: &[Unit], plan: &mut Plan) {
    let mut editing: HashMap<&Path, Vec<SetId>> = HashMap::new();
    for (id, set) in plan.sets.iter().enumerate() {
        for file in set.edits.keys() {
            editing.entry(file.as_path()).or_default().push(SetId(id));
        }
    }
    for (u, unit) in UnitId::enumerate(units) {
        for id in 0..unit.syntax.files.len() {
            if let Some(sets) = editing.get(unit.canonical(id)) {
                plan.unit_sets[u].extend(sets.iter().copied());
            }
        }
    }
}

/// Each refusal once, however many units read its declaration (a header,
/// a source several programs share: one origin in the real files), sorted;
/// per unit, the blocking ones.
fn collect_refusals(units: &[Unit], decisions: &[Decisions], stays: Vec<Refusal>, plan: &mut Plan) {
    let mut known: HashSet<(PathBuf, u32, String)> = HashSet::new();
    let mut by_origin: HashSet<(&std::ffi::OsStr, u32, &str)> = Default::default();
    for (unit, decided) in units.iter().zip(decisions) {
        let mut blocking = Vec::new();
        for d in decided {
            let Some(refusal) = refusal_of(unit, d) else { continue };
            if refusal.blocking {
                blocking.push(refusal.clone());
            }
            let fresh = known.insert((refusal.canonical.clone(), refusal.line, refusal.name.clone()));
            let origin = unit.origin(d.decl.pos.file, d.decl.pos.offset..d.decl.pos.offset);
            let first = match origin.map(|(file, at)| (file.as_os_str(), at.start, d.decl.name.as_str())) {
                Some(key) => by_origin.insert(key),
                None => fresh,
            };
            if first {
                plan.refusals.push(refusal);
            }
        }
        plan.blocking.push(blocking);
    }
    for stay in stays {
        if known.insert((stay.canonical.clone(), stay.line, stay.name.clone())) {
            plan.refusals.push(stay);
        }
    }
    plan.refusals.sort_by(|a, b| (&a.file, a.line, &a.name).cmp(&(&b.file, b.line, &b.name)));
}

/// The union-find key of a merge: its survivor's definition.
fn merge_key(merge: &Merge) -> DeclKey {
    merge.members[0].key
}

/// Edits inside code a merge deletes (the deleted copy's own qualifier
/// edits, calls renamed there) go: the deletion covers them.
fn drop_deleted_edits(plan: &mut Plan) {
    // Per file (merge edits name files by canonical path, as the sets' keys do): its deletions.
    let mut deletions: HashMap<PathBuf, BTreeSet<(u32, u32)>> = HashMap::new();
    for e in plan.merges.iter().flat_map(|(m, _)| m.fix.edits.iter()) {
        if e.replacement.is_empty() && e.end > e.start {
            deletions.entry(e.file.clone()).or_default().insert((e.start, e.end));
        }
    }
    for set in plan.sets.iter_mut() {
        for (file, edits) in set.edits.iter_mut() {
            let Some(deleted) = deletions.get(file) else { continue };
            let inside = |e: &Edit| {
                let is_deletion = e.replacement.is_empty() && deleted.contains(&(e.start, e.end));
                !is_deletion && deleted.iter().any(|&(start, end)| start <= e.start && e.end <= end && e.start < end)
            };
            edits.retain(|e| !inside(e));
        }
        let kept: BTreeSet<&Edit> = set.edits.values().flatten().collect();
        for fix in set.fixes.iter_mut() {
            fix.edits.retain(|e| kept.contains(e));
        }
    }
}
