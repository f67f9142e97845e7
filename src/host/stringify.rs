//! Kernels written as the argument of a stringify macro:
//!
//! ```c
//! #define STR(A) #A
//! const char *src = STR(kernel void k(global int *p) { *p = 1; });
//! ```
//!
//! The program sees the argument's source text as the preprocessor
//! stringifies it: leading and trailing whitespace dropped, and each run of
//! whitespace (line breaks and comments included) outside string and
//! character literals collapsed to one space. Runs kept as they are map back
//! byte for byte; a collapsed run is one piece that maps only as a whole.

use std::collections::HashSet;

use tree_sitter::Node;

use super::decode::{Builder, Decoded};
use super::syntax::{range, text, walk};
use super::PieceForm;

/// The name of a function-like macro definition whose body is just `#P`
/// for its only parameter `P` (or `#__VA_ARGS__` for `...`).
pub(crate) fn macro_name(def: Node, src: &[u8]) -> Option<String> {
    // `...` is an anonymous token, so every child but the punctuation counts.
    let list = def.child_by_field_name("parameters")?;
    let mut cursor = list.walk();
    let params: Vec<Node> = list.children(&mut cursor).filter(|n| !matches!(n.kind(), "(" | ")" | ",")).collect();
    let body = text(def.child_by_field_name("value")?, src).trim();
    let [param] = params.as_slice() else { return None };
    let param = match text(*param, src) {
        "..." => "__VA_ARGS__",
        name => name,
    };
    // The body is not parsed by tree-sitter: `#` then the parameter, spaces allowed.
    let stringified = body.strip_prefix('#')?.trim_start();
    let name = def.child_by_field_name("name")?;
    (stringified == param).then(|| text(name, src).to_string())
}

/// Whether a node is a use of one of `macros`: `NAME(...)`.
pub(crate) fn is_use(node: Node, src: &[u8], macros: &HashSet<String>) -> bool {
    node.kind() == "call_expression"
        && node.child_by_field_name("function").is_some_and(|f| f.kind() == "identifier" && macros.contains(text(f, src)))
}

/// The stringified argument of a macro use.
pub(crate) fn decode(call: Node, src: &[u8]) -> Decoded {
    let mut builder = Builder::default();
    let Some(list) = call.child_by_field_name("arguments") else {
        builder.fail("the macro has no argument list".into());
        return builder.finish();
    };
    let (Some(open), Some(close)) = (list.child(0), super::syntax::closing(list)) else {
        builder.fail("the macro's argument list is not closed".into());
        return builder.finish();
    };
    let (comments, literals) = spans(list);
    let mut runs = Runs { builder, src, pending_space: None };
    let mut at = open.end_byte() as u32;
    let end = close.start_byte() as u32;
    while at < end {
        if let Some(kept) = literals.iter().find(|r| r.start == at) {
            runs.keep(kept.clone());
            at = kept.end;
        } else if let Some(comment) = comments.iter().find(|r| r.start == at) {
            runs.space(comment.clone());
            at = comment.end;
        } else if src[at as usize].is_ascii_whitespace() {
            runs.space(at..at + 1);
            at += 1;
        } else {
            runs.keep(at..at + 1);
            at += 1;
        }
    }
    runs.builder.finish()
}

/// Comments, and string and character literals (kept whole), under the argument list.
fn spans(list: Node) -> (Vec<std::ops::Range<u32>>, Vec<std::ops::Range<u32>>) {
    let (mut comments, mut literals) = (Vec::new(), Vec::new());
    walk(list, &mut |n| match n.kind() {
        "comment" => {
            comments.push(range(n));
            false
        }
        "string_literal" | "char_literal" | "raw_string_literal" => {
            literals.push(range(n));
            false
        }
        _ => true,
    });
    (comments, literals)
}

/// Builds pieces from kept bytes and whitespace, merging neighbours.
struct Runs<'s> {
    builder: Builder,
    src: &'s [u8],
    /// A whitespace run not yet written (dropped if it turns out trailing).
    pending_space: Option<std::ops::Range<u32>>,
}

impl Runs<'_> {
    fn space(&mut self, file: std::ops::Range<u32>) {
        self.pending_space = Some(match self.pending_space.take() {
            Some(run) => run.start..file.end,
            None => file,
        });
    }

    fn keep(&mut self, file: std::ops::Range<u32>) {
        if let Some(run) = self.pending_space.take() {
            if self.builder.is_empty() {
                // Leading whitespace is dropped.
            } else if &self.src[run.start as usize..run.end as usize] == b" " {
                self.builder.push(run, b" ", PieceForm::Verbatim, true);
            } else {
                self.builder.push(run, b" ", PieceForm::Verbatim, false);
            }
        }
        if !self.builder.extend_exact(file.clone(), self.src) {
            self.builder.push(file.clone(), &self.src[file.start as usize..file.end as usize], PieceForm::Verbatim, true);
        }
    }
}
