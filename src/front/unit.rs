//! One translation unit through the fact-gathering stages: read, `parse`
//! (libclang) and `lower` (clang-19 + inkwell), with every failure turned
//! into a `UnitError` that names the file, line and column.
//!
//! Files are bytes, not `String`s: a Latin-1 comment is as good as any,
//! offsets are clang's byte offsets, and edits leave every other byte as it was.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::facts::ir::IrFacts;
use crate::facts::syntax::{FileIndex, KernelSyntax};
use crate::front::lower::{self, ClangError, Context, LowerError};
use crate::front::parse::{ParseError, Parser};
use crate::input::source::{Embedded, Place, Program, SourceMap, VirtualFile};
use crate::settings::options::{CompileOptions, Standard, Target};
use crate::support::ids::{DeclKey, FileId, Files};

/// A unit whose facts are known.
#[derive(Debug, Clone)]
pub struct Unit {
    /// The unit's identity and name: its file, or for an embedded kernel the
    /// virtual `<host dir>/<host name>:<line>` its code is compiled under.
    pub path: PathBuf,
    /// The file clang compiles: `path`, or an embedded kernel's wrapper.
    pub input: PathBuf,
    /// For a kernel embedded in a host file: where it comes from.
    pub embedded: Option<Arc<Embedded>>,
    /// For a `[[program]]`: its sources.
    pub program: Option<Arc<Program>>,
    pub syntax: KernelSyntax,
    pub ir: IrFacts,
    /// The standard the unit is read as (with `--std auto`, chosen per unit):
    /// every compilation of the unit as it is uses these flags.
    pub standard: Standard,
    /// The options it was loaded with (a configuration's, with `clasp.toml`).
    pub compile: CompileOptions,
    /// The configuration it is built in, if `clasp.toml` names any.
    pub configuration: Option<String>,
    /// Configuration discovery stopped at this bound of extra builds for the
    /// unit, leaving some code `#if` skips unseen (`migrate::discovered`).
    pub discovery_bound: Option<usize>,
    /// Skipped code (file index, start, end) whose discovered configuration
    /// does not compile: the functions it names keep their spaces.
    pub unbuildable: Vec<(usize, u32, u32)>,
    /// One per `syntax.files` entry (same `FileIndex`).
    sources: Vec<SourceFile>,
    /// Per `syntax.files` entry, its batch-wide id (set by `intern`).
    file_ids: Vec<FileId>,
}

/// A file of the unit: its canonical path, resolved once, and its bytes,
/// read once when first needed (headers are only read if edited).
#[derive(Debug, Clone)]
struct SourceFile {
    canonical: PathBuf,
    /// Its bytes as the unit read them; a file read lazily is shared by the
    /// batch's units once it is `intern`ed.
    text: crate::support::ids::SharedText,
}

impl Unit {
    /// The canonical path of a file of the unit, to compare files across units.
    pub fn canonical(&self, file: FileIndex) -> &Path {
        &self.sources[file].canonical
    }

    /// The batch-wide id of a file of the unit (once the batch is `intern`ed).
    pub fn file_id(&self, file: FileIndex) -> FileId {
        self.file_ids[file]
    }

    /// The key of the declaration at `offset` in a file of the unit.
    pub fn key(&self, file: FileIndex, offset: u32) -> DeclKey {
        DeclKey::new(self.file_id(file), offset)
    }

    /// The canonical paths of the unit's files.
    pub fn canonical_paths(&self) -> impl Iterator<Item = &Path> {
        self.sources.iter().map(|s| s.canonical.as_path())
    }

    /// Learns the batch-wide ids of the unit's files (`files` has every one).
    pub fn intern(&mut self, files: &Files) {
        self.file_ids = self.sources.iter().map(|s| files.id(&s.canonical).expect("the batch interns every unit file")).collect();
        // A text the unit read itself (its main file, a virtual file) stays its own.
        for (source, id) in self.sources.iter_mut().zip(&self.file_ids) {
            if source.text.get().is_none() {
                source.text = files.text(*id);
            }
        }
    }

    /// The unit for people: `a.cl`, `host.cpp:42` (an embedded kernel), or `a.cl [fp64]` in a configuration.
    pub fn label(&self) -> String {
        crate::input::source::label(
            &self.path,
            self.embedded.as_deref(),
            self.program.as_ref().map(|p| p.name.as_str()),
            self.configuration.as_deref(),
        )
    }

    /// The unit's text that is in no file (an embedded kernel's or a program's).
    pub fn virtual_file(&self) -> Option<VirtualFile<'_>> {
        match (&self.embedded, &self.program) {
            (Some(e), _) => Some(VirtualFile { path: &e.virtual_path, text: e.text.as_bytes(), map: &e.map }),
            (None, Some(p)) => Some(VirtualFile { path: &p.virtual_path, text: &p.text, map: &p.map }),
            (None, None) => None,
        }
    }

    /// The unit's virtual file, if `file` is it.
    fn virtual_at(&self, file: FileIndex) -> Option<VirtualFile<'_>> {
        self.virtual_file().filter(|v| v.path == self.syntax.files[file])
    }

    /// Where byte `offset` of a file of the unit is for people: the one
    /// mapping every position clasp reports goes through. In an embedded
    /// kernel's or a program's virtual file, it is the real file holding
    /// the byte (the host file, a program's source), with its line and
    /// column there (inside the literal or the raw string).
    pub fn place(&self, file: FileIndex, offset: u32) -> Place {
        match self.virtual_at(file) {
            Some(v) => v.place(offset),
            None => Place::in_text(&self.syntax.files[file], self.text(file), offset as usize),
        }
    }

    /// Where a range of a file of the unit is as files are compared across
    /// units: the canonical path of the real file holding it (a program's
    /// source, not its virtual file) and the range there. Two units that
    /// read one file (a header, a source two programs share) see the same
    /// code at the same origin. `None` where the range spans two sources.
    pub fn origin(&self, file: FileIndex, range: std::ops::Range<u32>) -> Option<(&Path, std::ops::Range<u32>)> {
        match self.virtual_at(file) {
            Some(v) => v.map.origin(range),
            None => Some((self.canonical(file), range)),
        }
    }

    /// The real files the unit's file `file` comes from (canonical), each
    /// with the range of it the unit reads (all of it for a file as it is).
    pub fn origins_of(&self, file: FileIndex) -> Vec<(&Path, std::ops::Range<u32>)> {
        match self.virtual_at(file) {
            Some(v) => v.map.files().collect(),
            None => vec![(self.canonical(file), 0..u32::MAX)],
        }
    }

    /// Where clang's `line`:`col` of `file` is for people (see `place`):
    /// `file` as clang or its debug information names it, relative to the
    /// working directory or absolute. A file the unit does not read is left as it is.
    pub fn place_of(&self, file: &Path, line: u32, col: u32) -> Place {
        let absolute = |p: &Path| match p.is_absolute() {
            true => p.to_path_buf(),
            false => std::env::current_dir().map(|cwd| cwd.join(p)).unwrap_or_else(|_| p.to_path_buf()),
        };
        let wanted = absolute(file);
        match self.syntax.files.iter().position(|f| absolute(f) == wanted) {
            Some(i) => match self.virtual_at(i) {
                Some(v) => v.place_of(line, col),
                None => Place { file: self.syntax.files[i].clone(), line, col },
            },
            None => Place { file: file.to_path_buf(), line, col },
        }
    }

    /// clang's messages about the unit with the places they name in its
    /// virtual file (if any) named where they are (see `VirtualFile::diagnostics`).
    pub fn diagnostics(&self, messages: &str) -> String {
        match self.virtual_file() {
            Some(v) => v.diagnostics(messages),
            None => messages.to_string(),
        }
    }

    /// Where `pos` is for people (see `place`).
    pub fn position(&self, pos: crate::facts::syntax::Pos) -> Place {
        match self.virtual_at(pos.file) {
            Some(v) => v.place(pos.offset),
            None => Place { file: self.syntax.files[pos.file].clone(), line: pos.line, col: pos.col },
        }
    }

    /// The bytes of a file of the unit (empty if a header cannot be read).
    pub fn text(&self, file: FileIndex) -> &[u8] {
        self.sources[file].text.get_or_init(|| crate::support::overlay::read(&self.syntax.files[file]).unwrap_or_default())
    }

    /// The bytes of a file of the unit, read, as the one value the batch shares.
    pub fn shared_text(&self, file: FileIndex) -> crate::support::ids::SharedText {
        self.text(file);
        self.sources[file].text.clone()
    }
}

/// Why a unit could not be analysed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UnitError {
    #[error("{path}: error: cannot read: {source}")]
    Read { path: String, source: Arc<std::io::Error> },
    /// The file is binary (`text::not_text` says why): one error, not clang's cascade over its bytes.
    #[error("{path}:1:1: error: {why}")]
    NotText { path: String, why: String },
    /// The file is a program's source wrapped as a string literal for a
    /// host to `#include`, named alone: not kernel code as it is.
    #[error(
        "{path}:1:1: error: it is wrapped as a string literal for a host to `#include`: clasp reads it as a program's \
         source when the host including it is in the batch (name a directory holding both), or when a `[[program]]` in \
         clasp.toml lists it"
    )]
    Wrapped { path: String },
    /// libclang parsed the unit and reported errors; `files`: what the parses read.
    #[error("{}", diagnostics.join("\n"))]
    Syntax { diagnostics: Vec<String>, files: Vec<PathBuf> },
    /// clang compiled the unit and rejected it (`ClangError::Rejected`);
    /// `files`: what libclang's parse read.
    #[error("{path}: error: {error}")]
    Compile { path: String, error: ClangError, files: Vec<PathBuf> },
    /// A tool failed: libclang could not parse, clang could not run or
    /// crashed, LLVM could not read the bitcode.
    #[error("{path}: error: {error}")]
    Tool { path: String, error: ToolError },
}

/// A tool failing on a unit (not the unit's code being wrong).
#[derive(Debug, Clone, thiserror::Error)]
pub enum ToolError {
    /// libclang could not parse the unit.
    #[error(transparent)]
    Parse(ParseError),
    #[error(transparent)]
    Lower(LowerError),
}

impl UnitError {
    /// The error of lowering `path`: a compile error where clang ran and rejected the code.
    fn lowering(path: String, error: LowerError, files: &[PathBuf]) -> UnitError {
        match error {
            LowerError::Clang(error) if error.is_rejection() => UnitError::Compile { path, error, files: files.to_vec() },
            error => UnitError::Tool { path, error: ToolError::Lower(error) },
        }
    }

    /// The error with the places clang names in `file` named in the real files.
    fn placed(self, file: &VirtualFile) -> UnitError {
        match self {
            UnitError::Syntax { diagnostics, files } => {
                UnitError::Syntax { diagnostics: diagnostics.iter().map(|d| file.diagnostics(d)).collect(), files }
            }
            UnitError::Compile { path, error: ClangError::Rejected { diagnostics }, files } => {
                UnitError::Compile { path, error: ClangError::Rejected { diagnostics: file.diagnostics(&diagnostics) }, files }
            }
            UnitError::Compile { path, error: ClangError::Killed { diagnostics }, files } => {
                UnitError::Compile { path, error: ClangError::Killed { diagnostics: file.diagnostics(&diagnostics) }, files }
            }
            other => other,
        }
    }

    /// clang (or libclang) rejected the code, as opposed to an unreadable file or a missing tool.
    pub fn is_compile_error(&self) -> bool {
        matches!(self, UnitError::Syntax { .. } | UnitError::Compile { .. })
    }

    /// The files the unit's parses read before it failed, and whether they
    /// are all it reads: not when an `#include` was not found (nor what that
    /// file would have included, nor what a macro it defines would have
    /// enabled), nor when the unit could not be read or a tool failed on it.
    pub fn files_read(&self) -> (&[PathBuf], bool) {
        match self {
            UnitError::Syntax { files, diagnostics } => (files, !diagnostics.iter().any(|d| d.contains("file not found"))),
            UnitError::Compile { files, .. } => (files, true),
            // Not compiled as it is: it includes nothing.
            UnitError::NotText { .. } | UnitError::Wrapped { .. } => (&[], true),
            // Not there at all (a typo, a deleted file a configuration names): it includes nothing.
            UnitError::Read { source, .. } => {
                (&[], matches!(source.kind(), std::io::ErrorKind::IsADirectory | std::io::ErrorKind::NotFound))
            }
            UnitError::Tool { .. } => (&[], false),
        }
    }
}

/// A kernel is what the compiler made one: `__kernel` may come from a macro
/// (a kernel stamped out by `DEFINE_KERNEL(...)`), which tokens alone miss.
fn kernels_as_compiled(syntax: &mut KernelSyntax, ir: &crate::facts::ir::IrFacts) {
    for function in syntax.functions.iter_mut() {
        // Changed only where it differs: a shared function stays shared.
        if !function.is_kernel && ir.function(&function.link_name).is_some_and(|f| f.is_kernel) {
            Arc::make_mut(function).is_kernel = true;
        }
    }
}

/// The unit's files, each with its canonical path: a virtual file's text
/// (`virtual_text`: its path and text) and the main one's, if given, already
/// read; any other read when first needed.
fn source_files(
    syntax: &KernelSyntax,
    canonical: impl IntoIterator<Item = PathBuf>,
    virtual_text: Option<(&Path, &[u8])>,
    main_text: Option<&[u8]>,
) -> Vec<SourceFile> {
    (syntax.files.iter().enumerate().zip(canonical))
        .map(|((id, file), canonical)| {
            let preset = match virtual_text {
                Some((path, text)) if file == path => Some(text.to_vec()),
                _ => main_text.filter(|_| id == 0).map(<[u8]>::to_vec),
            };
            SourceFile { canonical, text: Arc::new(preset.map(OnceLock::from).unwrap_or_default()) }
        })
        .collect()
}

/// A unit's facts and what it was loaded as (`Unit::restored`).
pub(super) struct Restored {
    pub path: PathBuf,
    pub input: PathBuf,
    pub syntax: KernelSyntax,
    pub ir: IrFacts,
    pub standard: Standard,
    pub compile: CompileOptions,
    /// One per `syntax.files` entry.
    pub canonical: Vec<PathBuf>,
}

impl Unit {
    /// A unit of facts read back (`stored`), as `load` left it but for its
    /// job's parts (embedded kernel, program, configuration) and the main
    /// file's text, read when first needed like a header's; a virtual
    /// file's text is the job's. `None` when the files do not match.
    pub(super) fn restored(facts: Restored, embedded: Option<Arc<Embedded>>, program: Option<Arc<Program>>) -> Option<Unit> {
        let Restored { path, input, syntax, ir, standard, compile, canonical } = facts;
        if canonical.len() != syntax.files.len() {
            return None;
        }
        let mut unit = Unit {
            path,
            input,
            embedded,
            program,
            syntax,
            ir,
            standard,
            compile,
            configuration: None,
            discovery_bound: None,
            unbuildable: Vec::new(),
            sources: Vec::new(),
            file_ids: Vec::new(),
        };
        let virtual_text = unit.virtual_file().map(|v| (v.path, v.text));
        let sources = source_files(&unit.syntax, canonical, virtual_text, None);
        unit.sources = sources;
        Some(unit)
    }
}

/// Whether a file is wholly a string literal wrapping kernel code (`source::wrapped`).
fn is_wrapped(text: &[u8]) -> bool {
    crate::input::source::raw_string_content(text).is_some() || crate::input::source::escaped_string_content(text).is_some()
}

/// Why the per-worker tools cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum WorkbenchError {
    #[error(transparent)]
    Clang(#[from] ClangError),
    /// libclang could not be loaded.
    #[error(transparent)]
    Libclang(ParseError),
}

/// A unit's main text that is in no file: an embedded kernel's or a
/// program's, included by a wrapper through a VFS overlay.
struct Virtual<'a> {
    path: &'a Path,
    text: &'a [u8],
    map: &'a SourceMap,
    label: String,
}

impl Virtual<'_> {
    fn file(&self) -> VirtualFile<'_> {
        VirtualFile { path: self.path, text: self.text, map: self.map }
    }
}

/// The per-worker tools: a libclang index. (LLVM contexts are made per unit
/// and per check: a context keeps every constant and type it ever made.)
pub struct Workbench {
    pub parser: Parser,
}

impl Workbench {
    pub fn new() -> Result<Workbench, WorkbenchError> {
        // Fail early and clearly when either tool is missing.
        lower::clang_path()?;
        Ok(Workbench { parser: Parser::new().map_err(WorkbenchError::Libclang)? })
    }

    /// The preamble a kernel file's header walks are kept under while units
    /// load (`parse::Preamble::identity`), as `load` parses it first (its first
    /// candidate standard); `None` when it has none or cannot be read.
    pub fn walk_group(path: &Path, options: &CompileOptions, target: Target) -> Option<u64> {
        let text = crate::support::overlay::read(path).ok()?;
        let standard = options.std.candidates(target).into_iter().next()?;
        crate::front::parse::Preamble::of(path, &text, &options.clang_args(Some(&standard.flags))).map(|p| p.identity)
    }

    /// Loads a kernel file as its input standard: the one `options.std`
    /// names, or with `auto` the first of CL1.2 and `target`'s standard it compiles as.
    pub fn load(&self, path: &Path, options: &CompileOptions, target: Target) -> Result<Unit, UnitError> {
        self.load_input(path, path, None, options, target)
    }

    /// Loads a kernel embedded in a host file: clang compiles its wrapper,
    /// which includes the kernel's virtual file through the VFS overlay.
    pub fn load_embedded(&self, embedded: &Arc<Embedded>, options: &CompileOptions, target: Target) -> Result<Unit, UnitError> {
        let virtual_text =
            Virtual { path: &embedded.virtual_path, text: embedded.text.as_bytes(), map: &embedded.map, label: embedded.label() };
        let mut unit = self.load_virtual(&virtual_text, &embedded.wrapper, &embedded.overlay, options, target)?;
        unit.embedded = Some(embedded.clone());
        Ok(unit)
    }

    /// Loads a `[[program]]`, compiled like an embedded kernel.
    pub fn load_program(&self, program: &Arc<Program>, options: &CompileOptions, target: Target) -> Result<Unit, UnitError> {
        let virtual_text =
            Virtual { path: &program.virtual_path, text: &program.text, map: &program.map, label: program.label() };
        let mut unit = self.load_virtual(&virtual_text, &program.wrapper, &program.overlay, options, target)?;
        unit.program = Some(program.clone());
        Ok(unit)
    }

    /// Loads a virtual file through its wrapper; the compiler's messages
    /// name the places of its text where they are in the real files.
    fn load_virtual(
        &self,
        file: &Virtual,
        wrapper: &Path,
        overlay: &Path,
        options: &CompileOptions,
        target: Target,
    ) -> Result<Unit, UnitError> {
        let mut options = options.clone();
        options.clang_extra.extend(["-ivfsoverlay".to_string(), overlay.display().to_string()]);
        self.load_input(file.path, wrapper, Some(file), &options, target).map_err(|e| e.placed(&file.file()))
    }

    /// Parses `input` as the first standard it compiles as (1.2 code, the
    /// usual input, is parsed once; the target's standard is only tried when
    /// 1.2 rejects the unit: clasp's own output, 2.0 code). When none fits,
    /// the errors are those of the first (CL1.2 with `auto`).
    fn parse_as_input_standard(
        &self,
        (input, text, shared): (&Path, &[u8], bool),
        display: &str,
        options: &CompileOptions,
        target: Target,
    ) -> Result<(Standard, KernelSyntax), UnitError> {
        let (mut first_errors, mut files) = (None, Vec::new());
        for standard in options.std.candidates(target) {
            let args = options.clang_args(Some(&standard.flags));
            // A kernel file's header functions are walked once per batch (not an embedded
            // kernel's: its text is not a file whose changes the batch would see).
            let preamble = shared.then(|| crate::front::parse::Preamble::of(input, text, &args)).flatten();
            let syntax =
                crate::support::timings::time("parse (libclang)", || self.parser.parse_sharing(input, text, &args, preamble))
                    .map_err(|e| UnitError::Tool { path: display.to_string(), error: ToolError::Parse(e) })?;
            let errors: Vec<String> = syntax.errors().map(|d| d.to_string()).collect();
            if errors.is_empty() {
                return Ok((standard, syntax));
            }
            first_errors.get_or_insert(errors);
            files.extend(syntax.files.iter().filter(|file| !files.contains(*file)).cloned().collect::<Vec<_>>());
        }
        Err(UnitError::Syntax { diagnostics: first_errors.unwrap_or_default(), files })
    }

    fn load_input(
        &self,
        path: &Path,
        input: &Path,
        virtual_file: Option<&Virtual>,
        options: &CompileOptions,
        target: Target,
    ) -> Result<Unit, UnitError> {
        let display = virtual_file.map_or_else(|| path.display().to_string(), |v| v.label.clone());
        let text =
            crate::support::overlay::read(input).map_err(|e| UnitError::Read { path: display.clone(), source: Arc::new(e) })?;
        // An embedded kernel or a program is judged by its own text, not its wrapper's.
        if let Some(why) = crate::support::text::not_text(virtual_file.map_or(&text[..], |v| v.text)) {
            return Err(UnitError::NotText { path: display, why });
        }
        let (standard, syntax) = self
            .parse_as_input_standard((input, &text, virtual_file.is_none()), &display, options, target)
            .map_err(|e| match virtual_file {
                // Only a file that does not parse is looked at again: most hold quotes.
                None if e.is_compile_error() && is_wrapped(&text) => UnitError::Wrapped { path: display.clone() },
                _ => e,
            })?;
        let ir = crate::support::timings::time("lower (clang -O0 + facts)", || {
            lower::lower(&Context::create(), input, &options.clang_args(Some(&standard.flags)))
        })
        .map_err(|error| UnitError::lowering(display.clone(), error, &syntax.files))?;
        let mut ir = ir;
        if standard.std != target.standard().std && ir.stores_of_declarations().next().is_some() {
            ir.generic_stores_in_target = generic_stores_in_target(input, options, target);
        }
        let mut syntax = syntax;
        kernels_as_compiled(&mut syntax, &ir);
        let canonical = syntax.files.iter().map(|file| crate::support::overlay::canonical(file));
        let sources = source_files(&syntax, canonical, virtual_file.map(|v| (v.path, v.text)), Some(&text));
        Ok(Unit {
            path: path.to_path_buf(),
            input: input.to_path_buf(),
            embedded: None,
            program: None,
            syntax,
            ir,
            standard,
            compile: options.clone(),
            configuration: None,
            discovery_bound: None,
            unbuildable: Vec::new(),
            sources,
            file_ids: Vec::new(),
        })
    }
}

/// Where the unit, compiled unchanged as `target`, stores a generic pointer
/// into memory (`IrFacts::generic_stores_in_target`): a declaration read as
/// the target build sees it. Nothing when it does not compile so.
fn generic_stores_in_target(
    input: &Path,
    options: &CompileOptions,
    target: Target,
) -> std::collections::BTreeSet<crate::facts::ir::SrcLoc> {
    let facts = crate::support::timings::time("lower as the target (stores)", || {
        lower::lower(&Context::create(), input, &options.clang_args(Some(&target.standard().flags)))
    });
    let Ok(facts) = facts else { return Default::default() };
    facts
        .flows
        .iter()
        .filter(|f| f.to == crate::facts::ir::Sink::Memory && f.space == crate::facts::syntax::Space::Generic)
        .map(|f| f.at.clone())
        .collect()
}
