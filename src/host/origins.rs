//! Where a value comes from: the literals it is made of, the kernel files
//! its text is read from, and the parameters of its function it depends on.
//!
//! A program's source argument is followed through variables (their
//! initialiser, then the writes that add to them: `sources.push_back(...)`,
//! `snprintf(buf, ...)`, `s += ...`), arrays of strings, and calls that only
//! wrap a string (`std::string(...)`, `std::make_pair(...)`). A call that
//! computes it (`read_text(path)`, `open('k.cl').read()`) leaves it
//! untraced, but its arguments and object are still followed for file
//! names: a literal naming a kernel file there (or in a variable passed
//! there) is the file the text is read from. A parameter reached either way
//! is recorded by its index, so that the program's files can be found at the
//! function's call sites (`crate::host::helper_calls`). A file name that is
//! a call, field or element naming no kernel file and no parameter
//! (`getenv("K")`, `cfg.kernel`, `sys.argv[1]`) is computed at run time:
//! the program reads a file clasp cannot name. `cl::Program p(ctx, f(x))`,
//! which parses as a function declaration, is followed as the call `f(x)`.

use tree_sitter::Node;

use super::syntax::{args, declarator_name, text, unwrap, walk};
use super::trace::{function_label, lookup, Binding};
use super::trace::{is_wrapper_name, Context};

/// Extensions of files that hold kernels.
pub(crate) const KERNEL_FILES: &[&str] = &[".cl", ".ocl", ".opencl", ".clh"];

/// Whether a literal's text names a kernel file.
pub(crate) fn names_kernel_file(text: &str) -> bool {
    KERNEL_FILES.iter().any(|ext| text.ends_with(ext)) && !text.contains('\n')
}

/// What is followed: the value itself (its literals are its text), a value
/// that only names where the text is read from (its literals that name
/// kernel files are file names; other literals are modes, separators...),
/// or the stream or handle a reader is called on (`ss.str()`, `f.read()`),
/// which is followed for file names too but, filled where clasp cannot see
/// (`ss << in.rdbuf()`, `with open(...) as f`), says nothing when it names none.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Source,
    FileName,
    Handle,
}

/// Follows a value to its literals, file names and parameters.
pub(crate) struct Origins<'c, 't, 's> {
    context: &'c Context<'t, 's>,
    /// Literals of the value, in order (indexes into the context's literals).
    pub literals: Vec<usize>,
    /// Kernel files the value is read from, as written.
    pub file_names: Vec<String>,
    /// Parameters of the enclosing function reached (0-based; Python's
    /// `self`/`cls` not counted).
    pub parameters: Vec<usize>,
    /// The first reason the value is not all literals.
    pub untraced: Option<String>,
    /// The first reason that is neither a parameter nor another file's
    /// variable: something computed at run time.
    pub opaque: Option<String>,
    /// Variables declared in no scope of this file (another file's, e.g. a generated header's).
    pub external: Vec<String>,
    /// Files `#include`d where a source string is expected, in order.
    pub included: Vec<String>,
    /// The first file name computed where clasp cannot resolve it
    /// (`getenv("K")`, `cfg.kernel`, `sys.argv[1]`): a call, field or element
    /// that names no kernel file and no parameter.
    unresolved: Option<String>,
    /// Variables already followed (an array may name one twice).
    visited: Vec<(String, Mode)>,
}

impl<'c, 't, 's> Origins<'c, 't, 's> {
    pub(crate) fn new(context: &'c Context<'t, 's>) -> Self {
        Origins {
            context,
            literals: Vec::new(),
            file_names: Vec::new(),
            parameters: Vec::new(),
            untraced: None,
            opaque: None,
            external: Vec::new(),
            included: Vec::new(),
            unresolved: None,
            visited: Vec::new(),
        }
    }

    /// Follows a value whose text is the program's source.
    pub(crate) fn follow(&mut self, node: Node<'t>) {
        self.follow_as(node, Mode::Source);
    }

    fn follow_as(&mut self, node: Node<'t>, mode: Mode) {
        walk(node, &mut |n| self.visit(n, mode));
    }

    /// Why the program reads a file whose name clasp cannot resolve: no
    /// kernel file name and no parameter was traced, and some file name
    /// comes from a value computed at run time. Such a program is none of
    /// the kernel files its function names elsewhere.
    pub(crate) fn unresolved_file_name(&self) -> Option<String> {
        let why = self.unresolved.as_ref().filter(|_| self.file_names.is_empty() && self.parameters.is_empty())?;
        Some(format!("the name of the file it reads is computed at run time: `{why}`"))
    }

    /// Follows `n` for file names; when nothing under it names a kernel
    /// file or a parameter, it is a name clasp cannot resolve.
    fn follow_name(&mut self, n: Node<'t>, follow: impl FnOnce(&mut Self)) {
        let before = (self.file_names.len(), self.parameters.len());
        let first = self.unresolved.is_none();
        follow(self);
        // The whole name (`os.environ["K"]`) rather than a part of it (`os.environ`).
        if before == (self.file_names.len(), self.parameters.len()) && first {
            self.unresolved = Some(first_line(text(n, self.context.src)).to_string());
        }
    }

    /// Whether to walk into `n`.
    fn visit(&mut self, n: Node<'t>, mode: Mode) -> bool {
        if let Some(i) = self.context.literal_of(n) {
            self.literal(i, mode);
            return false;
        }
        match n.kind() {
            // Types of casts (`(const cl_char **)&src`) and `std::string` in a
            // declaration that parses as a function's: no variables there.
            "type_descriptor" | "qualified_identifier" | "primitive_type" => {}
            "identifier" | "type_identifier" => self.variable(n, mode),
            "call_expression" | "call" => {
                let callee = n.child_by_field_name("function");
                self.call(n, callee, n.child_by_field_name("arguments"), mode);
            }
            // `cl::Program p(ctx, readAll(file));` parses as a function
            // declaration: `readAll(file)` is a parameter of type `readAll`.
            "parameter_declaration" => match n.child_by_field_name("declarator") {
                Some(d) if d.kind() == "abstract_function_declarator" => {
                    self.call(n, n.child_by_field_name("type"), d.child_by_field_name("parameters"), mode)
                }
                _ => return true,
            },
            // Python's `open(path, encoding=...)`: the keyword is no variable.
            "keyword_argument" => {
                if let Some(value) = n.child_by_field_name("value") {
                    self.follow_as(value, mode);
                }
            }
            // `parts[1]`: that element of a list, where the list is known.
            "subscript_expression" | "subscript" if mode == Mode::Source => match self.listed_element(n) {
                Some(element) => self.follow_as(element, mode),
                None => return true,
            },
            "field_expression" | "subscript_expression" | "attribute" | "subscript" if mode == Mode::FileName => {
                self.follow_name(n, |o| o.follow_element(n))
            }
            _ => return true,
        }
        false
    }

    /// A field or element as a file name: the object or array it is taken
    /// from, and the index (a field's name is no variable).
    fn follow_element(&mut self, n: Node<'t>) {
        let fields = ["argument", "object", "value", "index", "indices", "subscript"];
        for part in fields.iter().filter_map(|f| n.child_by_field_name(f)) {
            self.follow_as(part, Mode::FileName);
        }
    }

    /// A call `callee(arguments)` (`n`): a wrapper of a string is its
    /// arguments; another call computes the value, from the files its
    /// arguments name.
    fn call(&mut self, n: Node<'t>, callee: Option<Node<'t>>, arguments: Option<Node<'t>>, mode: Mode) {
        let src = self.context.src;
        let name = callee.map_or("", |f| text(f, src));
        if is_wrapper_name(name) {
            // Only the arguments of a wrapper: its name is no variable.
            if let Some(arguments) = arguments {
                self.follow_as(arguments, mode);
            }
            return;
        }
        // `s.c_str()`, `s.data()`: the string's own text.
        if let Some(object) = string_of_accessor(callee, arguments, src).filter(|_| mode == Mode::Source) {
            self.follow_as(object, mode);
            return;
        }
        // `strlen(src)` and `sizeof` only measure a source named elsewhere.
        if matches!(name, "strlen" | "sizeof") {
            return;
        }
        match mode {
            Mode::Source => {
                let why = format!("`{}` is computed at run time", first_line(text(n, src)));
                self.opaque.get_or_insert(why.clone());
                self.why(why);
                self.read_from(callee, arguments);
            }
            Mode::FileName => self.follow_name(n, |o| o.read_from(callee, arguments)),
            Mode::Handle => self.read_from(callee, arguments),
        }
    }
    fn literal(&mut self, i: usize, mode: Mode) {
        let included = &self.context.literals[i].literal.included;
        match mode {
            // A file `#include`d where a string is expected holds the source.
            Mode::Source if !included.is_empty() => self.included.extend(included.iter().cloned()),
            Mode::Source if !self.literals.contains(&i) => self.literals.push(i),
            Mode::Source => {}
            // A file `#include`d where a string is expected is text, not a name.
            Mode::FileName | Mode::Handle if !included.is_empty() => {}
            Mode::FileName | Mode::Handle => {
                let text = &self.context.literals[i].literal.text;
                if names_kernel_file(text) && !self.file_names.contains(text) {
                    self.file_names.push(text.clone());
                }
            }
        }
    }

    /// The file names a call computing the text reads from: in its
    /// arguments and in the object it is called on (`open('k.cl').read()`).
    fn read_from(&mut self, callee: Option<Node<'t>>, arguments: Option<Node<'t>>) {
        let object = callee.and_then(|f| f.child_by_field_name("argument").or_else(|| f.child_by_field_name("object")));
        if let Some(object) = object {
            self.follow_as(object, Mode::Handle);
        }
        if let Some(arguments) = arguments {
            self.follow_as(arguments, Mode::FileName);
        }
    }

    fn variable(&mut self, n: Node<'t>, mode: Mode) {
        let src = self.context.src;
        let name = text(n, src).to_string();
        let key = (name.clone(), mode);
        if self.visited.contains(&key) {
            return;
        }
        self.visited.push(key);
        let Some(traced) = lookup(self.context, &name, n) else {
            if mode == Mode::Source {
                self.why(format!("`{name}` is not declared in this file"));
                self.external.push(name);
            }
            return;
        };
        match traced.first {
            Binding::Value(value) => self.follow_as(value, mode),
            Binding::Parameter => {
                if let Some(index) = parameter_index(self.context, n, &name) {
                    if !self.parameters.contains(&index) {
                        self.parameters.push(index);
                    }
                }
                if mode == Mode::Source {
                    self.why(format!("`{name}` is a parameter of `{}`", function_label(self.context, n)));
                }
            }
            Binding::Uninitialised if traced.writes.is_empty() && mode == Mode::Source => {
                let why = format!("`{name}` is not initialised from a literal in this file");
                self.opaque.get_or_insert(why.clone());
                self.why(why)
            }
            Binding::Uninitialised => {}
        }
        // What is added to it: `push_back(...)`, `+=`, `snprintf(name, ...)`,
        // an element (`ptrs[1] = b;`, `ptrs[i] = srcs[i];` in a loop): those
        // written at a literal index in its order, the others as they come.
        let mut writes = traced.writes;
        writes.sort_by_key(|w| literal_element_index(*w, src).unwrap_or(usize::MAX));
        for write in writes {
            let added = write.child_by_field_name("arguments").or_else(|| write.child_by_field_name("right"));
            if let Some(added) = added {
                self.follow_as(added, mode);
            }
        }
    }

    /// The element `n` (`parts[1]`) takes from a list variable initialised
    /// with a list (`{a, b}`, `[a, b]`) and never written again, by its index
    /// as written; `None` when any of that is unknown.
    fn listed_element(&self, n: Node<'t>) -> Option<Node<'t>> {
        let src = self.context.src;
        let list = n.child_by_field_name("argument").or_else(|| n.child_by_field_name("value"))?;
        let index: usize = text(subscript_index(n)?, src).parse().ok()?;
        if !matches!(list.kind(), "identifier") {
            return None;
        }
        let traced = lookup(self.context, text(list, src), list)?;
        let Binding::Value(value) = traced.first else { return None };
        if !traced.writes.is_empty() || !matches!(value.kind(), "initializer_list" | "list") {
            return None;
        }
        let mut cursor = value.walk();
        let elements: Vec<Node<'t>> = value.named_children(&mut cursor).filter(|e| e.kind() != "comment").collect();
        elements.get(index).copied()
    }

    pub(crate) fn why(&mut self, why: String) {
        self.untraced.get_or_insert(why);
    }
}

/// The parameters of a function definition, in order: C and C++
/// declarators' names, Python's names (`self` and `cls` left out: a call
/// site `obj.method(a)` passes `a` first).
pub(crate) fn parameter_names(def: Node, src: &[u8]) -> Vec<String> {
    if let Some(parameters) = def.child_by_field_name("parameters") {
        let names: Vec<String> = args(parameters)
            .into_iter()
            .filter_map(|p| match p.kind() {
                "identifier" => Some(text(p, src).to_string()),
                _ => p.child_by_field_name("name").or(p.named_child(0)).map(|n| text(n, src).to_string()),
            })
            .collect();
        let skip = names.first().is_some_and(|n| n == "self" || n == "cls");
        return names.into_iter().skip(usize::from(skip)).collect();
    }
    let mut declarator = def.child_by_field_name("declarator");
    while let Some(d) = declarator.filter(|d| d.kind() != "function_declarator") {
        declarator = d.child_by_field_name("declarator");
    }
    let Some(list) = declarator.and_then(|d| d.child_by_field_name("parameters")) else { return Vec::new() };
    args(list)
        .into_iter()
        .filter(|p| p.kind() != "variadic_parameter")
        .map(|p| p.child_by_field_name("declarator").and_then(|d| declarator_name(d, src)).unwrap_or_default())
        .collect()
}

/// The index of parameter `name` of the function around `at`.
fn parameter_index(context: &Context, at: Node, name: &str) -> Option<usize> {
    let def = context.index.function_around(at)?;
    parameter_names(def, context.src).iter().position(|p| p == name)
}

/// The index of the element an assignment writes (`ptrs[1] = ...`) when
/// it is written as an integer literal.
fn literal_element_index(write: Node, src: &[u8]) -> Option<usize> {
    text(subscript_index(unwrap(write.child_by_field_name("left")?))?, src).parse().ok()
}

/// The index of a subscript (`parts[1]`, C or Python), when it has one.
fn subscript_index(subscript: Node) -> Option<Node> {
    let field = |name| subscript.child_by_field_name(name);
    field("index").or_else(|| field("subscript")).or_else(|| {
        let indices = field("indices")?;
        (indices.named_child_count() == 1).then(|| indices.named_child(0)).flatten()
    })
}

/// The string whose text `callee(arguments)` is, for `s.c_str()` and
/// `s.data()` (no arguments): `s`.
fn string_of_accessor<'t>(callee: Option<Node<'t>>, arguments: Option<Node<'t>>, src: &[u8]) -> Option<Node<'t>> {
    let callee = callee.filter(|f| f.kind() == "field_expression")?;
    let field = callee.child_by_field_name("field").map(|f| text(f, src))?;
    let no_arguments = arguments.is_none_or(|a| a.named_child_count() == 0);
    (matches!(field, "c_str" | "data") && no_arguments).then(|| callee.child_by_field_name("argument")).flatten()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
