//! [`helper_calls`]: the calls of helpers that create programs, and what
//! each passes. A host often loads its kernels through one function,
//! `CreateProgram(context, device, "k.cl")`, which reads the file its
//! parameter names and builds it; the program that function builds is the
//! union of what its callers pass. This is a second reading of the files
//! that name such a helper, once every file's creations are known (a helper
//! may be called from another file of the batch).

use std::collections::BTreeSet;

use super::origins::{names_kernel_file, Origins};
use super::programs::unqualified;
use super::scan::parsed;
use super::syntax::{args, function_name, position, text};
use super::trace::Context;
use super::{Argument, HelperCall, HelperCalls, HostLanguage};

/// The calls of the functions `names` in one host file, each argument
/// followed (through variables, in the calling function) to the kernel
/// files it names; and which of `names` the file defines.
pub fn helper_calls(text: &[u8], language: HostLanguage, names: &BTreeSet<String>) -> HelperCalls {
    if !names.iter().any(|name| memchr::memmem::find(text, name.as_bytes()).is_some()) {
        return HelperCalls::default();
    }
    parsed(text, language, |context| {
        let defines = (context.index.functions.iter())
            .filter_map(|f| function_name(*f, context.src))
            .map(|name| unqualified(&name).to_string())
            .filter(|name| names.contains(name))
            .collect::<BTreeSet<_>>();
        let calls = (context.index.nodes.iter())
            .filter(|n| matches!(n.kind, "call_expression" | "call"))
            .filter_map(|n| helper_call(&context, n.node, names))
            .collect();
        HelperCalls { calls, defines: defines.into_iter().collect() }
    })
    .unwrap_or_default()
}

/// `name(args)`, `ns::name(args)`, `object.name(args)`, `self->name(args)`.
fn helper_call<'t>(context: &Context<'t, '_>, call: tree_sitter::Node<'t>, names: &BTreeSet<String>) -> Option<HelperCall> {
    let src = context.src;
    let callee = call.child_by_field_name("function")?;
    let name = match callee.kind() {
        "identifier" | "qualified_identifier" => unqualified(text(callee, src)),
        "field_expression" => text(callee.child_by_field_name("field")?, src),
        "attribute" => text(callee.child_by_field_name("attribute")?, src),
        _ => return None,
    };
    if !names.contains(name) {
        return None;
    }
    let list = call.child_by_field_name("arguments")?;
    let arguments = args(list).into_iter().map(|a| argument(context, a)).collect();
    Some(HelperCall { at: position(call), callee: name.to_string(), arguments })
}

/// What one argument passes: the kernel files it names, or why it may carry
/// something clasp cannot name.
fn argument<'t>(context: &Context<'t, '_>, node: tree_sitter::Node<'t>) -> Argument {
    let mut origins = Origins::new(context);
    origins.follow(node);
    let mut file_names = origins.file_names.clone();
    let mut opaque = None;
    for &i in &origins.literals {
        let literal = &context.literals[i].literal;
        if names_kernel_file(&literal.text) {
            file_names.push(literal.text.clone());
        } else if literal.declares_kernel {
            opaque.get_or_insert(format!("the call at line {} passes an embedded kernel", position(node).line));
        }
    }
    if !origins.parameters.is_empty() {
        let why = origins.untraced.clone().unwrap_or_else(|| "a parameter".into());
        opaque.get_or_insert(format!("{why}: clasp follows file names through one call"));
    }
    if let Some(name) = origins.external.first() {
        opaque.get_or_insert(format!("`{name}` is not declared in the calling file"));
    }
    if file_names.is_empty() {
        opaque = opaque.or(origins.opaque);
    }
    file_names.dedup();
    Argument { file_names, opaque }
}
