//! Writing an edit of a literal's decoded text back into the file: mapping a
//! decoded range to file bytes ([`Literal::to_file`]) and spelling the
//! replacement in the literal's own form ([`Literal::encode`]); and whether
//! the decoded text declares a kernel; and a file's wrapper of escaped
//! literals decoded on its own ([`decode_wrapper`]).

use std::ops::Range;

use super::{Literal, Piece, PieceForm};

/// The C string literal (or run of adjacent ones) that a file wrapping a
/// source as escaped literals is made of, decoded as the host that
/// `#include`s the file receives it; `None` when some of it is not known
/// exactly (a macro among the literals, an unknown escape).
pub fn decode_wrapper(node: tree_sitter::Node, src: &[u8]) -> Option<Literal> {
    let decoded = super::decode::decode_c(node, src);
    if decoded.undecodable.is_some() {
        return None;
    }
    Some(Literal {
        start: super::syntax::position(node),
        range: super::syntax::range(node),
        declares_kernel: declares_kernel(&decoded.text),
        text: decoded.text,
        pieces: decoded.pieces,
        undecodable: None,
        variable: None,
        passed_to: None,
        included: Vec::new(),
    })
}

impl Literal {
    /// The file bytes that spell `decoded` (a range of [`Literal::text`]).
    /// The range may lie within one piece (anywhere in an exact piece, only
    /// whole in an escape or a collapsed run) or span pieces that join
    /// (one literal, or adjacent literals of the same kind: the quotes,
    /// whitespace and comments between them are then part of the range, and
    /// replacing it merges the literals). `None` otherwise, and always for
    /// an undecodable literal.
    pub fn to_file(&self, decoded: Range<u32>) -> Option<Range<u32>> {
        if self.undecodable.is_some() || decoded.start > decoded.end || decoded.end > self.text.len() as u32 {
            return None;
        }
        let first = self.piece_at(decoded.start)?;
        let start = file_offset(&self.pieces[first], decoded.start)?;
        if decoded.is_empty() {
            return Some(start..start);
        }
        // The piece the range ends in: the first whose decoded bytes reach `end`.
        let last = (first..self.pieces.len()).find(|&i| self.pieces[i].decoded.end >= decoded.end)?;
        if !self.pieces[first + 1..=last].iter().all(|p| p.joins_previous) {
            return None;
        }
        let end = file_end(&self.pieces[last], decoded.end)?;
        Some(start..end)
    }

    /// `replacement` spelled in the form of the piece at decoded offset `at`
    /// (the piece an edit starting there lands in): escaped inside an
    /// ordinary literal, as it is inside a raw string or a stringify argument.
    /// A verbatim replacement must not contain the raw string's closing
    /// delimiter; the caller checks that when it matters.
    pub fn encode(&self, at: u32, replacement: &str) -> String {
        let form = self.piece_at(at).map_or(PieceForm::Verbatim, |i| self.pieces[i].form);
        encode(form, replacement)
    }

    /// The piece a range starting at `at` starts in: the non-empty piece
    /// holding byte `at`, or the last piece for the very end of the text.
    fn piece_at(&self, at: u32) -> Option<usize> {
        let holding = self.pieces.iter().position(|p| p.decoded.start <= at && at < p.decoded.end);
        holding.or_else(|| {
            let last = self.pieces.iter().rposition(|p| !p.decoded.is_empty())?;
            (self.pieces[last].decoded.end == at).then_some(last)
        })
    }
}

/// A deletion that empties the literals of whole lines (from just after
/// the opening quote of a literal that starts its line to just before the
/// closing quote of one that ends its line, as deleting a function of an
/// escaped `"...\n"` kernel does) takes those lines with it, instead of
/// leaving a `""` line behind.
pub fn whole_literal_lines(text: &[u8], range: Range<u32>) -> Range<u32> {
    let (start, end) = (range.start as usize, range.end as usize);
    if start == 0 || end >= text.len() || text[start - 1] != b'"' || text[end] != b'"' {
        return range;
    }
    let line_start = text[..start - 1].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let after = end + 1;
    let line_end = text[after..].iter().position(|b| *b == b'\n').map_or(text.len(), |i| after + i + 1);
    let blank = |bytes: &[u8]| bytes.iter().all(|b| *b == b' ' || *b == b'\t' || *b == b'\r' || *b == b'\n');
    if blank(&text[line_start..start - 1]) && blank(&text[after..line_end]) {
        line_start as u32..line_end as u32
    } else {
        range
    }
}

/// Where decoded offset `at` starts in the file, inside `piece`.
fn file_offset(piece: &Piece, at: u32) -> Option<u32> {
    if piece.exact {
        Some(piece.file.start + (at - piece.decoded.start))
    } else if at == piece.decoded.start {
        Some(piece.file.start)
    } else if at == piece.decoded.end {
        Some(piece.file.end)
    } else {
        None
    }
}

/// Where decoded offset `at` ends in the file, inside `piece`.
fn file_end(piece: &Piece, at: u32) -> Option<u32> {
    if piece.exact {
        Some(piece.file.start + (at - piece.decoded.start))
    } else {
        (at == piece.decoded.end).then_some(piece.file.end)
    }
}

/// Text spelled in a form: the escapes every C compiler and Python accept.
pub(crate) fn encode(form: PieceForm, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match (form, c) {
            (PieceForm::Verbatim, c) => out.push(c),
            (_, '\\') => out.push_str("\\\\"),
            (PieceForm::CEscaped, '"') => out.push_str("\\\""),
            (PieceForm::PythonEscaped { quote, .. }, c) if c as u32 == quote as u32 => {
                out.push('\\');
                out.push(c);
            }
            (PieceForm::PythonEscaped { triple: true, .. }, '\n' | '\t') => out.push(c),
            (_, '\n') => out.push_str("\\n"),
            (_, '\t') => out.push_str("\\t"),
            (_, '\r') => out.push_str("\\r"),
            // Other control characters as three-digit octal, which no
            // following digit can extend.
            (_, c) if (c as u32) < 0x20 => out.push_str(&format!("\\{:03o}", c as u32)),
            (_, c) => out.push(c),
        }
    }
    out
}

/// Whether text declares a kernel: the token `__kernel` or `kernel`
/// followed by the token `void`. Tokens are identifier-like runs and single
/// punctuation characters, whitespace between them skipped; so
/// `my_kernel void`, `kernel_void` and `kernel, void` do not count.
pub(crate) fn declares_kernel(text: &str) -> bool {
    let mut previous_was_kernel = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = if c.is_ascii_alphanumeric() || c == '_' {
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len())
        } else {
            c.len_utf8()
        };
        let token = &rest[..len];
        rest = &rest[len..];
        if c.is_whitespace() {
            continue;
        }
        if previous_was_kernel && token == "void" {
            return true;
        }
        previous_was_kernel = token == "kernel" || token == "__kernel";
    }
    false
}
