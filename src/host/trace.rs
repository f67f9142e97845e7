//! What a variable holds where it is used: its initial value in the
//! enclosing function (or at file scope), and whether that function writes it
//! again (assignment, `+=`, `snprintf(buf, ...)`, `opts.append(...)`...).
//! Names are matched as written; shadowing in nested blocks is not modelled.
//! Also the parsed file every fact finder reads (`Context`), and the calls
//! that only wrap a string (`is_wrapper`): below the finders, which all
//! trace.

use std::collections::HashMap;

use tree_sitter::Node;

use super::index::Index;
use super::syntax::{args, declarator_name, function_name, text, unwrap};
use super::{HostLanguage, Literal};

/// A decoded literal, its node and the function around it.
pub(crate) struct Found<'t> {
    pub node: Node<'t>,
    pub function: Option<Node<'t>>,
    pub literal: Literal,
}

/// The parsed file, shared by the fact finders.
pub(crate) struct Context<'t, 's> {
    pub src: &'s [u8],
    pub language: HostLanguage,
    /// The nodes the finders ask about, from one walk.
    pub index: Index<'t>,
    /// The file names a type `Program` (`cl::Program`) somewhere.
    pub names_program_type: bool,
    /// Every literal of the file, in order.
    pub literals: Vec<Found<'t>>,
    /// Literal node id -> index into `literals`.
    pub by_node: HashMap<usize, usize>,
    /// File-scope bindings already traced, by name (a file creating thousands
    /// of programs from one file-scope source traces it once, not once each).
    pub file_scope: std::cell::RefCell<HashMap<String, Option<Traced<'t>>>>,
}

impl Context<'_, '_> {
    pub(crate) fn literal_of(&self, node: Node) -> Option<usize> {
        self.by_node.get(&node.id()).copied()
    }
}

/// A call that only wraps a string: `std::string(...)`, `std::make_pair(...)`,
/// `cl::Program::Sources(...)`, Python `str(...)`.
pub(crate) fn is_wrapper(call: Node, src: &[u8]) -> bool {
    call.child_by_field_name("function").is_some_and(|callee| is_wrapper_name(text(callee, src)))
}

/// Whether a function so named (`std::string`, `str`) only wraps a string.
pub(crate) fn is_wrapper_name(callee: &str) -> bool {
    let name = callee.rsplit("::").next().unwrap_or("");
    matches!(name, "string" | "make_pair" | "pair" | "Sources" | "str") || name.starts_with("basic_string")
}

/// How a variable is introduced.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Binding<'t> {
    /// Declared or first assigned with this value.
    Value(Node<'t>),
    /// Declared without a value (`char opts[256];`).
    Uninitialised,
    /// A parameter of the function.
    Parameter,
}

/// A variable's binding and the later writes of it, in file order.
#[derive(Debug, Clone)]
pub(crate) struct Traced<'t> {
    pub first: Binding<'t>,
    /// Assignments, `+=`, `snprintf(name, ...)`, `name.append(...)`...
    pub writes: Vec<Node<'t>>,
}

/// C functions that write their first argument.
const WRITERS: &[&str] = &[
    "snprintf",
    "sprintf",
    "vsnprintf",
    "vsprintf",
    "sprintf_s",
    "snprintf_s",
    "strcpy",
    "strncpy",
    "strcpy_s",
    "strcat",
    "strncat",
    "strcat_s",
    "memcpy",
];

/// Methods that change the object they are called on (C++ strings, Python lists).
const MUTATORS: &[&str] =
    &["append", "push_back", "insert", "assign", "replace", "extend", "clear", "resize", "remove", "emplace_back"];

/// The binding of `name` as seen from `at`: the enclosing function's own
/// declaration or parameter first, else the file-scope one (traced once per
/// file, in `context`); `None` when the file declares no such variable.
pub(crate) fn lookup<'t>(context: &Context<'t, '_>, name: &str, at: Node<'t>) -> Option<Traced<'t>> {
    let src = context.src;
    let mut local = Finder::new(name, src);
    if let Some(f) = context.index.function_around(at) {
        for n in context.index.within(f) {
            local.visit(n.node, n.kind);
        }
        if local.first.is_some() {
            return Some(local.binding());
        }
    }
    let cached = context.file_scope.borrow().get(name).cloned();
    let global = match cached {
        Some(global) => global,
        None => {
            let traced = file_scope(name, &context.index, src);
            context.file_scope.borrow_mut().insert(name.to_string(), traced.clone());
            traced
        }
    }?;
    let mut writes = global.writes;
    writes.extend(local.writes);
    writes.sort_by_key(|w| w.start_byte());
    writes.dedup();
    Some(Traced { first: global.first, writes })
}

/// The file-scope binding of `name` with every write of it, in one walk:
/// file-scope declarations bind; a file-scope variable may be written in
/// any function, so every write of the name in a function body counts (a
/// function's own variable of that name as well, which only makes clasp
/// more careful).
fn file_scope<'t>(name: &str, index: &Index<'t>, src: &[u8]) -> Option<Traced<'t>> {
    let mut global = Finder::new(name, src);
    let mut in_functions = Finder::new(name, src);
    for n in &index.nodes {
        match n.function {
            None => global.visit(n.node, n.kind),
            Some(_) => in_functions.visit(n.node, n.kind),
        }
    }
    global.first?;
    global.writes.extend(in_functions.writes);
    Some(global.binding())
}

/// A description of a write, for an `Untraced` reason.
pub(crate) fn describe_write(name: &str, write: Node, src: &[u8]) -> String {
    let at = write.start_position().row + 1;
    match write.kind() {
        "call_expression" | "call" => {
            let callee = write.child_by_field_name("function").map_or("", |f| text(f, src));
            format!("`{name}` is written by `{callee}(...)` (line {at})")
        }
        _ => format!("`{name}` is written again: `{}` (line {at})", text(write, src).lines().next().unwrap_or("")),
    }
}

/// The name of the function around `at`, for messages.
pub(crate) fn function_label(context: &Context, at: Node) -> String {
    context.index.function_around(at).and_then(|f| function_name(f, context.src)).unwrap_or_else(|| "file scope".into())
}

/// What a scope's nodes say about one name: its first binding, then its writes.
struct Finder<'n, 's, 't> {
    name: &'n str,
    src: &'s [u8],
    first: Option<Binding<'t>>,
    writes: Vec<Node<'t>>,
}

impl<'n, 's, 't> Finder<'n, 's, 't> {
    fn new(name: &'n str, src: &'s [u8]) -> Self {
        Finder { name, src, first: None, writes: Vec::new() }
    }

    fn binding(self) -> Traced<'t> {
        Traced { first: self.first.unwrap_or(Binding::Uninitialised), writes: self.writes }
    }

    /// Records what `n` (of `kind`) says about the name.
    fn visit(&mut self, n: Node<'t>, kind: &str) {
        match kind {
            "parameter_declaration" | "optional_parameter_declaration" => self.parameter(n),
            "parameters" => self.python_parameters(n),
            "init_declarator" => self.declared(n),
            "declaration" => self.declared_plain(n),
            "assignment" => self.python_assignment(n),
            "assignment_expression" | "augmented_assignment" | "update_expression" => self.written_if_target(n),
            "call_expression" | "call" => self.call(n),
            _ => {}
        }
    }

    fn is_name(&self, node: Option<Node>) -> bool {
        node.is_some_and(|n| text(unwrap(n), self.src) == self.name)
    }

    fn bind(&mut self, binding: Binding<'t>) {
        self.first.get_or_insert(binding);
    }

    fn parameter(&mut self, n: Node<'t>) {
        let declarator = n.child_by_field_name("declarator");
        if declarator.and_then(|d| declarator_name(d, self.src)).as_deref() == Some(self.name) {
            self.bind(Binding::Parameter);
        }
    }

    fn python_parameters(&mut self, n: Node<'t>) {
        for p in args(n) {
            let name = if p.kind() == "identifier" { Some(p) } else { p.child_by_field_name("name").or(p.named_child(0)) };
            if self.is_name(name) {
                self.bind(Binding::Parameter);
            }
        }
    }

    fn declared(&mut self, n: Node<'t>) {
        let declarator = n.child_by_field_name("declarator");
        if declarator.and_then(|d| declarator_name(d, self.src)).as_deref() == Some(self.name) {
            self.bind(n.child_by_field_name("value").map_or(Binding::Uninitialised, Binding::Value));
        }
    }

    /// `char opts[256];`: declarators that are not `init_declarator`s.
    fn declared_plain(&mut self, n: Node<'t>) {
        let mut cursor = n.walk();
        let declarators: Vec<Node> = n.children_by_field_name("declarator", &mut cursor).collect();
        for d in declarators {
            if d.kind() != "init_declarator" && declarator_name(d, self.src).as_deref() == Some(self.name) {
                self.bind(Binding::Uninitialised);
            }
        }
    }

    /// Whether `target` is an element of the name (`parts[i]`): a write
    /// of an element is a write of the array.
    fn is_element_of_name(&self, target: Option<Node>) -> bool {
        let target = target.map(unwrap).filter(|t| matches!(t.kind(), "subscript_expression" | "subscript"));
        self.is_name(target.and_then(|t| t.child_by_field_name("argument").or_else(|| t.child_by_field_name("value"))))
    }

    /// Python binds by assignment: the first one is the value, later ones writes.
    fn python_assignment(&mut self, n: Node<'t>) {
        if self.is_element_of_name(n.child_by_field_name("left")) {
            self.writes.push(n);
            return;
        }
        if !self.is_name(n.child_by_field_name("left")) {
            return;
        }
        match (self.first, n.child_by_field_name("right")) {
            (None, Some(right)) => self.first = Some(Binding::Value(right)),
            _ => self.writes.push(n),
        }
    }

    fn written_if_target(&mut self, n: Node<'t>) {
        let target = n.child_by_field_name("left").or_else(|| n.child_by_field_name("argument"));
        if self.is_name(target) || self.is_element_of_name(target) {
            self.writes.push(n);
        }
    }

    fn call(&mut self, n: Node<'t>) {
        let Some(callee) = n.child_by_field_name("function") else { return };
        let writes = match callee.kind() {
            "identifier" if WRITERS.contains(&text(callee, self.src)) => {
                let first = n.child_by_field_name("arguments").and_then(|a| args(a).first().copied());
                self.is_name(first)
            }
            "field_expression" | "attribute" => {
                let object = callee.child_by_field_name("argument").or_else(|| callee.child_by_field_name("object"));
                let method = callee.child_by_field_name("field").or_else(|| callee.child_by_field_name("attribute"));
                self.is_name(object) && method.is_some_and(|m| MUTATORS.contains(&text(m, self.src)))
            }
            _ => false,
        };
        if writes {
            self.writes.push(n);
        }
    }
}
