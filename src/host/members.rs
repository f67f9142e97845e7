//! Programs kept in a member of a class: created in one method (a
//! constructor, `__init__`, a member initializer list) and built in
//! another, as a host class that owns its program does:
//!
//! ```python
//! class Blur:
//!     def __init__(self, ctx):
//!         self.prg = cl.Program(ctx, SOURCE)
//!     def prepare(self):
//!         self.prg.build()
//! ```
//!
//! A creation and a build call name the same program when they name the
//! same member of the same class, `Class::member`: Python's `self.x`, C++'s
//! `this->x`, or a bare name that the method around it does not declare
//! (a field, declared in the class body or in a header).

use tree_sitter::Node;

use super::syntax::{text, unwrap};
use super::trace::lookup;
use super::trace::Context;
use super::HostLanguage;

/// The member `expr` names, as `Class::member`; `None` when it is a
/// local or file-scope variable, or outside any class.
pub(crate) fn member<'t>(context: &Context<'t, '_>, expr: Node<'t>) -> Option<String> {
    let src = context.src;
    let expr = unwrap(expr);
    let name = match (context.language, expr.kind()) {
        (HostLanguage::Python, "attribute") => {
            let object = expr.child_by_field_name("object")?;
            (text(object, src) == "self").then(|| expr.child_by_field_name("attribute"))??
        }
        (HostLanguage::Python, _) => return None,
        (_, "field_expression") => {
            let object = expr.child_by_field_name("argument")?;
            (text(object, src) == "this").then(|| expr.child_by_field_name("field"))??
        }
        (_, "identifier" | "field_identifier") => {
            // A name the method (or the file) declares is a variable, not a field.
            if lookup(context, text(expr, src), expr).is_some() {
                return None;
            }
            expr
        }
        _ => return None,
    };
    Some(format!("{}::{}", class_of(expr, src)?, text(name, src)))
}

/// The class whose method (or member initializer) holds `node`: the class
/// body around it, or the qualifier of an out-of-line method's name
/// (`void Blur::prepare() {...}`).
pub(crate) fn class_of(node: Node, src: &[u8]) -> Option<String> {
    let mut at = node.parent();
    while let Some(n) = at {
        match n.kind() {
            "class_definition" | "class_specifier" | "struct_specifier" => {
                return n.child_by_field_name("name").map(|name| text(name, src).to_string());
            }
            "function_definition" => {
                if let Some(class) = qualifier(n, src) {
                    return Some(class);
                }
            }
            _ => {}
        }
        at = n.parent();
    }
    None
}

/// `Blur` for a definition of `Blur::prepare` (the last scope of a qualified name).
fn qualifier(definition: Node, src: &[u8]) -> Option<String> {
    let mut declarator = definition.child_by_field_name("declarator")?;
    while declarator.kind() != "function_declarator" {
        declarator = declarator.child_by_field_name("declarator")?;
    }
    let mut name = declarator.child_by_field_name("declarator").filter(|d| d.kind() == "qualified_identifier")?;
    let mut scope = None;
    // `ns::Blur::prepare`: the scope nearest the name is the class.
    while name.kind() == "qualified_identifier" {
        scope = name.child_by_field_name("scope");
        name = name.child_by_field_name("name")?;
    }
    scope.map(|s| text(s, src).to_string())
}
