//! Safe RAII wrappers over the libclang C API (through `clang-sys`).
//!
//! This file is the only place on the syntax side that touches FFI. Every
//! handle frees itself on drop, children borrow their parent (a `Cursor` cannot
//! outlive its `TranslationUnit`), and every string libclang allocates is copied
//! into an owned `String` and disposed of at once.

// libclang's enum constants keep their C names.
#![allow(non_upper_case_globals)]

use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::{c_char, c_uint};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use clang_sys::*;

use super::error::ParseError;

mod alias;
mod cursor;
pub use alias::Alias;
pub use cursor::{Cursor, CursorKind, Expression, Type, TypeKind};

/// libclang is loaded at run time so that its absence is a clear error.
/// clang-sys keeps the loaded library per thread: load once, share it with
/// every thread that parses.
pub fn ensure_loaded() -> Result<(), ParseError> {
    static LIBRARY: OnceLock<Result<std::sync::Arc<SharedLibrary>, ParseError>> = OnceLock::new();
    let library = LIBRARY.get_or_init(load_from);
    match library {
        Ok(library) => {
            if clang_sys::get_library().is_none() {
                clang_sys::set_library(Some(library.clone()));
            }
            Ok(())
        }
        Err(error) => Err(error.clone()),
    }
}

fn load_from() -> Result<std::sync::Arc<SharedLibrary>, ParseError> {
    clang_sys::load().map_err(ParseError::NotFound)?;
    clang_sys::get_library().ok_or(ParseError::NotLoaded)
}

fn owned(s: CXString) -> String {
    // SAFETY: `s` comes straight from libclang; clang_getCString is valid until disposed.
    unsafe {
        let ptr = clang_getCString(s);
        let out = if ptr.is_null() { String::new() } else { CStr::from_ptr(ptr).to_string_lossy().into_owned() };
        clang_disposeString(s);
        out
    }
}

/// A libclang index: owns every translation unit parsed from it.
pub struct Index {
    raw: CXIndex,
}

impl Index {
    pub fn new() -> Result<Index, ParseError> {
        ensure_loaded()?;
        // libclang may register targets too: never while another thread
        // registers or creates an index (see `crate::front::lower::targets`).
        crate::front::lower::targets::ensure_registered();
        static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = CREATING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // SAFETY: plain constructor; the index is disposed in Drop.
        let raw = unsafe { clang_createIndex(0, 0) };
        if raw.is_null() {
            return Err(ParseError::NoIndex);
        }
        Ok(Index { raw })
    }

    /// Parses one file with the given compiler arguments; detailed
    /// preprocessing records are kept so macro uses can be seen.
    /// `contents` is the main file's bytes as the caller read them, so offsets
    /// refer to exactly those bytes. Not `KeepGoing`: as clang-19 does, the
    /// unit stops at a fatal error (a missing `#include`), which libclang
    /// then reports as fatal, not as an error followed by its cascade.
    pub fn parse(&self, path: &Path, contents: &[u8], args: &[String]) -> Result<TranslationUnit<'_>, ParseError> {
        self.parse_with(path, contents, args, CXTranslationUnit_DetailedPreprocessingRecord)
    }

    /// `parse` against a precompiled preamble (`args` name it): every
    /// location `alias` names is read back into the unit's own text.
    pub fn parse_against(
        &self,
        path: &Path,
        contents: &[u8],
        args: &[String],
        alias: Alias,
    ) -> Result<TranslationUnit<'_>, ParseError> {
        let mut tu = self.parse(path, contents, args)?;
        tu.alias = Some(alias);
        Ok(tu)
    }

    /// Parses a unit's preamble (`path`, a header, laid over by `contents`)
    /// and saves it as a precompiled header at `pch`, preprocessing record
    /// included: the files it included, or `None` when clang says anything
    /// about it, or cannot save it.
    pub fn precompile(
        &self,
        path: &Path,
        contents: &[u8],
        args: &[String],
        pch: &Path,
    ) -> Result<Option<Vec<PathBuf>>, ParseError> {
        let options = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_ForSerialization;
        let tu = self.parse_with(path, contents, args, options)?;
        if !tu.diagnostics().is_empty() {
            return Ok(None);
        }
        let c_pch = CString::new(pch.to_string_lossy().as_bytes())?;
        // SAFETY: a live unit parsed for serialisation; the path lives for the call.
        let saved = unsafe { clang_saveTranslationUnit(tu.raw, c_pch.as_ptr(), clang_defaultSaveOptions(tu.raw)) };
        Ok((saved == CXSaveError_None).then(|| tu.included_files()))
    }

    fn parse_with(
        &self,
        path: &Path,
        contents: &[u8],
        args: &[String],
        options: CXTranslationUnit_Flags,
    ) -> Result<TranslationUnit<'_>, ParseError> {
        let c_path = CString::new(path.to_string_lossy().as_bytes())?;
        let mut unsaved = CXUnsavedFile {
            Filename: c_path.as_ptr(),
            Contents: contents.as_ptr() as *const c_char,
            Length: contents.len() as _,
        };
        // Texts laid over files (`support::overlay`: standard input's, an
        // editor's unsaved buffers) are laid first, under any overlay in
        // `args`, so a header the unit includes is read as clang's compiles read it.
        let args = [crate::support::overlay::clang_args(), args.to_vec()].concat();
        let c_args: Vec<CString> = args.iter().map(|a| CString::new(a.as_bytes())).collect::<Result<_, _>>()?;
        let arg_ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        let mut raw: CXTranslationUnit = std::ptr::null_mut();
        // SAFETY: all pointers live for the duration of the call.
        let parse = || {
            crate::isolation::phase(crate::isolation::Phase::Parsing, || unsafe {
                clang_parseTranslationUnit2(
                    self.raw,
                    c_path.as_ptr(),
                    arg_ptrs.as_ptr(),
                    arg_ptrs.len() as i32,
                    &mut unsaved,
                    1,
                    options,
                    &mut raw,
                )
            })
        };
        let code = crate::support::timings::time("parse: clang_parseTranslationUnit", parse);
        if code == CXError_Crashed {
            // libclang caught the crash; under a supervisor the worker ends here.
            crate::isolation::crashed("libclang crashed while parsing");
        }
        if code != CXError_Success || raw.is_null() {
            return Err(ParseError::Refused(code));
        }
        Ok(TranslationUnit { raw, alias: None, _index: PhantomData })
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        // SAFETY: created by clang_createIndex, disposed once.
        unsafe { clang_disposeIndex(self.raw) }
    }
}

/// A parsed translation unit.
pub struct TranslationUnit<'i> {
    raw: CXTranslationUnit,
    /// Parsed against a precompiled preamble: where its text is the unit's.
    alias: Option<Alias>,
    _index: PhantomData<&'i Index>,
}

/// A location resolved to an owned file path and byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLoc {
    /// Shared: a unit's tokens name a handful of files, each token its own location.
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub column: u32,
    pub offset: u32,
}

/// One diagnostic, owned.
#[derive(Debug, Clone)]
pub struct RawDiagnostic {
    pub severity: u32,
    pub message: String,
    pub loc: FileLoc,
}

/// One token, owned: kind, text and byte range in its file.
#[derive(Debug, Clone)]
pub struct RawToken {
    pub kind: TokenKind,
    pub text: String,
    pub start: FileLoc,
    pub end: FileLoc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Punctuation,
    Keyword,
    Identifier,
    Literal,
    Comment,
}

type LocationResolver = unsafe fn(CXSourceLocation, *mut CXFile, *mut c_uint, *mut c_uint, *mut c_uint);

fn resolve(loc: CXSourceLocation, resolver: LocationResolver, alias: Option<&Alias>) -> FileLoc {
    resolve_naming(loc, resolver, &mut None, alias)
}

/// `resolve`, naming the file through `last` (the previous location's file
/// and name): a run of tokens in one file asks libclang for its name once.
/// A place in a precompiled preamble's text is the unit's own (`alias`).
fn resolve_naming(
    loc: CXSourceLocation,
    resolver: LocationResolver,
    last: &mut Option<(CXFile, Arc<str>)>,
    alias: Option<&Alias>,
) -> FileLoc {
    let mut file: CXFile = std::ptr::null_mut();
    let (mut line, mut column, mut offset): (c_uint, c_uint, c_uint) = (0, 0, 0);
    // SAFETY: out-pointers are valid locals; `resolver` is a libclang location accessor.
    unsafe { resolver(loc, &mut file, &mut line, &mut column, &mut offset) };
    let name = match last {
        _ if file.is_null() => None,
        Some((known, name)) if *known == file => Some(name.clone()),
        _ => {
            // SAFETY: a file of this unit, named while the unit is alive.
            let name: Arc<str> = owned(unsafe { clang_getFileName(file) }).into();
            *last = Some((file, name.clone()));
            Some(name)
        }
    };
    let loc = FileLoc { file: name, line, column, offset };
    match alias {
        Some(alias) => alias.unit_loc(loc),
        None => loc,
    }
}

/// Where a location is written (inside a macro argument: at the argument).
fn file_loc(loc: CXSourceLocation, alias: Option<&Alias>) -> FileLoc {
    resolve(loc, clang_getFileLocation, alias)
}

/// Where a location is spelled: inside a macro body, in the macro's definition;
/// inside a macro argument, at the argument.
fn spelling_loc(loc: CXSourceLocation, alias: Option<&Alias>) -> FileLoc {
    resolve(loc, clang_getSpellingLocation, alias)
}

/// Where a location's macro expansion is (inside a macro body: at the macro use).
fn expansion_loc(loc: CXSourceLocation, alias: Option<&Alias>) -> FileLoc {
    resolve(loc, clang_getExpansionLocation, alias)
}

impl<'i> TranslationUnit<'i> {
    pub fn cursor(&self) -> Cursor<'_> {
        // SAFETY: the TU is alive for the cursor's lifetime.
        Cursor { raw: unsafe { clang_getTranslationUnitCursor(self.raw) }, alias: self.alias.as_ref() }
    }

    pub fn diagnostics(&self) -> Vec<RawDiagnostic> {
        let mut out = Vec::new();
        // SAFETY: indices are within clang_getNumDiagnostics; each diagnostic is disposed.
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.raw) {
                let d = clang_getDiagnostic(self.raw, i);
                out.push(RawDiagnostic {
                    severity: clang_getDiagnosticSeverity(d) as u32,
                    message: owned(clang_getDiagnosticSpelling(d)),
                    loc: expansion_loc(clang_getDiagnosticLocation(d), self.alias.as_ref()),
                });
                clang_disposeDiagnostic(d);
            }
        }
        out
    }

    /// The raw tokens of an extent, as written in the file (macros
    /// unexpanded). Both ends are first moved to their expansion locations,
    /// so an extent that starts with a macro use is read from the use, not
    /// from the macro's definition.
    pub fn tokens(&self, extent: &Extent) -> Vec<RawToken> {
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut count: c_uint = 0;
        let mut out = Vec::new();
        let mut last_file = None;
        let mut contents = None;
        let alias = self.alias.as_ref();
        // SAFETY: the token array is read within its count and disposed once;
        // locations are rebuilt from files of this unit.
        unsafe {
            let range = self.expansion_range(extent.raw);
            clang_tokenize(self.raw, range, &mut tokens, &mut count);
            for i in 0..count as usize {
                let t = *tokens.add(i);
                let kind = match clang_getTokenKind(t) {
                    CXToken_Punctuation => TokenKind::Punctuation,
                    CXToken_Keyword => TokenKind::Keyword,
                    CXToken_Identifier => TokenKind::Identifier,
                    CXToken_Literal => TokenKind::Literal,
                    _ => TokenKind::Comment,
                };
                let range = clang_getTokenExtent(self.raw, t);
                let start = resolve_naming(clang_getRangeStart(range), clang_getFileLocation, &mut last_file, alias);
                let file = last_file.as_ref().map(|(file, _)| *file);
                let end = resolve_naming(clang_getRangeEnd(range), clang_getFileLocation, &mut last_file, alias);
                let same_file = file.is_some() && file == last_file.as_ref().map(|(file, _)| *file);
                let written = match (same_file, file, alias) {
                    (true, Some(file), None) => self.written(file, &mut contents, start.offset..end.offset),
                    _ => None,
                };
                let text = written.unwrap_or_else(|| owned(clang_getTokenSpelling(self.raw, t)));
                out.push(RawToken { kind, text, start, end });
            }
            if !tokens.is_null() {
                clang_disposeTokens(self.raw, tokens, count);
            }
        }
        out
    }

    /// A token's text as its file has it (`file`'s bytes, kept in `contents`
    /// for the next token): what libclang spells, read without asking it,
    /// unless the token spans a line continuation or a trigraph (clang's
    /// spelling leaves those out) or is not UTF-8.
    fn written<'s>(
        &'s self,
        file: CXFile,
        contents: &mut Option<(CXFile, &'s [u8])>,
        at: std::ops::Range<u32>,
    ) -> Option<String> {
        if contents.is_none_or(|(known, _)| known != file) {
            *contents = Some((file, self.file_bytes(file)?));
        }
        let (_, bytes) = (*contents)?;
        let text = bytes.get(at.start as usize..at.end as usize)?;
        if text.contains(&b'\\') || text.windows(2).any(|w| w == b"??") {
            return None;
        }
        std::str::from_utf8(text).ok().map(str::to_string)
    }

    fn expansion_range(&self, range: CXSourceRange) -> CXSourceRange {
        let at = |loc: CXSourceLocation| {
            let (mut file, mut spelled_in): (CXFile, CXFile) = (std::ptr::null_mut(), std::ptr::null_mut());
            let (mut offset, mut spelled_at): (c_uint, c_uint) = (0, 0);
            // SAFETY: out-pointers are valid locals; the file belongs to this unit.
            unsafe {
                clang_getExpansionLocation(loc, &mut file, std::ptr::null_mut(), std::ptr::null_mut(), &mut offset);
                clang_getSpellingLocation(loc, &mut spelled_in, std::ptr::null_mut(), std::ptr::null_mut(), &mut spelled_at);
                // Not in a macro: the location is its own expansion. (Finding a
                // file's location again scans every file of the unit, which in
                // a precompiled header means reading each one back.)
                if file.is_null() || (file == spelled_in && offset == spelled_at) {
                    loc
                } else {
                    clang_getLocationForOffset(self.raw, file, offset)
                }
            }
        };
        // SAFETY: plain value accessors.
        unsafe { clang_getRange(at(clang_getRangeStart(range)), at(clang_getRangeEnd(range))) }
    }

    /// The file where `extent` starts, as written (not in a macro); null when in none.
    fn expansion_file(&self, extent: &Extent) -> CXFile {
        let mut file: CXFile = std::ptr::null_mut();
        // SAFETY: out-pointers are valid locals; the file belongs to this unit.
        unsafe {
            clang_getExpansionLocation(
                clang_getRangeStart(extent.raw),
                &mut file,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        file
    }

    /// The empty extent at the start of the file where `extent` starts (as written, not in a macro).
    pub fn file_start(&self, extent: &Extent) -> Extent<'_> {
        let file = self.expansion_file(extent);
        // SAFETY: plain accessors on a location and a file of this unit.
        unsafe {
            let start =
                if file.is_null() { clang_getRangeStart(extent.raw) } else { clang_getLocationForOffset(self.raw, file, 0) };
            Extent { raw: clang_getRange(start, start), alias: self.alias.as_ref() }
        }
    }

    /// The extent of the whole file where `extent` starts (as written, not
    /// in a macro), with a hash of the bytes the unit read from it: what
    /// raw tokens of the file are the same in every unit reading those bytes.
    pub fn whole_file(&self, extent: &Extent) -> Option<(Extent<'_>, u64)> {
        let file = self.expansion_file(extent);
        if file.is_null() {
            return None;
        }
        let bytes = self.file_bytes(file)?;
        let size = u32::try_from(bytes.len()).ok()?;
        // SAFETY: plain accessors on a file of this unit, within its size.
        let raw = unsafe {
            clang_getRange(clang_getLocationForOffset(self.raw, file, 0), clang_getLocationForOffset(self.raw, file, size))
        };
        Some((Extent { raw, alias: self.alias.as_ref() }, crate::support::ids::hash_of(&bytes)))
    }

    /// The bytes the unit read from `file` (a file of this unit), as long as the unit lives.
    fn file_bytes(&self, file: CXFile) -> Option<&[u8]> {
        let mut size: usize = 0;
        // SAFETY: a file of this unit; its contents buffer lives as long as the
        // unit and is read within `size`.
        unsafe {
            let data = clang_getFileContents(self.raw, file, &mut size);
            (!data.is_null()).then(|| std::slice::from_raw_parts(data as *const u8, size))
        }
    }

    /// Every file the unit included (directly or not), the main file among them.
    pub fn included_files(&self) -> Vec<PathBuf> {
        extern "C" fn visit(file: CXFile, _stack: *mut CXSourceLocation, _depth: c_uint, data: CXClientData) {
            // SAFETY: `data` is the Vec passed below, alive for the visit; the file belongs to the unit.
            let out = unsafe { &mut *(data as *mut Vec<PathBuf>) };
            out.push(PathBuf::from(owned(unsafe { clang_getFileName(file) })));
        }
        let mut out: Vec<PathBuf> = Vec::new();
        // SAFETY: the callback only pushes into `out`.
        unsafe { clang_getInclusions(self.raw, visit, &mut out as *mut Vec<PathBuf> as CXClientData) };
        out
    }

    /// Ranges of every file of the unit that the preprocessor skipped (`#if 0` ...).
    pub fn skipped_ranges(&self) -> Vec<Extent<'_>> {
        let mut out = Vec::new();
        // SAFETY: the range list is read within its count and disposed once.
        unsafe {
            let list = clang_getAllSkippedRanges(self.raw);
            if list.is_null() {
                return out;
            }
            for i in 0..(*list).count as usize {
                let raw = *(*list).ranges.add(i);
                if clang_Location_isInSystemHeader(clang_getRangeStart(raw)) == 0 {
                    out.push(Extent { raw, alias: self.alias.as_ref() });
                }
            }
            clang_disposeSourceRangeList(list);
        }
        out
    }
}

impl Drop for TranslationUnit<'_> {
    fn drop(&mut self) {
        // SAFETY: created by clang_parseTranslationUnit2, disposed once.
        unsafe { clang_disposeTranslationUnit(self.raw) }
    }
}

/// A source range; resolve it with `start()`/`end()`.
#[derive(Clone, Copy)]
pub struct Extent<'tu> {
    raw: CXSourceRange,
    alias: Option<&'tu Alias>,
}

impl<'tu> Extent<'tu> {
    pub fn start(&self) -> FileLoc {
        // SAFETY: plain value accessor.
        file_loc(unsafe { clang_getRangeStart(self.raw) }, self.alias)
    }
    pub fn end(&self) -> FileLoc {
        // SAFETY: plain value accessor.
        file_loc(unsafe { clang_getRangeEnd(self.raw) }, self.alias)
    }

    /// The extent from this one's start to `last`'s end.
    pub fn through(&self, last: &Extent<'tu>) -> Extent<'tu> {
        // SAFETY: plain value accessors on two ranges of one unit.
        let raw = unsafe { clang_getRange(clang_getRangeStart(self.raw), clang_getRangeEnd(last.raw)) };
        Extent { raw, alias: self.alias }
    }

    /// The empty extent where this one starts.
    pub fn start_point(&self) -> Extent<'tu> {
        // SAFETY: plain value accessors.
        let start = unsafe { clang_getRangeStart(self.raw) };
        Extent { raw: unsafe { clang_getRange(start, start) }, alias: self.alias }
    }

    /// The empty extent where this one ends.
    pub fn end_point(&self) -> Extent<'tu> {
        // SAFETY: plain value accessors.
        let end = unsafe { clang_getRangeEnd(self.raw) };
        Extent { raw: unsafe { clang_getRange(end, end) }, alias: self.alias }
    }
}
