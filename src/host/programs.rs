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
use super::scan::Context;
use super::syntax::{args, declarator_name, function_name, position, text};
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
            (describe(context, indexed, api, origins, variable, guess_files), indexed.node)
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
                "cl::Program" => Some(("cl::Program", cpp_sources(list), program_variable(node, src))),
                _ => None,
            }
        }
        (_, "declaration") => cpp_declaration(node, src),
        _ => None,
    }
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
    Some(("cl::Program", cpp_sources(args(list)), declarator_name(declarator, src)))
}

/// `cl::Program(ctx, sources)`: the sources follow the context; a single
/// argument is the sources (the default context). The trailing `build`
/// flag and error pointer (`false, &err`) are no sources.
fn cpp_sources(list: Vec<Node>) -> Vec<Node> {
    let no_source = |n: &Node| matches!(n.kind(), "true" | "false" | "null" | "pointer_expression");
    let list: Vec<Node> = list.into_iter().filter(|n| !no_source(n)).collect();
    if list.len() > 1 {
        list[1..].to_vec()
    } else {
        list
    }
}

/// The variable a program is stored in: `program = create(...)`, `T program
/// = create(...)`, or `prg = cl.Program(...).build()` (build returns the program).
fn program_variable(call: Node, src: &[u8]) -> Option<String> {
    let mut at = call;
    loop {
        if let Some(name) = super::syntax::assigned_name(at, src) {
            return Some(name);
        }
        let parent = at.parent()?;
        let chained_build = parent.kind() == "attribute"
            && parent.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "build")
            && parent.parent().is_some_and(|p| p.kind() == "call");
        at = if chained_build { parent.parent()? } else { return None };
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
    origins: Origins,
    variable: Option<String>,
    guess_files: bool,
) -> ProgramCreation {
    let run_time_named = origins.unresolved_file_name();
    // The files the sources are read from, as traced; else every kernel
    // file the function names (a host often reads into a buffer through
    // calls clasp does not follow: `fread`, streams).
    let mut file_names = origins.file_names;
    if file_names.is_empty() && origins.parameters.is_empty() && guess_files {
        file_names = function_file_names(context, creation.function, &origins.literals);
    }
    let mut parameters = origins.parameters;
    let nothing_found = origins.literals.is_empty() && file_names.is_empty() && origins.external.is_empty();
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
        file_names,
        literals: origins.literals,
        untraced: origins.untraced,
        opaque: run_time_named.or(origins.opaque),
        external: origins.external,
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
