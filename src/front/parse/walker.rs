//! The walk over one translation unit's top level, in stages: diagnostics,
//! then macros and includes (declarations refer to them), then the uses
//! that observe pointers (declarations read them), then the declarations
//! themselves, then what the preprocessor skipped and what macros spell.
//!
//! `Walker`'s state lives here; its methods are spread over the sibling
//! modules by what they read, hence the `pub(super)` fields.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::expand::{MacroDef, Token};
use super::libclang::{Cursor, CursorKind, Extent, FileLoc, RawDiagnostic, TokenKind, TranslationUnit};
use super::memo::{self, Added, Key, Stage};
use super::preamble::Preamble;
use super::shared::Neighbours;
use super::shared::TypedefFacts;
use crate::facts::syntax::*;

pub(super) struct Walker<'t, 'i> {
    pub(super) tu: &'t TranslationUnit<'i>,
    pub(super) syntax: KernelSyntax,
    pub(super) file_indexes: HashMap<String, FileIndex>,
    /// Each file's index by its canonical path: libclang names one file two
    /// ways in a unit parsed against a precompiled preamble (the preamble's
    /// own `#if`-skipped ranges carry the path it was built with).
    canonical_indexes: HashMap<PathBuf, FileIndex>,
    /// Macro name -> body tokens (object-like macros only; function-like map to `None`).
    pub(super) macros: HashMap<String, Option<Vec<String>>>,
    /// (file, start offset) of each macro use -> (macro name, end offset).
    pub(super) expansions: HashMap<(FileIndex, u32), (String, u32)>,
    /// Each macro use by (file, start offset), to read its tokens again.
    pub(super) expansion_cursors: HashMap<(FileIndex, u32), Cursor<'t>>,
    /// What each macro use expands to, once asked (`None`: not modelled).
    pub(super) expanded_uses: HashMap<(FileIndex, u32), Option<std::sync::Arc<[Token]>>>,
    /// Macro name -> its first definition, to expand uses with provenance.
    pub(super) macro_defs: HashMap<String, MacroDef>,
    /// Per file, the macro uses that expand to nothing, by start offset: (end offset, the use).
    /// A declaration's extent takes those around it (`extent`).
    pub(super) empty_uses: HashMap<FileIndex, BTreeMap<u32, (u32, Cursor<'t>)>>,
    /// Macro name -> the identifiers its definitions' bodies name (function-like ones too).
    pub(super) macro_words: HashMap<String, Vec<String>>,
    /// Macro name -> its first definition's tokens after the name.
    pub(super) macro_definitions: HashMap<String, Vec<String>>,
    /// Macros defined more than once, differently, in the unit: the same spelling can mean two things.
    pub(super) redefined_macros: HashSet<String>,
    /// Declarations whose own size is taken (`sizeof(p)`), by (file, offset).
    pub(super) sizeof_targets: HashSet<(FileIndex, u32)>,
    /// Declarations whose value, or a pointer derived from it, is cast
    /// explicitly to a pointer into a named space (`(__global uint *)(p + 1)`),
    /// by (file, offset): the casts, in source order.
    pub(super) cast_targets: HashMap<(FileIndex, u32), Vec<NamedCast>>,
    /// What each typedef declaration (by file, offset) spells, read once.
    pub(super) typedef_facts: HashMap<(FileIndex, u32), TypedefFacts>,
    /// The unit's preamble, when its header functions' walks may be shared (`memo`).
    preamble: Option<Preamble>,
    /// The files the preamble includes (directly or not).
    preamble_files: HashSet<FileIndex>,
    /// The unit's context for shared walks, once its preprocessing is recorded.
    context: Option<u64>,
    /// The files met so far but the main file, hashed in order (a file's index is its place).
    files_hash: u64,
    /// While a shareable function is walked: what the walk adds beyond the syntax's vectors.
    pub(super) capture: Option<Added>,
    /// The words of the shared walks met (made or replayed), in order.
    shared_words: Vec<std::sync::Arc<[String]>>,
}

impl<'t, 'i> Walker<'t, 'i> {
    pub(super) fn new(tu: &'t TranslationUnit<'i>, main: &Path, preamble: Option<Preamble>) -> Self {
        let mut walker = Walker {
            tu,
            syntax: KernelSyntax::default(),
            file_indexes: HashMap::new(),
            canonical_indexes: HashMap::new(),
            macros: HashMap::new(),
            expansions: HashMap::new(),
            expansion_cursors: HashMap::new(),
            expanded_uses: HashMap::new(),
            macro_defs: HashMap::new(),
            empty_uses: HashMap::new(),
            macro_words: HashMap::new(),
            macro_definitions: HashMap::new(),
            redefined_macros: HashSet::new(),
            sizeof_targets: HashSet::new(),
            cast_targets: HashMap::new(),
            typedef_facts: HashMap::new(),
            preamble,
            preamble_files: HashSet::new(),
            context: None,
            files_hash: 0,
            capture: None,
            shared_words: Vec::new(),
        };
        walker.file_index(&main.to_string_lossy());
        walker
    }

    /// A file's id, numbered in the order files are first met (the main file
    /// is 0); another name of a file met before is that file.
    pub(super) fn file_index(&mut self, name: &str) -> FileIndex {
        if let Some(id) = self.file_indexes.get(name) {
            return *id;
        }
        let canonical = crate::support::overlay::canonical(Path::new(name));
        if let Some(&id) = self.canonical_indexes.get(&canonical) {
            self.file_indexes.insert(name.to_string(), id);
            return id;
        }
        let id = self.syntax.files.len();
        self.canonical_indexes.insert(canonical, id);
        self.syntax.files.push(PathBuf::from(name));
        self.file_indexes.insert(name.to_string(), id);
        // The main file (0) aside: its name differs from unit to unit, its index never.
        if id > 0 {
            self.files_hash = crate::support::ids::hash_of(&(self.files_hash, name));
        }
        if let Some(capture) = self.capture.as_mut() {
            capture.files.push(name.to_string());
        }
        id
    }

    pub(super) fn pos(&mut self, loc: &FileLoc) -> Pos {
        let file = match &loc.file {
            Some(f) => self.file_index(f),
            None => 0,
        };
        Pos { file, line: loc.line, col: loc.column, offset: loc.offset }
    }

    pub(super) fn range(&mut self, extent: &Extent) -> ByteRange {
        let (start, end) = (extent.start(), extent.end());
        let file = match &start.file {
            Some(f) => self.file_index(f),
            None => 0,
        };
        ByteRange { file, start: start.offset, end: end.offset }
    }

    /// The stages in order. File ids are handed out as files are first met,
    /// so the order of the stages is part of the output.
    pub(super) fn run(mut self) -> KernelSyntax {
        let diagnostics = diagnostics(self.tu.diagnostics(), &self.syntax.files[0]);
        self.syntax.diagnostics.extend(diagnostics);
        let top = self.tu.cursor().children();
        // Macros and includes first: declarations refer to them.
        self.record_preprocessing(&top);
        self.context = self.sharing_context();
        for c in &top {
            if c.kind() == CursorKind::FunctionDecl && !c.in_system_header() && c.location().file.is_some() {
                match self.shared_key(c, Stage::Uses) {
                    Some(key) => self.shared_walk(key, |walker| walker.find_observed_uses(c)),
                    None => self.find_observed_uses(c),
                }
            }
        }
        self.record_declarations(&top);
        self.record_skipped();
        self.record_macro_sites();
        self.finish()
    }

    /// Macro definitions, macro uses and included files.
    fn record_preprocessing(&mut self, top: &[Cursor<'t>]) {
        for c in top {
            match c.kind() {
                CursorKind::MacroDefinition if !c.in_system_header() => self.record_macro(c),
                CursorKind::MacroExpansion => self.record_expansion(c),
                CursorKind::InclusionDirective => {
                    if let Some(f) = c.included_file() {
                        let included = self.file_index(&f);
                        if self.in_preamble(&c.location()) {
                            self.preamble_files.insert(included);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Functions and program-scope variables of the unit's own files, and
    /// every top-level name.
    fn record_declarations(&mut self, top: &[Cursor<'t>]) {
        let neighbours = super::shared::neighbours(top);
        for (c, &around) in top.iter().zip(&neighbours) {
            if c.in_system_header() || c.location().file.is_none() {
                continue;
            }
            match c.kind() {
                CursorKind::FunctionDecl => match self.shared_key(c, Stage::Declaration) {
                    Some(key) => self.shared_walk(key, |walker| walker.record_function(c, around)),
                    None => self.record_function(c, around),
                },
                CursorKind::VarDecl => match self.shared_key(c, Stage::Variable) {
                    Some(key) => self.shared_walk(key, |walker| walker.record_program_var(c, around)),
                    None => self.record_program_var(c, around),
                },
                _ => {}
            }
            // Other declarations' names (types, variables): their bodies name nothing a new function could clash with.
            self.syntax.identifiers.insert(c.spelling());
        }
    }

    /// A function definition or declaration, and the words it writes.
    fn record_function(&mut self, c: &Cursor<'t>, around: Neighbours<'t>) {
        let extent = self.declaration_extent(c, around, c.is_definition());
        let tokens = self.tu.tokens(&extent);
        let words: Vec<String> = tokens.iter().filter(|t| t.kind == TokenKind::Identifier).map(|t| t.text.clone()).collect();
        match self.capture.as_mut() {
            Some(capture) => {
                capture.identifiers = memo::intern_words(words);
                self.shared_words.push(capture.identifiers.clone());
            }
            None => self.syntax.identifiers.extend(words),
        }
        let f = std::sync::Arc::new(self.function(c, &extent, tokens));
        if let Some(capture) = self.capture.as_mut() {
            capture.function = Some(f.clone());
        }
        self.syntax.functions.push(f);
    }

    fn record_program_var(&mut self, c: &Cursor<'t>, around: Neighbours<'t>) {
        let v = self.program_var(c, around, None);
        self.syntax.program_vars.push(v);
    }

    /// Whether a place is in the unit's preamble: its main file's first bytes, or a file the preamble includes.
    fn in_preamble(&self, loc: &FileLoc) -> bool {
        let Some(preamble) = self.preamble.as_ref() else { return false };
        let Some(file) = loc.file.as_deref().and_then(|f| self.file_indexes.get(f)) else { return false };
        (*file == 0 && loc.offset < preamble.size) || self.preamble_files.contains(file)
    }

    /// The unit's context for shared walks (see `memo`): its preamble, its
    /// other files as they are on disk, and every macro it defines.
    fn sharing_context(&self) -> Option<u64> {
        let preamble = self.preamble.as_ref()?;
        if self.preamble_files.is_empty() {
            return None;
        }
        let stamps: Vec<_> = self.syntax.files[1..].iter().map(|f| crate::support::ids::stamp(f)).collect();
        let definitions: std::collections::BTreeMap<_, _> = self.macro_definitions.iter().collect();
        let words: std::collections::BTreeMap<_, _> = self.macro_words.iter().collect();
        let redefined: std::collections::BTreeSet<_> = self.redefined_macros.iter().collect();
        // Not the main file's name: facts name their files by index, the main file is 0 in every unit.
        Some(crate::support::ids::hash_of(&(preamble.identity, &self.syntax.files[1..], stamps, definitions, words, redefined)))
    }

    /// The key of a function's walk at `stage`, when it is in a file the preamble includes.
    fn shared_key(&self, c: &Cursor, stage: Stage) -> Option<Key> {
        let context = self.context?;
        let loc = c.location();
        // A file the preamble includes (never the main file, whose preamble holds no function).
        let file = *self.file_indexes.get(loc.file.as_deref()?)?;
        if !self.preamble_files.contains(&file) {
            return None;
        }
        let mangled = c.mangling();
        let name = if mangled.is_empty() { c.spelling() } else { mangled };
        let preamble = self.preamble.as_ref()?.identity;
        Some(Key { preamble, context, files: self.files_hash, file, offset: loc.offset, name, stage })
    }

    /// `walk` done by an earlier unit replayed, or done here and kept.
    fn shared_walk(&mut self, key: Key, walk: impl FnOnce(&mut Self)) {
        if let Some(added) = memo::find(&key) {
            self.replay(&added);
            return;
        }
        // The walk's references are a run of their own, kept once for every unit replaying it.
        self.syntax.references.seal();
        let (casts, vars) = (self.syntax.unqualified_cast_args.len(), self.syntax.program_vars.len());
        self.capture = Some(Added::default());
        walk(self);
        let references = self.syntax.references.seal();
        let Some(mut added) = self.capture.take() else { return };
        added.references = references;
        added.unqualified_cast_args = self.syntax.unqualified_cast_args[casts..].to_vec();
        added.program_vars = self.syntax.program_vars[vars..].to_vec();
        memo::keep(key, added);
    }

    /// What a shared walk added, added again in the same order.
    fn replay(&mut self, added: &Added) {
        for file in &added.files {
            self.file_index(file);
        }
        self.syntax.references.extend_shared(&added.references);
        self.syntax.unqualified_cast_args.extend(added.unqualified_cast_args.iter().cloned());
        self.sizeof_targets.extend(added.sizeof_targets.iter().copied());
        for (key, cast) in &added.cast_targets {
            self.cast_targets.entry(*key).or_default().push(cast.clone());
        }
        self.shared_words.push(added.identifiers.clone());
        self.syntax.functions.extend(added.function.iter().cloned());
        self.syntax.program_vars.extend(added.program_vars.iter().cloned());
    }

    /// The names skipped text and macros use, and the macros that spell a qualifier.
    fn finish(mut self) -> KernelSyntax {
        for skipped in &self.syntax.skipped {
            self.syntax.identifiers.extend(skipped.identifiers.iter().cloned());
        }
        self.record_qualifier_macros();
        self.syntax.identifiers.extend(self.macro_words.keys().cloned());
        self.syntax.identifiers.extend(self.macro_words.values().flatten().cloned());
        if !self.shared_words.is_empty() {
            self.syntax.identifiers.share(memo::shared_words(&self.shared_words));
        }
        // Kept for the whole run, once per unit: no growth slack.
        self.syntax.functions.shrink_to_fit();
        self.syntax.references.seal();
        self.syntax.program_vars.shrink_to_fit();
        self.syntax.skipped.shrink_to_fit();
        self.syntax
    }
}

/// The libclang diagnostics worth keeping (warnings and errors, not notes),
/// each with a place in a file.
///
/// clang stops a unit at its first fatal error (a missing `#include`);
/// libclang, asked to keep going, goes on and reports what cascades from it
/// (every name the header would have declared): those are left out. A
/// diagnostic in no file is placed where clang was: "too many errors
/// emitted" at the error before it; the options' own (a bad `-D`, a missing
/// `-include` file), which come first, at the unit's first line, saying
/// `<command line>` as clang does.
fn diagnostics(raw: Vec<RawDiagnostic>, main: &Path) -> Vec<Diagnostic> {
    // libclang severities: 2 warning, 3 error, 4 fatal.
    let end = raw.iter().position(|d| d.severity >= 4).map_or(raw.len(), |fatal| fatal + 1);
    let mut kept: Vec<Diagnostic> = Vec::new();
    for d in raw.into_iter().take(end) {
        let severity = match d.severity {
            2 => Severity::Warning,
            s if s >= 3 => Severity::Error,
            _ => continue,
        };
        let diagnostic = match d.loc.file.as_deref() {
            Some(file) => {
                Diagnostic { severity, message: d.message, file: PathBuf::from(file), line: d.loc.line, col: d.loc.column }
            }
            None => match kept.last() {
                Some(before) => Diagnostic { severity, message: d.message, ..before.clone() },
                None => {
                    let message = format!("<command line>: {}", d.message);
                    Diagnostic { severity, message, file: main.to_path_buf(), line: 1, col: 1 }
                }
            },
        };
        kept.push(diagnostic);
    }
    kept
}
