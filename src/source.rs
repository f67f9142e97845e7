//! Where a unit's text comes from. A unit is a program as a driver receives
//! it; its text may be a kernel file as it is, a string literal inside a
//! host file, or several sources concatenated in order (what
//! `clCreateProgramWithSource` does with several strings). A `SourceMap`
//! maps each byte range of the unit's text back to the bytes of the file
//! that holds it, and says in which form that file holds it, so an edit of
//! the unit can be written back where it came from.

use std::ops::Range;
use std::path::{Path, PathBuf};

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
        text: String,
    ) -> std::io::Result<Embedded> {
        let (line, col, with_col) = at;
        let dir = std::fs::canonicalize(host.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
        let name = host.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let place = if with_col { format!("{line}:{col}") } else { line.to_string() };
        let virtual_path = dir.join(format!("{name}:{place}"));
        let stem = format!("embedded-{}-{line}-{col}", sanitized(&name));
        let (wrapper, overlay) = write_virtual(scratch, &stem, &virtual_path, text.as_bytes())?;
        Ok(Embedded { host: host.to_path_buf(), line, col, with_col, literals, text, virtual_path, wrapper, overlay })
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
/// wrapped as a C++ raw string literal (`R"delim(` ... `)delim"`, so the
/// host can `#include` it; see [`raw_string_content`]) contributes its
/// content, and the wrapper and whatever is around it stay as they are.
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
            let bytes = std::fs::read(file)?;
            let content = raw_string_content(&bytes).unwrap_or(0..bytes.len());
            text.extend_from_slice(&bytes[content.clone()]);
            parts.push((file.clone(), content.start as u32..content.end as u32, Form::Verbatim));
        }
        let map = SourceMap::concatenated(parts);
        let (wrapper, overlay) = write_virtual(scratch, &format!("program-{}", sanitized(name)), &virtual_path, &text)?;
        Ok(Program { name: name.to_string(), text, map, virtual_path, wrapper, overlay })
    }

    /// How reports name the unit.
    pub fn label(&self) -> String {
        crate::unit::label(&self.virtual_path, None, Some(&self.name), None)
    }
}

/// The content of a file that is wholly one C++ raw string literal, as a
/// byte range: `R"delim(` ... `)delim"` with any delimiter, and around it
/// only comments (line or block), blank lines and preprocessor lines (a
/// licence block, `#pragma once`, a closing note), which stay as they are.
/// The file is read with tree-sitter-cpp, so a `R"(` inside a comment or a
/// second literal is never taken for the wrapper. `None` when the file is
/// anything else (kernel code as it is, a syntax error, two literals).
pub fn raw_string_content(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    // Most kernel files hold no raw string at all: they are not parsed.
    memchr::memmem::find(bytes, b"R\"")?;
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_cpp::LANGUAGE.into()).ok()?;
    let tree = parser.parse(bytes, None)?;
    let mut literal = None;
    let mut cursor = tree.root_node().walk();
    for node in tree.root_node().named_children(&mut cursor) {
        match node.kind() {
            "comment" => {}
            kind if kind.starts_with("preproc_") && !kind.starts_with("preproc_if") => {}
            // The wrapper: one raw string, with comments and no `;`. tree-sitter
            // reads it as a statement missing its `;`, or as an error node
            // holding the literal alone (a wrapper on one line): neither is
            // an error of the wrapper.
            "expression_statement" | "ERROR" if literal.is_none() => literal = Some(only_raw_string(node)?),
            _ => return None,
        }
    }
    let literal = literal?;
    let text = &bytes[literal.start_byte()..literal.end_byte()];
    // `R"delim(` (any encoding prefix before the `R`) ... `)delim"`.
    let quote = text.iter().position(|b| *b == b'"')?;
    let open = quote + text[quote..].iter().position(|b| *b == b'(')?;
    let delimiter = &text[quote + 1..open];
    let close: Vec<u8> = [b")".as_slice(), delimiter, b"\""].concat();
    if !text.ends_with(&close) || text.len() < open + 1 + close.len() {
        return None;
    }
    Some(literal.start_byte() + open + 1..literal.end_byte() - close.len())
}

/// The one raw string literal a statement (or an error node) is made of,
/// comments aside; `None` if it holds anything else or a syntax error.
fn only_raw_string(statement: tree_sitter::Node) -> Option<tree_sitter::Node> {
    let mut cursor = statement.walk();
    let mut found = None;
    for child in statement.children(&mut cursor) {
        match child.kind() {
            "comment" => {}
            ";" if child.is_missing() => {}
            "raw_string_literal" if found.is_none() && !child.has_error() => found = Some(child),
            _ => return None,
        }
    }
    found
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Byte for byte: a kernel file, or the inside of a raw string literal.
    Verbatim,
}

/// A run of the unit's text held by one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The bytes of the unit's text.
    pub unit: Range<u32>,
    /// The file that holds them, and where they start in it.
    pub file: PathBuf,
    pub file_start: u32,
    pub form: Form,
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
    pub form: Form,
}

impl SourceMap {
    /// A unit that is a whole file, as it is.
    pub fn whole_file(path: &Path, len: u32) -> SourceMap {
        SourceMap { segments: vec![Segment { unit: 0..len, file: path.to_path_buf(), file_start: 0, form: Form::Verbatim }] }
    }

    /// Sources concatenated in order: each `(file, range in it, form)` follows the last.
    pub fn concatenated(parts: impl IntoIterator<Item = (PathBuf, Range<u32>, Form)>) -> SourceMap {
        let mut at = 0;
        let segments = parts
            .into_iter()
            .map(|(file, range, form)| {
                let len = range.end - range.start;
                let segment = Segment { unit: at..at + len, file, file_start: range.start, form };
                at += len;
                segment
            })
            .collect();
        SourceMap { segments }
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The file bytes a range of the unit's text comes from; `None` when the
    /// range straddles two segments or lies outside the text (an edit there
    /// cannot be written back as one edit of one file). An empty range at a
    /// boundary belongs to the segment it starts.
    pub fn to_file(&self, range: Range<u32>) -> Option<FileRange<'_>> {
        let starting = |s: &&Segment| s.unit.start <= range.start && range.start < s.unit.end && range.end <= s.unit.end;
        // An insertion at the very end of the text belongs to the last segment.
        let at_end = |s: &&Segment| range.is_empty() && range.start == s.unit.end;
        let segment = self.segments.iter().find(starting).or_else(|| self.segments.last().filter(at_end))?;
        let to_file = |at: u32| at - segment.unit.start + segment.file_start;
        Some(FileRange { file: &segment.file, range: to_file(range.start)..to_file(range.end), form: segment.form })
    }
}

impl SourceMap {
    /// The file bytes a range of the unit's text comes from, one range per
    /// segment it covers, in order (None outside the text). An edit across
    /// two sources is then written as its replacement in the first piece
    /// and deletions in the others: the concatenation reads the same.
    pub fn to_files(&self, range: Range<u32>) -> Option<Vec<FileRange<'_>>> {
        if range.is_empty() {
            return self.to_file(range).map(|r| vec![r]);
        }
        let end_of_text = self.segments.last().map_or(0, |s| s.unit.end);
        if range.end > end_of_text {
            return None;
        }
        let pieces: Vec<FileRange> = self
            .segments
            .iter()
            .filter(|s| s.unit.start < range.end && range.start < s.unit.end)
            .map(|s| {
                let (start, end) = (range.start.max(s.unit.start), range.end.min(s.unit.end));
                let to_file = |at: u32| at - s.unit.start + s.file_start;
                FileRange { file: &s.file, range: to_file(start)..to_file(end), form: s.form }
            })
            .collect();
        (!pieces.is_empty()).then_some(pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_wrapped_as_a_raw_string_gives_its_content() {
        let text = b"R\"CLC(\nfloat f(void);\n)CLC\"\n";
        let range = raw_string_content(text).expect("wrapped");
        assert_eq!(&text[range], b"\nfloat f(void);\n");
        assert_eq!(raw_string_content(b"float f(void);\n"), None);
        assert_eq!(raw_string_content(b"R\"x(a)y\""), None, "the delimiters differ");
    }

    #[test]
    fn a_wrapper_among_comments_and_preprocessor_lines_gives_its_content() {
        for (text, content) in [
            ("/* Licence.\n * Two lines. */\n// A note.\n\nR\"cl(\nkernel void k() {}\n)cl\"\n// The end.\n", "\nkernel void k() {}\n"),
            ("#pragma once\n// R\"( in a comment is no wrapper\nR\"===(\nfloat f(void); // \")\" inside\n)===\"  /* after */\n", "\nfloat f(void); // \")\" inside\n"),
            ("R\"x( )x\"", " "),
        ] {
            let range = raw_string_content(text.as_bytes()).unwrap_or_else(|| panic!("wrapped: {text:?}"));
            assert_eq!(&text[range], content);
        }
        for text in [
            "R\"(a)\"\nR\"(b)\"\n",
            "int x;\nR\"(a)\"\n",
            "R\"(a)\";\nint x;\n",
            "// R\"(a)\"\nkernel void k() {}\n",
            "\"plain\"\n",
            "#if A\nR\"(a)\"\n#endif\n",
        ] {
            assert_eq!(raw_string_content(text.as_bytes()), None, "{text:?}");
        }
    }

    #[test]
    fn hosts_of_one_name_in_two_directories_get_their_own_scratch_files() {
        // `a/host.c` and `b/host.c` with a kernel literal at the same line and
        // column: each unit must compile its own text.
        let root = std::env::temp_dir().join(format!("clasp-scratch-{}", std::process::id()));
        let scratch = root.join("scratch");
        for dir in ["a", "b", "scratch"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let a = Embedded::prepare(&scratch, &root.join("a/host.c"), (3, 5, false), vec![(0, 0)], "kernel a".into()).unwrap();
        let b = Embedded::prepare(&scratch, &root.join("b/host.c"), (3, 5, false), vec![(0, 0)], "kernel b".into()).unwrap();
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
        assert_eq!((mapped.file, mapped.range, mapped.form), (Path::new("k.cl"), 10..20, Form::Verbatim));
        assert_eq!(map.to_file(90..101), None, "past the end");
    }

    #[test]
    fn concatenated_sources_map_back_to_their_own_files() {
        // common.cl bytes 0..40, then the inside of a raw string in part.cl (bytes 12..72).
        let map = SourceMap::concatenated([
            (PathBuf::from("common.cl"), 0..40, Form::Verbatim),
            (PathBuf::from("part.cl"), 12..72, Form::Verbatim),
        ]);
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
}
