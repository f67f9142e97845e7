//! `clasp analyze`: for every pointer declaration, its declared address
//! space, the spaces that reach it (with the call site or assignment of
//! each and where the value originates), and the builtins it reaches.
//!
//! Builds a serialisable report from a unit's facts; rendering as text or
//! JSON is a separate step so both show the same data.

use serde::Serialize;

use crate::facts::flowgraph::FlowGraph;
use crate::facts::ir::Node;
use crate::facts::syntax::{DeclKind, Function, PointerDecl, ProgramVar, Space};
use crate::front::unit::Unit;
use crate::infer::describe::{at, describe_node, describe_sink, describe_source, node_of, spelled};

#[derive(Debug, Clone, Serialize)]
pub struct UnitReport {
    pub path: String,
    /// The `clasp.toml` configuration the unit was built in, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    pub compiles: CompileStatus,
    pub functions: Vec<FunctionReport>,
    pub program_vars: Vec<VarReport>,
}

/// Whether a unit compiles as its input standard, and unchanged as the target.
#[derive(Debug, Clone, Serialize)]
pub struct CompileStatus {
    pub as_input: CompileCheck,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchanged_as_target: Option<CompileCheck>,
}

/// One compilation: as what, and clang's first error if it failed.
#[derive(Debug, Clone, Serialize)]
pub struct CompileCheck {
    pub standard: String,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl CompileCheck {
    pub fn new(standard: &str, result: Result<(), String>) -> CompileCheck {
        CompileCheck { standard: standard.to_string(), ok: result.is_ok(), error: result.err() }
    }
}

impl CompileStatus {
    /// "compiles as CL1.2: yes; unchanged as cl2.0: no (a.cl:3:5: error: ...)".
    pub fn render(&self) -> String {
        let show = |c: &CompileCheck| match &c.error {
            None => "yes".to_string(),
            Some(e) => format!("no ({e})"),
        };
        let mut out = format!("compiles as {}: {}", self.as_input.standard, show(&self.as_input));
        if let Some(target) = &self.unchanged_as_target {
            out.push_str(&format!("; unchanged as {}: {}", target.standard, show(target)));
        }
        out
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionReport {
    pub name: String,
    pub kernel: bool,
    pub file: String,
    pub line: u32,
    pub pointers: Vec<DeclReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeclReport {
    pub decl: &'static str,
    pub name: String,
    pub line: u32,
    pub col: u32,
    /// The space of what the pointer points to, then one level further for pointers to pointers.
    pub declared: Vec<Space>,
    pub spelled: String,
    /// For an array parameter: how its array-ness is spelled (`[64]`, or a typedef).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
    pub receives: Vec<Incoming>,
    pub reaches: Vec<Reach>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Incoming {
    pub space: Space,
    pub from: String,
    pub at: String,
    pub origins: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reach {
    pub target: String,
    pub space: Space,
    pub at: String,
    pub via: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct VarReport {
    pub name: String,
    pub line: u32,
    pub space: Space,
    #[serde(rename = "type")]
    pub type_text: String,
    pub size_bytes: Option<u64>,
    /// Written with no address space (OpenCL C 1.2 rejects it; 2.0 reads it as `__global`).
    pub unqualified: bool,
    /// The function declaring it `static`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// The report for `unit`; `compiles` comes from the caller, who ran clang.
pub fn report(unit: &Unit, compiles: CompileStatus) -> UnitReport {
    let syntax = &unit.syntax;
    let graph = FlowGraph::new(&unit.ir);
    let functions = syntax.functions.iter().filter(|f| f.is_definition).map(|f| function_report(unit, &graph, f)).collect();
    let program_vars = syntax.program_vars.iter().map(|v| var_report(unit, v)).collect();
    UnitReport {
        path: crate::settings::paths::shown_path(&unit.path),
        configuration: unit.configuration.clone(),
        compiles,
        functions,
        program_vars,
    }
}

/// One definition and each of its pointer declarations.
fn function_report(unit: &Unit, graph: &FlowGraph, function: &Function) -> FunctionReport {
    let at = unit.position(function.pos);
    FunctionReport {
        name: function.name.clone(),
        kernel: function.is_kernel,
        file: crate::settings::paths::shown_path(&at.file),
        line: at.line,
        pointers: function.pointers.iter().map(|decl| decl_report(unit, graph, function, decl)).collect(),
    }
}

/// One pointer declaration: how it is declared, what reaches it, what it reaches.
fn decl_report(unit: &Unit, graph: &FlowGraph, function: &Function, decl: &PointerDecl) -> DeclReport {
    let node = node_of(function, decl);
    let at = unit.position(decl.pos);
    DeclReport {
        decl: match decl.kind {
            DeclKind::Param(_) => "param",
            DeclKind::Local => "local",
            DeclKind::Return => "return",
        },
        name: decl.name.clone(),
        line: at.line,
        col: at.col,
        declared: decl.levels.iter().map(|l| l.space).collect(),
        spelled: spelled(decl),
        array: decl.array.as_ref().map(|a| a.spelled.clone()),
        receives: receives(unit, graph, &node),
        reaches: reaches(unit, graph, &node),
    }
}

/// The values flowing into `node`, each with where it originates (when that is further up).
fn receives(unit: &Unit, graph: &FlowGraph, node: &Node) -> Vec<Incoming> {
    let syntax = &unit.syntax;
    graph
        .incoming(node)
        .map(|flow| Incoming {
            space: flow.space,
            from: describe_source(syntax, &flow.from),
            at: at(unit, &flow.at),
            origins: graph.roots(&flow.from).iter().filter(|r| **r != flow.from).map(|r| describe_source(syntax, r)).collect(),
        })
        .collect()
}

/// The uses `node`'s value reaches, directly or through the declarations it flows into.
fn reaches(unit: &Unit, graph: &FlowGraph, node: &Node) -> Vec<Reach> {
    let syntax = &unit.syntax;
    graph
        .reached_uses(node)
        .into_iter()
        .map(|r| Reach {
            target: describe_sink(&r.flow.to),
            space: r.flow.space,
            at: at(unit, &r.flow.at),
            via: if r.via == *node { "directly".into() } else { describe_node(syntax, &r.via) },
        })
        .collect()
}

/// One program-scope variable, with its size as the compiler lays it out.
fn var_report(unit: &Unit, v: &ProgramVar) -> VarReport {
    VarReport {
        name: v.name.clone(),
        line: v.pos.line,
        space: v.space,
        type_text: v.type_text.clone(),
        size_bytes: unit.ir.globals.iter().find(|g| g.name == v.ir_name).map(|g| g.size_bytes),
        unqualified: v.spelling == crate::facts::syntax::Spelling::Unqualified,
        function: v.function.as_ref().map(|f| crate::facts::ir::demangled_base(f).to_string()),
    }
}

/// The report as text for people.
pub fn render_text(report: &UnitReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    match &report.configuration {
        Some(configuration) => writeln!(out, "{} [{configuration}]", report.path),
        None => writeln!(out, "{}", report.path),
    }
    .ok();
    let _ = writeln!(out, "  {}", report.compiles.render());
    for f in &report.functions {
        let kind = if f.kernel { "kernel" } else { "function" };
        let _ = writeln!(out, "  {kind} {} ({}:{})", f.name, f.file, f.line);
        for d in &f.pointers {
            let declared: Vec<&str> = d.declared.iter().map(|s| s.keyword()).collect();
            let what = match &d.array {
                _ if d.decl == "return" => "returns".to_string(),
                Some(array) => format!("array {} `{}` ({array})", d.decl, d.name),
                None => format!("{} `{}`", d.decl, d.name),
            };
            let _ = writeln!(out, "    {} ({}:{}): points to {} [{}]", what, d.line, d.col, declared.join(" -> "), d.spelled);
            for r in &d.receives {
                let _ = write!(out, "      <- {} from {} at {}", r.space.keyword(), r.from, r.at);
                if !r.origins.is_empty() {
                    let _ = write!(out, " (originates: {})", r.origins.join(", "));
                }
                out.push('\n');
            }
            for r in &d.reaches {
                let via = if r.via == "directly" { String::new() } else { format!(" via {}", r.via) };
                let _ = writeln!(out, "      -> {} ({}) at {}{}", r.target, r.space.keyword(), r.at, via);
            }
        }
    }
    if !report.program_vars.is_empty() {
        let _ = writeln!(out, "  program scope");
        for v in &report.program_vars {
            let size = v.size_bytes.map(|s| format!(", {s} bytes")).unwrap_or_default();
            let scope = v.function.as_ref().map(|f| format!(" (static in `{f}`)")).unwrap_or_default();
            let _ = writeln!(out, "    {} `{}`{scope} (line {}): {}{}", v.space.keyword(), v.name, v.line, v.type_text, size);
            if v.unqualified {
                let _ = writeln!(
                    out,
                    "      no address space: OpenCL C 1.2 rejects it (2.0 reads it as __global); `clasp migrate` names one"
                );
            }
        }
    }
    out
}
