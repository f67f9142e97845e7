//! Sources a host gathers with `#include`: a file wrapped as a C++ raw
//! string, or as a run of escaped C literals (see `crate::input::source`), is
//! `#include`d where a string is expected, so that the preprocessor pastes
//! its literals in:
//!
//! ```c
//! static const char *sources[] = {
//! #include "common.opencl"
//! ,
//! #include "axpy.opencl"
//! };
//! ```
//!
//! tree-sitter does not preprocess, and recovers from such a directive in
//! more than one way: an error node holding the `#include` token before the
//! file name (read as a string literal), or an `#include` directive of its
//! own that tears the declaration around it apart. [`operands`] finds both
//! from the first parse; [`blanked`] then spells each such `#include` token
//! as blanks of the same length, so that a second parse reads the file
//! names as the literals they stand for, at the same byte offsets, in a
//! tree whose declarations and calls are whole. Those literals name the
//! files holding the sources ([`included_files`]); they are no kernel text.

use std::collections::HashSet;
use std::ops::Range;

use tree_sitter::Node;

use super::decode::decode_c;
use super::syntax::walk;

/// An `#include` used as an operand: its `#include` token, and where the file name's literal starts.
pub(crate) struct Operand {
    pub directive: Range<usize>,
    pub name_start: u32,
}

/// The `#include`s of a parsed C/C++ file that stand where an expression is
/// expected: the `#include` token in an error node before a string literal,
/// or an `#include` directive right after `=`, `,` or `(`, or right before
/// `,`, `;` or `)` (a directive between declarations has none of these
/// around it).
pub(crate) fn operands(root: Node, src: &[u8]) -> Vec<Operand> {
    let mut found = Vec::new();
    walk(root, &mut |node| {
        match node.kind() {
            "#include" if node.parent().is_some_and(|p| p.kind() == "ERROR") => {
                let name = next_leaf(node).filter(|n| n.kind() == "\"").and_then(|quote| quote.parent());
                if let Some(name) = name.filter(|n| n.kind() == "string_literal") {
                    found.push(Operand { directive: node.byte_range(), name_start: name.start_byte() as u32 });
                }
            }
            "preproc_include" => {
                let path = node.child_by_field_name("path").filter(|p| p.kind() == "string_literal");
                let token = node.child(0).filter(|t| t.kind() == "#include");
                let before = previous_leaf(node).map(|l| l.kind());
                let after = next_leaf(last_leaf(node)).map(|l| l.kind());
                let in_expression = matches!(before, Some("=" | "," | "(")) || matches!(after, Some("," | ";" | ")"));
                if let (Some(path), Some(token), true) = (path, token, in_expression) {
                    found.push(Operand { directive: token.byte_range(), name_start: path.start_byte() as u32 });
                }
                return false;
            }
            _ => {}
        }
        let _ = src;
        true
    });
    found
}

/// `src` with each operand's `#include` token spelled as blanks.
pub(crate) fn blanked(src: &[u8], operands: &[Operand]) -> Vec<u8> {
    let mut out = src.to_vec();
    for operand in operands {
        out[operand.directive.clone()].fill(b' ');
    }
    out
}

/// The files a literal node names as `#include` operands (its start, or
/// each part's in a concatenation, among `names`), in order. `Ok(vec![])`
/// for an ordinary literal; `Err` for a concatenation mixing both (its text
/// is partly in other files, partly here).
pub(crate) fn included_files(node: Node, src: &[u8], names: &HashSet<u32>) -> Result<Vec<String>, String> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let parts: Vec<Node> = match node.kind() {
        "concatenated_string" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect()
        }
        _ => vec![node],
    };
    let included = parts.iter().filter(|p| names.contains(&(p.start_byte() as u32))).count();
    match included {
        0 => Ok(Vec::new()),
        n if n == parts.len() => Ok(parts.into_iter().map(|part| decode_c(part, src).text).collect()),
        _ => Err("literals and `#include`d files are concatenated".into()),
    }
}

fn last_leaf(mut node: Node) -> Node {
    while let Some(child) = node.child(node.child_count().saturating_sub(1)) {
        node = child;
    }
    node
}

fn first_leaf(mut node: Node) -> Node {
    while let Some(child) = node.child(0) {
        node = child;
    }
    node
}

/// The leaf token right after `node` (comments skipped).
fn next_leaf(node: Node) -> Option<Node> {
    let mut at = node;
    loop {
        match at.next_sibling() {
            Some(next) if next.kind() == "comment" => at = next,
            Some(next) => return Some(first_leaf(next)),
            None => at = at.parent()?,
        }
    }
}

/// The leaf token right before `node` (comments skipped).
fn previous_leaf(node: Node) -> Option<Node> {
    let mut at = node;
    loop {
        match at.prev_sibling() {
            Some(previous) if previous.kind() == "comment" => at = previous,
            Some(previous) => return Some(last_leaf(previous)),
            None => at = at.parent()?,
        }
    }
}
