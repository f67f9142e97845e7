//! A declaration's extent as clasp edits it: clang's, widened to the macro
//! uses around it that expand to nothing in this unit.
//!
//! `NOINLINE float f(...) {...}` under `#define NOINLINE` is, to clang, a
//! declaration starting at `float`: the use expands to no token, so no
//! cursor's extent covers it. Yet the host may build the file with
//! `-DNOINLINE=__attribute__((noinline))`, where the use is part of the
//! declaration. So a declaration takes the empty uses just before it (with
//! nothing but blanks and comments between them and it), and, when it ends
//! without a body (`void f(int) ATTR;`, `int x ATTR;`), those just after it:
//! a merge deleting it deletes them too, and its tokens (compared between
//! copies, read for its specifiers) are the same in every configuration.
//! Uses are found from libclang's macro-expansion records and the tokens
//! between them, never from the text.

use super::libclang::{Cursor, Extent};
use super::shared::Neighbours;
use super::walker::Walker;

impl<'t> Walker<'t, '_> {
    /// `c`'s extent with the empty macro uses that belong to it (see the module doc).
    pub(super) fn declaration_extent(&mut self, c: &Cursor<'t>, around: Neighbours<'t>, has_body: bool) -> Extent<'t> {
        let extent = c.extent();
        let (start, end) = (extent.start(), extent.end());
        let Some(file) = start.file.as_deref().map(|f| self.file_index(f)) else { return extent };
        let Some(uses) = self.empty_uses.get(&file) else { return extent };
        let mut first = extent;
        let mut at = start.offset;
        // Backwards from the declaration: the nearest empty use ending before it, if only blanks lie
        // between, and if it is not the name a directive tests (`#ifdef NOINLINE`, which clang
        // records as a use too): the token before it says.
        while let Some((&use_start, &(use_end, use_cursor))) = uses.range(around.previous_end.min(at)..at).next_back() {
            let between = self.tu.tokens(&use_cursor.extent().through(&first.start_point()));
            // No token at all, not even the use's own: the use is in another inclusion of this file
            // (a file that includes itself again with other macros), which is no range of this one.
            if between.is_empty() || use_end > at || between.iter().any(|t| t.start.offset >= use_end && t.start.offset < at) {
                break;
            }
            if self.tested_by_directive(&use_cursor, use_start, around.previous) {
                break;
            }
            (first, at) = (use_cursor.extent(), use_start);
        }
        let mut last = extent;
        let mut at = end.offset;
        // Forwards, for a declaration that ends before its `;`.
        while let Some((&use_start, &(use_end, use_cursor))) =
            uses.range(at..around.next_start.max(at)).next().filter(|_| !has_body)
        {
            let between = self.tu.tokens(&last.end_point().through(&use_cursor.extent()));
            if between.is_empty() || between.iter().any(|t| t.start.offset >= at && t.start.offset < use_start) {
                break;
            }
            (last, at) = (use_cursor.extent(), use_end);
        }
        first.through(&last)
    }

    /// Whether an empty use is the name a directive tests: the token before
    /// it (read from the previous declaration's end, or the file's start)
    /// is `ifdef`, `ifndef`, `elifdef`, `elifndef` or `defined`. Tested as
    /// `defined(NAME)`, a `)` follows it, so it is never taken anyway.
    fn tested_by_directive(&self, use_cursor: &Cursor<'t>, use_start: u32, previous: Option<Cursor<'t>>) -> bool {
        let from = match previous {
            Some(previous) => previous.extent().end_point(),
            None => self.tu.file_start(&use_cursor.extent()),
        };
        let before = self.tu.tokens(&from.through(&use_cursor.extent().start_point()));
        let last = before.iter().rev().find(|t| t.start.offset < use_start);
        last.is_some_and(|t| ["ifdef", "ifndef", "elifdef", "elifndef", "defined"].contains(&t.text.as_str()))
    }
}
