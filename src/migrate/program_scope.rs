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
use std::path::PathBuf;

use serde::Serialize;

use super::Warning;
use crate::flowgraph::FlowGraph;
use crate::infer::{DeclDecision, Evidence};
use crate::ir::{Sink, Source};
use crate::rules::{constant_to_global, Fix};
use crate::syntax::Space;
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

/// One variable to move in one unit: the fix and the declarations it changes
/// (the variable's key first: (canonical file, offset)).
pub struct Move {
    pub unit: usize,
    pub fix: Fix,
    pub keys: Vec<(PathBuf, u32)>,
}

/// A variable chosen to move, before the inference runs again with its followers moved.
pub struct Chosen {
    unit: usize,
    var: usize,
    size: u64,
    why: String,
    /// The `__constant` pointer declarations its address reaches: (file id, name offset).
    pub followers: Vec<(usize, u32)>,
}

impl Chosen {
    pub fn unit(&self) -> usize {
        self.unit
    }
}

/// A program-scope `__constant` variable of a unit, with its size.
struct Table<'u> {
    index: usize,
    var: &'u crate::syntax::ProgramVar,
    size: u64,
}

/// The variables every unit moves, and warnings for programs left over budget.
pub fn choose(units: &[Unit], decisions: &[Vec<DeclDecision>], options: &super::MigrateOptions) -> (Vec<Chosen>, Vec<Warning>) {
    let (mut out, mut warnings) = (Vec::new(), Vec::new());
    for (u, unit) in units.iter().enumerate() {
        let tables: Vec<Table> = unit
            .syntax
            .program_vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.space == Space::Constant)
            .map(|(index, var)| Table {
                index,
                var,
                size: unit.ir.globals.iter().find(|g| g.name == var.name).map_or(0, |g| g.size_bytes),
            })
            .collect();
        let total: u64 = tables.iter().map(|t| t.size).sum();
        let over = total > options.constant_budget;
        if options.globals == GlobalsPolicy::AsNeeded && !over {
            continue;
        }
        if !options.target.has_program_scope_globals() {
            if over {
                let message = format!(
                    "its __constant data is {total} bytes, over the {}-byte budget, and {} has no program-scope globals to move it to",
                    options.constant_budget,
                    options.target.name()
                );
                warnings.push(Warning { path: unit.path.clone(), message });
            }
            continue;
        }
        let mut movable: Vec<(&Table, Vec<(usize, u32)>)> = tables
            .iter()
            .filter(|t| crate::root::is_under(&options.root, unit.canonical(t.var.pos.file)))
            .filter(|t| t.var.spelling.range().is_some())
            .filter_map(|t| followers(unit, &decisions[u], t).map(|f| (t, f)))
            .collect();
        // Largest first; by name among equals, so the choice does not depend on order.
        movable.sort_by(|a, b| b.0.size.cmp(&a.0.size).then_with(|| a.0.var.name.cmp(&b.0.var.name)));
        let mut remaining = total;
        for (table, followers) in movable {
            if options.globals == GlobalsPolicy::AsNeeded && remaining <= options.constant_budget {
                break;
            }
            remaining -= table.size;
            let why = match options.globals {
                GlobalsPolicy::PreferGlobal => format!("{} bytes, moved as asked (--globals prefer-global)", table.size),
                GlobalsPolicy::AsNeeded => format!(
                    "{} bytes; the program's __constant data ({total} bytes) is over the {}-byte budget (--constant-budget), {remaining} bytes after this move",
                    table.size, options.constant_budget
                ),
            };
            out.push(Chosen { unit: u, var: table.index, size: table.size, why, followers });
        }
        if remaining > options.constant_budget && options.globals == GlobalsPolicy::AsNeeded {
            let message = format!(
                "its __constant data stays {remaining} bytes, over the {}-byte budget: the rest cannot move",
                options.constant_budget
            );
            warnings.push(Warning { path: unit.path.clone(), message });
        }
    }
    (in_every_unit(units, decisions, out), warnings)
}

/// A table in a shared header moves in every program that includes it, with
/// that program's own followers; if it cannot move in one of them, it moves in none.
fn in_every_unit(units: &[Unit], decisions: &[Vec<DeclDecision>], chosen: Vec<Chosen>) -> Vec<Chosen> {
    let key = |u: usize, var: usize| {
        let v = &units[u].syntax.program_vars[var];
        (units[u].canonical(v.pos.file).to_path_buf(), v.pos.offset)
    };
    let mut by_key: BTreeMap<(PathBuf, u32), Vec<Chosen>> = BTreeMap::new();
    for c in chosen {
        by_key.entry(key(c.unit, c.var)).or_default().push(c);
    }
    let mut out = Vec::new();
    for (table_key, mut found) in by_key {
        let first = &found[0];
        let size = first.size;
        let why = format!("{size} bytes, shared with {}, where it moves: {}", units[first.unit].path.display(), first.why);
        let mut complete = true;
        for (u, unit) in units.iter().enumerate() {
            if found.iter().any(|c| c.unit == u) {
                continue;
            }
            let Some(index) = (0..unit.syntax.program_vars.len()).find(|i| key(u, *i) == table_key) else { continue };
            let table = Table { index, var: &unit.syntax.program_vars[index], size };
            match followers(unit, &decisions[u], &table) {
                Some(followers) => found.push(Chosen { unit: u, var: index, size, why: why.clone(), followers }),
                None => complete = false,
            }
        }
        if complete {
            out.extend(found);
        }
    }
    out.sort_by_key(|c| (c.unit, c.var));
    out
}

/// The `__constant` pointers `table`'s address reaches, by (file id, offset);
/// `None` when something it reaches cannot follow (its address stored in
/// memory, made an integer or passed to a function not defined here, a
/// pointer that also receives other `__constant` data, or one declared by a
/// macro or with a qualifier not editable there).
fn followers(unit: &Unit, decisions: &[DeclDecision], table: &Table) -> Option<Vec<(usize, u32)>> {
    let graph = FlowGraph::new(&unit.ir);
    let source = Source::Global { name: table.var.name.clone() };
    let mut reached = BTreeSet::new();
    for flow in unit.ir.flows.iter().filter(|f| f.from == source) {
        match &flow.to {
            Sink::Decl { node } => {
                reached.insert(node.clone());
                reached.extend(graph.downstream(node));
            }
            Sink::Builtin { .. } => {}
            _ => return None,
        }
    }
    let mut out = Vec::new();
    for node in &reached {
        if graph.outgoing(node).any(|f| matches!(f.to, Sink::External { .. } | Sink::Memory | Sink::Integer)) {
            return None;
        }
        // A pointer that also receives other __constant data (a kernel's __constant
        // parameter, a table that stays) cannot leave the constant space.
        let only_from_table = graph.incoming(node).all(|f| match &f.from {
            Source::Global { name } => name == &table.var.name,
            Source::Decl { node } => reached.contains(node),
            _ => f.space != Space::Constant,
        });
        if !only_from_table {
            return None;
        }
        let decl = &decisions.iter().find(|d| &d.node == node)?.decl;
        let level = decl.levels.first()?;
        if level.space != Space::Constant {
            continue;
        }
        if decl.in_macro.is_some() || level.spelling.range().is_none() {
            return None;
        }
        out.push((decl.pos.file, decl.pos.offset));
    }
    Some(out)
}

/// The move of `chosen`, once the inference has run again with its followers
/// moved: the variable becomes `__global const`, and each follower that did not
/// become generic (a kernel's local, a helper pointer pinned otherwise)
/// `__global const` too. The generic ones are the generic rules' fixes, in the
/// same change set (their keys are among the move's).
pub fn build(units: &[Unit], decisions: &[Vec<DeclDecision>], chosen: &Chosen) -> Option<Move> {
    let unit = &units[chosen.unit];
    let var = &unit.syntax.program_vars[chosen.var];
    let mut edits = vec![constant_to_global::requalify(unit, &var.spelling, &var.type_text)?];
    let mut keys = vec![(unit.canonical(var.pos.file).to_path_buf(), var.pos.offset)];
    let mut names = Vec::new();
    for &(file, offset) in &chosen.followers {
        let d = decisions[chosen.unit].iter().find(|d| d.decl.pos.file == file && d.decl.pos.offset == offset)?;
        keys.push((unit.canonical(file).to_path_buf(), offset));
        let owner = if d.kernel { "kernel" } else { "helper" };
        if matches!(d.decision, crate::infer::Decision::Generic { .. }) {
            names.push(format!("`{}` of {owner} `{}` (generic)", d.decl.name, d.function));
        } else {
            edits.push(constant_to_global::requalify(unit, &d.decl.levels.first()?.spelling, &d.decl.type_text)?);
            names.push(format!("`{}` of {owner} `{}` (__global)", d.decl.name, d.function));
        }
    }
    let why = if names.is_empty() { chosen.why.clone() } else { format!("{}; with {}", chosen.why, names.join(", ")) };
    let at = format!("{}:{}", unit.syntax.files[var.pos.file].display(), var.pos.line);
    let evidence = vec![Evidence { space: Space::Constant, from: format!("`{}` ({} bytes)", var.name, chosen.size), at }];
    let fix = constant_to_global::fix(unit, &var.name, var.pos, edits, why, evidence);
    Some(Move { unit: chosen.unit, fix, keys })
}
