//! C++ `cl::Program` constructors that build: `cl::Program program(context,
//! source, true)` (and `..., true, &err)`) builds the program it creates,
//! with no options, and takes none. The build is a [`BuildCall`] whose
//! options are [`OptionsArg::BuildFlag`]: the one edit that asks for a
//! standard turns the flag off and builds right after the declaration,
//! with the options (`options_edit`).

use tree_sitter::Node;

use super::syntax::{args, function_name, position, text};
use super::trace::Context;
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
            member: None,
            options,
        });
    }
    found
}

/// The arguments of a creation: a call's, or a declaration's (`T p(a, b)`,
/// `T p{a, b}`, or one read as a function declaration, whose "parameters"
/// are the arguments).
fn constructor_arguments(node: Node) -> Option<Vec<Node>> {
    match node.kind() {
        "call_expression" => return node.child_by_field_name("arguments").map(args),
        "field_initializer" => return node.named_child(1).map(args),
        _ => {}
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
/// off, where the build goes, the program's variable, the error variable
/// the constructor sets (`&err`); untraced when the program is stored in no
/// variable (a temporary) or its error pointer is not `&name`.
fn build_flag<'t>(
    context: &Context<'t, '_>,
    node: Node<'t>,
    creation: &ProgramCreation,
    flag: Node<'t>,
    error: Option<Node<'t>>,
) -> OptionsArg {
    let src = context.src;
    let (Some(site), Some(program)) = (build_site(node, src), creation.variable.clone()) else {
        return OptionsArg::Untraced {
            why: "the constructor builds the program, with no options, and stores it in no variable".into(),
        };
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
    OptionsArg::BuildFlag {
        flag: flag.start_byte() as u32..flag.end_byte() as u32,
        end: site.end as u32,
        rest: String::from_utf8_lossy(&src[flag.end_byte()..site.kept_to]).into_owned(),
        program,
        error,
        indent: site.indent,
        close: site.close,
    }
}

/// Where the build of a building constructor goes.
struct Site {
    /// The file's bytes up to here are kept; those from here to `end` are `close`.
    kept_to: usize,
    end: usize,
    indent: String,
    close: String,
}

/// Where the build of a building constructor goes, and the indentation of
/// its line: after the declaration (`cl::Program p(ctx, src, true);`) or
/// the assignment statement (`p = cl::Program(ctx, src, true);`) that
/// stores the program; for a member initializer (`: program_(ctx, src,
/// true) {`), first in the constructor's body, indented as its first
/// statement, or one level (four spaces) deeper than the constructor in an
/// empty body, whose closing brace then goes on a line of its own.
fn build_site(node: Node, src: &[u8]) -> Option<Site> {
    if node.kind() != "field_initializer" {
        let statement = std::iter::successors(Some(node), |n| n.parent())
            .take_while(|n| !matches!(n.kind(), "compound_statement" | "function_definition"))
            .find(|n| matches!(n.kind(), "declaration" | "expression_statement"))?;
        let end = statement.end_byte();
        return Some(Site { kept_to: end, end, indent: indent_of(statement, src), close: String::new() });
    }
    let definition = std::iter::successors(Some(node), |n| n.parent()).find(|n| n.kind() == "function_definition")?;
    let body = definition.child_by_field_name("body")?;
    let open = body.child(0).filter(|b| b.kind() == "{")?.end_byte();
    match body.named_child(0) {
        Some(first) if src[open..first.start_byte()].contains(&b'\n') => {
            Some(Site { kept_to: open, end: open, indent: indent_of(first, src), close: String::new() })
        }
        // `{}`, or a body on the constructor's line: the build gets a line of its own.
        _ => {
            let outer = indent_of(definition, src);
            let (end, close) = match body.named_child_count() {
                0 => (body.end_byte(), format!("\n{outer}}}")),
                _ => (open, format!("\n{outer}    ")),
            };
            Some(Site { kept_to: open, end, indent: format!("{outer}    "), close })
        }
    }
}

/// The blanks that start the line of `node`, up to it.
fn indent_of(node: Node, src: &[u8]) -> String {
    let line_start = src[..node.start_byte()].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    src[line_start..node.start_byte()].iter().take_while(|b| matches!(b, b' ' | b'\t')).map(|b| *b as char).collect()
}
