//! Small questions asked of tree-sitter nodes, shared by the fact finders:
//! a node's text and place, the arguments of a call, the function around a
//! node, the name a declarator declares.

use std::ops::Range;

use tree_sitter::Node;

use super::Position;

pub(crate) fn text<'s>(node: Node, src: &'s [u8]) -> &'s str {
    node.utf8_text(src).unwrap_or("")
}

pub(crate) fn range(node: Node) -> Range<u32> {
    node.start_byte() as u32..node.end_byte() as u32
}

pub(crate) fn position(node: Node) -> Position {
    let point = node.start_position();
    Position { byte: node.start_byte() as u32, line: point.row as u32 + 1, col: point.column as u32 + 1 }
}

/// The named children of an argument, parameter or initializer list,
/// comments left out.
pub(crate) fn args(list: Node) -> Vec<Node> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect()
}

/// The expression inside parentheses and casts: `((const char *)opts)` is `opts`.
pub(crate) fn unwrap(mut node: Node) -> Node {
    loop {
        node = match node.kind() {
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => inner,
                None => return node,
            },
            "cast_expression" => match node.child_by_field_name("value") {
                Some(inner) => inner,
                None => return node,
            },
            _ => return node,
        };
    }
}

/// A function definition's name: Python's `name`, or the C/C++ declarator
/// under pointers and references (`Foo::bar` stays qualified).
pub(crate) fn function_name(def: Node, src: &[u8]) -> Option<String> {
    if let Some(name) = def.child_by_field_name("name") {
        return Some(text(name, src).to_string());
    }
    let mut declarator = def.child_by_field_name("declarator")?;
    while declarator.kind() != "function_declarator" {
        declarator = declarator.child_by_field_name("declarator")?;
    }
    Some(text(declarator.child_by_field_name("declarator")?, src).to_string())
}

/// The identifier a (possibly pointer, array, reference, init) declarator declares.
pub(crate) fn declarator_name(mut declarator: Node, src: &[u8]) -> Option<String> {
    loop {
        match declarator.kind() {
            "identifier" | "field_identifier" => return Some(text(declarator, src).to_string()),
            _ => {
                declarator = declarator.child_by_field_name("declarator").or_else(|| declarator.named_child(0))?;
            }
        }
    }
}

/// Visits every node under `node` in order; `visit` returns whether to go
/// into the node's children.
pub(crate) fn walk<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>) -> bool) {
    // One cursor for the whole walk, in pre-order (a cursor per node is most of a walk's cost).
    let mut cursor = node.walk();
    loop {
        if visit(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node().id() == node.id() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The variable a value is stored in: `T name = value`, `T name(value)`,
/// `name = value` (C, C++ and Python).
pub(crate) fn assigned_name(value: Node, src: &[u8]) -> Option<String> {
    let parent = value.parent()?;
    match parent.kind() {
        "init_declarator" => declarator_name(parent.child_by_field_name("declarator")?, src),
        "assignment_expression" | "assignment" => {
            let left = parent.child_by_field_name("left")?;
            (left.id() != value.id()).then(|| text(left, src).to_string())
        }
        _ => None,
    }
}

/// The closing parenthesis of an argument list (its last child).
pub(crate) fn closing(list: Node) -> Option<Node> {
    list.child(list.child_count().checked_sub(1)?).filter(|n| n.kind() == ")")
}
