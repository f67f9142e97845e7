//! Tables and components: a unit's program-scope `__constant` variables
//! with their sizes, grouped into components of tables whose addresses
//! reach a common pointer (they can only move together), each with its
//! followers or why it cannot move.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use super::Why;
use crate::codes::Code;
use crate::facts::flowgraph::FlowGraph;
use crate::facts::ir::{Node, Sink, Source};
use crate::facts::syntax::{FileIndex, ProgramVar, Space};
use crate::front::unit::Unit;
use crate::infer::DeclDecision;
use crate::support::ids::UnionFind;

/// A program-scope `__constant` variable of a unit, with its size.
pub(super) struct Table<'u> {
    pub(super) index: usize,
    pub(super) var: &'u ProgramVar,
    pub(super) size: u64,
}

/// Tables of one unit that can only move together: pointers receive more than one of them.
pub(super) struct Component {
    pub(super) vars: Vec<usize>,
    pub(super) size: u64,
    /// The followers, or why the tables cannot move (a reason code and a detail).
    pub(super) movable: Result<Vec<(FileIndex, u32)>, (Code, String)>,
    /// Chosen to move, and why.
    pub(super) chosen: Option<Why>,
}

/// A variable's size from the IR's data layout (0 if the IR does not have it).
pub(super) fn size_of(unit: &Unit, var: &ProgramVar) -> u64 {
    unit.ir.globals.iter().find(|g| g.name == var.ir_name).map_or(0, |g| g.size_bytes)
}

/// The unit's program-scope `__constant` variables with their sizes from the IR.
pub(super) fn tables_of(unit: &Unit) -> Vec<Table<'_>> {
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
pub(super) fn components(unit: &Unit, decisions: &[Arc<DeclDecision>], tables: &[Table], root: &Path) -> Vec<Component> {
    let graph = FlowGraph::new(&unit.ir);
    let reach: Vec<Result<BTreeSet<Node>, (Code, String)>> = tables.iter().map(|t| reached(unit, &graph, decisions, t)).collect();
    // Tables reaching a common declaration join one component.
    let mut joined = UnionFind::default();
    let mut first_reaching: BTreeMap<&Node, usize> = BTreeMap::new();
    for (i, nodes) in reach.iter().enumerate() {
        joined.find(i);
        for node in nodes.iter().flatten() {
            match first_reaching.get(node) {
                Some(&j) => joined.union(i, j),
                None => {
                    first_reaching.insert(node, i);
                }
            }
        }
    }
    let members: BTreeMap<usize, Vec<usize>> = joined.sets().into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect();
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
    decisions: &[Arc<DeclDecision>],
    table: &Table,
) -> Result<BTreeSet<Node>, (Code, String)> {
    let source = Source::Global { name: table.var.ir_name.clone() };
    let mut reached = BTreeSet::new();
    for flow in unit.ir.flows.iter().filter(|f| f.from == source) {
        match &flow.to {
            Sink::Decl { node } => {
                reached.insert(node.clone());
                reached.extend(graph.downstream(node));
            }
            Sink::Builtin { .. } => {}
            _ => {
                return Err((
                    Code::AddressEscapes,
                    format!("its address {} at {}", escape_phrase(&flow.to), crate::infer::describe::at(unit, &flow.at)),
                ))
            }
        }
    }
    for node in &reached {
        if let Some(flow) = graph.outgoing(node).find(|f| matches!(f.to, Sink::External { .. } | Sink::Memory | Sink::Integer)) {
            let detail = format!(
                "its address reaches {}, which {} at {}",
                node_name(decisions, node),
                escape_phrase(&flow.to),
                crate::infer::describe::at(unit, &flow.at)
            );
            return Err((Code::AddressEscapes, detail));
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
fn node_name(decisions: &[Arc<DeclDecision>], node: &Node) -> String {
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
    decisions: &[Arc<DeclDecision>],
    tables: &[Table],
    reach: &[Result<BTreeSet<Node>, (Code, String)>],
    indexes: &[usize],
    root: &Path,
) -> Result<Vec<(FileIndex, u32)>, (Code, String)> {
    let names: BTreeSet<&str> = indexes.iter().map(|i| tables[*i].var.ir_name.as_str()).collect();
    let mut nodes = BTreeSet::new();
    for &i in indexes {
        let var = tables[i].var;
        if !crate::settings::root::is_under(root, unit.canonical(var.pos.file)) {
            return Err((Code::OutsideRoot, format!("`{}` is declared outside the edit root", var.name)));
        }
        if var.spelling.range().is_none() {
            return Err((Code::Macro, format!("the qualifier of `{}` is not spelled at its declaration", var.name)));
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
            let detail = format!(
                "{} also receives other __constant data at {}",
                node_name(decisions, node),
                crate::infer::describe::at(unit, &flow.at)
            );
            return Err((Code::SharesConstantPointer, detail));
        }
        let Some(decision) = decisions.iter().find(|d| &d.node == node) else {
            return Err((
                Code::AddressEscapes,
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
            return Err((Code::Macro, detail));
        }
        out.push((decl.pos.file, decl.pos.offset));
    }
    Ok(out)
}
