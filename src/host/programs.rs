//! Program creations and the literals they take as source:
//! `clCreateProgramWithSource(ctx, n, strings, lengths, err)`,
//! `cl::Program(ctx, sources...)` (a call, or a declaration
//! `cl::Program program(ctx, src)`), and pyopencl `cl.Program(ctx, src)`.
//!
//! A source argument is followed through variables (their initialiser, then
//! the writes that add to them: `sources.push_back(...)`, `snprintf(buf,
//! ...)`, `s += ...`), arrays of strings, and calls that only wrap a string
//! (`std::string(...)`, `std::make_pair(...)`); anything else computed at
//! run time leaves the creation `untraced`, with the reason.

use tree_sitter::Node;

use super::index::Indexed;
use super::scan::{is_wrapper, Context};
use super::syntax::{args, declarator_name, function_name, position, text, walk};
use super::trace::{function_label, lookup, Binding};
use super::{HostLanguage, ProgramCreation};

/// Extensions of files that hold kernels.
const KERNEL_FILES: &[&str] = &[".cl", ".ocl", ".opencl", ".clh"];

/// Every program creation of the file, with its call (or declaration) node.
pub(crate) fn find<'t>(context: &Context<'t, '_>) -> Vec<(ProgramCreation, Node<'t>)> {
    let aliases = pyopencl_aliases(context);
    let mut found = Vec::new();
    for indexed in &context.index.nodes {
        if let Some((api, sources, variable)) = creation(context, indexed, &aliases) {
            let mut described = describe(context, indexed, api, &sources, variable);
            described.member = stored_in_member(context, indexed.node);
            found.push((described, indexed.node));
        }
    }
    found
}

/// A creation's API, source arguments and declared variable, if `node` is one.
fn creation<'t>(
    context: &Context<'t, '_>,
    indexed: &Indexed<'t>,
    aliases: &[String],
) -> Option<(&'static str, Vec<Node<'t>>, Option<String>)> {
    let (src, node) = (context.src, indexed.node);
    match (context.language, indexed.kind) {
        (HostLanguage::Python, "call") => {
            let callee = node.child_by_field_name("function")?;
            let module = callee.child_by_field_name("object").filter(|o| o.kind() == "identifier")?;
            let is_program = callee.kind() == "attribute"
                && text(callee.child_by_field_name("attribute")?, src) == "Program"
                && aliases.iter().any(|a| a == text(module, src));
            let sources = args(node.child_by_field_name("arguments")?).get(1).copied();
            is_program.then(|| ("pyopencl.Program", sources.into_iter().collect(), program_variable(node, src)))
        }
        (HostLanguage::Python, _) => None,
        (_, "call_expression") => {
            let written = text(node.child_by_field_name("function")?, src);
            // Most calls are other functions: their arguments are never looked at.
            if !written.ends_with("clCreateProgramWithSource") && !written.ends_with("Program") {
                return None;
            }
            let callee: String = written.split_whitespace().collect();
            let list = args(node.child_by_field_name("arguments")?);
            match callee.trim_start_matches("::") {
                "clCreateProgramWithSource" => {
                    Some(("clCreateProgramWithSource", list.get(2).copied().into_iter().collect(), program_variable(node, src)))
                }
                "cl::Program" => Some(("cl::Program", cpp_sources(list, src), program_variable(node, src))),
                _ => None,
            }
        }
        (_, "declaration") => cpp_declaration(node, src),
        (HostLanguage::Cpp, "field_initializer") => cpp_member_initializer(context, node),
        _ => None,
    }
}

/// `Blur(const cl::Context &c) : program_(c, source, true) {}`: a member
/// initializer of a field the file declares as a `cl::Program`.
fn cpp_member_initializer<'t>(
    context: &Context<'t, '_>,
    node: Node<'t>,
) -> Option<(&'static str, Vec<Node<'t>>, Option<String>)> {
    let src = context.src;
    let field = node.named_child(0).filter(|f| f.kind() == "field_identifier")?;
    let name = text(field, src);
    let is_program = context.index.nodes.iter().filter(|n| n.kind == "field_declaration").any(|n| {
        let ty: String = n.node.child_by_field_name("type").map_or("", |t| text(t, src)).split_whitespace().collect();
        let mut cursor = n.node.walk();
        let mut declarators = n.node.children_by_field_name("declarator", &mut cursor);
        ty.trim_start_matches("::") == "cl::Program" && declarators.any(|d| declarator_name(d, src).as_deref() == Some(name))
    });
    let list = node.child_by_field_name("arguments").or_else(|| node.named_child(1))?;
    is_program.then(|| ("cl::Program", cpp_sources(args(list), src), Some(name.to_string())))
}

/// The class member a creation is stored in: a member initializer's
/// field, or the left side of the assignment that stores it (`self.prg =
/// cl.Program(...)`, `program_ = cl::Program(...)`).
fn stored_in_member<'t>(context: &Context<'t, '_>, node: Node<'t>) -> Option<String> {
    if node.kind() == "field_initializer" {
        return super::members::member(context, node.named_child(0)?);
    }
    let stored = stored_value(node, context.src);
    let parent = stored.parent().filter(|p| matches!(p.kind(), "assignment_expression" | "assignment"))?;
    let left = parent.child_by_field_name("left").filter(|l| l.id() != stored.id())?;
    super::members::member(context, left)
}

/// `cl::Program program(ctx, src);`, `cl::Program program{ctx, src};`. A
/// declaration whose arguments read as types (`std::string(k)`) parses as a
/// function declaration; its "parameters" are then the arguments.
fn cpp_declaration<'t>(node: Node<'t>, src: &[u8]) -> Option<(&'static str, Vec<Node<'t>>, Option<String>)> {
    let ty: String = text(node.child_by_field_name("type")?, src).split_whitespace().collect();
    if ty.trim_start_matches("::") != "cl::Program" {
        return None;
    }
    let declarator = node.child_by_field_name("declarator")?;
    let list = match declarator.kind() {
        "init_declarator" => declarator.child_by_field_name("value").filter(|v| v.kind() != "call_expression")?,
        "function_declarator" => declarator.child_by_field_name("parameters")?,
        _ => return None,
    };
    Some(("cl::Program", cpp_sources(args(list), src), declarator_name(declarator, src)))
}

/// `cl::Program(ctx, sources)`: the sources follow the context; a single
/// argument is the sources (the default context). The `build` flag
/// (`true`, `false`) and what follows it, and a trailing error pointer
/// (`&err`, `nullptr`), are no sources. The bindings' constructors from
/// source take at most a context and the sources before those; the others
/// (`cl::Program(ctx, devices, binaries, ...)`, `cl::Program(ctx, devices,
/// kernel_names)`) create a program from no source: none is returned.
fn cpp_sources<'t>(mut list: Vec<Node<'t>>, src: &[u8]) -> Vec<Node<'t>> {
    // A declaration read as a function's has `true` as a parameter's type.
    if let Some(flag) = list.iter().skip(1).position(|a| matches!(text(*a, src), "true" | "false")) {
        list.truncate(flag + 1);
    }
    let error = |a: &Node| a.kind() == "pointer_expression" || matches!(text(*a, src), "nullptr" | "NULL");
    while list.last().is_some_and(error) {
        list.pop();
    }
    match list.len() {
        0 | 1 => list,
        2 => list[1..].to_vec(),
        _ => Vec::new(),
    }
}

/// The variable a program is stored in: `program = create(...)`, `T program
/// = create(...)`, or `prg = cl.Program(...).build()` (build returns the program).
fn program_variable(call: Node, src: &[u8]) -> Option<String> {
    super::syntax::assigned_name(stored_value(call, src), src)
}

/// The value that holds a created program: the creation, or the chained
/// `.build()` calls around it (pyopencl's `build` returns the program).
fn stored_value<'t>(call: Node<'t>, src: &[u8]) -> Node<'t> {
    let mut at = call;
    loop {
        let Some(parent) = at.parent() else { return at };
        let chained_build = parent.kind() == "attribute"
            && parent.child_by_field_name("attribute").is_some_and(|a| text(a, src) == "build")
            && parent.parent().is_some_and(|p| p.kind() == "call");
        match (chained_build, parent.parent()) {
            (true, Some(call)) => at = call,
            _ => return at,
        }
    }
}

/// The names pyopencl is imported as (`cl` and `pyopencl` always count).
fn pyopencl_aliases<'t>(context: &Context<'t, '_>) -> Vec<String> {
    let mut aliases = vec!["cl".to_string(), "pyopencl".to_string()];
    if context.language != HostLanguage::Python {
        return aliases;
    }
    for import in context.index.nodes.iter().filter(|n| n.kind == "aliased_import") {
        let module = import.node.child_by_field_name("name").map(|m| text(m, context.src));
        if let (Some("pyopencl"), Some(alias)) = (module, import.node.child_by_field_name("alias")) {
            aliases.push(text(alias, context.src).to_string());
        }
    }
    aliases
}

fn describe<'t>(
    context: &Context<'t, '_>,
    creation: &Indexed<'t>,
    api: &str,
    sources: &[Node<'t>],
    variable: Option<String>,
) -> ProgramCreation {
    let mut tracer = Sources {
        context,
        literals: Vec::new(),
        visited: Vec::new(),
        untraced: None,
        external: Vec::new(),
        included: Vec::new(),
    };
    for &source in sources {
        tracer.follow(source);
    }
    if !tracer.included.is_empty() && !tracer.literals.is_empty() {
        // Which comes first is not recorded: such a program is not known whole.
        tracer.why("its sources are both literals and `#include`d files".into());
    }
    ProgramCreation {
        at: position(creation.node),
        api: api.to_string(),
        function: creation.function.and_then(|f| function_name(f, context.src)),
        variable,
        member: None,
        file_names: file_names(context, creation.function, &tracer.literals),
        literals: tracer.literals,
        untraced: tracer.untraced,
        external: tracer.external,
        included: tracer.included,
    }
}

/// The other literals of the creation's function that name a kernel file.
fn file_names(context: &Context, function: Option<Node>, sources: &[usize]) -> Vec<String> {
    let function = function.map(|f| f.id());
    (context.literals.iter().enumerate())
        .filter(|(i, f)| f.function.map(|f| f.id()) == function && !sources.contains(i))
        .filter(|(_, f)| KERNEL_FILES.iter().any(|ext| f.literal.text.ends_with(ext)))
        .map(|(_, f)| f.literal.text.clone())
        .collect()
}

/// Follows source arguments to literals, in order, each literal once.
struct Sources<'c, 't, 's> {
    context: &'c Context<'t, 's>,
    literals: Vec<usize>,
    /// Variables already followed (an array may name one twice).
    visited: Vec<String>,
    untraced: Option<String>,
    /// Variables declared in no scope of this file (another file's, e.g. a generated header's).
    external: Vec<String>,
    /// Files `#include`d where a source string is expected.
    included: Vec<String>,
}

impl<'t> Sources<'_, 't, '_> {
    fn follow(&mut self, node: Node<'t>) {
        walk(node, &mut |n| self.visit(n));
    }

    /// Whether to walk into `n`.
    fn visit(&mut self, n: Node<'t>) -> bool {
        let src = self.context.src;
        if let Some(i) = self.context.literal_of(n) {
            let included = &self.context.literals[i].literal.included;
            if !included.is_empty() {
                self.included.extend(included.iter().cloned());
            } else if !self.literals.contains(&i) {
                self.literals.push(i);
            }
            return false;
        }
        match n.kind() {
            // Types of casts (`(const cl_char **)&src`) and `std::string` in a
            // declaration that parses as a function's: no variables there.
            "type_descriptor" | "qualified_identifier" | "primitive_type" => {}
            "identifier" | "type_identifier" => self.variable(n),
            "call_expression" | "call" if !is_wrapper(n, src) => {
                let callee = n.child_by_field_name("function").map_or("", |f| text(f, src));
                // `strlen(src)` and `sizeof` only measure a source named elsewhere.
                if !matches!(callee, "strlen" | "sizeof") {
                    self.why(format!("`{}` is computed at run time", first_line(text(n, src))));
                }
            }
            "call_expression" | "call" => {
                // Only the arguments of a wrapper: its name is no variable.
                if let Some(arguments) = n.child_by_field_name("arguments") {
                    self.follow(arguments);
                }
            }
            _ => return true,
        }
        false
    }

    fn variable(&mut self, n: Node<'t>) {
        let src = self.context.src;
        let name = text(n, src).to_string();
        if self.visited.contains(&name) {
            return;
        }
        self.visited.push(name.clone());
        let Some(traced) = lookup(self.context, &name, n) else {
            self.why(format!("`{name}` is not declared in this file"));
            self.external.push(name);
            return;
        };
        match traced.first {
            Binding::Value(value) => self.follow(value),
            Binding::Parameter => self.why(format!("`{name}` is a parameter of `{}`", function_label(self.context, n))),
            Binding::Uninitialised if traced.writes.is_empty() => {
                self.why(format!("`{name}` is not initialised from a literal in this file"))
            }
            Binding::Uninitialised => {}
        }
        // What is added to it: `push_back(...)`, `+=`, `snprintf(name, ...)`.
        for write in traced.writes {
            let added = write.child_by_field_name("arguments").or_else(|| write.child_by_field_name("right"));
            if let Some(added) = added {
                self.follow(added);
            }
        }
    }

    fn why(&mut self, why: String) {
        self.untraced.get_or_insert(why);
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
