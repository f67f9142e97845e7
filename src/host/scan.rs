//! [`scan`]: parse one host file and gather its facts. Every string literal
//! is decoded first (build options and file names are literals too); then
//! program creations say which literals are kernel sources, build calls are
//! read, and only the literals that matter are reported.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use tree_sitter::{Node, Parser};

use super::decode::{decode_c, decode_python, Decoded};
use super::index::{Index, Role};
use super::literal::declares_kernel;
use super::syntax::{assigned_name, position, range, text};
use super::trace::{is_wrapper, Context, Found};
use super::{builds, programs, stringify, HostFacts, HostLanguage, Literal};

/// The facts of one host file. Never fails: tree-sitter recovers from
/// syntax errors, and whatever parses around them is still reported.
pub fn scan(path: &Path, text: &[u8], language: HostLanguage) -> HostFacts {
    let empty = || HostFacts {
        path: path.to_path_buf(),
        language,
        literals: vec![],
        build_calls: vec![],
        programs: vec![],
        included: vec![],
    };
    if !may_have_facts(text) {
        return empty();
    }
    // `None` only on a grammar/library version mismatch.
    parsed(text, language, |mut context| {
        let creations = programs::find(&context);
        for (creation, _) in &creations {
            for &i in &creation.literals {
                context.literals[i].literal.passed_to.get_or_insert_with(|| creation.api.clone());
            }
        }
        let mut build_calls = builds::find(&context, &creations);
        build_calls.extend(super::constructor::find(&context, &creations));
        build_calls.sort_by_key(|c| c.at.byte);
        report(path, context, creations.into_iter().map(|(c, _)| c).collect(), build_calls)
    })
    .unwrap_or_else(empty)
}

/// Parses `text` and hands the indexed file, its literals decoded, to
/// `read`; `#include`s standing for source strings are blanked in the text
/// it reads (the bytes keep their offsets).
pub(crate) fn parsed<R>(text: &[u8], language: HostLanguage, read: impl for<'t, 's> FnOnce(Context<'t, 's>) -> R) -> Option<R> {
    let mut parser = Parser::new();
    parser.set_language(&language.grammar()).ok()?;
    let mut tree = parser.parse(text, None)?;
    // `#include`s standing for source strings: parsed again with them blanked (see `includes`).
    let operands = match language {
        HostLanguage::Python => Vec::new(),
        _ => super::includes::operands(tree.root_node(), text),
    };
    let blanked;
    let text = match operands.is_empty() {
        true => text,
        false => {
            blanked = super::includes::blanked(text, &operands);
            tree = parser.parse(&blanked, None).unwrap_or(tree);
            blanked.as_slice()
        }
    };
    let included: HashSet<u32> = operands.iter().map(|o| o.name_start).collect();
    let (index, names_program_type) = index(tree.root_node(), text, language);
    let literals = decode_literals(&index, text, language, &included);
    let by_node = literals.iter().enumerate().map(|(i, f)| (f.node.id(), i)).collect();
    let file_scope = Default::default();
    Some(read(Context { src: text, language, index, names_program_type, literals, by_node, file_scope }))
}

/// Whether the bytes can hold a fact at all: every fact needs one of these
/// words (a kernel declaration `__kernel`/`kernel void` in a literal or a
/// stringify macro's argument, `Program` in every creation and in
/// `clBuildProgram`/`clCompileProgram`, `.build`/`->build`/`.compile`/
/// `->compile` in the C++ and Python build calls). Most host files have none and are not parsed:
/// parsing is most of the cost of reading host code.
pub(super) fn may_have_facts(text: &[u8]) -> bool {
    const WORDS: &[&[u8]] = &[b"Program", b"__kernel", b".build", b"->build", b".compile", b"->compile"];
    if WORDS.iter().any(|word| memchr::memmem::find(text, word).is_some()) {
        return true;
    }
    // `kernel` followed by blanks and `void` (OpenCL C 1.x spells kernels either way).
    memchr::memmem::find_iter(text, b"kernel").any(|i| {
        let rest = &text[i + 6..];
        let blanks = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        blanks > 0 && rest[blanks..].starts_with(b"void")
    })
}

/// Keeps the literals that declare a kernel or feed a program, and
/// renumbers the creations' references to them.
fn report(
    path: &Path,
    context: Context,
    mut programs: Vec<super::ProgramCreation>,
    build_calls: Vec<super::BuildCall>,
) -> HostFacts {
    let mut included: Vec<String> = Vec::new();
    for name in context.literals.iter().flat_map(|found| found.literal.included.iter()) {
        if !included.contains(name) {
            included.push(name.clone());
        }
    }
    let mut renumber = HashMap::new();
    let mut literals = Vec::new();
    for (i, found) in context.literals.into_iter().enumerate() {
        if found.literal.declares_kernel || found.literal.passed_to.is_some() {
            renumber.insert(i, literals.len());
            literals.push(found.literal);
        }
    }
    for program in &mut programs {
        program.literals = program.literals.iter().filter_map(|i| renumber.get(i).copied()).collect();
    }
    HostFacts { path: path.to_path_buf(), language: context.language, literals, build_calls, programs, included }
}

/// Indexes the file. Literals are whole concatenations, not their parts; a
/// stringify macro's use is one literal (the code inside its argument is
/// kernel code, not host code: neither literals nor calls); an `#include
/// "x.h"` is no literal. The preprocessor knows a macro from its definition
/// on, and so does the walk, in file order. Also says whether the file
/// names a type `Program`.
fn index<'t>(root: Node<'t>, src: &[u8], language: HostLanguage) -> (Index<'t>, bool) {
    let mut macros = HashSet::new();
    let mut names_program_type = false;
    let index = Index::build(root, |node, kind| match (language, kind) {
        (_, "preproc_include") => Role::Skip,
        (HostLanguage::Python, "string" | "concatenated_string") => Role::Literal,
        (HostLanguage::Python, _) => Role::Walk,
        (_, "string_literal" | "raw_string_literal" | "concatenated_string") => Role::Literal,
        (_, "preproc_function_def") => {
            macros.extend(stringify::macro_name(node, src));
            Role::Skip
        }
        (_, "call_expression") if stringify::is_use(node, src, &macros) => Role::Literal,
        (_, "type_identifier") => {
            names_program_type |= text(node, src) == "Program";
            Role::Walk
        }
        _ => Role::Walk,
    });
    (index, names_program_type)
}

/// Every literal of the file, decoded, in file order.
fn decode_literals<'t>(index: &Index<'t>, src: &[u8], language: HostLanguage, included: &HashSet<u32>) -> Vec<Found<'t>> {
    (index.literals.iter())
        .map(|found| {
            let decoded = match (language, found.kind) {
                (HostLanguage::Python, _) => decode_python(found.node, src),
                (_, "call_expression") => stringify::decode(found.node, src),
                _ => decode_c(found.node, src),
            };
            Found { node: found.node, function: found.function, literal: literal(found.node, src, included, decoded) }
        })
        .collect()
}

fn literal(node: Node, src: &[u8], included: &HashSet<u32>, mut decoded: Decoded) -> Literal {
    if let Some(why) = formatted(node, src) {
        decoded.undecodable.get_or_insert(why);
        decoded.pieces.clear();
    }
    let included = match super::includes::included_files(node, src, included) {
        Ok(files) if !files.is_empty() => {
            decoded = Decoded { undecodable: Some("its text is in the files it `#include`s".into()), ..Decoded::default() };
            files
        }
        Ok(files) => files,
        Err(why) => {
            decoded = Decoded { undecodable: Some(why), ..Decoded::default() };
            Vec::new()
        }
    };
    Literal {
        start: position(node),
        range: range(node),
        declares_kernel: declares_kernel(&decoded.text),
        text: decoded.text,
        pieces: decoded.pieces,
        undecodable: decoded.undecodable,
        variable: variable(node, src),
        passed_to: None,
        included,
    }
}

/// Printf-family functions whose format argument is filled at run time.
const FORMATTERS: &[&str] =
    &["printf", "fprintf", "sprintf", "snprintf", "vsprintf", "vsnprintf", "asprintf", "sprintf_s", "snprintf_s"];

/// Why a literal is a format whose text the program only sees once filled:
/// a printf-family argument with a conversion, Python `"..." % x` or
/// `"...".format(x)`.
fn formatted(node: Node, src: &[u8]) -> Option<String> {
    let parent = node.parent()?;
    if parent.kind() == "binary_operator" && text(parent.child_by_field_name("operator")?, src) == "%" {
        return Some("a `%` format filled at run time".into());
    }
    if parent.kind() == "attribute" && parent.parent().is_some_and(|p| p.kind() == "call") {
        let method = text(parent.child_by_field_name("attribute")?, src);
        return (method == "format").then(|| "a `.format(...)` template filled at run time".into());
    }
    let call = parent.parent().filter(|c| parent.kind() == "argument_list" && c.kind() == "call_expression")?;
    let callee = text(call.child_by_field_name("function")?, src);
    let has_conversion = text(node, src).contains('%');
    (FORMATTERS.contains(&callee) && has_conversion)
        .then(|| format!("a `{callee}` format with `%` conversions filled at run time"))
}

/// The variable a literal initialises, through parentheses, casts, array
/// initialisers, Python lists and `%` formats, and C++ string constructors.
fn variable(node: Node, src: &[u8]) -> Option<String> {
    let mut at = node;
    loop {
        if let Some(name) = assigned_name(at, src) {
            return Some(name);
        }
        let parent = at.parent()?;
        let through = match parent.kind() {
            "parenthesized_expression" | "cast_expression" | "compound_literal_expression" => true,
            "initializer_list" | "initializer_pair" | "list" | "tuple" | "expression_list" | "binary_operator" => true,
            "argument_list" => parent.parent().is_some_and(|p| p.kind() == "init_declarator" || is_wrapper(p, src)),
            "call_expression" | "call" => is_wrapper(parent, src),
            _ => false,
        };
        if !through {
            return None;
        }
        at = parent;
    }
}
