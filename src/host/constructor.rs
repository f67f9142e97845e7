//! C++ `cl::Program` constructors that build: `cl::Program program(context,
//! source, true)` (and `..., true, &err)`) builds the program it creates,
//! with no options, and takes none. The build is a [`BuildCall`] whose
//! options are [`OptionsArg::BuildFlag`]: the one edit that asks for a
//! standard turns the flag off and builds right after the declaration,
//! with the options (`options_edit`).

use tree_sitter::Node;

use super::scan::Context;
use super::syntax::{args, function_name, position, text};
use super::{BuildCall, OptionsArg, ProgramCreation, ProgramRef};

/// The builds of the creations that are building constructors.
pub(crate) fn find<'t>(context: &Context<'t, '_>, creations: &[(ProgramCreation, Node<'t>)]) -> Vec<BuildCall> {
    let mut found = Vec::new();
    for (i, (creation, node)) in creations.iter().enumerate() {
        if creation.api != "cl::Program" {
            continue;
        }
        let Some(arguments) = constructor_arguments(*node) else { continue };
        // The flag follows the sources: never the first argument.
        let Some(at) = arguments.iter().skip(1).position(|a| text(*a, context.src) == "true").map(|p| p + 1) else {
            continue;
        };
        let options = build_flag(context, *node, creation, arguments[at], arguments.get(at + 1).copied());
        let function = context.index.function_around(*node).and_then(|f| function_name(f, context.src));
        found.push(BuildCall {
            at: position(arguments[at]),
            api: "cl::Program (building constructor)".into(),
            function,
            program: ProgramRef::Creation(i),
            options,
        });
    }
    found
}

/// The arguments of a creation: a call's, or a declaration's (`T p(a, b)`,
/// `T p{a, b}`, or one read as a function declaration, whose "parameters"
/// are the arguments).
fn constructor_arguments(node: Node) -> Option<Vec<Node>> {
    if node.kind() == "call_expression" {
        return node.child_by_field_name("arguments").map(args);
    }
    let declarator = node.child_by_field_name("declarator")?;
    let list = match declarator.kind() {
        "init_declarator" => declarator.child_by_field_name("value")?,
        "function_declarator" => declarator.child_by_field_name("parameters")?,
        _ => return None,
    };
    Some(args(list))
}

/// What a building constructor's build can be edited into: the flag to turn
/// off, the declaration's end to build after, the program's variable, the
/// error variable the constructor sets (`&err`); untraced when the creation
/// is no declaration of a variable or its error pointer is not `&name`.
fn build_flag<'t>(
    context: &Context<'t, '_>,
    node: Node<'t>,
    creation: &ProgramCreation,
    flag: Node<'t>,
    error: Option<Node<'t>>,
) -> OptionsArg {
    let src = context.src;
    let statement = std::iter::successors(Some(node), |n| n.parent()).find(|n| n.kind() == "declaration");
    let (Some(statement), Some(program)) = (statement, creation.variable.clone()) else {
        return OptionsArg::Untraced { why: "the constructor builds the program, with no options, outside a declaration".into() };
    };
    let error = match error.map(|e| (e, text(e, src))) {
        None | Some((_, "nullptr" | "NULL" | "0")) => None,
        Some((e, _)) if e.kind() == "pointer_expression" && text(e, src).starts_with('&') => {
            e.child_by_field_name("argument").map(|a| text(a, src).to_string())
        }
        Some((_, other)) => {
            return OptionsArg::Untraced { why: format!("the constructor builds the program and reports to `{other}`") };
        }
    };
    let line_start = src[..statement.start_byte()].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let indent: String =
        src[line_start..statement.start_byte()].iter().take_while(|b| matches!(b, b' ' | b'\t')).map(|b| *b as char).collect();
    OptionsArg::BuildFlag {
        flag: flag.start_byte() as u32..flag.end_byte() as u32,
        statement_end: statement.end_byte() as u32,
        rest: String::from_utf8_lossy(&src[flag.end_byte()..statement.end_byte()]).into_owned(),
        program,
        error,
        indent,
    }
}
