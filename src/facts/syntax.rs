//! `KernelSyntax`: what one translation unit spells, as owned plain data.
//!
//! Produced by `parse` (libclang), consumed by every later stage. Byte
//! offsets index the original file text; every pointer declaration records,
//! for each level it points through, the address space clang gave it and
//! where (and whether) that qualifier is spelled.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Index into `KernelSyntax::files`; 0 is the main file.
pub type FileIndex = usize;

/// A position in a file: 1-based line and column, 0-based byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub file: FileIndex,
    pub line: u32,
    pub col: u32,
    pub offset: u32,
}

/// A byte range `[start, end)` in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ByteRange {
    pub file: FileIndex,
    pub start: u32,
    pub end: u32,
}

/// An OpenCL address space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    Private,
    Global,
    Constant,
    Local,
    Generic,
}

impl Space {
    pub fn keyword(self) -> &'static str {
        match self {
            Space::Private => "__private",
            Space::Global => "__global",
            Space::Constant => "__constant",
            Space::Local => "__local",
            Space::Generic => "generic",
        }
    }
    /// The space a qualifier keyword names (`__global` and `global` alike).
    pub fn from_keyword(word: &str) -> Option<Space> {
        match word.trim_start_matches("__") {
            "global" => Some(Space::Global),
            "local" => Some(Space::Local),
            "constant" => Some(Space::Constant),
            "private" => Some(Space::Private),
            "generic" => Some(Space::Generic),
            _ => None,
        }
    }
    /// Named spaces that OpenCL 2.0 includes in the generic space.
    pub fn converts_to_generic(self) -> bool {
        matches!(self, Space::Private | Space::Global | Space::Local | Space::Generic)
    }
}

/// How one pointer level's address space is spelled in the source.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Spelling {
    /// No qualifier: private in 1.x, generic in 2.0 (or an empty macro).
    Unqualified,
    /// A qualifier keyword at `range`.
    Keyword { text: String, range: ByteRange },
    /// A macro use at `range` that expands to exactly the qualifier `keyword`.
    MacroUse { name: String, keyword: String, range: ByteRange },
    /// A qualifier keyword written inside a macro: in its definition's body, or
    /// in an argument of one of its uses (`range`), reaching this declaration
    /// through the macro use at `expansion`. Editable there only where every
    /// expansion of that token agrees (`KernelSyntax::macro_sites`).
    MacroSite { site: MacroSite, keyword: String, expansion: ByteRange },
    /// Not editable at the declaration: comes from a typedef or a macro body.
    Hidden { why: String },
}

impl Spelling {
    /// Where the qualifier is written at the declaration itself.
    pub fn range(&self) -> Option<ByteRange> {
        match self {
            Spelling::Keyword { range, .. } | Spelling::MacroUse { range, .. } => Some(*range),
            _ => None,
        }
    }

    /// Where removing the qualifier takes an edit: at the declaration, or inside a macro.
    pub fn edit_range(&self) -> Option<ByteRange> {
        match self {
            Spelling::MacroSite { site, .. } => Some(site.range),
            _ => self.range(),
        }
    }
}

/// Where inside a macro a qualifier token is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    /// In the macro's definition: every expansion of the macro has it.
    Body,
    /// In an argument of one use of the macro: that expansion only.
    Argument,
}

/// A qualifier token inside a macro: the macro, where the token is written, and how.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MacroSite {
    pub macro_name: String,
    pub kind: SiteKind,
    pub range: ByteRange,
}

/// What a unit's expansions say about one macro site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteFacts {
    pub site: MacroSite,
    /// An expansion (or `#if`-skipped use) where the token is not the first-level
    /// qualifier of a pointer declaration: the site cannot change, and why.
    pub disagreement: Option<String>,
}

/// One level of a pointer declaration: the space of what it points to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Level {
    pub space: Space,
    pub spelling: Spelling,
}

/// What kind of pointer declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "index", rename_all = "snake_case")]
pub enum DeclKind {
    /// The n-th parameter (0-based).
    Param(u32),
    Local,
    Return,
}

/// An array parameter (`const uchar d[64]`): a pointer to private memory even in 2.0.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArrayDeclarator {
    /// How the array is spelled, for messages: `[64]`, or the typedef's name.
    pub spelled: String,
    pub form: ArrayForm,
}

/// Where an array parameter's array-ness is written, so it can become a pointer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum ArrayForm {
    /// `T name[N]`: the brackets after the name.
    Brackets {
        brackets: ByteRange,
        /// Where a `*` goes: just before the name (or the `[` when unnamed).
        name_start: u32,
        /// More `[...]` follow (`float m[4][4]`): the pointer needs parentheses, `(*m)[4]`.
        more_dimensions: bool,
    },
    /// `const block_t name` with `typedef T block_t[N]`: the typedef's name
    /// becomes `T *`, `element` being how the typedef spells `T`.
    Typedef { name: ByteRange, element: String },
}

/// A declaration of pointer type inside a function: param, local or return.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PointerDecl {
    pub kind: DeclKind,
    /// The declared name (`return` for returns).
    pub name: String,
    pub pos: Pos,
    /// The type as clang spells it.
    pub type_text: String,
    /// `levels[0]` is the space of what the pointer points to, `levels[1]` one further.
    pub levels: Vec<Level>,
    pub array: Option<ArrayDeclarator>,
    /// The macro whose expansion produced the declaration, if any.
    pub in_macro: Option<String>,
    /// `sizeof(p)` is taken somewhere: the pointer's own size is observed.
    pub sizeof_used: bool,
    /// Explicit casts of its value, or of a pointer derived from it, to a
    /// pointer into a named space, in source order.
    pub casts: Vec<NamedCast>,
}

/// An explicit cast to a pointer into a named space (`(__global uint *)(p + 4)`)
/// whose operand is a declaration's value or derived from it: pointer
/// arithmetic, an element's address, a step, other casts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NamedCast {
    /// The space the cast's type points into.
    pub space: Space,
    /// Where the cast is (its file and line), for messages.
    pub file: FileIndex,
    pub line: u32,
    /// How the cast's type spells that space: the qualifier a migration
    /// removes with the declaration's, so that the cast only retypes.
    pub spelling: Spelling,
}

/// A function: kernel or helper, definition or prototype.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    /// The symbol name in the IR (mangled when `overloadable`).
    pub link_name: String,
    pub is_kernel: bool,
    pub is_definition: bool,
    pub is_overloadable: bool,
    pub pos: Pos,
    pub extent: ByteRange,
    pub in_macro: Option<String>,
    pub param_count: u32,
    /// Shared: a decision about one holds it too, and a header function
    /// replayed in many units holds the same ones.
    pub pointers: Vec<std::sync::Arc<PointerDecl>>,
    /// A helper definition's tokens as written (comments left out), to find
    /// definitions that differ only in address spaces; empty for kernels,
    /// prototypes and helpers using a macro the unit defines twice. Shared:
    /// every unit including a header holds one copy of each of its helpers'
    /// tokens (see `parse::function`).
    #[serde(skip)]
    pub tokens: std::sync::Arc<[SourceToken]>,
}

/// A token as written: its text and byte range in its function's file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceToken {
    pub text: String,
    pub start: u32,
    pub end: u32,
}

/// A use of a function's name in code: a call, or (never in valid OpenCL C) its address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FunctionRef {
    /// The named function's name and IR name.
    pub callee: String,
    pub link_name: String,
    /// Where the name is (for a name that a macro body produces: the macro's use).
    pub range: ByteRange,
    /// It is the callee of a call.
    pub called: bool,
    /// The source has the callee's name there (it is not produced by a macro body).
    pub spelled: bool,
    /// The IR name of the function whose body has it.
    pub caller: String,
}

/// A unit's identifiers: the words of the header functions whose walks it
/// shares with other units (one set for every unit sharing the same walks),
/// and its own other words.
#[derive(Clone, Default)]
pub struct Identifiers {
    own: BTreeSet<String>,
    shared: std::sync::Arc<BTreeSet<String>>,
}

impl Identifiers {
    pub fn contains(&self, word: &str) -> bool {
        self.own.contains(word) || self.shared.contains(word)
    }

    /// Every word once, in order.
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.own.union(&self.shared)
    }

    pub fn insert(&mut self, word: String) {
        self.own.insert(word);
    }

    pub fn extend(&mut self, words: impl IntoIterator<Item = String>) {
        self.own.extend(words);
    }

    /// Makes `shared` the shared words; the unit's own keep only what it does not hold.
    pub fn share(&mut self, shared: std::sync::Arc<BTreeSet<String>>) {
        self.own.retain(|word| !shared.contains(word));
        self.shared = shared;
    }

    /// The unit's own words and the shared ones, as they are held (to store them so).
    pub fn parts(&self) -> (&BTreeSet<String>, &std::sync::Arc<BTreeSet<String>>) {
        (&self.own, &self.shared)
    }

    /// The words held as `parts` gave them.
    pub fn from_parts(own: BTreeSet<String>, shared: std::sync::Arc<BTreeSet<String>>) -> Identifiers {
        Identifiers { own, shared }
    }
}

impl std::fmt::Debug for Identifiers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// A unit's uses of function names, in walk order: runs of them shared with
/// every unit that replays the same header function's walk (one value for
/// the batch), and the unit's own, still open to the walk.
#[derive(Debug, Clone, Default)]
pub struct References {
    sealed: Vec<std::sync::Arc<[FunctionRef]>>,
    open: Vec<FunctionRef>,
}

impl References {
    pub fn iter(&self) -> impl Iterator<Item = &FunctionRef> + Clone {
        self.sealed.iter().flat_map(|run| run.iter()).chain(&self.open)
    }

    pub fn len(&self) -> usize {
        self.sealed.iter().map(|run| run.len()).sum::<usize>() + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn push(&mut self, reference: FunctionRef) {
        self.open.push(reference);
    }

    /// The references pushed since the last `seal`, to amend while a walk records them.
    pub fn open_mut(&mut self) -> &mut Vec<FunctionRef> {
        &mut self.open
    }

    /// Closes the open references into a run of their own, and returns it
    /// (empty when none was open), for other units to share.
    pub fn seal(&mut self) -> std::sync::Arc<[FunctionRef]> {
        let run: std::sync::Arc<[FunctionRef]> = std::mem::take(&mut self.open).into();
        if !run.is_empty() {
            self.sealed.push(run.clone());
        }
        run
    }

    /// Appends a run another unit sealed.
    pub fn extend_shared(&mut self, run: &std::sync::Arc<[FunctionRef]>) {
        self.seal();
        if !run.is_empty() {
            self.sealed.push(run.clone());
        }
    }

    /// The sealed runs and the open references, as they are held (to store them so).
    pub fn runs(&self) -> (&[std::sync::Arc<[FunctionRef]>], &[FunctionRef]) {
        (&self.sealed, &self.open)
    }

    /// The sealed runs, to share each with an equal run of another unit.
    pub fn sealed_mut(&mut self) -> &mut [std::sync::Arc<[FunctionRef]>] {
        &mut self.sealed
    }

    /// The references held as `runs` gave them (empty runs are never held).
    pub fn from_runs(sealed: Vec<std::sync::Arc<[FunctionRef]>>, open: Vec<FunctionRef>) -> References {
        References { sealed: sealed.into_iter().filter(|run| !run.is_empty()).collect(), open }
    }
}

impl Serialize for References {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// A program-scope variable, or a `static` one in a function (same rules in 2.0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramVar {
    pub name: String,
    /// Its name in the IR: `name`, or `function.name` for a `static` in a function.
    pub ir_name: String,
    /// The function declaring it `static` (its IR name), if any.
    pub function: Option<String>,
    pub pos: Pos,
    pub space: Space,
    pub type_text: String,
    pub spelling: Spelling,
    pub initialized: bool,
    /// Where a qualifier would go: the first token after `static`/`extern` (file, offset).
    pub type_start: Option<ByteRange>,
}

/// A range the preprocessor skipped, with the identifiers written in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SkippedRange {
    pub range: ByteRange,
    pub first_line: u32,
    pub identifiers: Vec<String>,
    /// Identifiers used there other than to reach what they point to (`p[i]`,
    /// `p->f`): passed, assigned, cast, compared, taken the address of.
    pub escaping: Vec<String>,
    /// It spells `__constant`: with a keyword, or a macro whose expansion has it.
    pub spells_constant: bool,
    /// Its branches (one per `#if`/`#elif`/`#else` it holds at its own
    /// level): what configuration discovery reads to enable it.
    pub branches: Vec<SkippedBranch>,
}

/// One branch of skipped text: the condition under which the build would
/// take it, and the macros it `#define`s (outside blocks nested in it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SkippedBranch {
    /// As a condition reads it: its own test and the negation of each test
    /// before it in its chain (`#else` after `#ifdef X`: `! ( defined X )`).
    pub condition: Vec<String>,
    /// A condition testing one of these is met by taking this branch
    /// (`#if NEW_PART` / `#define FAST_PATH` / `#endif`).
    pub defines: Vec<String>,
}

/// A macro as an `#if` condition reads it: parameters (function-like) and body tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionMacro {
    pub params: Option<Vec<String>>,
    pub body: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// A compiler diagnostic with its position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{}:{}:{}: {sev}: {}", self.file.display(), self.line, self.col, self.message)
    }
}

/// A call argument written as a cast to an unqualified pointer type
/// (`f((uchar *)buf)`): private in 1.x, generic under 2.0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnqualifiedCastArg {
    /// The called function's name.
    pub callee: String,
    /// The argument's index (0-based).
    pub index: u32,
    pub line: u32,
}

/// Everything `parse` learns about one translation unit.
#[derive(Debug, Clone, Default, Serialize)]
pub struct KernelSyntax {
    /// Files of the unit as clang names them; `files[0]` is the main file.
    pub files: Vec<PathBuf>,
    /// Shared: a header function's walk replayed in every unit including it is one value.
    pub functions: Vec<std::sync::Arc<Function>>,
    pub program_vars: Vec<ProgramVar>,
    /// (A header's, equal in every unit including it alike, is one value for the batch.)
    pub skipped: Vec<std::sync::Arc<SkippedRange>>,
    pub diagnostics: Vec<Diagnostic>,
    pub unqualified_cast_args: Vec<UnqualifiedCastArg>,
    /// Every use of a function's name in a function body, in walk order.
    pub references: References,
    /// Qualifier tokens inside macros that declarations spell through, by where they are written.
    pub macro_sites: BTreeMap<ByteRange, SiteFacts>,
    /// Object-like macros that expand to exactly one address-space keyword (`GLOBAL` -> global).
    pub qualifier_macros: BTreeMap<String, Space>,
    /// Identifier -> the first macro (by name) whose definition names it.
    #[serde(skip)]
    pub macro_bodies: BTreeMap<String, String>,
    /// The macros the unit defines once (never redefined) that the
    /// conditions of its `#if`-skipped code use, directly or through
    /// other macros: what configuration discovery expands them with.
    #[serde(skip)]
    pub condition_macros: BTreeMap<String, ConditionMacro>,
    /// Identifiers the unit writes: in function definitions, macros and `#if`-skipped text, and the names of its other top-level declarations.
    #[serde(skip)]
    pub identifiers: Identifiers,
}

impl KernelSyntax {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error)
    }
    pub fn function(&self, link_name: &str) -> Option<&Function> {
        // Prefer the definition over prototypes.
        let mut found = None;
        for f in self.functions.iter().map(|f| &**f).filter(|f| f.link_name == link_name) {
            if f.is_definition {
                return Some(f);
            }
            found.get_or_insert(f);
        }
        found
    }
}

/// Whether a type as clang spells it is `const`-qualified at some level.
pub fn says_const(type_text: &str) -> bool {
    type_text.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "const")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn reference(callee: &str, start: u32) -> FunctionRef {
        let range = ByteRange { file: 0, start, end: start + callee.len() as u32 };
        let (callee, caller) = (callee.to_string(), "k".to_string());
        FunctionRef { link_name: callee.clone(), callee, range, called: true, spelled: true, caller }
    }

    /// Shared runs and the unit's own references read back in the order they were added.
    #[test]
    fn references_keep_the_walk_order_across_shared_runs() {
        let mut walked = References::default();
        walked.push(reference("a", 1));
        let header = walked.seal();
        let mut unit = References::default();
        unit.push(reference("own", 0));
        unit.extend_shared(&header);
        unit.push(reference("b", 9));
        unit.open_mut()[0].called = false;
        let names: Vec<&str> = unit.iter().map(|r| r.callee.as_str()).collect();
        assert_eq!(names, ["own", "a", "b"]);
        assert_eq!(unit.len(), 3);
        // The open reference amended is the unit's own ("b"), not the shared run's.
        assert!(!unit.iter().nth(2).unwrap().called && header[0].called);
        assert_eq!(serde_json::to_value(&unit).unwrap().as_array().map(|a| a.len()), Some(3));
    }

    /// Words given to `share` leave the unit's own set; every word is still found, once.
    #[test]
    fn identifiers_shared_and_own_are_one_set() {
        let mut words = Identifiers::default();
        words.extend(["mine", "both"].map(String::from));
        words.share(Arc::new(["both", "header"].map(String::from).into()));
        assert!(["mine", "both", "header"].iter().all(|w| words.contains(w)));
        assert!(!words.contains("other"));
        assert_eq!(words.iter().collect::<Vec<_>>(), ["both", "header", "mine"]);
        assert_eq!(words.own.len(), 1);
    }
}
