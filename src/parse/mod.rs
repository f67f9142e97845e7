//! `parse`: libclang -> `KernelSyntax`.
//!
//! The syntax boundary. It parses one translation unit as OpenCL C and hands
//! on owned data only: functions, their pointer declarations with each
//! level's qualifier as spelled (keyword, macro use, or hidden), program-scope
//! variables, `#if`-skipped ranges and diagnostics. Libclang handles never
//! leave this module; the FFI itself is confined to `libclang.rs`.

mod libclang;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::syntax::*;
use libclang::{Cursor, CursorKind, FileLoc, Index, RawToken, TokenKind, TranslationUnit, Type, TypeKind};

pub use libclang::ensure_loaded;

/// A typedef named by a declaration's type.
struct TypedefUse {
    /// The typedef's name at the declaration.
    used_at: ByteRange,
    facts: TypedefFacts,
}

/// A reusable libclang session (one per worker thread).
pub struct Parser {
    index: Index,
}

impl Parser {
    pub fn new() -> Result<Parser, String> {
        Ok(Parser { index: Index::new()? })
    }

    /// Parses `path`, whose current bytes are `contents` (any encoding:
    /// offsets are byte offsets), with `args` (see `CompileOptions::clang_args`).
    pub fn parse(&self, path: &Path, contents: &[u8], args: &[String]) -> Result<KernelSyntax, String> {
        let tu = self.index.parse(path, contents, args)?;
        Ok(Walker::new(&tu, path).run())
    }
}

impl Parser {
    /// Which of `names` cannot name a new function under `args`: keywords,
    /// OpenCL builtins (`dot`, which a user function would silently shadow),
    /// names the headers declare, and C library functions (`memset`).
    /// Two small parses that call each name with no arguments, one line each:
    /// as OpenCL C, a name is free only if clang finds it undeclared; as C,
    /// clang calls the library's "library functions".
    pub fn taken_names(&self, names: &[String], args: &[String]) -> Result<BTreeSet<String>, String> {
        if names.is_empty() {
            return Ok(BTreeSet::new());
        }
        let calls = |names: &[String]| {
            let mut probe = b"void clasp_name_probe(void) {\n".to_vec();
            for name in names {
                probe.extend_from_slice(format!("{name}();\n").as_bytes());
            }
            probe.extend_from_slice(b"}\n");
            probe
        };
        let line_of = |line: u32| names.get((line as usize).wrapping_sub(2));
        let mut free = BTreeSet::new();
        let tu = self.index.parse(Path::new("clasp-name-probe.cl"), &calls(names), args)?;
        for d in tu.diagnostics() {
            if let Some(name) = line_of(d.loc.line).filter(|n| d.message == format!("use of undeclared identifier '{n}'")) {
                free.insert(name.clone());
            }
        }
        let c_args: Vec<String> = ["-x", "c", "-std=c99"].iter().map(|a| a.to_string()).collect();
        let tu = self.index.parse(Path::new("clasp-name-probe.c"), &calls(names), &c_args)?;
        for d in tu.diagnostics().into_iter().filter(|d| d.message.contains("library function")) {
            if let Some(name) = line_of(d.loc.line) {
                free.remove(name);
            }
        }
        Ok(names.iter().filter(|n| !free.contains(*n)).cloned().collect())
    }
}

/// What a macro's body amounts to, for qualifier purposes.
#[derive(Debug, Clone, PartialEq)]
enum MacroMeaning {
    Empty,
    Keyword(String),
    Other,
}

struct Walker<'t, 'i> {
    tu: &'t TranslationUnit<'i>,
    syntax: KernelSyntax,
    file_ids: HashMap<String, FileId>,
    /// Macro name -> body tokens (object-like macros only; function-like map to `None`).
    macros: HashMap<String, Option<Vec<String>>>,
    /// (file, start offset) of each macro use -> (macro name, end offset).
    expansions: HashMap<(FileId, u32), (String, u32)>,
    /// Macro name -> the identifiers its definitions' bodies name (function-like ones too).
    macro_words: HashMap<String, Vec<String>>,
    /// Macro name -> its first definition's tokens after the name.
    macro_definitions: HashMap<String, Vec<String>>,
    /// Macros defined more than once, differently, in the unit: the same spelling can mean two things.
    redefined_macros: HashSet<String>,
    /// Declarations whose own size is taken (`sizeof(p)`), by (file, offset).
    sizeof_targets: HashSet<(FileId, u32)>,
    /// Declarations whose value is cast explicitly to a pointer into a named
    /// space (`(__global uint *) p`), by (file, offset): the cast's space and line.
    cast_targets: HashMap<(FileId, u32), (Space, u32)>,
    /// What each typedef declaration (by file, offset) spells, read once.
    typedef_facts: HashMap<(FileId, u32), TypedefFacts>,
}

/// What a typedef's own declaration spells.
#[derive(Clone)]
struct TypedefFacts {
    name: String,
    /// Its text spells an address-space qualifier.
    spells_space: bool,
    /// For `typedef T name[N]`: how `T` is spelled (if one-dimensional and unqualified).
    array_element: Option<String>,
}

const KERNEL_WORDS: [&str; 2] = ["__kernel", "kernel"];

impl<'t, 'i> Walker<'t, 'i> {
    fn new(tu: &'t TranslationUnit<'i>, main: &Path) -> Self {
        let mut walker = Walker {
            tu,
            syntax: KernelSyntax::default(),
            file_ids: HashMap::new(),
            macros: HashMap::new(),
            expansions: HashMap::new(),
            macro_words: HashMap::new(),
            macro_definitions: HashMap::new(),
            redefined_macros: HashSet::new(),
            sizeof_targets: HashSet::new(),
            cast_targets: HashMap::new(),
            typedef_facts: HashMap::new(),
        };
        walker.file_id(&main.to_string_lossy());
        walker
    }

    fn file_id(&mut self, name: &str) -> FileId {
        if let Some(id) = self.file_ids.get(name) {
            return *id;
        }
        let id = self.syntax.files.len();
        self.syntax.files.push(PathBuf::from(name));
        self.file_ids.insert(name.to_string(), id);
        id
    }

    fn pos(&mut self, loc: &FileLoc) -> Pos {
        let file = match &loc.file {
            Some(f) => self.file_id(f),
            None => 0,
        };
        Pos { file, line: loc.line, col: loc.column, offset: loc.offset }
    }

    fn run(mut self) -> KernelSyntax {
        for d in self.tu.diagnostics() {
            // libclang severities: 2 warning, 3 error, 4 fatal.
            let severity = match d.severity {
                2 => Severity::Warning,
                s if s >= 3 => Severity::Error,
                _ => continue,
            };
            self.syntax.diagnostics.push(Diagnostic {
                severity,
                message: d.message,
                file: PathBuf::from(d.loc.file.unwrap_or_default()),
                line: d.loc.line,
                col: d.loc.column,
            });
        }
        let top = self.tu.cursor().children();
        // Macros and includes first: declarations refer to them.
        for c in &top {
            match c.kind() {
                CursorKind::MacroDefinition if !c.in_system_header() => self.record_macro(c),
                CursorKind::MacroExpansion => {
                    let (start, end) = (c.extent().start(), c.extent().end());
                    if let Some(f) = &start.file {
                        let id = self.file_id(f);
                        self.expansions.insert((id, start.offset), (c.spelling(), end.offset));
                    }
                }
                CursorKind::InclusionDirective => {
                    if let Some(f) = c.included_file() {
                        self.file_id(&f);
                    }
                }
                _ => {}
            }
        }
        for c in &top {
            if c.kind() == CursorKind::FunctionDecl && !c.in_system_header() && c.location().file.is_some() {
                self.find_observed_uses(c);
            }
        }
        for c in &top {
            if c.in_system_header() || c.location().file.is_none() {
                continue;
            }
            match c.kind() {
                CursorKind::FunctionDecl => {
                    let tokens = self.tu.tokens(&c.extent());
                    let words = tokens.iter().filter(|t| t.kind == TokenKind::Identifier).map(|t| t.text.clone());
                    self.syntax.identifiers.extend(words);
                    let f = self.function(c, tokens);
                    self.syntax.functions.push(f);
                }
                CursorKind::VarDecl => {
                    let v = self.program_var(c, None);
                    self.syntax.program_vars.push(v);
                }
                _ => {}
            }
            // Other declarations' names (types, variables): their bodies name nothing a new function could clash with.
            self.syntax.identifiers.insert(c.spelling());
        }
        self.record_skipped();
        for skipped in &self.syntax.skipped {
            self.syntax.identifiers.extend(skipped.identifiers.iter().cloned());
        }
        let names: Vec<String> = self.macros.keys().cloned().collect();
        for name in names {
            if let MacroMeaning::Keyword(keyword) = self.macro_meaning(&name) {
                if let Some(space) = Space::from_keyword(&keyword) {
                    self.syntax.qualifier_macros.insert(name, space);
                }
            }
        }
        self.syntax.identifiers.extend(self.macro_words.keys().cloned());
        self.syntax.identifiers.extend(self.macro_words.values().flatten().cloned());
        self.syntax
    }

    fn record_macro(&mut self, c: &Cursor) {
        let name = c.spelling();
        let tokens = self.tu.tokens(&c.extent());
        // Everything after the name (parameters too): two definitions spelled alike mean the same
        // thing (C's "identical redefinition", as headers sharing `#define GLOBAL_AS __global` do).
        let definition: Vec<String> = tokens.iter().skip(1).map(|t| t.text.clone()).collect();
        match self.macro_definitions.get(&name) {
            Some(earlier) if *earlier == definition => return,
            Some(_) => {
                self.redefined_macros.insert(name.clone());
            }
            None => {
                self.macro_definitions.insert(name.clone(), definition);
            }
        }
        let words = self.macro_words.entry(name.clone()).or_default();
        for t in tokens.iter().skip(1).filter(|t| t.kind == TokenKind::Identifier) {
            words.push(t.text.clone());
            self.syntax.macro_bodies.entry(t.text.clone()).or_insert_with(|| name.clone());
        }
        if c.is_function_like_macro() {
            self.macros.insert(name, None);
            return;
        }
        // The first token is the macro's own name.
        let body = tokens.iter().skip(1).map(|t| t.text.clone()).collect();
        self.macros.insert(name, Some(body));
    }

    /// What a macro expands to, for qualifiers: exactly one qualifier
    /// keyword (through chains of object-like macros), no address space at
    /// all (empty, `const`, a type such as `#define vtype uint4`), or
    /// something else (a space beside other words, a function-like macro).
    fn macro_meaning(&self, name: &str) -> MacroMeaning {
        let mut words = Vec::new();
        if !self.expand_words(name, &mut words, 0) {
            return MacroMeaning::Other;
        }
        let spaces: Vec<&String> =
            words.iter().filter(|w| Space::from_keyword(w).is_some() || KERNEL_WORDS.contains(&w.as_str())).collect();
        match (spaces.as_slice(), words.len()) {
            ([], _) => MacroMeaning::Empty,
            ([keyword], 1) => MacroMeaning::Keyword((*keyword).clone()),
            _ => MacroMeaning::Other,
        }
    }

    /// The words an object-like macro expands to, recursively; false when
    /// that cannot be known (a function-like macro, too deep).
    fn expand_words(&self, name: &str, out: &mut Vec<String>, depth: u32) -> bool {
        match self.macros.get(name) {
            Some(Some(body)) if depth < 16 => {
                for word in body {
                    if self.macros.contains_key(word) {
                        if !self.expand_words(word, out, depth + 1) {
                            return false;
                        }
                    } else {
                        out.push(word.clone());
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// The macro used at this token, if the token starts a macro expansion.
    fn macro_at(&mut self, token: &RawToken) -> Option<(String, u32)> {
        let file = self.file_id(token.start.file.as_deref()?);
        self.expansions.get(&(file, token.start.offset)).cloned()
    }

    /// Uses of a pointer that observe more than its value: `sizeof(p)` (its
    /// own size) and `(__global T *) p` (an explicit cast that names a space,
    /// which would turn into a generic-to-named cast if `p` became generic).
    fn find_observed_uses(&mut self, c: &Cursor) {
        let caller = if c.mangling().is_empty() { c.spelling() } else { c.mangling() };
        let mut called: HashSet<(FileId, u32)> = HashSet::new();
        let first_reference = self.syntax.references.len();
        let mut stack = c.children();
        while let Some(node) = stack.pop() {
            match node.kind() {
                CursorKind::DeclRefExpr => self.record_reference(&node, &caller),
                CursorKind::SizeofExpr => {
                    let first = self.tu.tokens(&node.extent()).into_iter().next();
                    if first.map(|t| t.text == "sizeof").unwrap_or(false) {
                        if let Some(key) = self.operand_decl(&node) {
                            self.sizeof_targets.insert(key);
                        }
                    }
                }
                CursorKind::CallExpr => {
                    if let Some(callee) = self.callee_name_at(&node) {
                        called.insert(callee);
                    }
                    self.record_unqualified_cast_args(&node);
                }
                CursorKind::CStyleCast => {
                    let ty = node.ty().canonical();
                    let named = (ty.kind() == TypeKind::Pointer).then(|| space_of(ty.pointee().address_space())).flatten();
                    if let (Some(space), Some(key)) = (named, self.operand_decl(&node)) {
                        self.cast_targets.entry(key).or_insert((space, node.location().line));
                    }
                }
                _ => {}
            }
            stack.extend(node.children());
        }
        let mine = &mut self.syntax.references[first_reference..];
        for reference in mine.iter_mut() {
            reference.called = called.contains(&(reference.range.file, reference.range.start));
        }
        mine.sort_by_key(|r| r.range);
    }

    /// A use of a function's name (a call's callee, or its address).
    fn record_reference(&mut self, node: &Cursor, caller: &str) {
        let Some(function) = node.referenced().filter(|d| d.kind() == CursorKind::FunctionDecl) else { return };
        let loc = node.location();
        let Some(file) = loc.file.as_deref() else { return };
        let file = self.file_id(file);
        let callee = function.spelling();
        let end = loc.offset + callee.len() as u32;
        // A name that a macro body produces is located at the macro's use (where an expansion
        // starts); one written in a macro's argument is located where it is written.
        let spelled = !self.expansions.contains_key(&(file, loc.offset));
        let mangled = function.mangling();
        self.syntax.references.push(FunctionRef {
            link_name: if mangled.is_empty() { callee.clone() } else { mangled },
            callee,
            range: ByteRange { file, start: loc.offset, end },
            called: false,
            spelled,
            caller: caller.to_string(),
        });
    }

    /// Where a call's callee names its function, through the implicit decay to a pointer.
    fn callee_name_at(&mut self, call: &Cursor) -> Option<(FileId, u32)> {
        let mut callee = call.children().into_iter().next();
        while let Some(node) = callee {
            match node.kind() {
                CursorKind::DeclRefExpr => {
                    let loc = node.location();
                    return Some((self.file_id(loc.file.as_deref()?), loc.offset));
                }
                CursorKind::Other(_) | CursorKind::ParenExpr if node.children().len() == 1 => {
                    callee = node.children().into_iter().next()
                }
                _ => return None,
            }
        }
        None
    }

    /// Arguments of a call written as a cast to a pointer type that spells no
    /// address space: such a cast makes a private pointer in 1.x and a generic
    /// one under 2.0, whatever its operand (`(uchar *)words`).
    fn record_unqualified_cast_args(&mut self, call: &Cursor) {
        let Some(callee) = call.referenced().filter(|d| d.kind() == CursorKind::FunctionDecl) else { return };
        for (index, arg) in call.children().into_iter().skip(1).enumerate() {
            let mut expr = Some(arg);
            while let Some(e) = expr.take() {
                match e.kind() {
                    CursorKind::ParenExpr | CursorKind::Other(_) if e.children().len() == 1 => {
                        expr = e.children().into_iter().next()
                    }
                    CursorKind::CStyleCast => {
                        if e.ty().canonical().kind() != TypeKind::Pointer {
                            break;
                        }
                        let tokens = self.tu.tokens(&e.extent());
                        // The type name: the tokens inside the cast's first parentheses.
                        let close = tokens.iter().position(|t| t.text == ")").unwrap_or(0);
                        let type_tokens: Vec<RawToken> = tokens.into_iter().take(close).skip(1).collect();
                        let spells_space = self.spelled_qualifiers(&type_tokens).into_iter().flatten().next().is_some();
                        if !spells_space {
                            let line = e.location().line;
                            self.syntax.unqualified_cast_args.push(UnqualifiedCastArg {
                                callee: callee.spelling(),
                                index: index as u32,
                                line,
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The declaration an expression's single operand names, through parentheses and implicit casts.
    fn operand_decl(&mut self, node: &Cursor) -> Option<(FileId, u32)> {
        let mut operand = node.children().into_iter().last();
        while let Some(inner) = operand {
            match inner.kind() {
                CursorKind::ParenExpr | CursorKind::Other(_) if inner.children().len() == 1 => {
                    operand = inner.children().into_iter().next();
                }
                CursorKind::DeclRefExpr => {
                    let loc = inner.referenced()?.location();
                    let id = self.file_id(loc.file.as_deref()?);
                    return Some((id, loc.offset));
                }
                _ => return None,
            }
        }
        None
    }

    /// The macro whose expansion contains the cursor's name, if any.
    fn enclosing_macro(&mut self, c: &Cursor) -> Option<String> {
        let loc = c.location();
        let file = self.file_id(loc.file.as_deref()?);
        self.expansions
            .iter()
            .filter(|((f, start), (_, end))| *f == file && *start <= loc.offset && loc.offset < (*end).max(*start + 1))
            .map(|(_, (name, _))| name.clone())
            .min()
    }

    fn function(&mut self, c: &Cursor, tokens: Vec<RawToken>) -> Function {
        let name = c.spelling();
        let mangled = c.mangling();
        let link_name = if mangled.is_empty() { name.clone() } else { mangled };
        let loc = c.location();
        let pos = self.pos(&loc);
        let extent = self.range(&c.extent());
        let in_macro = self.enclosing_macro(c);
        // Tokens before the name: specifiers and the return type.
        let head: Vec<RawToken> = tokens.iter().take_while(|t| t.start.offset < loc.offset).cloned().collect();
        let mut is_kernel = false;
        for t in &head {
            if KERNEL_WORDS.contains(&t.text.as_str()) {
                is_kernel = true;
            } else if let Some((m, _)) = self.macro_at(t) {
                if let MacroMeaning::Keyword(w) = self.macro_meaning(&m) {
                    is_kernel |= KERNEL_WORDS.contains(&w.as_str());
                }
            }
        }
        let mut pointers = Vec::new();
        let result = c.result_type();
        if result.canonical().kind() == TypeKind::Pointer {
            let hidden_typedef = self.typedefs_used(c).into_iter().find(|t| t.facts.spells_space).map(|t| t.facts.name);
            let levels = self.levels(&result, &head, hidden_typedef.as_deref());
            pointers.push(PointerDecl {
                kind: DeclKind::Return,
                name: "return".into(),
                pos,
                type_text: result.spelling(),
                levels,
                array: None,
                in_macro: in_macro.clone(),
                sizeof_used: false,
                cast_to: None,
            });
        }
        let mut param_count = 0;
        let children = c.children();
        for child in children.iter().filter(|k| k.kind() == CursorKind::ParmDecl) {
            let index = param_count;
            param_count += 1;
            if let Some(decl) = self.pointer_decl(child, DeclKind::Param(index)) {
                pointers.push(decl);
            }
        }
        let is_definition = c.is_definition();
        if is_definition {
            let mut stack: Vec<Cursor> = children.into_iter().filter(|k| k.kind() != CursorKind::ParmDecl).collect();
            let mut locals = Vec::new();
            while let Some(node) = stack.pop() {
                if node.kind() == CursorKind::VarDecl {
                    if let Some(decl) = self.pointer_decl(&node, DeclKind::Local) {
                        locals.push(decl);
                    }
                    // A `static` in a function lives at program scope (2.0; 1.2 has none).
                    if node.is_static() && in_macro.is_none() {
                        let v = self.program_var(&node, Some(&link_name));
                        self.syntax.program_vars.push(v);
                    }
                }
                stack.extend(node.children());
            }
            locals.sort_by_key(|d| d.pos);
            pointers.extend(locals);
        }
        // A helper that uses a macro defined twice (directly or through other macros) may mean
        // something else than a copy spelled the same: it is not compared (left empty).
        let comparable = is_definition && !is_kernel && !self.uses_redefined_macro(&tokens);
        let tokens = if comparable {
            // A new vector, not the raw tokens' buffer reused in place (three times the size, kept for the run).
            let mut kept = Vec::with_capacity(tokens.len());
            kept.extend(tokens.into_iter().filter(|t| t.kind != TokenKind::Comment).map(|t| SourceToken {
                text: t.text,
                start: t.start.offset,
                end: t.end.offset,
            }));
            kept
        } else {
            Vec::new()
        };
        Function {
            tokens,
            name,
            link_name: link_name.clone(),
            is_kernel,
            is_definition,
            is_overloadable: link_name.starts_with("_Z"),
            pos,
            extent,
            in_macro,
            param_count,
            pointers,
        }
    }

    /// Whether the tokens use, directly or through other macros' bodies, a macro defined more than once.
    fn uses_redefined_macro(&self, tokens: &[RawToken]) -> bool {
        if self.redefined_macros.is_empty() {
            return false;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = tokens.iter().filter(|t| t.kind == TokenKind::Identifier).map(|t| t.text.as_str()).collect();
        while let Some(word) = stack.pop() {
            let Some(body) = self.macro_words.get(word) else { continue };
            if !seen.insert(word) {
                continue;
            }
            if self.redefined_macros.contains(word) {
                return true;
            }
            stack.extend(body.iter().map(|w| w.as_str()));
        }
        false
    }

    fn range(&mut self, extent: &libclang::Extent) -> ByteRange {
        let (start, end) = (extent.start(), extent.end());
        let file = match &start.file {
            Some(f) => self.file_id(f),
            None => 0,
        };
        ByteRange { file, start: start.offset, end: end.offset }
    }

    /// A param or local of pointer (or array-parameter) type.
    fn pointer_decl(&mut self, c: &Cursor, kind: DeclKind) -> Option<PointerDecl> {
        let ty = c.ty();
        let canonical = ty.canonical();
        let is_pointer = canonical.kind() == TypeKind::Pointer;
        let is_array = canonical.is_array();
        let is_param = matches!(kind, DeclKind::Param(_));
        if !(is_pointer || (is_param && is_array)) {
            return None;
        }
        let tokens = self.tu.tokens(&c.extent());
        let loc = c.location();
        let name = c.spelling();
        let pos = self.pos(&loc);
        let in_macro = self.enclosing_macro(c);
        let sizeof_used = self.sizeof_targets.contains(&(pos.file, pos.offset));
        let cast_to = self.cast_targets.get(&(pos.file, pos.offset)).copied();
        // Split the tokens at the name; an unnamed parameter splits at its first `[`.
        let split = if name.is_empty() {
            tokens.iter().position(|t| t.text == "[").map(|i| (i, i))
        } else {
            tokens.iter().position(|t| t.start.offset == loc.offset && t.text == name).map(|i| (i, i + 1))
        };
        let (before, after): (&[RawToken], &[RawToken]) = match split {
            Some((b, a)) => (&tokens[..b], &tokens[a..]),
            None => (&tokens[..], &[]),
        };
        let typedefs = self.typedefs_used(c);
        // An array parameter decays to a pointer to private memory; clang may
        // report it either as the decayed pointer or as the array type.
        let mut array = None;
        if is_param && after.first().map(|t| t.text == "[").unwrap_or(false) {
            let close = after.iter().position(|t| t.text == "]")?;
            let file = self.file_id(after[0].start.file.as_deref().unwrap_or_default());
            let brackets = ByteRange { file, start: after[0].start.offset, end: after[close].end.offset };
            let name_start = if name.is_empty() { brackets.start } else { loc.offset };
            array = Some(ArrayDeclarator {
                spelled: after.iter().map(|t| t.text.as_str()).collect(),
                form: ArrayForm::Brackets {
                    brackets,
                    name_start,
                    more_dimensions: after.get(close + 1).map(|t| t.text == "[").unwrap_or(false),
                },
            });
        } else if is_param {
            // `const block_t d` with `typedef uint block_t[16]`.
            if let Some(t) = typedefs.iter().find(|t| t.facts.array_element.is_some()) {
                // `block_t d` -> `T *d`: the blanks up to the name go with the typedef's name.
                let mut name_range = t.used_at;
                let just_before_name = split.is_some()
                    && !name.is_empty()
                    && before.last().map(|last| last.start.offset == t.used_at.start).unwrap_or(false);
                if just_before_name {
                    name_range.end = loc.offset;
                }
                array = Some(ArrayDeclarator {
                    spelled: t.facts.name.clone(),
                    form: ArrayForm::Typedef { name: name_range, element: t.facts.array_element.clone().unwrap_or_default() },
                });
            }
        }
        let hidden_typedef = typedefs.iter().find(|t| t.facts.spells_space).map(|t| t.facts.name.clone());
        let levels = if is_array || array.is_some() {
            let element = if is_array { canonical.element() } else { canonical.pointee() };
            // The element's own qualifier, if spelled, is in the specifiers.
            let space = space_of(element.address_space()).unwrap_or(Space::Private);
            let spelling = match (self.spelled_qualifiers(before).into_iter().next().flatten(), &hidden_typedef) {
                (Some(spelled), _) => spelled,
                (None, Some(name)) => Spelling::Hidden { why: format!("typedef `{name}`") },
                (None, None) if array.is_none() => Spelling::Hidden { why: "array type not spelled at the declaration".into() },
                (None, None) => Spelling::Unqualified,
            };
            vec![Level { space, spelling }]
        } else {
            self.levels(&ty, before, hidden_typedef.as_deref())
        };
        Some(PointerDecl { kind, name, pos, type_text: ty.spelling(), levels, array, in_macro, sizeof_used, cast_to })
    }

    /// The typedefs a declaration's type names: where, whether their own
    /// text spells an address space, and the element type of an array typedef.
    fn typedefs_used(&mut self, c: &Cursor) -> Vec<TypedefUse> {
        let mut out = Vec::new();
        for child in c.children().into_iter().filter(|k| k.kind() == CursorKind::TypeRef) {
            let Some(decl) = child.referenced().filter(|d| d.kind() == CursorKind::TypedefDecl) else { continue };
            let extent = child.extent();
            let start = extent.start();
            let Some(file) = start.file.as_deref() else { continue };
            let used_at = ByteRange { file: self.file_id(file), start: start.offset, end: extent.end().offset };
            let facts = self.typedef_facts(&decl);
            out.push(TypedefUse { used_at, facts });
        }
        out
    }

    /// A typedef declaration's facts, read from its tokens the first time it is used.
    fn typedef_facts(&mut self, decl: &Cursor) -> TypedefFacts {
        let location = decl.location();
        let key = (self.file_id(location.file.as_deref().unwrap_or_default()), location.offset);
        if let Some(known) = self.typedef_facts.get(&key) {
            return known.clone();
        }
        let underlying = decl.typedef_underlying();
        let decl_tokens = self.tu.tokens(&decl.extent());
        let spells_space = underlying.canonical().kind() != TypeKind::Record
            && self.spelled_qualifiers(&decl_tokens).iter().flatten().next().is_some();
        let array_element = if underlying.is_array() {
            let element = underlying.element();
            (!element.canonical().is_array() && !spells_space).then(|| element.spelling())
        } else {
            None
        };
        let facts = TypedefFacts { name: decl.spelling(), spells_space, array_element };
        self.typedef_facts.insert(key, facts.clone());
        facts
    }

    /// The qualifier tokens in the specifier part, grouped by `*`:
    /// result[s] is the qualifier written after the s-th star (s = 0: before
    /// any star). `None` for a group with no qualifier token.
    fn spelled_qualifiers(&mut self, before: &[RawToken]) -> Vec<Option<Spelling>> {
        let mut groups: Vec<Option<Spelling>> = vec![None];
        for t in before {
            if t.kind == TokenKind::Punctuation && t.text == "*" {
                groups.push(None);
                continue;
            }
            if t.kind == TokenKind::Comment || t.kind == TokenKind::Literal {
                continue;
            }
            let file = t.start.file.as_deref().map(|f| f.to_string());
            let range = |me: &mut Self, end: u32| ByteRange {
                file: file.as_deref().map(|f| me.file_id(f)).unwrap_or(0),
                start: t.start.offset,
                end,
            };
            let spelling = if Space::from_keyword(&t.text).is_some() {
                Some(Spelling::Keyword { text: t.text.clone(), range: range(self, t.end.offset) })
            } else if let Some((name, end)) = self.macro_at(t) {
                match self.macro_meaning(&name) {
                    MacroMeaning::Keyword(k) if Space::from_keyword(&k).is_some() => {
                        Some(Spelling::MacroUse { name, keyword: k, range: range(self, end.max(t.end.offset)) })
                    }
                    MacroMeaning::Keyword(_) | MacroMeaning::Empty => None,
                    MacroMeaning::Other => Some(Spelling::Hidden { why: format!("macro `{name}`") }),
                }
            } else {
                None
            };
            if let Some(s) = spelling {
                let slot = groups.last_mut().unwrap();
                // A complex macro hides what the group means; keep the first hidden reason.
                if !matches!(slot, Some(Spelling::Hidden { .. })) {
                    *slot = Some(s);
                }
            }
        }
        groups
    }

    /// Levels of a pointer type, matched with the qualifiers spelled before the name.
    fn levels(&mut self, ty: &Type, before: &[RawToken], hidden_typedef: Option<&str>) -> Vec<Level> {
        // Semantic levels from clang's type.
        let mut semantic = Vec::new();
        let mut current = ty.canonical();
        while current.kind() == TypeKind::Pointer {
            let pointee = current.pointee();
            semantic.push(space_of(pointee.address_space()).unwrap_or(Space::Private));
            current = pointee.canonical();
        }
        let groups = self.spelled_qualifiers(before);
        let stars = groups.len() - 1;
        // `float (*m)[4]` (a pointer to an array) is the one parenthesised form read here.
        let to_array = ty.canonical().pointee().canonical().is_array();
        let parenthesised = !to_array && before.iter().any(|t| t.text == "(");
        // A macro that expands to more than a qualifier hides what the levels are spelled as.
        let hidden_macro = groups.iter().flatten().find(|s| matches!(s, Spelling::Hidden { .. })).cloned();
        semantic
            .iter()
            .enumerate()
            .map(|(i, space)| {
                // Level i (depth i+1) is qualified in group stars - (i + 1).
                let default_space = *space == Space::Private || *space == Space::Generic;
                let spelling = if parenthesised {
                    Spelling::Hidden { why: "parenthesised declarator".into() }
                } else if stars > i {
                    match &groups[stars - (i + 1)] {
                        Some(s) => s.clone(),
                        None if default_space && hidden_typedef.is_none() => Spelling::Unqualified,
                        None if hidden_typedef.is_some() && i == 0 => {
                            Spelling::Hidden { why: format!("typedef `{}`", hidden_typedef.unwrap_or_default()) }
                        }
                        None => Spelling::Hidden { why: "qualifier not spelled at the declaration".into() },
                    }
                } else if let Some(hidden) = &hidden_macro {
                    hidden.clone()
                } else if let Some(name) = hidden_typedef {
                    Spelling::Hidden { why: format!("typedef `{name}`") }
                } else if default_space {
                    Spelling::Unqualified
                } else {
                    Spelling::Hidden { why: "typedef".into() }
                };
                Level { space: *space, spelling }
            })
            .collect()
    }

    fn program_var(&mut self, c: &Cursor, function: Option<&str>) -> ProgramVar {
        let loc = c.location();
        let pos = self.pos(&loc);
        let ty = c.ty();
        let tokens: Vec<RawToken> = self.tu.tokens(&c.extent()).into_iter().take_while(|t| t.start.offset < loc.offset).collect();
        let groups = self.spelled_qualifiers(&tokens);
        let spelling = groups.first().cloned().flatten().unwrap_or(Spelling::Unqualified);
        // Where a missing qualifier goes: after the storage class, before the type.
        let type_start = tokens
            .iter()
            .find(|t| t.text != "static" && t.text != "extern")
            .filter(|t| t.start.file.is_some() && t.start.file == loc.file)
            .map(|t| (t.start.file.clone().unwrap_or_default(), t.start.offset, t.end.offset))
            .map(|(file, start, end)| ByteRange { file: self.file_id(&file), start, end });
        let name = c.spelling();
        ProgramVar {
            ir_name: function.map_or(name.clone(), |f| format!("{f}.{name}")),
            function: function.map(String::from),
            name,
            pos,
            space: space_of(ty.address_space()).unwrap_or(Space::Constant),
            type_text: ty.spelling(),
            spelling,
            initialized: c.has_initializer(),
            type_start,
        }
    }

    fn record_skipped(&mut self) {
        for extent in self.tu.skipped_ranges() {
            let range = self.range(&extent);
            let first_line = extent.start().line;
            let tokens = self.tu.tokens(&extent);
            let names_constant = |word: &str| Space::from_keyword(word) == Some(Space::Constant);
            let spells_constant = tokens.iter().any(|t| {
                let mut words = Vec::new();
                names_constant(&t.text) || (self.expand_words(&t.text, &mut words, 0) && words.iter().any(|w| names_constant(w)))
            });
            // `p[i]` and `p->f` only reach the pointee; `&p[i]` takes an address again.
            let text = |i: usize| tokens.get(i).map(|t| t.text.as_str());
            let mut escaping: Vec<String> = (0..tokens.len())
                .filter(|&i| tokens[i].kind == TokenKind::Identifier)
                .filter(|&i| !(matches!(text(i + 1), Some("[") | Some("->")) && (i == 0 || text(i - 1) != Some("&"))))
                .map(|i| tokens[i].text.clone())
                .collect();
            escaping.sort();
            escaping.dedup();
            let mut identifiers: Vec<String> =
                tokens.into_iter().filter(|t| t.kind == TokenKind::Identifier).map(|t| t.text).collect();
            identifiers.sort();
            identifiers.dedup();
            self.syntax.skipped.push(SkippedRange { range, first_line, identifiers, escaping, spells_constant });
        }
        self.syntax.skipped.sort_by_key(|s| s.range);
    }
}

/// Clang's language address-space numbers (`LangAS`) as seen through libclang.
fn space_of(lang_as: u32) -> Option<Space> {
    match lang_as {
        0 => None,
        1 => Some(Space::Global),
        2 => Some(Space::Local),
        3 => Some(Space::Constant),
        4 => Some(Space::Private),
        5 => Some(Space::Generic),
        _ => None,
    }
}
