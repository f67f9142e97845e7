//! One walk over a parsed host file that files away every node a fact finder
//! asks about, each with the function around it. The finders (literals,
//! program creations, build calls, variable tracing) then read these lists
//! instead of walking the tree again: a tree-sitter walk visits every token
//! of the file, and one walk per finder (and per traced variable) cost as
//! much as parsing itself.

use tree_sitter::Node;

/// A node a fact finder asks about, and where it sits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Indexed<'t> {
    pub node: Node<'t>,
    pub kind: &'t str,
    /// The innermost function definition around the node; `None` at file
    /// (or module) scope.
    pub function: Option<Node<'t>>,
}

/// What the walk does with a node.
pub(crate) enum Role {
    /// A literal: recorded in [`Index::literals`], its inside not walked.
    Literal,
    /// Not host code (an `#include`'s file name, a macro definition): not walked.
    Skip,
    /// Walked into; recorded in [`Index::nodes`] when its kind is [`INDEXED`].
    Walk,
}

/// The kinds of node the finders ask about: calls (creations, build calls,
/// writes), declarations and assignments (variable tracing), parameters,
/// class members (the type of a build call's object), and Python imports
/// (`import pyopencl as cl`).
const INDEXED: &[&str] = &[
    "call_expression",
    "call",
    "declaration",
    "field_declaration",
    "field_initializer",
    "init_declarator",
    "parameter_declaration",
    "optional_parameter_declaration",
    "parameters",
    "assignment",
    "assignment_expression",
    "augmented_assignment",
    "update_expression",
    "aliased_import",
    "dotted_name",
];

/// The nodes of one file, in pre-order (so in file order, and every
/// node's descendants right after it).
pub(crate) struct Index<'t> {
    pub literals: Vec<Indexed<'t>>,
    pub nodes: Vec<Indexed<'t>>,
    /// Every function definition, in pre-order.
    pub functions: Vec<Node<'t>>,
}

impl<'t> Index<'t> {
    /// Walks the tree under `root` once; `role` says what each node is.
    pub(crate) fn build(root: Node<'t>, mut role: impl FnMut(Node<'t>, &'t str) -> Role) -> Index<'t> {
        let mut index = Index { literals: Vec::new(), nodes: Vec::new(), functions: Vec::new() };
        // The function definitions around the cursor, with their depths.
        let mut around: Vec<(usize, Node<'t>)> = Vec::new();
        let mut cursor = root.walk();
        let mut depth = 0usize;
        loop {
            let node = cursor.node();
            while around.last().is_some_and(|(d, _)| *d >= depth) {
                around.pop();
            }
            let kind = node.kind();
            let function = around.last().map(|(_, f)| *f);
            let descend = match role(node, kind) {
                Role::Literal => {
                    index.literals.push(Indexed { node, kind, function });
                    false
                }
                Role::Skip => false,
                Role::Walk => {
                    if INDEXED.contains(&kind) {
                        index.nodes.push(Indexed { node, kind, function });
                    }
                    if kind == "function_definition" {
                        index.functions.push(node);
                        around.push((depth, node));
                    }
                    true
                }
            };
            if descend && cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if depth == 0 {
                    return index;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
                depth -= 1;
            }
        }
    }

    /// The indexed nodes inside `scope` (itself included when indexed), in pre-order.
    pub(crate) fn within(&self, scope: Node) -> impl Iterator<Item = &Indexed<'t>> {
        let (start, end) = (scope.start_byte(), scope.end_byte());
        let first = self.nodes.partition_point(|n| n.node.start_byte() < start);
        // Descendants follow `scope` in pre-order; an ancestor starting at the
        // same byte ends after it.
        self.nodes[first..].iter().take_while(move |n| n.node.start_byte() <= end).filter(move |n| n.node.end_byte() <= end)
    }

    /// The innermost function definition around `node`.
    pub(crate) fn function_around(&self, node: Node) -> Option<Node<'t>> {
        let (start, end) = (node.start_byte(), node.end_byte());
        let candidates = self.functions.partition_point(|f| f.start_byte() <= start);
        // Nested definitions come after the ones around them: the last match is the innermost.
        self.functions[..candidates].iter().rev().find(|f| f.end_byte() >= end && f.id() != node.id()).copied()
    }
}
