//! The walk over one translation unit's top level, in stages: diagnostics,
//! then macros and includes (declarations refer to them), then the uses
//! that observe pointers (declarations read them), then the declarations
//! themselves, then what the preprocessor skipped and what macros spell.
//!
//! `Walker`'s state lives here; its methods are spread over the sibling
//! modules by what they read, hence the `pub(super)` fields.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::declarator::TypedefFacts;
use super::libclang::{Cursor, CursorKind, Extent, FileLoc, RawDiagnostic, TokenKind, TranslationUnit};
use crate::syntax::*;

pub(super) struct Walker<'t, 'i> {
    pub(super) tu: &'t TranslationUnit<'i>,
    pub(super) syntax: KernelSyntax,
    pub(super) file_indexes: HashMap<String, FileIndex>,
    /// Macro name -> body tokens (object-like macros only; function-like map to `None`).
    pub(super) macros: HashMap<String, Option<Vec<String>>>,
    /// (file, start offset) of each macro use -> (macro name, end offset).
    pub(super) expansions: HashMap<(FileIndex, u32), (String, u32)>,
    /// Macro name -> the identifiers its definitions' bodies name (function-like ones too).
    pub(super) macro_words: HashMap<String, Vec<String>>,
    /// Macro name -> its first definition's tokens after the name.
    pub(super) macro_definitions: HashMap<String, Vec<String>>,
    /// Macros defined more than once, differently, in the unit: the same spelling can mean two things.
    pub(super) redefined_macros: HashSet<String>,
    /// Declarations whose own size is taken (`sizeof(p)`), by (file, offset).
    pub(super) sizeof_targets: HashSet<(FileIndex, u32)>,
    /// Declarations whose value is cast explicitly to a pointer into a named
    /// space (`(__global uint *) p`), by (file, offset): the cast's space and line.
    pub(super) cast_targets: HashMap<(FileIndex, u32), (Space, u32)>,
    /// What each typedef declaration (by file, offset) spells, read once.
    pub(super) typedef_facts: HashMap<(FileIndex, u32), TypedefFacts>,
}

impl<'t, 'i> Walker<'t, 'i> {
    pub(super) fn new(tu: &'t TranslationUnit<'i>, main: &Path) -> Self {
        let mut walker = Walker {
            tu,
            syntax: KernelSyntax::default(),
            file_indexes: HashMap::new(),
            macros: HashMap::new(),
            expansions: HashMap::new(),
            macro_words: HashMap::new(),
            macro_definitions: HashMap::new(),
            redefined_macros: HashSet::new(),
            sizeof_targets: HashSet::new(),
            cast_targets: HashMap::new(),
            typedef_facts: HashMap::new(),
        };
        walker.file_index(&main.to_string_lossy());
        walker
    }

    /// A file's id, numbered in the order files are first met (the main file is 0).
    pub(super) fn file_index(&mut self, name: &str) -> FileIndex {
        if let Some(id) = self.file_indexes.get(name) {
            return *id;
        }
        let id = self.syntax.files.len();
        self.syntax.files.push(PathBuf::from(name));
        self.file_indexes.insert(name.to_string(), id);
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
        let diagnostics = self.tu.diagnostics().into_iter().filter_map(diagnostic);
        self.syntax.diagnostics.extend(diagnostics);
        let top = self.tu.cursor().children();
        // Macros and includes first: declarations refer to them.
        self.record_preprocessing(&top);
        for c in &top {
            if c.kind() == CursorKind::FunctionDecl && !c.in_system_header() && c.location().file.is_some() {
                self.find_observed_uses(c);
            }
        }
        self.record_declarations(&top);
        self.record_skipped();
        self.finish()
    }

    /// Macro definitions, macro uses and included files.
    fn record_preprocessing(&mut self, top: &[Cursor]) {
        for c in top {
            match c.kind() {
                CursorKind::MacroDefinition if !c.in_system_header() => self.record_macro(c),
                CursorKind::MacroExpansion => self.record_expansion(c),
                CursorKind::InclusionDirective => {
                    if let Some(f) = c.included_file() {
                        self.file_index(&f);
                    }
                }
                _ => {}
            }
        }
    }

    /// Functions and program-scope variables of the unit's own files, and
    /// every top-level name.
    fn record_declarations(&mut self, top: &[Cursor]) {
        for c in top {
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
    }

    /// The names skipped text and macros use, and the macros that spell a qualifier.
    fn finish(mut self) -> KernelSyntax {
        for skipped in &self.syntax.skipped {
            self.syntax.identifiers.extend(skipped.identifiers.iter().cloned());
        }
        self.record_qualifier_macros();
        self.syntax.identifiers.extend(self.macro_words.keys().cloned());
        self.syntax.identifiers.extend(self.macro_words.values().flatten().cloned());
        self.syntax
    }
}

/// A libclang diagnostic worth keeping: warnings and errors (not notes).
fn diagnostic(d: RawDiagnostic) -> Option<Diagnostic> {
    // libclang severities: 2 warning, 3 error, 4 fatal.
    let severity = match d.severity {
        2 => Severity::Warning,
        s if s >= 3 => Severity::Error,
        _ => return None,
    };
    Some(Diagnostic {
        severity,
        message: d.message,
        file: PathBuf::from(d.loc.file.as_deref().unwrap_or_default()),
        line: d.loc.line,
        col: d.loc.column,
    })
}
