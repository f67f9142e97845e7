//! Program-scope data: which `__constant` variables move to `__global`.
//!
//! `__constant` stays by default: it is valid in 2.0 and the constant cache
//! is fast for uniform reads. A variable moves (rule `constant-to-global`)
//! when the program's `__constant` data, summed from the IR's sizes, is over
//! the budget devices guarantee (`--constant-budget`, 64 KiB): the largest
//! movable ones first, until it fits; or, with `--globals prefer-global`,
//! every movable one. The `__constant` pointers its address reaches move
//! with it, in the same change set. A variable does not move when its
//! qualifier is not editable at its declaration, when its address escapes
//! where clasp cannot follow it (memory, an integer, a function not defined
//! in the unit), or when the target has no program-scope globals.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::duplicates::{ConstantTwin, DefKey};
use super::{Refusal, Warning};
use crate::flowgraph::FlowGraph;
use crate::infer::{DeclDecision, Evidence};
use crate::ir::{Node, Sink, Source};
use crate::rules::{constant_to_global, infer_program_scope_space, Fix, VariableEvidence};
use crate::syntax::{ProgramVar, Space, Spelling};
use crate::unit::Unit;

/// Which program-scope variables move when nothing requires it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GlobalsPolicy {
    /// Only to bring a program's `__constant` data within the budget.
    #[default]
    AsNeeded,
    /// Every variable that can move.
    PreferGlobal,
}

impl GlobalsPolicy {
    pub fn parse(text: &str) -> Result<GlobalsPolicy, String> {
        match text {
            "as-needed" => Ok(GlobalsPolicy::AsNeeded),
            "prefer-global" => Ok(GlobalsPolicy::PreferGlobal),
            other => Err(format!("unknown policy `{other}` (as-needed, prefer-global)")),
        }
    }
}

/// The devices' guaranteed constant memory (`CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE` minimum).
pub const DEFAULT_CONSTANT_BUDGET: u64 = 64 * 1024;

/// The moves of one unit's tables moving together: one fix per table (the
/// first with its followers' edits), and the declarations they change (the
/// first table's key first: (canonical file, offset)).
pub struct Move {
    pub unit: usize,
    pub fixes: Vec<Fix>,
    pub keys: Vec<(PathBuf, u32)>,
}

/// Tables chosen to move together (pointers receive more than one of them),
/// before the inference runs again with their followers moved.
pub struct Chosen {
    unit: usize,
    /// Indexes into the unit's program-scope variables.
    vars: Vec<usize>,
    why: Why,
    /// The program's `__constant` data before any move, and the budget.
    constant_bytes: u64,
    budget_bytes: u64,
    /// The `__constant` pointer declarations their address reaches: (file id, name offset).
    pub followers: Vec<(usize, u32)>,
}

impl Chosen {
    /// The `__constant` duplicate whose merge needs the move, when that is why.
    pub fn needed_by(&self) -> Option<&DefKey> {
        self.why.needed_by.as_ref().map(|(key, _)| key)
    }
}

impl Chosen {
    pub fn unit(&self) -> usize {
        self.unit
    }
}

/// Reason codes of tables that stay `__constant` when a move was wanted.
pub const ADDRESS_ESCAPES: &str = "address-escapes";
pub const SHARES_CONSTANT_POINTER: &str = "shares-constant-pointer";
pub const MACRO: &str = "macro";
pub const OUTSIDE_ROOT: &str = "outside-root";
pub const SHARED_HEADER: &str = "shared-header";
pub const NO_PROGRAM_SCOPE_GLOBALS: &str = "no-program-scope-globals";

/// A program-scope `__constant` variable of a unit, with its size.
struct Table<'u> {
    index: usize,
    var: &'u ProgramVar,
    size: u64,
}

/// Tables of one unit that can only move together: pointers receive more than one of them.
struct Component {
    vars: Vec<usize>,
    size: u64,
    /// The followers, or why the tables cannot move (a reason code and a detail).
    movable: Result<Vec<(usize, u32)>, (&'static str, String)>,
    /// Chosen to move, and why.
    chosen: Option<Why>,
}

/// Why tables move: in words, as a code for reports, and the duplicate that needs it.
#[derive(Clone, Default)]
struct Why {
    text: String,
    because: &'static str,
    needed_by: Option<(DefKey, String)>,
}

/// Codes of why a table moves.
pub const BECAUSE_MERGE: &str = "merge";
pub const BECAUSE_BUDGET: &str = "over-budget";
pub const BECAUSE_ASKED: &str = "prefer-global";

/// What planning learns from `choose`: the moves, warnings for programs left
/// over budget, and the tables that stay although a move was wanted, with why.
#[derive(Default)]
pub struct Choice {
    pub chosen: Vec<Chosen>,
    pub warnings: Vec<Warning>,
    pub stays: Vec<Refusal>,
    /// `__constant` members of duplicate groups whose data cannot move, with why.
    pub twin_stays: BTreeMap<DefKey, String>,
}

/// The tables every unit moves: those a merge needs (their address reaches
/// the `__constant` pointers of a duplicate in `twins`), then, largest
/// first, those that bring a program within the budget (all movable ones
/// with `--globals prefer-global`); a table in a shared header moves in
/// every program including it, or in none.
pub fn choose(
    units: &[Unit],
    decisions: &[Vec<DeclDecision>],
    options: &super::MigrateOptions,
    twins: &[ConstantTwin],
) -> Choice {
    let mut choice = Choice::default();
    let mut per_unit: Vec<Vec<Component>> = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let tables = tables_of(unit);
        let total: u64 = tables.iter().map(|t| t.size).sum();
        let over = total > options.constant_budget;
        if !options.target.has_program_scope_globals() {
            if over {
                let message = format!(
                    "its __constant data is {total} bytes, over the {}-byte budget, and {} has no program-scope globals to move it to",
                    options.constant_budget,
                    options.target.name()
                );
                choice.warnings.push(Warning { path: unit.path.clone(), message });
            }
            if over || options.globals == GlobalsPolicy::PreferGlobal {
                let detail = format!("{} has no program-scope globals", options.target.name());
                choice.stays.extend(tables.iter().map(|t| stay(unit, t.index, NO_PROGRAM_SCOPE_GLOBALS, &detail)));
            }
            per_unit.push(Vec::new());
            continue;
        }
        per_unit.push(components(unit, &decisions[u], &tables, &options.root));
    }
    if !options.target.has_program_scope_globals() {
        return choice;
    }
    choice.twin_stays = choose_for_merges(units, decisions, &mut per_unit, twins);
    for (u, unit) in units.iter().enumerate() {
        choose_for_budget(unit, &mut per_unit[u], options);
    }
    in_every_unit(units, &mut per_unit);
    for (u, unit) in units.iter().enumerate() {
        let components = &per_unit[u];
        let total: u64 = components.iter().map(|c| c.size).sum();
        let remaining: u64 = components.iter().filter(|c| c.chosen.is_none()).map(|c| c.size).sum();
        let wanted = options.globals == GlobalsPolicy::PreferGlobal || total > options.constant_budget;
        for c in components.iter().filter(|c| c.chosen.is_none() && wanted) {
            if let Err((reason, detail)) = &c.movable {
                choice.stays.extend(c.vars.iter().map(|v| stay(unit, *v, reason, detail)));
            }
        }
        if remaining > options.constant_budget {
            let message = format!(
                "its __constant data stays {remaining} bytes, over the {}-byte budget: the rest cannot move",
                options.constant_budget
            );
            choice.warnings.push(Warning { path: unit.path.clone(), message });
        }
        for c in &per_unit[u] {
            let (Some(why), Ok(followers)) = (&c.chosen, &c.movable) else { continue };
            choice.chosen.push(Chosen {
                unit: u,
                vars: c.vars.clone(),
                why: why.clone(),
                constant_bytes: total,
                budget_bytes: options.constant_budget,
                followers: followers.clone(),
            });
        }
    }
    choice
}

/// A variable's size from the IR's data layout (0 if the IR does not have it).
fn size_of(unit: &Unit, var: &ProgramVar) -> u64 {
    unit.ir.globals.iter().find(|g| g.name == var.ir_name).map_or(0, |g| g.size_bytes)
}

/// The unit's program-scope `__constant` variables with their sizes from the IR.
fn tables_of(unit: &Unit) -> Vec<Table<'_>> {
    unit.syntax
        .program_vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.space == Space::Constant)
        .map(|(index, var)| Table { index, var, size: size_of(unit, var) })
        .collect()
}

/// The unit's tables grouped into components (tables whose addresses reach a
/// common pointer), each with its followers or why it cannot move.
fn components(unit: &Unit, decisions: &[DeclDecision], tables: &[Table], root: &Path) -> Vec<Component> {
    let graph = FlowGraph::new(&unit.ir);
    let reach: Vec<Result<BTreeSet<Node>, (&'static str, String)>> =
        tables.iter().map(|t| reached(unit, &graph, decisions, t)).collect();
    // Tables reaching a common declaration join one component.
    let mut leader: Vec<usize> = (0..tables.len()).collect();
    fn find(leader: &mut [usize], i: usize) -> usize {
        let mut i = i;
        while leader[i] != i {
            leader[i] = leader[leader[i]];
            i = leader[i];
        }
        i
    }
    let mut first_reaching: BTreeMap<&Node, usize> = BTreeMap::new();
    for (i, nodes) in reach.iter().enumerate() {
        for node in nodes.iter().flatten() {
            match first_reaching.get(node) {
                Some(&j) => {
                    let (a, b) = (find(&mut leader, i), find(&mut leader, j));
                    leader[a.max(b)] = a.min(b);
                }
                None => {
                    first_reaching.insert(node, i);
                }
            }
        }
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..tables.len() {
        members.entry(find(&mut leader, i)).or_default().push(i);
    }
    members
        .into_values()
        .map(|indexes| {
            let size = indexes.iter().map(|i| tables[*i].size).sum();
            let movable = movable(unit, &graph, decisions, tables, &reach, &indexes, root);
            Component { vars: indexes.iter().map(|i| tables[*i].index).collect(), size, movable, chosen: None }
        })
        .collect()
}

/// The declarations a table's address reaches, or why it escapes clasp's sight.
fn reached(
    unit: &Unit,
    graph: &FlowGraph,
    decisions: &[DeclDecision],
    table: &Table,
) -> Result<BTreeSet<Node>, (&'static str, String)> {
    let source = Source::Global { name: table.var.ir_name.clone() };
    let mut reached = BTreeSet::new();
    for flow in unit.ir.flows.iter().filter(|f| f.from == source) {
        match &flow.to {
            Sink::Decl { node } => {
                reached.insert(node.clone());
                reached.extend(graph.downstream(node));
            }
            Sink::Builtin { .. } => {}
            _ => return Err((ADDRESS_ESCAPES, format!("its address {} at line {}", escape_phrase(&flow.to), flow.at.line))),
        }
    }
    for node in &reached {
        if let Some(flow) = graph.outgoing(node).find(|f| matches!(f.to, Sink::External { .. } | Sink::Memory | Sink::Integer)) {
            let detail = format!(
                "its address reaches {}, which {} at line {}",
                node_name(decisions, node),
                escape_phrase(&flow.to),
                flow.at.line
            );
            return Err((ADDRESS_ESCAPES, detail));
        }
    }
    Ok(reached)
}

fn escape_phrase(sink: &Sink) -> String {
    match sink {
        Sink::External { name, .. } => format!("is passed to `{name}`, not defined in the program"),
        Sink::Memory => "is stored in memory".to_string(),
        Sink::Integer => "is made an integer".to_string(),
        _ => "escapes".to_string(),
    }
}

/// `t` of `first`, as the source names a declaration the IR knows.
fn node_name(decisions: &[DeclDecision], node: &Node) -> String {
    match decisions.iter().find(|d| &d.node == node) {
        Some(d) => format!("`{}` of `{}`", d.decl.name, d.function),
        None => match node {
            Node::Param { func, index } => format!("parameter {} of `{func}`", index + 1),
            Node::Local { func, name, .. } => format!("`{name}` of `{func}`"),
            Node::Return { func } => format!("the result of `{func}`"),
        },
    }
}

/// The followers of the tables `indexes` (a component), or why they cannot
/// move: a pointer they reach also receives other `__constant` data (a
/// kernel's `__constant` parameter, a table outside the component), a
/// declaration is produced by a macro or not editable, or a table is outside
/// the edit root.
fn movable(
    unit: &Unit,
    graph: &FlowGraph,
    decisions: &[DeclDecision],
    tables: &[Table],
    reach: &[Result<BTreeSet<Node>, (&'static str, String)>],
    indexes: &[usize],
    root: &Path,
) -> Result<Vec<(usize, u32)>, (&'static str, String)> {
    let names: BTreeSet<&str> = indexes.iter().map(|i| tables[*i].var.ir_name.as_str()).collect();
    let mut nodes = BTreeSet::new();
    for &i in indexes {
        let var = tables[i].var;
        if !crate::root::is_under(root, unit.canonical(var.pos.file)) {
            return Err((OUTSIDE_ROOT, format!("`{}` is declared outside the edit root", var.name)));
        }
        if var.spelling.range().is_none() {
            return Err((MACRO, format!("the qualifier of `{}` is not spelled at its declaration", var.name)));
        }
        nodes.extend(reach[i].clone()?);
    }
    let mut out = Vec::new();
    for node in &nodes {
        let other = graph.incoming(node).find(|f| match &f.from {
            Source::Global { name } => !names.contains(name.as_str()) && f.space == Space::Constant,
            Source::Decl { node } => !nodes.contains(node) && f.space == Space::Constant,
            _ => f.space == Space::Constant,
        });
        if let Some(flow) = other {
            let detail = format!("{} also receives other __constant data at line {}", node_name(decisions, node), flow.at.line);
            return Err((SHARES_CONSTANT_POINTER, detail));
        }
        let Some(decision) = decisions.iter().find(|d| &d.node == node) else {
            return Err((
                ADDRESS_ESCAPES,
                format!("its address reaches {}, which clasp cannot edit", node_name(decisions, node)),
            ));
        };
        let decl = &decision.decl;
        let Some(level) = decl.levels.first() else { continue };
        if level.space != Space::Constant {
            continue;
        }
        if decl.in_macro.is_some() || level.spelling.range().is_none() {
            let detail = format!("`{}` of `{}`, which its address reaches, is declared by a macro", decl.name, decision.function);
            return Err((MACRO, detail));
        }
        out.push((decl.pos.file, decl.pos.offset));
    }
    Ok(out)
}

/// Marks the components a merge needs: every `__constant` pointer of a twin,
/// in every unit defining it, must be a follower of a movable component.
fn choose_for_merges(
    units: &[Unit],
    decisions: &[Vec<DeclDecision>],
    per_unit: &mut [Vec<Component>],
    twins: &[ConstantTwin],
) -> BTreeMap<DefKey, String> {
    let mut stays = BTreeMap::new();
    for twin in twins {
        let mut needed: Vec<(usize, usize)> = Vec::new();
        let mut why_not = None;
        for (u, unit) in units.iter().enumerate() {
            let Some(function) = unit
                .syntax
                .functions
                .iter()
                .find(|f| f.is_definition && unit.canonical(f.pos.file) == twin.key.0 && f.pos.offset == twin.key.1)
            else {
                continue;
            };
            for decl in function.pointers.iter().filter(|d| d.array.is_none()) {
                if decl.levels.first().map(|l| l.space) != Some(Space::Constant) {
                    continue;
                }
                let at = (decl.pos.file, decl.pos.offset);
                match per_unit[u].iter().position(|c| c.movable.as_ref().is_ok_and(|f| f.contains(&at))) {
                    Some(c) => needed.push((u, c)),
                    None => {
                        why_not.get_or_insert_with(|| unmovable_source(unit, &decisions[u], &per_unit[u], decl));
                    }
                }
            }
        }
        if let Some(why) = why_not {
            stays.insert(twin.key.clone(), why);
            continue;
        }
        for (u, c) in needed {
            let component = &mut per_unit[u][c];
            if component.chosen.is_none() {
                let text = format!("{} bytes; needed to merge {} with {}", component.size, twin.cited, twin.others);
                let needed_by = Some((twin.key.clone(), twin.cited.clone()));
                component.chosen = Some(Why { text, because: BECAUSE_MERGE, needed_by });
            }
        }
    }
    stays
}

/// Why the `__constant` data a pointer receives cannot move: the first
/// source that is not a movable table (a string literal, a kernel's
/// `__constant` parameter, a table that cannot move, with why).
fn unmovable_source(
    unit: &Unit,
    decisions: &[DeclDecision],
    components: &[Component],
    decl: &crate::syntax::PointerDecl,
) -> String {
    let Some(decision) = decisions.iter().find(|d| d.decl.pos == decl.pos) else {
        return format!("`{}` is not in the IR", decl.name);
    };
    let graph = FlowGraph::new(&unit.ir);
    for root in graph.roots(&Source::Decl { node: decision.node.clone() }) {
        match root {
            Source::Global { name } => {
                let table = unit.syntax.program_vars.iter().position(|v| v.ir_name == name && v.space == Space::Constant);
                match table.and_then(|t| components.iter().find(|c| c.vars.contains(&t))) {
                    Some(Component { movable: Err((code, detail)), .. }) => {
                        return format!("`{}` receives table `{}`, which cannot move ({code}: {detail})", decl.name, name);
                    }
                    Some(_) => {}
                    None if name.starts_with(".str") => return format!("`{}` receives a string literal", decl.name),
                    None => {
                        return format!("`{}` receives `{name}`, __constant data that is not a program-scope table", decl.name)
                    }
                }
            }
            Source::Decl { node } => {
                let what = match decisions.iter().find(|d| d.node == node) {
                    Some(d) if d.kernel => format!("`{}`, a __constant parameter of kernel `{}`", d.decl.name, d.function),
                    Some(d) => format!("`{}` of `{}`, a __constant pointer with no table behind it", d.decl.name, d.function),
                    None => "a __constant pointer with no table behind it".to_string(),
                };
                return format!("`{}` receives {what}", decl.name);
            }
            Source::Unknown { what } => return format!("`{}` receives {what}", decl.name),
            _ => {}
        }
    }
    format!("`{}` receives __constant data that cannot move", decl.name)
}

/// Over the budget, the largest movable components move until the program
/// fits; with `--globals prefer-global`, every movable one.
fn choose_for_budget(unit: &Unit, components: &mut [Component], options: &super::MigrateOptions) {
    let total: u64 = components.iter().map(|c| c.size).sum();
    let mut remaining: u64 = components.iter().filter(|c| c.chosen.is_none()).map(|c| c.size).sum();
    let name = |c: &Component| unit.syntax.program_vars[c.vars[0]].name.clone();
    let mut order: Vec<usize> =
        (0..components.len()).filter(|i| components[*i].chosen.is_none() && components[*i].movable.is_ok()).collect();
    // Largest first; by name among equals, so the choice does not depend on order.
    order.sort_by(|a, b| {
        components[*b].size.cmp(&components[*a].size).then_with(|| name(&components[*a]).cmp(&name(&components[*b])))
    });
    for i in order {
        if options.globals == GlobalsPolicy::AsNeeded && remaining <= options.constant_budget {
            break;
        }
        let c = &mut components[i];
        remaining -= c.size;
        let why = match options.globals {
            GlobalsPolicy::PreferGlobal => {
                Why { text: format!("{} bytes, moved as asked (--globals prefer-global)", c.size), because: BECAUSE_ASKED, needed_by: None }
            }
            GlobalsPolicy::AsNeeded => Why {
                text: format!(
                    "{} bytes; the program's __constant data ({total} bytes) is over the {}-byte budget (--constant-budget), {remaining} bytes after this move",
                    c.size, options.constant_budget
                ),
                because: BECAUSE_BUDGET,
                needed_by: None,
            },
        };
        c.chosen = Some(why);
    }
}

/// A table in a shared header moves in every program that includes it, with
/// that program's own followers; if it cannot move in one of them, it moves in none.
fn in_every_unit(units: &[Unit], per_unit: &mut [Vec<Component>]) {
    let key = |u: usize, var: usize| {
        let v = &units[u].syntax.program_vars[var];
        (units[u].canonical(v.pos.file).to_path_buf(), v.pos.offset)
    };
    loop {
        // Table -> (unit, component) in every unit having it.
        let mut places: BTreeMap<(PathBuf, u32), Vec<(usize, usize)>> = BTreeMap::new();
        for (u, components) in per_unit.iter().enumerate() {
            for (c, component) in components.iter().enumerate() {
                for &v in &component.vars {
                    places.entry(key(u, v)).or_default().push((u, c));
                }
            }
        }
        let mut changed = false;
        for at in places.values() {
            let Some(&(u0, c0)) = at.iter().find(|(u, c)| per_unit[*u][*c].chosen.is_some()) else { continue };
            if at.iter().all(|(u, c)| per_unit[*u][*c].chosen.is_some()) {
                continue;
            }
            changed = true;
            let blocked = at.iter().find(|(u, c)| per_unit[*u][*c].movable.is_err()).copied();
            match blocked {
                Some((bu, _)) => {
                    let detail = format!("it cannot move in {}, which includes it too", units[bu].label());
                    for &(u, c) in at {
                        let component = &mut per_unit[u][c];
                        component.chosen = None;
                        if component.movable.is_ok() {
                            component.movable = Err((SHARED_HEADER, detail.clone()));
                        }
                    }
                }
                None => {
                    let mut why = per_unit[u0][c0].chosen.clone().unwrap_or_default();
                    why.text = format!("shared with {}, where it moves: {}", units[u0].label(), why.text);
                    for &(u, c) in at {
                        per_unit[u][c].chosen.get_or_insert_with(|| why.clone());
                    }
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// A table that stays `__constant` although a move was wanted.
fn stay(unit: &Unit, var: usize, reason: &'static str, detail: &str) -> Refusal {
    let v = &unit.syntax.program_vars[var];
    Refusal {
        file: unit.syntax.files[v.pos.file].clone(),
        line: v.pos.line,
        function: String::new(),
        name: v.name.clone(),
        reason,
        detail: format!("stays __constant: {detail}"),
        blocking: false,
        canonical: unit.canonical(v.pos.file).to_path_buf(),
    }
}

/// The move of `chosen`, once the inference has run again with its followers
/// moved: each table becomes `__global const`, and each follower that did
/// not become generic (a kernel's local, a helper pointer pinned otherwise)
/// `__global const` too. The generic ones are the generic rules' fixes, in
/// the same change set (their keys are among the move's).
pub fn build(units: &[Unit], decisions: &[Vec<DeclDecision>], chosen: &Chosen) -> Option<Move> {
    let unit = &units[chosen.unit];
    let mut keys = Vec::new();
    let mut follower_edits = Vec::new();
    let mut names = Vec::new();
    for &(file, offset) in &chosen.followers {
        let d = decisions[chosen.unit].iter().find(|d| d.decl.pos.file == file && d.decl.pos.offset == offset)?;
        keys.push((unit.canonical(file).to_path_buf(), offset));
        let owner = if d.kernel { "kernel" } else { "helper" };
        if matches!(d.decision, crate::infer::Decision::Generic { .. }) {
            names.push(format!("`{}` of {owner} `{}` (generic)", d.decl.name, d.function));
        } else {
            follower_edits.push(constant_to_global::requalify(unit, &d.decl.levels.first()?.spelling, &d.decl.type_text)?);
            names.push(format!("`{}` of {owner} `{}` (__global)", d.decl.name, d.function));
        }
    }
    let vars: Vec<&ProgramVar> = chosen.vars.iter().map(|v| &unit.syntax.program_vars[*v]).collect();
    let together: Vec<String> = vars.iter().map(|v| format!("`{}`", v.name)).collect();
    let mut fixes = Vec::new();
    for (i, var) in vars.iter().enumerate() {
        let size = size_of(unit, var);
        let mut edits = vec![constant_to_global::requalify(unit, &var.spelling, &var.type_text)?];
        let mut why = chosen.why.text.clone();
        if vars.len() > 1 {
            why = format!("{why}; moves with {} (pointers receive each of them)", together.join(", "));
        }
        // The followers' edits go with the first table, so each is shown once.
        if i == 0 {
            edits.extend(follower_edits.iter().cloned());
            if !names.is_empty() {
                why = format!("{why}; with {}", names.join(", "));
            }
        }
        let at = format!("{}:{}", unit.syntax.files[var.pos.file].display(), var.pos.line);
        let evidence = vec![Evidence { space: Space::Constant, from: format!("`{}` ({size} bytes)", var.name), at }];
        let mut fix = constant_to_global::fix(unit, &var.name, var.pos, edits, why, evidence);
        fix.variable = Some(VariableEvidence {
            name: var.name.clone(),
            size_bytes: size,
            space: Space::Global,
            because: chosen.why.because,
            needed_by: chosen.why.needed_by.as_ref().map(|(_, cited)| cited.clone()),
            constant_bytes: chosen.constant_bytes,
            budget_bytes: chosen.budget_bytes,
            performance: constant_to_global::PERFORMANCE,
        });
        fixes.push(fix);
    }
    let table_keys = vars.iter().map(|v| (unit.canonical(v.pos.file).to_path_buf(), v.pos.offset));
    keys = table_keys.chain(keys).collect();
    Some(Move { unit: chosen.unit, fixes, keys })
}

/// A variable across units: its file's canonical path and its name's offset.
type VarKey = (PathBuf, u32);

/// The space inferred for a variable written with none, in one unit.
struct Inferred {
    space: Space,
    why: String,
    /// The program's `__constant` data before it.
    constant_bytes: u64,
}

/// Program-scope variables (and `static` ones in functions) written with no
/// address space, which OpenCL C 1.2 rejects and 2.0 reads as `__global`:
/// each gets one (rule `infer-program-scope-space`). `__constant` when it
/// is initialised, only read (never stored to, its address never passed
/// on) and the program's `__constant` data stays within the budget, unless
/// `--globals prefer-global`; else `__global`. A variable in a shared header
/// is `__global` if any program including it needs it so. Each fix comes
/// with its unit and its key.
pub fn infer_spaces(units: &[Unit], options: &super::MigrateOptions) -> Vec<(usize, VarKey, Fix)> {
    if !options.target.has_program_scope_globals() {
        return Vec::new();
    }
    // Variable -> (unit, index in it, what that unit infers).
    let mut answers: BTreeMap<VarKey, Vec<(usize, usize, Inferred)>> = BTreeMap::new();
    for (u, unit) in units.iter().enumerate() {
        let mut constant_total: u64 = tables_of(unit).iter().map(|t| t.size).sum();
        for (index, var) in unit.syntax.program_vars.iter().enumerate() {
            if var.spelling != Spelling::Unqualified || var.space != Space::Global || var.type_start.is_none() {
                continue;
            }
            if !crate::root::is_under(&options.root, unit.canonical(var.pos.file)) {
                continue;
            }
            let size = size_of(unit, var);
            let constant_bytes = constant_total;
            let inferred = match why_global(unit, var, options, constant_total + size) {
                Some(why) => Inferred { space: Space::Global, why, constant_bytes },
                None => {
                    constant_total += size;
                    let why = format!(
                        "{size} bytes, initialised and only read; the program's __constant data stays within the {}-byte budget ({constant_total} bytes)",
                        options.constant_budget
                    );
                    Inferred { space: Space::Constant, why, constant_bytes }
                }
            };
            let key = (unit.canonical(var.pos.file).to_path_buf(), var.pos.offset);
            answers.entry(key).or_default().push((u, index, inferred));
        }
    }
    let mut out = Vec::new();
    for (key, found) in answers {
        // Global if any program needs it so (it is read as global there today).
        let global = found.iter().find(|(_, _, i)| i.space == Space::Global);
        let (u, index, inferred) = global.unwrap_or(&found[0]);
        let unit = &units[*u];
        let var = &unit.syntax.program_vars[*index];
        let mut why = inferred.why.clone();
        if found.len() > 1 && global.is_some() {
            why = format!("{why} (in {})", unit.label());
        }
        let evidence = vec![Evidence {
            space: inferred.space,
            from: format!("`{}` ({} bytes)", var.name, size_of(unit, var)),
            at: format!("{}:{}", unit.syntax.files[var.pos.file].display(), var.pos.line),
        }];
        let data = VariableEvidence {
            name: var.name.clone(),
            size_bytes: size_of(unit, var),
            space: inferred.space,
            because: "inferred",
            needed_by: None,
            constant_bytes: inferred.constant_bytes,
            budget_bytes: options.constant_budget,
            performance: if inferred.space == Space::Constant { infer_program_scope_space::CONSTANT_CACHE } else { "" },
        };
        if let Some(fix) = infer_program_scope_space::fix(unit, var, inferred.space, why, evidence, data) {
            out.extend(found.iter().map(|(u, _, _)| (*u, key.clone(), fix.clone())));
        }
    }
    out
}

/// Why a variable written with no address space must be (or is asked to be) `__global`.
fn why_global(unit: &Unit, var: &ProgramVar, options: &super::MigrateOptions, constant_total: u64) -> Option<String> {
    if options.globals == GlobalsPolicy::PreferGlobal {
        return Some("as asked (--globals prefer-global)".to_string());
    }
    if unit.ir.globals.iter().any(|g| g.name == var.ir_name && g.written) {
        return Some("it is written".to_string());
    }
    if !var.initialized {
        return Some("it is not initialised (a __constant variable must be)".to_string());
    }
    let source = Source::Global { name: var.ir_name.clone() };
    // Read-only builtins (`vload4(i, table)`) read through the address; anything else may write or keep it.
    let passed = unit
        .ir
        .flows
        .iter()
        .find(|f| f.from == source && !matches!(&f.to, Sink::Builtin { name, .. } if name.starts_with("vload")));
    if let Some(flow) = passed {
        return Some(format!("its address is passed on at line {} (a __constant pointer would not convert)", flow.at.line));
    }
    if constant_total > options.constant_budget {
        return Some(format!(
            "the program's __constant data would be {constant_total} bytes, over the {}-byte budget",
            options.constant_budget
        ));
    }
    None
}
