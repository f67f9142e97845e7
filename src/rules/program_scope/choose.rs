//! Choosing the moves: tables a merge needs, then the largest until a
//! program fits its budget (or all, as asked), moved in every program
//! including them or in none; the tables that stay although a move was
//! wanted, with why.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::components::{components, tables_of, Component};
use super::{Chosen, Why};
use crate::codes::Code;
use crate::facts::flowgraph::FlowGraph;
use crate::facts::ir::Source;
use crate::facts::syntax::Space;
use crate::front::unit::Unit;
use crate::infer::{Decisions, DeclDecision};
use crate::rules::merge_duplicates::ConstantTwin;
use crate::rules::{Because, Refusal, Warning};
use crate::settings::options::{GlobalsPolicy, MigrateOptions};
use crate::support::ids::{DeclKey, UnitId};

/// What planning learns from `choose`: the moves, warnings for programs left
/// over budget, and the tables that stay although a move was wanted, with why.
#[derive(Default)]
pub struct Choice {
    pub chosen: Vec<Chosen>,
    pub warnings: Vec<Warning>,
    pub stays: Vec<Refusal>,
    /// `__constant` members of duplicate groups whose data cannot move, with why.
    pub twin_stays: BTreeMap<DeclKey, String>,
}

/// The tables every unit moves: those a merge needs (their address reaches
/// the `__constant` pointers of a duplicate in `twins`), then, largest
/// first, those that bring a program within the budget (all movable ones
/// with `--globals prefer-global`); a table in a shared header moves in
/// every program including it, or in none.
pub fn choose(units: &[Unit], decisions: &[Decisions], options: &MigrateOptions, twins: &[ConstantTwin]) -> Choice {
    if !options.target.has_program_scope_globals() {
        return without_globals(units, options);
    }
    let mut per_unit: Vec<Vec<Component>> =
        units.iter().zip(decisions).map(|(unit, decided)| components(unit, decided, &tables_of(unit), &options.root)).collect();
    let mut choice = Choice { twin_stays: choose_for_merges(units, decisions, &mut per_unit, twins), ..Choice::default() };
    for (unit, components) in units.iter().zip(per_unit.iter_mut()) {
        choose_for_budget(unit, components, options);
    }
    in_every_unit(units, &mut per_unit);
    for (u, unit) in UnitId::enumerate(units) {
        settle(&mut choice, u, unit, &per_unit[u], options);
    }
    choice
}

/// A target with no program-scope globals moves nothing: a program over the
/// budget is warned about, and its tables stay where a move was wanted.
fn without_globals(units: &[Unit], options: &MigrateOptions) -> Choice {
    let mut choice = Choice::default();
    for unit in units {
        let tables = tables_of(unit);
        let total: u64 = tables.iter().map(|t| t.size).sum();
        let over = total > options.constant_budget;
        if over {
            let message = format!(
                "its __constant data is {total} bytes, over the {}-byte budget, and {} has no program-scope globals to move it to",
                options.constant_budget,
                options.target.name()
            );
            choice.warnings.push(Warning::new(unit.path.clone(), message));
        }
        if over || options.globals == GlobalsPolicy::PreferGlobal {
            let detail = format!("{} has no program-scope globals", options.target.name());
            choice.stays.extend(tables.iter().map(|t| stay(unit, t.index, Code::NoProgramScopeGlobals, &detail)));
        }
    }
    choice
}

/// One unit's outcome once the choices are made: the tables that stay
/// although a move was wanted, a warning if what remains is still over the
/// budget, and its moves.
fn settle(choice: &mut Choice, u: UnitId, unit: &Unit, components: &[Component], options: &MigrateOptions) {
    let total: u64 = components.iter().map(|c| c.size).sum();
    let remaining: u64 = components.iter().filter(|c| c.chosen.is_none()).map(|c| c.size).sum();
    let wanted = options.globals == GlobalsPolicy::PreferGlobal || total > options.constant_budget;
    for c in components.iter().filter(|c| c.chosen.is_none() && wanted) {
        if let Err((reason, detail)) = &c.movable {
            choice.stays.extend(c.vars.iter().map(|v| stay(unit, *v, *reason, detail)));
        }
    }
    if remaining > options.constant_budget {
        let message = format!(
            "its __constant data stays {remaining} bytes, over the {}-byte budget: the rest cannot move",
            options.constant_budget
        );
        choice.warnings.push(Warning::new(unit.path.clone(), message));
    }
    for c in components {
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

/// Marks the components a merge needs: every `__constant` pointer of a twin,
/// in every unit defining it, must be a follower of a movable component.
fn choose_for_merges(
    units: &[Unit],
    decisions: &[Decisions],
    per_unit: &mut [Vec<Component>],
    twins: &[ConstantTwin],
) -> BTreeMap<DeclKey, String> {
    let mut stays = BTreeMap::new();
    for twin in twins {
        // (unit, component) pairs the twin needs moved.
        let mut needed: Vec<(UnitId, usize)> = Vec::new();
        let mut why_not = None;
        for (u, unit) in UnitId::enumerate(units) {
            let Some(function) =
                unit.syntax.functions.iter().find(|f| f.is_definition && unit.key(f.pos.file, f.pos.offset) == twin.key)
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
            stays.insert(twin.key, why);
            continue;
        }
        for (u, c) in needed {
            let component = &mut per_unit[u][c];
            if component.chosen.is_none() {
                let text = format!("{} bytes; needed to merge {} with {}", component.size, twin.cited, twin.others);
                let needed_by = Some((twin.key, twin.cited.clone()));
                component.chosen = Some(Why { text, because: Because::Merge, needed_by });
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
    decisions: &[Arc<DeclDecision>],
    components: &[Component],
    decl: &crate::facts::syntax::PointerDecl,
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
fn choose_for_budget(unit: &Unit, components: &mut [Component], options: &MigrateOptions) {
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
                Why { text: format!("{} bytes, moved as asked (--globals prefer-global)", c.size), because: Because::PreferGlobal, needed_by: None }
            }
            GlobalsPolicy::AsNeeded => Why {
                text: format!(
                    "{} bytes; the program's __constant data ({total} bytes) is over the {}-byte budget (--constant-budget), {remaining} bytes after this move",
                    c.size, options.constant_budget
                ),
                because: Because::OverBudget,
                needed_by: None,
            },
        };
        c.chosen = Some(why);
    }
}

/// A table in a shared header moves in every program that includes it, with
/// that program's own followers; if it cannot move in one of them, it moves in none.
fn in_every_unit(units: &[Unit], per_unit: &mut [Vec<Component>]) {
    let key = |u: UnitId, var: usize| {
        let v = &units[u].syntax.program_vars[var];
        units[u].key(v.pos.file, v.pos.offset)
    };
    loop {
        // Table -> (unit, component) in every unit having it.
        let mut places: BTreeMap<DeclKey, Vec<(UnitId, usize)>> = BTreeMap::new();
        for (u, components) in UnitId::enumerate(per_unit) {
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
                            component.movable = Err((Code::SharedHeader, detail.clone()));
                        }
                    }
                }
                None => {
                    // `u0`'s component was found by its choice: it has one.
                    let Some(mut why) = per_unit[u0][c0].chosen.clone() else { continue };
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
fn stay(unit: &Unit, var: usize, reason: Code, detail: &str) -> Refusal {
    let v = &unit.syntax.program_vars[var];
    Refusal {
        file: unit.syntax.files[v.pos.file].clone(),
        line: v.pos.line,
        col: v.pos.col,
        function: String::new(),
        name: v.name.clone(),
        reason,
        detail: format!("stays __constant: {detail}"),
        blocking: false,
        canonical: unit.canonical(v.pos.file).to_path_buf(),
    }
}
