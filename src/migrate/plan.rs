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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::duplicates::{self, DefKey, Duplicates, Merge, NameProbe, Unmerged};
use super::program_scope::Choice;
use super::{MigrateOptions, Refusal};
use crate::infer::{infer, Decision, DeclDecision, InferOptions, Reason};
use crate::ir::{Sink, Source};
use crate::rules::{self, Edit, Fix};
use crate::unit::Unit;

pub type SetId = usize;

/// A declaration across units: its file's canonical path and its name's offset.
type DeclKey = (PathBuf, u32);

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

impl ChangeSet {
    /// The IR names of every function the set changes.
    pub fn link_names(&self) -> BTreeSet<String> {
        self.fixes.iter().map(|f| f.link_name.clone()).chain(self.links.iter().cloned()).collect()
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
    pub originals: BTreeMap<PathBuf, (PathBuf, Vec<u8>)>,
    /// Sets that would edit a file outside the edit root (a prototype there), with the file.
    pub outside_root: BTreeMap<SetId, PathBuf>,
    /// Duplicate groups to merge, each with its set.
    pub merges: Vec<(Merge, SetId)>,
    /// Duplicate groups that are not merged, with why.
    pub unmerged: Vec<Unmerged>,
    /// Programs left over the constant budget.
    pub warnings: Vec<super::Warning>,
}

/// Which tables move, the decisions with their followers moved, and the
/// duplicates that merge. A table a merge needs moves only if the merge is
/// planned after all: otherwise the batch is inferred again without it.
fn move_and_merge(
    units: &[Unit],
    options: &MigrateOptions,
    root: &Path,
    probe: NameProbe,
    withdrawn: &BTreeMap<DefKey, (&'static str, String)>,
    first: Vec<Vec<DeclDecision>>,
) -> (Choice, Vec<Vec<DeclDecision>>, Duplicates) {
    let mut twins = if options.merge {
        crate::timings::time("plan: duplicates", || duplicates::constant_twins(units, root, withdrawn))
    } else {
        Vec::new()
    };
    loop {
        let choice = crate::timings::time("plan: program scope", || super::program_scope::choose(units, &first, options, &twins));
        // Inferred again with the pointers that follow the moved tables moved too
        // (they are __global now, and may become generic like any other).
        let decisions = if choice.chosen.is_empty() {
            first.clone()
        } else {
            let mut moved = vec![BTreeSet::new(); units.len()];
            for c in &choice.chosen {
                moved[c.unit()].extend(c.followers.iter().copied());
            }
            agree_on_headers(units, options, root, &moved)
        };
        let found = if options.merge {
            crate::timings::time("plan: duplicates", || {
                duplicates::find(units, &decisions, root, withdrawn, probe, &choice.twin_stays)
            })
        } else {
            Duplicates::default()
        };
        let merging: BTreeSet<&DefKey> = found.merges.iter().flat_map(|m| m.members.iter().map(|member| &member.key)).collect();
        let unneeded: BTreeSet<DefKey> =
            choice.chosen.iter().filter_map(|c| c.needed_by().cloned()).filter(|k| !merging.contains(k)).collect();
        if unneeded.is_empty() {
            return (choice, decisions, found);
        }
        twins.retain(|t| !unneeded.contains(&t.key));
    }
}

/// Infers every unit, finds the duplicates that merge (but those `withdrawn`
/// by an earlier round), then groups the fixes into change sets.
pub fn plan(
    units: &[Unit],
    options: &MigrateOptions,
    root: &Path,
    probe: NameProbe,
    withdrawn: &BTreeMap<DefKey, (&'static str, String)>,
) -> Plan {
    let first =
        crate::timings::time("plan: infer", || agree_on_headers(units, options, root, &vec![BTreeSet::new(); units.len()]));
    let (Choice { chosen, warnings, stays, .. }, decisions, Duplicates { merges, unmerged }) =
        move_and_merge(units, options, root, probe, withdrawn, first);
    let moves: Vec<super::program_scope::Move> =
        chosen.iter().filter_map(|c| super::program_scope::build(units, &decisions, c)).collect();
    let mut keys = UnionFind::default();
    // Per unit: its fixes, each with the key of the declaration it changes.
    let mut unit_fixes: Vec<Vec<(DeclKey, Fix)>> = Vec::new();
    for (unit, decided) in units.iter().zip(&decisions) {
        let key_of_node: HashMap<&crate::ir::Node, DeclKey> = decided
            .iter()
            .filter(|d| matches!(d.decision, Decision::Generic { .. }))
            .map(|d| (&d.node, (unit.canonical(d.decl.pos.file).to_path_buf(), d.decl.pos.offset)))
            .collect();
        for key in key_of_node.values() {
            keys.find(key.clone());
        }
        // Declarations linked by a flow stand or fall together.
        for flow in &unit.ir.flows {
            if let (Source::Decl { node: from }, Sink::Decl { node: to }) = (&flow.from, &flow.to) {
                if let (Some(a), Some(b)) = (key_of_node.get(from), key_of_node.get(to)) {
                    keys.union(a.clone(), b.clone());
                }
            }
        }
        let fixes = rules::fixes(unit, decided)
            .into_iter()
            .map(|fix| ((unit.canonical(fix.decl.file).to_path_buf(), fix.decl.offset), fix))
            .collect();
        unit_fixes.push(fixes);
    }
    let mut plan = Plan { unmerged, warnings, ..Plan::default() };
    // Moved variables stand or fall with the pointers that follow them.
    for m in moves {
        for key in &m.keys {
            keys.union(m.keys[0].clone(), key.clone());
        }
        unit_fixes[m.unit].extend(m.fixes.into_iter().map(|fix| (m.keys[0].clone(), fix)));
    }
    // A variable written with no address space gets one, on its own.
    for (u, key, fix) in super::program_scope::infer_spaces(units, options) {
        unit_fixes[u].push((key, fix));
    }
    // A merge stands or falls with its members' generic rewrites and the merges it calls into.
    for merge in &merges {
        let key = merge_key(merge);
        keys.find(key.clone());
        for decl in &merge.decl_keys {
            keys.union(key.clone(), decl.clone());
        }
        for other in &merge.depends_on {
            keys.union(key.clone(), merge_key(&merges[*other]));
        }
        for (file, u, id) in &merge.files {
            plan.originals
                .entry(file.clone())
                .or_insert_with(|| (units[*u].syntax.files[*id].clone(), units[*u].text(*id).to_vec()));
        }
        if let Some(first) = merge.units.first() {
            unit_fixes[*first].push((key, merge.fix.clone()));
        }
    }
    let mut set_of_root: BTreeMap<DeclKey, SetId> = BTreeMap::new();
    for (unit, fixes) in units.iter().zip(unit_fixes) {
        // A file of the unit as clang names it -> its id (for its text, read once by the unit).
        let id_of: HashMap<&Path, usize> = (0..unit.syntax.files.len()).map(|id| (unit.syntax.files[id].as_path(), id)).collect();
        let canonical =
            |path: &Path| id_of.get(path).map(|id| unit.canonical(*id).to_path_buf()).unwrap_or_else(|| path.to_path_buf());
        let (mut mine, mut required) = (BTreeSet::new(), BTreeSet::new());
        for (key, fix) in fixes {
            let root_key = keys.find(key);
            let next = set_of_root.len();
            let id = *set_of_root.entry(root_key).or_insert(next);
            if id == plan.sets.len() {
                plan.sets.push(ChangeSet::default());
            }
            mine.insert(id);
            if fix.required {
                required.insert(id);
            }
            let set = &mut plan.sets[id];
            plan.planned.entry((canonical(&fix.file), fix.function.clone())).or_default().insert(id);
            if set.fixes.iter().any(|f| f.edits == fix.edits) {
                continue;
            }
            for edit in &fix.edits {
                let file = canonical(&edit.file);
                if !plan.originals.contains_key(&file) {
                    // The bytes the unit parsed (empty if unreadable: then its set never applies, see `apply`).
                    let text = id_of.get(edit.file.as_path()).map(|id| unit.text(*id).to_vec()).unwrap_or_default();
                    plan.originals.insert(file.clone(), (edit.file.clone(), text));
                }
                set.edits.entry(file).or_default().insert(edit.clone());
            }
            set.fixes.push(fix);
        }
        plan.unit_sets.push(mine);
        plan.required.push(required);
    }
    for merge in merges {
        let id = set_of_root[&keys.find(merge_key(&merge))];
        for u in &merge.units {
            plan.unit_sets[*u].insert(id);
        }
        for member in &merge.members {
            plan.planned.entry((member.key.0.clone(), member.name.clone())).or_default().insert(id);
            plan.sets[id].links.insert(member.link_name.clone());
        }
        plan.merges.push((merge, id));
    }
    drop_deleted_edits(&mut plan);
    // Every unit whose files a set edits checks it (a header's pointer that follows a moved
    // variable of one program is the same pointer in every program including the header).
    let mut editing: HashMap<&Path, Vec<SetId>> = HashMap::new();
    for (id, set) in plan.sets.iter().enumerate() {
        for file in set.edits.keys() {
            editing.entry(file.as_path()).or_default().push(id);
        }
    }
    for (u, unit) in units.iter().enumerate() {
        for id in 0..unit.syntax.files.len() {
            if let Some(sets) = editing.get(unit.canonical(id)) {
                plan.unit_sets[u].extend(sets.iter().copied());
            }
        }
    }
    for (id, set) in plan.sets.iter().enumerate() {
        if let Some(file) = set.edits.keys().find(|f| !crate::root::is_under(root, f)) {
            plan.outside_root.insert(id, file.clone());
        }
    }
    // Each refusal once, however many units include its file.
    let mut known: std::collections::HashSet<(PathBuf, u32, String)> = std::collections::HashSet::new();
    for (unit, decided) in units.iter().zip(&decisions) {
        let mut blocking = Vec::new();
        for d in decided {
            let Some(refusal) = refusal_of(unit, d) else { continue };
            if refusal.blocking {
                blocking.push(refusal.clone());
            }
            if known.insert((refusal.canonical.clone(), refusal.line, refusal.name.clone())) {
                plan.refusals.push(refusal);
            }
        }
        plan.blocking.push(blocking);
    }
    // Tables that stay __constant although a move was wanted.
    for stay in stays {
        if known.insert((stay.canonical.clone(), stay.line, stay.name.clone())) {
            plan.refusals.push(stay);
        }
    }
    plan.refusals.sort_by(|a, b| (&a.file, a.line, &a.name).cmp(&(&b.file, b.line, &b.name)));
    plan
}

/// The union-find key of a merge: its survivor's definition.
fn merge_key(merge: &Merge) -> DeclKey {
    merge.members[0].key.clone()
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

/// Disjoint sets of declaration keys.
#[derive(Default)]
struct UnionFind {
    parent: BTreeMap<DeclKey, DeclKey>,
}

impl UnionFind {
    fn find(&mut self, key: DeclKey) -> DeclKey {
        let parent = self.parent.entry(key.clone()).or_insert_with(|| key.clone()).clone();
        if parent == key {
            return key;
        }
        let root = self.find(parent);
        self.parent.insert(key, root.clone());
        root
    }

    fn union(&mut self, a: DeclKey, b: DeclKey) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            // The smaller key leads, so set numbering does not depend on visiting order.
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            self.parent.insert(high, low);
        }
    }
}

/// Infers every unit; where units sharing a header disagree on a
/// declaration there, it stays named in all of them, and they are inferred again.
fn agree_on_headers(
    units: &[Unit],
    options: &MigrateOptions,
    root: &Path,
    moved: &[BTreeSet<(usize, u32)>],
) -> Vec<Vec<DeclDecision>> {
    let mut per_unit: Vec<InferOptions> = units
        .iter()
        .zip(moved)
        .map(|(unit, moved)| {
            let mut o = InferOptions::for_target(options.target);
            o.ignored_pins = options.ignored_pins.clone();
            o.moved = moved.clone();
            for function in &unit.syntax.functions {
                for decl in &function.pointers {
                    let file = unit.canonical(decl.pos.file);
                    if !crate::root::is_under(root, file) {
                        let detail = format!("{} is outside the edit root {}", file.display(), root.display());
                        o.refused_from_outside.insert((decl.pos.file, decl.pos.offset), (Reason::OutsideRoot, detail));
                    }
                }
            }
            o
        })
        .collect();
    for _ in 0..8 {
        let decisions = infer_all(units, &per_unit, options.jobs);
        // (file, offset) -> "generic?" -> the first unit answering so, and why. Files of
        // one unit only have one answer; headers, and files built in several configurations, may have more.
        let mut answers: BTreeMap<DeclKey, BTreeMap<bool, (String, bool)>> = BTreeMap::new();
        for (unit, decided) in units.iter().zip(&decisions) {
            for d in decided {
                let key = (unit.canonical(d.decl.pos.file).to_path_buf(), d.decl.pos.offset);
                let why = match &d.decision {
                    Decision::Refused { reason, detail } | Decision::Impossible { reason, detail } => {
                        format!("{} keeps it named: {} ({detail})", unit.label(), reason.code())
                    }
                    _ => String::new(),
                };
                let in_configuration = unit.configuration.is_some();
                answers
                    .entry(key)
                    .or_default()
                    .entry(matches!(d.decision, Decision::Generic { .. }))
                    .or_insert((why, in_configuration));
            }
        }
        let conflicts: BTreeMap<DeclKey, (String, bool)> = answers
            .into_iter()
            .filter(|(_, a)| a.len() > 1)
            .map(|(k, mut a)| (k, a.remove(&false).unwrap_or_default()))
            .collect();
        if conflicts.is_empty() {
            return decisions;
        }
        for (unit, o) in units.iter().zip(per_unit.iter_mut()) {
            for id in 0..unit.syntax.files.len() {
                for ((path, offset), (why, in_configuration)) in &conflicts {
                    if path == unit.canonical(id) {
                        let reason = if *in_configuration { Reason::Configuration } else { Reason::HeaderConflict };
                        o.refused_from_outside.entry((id, *offset)).or_insert((reason, why.clone()));
                    }
                }
            }
        }
    }
    infer_all(units, &per_unit, options.jobs)
}

/// Every unit's decisions, on `jobs` threads (the inference is pure: the result
/// does not depend on how the units are shared out).
fn infer_all(units: &[Unit], per_unit: &[InferOptions], jobs: usize) -> Vec<Vec<DeclDecision>> {
    let chunk = units.len().div_ceil(jobs.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = units
            .chunks(chunk)
            .zip(per_unit.chunks(chunk))
            .map(|(units, options)| {
                scope.spawn(move || units.iter().zip(options).map(|(u, o)| infer(u, o).decls).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("inference worker")).collect()
    })
}

fn refusal_of(unit: &Unit, d: &DeclDecision) -> Option<Refusal> {
    let (reason, detail, blocking) = match &d.decision {
        Decision::Refused { reason, detail } => (*reason, detail.clone(), false),
        Decision::Impossible { reason, detail } => (*reason, detail.clone(), true),
        _ => return None,
    };
    Some(Refusal {
        file: unit.syntax.files[d.decl.pos.file].clone(),
        line: d.decl.pos.line,
        function: d.function.clone(),
        name: d.decl.name.clone(),
        reason: reason.code(),
        detail,
        blocking,
        canonical: unit.canonical(d.decl.pos.file).to_path_buf(),
    })
}

/// The texts of `files` with the edits of `sets` applied (files no set
/// touches are left out). Fails on overlapping edits or an unreadable file.
pub fn apply(plan: &Plan, sets: &BTreeSet<SetId>, files: &BTreeSet<PathBuf>) -> Result<BTreeMap<PathBuf, Vec<u8>>, String> {
    let mut by_file: BTreeMap<&PathBuf, BTreeSet<&Edit>> = BTreeMap::new();
    for &id in sets {
        for (file, edits) in plan.sets[id].edits.iter().filter(|(f, _)| files.contains(*f)) {
            by_file.entry(file).or_default().extend(edits.iter());
        }
    }
    let mut out = BTreeMap::new();
    for (file, edits) in by_file {
        let (path, original) = &plan.originals[file];
        if original.is_empty() {
            return Err(format!("{}: error: cannot read", path.display()));
        }
        // By position: the edits of one file may spell its path differently (merges use the canonical one).
        let mut edits: Vec<&Edit> = edits.into_iter().collect();
        edits.sort_by_key(|e| (e.start, e.end, &e.replacement));
        edits.dedup_by_key(|e| (e.start, e.end, &e.replacement));
        out.insert(file.clone(), apply_edits(path, original, edits)?);
    }
    Ok(out)
}

/// Applies sorted, non-overlapping edits to `original`.
fn apply_edits<'e>(path: &Path, original: &[u8], edits: impl IntoIterator<Item = &'e Edit>) -> Result<Vec<u8>, String> {
    let mut migrated = Vec::with_capacity(original.len());
    let mut cursor = 0usize;
    for edit in edits {
        let (start, end) = (edit.start as usize, edit.end as usize);
        if start < cursor || end > original.len() || start > end {
            return Err(format!("{}: error: overlapping or invalid edits at byte {start}", path.display()));
        }
        migrated.extend_from_slice(&original[cursor..start]);
        migrated.extend_from_slice(edit.replacement.as_bytes());
        cursor = end;
    }
    migrated.extend_from_slice(&original[cursor..]);
    Ok(migrated)
}
