//! Program creations and the literals they take as source:
//! `clCreateProgramWithSource(ctx, n, strings, lengths, err)`,
//! `cl::Program(ctx, sources...)` (a call, or a declaration
//! `cl::Program program(ctx, src)`), and pyopencl `cl.Program(ctx, src)`.
//!
//! A source argument is followed by `super::origins`: to literals, to the
//! kernel files its text is read from, and to the parameters a caller
//! fills; anything else computed at run time leaves the creation
//! `untraced`, with the reason. A source whose file is not traced is taken
//! to read the kernel files its function names, unless some source of that
//! function is read from a file named at run time (`getenv(...)`): then the
//! creation is `opaque`, and `ProgramCreation::file_names` stays empty.

use tree_sitter::Node;

use super::index::Indexed;
use super::origins::{names_kernel_file, parameter_names, Origins};
use super::syntax::{args, declarator_name, function_name, position, text};
use super::trace::Context;
use super::{HostLanguage, ProgramCreation, Through};

/// Every program creation of the file, with its call (or declaration) node.
pub(crate) fn find<'t>(context: &Context<'t, '_>) -> Vec<(ProgramCreation, Node<'t>)> {
    let aliases = pyopencl_aliases(context);
    let mut found = Vec::new();
    for indexed in &context.index.nodes {
        if let Some((api, sources, variable)) = creation(context, indexed, &aliases) {
            let mut origins = Origins::new(context);
            for &source in &sources {
                origins.follow(source);
            }
            found.push((indexed, api, variable, origins));
        }
    }
    // A function that reads some program from a file named at run time may
    // read any of them so: none is taken to read the files it names elsewhere.
    let run_time_named: Vec<usize> = (found.iter())
        .filter(|(_, _, _, origins)| origins.unresolved_file_name().is_some())
        .filter_map(|(indexed, ..)| indexed.function.map(|f| f.id()))
        .collect();
    (found.into_iter())
        .map(|(indexed, api, variable, origins)| {
            let guess_files = indexed.function.is_none_or(|f| !run_time_named.contains(&f.id()));
            let mut described = describe(context, indexed, api, origins, variable, guess_files);
            described.member = stored_in_member(context, indexed.node);
            (described, indexed.node)
        })
        .collect()
}

/// A creation's API, source arguments and declared variable, if `node` is one.
fn creation<'t>(
    context: &Context<'t, '_>,
    indexed: &Indexed<'t>,
    aliases: &[String],
) -> Option<(&'static str, Vec<Node<'t>>, Option<String>)> {
    let (src, node) = (context.src, indexed.node);
    match (context.language, indexed.kind) {
        (HostLanguage::Python, "call") => {
            let callee = node.child_by_field_name("function")?;
            let module = callee.child_by_field_name("object").filter(|o| o.kind() == "identifier")?;
            let is_program = callee.kind() == "attribute"
                && text(callee.child_by_field_name("attribute")?, src) == "Program"
                && aliases.iter().any(|a| a == text(module, src));
            let sources = args(node.child_by_field_name("arguments")?).get(1).copied();
            is_program.then(|| ("pyopencl.Program", sources.into_iter().collect(), program_variable(node, src)))
        }
        (HostLanguage::Python, _) => None,
        (_, "call_expression") => {
            let written = text(node.child_by_field_name("function")?, src);
            // Most calls are other functions: their arguments are never looked at.
            if !written.ends_with("clCreateProgramWithSource") && !written.ends_with("Program") {
                return None;
            }
            let callee: String = written.split_whitespace().collect();
            let list = args(node.child_by_field_name("arguments")?);
            match callee.trim_start_matches("::") {
                "clCreateProgramWithSource" => {
                    Some(("clCreateProgramWithSource", list.get(2).copied().into_iter().collect(), program_variable(node, src)))
                }
                "cl::Program" => Some(("cl::Program", cpp_sources(list, src), program_variable(node, src))),
                _ => None,
            }
        }
        (_, "declaration") => cpp_declaration(node, src),
        (HostLanguage::Cpp, "field_initializer") => cpp_member_initializer(context, node),
        _ => None,
    }
}

/// `Blur(const cl::Context &c) : program_(c, source, true) {}`: a member
/// initializer of a field the file declares as a `cl::Program`.
fn cpp_member_initializer<'t>(
    context: &Context<'t, '_>,
    node: Node<'t>,
) -> Option<(&'static str, Vec<Node<'t>>, Option<String>)> {
    let src = context.src;
    let field = node.named_child(0).filter(|f| f.kind() == "field_identifier")?;
    let name = text(field, src);
    let is_program = context.index.nodes.iter().filter(|n| n.kind == "field_declaration").any(|n| {
        let ty: String = n.node.child_by_field_name("type").map_or("", |t| text(t, src)).split_whitespace().collect();
        let mut cursor = n.node.walk();
        let mut declarators = n.node.children_by_field_name("declarator", &mut cursor);
        ty.trim_start_matches("::") == "cl::Program" && declarators.any(|d| declarator_name(d, src).as_deref() == Some(name))
    });
    let list = node.child_by_field_name("arguments").or_else(|| node.named_child(1))?;
    is_program.then(|| ("cl::Program", cpp_sources(args(list), src), Some(name.to_string())))
}

/// The class member a creation is stored in: a member initializer's
/// field, or the left side of the assignment that stores it (`self.prg =
/// cl.Program(...)`, `program_ = cl::Program(...)`).
fn stored_in_member<'t>(context: &Context<'t, '_>, node: Node<'t>) -> Option<String> {
    if node.kind() == "field_initializer" {
        return super::members::member(context, node.named_child(0)?);
    }
    let stored = stored_value(node, context.src);
    let parent = stored.parent().filter(|p| matches!(p.kind(), "assignment_expression" | "assignment"))?;
    let left = parent.child_by_field_name("left").filter(|l| l.id() != stored.id())?;
    super::members::member(context, left)
}

/// `cl::Program program(ctx, src);`, `cl::Program program{ctx, src};`. A
/// declaration whose arguments read as types (`std::string(k)`) parses as a
/// function declaration; its "parameters" are then the arguments.
fn cpp_declaration<'t>(node: Node<'t>, src: &[u8]) -> Option<(&'static str, Vec<Node<'t>>, Option<String>)> {
    let ty: String = text(node.child_by_field_name("type")?, src).split_whitespace().collect();
    if ty.trim_start_matches("::") != "cl::Program" {
        return None;
    }
    let declarator = node.child_by_field_name("declarator")?;
    let list = match declarator.kind() {
        "init_declarator" => declarator.child_by_field_name("value").filter(|v| v.kind() != "call_expression")?,
        "function_declarator" => declarator.child_by_field_name("parameters")?,
        _ => return None,
    };
    Some(("cl::Program", cpp_sources(args(list), src), declarator_name(declarator, src)))
}

/// `cl::Program(ctx, sources)`: the sources follow the context; a single
/// argument is the sources (the default context). The `build` flag
/// (`true`, `false`) and what follows it, and a trailing error pointer
/// (`&err`, `nullptr`), are no sources. The bindings' constructors from
/// source take at most a context and the sources before those; the others
/// (`cl::Program(ctx, devices, binaries, ...)`, `cl::Program(ctx, devices,
/// kernel_names)`) create a program from no source: none is returned.
fn cpp_sources<'t>(mut list: Vec<Node<'t>>, src: &[u8]) -> Vec<Node<'t>> {
    // A declaration read as a function's has `true` as a parameter's type.
    if let Some(flag) = list.iter().skip(1).position(|a| matches!(text(*a, src), "true" | "false")) {
        list.truncate(flag + 1);
    }
    let error = |a: &Node| a.kind() == "pointer_expression" || matches!(text(*a, src), "nullptr" | "NULL");
    while list.last().is_some_and(error) {
        list.pop();
    }
    match list.len() {
        0 | 1 => list,
        2 => list[1..].to_vec(),
        _ => Vec::new(),
    }
}

/// The variable a program is stored in: `program = create(...)`, `T program
/// = create(...)`, or `prg = cl.Program(...).build()` (build returns the program).
fn program_variable(call: Node, src: &[u8]) -> Option<String> {
    super::syntax::assigned_name(stored_value(call, src), src)
}

/// The value that holds a created program: the creation, or the chained
/// `.build()` calls around it (pyopencl's `build` returns the program).
fn stored_value<'t>(call: Node<'t>, src: &[u8]) -> Node<'t> {
    let mut at = call;
    loop {
        let Some(parent) = at.parent() else { return at };
        let chained_build = parent.kind() == "attribute"
            && parent.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "build")
            && parent.parent().is_some_and(|p| p.kind() == "call");
        match (chained_build, parent.parent()) {
            (true, Some(call)) => at = call,
            _ => return at,
        }
    }
}

/// The names pyopencl is imported as (`cl` and `pyopencl` always count).
fn pyopencl_aliases<'t>(context: &Context<'t, '_>) -> Vec<String> {
    let mut aliases = vec!["cl".to_string(), "pyopencl".to_string()];
    if context.language != HostLanguage::Python {
        return aliases;
    }
    for import in context.index.nodes.iter().filter(|n| n.kind == "aliased_import") {
        let module = import.node.child_by_field_name("name").map(|m| text(m, context.src));
        if let (Some("pyopencl"), Some(alias)) = (module, import.node.child_by_field_name("alias")) {
            aliases.push(text(alias, context.src).to_string());
        }
    }
    aliases
}

/// A creation, its sources followed; `guess_files`: whether, where its
/// source's file is not traced, the kernel files its function names may be
/// taken as that file.
fn describe<'t>(
    context: &Context<'t, '_>,
    creation: &Indexed<'t>,
    api: &str,
    mut origins: Origins,
    variable: Option<String>,
    guess_files: bool,
) -> ProgramCreation {
    let run_time_named = origins.unresolved_file_name();
    if !origins.included.is_empty() && !origins.literals.is_empty() {
        // Which comes first is not recorded: such a program is not known whole.
        origins.why("its sources are both literals and `#include`d files".into());
    }
    // The files the sources are read from, as traced; else every kernel
    // file the function names (a host often reads into a buffer through
    // calls clasp does not follow: `fread`, streams). A program of
    // `#include`d files reads none at run time.
    let mut file_names = origins.file_names;
    if file_names.is_empty() && origins.parameters.is_empty() && origins.included.is_empty() && guess_files {
        file_names = function_file_names(context, creation.function, &origins.literals);
    }
    let mut parameters = origins.parameters;
    let nothing_found =
        origins.literals.is_empty() && origins.included.is_empty() && file_names.is_empty() && origins.external.is_empty();
    let beside_run_time_named = (nothing_found && parameters.is_empty() && !guess_files)
        .then(|| "its function reads a program from a file named at run time, and this one's file is not traced".into());
    let run_time_named = run_time_named.or(beside_run_time_named);
    if parameters.is_empty() && nothing_found && run_time_named.is_none() {
        // Untraced within the function: the file name may come from a caller, through any parameter.
        let count = creation.function.map_or(0, |f| parameter_names(f, context.src).len());
        parameters = (0..count).collect();
    }
    let function = creation.function.and_then(|f| function_name(f, context.src));
    let through = match (&function, parameters.is_empty()) {
        (Some(name), false) => Some(Through { function: unqualified(name).to_string(), parameters }),
        _ => None,
    };
    ProgramCreation {
        at: position(creation.node),
        api: api.to_string(),
        function,
        variable,
        member: None,
        file_names,
        literals: origins.literals,
        untraced: origins.untraced,
        opaque: run_time_named.or(origins.opaque),
        external: origins.external,
        included: origins.included,
        through,
    }
}

/// A function's name without its class or namespace: how calls name it.
pub(crate) fn unqualified(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name).trim()
}

/// The other literals of the creation's function that name a kernel file.
fn function_file_names(context: &Context, function: Option<Node>, sources: &[usize]) -> Vec<String> {
    let function = function.map(|f| f.id());
    let mut names: Vec<String> = (context.literals.iter().enumerate())
        .filter(|(i, f)| f.function.map(|f| f.id()) == function && !sources.contains(i))
        .filter(|(_, f)| names_kernel_file(&f.literal.text))
        .map(|(_, f)| f.literal.text.clone())
        .collect();
    names.dedup();
    names
}
