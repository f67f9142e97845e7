//! `infer`: decides, for every pointer declaration of a unit, whether its
//! named address-space qualifier can go (become generic), must go (the
//! code would not compile as 2.0 otherwise), or must stay, and why.
//!
//! A constraint problem over the flow graph, in the spirit of type-qualifier
//! inference: in OpenCL 2.0 a named pointer converts implicitly to generic,
//! never back. So if a declaration becomes generic, every declaration its
//! value flows into must be generic too, and a pinned declaration anywhere
//! downstream refuses the whole upstream group. Unqualified pointers are
//! generic under 2.0 whether we edit or not, so their downstream is
//! *required* to be generic.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::Serialize;

use crate::codes::Code;
use crate::describe::{at, describe_node, describe_source, node_of};
use crate::flowgraph::FlowGraph;
use crate::ir::{Node, Sink};
use crate::options::Target;
use crate::syntax::{DeclKind, Function, KernelSyntax, PointerDecl, Space, Spelling};
use crate::unit::Unit;

/// What happens to one declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub space: Space,
    pub from: String,
    pub at: String,
}

/// The decision for one pointer declaration, with its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct DeclDecision {
    pub function: String,
    pub link_name: String,
    pub kernel: bool,
    #[serde(skip)]
    pub decl: PointerDecl,
    pub node: Node,
    #[serde(flatten)]
    pub decision: Decision,
    pub receives: Vec<Evidence>,
}

/// Knobs that come from the command line and the batch, not the unit.
#[derive(Debug, Clone, Default)]
pub struct InferOptions {
    pub target_has_generic: bool,
    /// Declarations (file id within the unit, name offset) refused from outside:
    /// outside the edit root, or refused by another unit sharing the header.
    pub refused_from_outside: BTreeMap<(usize, u32), (Code, String)>,
    /// Testing only: pins to ignore, so tests can force a wrong change and see verification catch it.
    pub ignored_pins: Vec<Code>,
    /// `__constant` declarations (file id, name offset) that follow a program-scope variable
    /// moving to `__global`: they are `__global` for the inference, and may become generic.
    pub moved: BTreeSet<(usize, u32)>,
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

/// Builtins with no generic-pointer overload under OpenCL 2.0.
pub fn builtin_pins(name: &str) -> bool {
    const LEGACY_ATOMICS: [&str; 11] = ["add", "sub", "xchg", "inc", "dec", "cmpxchg", "min", "max", "and", "or", "xor"];
    if let Some(op) = name.strip_prefix("atomic_").or_else(|| name.strip_prefix("atom_")) {
        return LEGACY_ATOMICS.contains(&op);
    }
    matches!(name, "async_work_group_copy" | "async_work_group_strided_copy" | "prefetch")
}

/// A pin on a declaration itself (not through its downstream).
fn own_pin(
    unit: &Unit,
    graph: &FlowGraph,
    function: &Function,
    decl: &PointerDecl,
    node: &Node,
    options: &InferOptions,
) -> Option<(Code, String)> {
    let syntax = &unit.syntax;
    let level = decl.levels.first()?;
    if level.space == Space::Constant && !options.moved.contains(&(decl.pos.file, decl.pos.offset)) {
        return Some((Code::ConstantSpace, "__constant is not part of the generic address space".into()));
    }
    if let Some((reason, detail)) = options.refused_from_outside.get(&(decl.pos.file, decl.pos.offset)) {
        return Some((*reason, detail.clone()));
    }
    if let Some(m) = decl.in_macro.as_ref().or(function.in_macro.as_ref()) {
        return Some((Code::Macro, format!("declared inside the expansion of macro `{m}`")));
    }
    if decl.sizeof_used {
        return Some((Code::SizeofPointer, format!("`sizeof({})` observes the pointer's own size", decl.name)));
    }
    if !unit.ir.function(&function.link_name).map(|f| f.is_definition).unwrap_or(false) {
        return Some((Code::NoEvidence, format!("`{}` is not emitted by the compiler", function.name)));
    }
    let file_of = |range: &crate::syntax::ByteRange| syntax.files[range.file].display().to_string();
    let extent = &function.extent;
    let inside = |r: &crate::syntax::ByteRange| r.file == extent.file && r.start >= extent.start && r.end <= extent.end;
    if let Some(skipped) = syntax.skipped.iter().find(|s| inside(&s.range) && s.escaping.contains(&decl.name)) {
        let at = format!("{}:{}", file_of(&skipped.range), skipped.first_line);
        return Some((Code::SkippedIf, format!("`{}` is used in code skipped by #if at {at}", decl.name)));
    }
    if let Some((space, line)) = decl.cast_to {
        let file = syntax.files[decl.pos.file].display();
        let detail =
            format!("its value is cast to a {} pointer at {file}:{line}, which would cast a generic pointer", space.keyword());
        return Some((Code::CastToNamed, detail));
    }
    for flow in graph.outgoing(node) {
        let here = at(&flow.at);
        match &flow.to {
            Sink::Builtin { name, .. } if builtin_pins(name) => {
                return Some((Code::BuiltinPin, format!("passed to `{name}` at {here}, which has no generic overload")));
            }
            Sink::External { name, .. } => {
                return Some((Code::UndefinedCallee, format!("passed to `{name}` at {here}, not defined in this unit")));
            }
            Sink::Builtin { name, mangled, .. } if is_user_prototype(syntax, mangled) => {
                return Some((Code::UndefinedCallee, format!("passed to `{name}` at {here}, not defined in this unit")));
            }
            Sink::Memory => return Some((Code::EscapesToMemory, format!("stored into memory at {here}"))),
            Sink::Integer => return Some((Code::PointerToInteger, format!("converted to an integer at {here}"))),
            _ => {}
        }
    }
    if let Spelling::Hidden { why } = &level.spelling {
        return Some((Code::HiddenQualifier, format!("the qualifier comes from a {why}, not editable here")));
    }
    // Checked before the build (after the pins that say more, such as a 1.x atomic): a generic pointer to volatile data would compile, and be
    // withdrawn by verification every time, after a costly bisection.
    if decl.type_text.split('*').next().is_some_and(|pointee| pointee.split_whitespace().any(|w| w == "volatile")) {
        let detail = "it points to volatile data: volatile accesses through a generic pointer stay flat (LLVM does not infer their address space), so the kernels would change";
        return Some((Code::VolatilePointee, detail.into()));
    }
    // Last: the one pin a required change overrides (see `infer`).
    // A generic parameter accepts every pointer but a __constant one, so unseen code
    // naming the function (a call, or only another configuration's definition) is a
    // risk only where it could pass a __constant pointer: it spells __constant, or
    // names a __constant variable or pointer of the unit.
    let naming: Vec<&crate::syntax::SkippedRange> =
        syntax.skipped.iter().filter(|s| s.identifiers.contains(&function.name)).collect();
    let constants = if naming.is_empty() { BTreeSet::new() } else { constant_names(syntax) };
    let could_pass_constant =
        |s: &crate::syntax::SkippedRange| s.spells_constant || s.identifiers.iter().any(|name| constants.contains(name.as_str()));
    if let Some(skipped) = naming.into_iter().find(|s| could_pass_constant(s)) {
        let at = format!("{}:{}", file_of(&skipped.range), skipped.first_line);
        let detail =
            format!("`{}` is named in code skipped by #if at {at}, which could pass a __constant pointer", function.name);
        return Some((Code::SkippedCaller, detail));
    }
    None
}

/// Names of the unit's __constant variables and of pointers to __constant.
fn constant_names(syntax: &KernelSyntax) -> BTreeSet<&str> {
    let vars = syntax.program_vars.iter().filter(|v| v.space == Space::Constant).map(|v| v.name.as_str());
    let pointers = syntax
        .functions
        .iter()
        .flat_map(|f| f.pointers.iter())
        .filter(|d| d.levels.first().is_some_and(|l| l.space == Space::Constant))
        .map(|d| d.name.as_str());
    vars.chain(pointers).collect()
}

fn is_user_prototype(syntax: &KernelSyntax, mangled: &str) -> bool {
    syntax.functions.iter().any(|f| f.link_name == mangled && !f.is_definition)
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

pub fn infer(unit: &Unit, options: &InferOptions) -> Inference {
    let syntax = &unit.syntax;
    let graph = FlowGraph::new(&unit.ir);
    let mut entries: Vec<(&Function, &PointerDecl, Node, Role)> = Vec::new();
    for function in syntax.functions.iter().filter(|f| f.is_definition) {
        for decl in &function.pointers {
            let Some(level) = decl.levels.first() else { continue };
            let node = node_of(function, decl);
            let role = if function.is_kernel && matches!(decl.kind, DeclKind::Param(_)) {
                Role::Pinned(Code::KernelParam, "kernel parameters keep their address space".into())
            } else if level.spelling == Spelling::Unqualified && decl.array.is_none() {
                Role::AlreadyGeneric
            } else if let Some((reason, detail)) =
                own_pin(unit, &graph, function, decl, &node, options).filter(|(r, _)| !options.ignored_pins.contains(r))
            {
                Role::Pinned(reason, detail)
            } else if !options.target_has_generic {
                Role::Pinned(Code::TargetWithoutGeneric, "the target has no generic address space".into())
            } else if function.is_kernel || decl.array.is_some() {
                Role::OnDemand
            } else {
                Role::Wanted
            };
            entries.push((function, decl, node, role));
        }
    }
    let roles: BTreeMap<Node, Role> = entries.iter().map(|(_, _, n, r)| (n.clone(), r.clone())).collect();
    let kernel_param =
        |n: &Node| entries.iter().any(|(f, d, node, _)| node == n && f.is_kernel && matches!(d.kind, DeclKind::Param(_)));
    let mut decided: BTreeMap<Node, Decision> = BTreeMap::new();

    // Required: everything downstream of an already-generic pointer, and the
    // parameters that receive an argument cast to an unqualified pointer type
    // (`f((uchar *)buf)`: generic under 2.0), with their downstream.
    let mut generic_entries: Vec<(Node, BTreeSet<Node>)> = entries
        .iter()
        .filter(|(_, _, _, role)| *role == Role::AlreadyGeneric)
        .map(|(_, _, node, _)| (node.clone(), graph.downstream(node)))
        .collect();
    for cast in &syntax.unqualified_cast_args {
        let Some(callee) = syntax.functions.iter().find(|f| f.is_definition && f.name == cast.callee) else { continue };
        let param = Node::Param { func: callee.link_name.clone(), index: cast.index };
        let mut reached = graph.downstream(&param);
        reached.insert(param.clone());
        generic_entries.push((param, reached));
    }
    for (node, reached) in &generic_entries {
        for down in reached.iter().cloned() {
            match roles.get(&down) {
                // Without the change the unit cannot compile as the target at all;
                // code that #if skips (callers, uses) may see a generic pointer now:
                // it accepts any pointer but a __constant one. Said in the fix.
                Some(Role::Wanted) | Some(Role::OnDemand) => {
                    decided.insert(down, Decision::Generic { required: true, caveat: None });
                }
                Some(Role::Pinned(Code::SkippedCaller | Code::SkippedIf, detail)) => {
                    decided.insert(down, Decision::Generic { required: true, caveat: Some(detail.clone()) });
                }
                Some(Role::Pinned(reason, detail)) => {
                    let detail = if kernel_param(&down) { "a kernel parameter cannot be generic".into() } else { detail.clone() };
                    decided.entry(down.clone()).or_insert(Decision::Impossible {
                        reason: *reason,
                        detail: format!("receives a generic pointer from {}, but {detail}", describe_node(syntax, node)),
                    });
                }
                _ => {}
            }
        }
    }

    // Wanted: generic unless something downstream must stay named.
    for (_, _, node, role) in &entries {
        if *role != Role::Wanted || decided.contains_key(node) {
            continue;
        }
        let downstream = graph.downstream(node);
        let blocker = downstream.iter().find_map(|d| match roles.get(d) {
            Some(Role::Pinned(reason, detail)) => Some((d.clone(), *reason, detail.clone())),
            _ => None,
        });
        match blocker {
            Some((down, reason, detail)) => {
                let why =
                    if kernel_param(&down) { "it is a kernel parameter".to_string() } else { format!("{reason} ({detail})") };
                decided.insert(
                    node.clone(),
                    Decision::Refused {
                        reason: Code::FlowsToPinned,
                        detail: format!("flows into {}, which must stay named: {why}", describe_node(syntax, &down)),
                    },
                );
            }
            None => {
                decided.insert(node.clone(), Decision::Generic { required: false, caveat: None });
                for down in downstream {
                    if matches!(roles.get(&down), Some(Role::Wanted) | Some(Role::OnDemand)) {
                        decided.entry(down).or_insert(Decision::Generic { required: false, caveat: None });
                    }
                }
            }
        }
    }

    let mut decls = Vec::new();
    let mut seen = HashSet::new();
    for (function, decl, node, role) in entries {
        if !seen.insert(node.clone()) {
            continue;
        }
        let decision = match decided.remove(&node) {
            Some(d) => d,
            None => match role {
                // Kernel declarations keep their space without it being a refusal.
                Role::Pinned(reason, detail) if !function.is_kernel => Decision::Refused { reason, detail },
                _ if !function.is_kernel && inner_named(decl) => Decision::Refused {
                    reason: Code::PointerToPointer,
                    detail: "inner levels of a pointer to pointer keep their address space".into(),
                },
                _ => Decision::Unchanged,
            },
        };
        let receives = graph
            .incoming(&node)
            .map(|f| Evidence { space: f.space, from: describe_source(syntax, &f.from), at: at(&f.at) })
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
    Inference { decls }
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
