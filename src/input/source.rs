//! Where a unit's text comes from. A unit is a program as a driver receives
//! it; its text may be a kernel file as it is, a string literal inside a
//! host file, or several sources concatenated in order (what
//! `clCreateProgramWithSource` does with several strings). A `SourceMap`
//! maps each byte range of the unit's text back to the bytes of the file
//! that holds it, and says in which form that file holds it, so an edit of
//! the unit can be written back where it came from.

mod wrapped;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use wrapped::{escaped_string_content, raw_string_content};

/// How reports name a unit: `a.cl`, `host.cpp:42` (an embedded kernel),
/// ``program `name` `` (a `[[program]]`), with ` [configuration]` after it in a configuration.
pub fn label(path: &Path, embedded: Option<&Embedded>, program: Option<&str>, configuration: Option<&str>) -> String {
    let name = match (embedded, program) {
        (Some(e), _) => e.label(),
        (_, Some(name)) => format!("program `{name}`"),
        _ => path.display().to_string(),
    };
    match configuration {
        Some(configuration) => format!("{name} [{configuration}]"),
        None => name,
    }
}

/// A kernel embedded in a host file as a string literal, ready for clang:
/// its decoded text lives in a scratch file that a VFS overlay maps to the
/// `virtual_path` (beside the host file, so its `#include "..."`s resolve
/// as they would for a file in that directory), and a one-line wrapper
/// that includes it is what clang and libclang are given (the driver wants
/// an input file that exists).
#[derive(Debug, Clone)]
pub struct Embedded {
    /// The host file as discovered.
    pub host: PathBuf,
    /// Where the literal starts in the host file (1-based).
    pub line: u32,
    pub col: u32,
    /// Named with its column too: another kernel of the host starts on its line.
    pub with_col: bool,
    /// The literals it is made of, in order: each one's index among the
    /// host file's scanned literals and where its text starts in `text`
    /// (one literal, or the several strings of one program).
    pub literals: Vec<(usize, u32)>,
    /// The decoded kernel text.
    pub text: String,
    /// Where each byte of `text` is in the host file (through its literals).
    pub map: SourceMap,
    /// `<host dir>/<host name>:<line>`: the unit's identity and the name its code is compiled under.
    pub virtual_path: PathBuf,
    /// The file clang compiles: `#include "<virtual_path>"`.
    pub wrapper: PathBuf,
    /// The VFS overlay (clang's YAML) mapping `virtual_path` to the text.
    pub overlay: PathBuf,
}

impl Embedded {
    /// Writes the scratch files for the kernel of `host` at `line`:`col` in `scratch`.
    /// With `with_col` (another kernel of the host starts on the same line),
    /// the unit is named `host.c:LINE:COL`, else `host.c:LINE`.
    pub fn prepare(
        scratch: &Path,
        host: &Path,
        at: (u32, u32, bool),
        literals: Vec<(usize, u32)>,
        (text, map): (String, SourceMap),
    ) -> std::io::Result<Embedded> {
        let (line, col, with_col) = at;
        let dir = std::fs::canonicalize(host.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
        let name = host.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let place = if with_col { format!("{line}:{col}") } else { line.to_string() };
        let virtual_path = dir.join(format!("{name}:{place}"));
        let stem = format!("embedded-{}-{line}-{col}", sanitized(&name));
        let (wrapper, overlay) = write_virtual(scratch, &stem, &virtual_path, text.as_bytes())?;
        Ok(Embedded { host: host.to_path_buf(), line, col, with_col, literals, text, map, virtual_path, wrapper, overlay })
    }

    /// How reports name the unit: `host.cpp:42` (`host.cpp:42:17` beside another on its line).
    pub fn label(&self) -> String {
        match self.with_col {
            true => format!("{}:{}:{}", self.host.display(), self.line, self.col),
            false => format!("{}:{}", self.host.display(), self.line),
        }
    }
}

/// Writes a virtual file's text, the VFS overlay that maps `virtual_path`
/// to it, and a wrapper including it, in `scratch`: (wrapper, overlay).
/// The scratch names carry a hash of the whole virtual path: `stem` alone
/// (a file name, a line) is shared by `a/host.c` and `b/host.c`, whose
/// scratch files would otherwise overwrite each other.
fn write_virtual(scratch: &Path, stem: &str, virtual_path: &Path, text: &[u8]) -> std::io::Result<(PathBuf, PathBuf)> {
    let stem = format!("{stem}-{:016x}", fnv1a(virtual_path.as_os_str().as_encoded_bytes()));
    let kernel = scratch.join(format!("{stem}.cl"));
    let wrapper = scratch.join(format!("{stem}-main.cl"));
    let overlay = scratch.join(format!("{stem}.yaml"));
    std::fs::write(&kernel, text)?;
    std::fs::write(&wrapper, format!("#include \"{}\"\n", virtual_path.display()))?;
    let yaml = serde_json::json!({
        "version": 0,
        "case-sensitive": "true",
        "use-external-names": false,
        "roots": [{ "type": "file", "name": virtual_path.display().to_string(), "external-contents": kernel.display().to_string() }],
    });
    std::fs::write(&overlay, yaml.to_string())?;
    Ok((wrapper, overlay))
}

/// A `[[program]]` of `clasp.toml`: its sources concatenated in order, as
/// `clCreateProgramWithSource` does, compiled like an embedded kernel under
/// a virtual name; `map` says which source file holds each byte. A source
/// wrapped so that a host can `#include` it (see `wrapped`) contributes the
/// text its wrapper holds: a C++ raw string's content as it is, or the
/// decoded text of a run of escaped C literals; the wrapper and whatever
/// is around it stay as they are.
#[derive(Debug, Clone)]
pub struct Program {
    pub name: String,
    pub text: Vec<u8>,
    pub map: SourceMap,
    /// `<config dir>/<name>.program`: the unit's identity and the name its code is compiled under.
    pub virtual_path: PathBuf,
    pub wrapper: PathBuf,
    pub overlay: PathBuf,
}

impl Program {
    /// Reads `files` and writes the program's scratch files in `scratch`; `path` names the program.
    pub fn prepare(scratch: &Path, path: &Path, name: &str, files: &[PathBuf]) -> std::io::Result<Program> {
        let dir = std::fs::canonicalize(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
        let virtual_path = dir.join(path.file_name().unwrap_or_default());
        let (mut text, mut parts) = (Vec::new(), Vec::new());
        for file in files {
            let bytes: Arc<[u8]> = Arc::from(crate::support::overlay::read(file)?);
            let (content, start, form) = source_content(&bytes);
            text.extend_from_slice(&content);
            parts.push(Part { file: file.clone(), text: bytes, range: start..start + content.len() as u32, form });
        }
        let map = SourceMap::concatenated(parts);
        let (wrapper, overlay) = write_virtual(scratch, &format!("program-{}", sanitized(name)), &virtual_path, &text)?;
        Ok(Program { name: name.to_string(), text, map, virtual_path, wrapper, overlay })
    }

    /// How reports name the unit.
    pub fn label(&self) -> String {
        label(&self.virtual_path, None, Some(&self.name), None)
    }
}

/// The text a program source gives its program, where it starts in its
/// form's own bytes (the file's, or an escaped wrapper's decoded text), and
/// that form.
fn source_content(bytes: &Arc<[u8]>) -> (Vec<u8>, u32, Form) {
    if let Some(content) = raw_string_content(bytes) {
        return (bytes[content.clone()].to_vec(), content.start as u32, Form::Verbatim);
    }
    match escaped_string_content(bytes) {
        Some(literal) => {
            let text = literal.text.clone().into_bytes();
            (text, 0, Form::Escaped(Arc::new(EscapedSource { literal, file_text: bytes.clone() })))
        }
        None => (bytes.to_vec(), 0, Form::Verbatim),
    }
}

/// FNV-1a: a hash that is the same on every run and platform.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// A file name's characters that are safe in a scratch file name.
fn sanitized(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '_' { c } else { '_' }).collect()
}

/// How a file holds a segment of a unit's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// Byte for byte: a kernel file, or the inside of a raw string literal.
    Verbatim,
    /// Decoded from a string literal: a run of escaped C string literals
    /// that is the whole file (see `wrapped`), or an embedded kernel's
    /// literal in its host file (any form the host scan decodes). The
    /// segment's offsets count the literal's decoded text, mapped to the
    /// file through [`crate::host::Literal::to_file`].
    Escaped(Arc<EscapedSource>),
}

/// A file wrapping its source as escaped literals: the decoded literal and
/// the bytes it was decoded from.
#[derive(Debug, PartialEq, Eq)]
pub struct EscapedSource {
    pub literal: crate::host::Literal,
    pub file_text: Arc<[u8]>,
}

/// A run of the unit's text held by one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The bytes of the unit's text.
    pub unit: Range<u32>,
    /// The file that holds them, and where they start in it (in the
    /// decoded text, for the escaped form).
    pub file: PathBuf,
    pub file_start: u32,
    pub form: Form,
    /// The file's bytes, to say where a place is in it (empty for a whole file as it is).
    text: Arc<[u8]>,
    /// The file's canonical path, as files are compared across units.
    canonical: PathBuf,
}

/// A source of a concatenated text: the file, its bytes, the range of its
/// form's bytes it gives (the file's, or an escaped wrapper's decoded text),
/// and that form.
pub struct Part {
    pub file: PathBuf,
    pub text: Arc<[u8]>,
    pub range: Range<u32>,
    pub form: Form,
}

/// A place in a real file, for people: 1-based line and byte column, as clang counts them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
}

impl Place {
    /// The place of byte `offset` of `text`, the bytes of `file`.
    pub fn in_text(file: &Path, text: &[u8], offset: usize) -> Place {
        let offset = offset.min(text.len());
        let line = 1 + text[..offset].iter().filter(|b| **b == b'\n').count() as u32;
        Place { file: file.to_path_buf(), line, col: crate::support::text::column(text, offset) }
    }

    /// `file:line`, the file named as every message names it (`crate::settings::paths::shown_path`).
    pub fn file_line(&self) -> String {
        format!("{}:{}", crate::settings::paths::shown_path(&self.file), self.line)
    }
}

impl std::fmt::Display for Place {
    /// `file:line:col`, the file named as every message names it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", crate::settings::paths::shown_path(&self.file), self.line, self.col)
    }
}

/// A unit's text that is in no file (an embedded kernel's, a program's):
/// the name clang compiles it under, its bytes, and where each is in a real file.
#[derive(Clone, Copy)]
pub struct VirtualFile<'a> {
    pub path: &'a Path,
    pub text: &'a [u8],
    pub map: &'a SourceMap,
}

impl VirtualFile<'_> {
    /// Where byte `offset` of the text is in the file holding it. A byte
    /// inside an escape sequence maps to none: the escape's first byte does.
    pub fn place(&self, offset: u32) -> Place {
        let mapped = (offset.saturating_sub(16)..=offset).rev().find_map(|o| self.map.place(o)).or_else(|| self.map.place(0));
        mapped.unwrap_or_else(|| Place::in_text(self.path, self.text, offset as usize))
    }

    /// Where clang's `line`:`col` of the text is in the file holding it.
    pub fn place_of(&self, line: u32, col: u32) -> Place {
        self.place(offset_of(self.text, line, col))
    }

    /// clang's diagnostics with every place they name in the text
    /// (`path:line:col`, or `path:line` as in "In file included from")
    /// named where it is in a real file: the one way compiler messages
    /// about a virtual file reach people.
    pub fn diagnostics(&self, messages: &str) -> String {
        let name = self.path.display().to_string();
        let mut out = String::with_capacity(messages.len());
        let mut rest = messages;
        while let Some(found) = rest.find(&name) {
            out.push_str(&rest[..found]);
            let after = &rest[found + name.len()..];
            let (line, used) = number_after_colon(after);
            let (col, used_col) = if line.is_some() { number_after_colon(&after[used..]) } else { (None, 0) };
            match line {
                Some(line) => {
                    let place = self.place_of(line, col.unwrap_or(1));
                    match col {
                        Some(_) => out.push_str(&place.to_string()),
                        None => out.push_str(&place.file_line()),
                    }
                    rest = &after[used + used_col..];
                }
                None => {
                    out.push_str(&name);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// `:123` at the start of `text`: the number and the bytes it takes.
fn number_after_colon(text: &str) -> (Option<u32>, usize) {
    let Some(digits) = text.strip_prefix(':') else { return (None, 0) };
    let len = digits.bytes().take_while(u8::is_ascii_digit).count();
    match digits[..len].parse() {
        Ok(n) => (Some(n), 1 + len),
        Err(_) => (None, 0),
    }
}

/// The byte offset of clang's `line`:`col` (1-based, columns in bytes) in `text`.
pub fn offset_of(text: &[u8], line: u32, col: u32) -> u32 {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].iter().position(|b| *b == b'\n') {
            Some(newline) => start += newline + 1,
            None => return text.len() as u32,
        }
    }
    (start + col.saturating_sub(1) as usize).min(text.len()) as u32
}

impl Segment {
    /// The file bytes that spell `unit` (a range within the segment).
    fn file_range(&self, unit: Range<u32>) -> Option<FileRange<'_>> {
        let local = unit.start - self.unit.start + self.file_start..unit.end - self.unit.start + self.file_start;
        let range = match &self.form {
            Form::Verbatim => local.clone(),
            Form::Escaped(source) => source.literal.to_file(local.clone())?,
        };
        let (file, canonical, form, file_text) = (&*self.file, &*self.canonical, &self.form, &*self.text);
        Some(FileRange { file, range, unit, local, form, file_text, canonical })
    }
}

/// A unit's text as segments of files, in order, covering it without gaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMap {
    segments: Vec<Segment>,
}

/// A byte range of a file, mapped from a range of a unit's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRange<'m> {
    pub file: &'m Path,
    pub range: Range<u32>,
    /// The range of the unit's text it was mapped from.
    pub unit: Range<u32>,
    /// The same range in the form's own bytes (the decoded text, when escaped).
    local: Range<u32>,
    pub form: &'m Form,
    file_text: &'m [u8],
    /// The file's canonical path.
    pub canonical: &'m Path,
}

impl FileRange<'_> {
    /// The edit that replaces these bytes with `replacement`, in the file's
    /// own form: the range and the replacement as the file spells it
    /// (escaped inside escaped literals, where a deletion emptying whole
    /// literal lines takes the lines).
    pub fn spelled(&self, replacement: &str) -> (Range<u32>, String) {
        match self.form {
            Form::Verbatim => (self.range.clone(), replacement.to_string()),
            Form::Escaped(source) => {
                let spelled = source.literal.encode(self.local.start, replacement);
                let range = match spelled.is_empty() {
                    true => crate::host::whole_literal_lines(&source.file_text, self.range.clone()),
                    false => self.range.clone(),
                };
                (range, spelled)
            }
        }
    }
}

impl SourceMap {
    /// A unit that is a whole file, as it is (the tests' map).
    #[cfg(test)]
    pub fn whole_file(path: &Path, len: u32) -> SourceMap {
        let (file, canonical) = (path.to_path_buf(), crate::settings::root::canonical(path));
        let segment = Segment { unit: 0..len, file, file_start: 0, form: Form::Verbatim, text: Arc::from([]), canonical };
        SourceMap { segments: vec![segment] }
    }

    /// Sources concatenated in order, each following the last.
    pub fn concatenated(parts: impl IntoIterator<Item = Part>) -> SourceMap {
        let mut at = 0;
        let segments = parts
            .into_iter()
            .map(|Part { file, text, range, form }| {
                let len = range.end - range.start;
                let canonical = crate::settings::root::canonical(&file);
                let segment = Segment { unit: at..at + len, file, file_start: range.start, form, text, canonical };
                at += len;
                segment
            })
            .collect();
        SourceMap { segments }
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The files the text comes from (canonical), each with the range of
    /// its bytes a segment holds.
    pub fn files(&self) -> impl Iterator<Item = (&Path, Range<u32>)> {
        self.segments.iter().filter_map(|s| s.file_range(s.unit.clone()).map(|at| (s.canonical.as_path(), at.range)))
    }

    /// The file bytes a range of the unit's text comes from; `None` when the
    /// range straddles two segments, lies outside the text, or cuts an
    /// escape sequence (an edit there cannot be written back as one edit of
    /// one file). An empty range at a boundary belongs to the segment it starts.
    pub fn to_file(&self, range: Range<u32>) -> Option<FileRange<'_>> {
        let starting = |s: &&Segment| s.unit.start <= range.start && range.start < s.unit.end && range.end <= s.unit.end;
        // An insertion at the very end of the text belongs to the last segment.
        let at_end = |s: &&Segment| range.is_empty() && range.start == s.unit.end;
        let segment = self.segments.iter().find(starting).or_else(|| self.segments.last().filter(at_end))?;
        segment.file_range(range)
    }

    /// The file holding bytes `range` of the unit's text, as files are
    /// compared across units (canonical), and the range there: where two
    /// units reading one file see the same code. `None` as for `to_file`.
    pub fn origin(&self, range: Range<u32>) -> Option<(&Path, Range<u32>)> {
        let at = self.to_file(range)?;
        Some((at.canonical, at.range))
    }

    /// Where byte `offset` of the unit's text is in the file holding it
    /// (the end of the text: just past the last source's bytes); `None`
    /// where it maps to no byte of a file (inside an escape sequence).
    pub fn place(&self, offset: u32) -> Option<Place> {
        let at = self.to_file(offset..offset)?;
        Some(Place::in_text(at.file, at.file_text, at.range.start as usize))
    }

    /// The file bytes a range of the unit's text comes from, one range per
    /// segment it covers, in order (None outside the text, or where a piece
    /// cuts an escape sequence). An edit across two sources is then written
    /// as its replacement in the first piece and deletions in the others:
    /// the concatenation reads the same.
    pub fn to_files(&self, range: Range<u32>) -> Option<Vec<FileRange<'_>>> {
        if range.is_empty() {
            return self.to_file(range).map(|r| vec![r]);
        }
        let end_of_text = self.segments.last().map_or(0, |s| s.unit.end);
        if range.end > end_of_text {
            return None;
        }
        let pieces: Option<Vec<FileRange>> = self
            .segments
            .iter()
            .filter(|s| s.unit.start < range.end && range.start < s.unit.end)
            .map(|s| s.file_range(range.start.max(s.unit.start)..range.end.min(s.unit.end)))
            .collect();
        pieces.filter(|p| !p.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_one_name_in_two_directories_get_their_own_scratch_files() {
        // `a/host.c` and `b/host.c` with a kernel literal at the same line and
        // column: each unit must compile its own text.
        let root = std::env::temp_dir().join(format!("clasp-scratch-{}", std::process::id()));
        let scratch = root.join("scratch");
        for dir in ["a", "b", "scratch"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let text = |t: &str| (t.to_string(), SourceMap::whole_file(Path::new("host.c"), t.len() as u32));
        let a = Embedded::prepare(&scratch, &root.join("a/host.c"), (3, 5, false), vec![(0, 0)], text("kernel a")).unwrap();
        let b = Embedded::prepare(&scratch, &root.join("b/host.c"), (3, 5, false), vec![(0, 0)], text("kernel b")).unwrap();
        assert_ne!(a.wrapper, b.wrapper);
        assert_ne!(a.overlay, b.overlay);
        for unit in [&a, &b] {
            let wrapper = std::fs::read_to_string(&unit.wrapper).unwrap();
            assert!(wrapper.contains(&unit.virtual_path.display().to_string()), "{wrapper}");
            let overlay: serde_json::Value = serde_json::from_slice(&std::fs::read(&unit.overlay).unwrap()).unwrap();
            let contents = overlay["roots"][0]["external-contents"].as_str().unwrap();
            assert_eq!(std::fs::read_to_string(contents).unwrap(), unit.text);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_whole_file_maps_to_itself() {
        let map = SourceMap::whole_file(Path::new("k.cl"), 100);
        let mapped = map.to_file(10..20).expect("inside");
        assert_eq!((mapped.file, mapped.range, mapped.form), (Path::new("k.cl"), 10..20, &Form::Verbatim));
        assert_eq!(map.to_file(90..101), None, "past the end");
    }

    #[test]
    fn concatenated_sources_map_back_to_their_own_files() {
        // common.cl bytes 0..40, then the inside of a raw string in part.cl (bytes 12..72).
        let part = |file: &str, range| Part { file: PathBuf::from(file), text: Arc::from([]), range, form: Form::Verbatim };
        let map = SourceMap::concatenated([part("common.cl", 0..40), part("part.cl", 12..72)]);
        let first = map.to_file(5..9).expect("in common.cl");
        assert_eq!((first.file, first.range), (Path::new("common.cl"), 5..9));
        let second = map.to_file(45..50).expect("in part.cl");
        assert_eq!((second.file, second.range), (Path::new("part.cl"), 17..22));
        assert_eq!(map.to_file(38..42), None, "straddles the two sources");
        let pieces = map.to_files(38..42).expect("in the text");
        let pieces: Vec<(&Path, Range<u32>)> = pieces.iter().map(|p| (p.file, p.range.clone())).collect();
        assert_eq!(pieces, vec![(Path::new("common.cl"), 38..40), (Path::new("part.cl"), 12..14)]);
        let insertion = map.to_file(40..40).expect("an insertion at the boundary");
        assert_eq!((insertion.file, insertion.range), (Path::new("part.cl"), 12..12));
    }

    /// `file`'s bytes with the edits of `(unit range, replacement)`s of the
    /// map's text applied, each spelled in the file's form.
    fn edited(map: &SourceMap, file: &[u8], edits: &[(Range<u32>, &str)]) -> String {
        let mut spelled = Vec::new();
        for (range, with) in edits {
            // The replacement goes in the first piece; the others are deleted.
            for (i, at) in map.to_files(range.clone()).expect("maps").iter().enumerate() {
                spelled.push(at.spelled(if i == 0 { with } else { "" }));
            }
        }
        spelled.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
        let mut out = file.to_vec();
        for (range, with) in spelled {
            out.splice(range.start as usize..range.end as usize, with.bytes());
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_escaped_source_maps_back_through_its_literals() {
        let file = "// Licence.\r\n\"float f_g(__global int *p)\\n\"\r\n\"{ return \\\"\\\"[0]; }\\n\"\r\n/* c */\r\n\"float f_l(__local int *p)\\n\"\r\n\"{ return 0; }\\n\"\r\n";
        let (text, start, form) = source_content(&Arc::from(file.as_bytes()));
        let text = String::from_utf8(text).unwrap();
        assert_eq!(text, "float f_g(__global int *p)\n{ return \"\"[0]; }\nfloat f_l(__local int *p)\n{ return 0; }\n");
        let part = Part {
            file: PathBuf::from("a.clh"),
            text: Arc::from(file.as_bytes()),
            range: start..start + text.len() as u32,
            form,
        };
        let map = SourceMap::concatenated([part]);
        // A place of the text is named in the file: `f_l` is on its fifth line, after `"float `.
        assert_eq!(map.place(text.find("f_l").unwrap() as u32), Some(Place { file: PathBuf::from("a.clh"), line: 5, col: 8 }));
        let at = |needle: &str| text.find(needle).unwrap() as u32;
        let edits = [
            // A removal inside one literal, a replacement holding a quote and a
            // newline (escaped again), and a deletion of whole literal lines
            // across a comment (the lines go with it).
            (at("__global ")..at("__global ") + 9, ""),
            (at("f_g")..at("f_g") + 3, "f \"\n"),
            (at("float f_l")..text.len() as u32, ""),
        ];
        let expected = "// Licence.\r\n\"float f \\\"\\n(int *p)\\n\"\r\n\"{ return \\\"\\\"[0]; }\\n\"\r\n/* c */\r\n";
        assert_eq!(edited(&map, file.as_bytes(), &edits), expected);
        // An edit that cuts an escape sequence (`\u00e9`: two bytes) cannot be written back.
        let bytes: Arc<[u8]> = Arc::from(&b"\"// caf\\u00e9\\n\"\n"[..]);
        let (text, start, form) = source_content(&bytes);
        let map = SourceMap::concatenated([Part {
            file: PathBuf::from("b.clh"),
            text: bytes,
            range: start..start + text.len() as u32,
            form,
        }]);
        assert_eq!(map.to_file(6..8).map(|at| at.range), Some(7..13), "the whole escape maps");
        assert_eq!((map.to_file(6..7), map.to_files(7..9)), (None, None));
    }
}
