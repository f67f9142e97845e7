//! `infer`: decides, for every pointer declaration of a unit, whether its
//! named address-space qualifier can go (become generic), must go (the
//! code would not compile as 2.0 otherwise), or must stay, and why.
//!
//! Takes a loaded unit (`front`: its syntax and IR facts) and the settings;
//! gives a decision with evidence and a reason code per declaration, which
//! `rules` turns into fixes and refusals.
//!
//! A constraint problem over the flow graph, in the spirit of type-qualifier
//! inference: in OpenCL 2.0 a named pointer converts implicitly to generic,
//! never back. So if a declaration becomes generic, every declaration its
//! value flows into must be generic too, and a pinned declaration anywhere
//! downstream refuses the whole upstream group. Unqualified pointers are
//! generic under 2.0 whether we edit or not, so their downstream is
//! *required* to be generic.

pub(crate) mod describe;
mod pin;

use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashSet, HashSetExt};

use serde::Serialize;

use crate::codes::Code;
use crate::facts::flowgraph::FlowGraph;
use crate::facts::ir::Node;
use crate::facts::syntax::{DeclKind, Function, KernelSyntax, PointerDecl, Space, Spelling};
use crate::front::unit::Unit;
use crate::infer::describe::{at, describe_node, describe_source, node_of};
use crate::settings::options::Target;
use pin::own_pin;
pub use pin::skipped_at;

/// What happens to one declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "decision", rename_all = "kebab-case")]
pub enum Decision {
    /// The qualifier goes. `required`: 2.0 would reject the code otherwise;
    /// `caveat`: a pin the requirement overrode (uses in code `#if` skips).
    Generic {
        required: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        caveat: Option<String>,
    },
    /// Nothing to do (kernel params, unqualified pointers, kernel locals not reached by generic values).
    Unchanged,
    /// The qualifier stays although the declaration is a helper pointer.
    Refused { reason: Code, detail: String },
    /// The code cannot be made to compile as 2.0 because of this declaration.
    Impossible { reason: Code, detail: String },
}

/// One spelled value that reaches a declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Evidence {
    pub space: Space,
    pub from: String,
    pub at: String,
}

/// The decision for one pointer declaration, with its evidence. Equal
/// decisions are one shared value in a batch (`Decisions`, `intern`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclDecision {
    pub function: String,
    pub link_name: String,
    pub kernel: bool,
    #[serde(skip)]
    pub decl: std::sync::Arc<PointerDecl>,
    pub node: Node,
    #[serde(flatten)]
    pub decision: Decision,
    pub receives: Vec<Evidence>,
}

impl std::hash::Hash for DeclDecision {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The declaration by its place: equal declarations are at the same place.
        (&self.function, &self.link_name, self.kernel, self.decl.pos, &self.node, &self.decision, &self.receives).hash(state);
    }
}

/// A unit's decisions, each shared with the units deciding the same (`intern`).
pub type Decisions = Vec<std::sync::Arc<DeclDecision>>;

/// A batch's distinct decisions. Units including the same headers decide
/// most of their declarations alike (a header helper the unit does not
/// call reads the same everywhere): each unit holding its own copies was
/// most of what planning held per unit.
#[derive(Default)]
pub struct Interned {
    distinct: std::sync::Mutex<HashSet<std::sync::Arc<DeclDecision>>>,
}

impl Interned {
    /// `decls` as shared values: each equal to one already seen is that one.
    pub fn intern(&self, decls: Vec<DeclDecision>) -> Decisions {
        let Ok(mut distinct) = self.distinct.lock() else {
            return decls.into_iter().map(std::sync::Arc::new).collect();
        };
        let mut out: Decisions = decls
            .into_iter()
            .map(|d| match distinct.get(&d) {
                Some(shared) => shared.clone(),
                None => {
                    let shared = std::sync::Arc::new(d);
                    distinct.insert(shared.clone());
                    shared
                }
            })
            .collect();
        out.shrink_to_fit();
        out
    }
}

/// Knobs that come from the command line and the batch, not the unit.
#[derive(Debug, Clone, Default)]
pub struct InferOptions {
    pub target_has_generic: bool,
    /// Declarations (file id within the unit, name offset) refused from outside:
    /// outside the edit root, refused by another unit sharing the header, or
    /// kept by the user (`// clasp: keep`, a rule not selected).
    pub refused_from_outside: BTreeMap<(usize, u32), (Code, String)>,
    /// Testing only: pins to ignore, so tests can force a wrong change and see verification catch it.
    pub ignored_pins: Vec<Code>,
    /// `__constant` declarations (file id, name offset) that follow a program-scope variable
    /// moving to `__global`: they are `__global` for the inference, and may become generic.
    pub moved: BTreeSet<(usize, u32)>,
    /// Qualifier tokens inside macros (file id, offset) that stay: another
    /// expansion of the token, in this unit or another, keeps its space. With why.
    pub site_refusals: BTreeMap<(usize, u32), String>,
}

impl InferOptions {
    pub fn for_target(target: Target) -> Self {
        InferOptions { target_has_generic: target.has_generic(), ..Default::default() }
    }
}

/// All decisions for a unit, in source order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Inference {
    pub decls: Vec<DeclDecision>,
}

/// How a declaration stands before constraints.
#[derive(Debug, Clone, PartialEq)]
enum Role {
    /// Unqualified: generic under 2.0 whatever we do.
    AlreadyGeneric,
    /// A helper pointer with a named, removable qualifier: we want it generic.
    Wanted,
    /// Generic only when a generic value reaches it: a kernel local with a
    /// named qualifier, or an array parameter (private even in 2.0).
    OnDemand,
    /// Must keep its named space.
    Pinned(Code, String),
}

/// One pointer declaration of a definition, with how it stands.
struct Entry<'u> {
    function: &'u Function,
    decl: &'u std::sync::Arc<PointerDecl>,
    node: Node,
    role: Role,
}

/// Every pointer declaration's decision: roles first, then what the
/// already-generic pointers require downstream, then which wanted ones can
/// go; the rest keep their space.
pub fn infer(unit: &Unit, options: &InferOptions) -> Inference {
    let graph = FlowGraph::new(&unit.ir);
    let entries = entries(unit, &graph, options);
    let mut solver = Solver::new(&unit.syntax, &graph, &entries);
    solver.require_generic();
    solver.grant_wanted();
    let decided = solver.decided;
    Inference { decls: decisions(unit, &graph, entries, decided) }
}

/// The pointer declarations of the unit's definitions, in source order, each with its role.
fn entries<'u>(unit: &'u Unit, graph: &FlowGraph, options: &InferOptions) -> Vec<Entry<'u>> {
    let mut entries = Vec::new();
    for function in unit.syntax.functions.iter().filter(|f| f.is_definition) {
        for decl in function.pointers.iter().filter(|d| !d.levels.is_empty()) {
            let node = node_of(function, decl);
            let role = role(unit, graph, function, decl, &node, options);
            entries.push(Entry { function, decl, node, role });
        }
    }
    entries
}

/// How one declaration (with at least one pointer level) stands before constraints.
fn role(unit: &Unit, graph: &FlowGraph, function: &Function, decl: &PointerDecl, node: &Node, options: &InferOptions) -> Role {
    let unqualified = decl.levels.first().is_some_and(|l| l.spelling == Spelling::Unqualified);
    if function.is_kernel && matches!(decl.kind, DeclKind::Param(_)) {
        Role::Pinned(Code::KernelParam, "kernel parameters keep their address space".into())
    } else if unqualified && decl.array.is_none() {
        Role::AlreadyGeneric
    } else if let Some((reason, detail)) =
        own_pin(unit, graph, function, decl, node, options).filter(|(r, _)| !options.ignored_pins.contains(r))
    {
        Role::Pinned(reason, detail)
    } else if !options.target_has_generic {
        Role::Pinned(Code::TargetWithoutGeneric, "the target has no generic address space".into())
    } else if function.is_kernel || decl.array.is_some() {
        Role::OnDemand
    } else {
        Role::Wanted
    }
}

/// The constraint pass: what each role implies for the declarations its value flows into.
struct Solver<'a> {
    syntax: &'a KernelSyntax,
    graph: &'a FlowGraph<'a>,
    entries: &'a [Entry<'a>],
    /// Node -> role; of two declarations sharing a node, the later one's.
    roles: BTreeMap<Node, Role>,
    decided: BTreeMap<Node, Decision>,
}

impl<'a> Solver<'a> {
    fn new(syntax: &'a KernelSyntax, graph: &'a FlowGraph<'a>, entries: &'a [Entry<'a>]) -> Self {
        let roles = entries.iter().map(|e| (e.node.clone(), e.role.clone())).collect();
        Solver { syntax, graph, entries, roles, decided: BTreeMap::new() }
    }

    /// Whether `n` is a kernel's parameter, which messages name as such.
    fn kernel_param(&self, n: &Node) -> bool {
        self.entries.iter().any(|e| &e.node == n && e.function.is_kernel && matches!(e.decl.kind, DeclKind::Param(_)))
    }

    /// The pointers generic under 2.0 whatever we do, each with what its value reaches:
    /// the already-generic declarations, and the parameters that receive an
    /// argument cast to an unqualified pointer type (`f((uchar *)buf)`), with themselves.
    fn generic_sources(&self) -> Vec<(Node, BTreeSet<Node>)> {
        let mut sources: Vec<(Node, BTreeSet<Node>)> = self
            .entries
            .iter()
            .filter(|e| e.role == Role::AlreadyGeneric)
            .map(|e| (e.node.clone(), self.graph.downstream(&e.node)))
            .collect();
        for cast in &self.syntax.unqualified_cast_args {
            let Some(callee) = self.syntax.functions.iter().find(|f| f.is_definition && f.name == cast.callee) else {
                continue;
            };
            let param = Node::Param { func: callee.link_name.clone(), index: cast.index };
            let mut reached = self.graph.downstream(&param);
            reached.insert(param.clone());
            sources.push((param, reached));
        }
        sources
    }

    /// Required: everything downstream of a generic source must be generic too.
    fn require_generic(&mut self) {
        for (node, reached) in &self.generic_sources() {
            for down in reached.iter().cloned() {
                self.require(node, down);
            }
        }
    }

    /// `down` receives a generic pointer from `from`: generic if it can be, else impossible.
    fn require(&mut self, from: &Node, down: Node) {
        match self.roles.get(&down) {
            // Without the change the unit cannot compile as the target at all;
            // code that #if skips (callers, uses) may see a generic pointer now:
            // it accepts any pointer but a __constant one. Said in the fix.
            Some(Role::Wanted) | Some(Role::OnDemand) => {
                self.decided.insert(down, Decision::Generic { required: true, caveat: None });
            }
            Some(Role::Pinned(Code::SkippedCaller | Code::SkippedIf, detail)) => {
                self.decided.insert(down, Decision::Generic { required: true, caveat: Some(detail.clone()) });
            }
            Some(Role::Pinned(reason, detail)) => {
                let detail =
                    if self.kernel_param(&down) { "a kernel parameter cannot be generic".into() } else { detail.clone() };
                self.decided.entry(down.clone()).or_insert(Decision::Impossible {
                    reason: *reason,
                    detail: format!("receives a generic pointer from {}, but {detail}", describe_node(self.syntax, from)),
                });
            }
            _ => {}
        }
    }

    /// Wanted: generic unless something downstream must stay named.
    fn grant_wanted(&mut self) {
        for entry in self.entries {
            if entry.role == Role::Wanted && !self.decided.contains_key(&entry.node) {
                self.grant(&entry.node);
            }
        }
    }

    /// One wanted declaration: refused if its value reaches a pinned one, else
    /// generic with every wanted or on-demand declaration downstream.
    fn grant(&mut self, node: &Node) {
        let downstream = self.graph.downstream(node);
        let blocker = downstream.iter().find_map(|d| match self.roles.get(d) {
            Some(Role::Pinned(reason, detail)) => Some((d.clone(), *reason, detail.clone())),
            _ => None,
        });
        if let Some((down, reason, detail)) = blocker {
            let why =
                if self.kernel_param(&down) { "it is a kernel parameter".to_string() } else { format!("{reason} ({detail})") };
            let detail = format!("flows into {}, which must stay named: {why}", describe_node(self.syntax, &down));
            self.decided.insert(node.clone(), Decision::Refused { reason: Code::FlowsToPinned, detail });
            return;
        }
        self.decided.insert(node.clone(), Decision::Generic { required: false, caveat: None });
        for down in downstream {
            if matches!(self.roles.get(&down), Some(Role::Wanted) | Some(Role::OnDemand)) {
                self.decided.entry(down).or_insert(Decision::Generic { required: false, caveat: None });
            }
        }
    }
}

/// One decision per node (its first entry), in source order, with the evidence that reaches it.
fn decisions(unit: &Unit, graph: &FlowGraph, entries: Vec<Entry>, mut decided: BTreeMap<Node, Decision>) -> Vec<DeclDecision> {
    // Kept for the whole run, a unit's decisions: no growth slack.
    let mut decls = Vec::with_capacity(entries.len());
    let mut seen = HashSet::new();
    for Entry { function, decl, node, role } in entries {
        if !seen.insert(node.clone()) {
            continue;
        }
        let decision = decided.remove(&node).unwrap_or_else(|| undecided(function, decl, role));
        let receives = graph
            .incoming(&node)
            .map(|f| Evidence { space: f.space, from: describe_source(&unit.syntax, &f.from), at: at(unit, &f.at) })
            .collect();
        decls.push(DeclDecision {
            function: function.name.clone(),
            link_name: function.link_name.clone(),
            kernel: function.is_kernel,
            decl: decl.clone(),
            node,
            decision,
            receives,
        });
    }
    decls.shrink_to_fit();
    decls
}

/// A declaration no constraint decided: it keeps its space, a refusal only outside kernels.
fn undecided(function: &Function, decl: &PointerDecl, role: Role) -> Decision {
    match role {
        // Kernel declarations keep their space without it being a refusal.
        Role::Pinned(reason, detail) if !function.is_kernel => Decision::Refused { reason, detail },
        _ if !function.is_kernel && inner_named(decl) => Decision::Refused {
            reason: Code::PointerToPointer,
            detail: "inner levels of a pointer to pointer keep their address space".into(),
        },
        _ => Decision::Unchanged,
    }
}

/// The distinct spaces among the evidence, for messages.
pub fn spaces(evidence: &[Evidence]) -> Vec<Space> {
    evidence.iter().map(|e| e.space).collect::<BTreeSet<_>>().into_iter().collect()
}

/// A pointer to pointer whose inner level names global, local or private.
fn inner_named(decl: &PointerDecl) -> bool {
    decl.levels
        .iter()
        .skip(1)
        .any(|l| matches!(l.space, Space::Global | Space::Local | Space::Private) && !matches!(l.spelling, Spelling::Unqualified))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::options::{CompileOptions, Target};

    /// Two units including one header decide its declarations alike: their
    /// decisions are one shared value each, equal to what each unit decided;
    /// those that differ (their kernels' parameters) stay apart.
    #[test]
    fn equal_decisions_of_two_units_are_one_shared_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("h.h"),
            "float first(__global float *p) { return p[1]; }\nfloat twice(__global float *p) { return first(p) * 2; }\n",
        )
        .unwrap();
        let kernel =
            |space: &str| format!("#include \"h.h\"\nkernel void k(__global float *o, {space} float *in) {{ o[0] = in[0]; }}\n");
        let bench = crate::front::unit::Workbench::new().expect("clang-19 must be installed (scripts/setup)");
        let load = |name: &str, text: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            bench.load(&path, &CompileOptions::default(), Target::Cl20).unwrap()
        };
        let (a, b) = (load("a.cl", kernel("__global")), load("b.cl", kernel("__local")));
        let options = InferOptions::for_target(Target::Cl20);
        let (owned_a, owned_b) = (infer(&a, &options).decls, infer(&b, &options).decls);
        let interned = Interned::default();
        let (shared_a, shared_b) = (interned.intern(owned_a.clone()), interned.intern(owned_b.clone()));
        assert_eq!(shared_a.iter().map(|d| (**d).clone()).collect::<Vec<_>>(), owned_a);
        assert_eq!(shared_b.iter().map(|d| (**d).clone()).collect::<Vec<_>>(), owned_b);
        let header = |decls: &Decisions, function: &str| decls.iter().find(|d| d.function == function).unwrap().clone();
        for helper in ["first", "twice"] {
            assert!(std::sync::Arc::ptr_eq(&header(&shared_a, helper), &header(&shared_b, helper)), "{helper}: one value");
        }
        let kernel_in = |decls: &Decisions| decls.iter().find(|d| d.decl.name == "in").unwrap().clone();
        assert!(!std::sync::Arc::ptr_eq(&kernel_in(&shared_a), &kernel_in(&shared_b)), "the kernels' own declarations differ");
    }
}
