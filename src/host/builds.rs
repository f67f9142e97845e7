//! Build calls and where their options come from:
//! `clBuildProgram(program, n, devices, options, cb, data)` and
//! `clCompileProgram(program, n, devices, options, ...)` (options are the
//! fourth argument), C++ `X.build(...)`/`X.compile(...)` on any object
//! (`build(options)` or `build(devices, options)`), and pyopencl
//! `.build(options=...)`, `.build("...")` or `.build()`.

use tree_sitter::Node;

use super::index::Indexed;
use super::members::member;
use super::syntax::{args, closing, declarator_name, function_name, position, range, text, unwrap};
use super::trace::{describe_write, function_label, lookup, Binding};
use super::trace::{is_wrapper, Context};
use super::{BuildCall, HostLanguage, OptionString, OptionsArg, ProgramCreation, ProgramRef};

/// How deep variables initialised from variables are followed.
const MAX_DEPTH: u32 = 8;

/// Every build call of the file.
pub(crate) fn find<'t>(context: &Context<'t, '_>, creations: &[(ProgramCreation, Node<'t>)]) -> Vec<BuildCall> {
    let creation_of = |n: Node| creations.iter().position(|(_, c)| c.id() == n.id());
    let mut found = Vec::new();
    for indexed in &context.index.nodes {
        let call = match (context.language, indexed.kind) {
            (HostLanguage::Python, "call") => python_build(context, indexed, &creation_of, creations),
            (HostLanguage::C | HostLanguage::Cpp, "call_expression") => c_build(context, indexed, &creation_of, creations),
            _ => None,
        };
        found.extend(call);
    }
    found
}

/// A `clBuildProgram`/`clCompileProgram` call, or a C++ `.build`/`.compile`.
fn c_build<'t>(
    context: &Context<'t, '_>,
    call: &Indexed<'t>,
    creation_of: &dyn Fn(Node<'t>) -> Option<usize>,
    creations: &[(ProgramCreation, Node<'t>)],
) -> Option<BuildCall> {
    let (src, node) = (context.src, call.node);
    let callee = node.child_by_field_name("function")?;
    let list = node.child_by_field_name("arguments")?;
    let arguments = args(list);
    let (api, program, options, object) = match callee.kind() {
        "identifier" if matches!(text(callee, src), "clBuildProgram" | "clCompileProgram") => {
            let options = match arguments.get(3) {
                Some(&arg) => classify(context, arg, 0),
                None => OptionsArg::Untraced { why: "the call has no options argument (fewer than four arguments)".into() },
            };
            let program = ProgramRef::Expr(arguments.first().map_or("", |p| text(*p, src)).to_string());
            (text(callee, src).to_string(), program, options, arguments.first().copied())
        }
        "field_expression" => {
            let method = text(callee.child_by_field_name("field")?, src);
            if !matches!(method, "build" | "compile") {
                return None;
            }
            let object = callee.child_by_field_name("argument")?;
            let program = match creation_of(object) {
                Some(creation) => ProgramRef::Creation(creation),
                None if may_be_program(context, object, creations) => ProgramRef::Expr(text(object, src).to_string()),
                None => return None,
            };
            (format!("cl::Program::{method}"), program, cpp_options(context, list, &arguments), Some(object))
        }
        _ => return None,
    };
    let member = object.filter(|_| matches!(program, ProgramRef::Expr(_))).and_then(|o| member(context, o));
    let function = call.function.and_then(|f| function_name(f, src));
    Some(BuildCall { at: position(node), api, function, program, member, options })
}

/// Whether the object of a C++ `.build(...)`/`->build(...)` may be a
/// `cl::Program`: one a creation of this file is stored in, one declared in
/// this file with a type naming `Program`, or one declared elsewhere (a
/// member declared in a header) when this file names a `Program` type at
/// all. A tree's `bvh->build(mesh, ...)` is no program build.
fn may_be_program<'t>(context: &Context<'t, '_>, object: Node<'t>, creations: &[(ProgramCreation, Node<'t>)]) -> bool {
    let object = unwrap(object);
    let named = match object.kind() {
        "field_expression" => object.child_by_field_name("field"),
        "identifier" => Some(object),
        _ => None,
    };
    let Some(name) = named.map(|n| text(n, context.src)) else { return context.names_program_type };
    if creations.iter().any(|(c, _)| c.variable.as_deref() == Some(name)) {
        return true;
    }
    match declared_type(context, name, object) {
        Some(ty) if !ty.contains("auto") => ty.contains("Program"),
        _ => context.names_program_type,
    }
}

/// The type `name` is declared with as seen from `at`: in the function
/// around it, else at file scope or as a class member of this file.
fn declared_type<'t>(context: &Context<'t, '_>, name: &str, at: Node<'t>) -> Option<String> {
    let declares = |n: &&Indexed<'t>| {
        matches!(n.kind, "declaration" | "parameter_declaration" | "optional_parameter_declaration" | "field_declaration") && {
            let mut cursor = n.node.walk();
            let mut declarators = n.node.children_by_field_name("declarator", &mut cursor);
            declarators.any(|d| declarator_name(d, context.src).as_deref() == Some(name))
        }
    };
    let local = context.index.function_around(at).and_then(|f| context.index.within(f).find(declares));
    let found = local.or_else(|| context.index.nodes.iter().filter(|n| n.function.is_none()).find(declares))?;
    Some(text(found.node.child_by_field_name("type")?, context.src).to_string())
}

/// The options of a C++ `build`/`compile`: the first argument when it is a
/// string (`build(options, ...)`), else the second (`build(devices, options)`).
fn cpp_options<'t>(context: &Context<'t, '_>, list: Node<'t>, arguments: &[Node<'t>]) -> OptionsArg {
    let insert_at = closing(list).map_or(list.end_byte(), |c| c.start_byte()) as u32;
    let Some(&first) = arguments.first() else {
        return OptionsArg::Absent { insert_at, needs_comma: false, python: false };
    };
    if is_options(context, first) {
        return classify(context, first, 0);
    }
    match arguments.get(1) {
        Some(&second) => classify(context, second, 0),
        None => OptionsArg::Absent { insert_at, needs_comma: true, python: false },
    }
}

/// Whether the first argument of a C++ build is the options rather than
/// devices: a literal, a null pointer, `.c_str()`, or a variable declared
/// as (or initialised with) a string. A variable of unknown type counts as
/// devices when its name says so (`devices`, `dev`).
fn is_options<'t>(context: &Context<'t, '_>, arg: Node<'t>) -> bool {
    let src = context.src;
    let arg = unwrap(arg);
    match arg.kind() {
        "string_literal" | "raw_string_literal" | "concatenated_string" | "null" => true,
        "number_literal" => text(arg, src) == "0",
        "call_expression" => {
            let callee = arg.child_by_field_name("function");
            let method = callee.and_then(|c| c.child_by_field_name("field")).map(|f| text(f, src));
            matches!(method, Some("c_str" | "data"))
        }
        "identifier" => {
            let declared = lookup(context, text(arg, src), arg).and_then(|t| match t.first {
                Binding::Value(v) => v.parent().and_then(|d| d.parent()),
                _ => None,
            });
            let ty = declared.and_then(|d| d.child_by_field_name("type")).map_or("", |t| text(t, src));
            if ty.contains("char") || ty.contains("string") {
                return true;
            }
            !(ty.contains("Device") || ty.contains("vector") || text(arg, src).to_ascii_lowercase().contains("dev"))
        }
        _ => false,
    }
}

/// A pyopencl `.build(...)`/`.compile(...)`: on a program created in this
/// file (chained or through its variable), or any object when the file
/// imports pyopencl.
fn python_build<'t>(
    context: &Context<'t, '_>,
    call: &Indexed<'t>,
    creation_of: &dyn Fn(Node<'t>) -> Option<usize>,
    creations: &[(ProgramCreation, Node<'t>)],
) -> Option<BuildCall> {
    let (src, node) = (context.src, call.node);
    let callee = node.child_by_field_name("function").filter(|c| c.kind() == "attribute")?;
    let method = text(callee.child_by_field_name("attribute")?, src);
    let object = callee.child_by_field_name("object")?;
    if !matches!(method, "build" | "compile") {
        return None;
    }
    let program = creation_of(object).map_or_else(|| ProgramRef::Expr(text(object, src).to_string()), ProgramRef::Creation);
    let member = matches!(program, ProgramRef::Expr(_)).then(|| member(context, object)).flatten();
    let known = matches!(program, ProgramRef::Creation(_))
        || creations.iter().any(|(c, _)| c.variable.as_deref() == Some(text(object, src)))
        || imports_pyopencl(context);
    if !known {
        return None;
    }
    let list = node.child_by_field_name("arguments")?;
    let options = python_options(context, list);
    Some(BuildCall {
        at: position(node),
        api: format!("pyopencl.Program.{method}"),
        function: call.function.and_then(|f| function_name(f, src)),
        program,
        member,
        options,
    })
}

fn imports_pyopencl<'t>(context: &Context<'t, '_>) -> bool {
    (context.index.nodes.iter())
        .filter(|n| n.kind == "dotted_name" && n.function.is_none())
        .any(|n| text(n.node, context.src).split('.').next() == Some("pyopencl"))
}

/// `options=` keyword, else the first positional argument, else absent.
fn python_options<'t>(context: &Context<'t, '_>, list: Node<'t>) -> OptionsArg {
    let arguments = args(list);
    let keyword = arguments.iter().find(|a| {
        a.kind() == "keyword_argument" && a.child_by_field_name("name").is_some_and(|n| text(n, context.src) == "options")
    });
    let positional = arguments.iter().find(|a| a.kind() != "keyword_argument");
    if let Some(value) = keyword.and_then(|k| k.child_by_field_name("value")).or(positional.copied()) {
        return classify(context, value, 0);
    }
    let insert_at = closing(list).map_or(list.end_byte(), |c| c.start_byte()) as u32;
    OptionsArg::Absent { insert_at, needs_comma: !arguments.is_empty() && !ends_with_comma(list), python: true }
}

/// Whether the last token before a list's closing bracket is a comma.
fn ends_with_comma(list: Node) -> bool {
    let count = list.child_count();
    count >= 2 && list.child((count - 2) as _).is_some_and(|n| n.kind() == ",")
}

/// Where an options expression comes from.
pub(crate) fn classify<'t>(context: &Context<'t, '_>, node: Node<'t>, depth: u32) -> OptionsArg {
    let src = context.src;
    // A null pointer is replaced with its cast (`(const char *)NULL`); a literal keeps it.
    let outer = range(node);
    let node = unwrap(node);
    let python = context.language == HostLanguage::Python;
    if let Some(i) = context.literal_of(node) {
        let literal = &context.literals[i].literal;
        return match &literal.undecodable {
            Some(why) => OptionsArg::Untraced { why: format!("the options literal cannot be decoded: {why}") },
            None => OptionsArg::Literal { range: range(node), value: literal.text.clone(), python },
        };
    }
    match node.kind() {
        "null" | "none" => OptionsArg::Null { range: outer },
        "number_literal" if text(node, src) == "0" => OptionsArg::Null { range: outer },
        "list" => python_list(context, node),
        "identifier" => variable(context, node, depth),
        // `opts.c_str()`: the string `opts`.
        "call_expression" if is_c_str(node, src) => {
            let object = node.child_by_field_name("function").and_then(|f| f.child_by_field_name("argument"));
            object.map_or_else(|| untraced(node, src), |o| classify(context, o, depth))
        }
        // `std::string("...")`, or the `("...")` of `std::string opts("...")`.
        "call_expression" | "argument_list" => {
            let list = if node.kind() == "argument_list" { Some(node) } else { node.child_by_field_name("arguments") };
            let single = list.map(args).filter(|a| a.len() == 1);
            match single {
                Some(a) if node.kind() == "argument_list" || is_wrapper(node, src) => classify(context, a[0], depth),
                _ => untraced(node, src),
            }
        }
        _ => untraced(node, src),
    }
}

fn is_c_str(call: Node, src: &[u8]) -> bool {
    let field = call.child_by_field_name("function").and_then(|f| f.child_by_field_name("field"));
    field.is_some_and(|f| matches!(text(f, src), "c_str" | "data"))
}

fn untraced(node: Node, src: &[u8]) -> OptionsArg {
    let shown = text(node, src).lines().next().unwrap_or("");
    OptionsArg::Untraced { why: format!("`{shown}` is computed at run time") }
}

/// A variable: traced when initialised from a literal, list or null and
/// never written again in the using function.
fn variable<'t>(context: &Context<'t, '_>, node: Node<'t>, depth: u32) -> OptionsArg {
    let src = context.src;
    let name = text(node, src).to_string();
    let Some(traced) = lookup(context, &name, node) else {
        return OptionsArg::Untraced { why: format!("`{name}` is not declared in this file") };
    };
    if let Some(write) = traced.writes.first() {
        return OptionsArg::Untraced { why: describe_write(&name, *write, src) };
    }
    let value = match traced.first {
        Binding::Value(value) if fixed_size_array(value) => {
            return OptionsArg::Untraced { why: format!("`{name}` is an array of fixed size: a longer value may not fit") };
        }
        Binding::Value(value) if depth < MAX_DEPTH => value,
        Binding::Value(_) => return OptionsArg::Untraced { why: format!("`{name}` is initialised through too many variables") },
        Binding::Parameter => {
            return OptionsArg::Untraced { why: format!("`{name}` is a parameter of `{}`", function_label(context, node)) }
        }
        Binding::Uninitialised => return OptionsArg::Untraced { why: format!("`{name}` is declared without a value") },
    };
    match classify(context, value, depth + 1) {
        OptionsArg::Untraced { why } => OptionsArg::Untraced { why: format!("`{name}`: {why}") },
        init => OptionsArg::Variable { name, init: Box::new(init) },
    }
}

/// Whether an initialiser is that of an array declared with a size
/// (`char opts[8] = "..."`): editing its literal could overflow it.
fn fixed_size_array(value: tree_sitter::Node) -> bool {
    let declarator = value.parent().filter(|p| p.kind() == "init_declarator").and_then(|p| p.child_by_field_name("declarator"));
    declarator.is_some_and(|d| d.kind() == "array_declarator" && d.child_by_field_name("size").is_some())
}

/// A Python list of options: its literal items, and where a new one goes.
fn python_list<'t>(context: &Context<'t, '_>, list: Node<'t>) -> OptionsArg {
    let items = args(list);
    let values = (items.iter())
        .filter_map(|&item| {
            let literal = &context.literals[context.literal_of(item)?].literal;
            literal.undecodable.is_none().then(|| OptionString { range: range(item), value: literal.text.clone() })
        })
        .collect();
    let insert_at = closing_bracket(list);
    OptionsArg::PythonList { range: range(list), values, insert_at, needs_comma: !items.is_empty() && !ends_with_comma(list) }
}

fn closing_bracket(list: Node) -> u32 {
    let last = list.child(list.child_count().saturating_sub(1) as _).filter(|n| n.kind() == "]");
    last.map_or(list.end_byte(), |n| n.start_byte()) as u32
}
