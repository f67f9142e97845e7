//! The documents the editor has open: their text and version as the client
//! last sent them, and the conversions between the protocol's terms (a
//! `file:` URI, a position counted in UTF-16 code units) and clasp's (a
//! path, a 1-based line and byte column).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Uri};

/// One open document.
#[derive(Debug, Clone)]
pub struct Document {
    pub path: PathBuf,
    pub version: i32,
    pub text: String,
}

/// The open documents, by URI.
pub type Documents = BTreeMap<Uri, Document>;

/// The versions of every open document an analysis read (its snapshot):
/// its result stands only while they are all still current.
pub type Versions = BTreeMap<Uri, i32>;

/// Whether every document of `versions` is still open at that version.
pub fn current(documents: &Documents, versions: &Versions) -> bool {
    versions.iter().all(|(uri, version)| documents.get(uri).is_some_and(|d| d.version == *version))
}

/// The path a `file:` URI names (percent-escapes decoded), or `None` for another scheme.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///p` (empty authority) or `file://localhost/p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%').then(|| rest.get(i + 1..i + 3)).flatten().and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(decoded)))
}

/// The `file:` URI of an absolute path, escaping every byte but the unreserved ones and `/`.
pub fn uri_of(path: &Path) -> Uri {
    use std::os::unix::ffi::OsStrExt;
    let mut text = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    Uri::from_str(&text).expect("an escaped file URI parses")
}

/// The protocol's position of a 1-based `line` and byte `col` of `text`
/// (clamped to the line: a column past its end is its end).
pub fn position(text: &str, line: u32, col: u32) -> Position {
    let line_index = line.saturating_sub(1);
    let line_text = text.split('\n').nth(line_index as usize).unwrap_or("");
    let mut byte = (col.saturating_sub(1) as usize).min(line_text.len());
    // A column inside a character (a non-UTF-8 file read lossily) is that character's start.
    while !line_text.is_char_boundary(byte) {
        byte -= 1;
    }
    let prefix = &line_text[..byte];
    Position { line: line_index, character: utf16_len(prefix) }
}

/// The end of the word (identifier) starting at `position`, on its line.
pub fn word_end(text: &str, start: Position) -> Position {
    let line_text = text.split('\n').nth(start.line as usize).unwrap_or("");
    let mut units = 0u32;
    let mut in_word = 0u32;
    for c in line_text.chars() {
        if units >= start.character {
            if !(c.is_alphanumeric() || c == '_') {
                break;
            }
            in_word += c.len_utf16() as u32;
        }
        units += c.len_utf16() as u32;
    }
    Position { line: start.line, character: start.character + in_word.max(1) }
}

/// The number of UTF-16 code units of `text` (the protocol's default encoding).
pub fn utf16_len(text: &str) -> u32 {
    text.chars().map(|c| c.len_utf16() as u32).sum()
}

/// `text` changed by one `didChange` content change: a whole new text, or a range replaced.
pub fn apply_change(text: &mut String, change: lsp_types::TextDocumentContentChangeEvent) {
    let Some(range) = change.range else {
        *text = change.text;
        return;
    };
    let (start, end) = (offset(text, range.start), offset(text, range.end));
    text.replace_range(start..end.max(start), &change.text);
}

/// The byte offset of a protocol position in `text` (clamped to the text).
fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(n) => line_start += n + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..].find('\n').map_or(text.len(), |n| line_start + n);
    let mut units = 0u32;
    for (index, c) in text[line_start..line_end].char_indices() {
        if units >= position.character {
            return line_start + index;
        }
        units += c.len_utf16() as u32;
    }
    line_end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_goes_to_a_uri_and_back() {
        for path in ["/tmp/a b/k.cl", "/x/é%#?.cl", "/plain/k.clh"] {
            let uri = uri_of(Path::new(path));
            assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
            assert_eq!(path_of(&uri).unwrap(), Path::new(path));
        }
        assert_eq!(path_of(&Uri::from_str("file://localhost/a/k.cl").unwrap()).unwrap(), Path::new("/a/k.cl"));
        assert!(path_of(&Uri::from_str("untitled:Untitled-1").unwrap()).is_none());
    }

    #[test]
    fn positions_count_utf16_units() {
        let text = "// é😀\n  float *p;\n";
        // Byte column 6 of line 1 is after `// é` (3 bytes + é's 2): 4 UTF-16 units.
        assert_eq!(position(text, 1, 6), Position { line: 0, character: 4 });
        assert_eq!(position(text, 1, 7), Position { line: 0, character: 4 }, "inside 😀: its start");
        assert_eq!(position(text, 1, 99), Position { line: 0, character: 6 });
        let p = position(text, 2, 10);
        assert_eq!(p, Position { line: 1, character: 9 });
        assert_eq!(word_end(text, p), Position { line: 1, character: 10 });
    }

    #[test]
    fn changes_apply_by_range_and_whole() {
        let mut text = String::from("a😀b\nsecond\n");
        let range = lsp_types::Range { start: Position { line: 0, character: 3 }, end: Position { line: 1, character: 3 } };
        apply_change(
            &mut text,
            lsp_types::TextDocumentContentChangeEvent { range: Some(range), range_length: None, text: "X".into() },
        );
        assert_eq!(text, "a😀Xond\n");
        apply_change(
            &mut text,
            lsp_types::TextDocumentContentChangeEvent { range: None, range_length: None, text: "new".into() },
        );
        assert_eq!(text, "new");
    }
}
