//! `Alias`: a unit parsed against a shared precompiled preamble
//! (`parse::preamble`) finds its preamble's places in the precompiled
//! header's text; this reads each back into the unit's main file. Beside
//! the locations it corrects, so the wrappers never reach up into the
//! preamble sharing.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::FileLoc;

/// Where a unit parsed against a shared preamble has its preamble's text:
/// a place in the precompiled header's text (`name`) is the same place in
/// the unit's main file.
pub struct Alias {
    /// The preamble's text as clang names it.
    name: String,
    /// The main file as clang names it.
    main: Arc<str>,
    /// The stretches both texts have alike: (start in the normalised text,
    /// start in the unit's, length), in order.
    alike: Vec<(usize, usize, usize)>,
    /// The unit's preamble bytes (for columns).
    text: Vec<u8>,
}

impl Alias {
    /// `size`: the preamble's bytes in `contents`; `comments`: each
    /// comment's byte range there, in order (`parse::Preamble`'s).
    pub(crate) fn new(name: String, main: &Path, contents: &[u8], size: u32, comments: &[Range<usize>]) -> Alias {
        let size = (size as usize).min(contents.len());
        let mut alike = Vec::with_capacity(comments.len() + 1);
        let (mut normalized, mut at) = (0, 0);
        for comment in comments.iter().filter(|c| c.end <= size) {
            alike.push((normalized, at, comment.start - at));
            let newlines = contents[comment.clone()].iter().filter(|b| **b == b'\n').count();
            normalized += comment.start - at + 1 + newlines;
            at = comment.end;
        }
        alike.push((normalized, at, size - at));
        Alias { name, main: main.to_string_lossy().into(), alike, text: contents[..size].to_vec() }
    }

    /// `loc` in the unit: read back into the main file when it is in the preamble's text.
    pub(super) fn unit_loc(&self, loc: FileLoc) -> FileLoc {
        if loc.file.as_deref() != Some(self.name.as_str()) {
            return loc;
        }
        let offset = self.unit_offset(loc.offset as usize);
        let line_start = self.text[..offset].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let line = self.text[..offset].iter().filter(|b| **b == b'\n').count() + 1;
        FileLoc {
            file: Some(self.main.clone()),
            line: line as u32,
            column: (offset - line_start + 1) as u32,
            offset: offset as u32,
        }
    }

    /// An offset in the normalised text, in the unit's (inside a comment's
    /// stand-in space: where the comment starts).
    fn unit_offset(&self, normalized: usize) -> usize {
        let index = self.alike.partition_point(|(start, _, _)| *start <= normalized).saturating_sub(1);
        let (start, unit, len) = self.alike[index];
        unit + (normalized - start).min(len)
    }
}
