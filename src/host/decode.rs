//! Decoding a literal's syntax node into the string the program sees, with
//! the map from decoded bytes back to file bytes ([`Piece`]s).
//!
//! tree-sitter splits a literal into delimiters, content and
//! `escape_sequence` nodes; only the value of one escape sequence is read
//! from its text here. Adjacent literals (`"a\n" "b\n"`) are one string, as
//! the compiler concatenates them; a macro among them (`"%" PRIu64`) makes
//! the whole undecodable, since its text is not in this file.

use std::ops::Range;

use tree_sitter::Node;

use super::syntax::{range, text};
use super::{Piece, PieceForm};

/// A decoded literal: its text, pieces, and why it cannot be decoded (if so).
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    pub text: String,
    pub pieces: Vec<Piece>,
    pub undecodable: Option<String>,
}

/// Accumulates decoded bytes and pieces.
#[derive(Default)]
pub(crate) struct Builder {
    bytes: Vec<u8>,
    pieces: Vec<Piece>,
    undecodable: Option<String>,
    /// Whether the next piece may be joined with the one before it.
    next_joins: bool,
}

impl Builder {
    pub(crate) fn push(&mut self, file: Range<u32>, value: &[u8], form: PieceForm, exact: bool) {
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(value);
        let decoded = at..self.bytes.len() as u32;
        self.pieces.push(Piece { decoded, file, form, exact, joins_previous: self.next_joins });
        self.next_joins = true;
    }

    /// File bytes that are the decoded bytes, except that a CRLF line end
    /// reads as `\n` (compilers and Python normalise it), so it is a piece of
    /// its own.
    pub(crate) fn push_exact(&mut self, file: Range<u32>, src: &[u8], form: PieceForm) {
        let mut start = file.start;
        let mut at = file.start;
        while at < file.end {
            if src[at as usize] == b'\r' && at + 1 < file.end && src[at as usize + 1] == b'\n' {
                if start < at {
                    self.push(start..at, &src[start as usize..at as usize], form, true);
                }
                self.push(at..at + 2, b"\n", form, false);
                at += 2;
                start = at;
            } else {
                at += 1;
            }
        }
        if start < file.end {
            self.push(start..file.end, &src[start as usize..file.end as usize], form, true);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Grows the last piece by `file` when that piece is exact and ends where
    /// `file` starts (the bytes are then one verbatim run); false otherwise.
    pub(crate) fn extend_exact(&mut self, file: Range<u32>, src: &[u8]) -> bool {
        let Some(last) = self.pieces.last_mut().filter(|p| p.exact && p.file.end == file.start) else { return false };
        self.bytes.extend_from_slice(&src[file.start as usize..file.end as usize]);
        last.file.end = file.end;
        last.decoded.end = self.bytes.len() as u32;
        true
    }

    /// The next piece starts a new literal, joinable only if `joins`.
    pub(crate) fn start_literal(&mut self, joins: bool) {
        self.next_joins = joins && !self.pieces.is_empty();
    }

    pub(crate) fn fail(&mut self, why: String) {
        self.undecodable.get_or_insert(why);
    }

    pub(crate) fn finish(self) -> Decoded {
        match String::from_utf8(self.bytes) {
            Ok(text) if self.undecodable.is_none() => Decoded { text, pieces: self.pieces, undecodable: None },
            Ok(text) => Decoded { text, pieces: Vec::new(), undecodable: self.undecodable },
            Err(e) => Decoded {
                text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
                pieces: Vec::new(),
                undecodable: Some(self.undecodable.unwrap_or_else(|| "the decoded bytes are not UTF-8".into())),
            },
        }
    }
}

/// How one literal of a concatenation opens and closes; adjacent literals
/// with the same delimiters can be merged by an edit across them.
type Delimiters = (String, String);

/// Decodes a C/C++ `string_literal`, `raw_string_literal` or `concatenated_string`.
pub(crate) fn decode_c(node: Node, src: &[u8]) -> Decoded {
    let mut builder = Builder::default();
    let mut last: Option<Delimiters> = None;
    for part in parts(node) {
        let delimiters = match part.kind() {
            "string_literal" => c_literal(part, src, &mut builder, last.as_ref()),
            "raw_string_literal" => raw_literal(part, src, &mut builder, last.as_ref()),
            _ => {
                builder.fail(format!("`{}` is a macro: its text is not in this file", text(part, src)));
                None
            }
        };
        last = delimiters;
    }
    builder.finish()
}

/// Decodes a Python `string` or `concatenated_string`.
pub(crate) fn decode_python(node: Node, src: &[u8]) -> Decoded {
    let mut builder = Builder::default();
    let mut last: Option<Delimiters> = None;
    for part in parts(node) {
        last = python_literal(part, src, &mut builder, last.as_ref());
    }
    builder.finish()
}

/// The literals of a concatenation, or the literal itself.
fn parts(node: Node) -> Vec<Node> {
    if node.kind() != "concatenated_string" {
        return vec![node];
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect()
}

/// An ordinary C literal: content between the opening token (`"`, `L"`,
/// `u8"`...) and the closing quote, split at escape sequences.
fn c_literal(node: Node, src: &[u8], builder: &mut Builder, last: Option<&Delimiters>) -> Option<Delimiters> {
    let open = node.child(0)?;
    let close = node.child(node.child_count().checked_sub(1)? as _)?;
    if node.child_count() < 2 || close.kind() != "\"" {
        builder.fail("the literal is not closed".into());
        return None;
    }
    let delimiters = (text(open, src).to_string(), text(close, src).to_string());
    builder.start_literal(last == Some(&delimiters));
    let content = open.end_byte() as u32..close.start_byte() as u32;
    escaped_content(node, content, src, builder, PieceForm::CEscaped, &|esc| c_escape(esc));
    Some(delimiters)
}

/// A C++ raw literal: its content is verbatim.
fn raw_literal(node: Node, src: &[u8], builder: &mut Builder, last: Option<&Delimiters>) -> Option<Delimiters> {
    let mut cursor = node.walk();
    let content = node.named_children(&mut cursor).find(|n| n.kind() == "raw_string_content");
    // An empty raw string has no content node: it sits right after `(`.
    let content = match content {
        Some(c) => range(c),
        None => {
            let mut cursor = node.walk();
            let paren = node.children(&mut cursor).find(|n| n.kind() == "(")?;
            paren.end_byte() as u32..paren.end_byte() as u32
        }
    };
    let delimiters = (
        String::from_utf8_lossy(&src[node.start_byte()..content.start as usize]).into_owned(),
        String::from_utf8_lossy(&src[content.end as usize..node.end_byte()]).into_owned(),
    );
    builder.start_literal(last == Some(&delimiters));
    builder.push_exact(content, src, PieceForm::Verbatim);
    Some(delimiters)
}

/// A Python literal: prefix and quotes from `string_start`, raw content as
/// it is, otherwise split at escape sequences; an f-string's
/// interpolations are only known at run time.
fn python_literal(node: Node, src: &[u8], builder: &mut Builder, last: Option<&Delimiters>) -> Option<Delimiters> {
    let start = node.child(0).filter(|n| n.kind() == "string_start")?;
    let end = node.child(node.child_count().checked_sub(1)? as _).filter(|n| n.kind() == "string_end");
    let Some(end) = end else {
        builder.fail("the literal is not closed".into());
        return None;
    };
    let opening = text(start, src);
    let prefix = opening.trim_end_matches(['"', '\'']).to_ascii_lowercase();
    let quotes = &opening[prefix.len()..];
    let delimiters = (opening.to_string(), text(end, src).to_string());
    builder.start_literal(last == Some(&delimiters));
    let mut cursor = node.walk();
    if node.named_children(&mut cursor).any(|n| n.kind() == "interpolation") {
        // The text around the interpolations is still decoded, for what it tells.
        builder.fail("an f-string: its interpolations are filled at run time".into());
    }
    let form = match prefix.contains('r') {
        true => PieceForm::Verbatim,
        false => PieceForm::PythonEscaped { quote: quotes.as_bytes()[0], triple: quotes.len() == 3 },
    };
    let bytes = prefix.contains('b');
    let mut cursor = node.walk();
    for content in node.named_children(&mut cursor).filter(|n| n.kind() == "string_content") {
        match form {
            PieceForm::Verbatim => builder.push_exact(range(content), src, form),
            _ => escaped_content(content, range(content), src, builder, form, &|esc| python_escape(esc, bytes)),
        }
    }
    Some(delimiters)
}

/// Content split at the `escape_sequence` nodes under `node`: the runs
/// between them are exact, each escape is a piece of its own.
fn escaped_content(
    node: Node,
    content: Range<u32>,
    src: &[u8],
    builder: &mut Builder,
    form: PieceForm,
    value: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) {
    let mut escapes = Vec::new();
    super::syntax::walk(node, &mut |n| {
        if n.kind() == "escape_sequence" {
            escapes.push(n);
            return false;
        }
        true
    });
    let mut at = content.start;
    for escape in escapes {
        let file = range(escape);
        if at < file.start {
            builder.push_exact(at..file.start, src, form);
        }
        match value(text(escape, src)) {
            Ok(bytes) => builder.push(file.clone(), &bytes, form, false),
            Err(why) => builder.fail(why),
        }
        at = file.end;
    }
    if at < content.end {
        builder.push_exact(at..content.end, src, form);
    }
}

/// The bytes of a C escape sequence (`\n`, `\101`, `\x41`, `\u00e9`, a line continuation).
pub(crate) fn c_escape(escape: &str) -> Result<Vec<u8>, String> {
    let body = escape.strip_prefix('\\').unwrap_or(escape);
    let unknown = || format!("unknown escape sequence `{escape}`");
    let simple = match body {
        "\n" | "\r\n" => return Ok(Vec::new()),
        "n" => b'\n',
        "t" => b'\t',
        "r" => b'\r',
        "a" => 7,
        "b" => 8,
        "f" => 12,
        "v" => 11,
        "e" | "E" => 27,
        "\\" | "'" | "\"" | "?" => body.as_bytes()[0],
        _ => return numeric_escape(body, false).ok_or_else(unknown),
    };
    Ok(vec![simple])
}

/// The bytes of a Python escape sequence; in a `str` a `\x`/octal escape
/// names a character (UTF-8 encoded here), in `bytes` a byte.
pub(crate) fn python_escape(escape: &str, bytes: bool) -> Result<Vec<u8>, String> {
    let body = escape.strip_prefix('\\').unwrap_or(escape);
    let simple = match body {
        "\n" | "\r\n" => return Ok(Vec::new()),
        "n" => b'\n',
        "t" => b'\t',
        "r" => b'\r',
        "a" => 7,
        "b" => 8,
        "f" => 12,
        "v" => 11,
        "\\" | "'" | "\"" => body.as_bytes()[0],
        _ if body.starts_with('N') => return Err(format!("a named escape `{escape}`")),
        _ => return numeric_escape(body, !bytes).ok_or_else(|| format!("unknown escape sequence `{escape}`")),
    };
    Ok(vec![simple])
}

/// Octal, `\x`, `\u` and `\U` escapes; `chars`: an octal or hex value names
/// a character (Python `str`) rather than a byte (C, Python `bytes`).
fn numeric_escape(body: &str, chars: bool) -> Option<Vec<u8>> {
    let (radix, digits, unicode) = match body.as_bytes().first()? {
        b'0'..=b'7' => (8, body, chars),
        b'x' => (16, &body[1..], chars),
        b'u' | b'U' => (16, &body[1..], true),
        _ => return None,
    };
    let value = u32::from_str_radix(digits, radix).ok()?;
    if unicode {
        let mut buf = [0; 4];
        return Some(char::from_u32(value)?.encode_utf8(&mut buf).as_bytes().to_vec());
    }
    // C keeps the low byte of an over-long hex escape; compilers warn.
    Some(vec![value as u8])
}
