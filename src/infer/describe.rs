//! Source-level words for IR facts: which declaration a node is, where a
//! value comes from or goes, how a qualifier is spelled. Shared by the
//! decisions' evidence (`infer`) and `clasp analyze`'s report.

use crate::facts::ir::{Node, Sink, Source, SrcLoc};
use crate::facts::syntax::{DeclKind, Function, KernelSyntax, PointerDecl, Spelling};
use crate::front::unit::Unit;

/// The IR node a syntax declaration corresponds to.
pub fn node_of(function: &Function, decl: &PointerDecl) -> Node {
    let func = function.link_name.clone();
    match decl.kind {
        DeclKind::Param(index) => Node::Param { func, index },
        DeclKind::Local => Node::Local { func, name: decl.name.clone(), line: decl.pos.line },
        DeclKind::Return => Node::Return { func },
    }
}

/// Human words for a declaration node.
pub fn describe_node(syntax: &KernelSyntax, node: &Node) -> String {
    let function = syntax.function(node.func());
    let fname = function.map(|f| f.name.clone()).unwrap_or_else(|| node.func().to_string());
    match node {
        Node::Param { index, .. } => {
            let pname = function
                .and_then(|f| f.pointers.iter().find(|d| d.kind == DeclKind::Param(*index)))
                .map(|d| d.name.clone())
                .unwrap_or_else(|| format!("#{}", index + 1));
            let what = if function.map(|f| f.is_kernel).unwrap_or(false) { "kernel param" } else { "param" };
            format!("{what} `{pname}` of `{fname}`")
        }
        Node::Local { name, .. } => format!("local `{name}` of `{fname}`"),
        Node::Return { .. } => format!("result of `{fname}`"),
    }
}

pub fn describe_source(syntax: &KernelSyntax, source: &Source) -> String {
    match source {
        Source::Decl { node } => describe_node(syntax, node),
        Source::Global { name } => match name.split_once('.') {
            Some((kernel, var)) => format!("`{var}` declared in `{kernel}`"),
            None => format!("program-scope `{name}`"),
        },
        Source::PrivateObject { func, name } => {
            let fname = syntax.function(func).map(|f| f.name.as_str()).unwrap_or(func);
            format!("private `{name}` of `{fname}`")
        }
        Source::Memory => "a pointer loaded from memory".into(),
        Source::Null => "null".into(),
        Source::Unknown { what } => what.clone(),
    }
}

pub fn describe_sink(sink: &Sink) -> String {
    match sink {
        Sink::Builtin { name, .. } => format!("builtin `{name}`"),
        Sink::External { name, .. } => format!("undefined function `{name}`"),
        Sink::Memory => "a store into memory".into(),
        Sink::Integer => "a cast to integer".into(),
        Sink::Decl { node } => format!("{node:?}"),
    }
}

/// `file:line` of a place debug information names, in the file that holds
/// it (see `Unit::place_of`: a program's source, not its virtual text).
pub fn at(unit: &Unit, loc: &SrcLoc) -> String {
    if loc.line == 0 {
        "(no location)".into()
    } else {
        unit.place_of(std::path::Path::new(&loc.file), loc.line, loc.col).file_line()
    }
}

pub fn spelled(decl: &PointerDecl) -> String {
    match decl.levels.first().map(|l| &l.spelling) {
        Some(Spelling::Unqualified) | None => "unqualified".into(),
        Some(Spelling::Keyword { text, .. }) => format!("`{text}`"),
        Some(Spelling::MacroUse { name, keyword, .. }) => format!("macro `{name}` ({keyword})"),
        Some(Spelling::MacroSite { site, keyword, .. }) => format!("`{keyword}` in macro `{}`", site.macro_name),
        Some(Spelling::Hidden { why }) => format!("hidden ({why})"),
    }
}
