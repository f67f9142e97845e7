//! The edits of a merge (rule `merge-duplicates`).
//!
//! What it does: given `float dot_g(__global float *a, ...)` and `float
//! dot_l(__local float *a, ...)` whose bodies are the same token for token,
//! the first is kept (renamed `dot` when that name is free), the other's
//! definition and prototypes are deleted with the blank lines they leave,
//! and every call of either is renamed. The survivor's qualifiers go by the
//! generic rules, in the same change set. Why: in OpenCL 2.0 one generic
//! helper serves global, local and private memory; the copies were only
//! there because 1.x had no generic pointers. Which groups merge, and which
//! member survives, is decided by the rest of this module.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::{Kept, Member};
use crate::codes::Code;
use crate::facts::syntax::{ByteRange, FileIndex, Function, Space};
use crate::front::unit::Unit;
use crate::infer::Evidence;
use crate::rules::{Edit, Fix};
use crate::support::ids::UnitId;

/// A merge's fix, and the files it edits: (canonical path, a unit that has it, its id there).
pub struct MergeEdits {
    pub fix: Fix,
    pub files: Vec<(PathBuf, UnitId, FileIndex)>,
}

/// The fix merging `members` (the survivor first) into one function named `name`,
/// in every unit of `seeing`. `kept` are the group's members that stay, for the message.
pub fn fix(units: &[Unit], seeing: &BTreeSet<UnitId>, members: &[Member], kept: &[Kept], name: &str) -> MergeEdits {
    let survivor = &members[0];
    let mut merge = Merge::new(members, name);
    for &u in seeing {
        merge.edit_functions(u, &units[u]);
        merge.rename_references(u, &units[u]);
    }
    let Merge { edits, files, renames, spaces, .. } = merge;
    let renamed = calls_renamed(&edits, &renames);
    let fix = Fix {
        rule: Code::MergeDuplicates,
        file: survivor.unit_file.clone(),
        line: survivor.line,
        col: survivor.col,
        function: survivor.name.clone(),
        decl: crate::facts::syntax::Pos { file: 0, line: survivor.line, col: 0, offset: survivor.key.offset },
        link_name: survivor.link_name.clone(),
        message: message(members, kept, name, renamed),
        required: false,
        evidence: evidence(members, &spaces),
        edits: coalesce_deletions(edits),
        variable: None,
        origin: None,
    };
    MergeEdits { fix, files }
}

/// A merge's edits as they are collected over the units seeing it.
struct Merge<'a> {
    members: &'a [Member],
    name: &'a str,
    edits: BTreeSet<Edit>,
    files: Vec<(PathBuf, UnitId, FileIndex)>,
    /// The calls renamed, by (canonical file, offset), to count them once across units.
    renames: BTreeSet<(PathBuf, u32)>,
    /// Per member, the space its first qualified pointer names, for the evidence.
    spaces: Vec<Option<Space>>,
}

impl<'a> Merge<'a> {
    fn new(members: &'a [Member], name: &'a str) -> Self {
        Merge {
            members,
            name,
            edits: BTreeSet::new(),
            files: Vec::new(),
            renames: BTreeSet::new(),
            spaces: vec![None; members.len()],
        }
    }

    /// One edit in file `id` of unit `u`, which the merge then edits.
    fn edit(&mut self, u: UnitId, unit: &Unit, id: FileIndex, (start, end): (u32, u32), replacement: &str) {
        let file = unit.canonical(id).to_path_buf();
        if !self.files.iter().any(|(f, _, _)| f == &file) {
            self.files.push((file.clone(), u, id));
        }
        self.edits.insert(Edit { file, start, end, replacement: replacement.to_string() });
    }

    /// The deleted members' definitions and prototypes go; the survivor's are renamed.
    fn edit_functions(&mut self, u: UnitId, unit: &Unit) {
        let (members, name) = (self.members, self.name);
        let survivor = &members[0];
        let deleted = &members[1..];
        for f in &unit.syntax.functions {
            let key = unit.key(f.pos.file, f.pos.offset);
            if let Some(i) = members.iter().position(|m| m.key == key) {
                self.spaces[i] = self.spaces[i].or(first_space(f));
            }
            // A definition is known by its place; a prototype only by its IR name.
            let is_survivor = if f.is_definition { key == survivor.key } else { f.link_name == survivor.link_name };
            let is_deleted = if f.is_definition {
                deleted.iter().any(|m| m.key == key)
            } else {
                deleted.iter().any(|m| m.link_name == f.link_name)
            };
            if is_deleted {
                // Tidied in the unit's whole text. (Tidied within a program's
                // source, a deletion ending that source took the blank line
                // before it, which the deletion of the function above takes
                // too: two merges then overlap and both are withdrawn.)
                let range = tidy_deletion(unit.text(f.extent.file), f.extent);
                self.edit(u, unit, f.extent.file, range, "");
            } else if is_survivor && f.name != name && f.in_macro.is_none() {
                self.edit(u, unit, f.pos.file, (f.pos.offset, f.pos.offset + f.name.len() as u32), name);
            }
        }
    }

    /// Every spelled call of a member takes the merged name.
    fn rename_references(&mut self, u: UnitId, unit: &Unit) {
        let name = self.name;
        let links: BTreeSet<&str> = self.members.iter().map(|m| m.link_name.as_str()).collect();
        for r in unit.syntax.references.iter().filter(|r| links.contains(r.link_name.as_str()) && r.spelled) {
            if r.callee != name {
                self.renames.insert((unit.canonical(r.range.file).to_path_buf(), r.range.start));
                self.edit(u, unit, r.range.file, (r.range.start, r.range.end), name);
            }
        }
    }
}

/// The renamed calls that survive: calls inside the deleted copies go with them.
fn calls_renamed(edits: &BTreeSet<Edit>, renames: &BTreeSet<(PathBuf, u32)>) -> usize {
    let inside_deleted = |(file, at): &(PathBuf, u32)| {
        edits.iter().any(|e| &e.file == file && e.replacement.is_empty() && e.start <= *at && *at < e.end && e.end - e.start > 1)
    };
    renames.iter().filter(|c| !inside_deleted(c)).count()
}

/// Each member with the space it served (private when it names none).
fn evidence(members: &[Member], spaces: &[Option<Space>]) -> Vec<Evidence> {
    members
        .iter()
        .zip(spaces)
        .map(|(m, space)| Evidence {
            space: space.unwrap_or(Space::Private),
            from: format!("`{}`", m.name),
            at: format!("{}:{}", crate::settings::paths::shown_path(&m.file), m.line),
        })
        .collect()
}

/// What merged into what, with the counts, then each kept member and why it stays.
fn message(members: &[Member], kept: &[Kept], name: &str, renamed: usize) -> String {
    let survivor = &members[0];
    let cited: Vec<String> = members.iter().map(|m| m.cited()).collect();
    let mut message = format!(
        "{} merged into one generic `{name}`: the same tokens but for address-space qualifiers{}; {} deleted, {} renamed",
        cited.join(", "),
        if name != survivor.name { format!(" (`{}` renamed)", survivor.name) } else { String::new() },
        crate::support::text::plural(members.len() - 1, "definition", ""),
        crate::support::text::plural(renamed, "call", ""),
    );
    for k in kept {
        message.push_str(&format!("; {} stays: {}", k.member.cited(), k.why));
    }
    message
}

/// Deletions that overlap or touch (two copies, each taking a blank line
/// between them) become one; other edits are kept as they are.
fn coalesce_deletions(edits: BTreeSet<Edit>) -> Vec<Edit> {
    let (deletions, others): (Vec<Edit>, Vec<Edit>) = edits.into_iter().partition(|e| e.replacement.is_empty());
    let mut merged: Vec<Edit> = Vec::new();
    for d in deletions {
        match merged.last_mut() {
            Some(last) if last.file == d.file && d.start <= last.end => last.end = last.end.max(d.end),
            _ => merged.push(d),
        }
    }
    merged.extend(others);
    merged.sort();
    merged
}

/// The space a member's first qualified pointer names, for the evidence.
fn first_space(f: &Function) -> Option<Space> {
    f.pointers
        .iter()
        .filter(|d| d.array.is_none())
        .find_map(|d| d.levels.first().filter(|l| l.spelling.range().is_some()).map(|l| l.space))
}

/// A declaration's range widened to whole lines when it has them to itself:
/// the indentation before it, a `;` and the line end after it, and one of
/// the blank lines around it, so no gap is left where it was.
pub fn tidy_deletion(text: &[u8], extent: ByteRange) -> (u32, u32) {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let (mut start, mut end) = (extent.start as usize, (extent.end as usize).min(text.len()));
    while start > 0 && blank(text[start - 1]) {
        start -= 1;
    }
    let owns_line_start = start == 0 || text[start - 1] == b'\n';
    if !owns_line_start {
        start = extent.start as usize;
    } else {
        start = attached_comment_start(text, start);
    }
    let mut after = end;
    while after < text.len() && blank(text[after]) {
        after += 1;
    }
    if after < text.len() && text[after] == b';' {
        end = after + 1;
        after = end;
        while after < text.len() && blank(text[after]) {
            after += 1;
        }
    }
    // A `// comment` ending the line is the copy's own.
    if owns_line_start && text[after..].starts_with(b"//") {
        after += text[after..].iter().position(|b| *b == b'\n' || *b == b'\r').unwrap_or(text.len() - after);
    }
    let line_end = |at: usize| -> Option<usize> {
        match text.get(at..) {
            Some([b'\n', ..]) => Some(at + 1),
            Some([b'\r', b'\n', ..]) => Some(at + 2),
            Some([]) => Some(at),
            _ => None,
        }
    };
    if owns_line_start {
        if let Some(next) = line_end(after) {
            end = next;
            let blank_before = start == 0 || text[..start].ends_with(b"\n\n") || text[..start].ends_with(b"\n\r\n");
            let mut probe = end;
            while probe < text.len() && blank(text[probe]) {
                probe += 1;
            }
            if blank_before && end == text.len() && start > 0 {
                // Nothing follows: the blank line before goes instead.
                start -= if text[..start].ends_with(b"\r\n") { 2 } else { 1 };
            } else if blank_before && probe < text.len() {
                if let Some(next) = line_end(probe) {
                    end = next;
                }
            }
        }
    }
    (start as u32, end as u32)
}

/// The start of the comment lines right above `line_start` (no blank line
/// between): they describe the deleted copy (`/* dst is global mem */`) and go
/// with it. Only whole-line comments: `// ...` lines, or a `/* ... */` block
/// that opens at the start of a line and closes at the end of the line above.
fn attached_comment_start(text: &[u8], line_start: usize) -> usize {
    let line_start_of = |at: usize| text[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut start = line_start;
    while start > 0 {
        let above_start = line_start_of(start - 1);
        let line = text[above_start..start - 1].trim_ascii();
        if line.starts_with(b"//") {
            start = above_start;
            continue;
        }
        if !line.ends_with(b"*/") {
            break;
        }
        // The block's opening: the last `/*` before its end, at the start of its line.
        let close = above_start + text[above_start..start - 1].windows(2).rposition(|w| w == b"*/").unwrap_or(0);
        let Some(open) = text[..close].windows(2).rposition(|w| w == b"/*") else { break };
        let open_line = line_start_of(open);
        if !text[open_line..open].iter().all(|b| *b == b' ' || *b == b'\t') {
            break;
        }
        start = open_line;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::tidy_deletion;

    fn delete(text: &str, what: &str) -> String {
        let start = text.find(what).unwrap();
        let range = crate::facts::syntax::ByteRange { file: 0, start: start as u32, end: (start + what.len()) as u32 };
        let (s, e) = tidy_deletion(text.as_bytes(), range);
        format!("{}{}", &text[..s as usize], &text[e as usize..])
    }

    #[test]
    fn deletions_leave_no_gap() {
        assert_eq!(delete("a();\n\nvoid f() {}\n\nb();\n", "void f() {}"), "a();\n\nb();\n");
        assert_eq!(delete("a();\nvoid f() {}\nb();\n", "void f() {}"), "a();\nb();\n");
        assert_eq!(delete("a();\n\n  void f(int x) ;\nb();\n", "void f(int x)"), "a();\n\nb();\n");
        assert_eq!(delete("void f() {}\n\nb();\n", "void f() {}"), "b();\n");
        assert_eq!(delete("a();\n\nvoid f() {}\n", "void f() {}"), "a();\n");
        assert_eq!(delete("a(); void f() {} b();\n", "void f() {}"), "a();  b();\n");
        // The comments right above a copy describe it and go with it; a comment with a blank line after it stays.
        assert_eq!(delete("a();\n\n/* global copy */\nvoid f() {}\n\nb();\n", "void f() {}"), "a();\n\nb();\n");
        assert_eq!(delete("a();\n// about\n// f\nvoid f() {}\nb();\n", "void f() {}"), "a();\nb();\n");
        assert_eq!(delete("/* all */\n\nvoid f() {}\n", "void f() {}"), "/* all */\n");
        assert_eq!(delete("x = 1; /* c */\nvoid f() {}\n", "void f() {}"), "x = 1; /* c */\n");
        assert_eq!(delete("a();\nvoid f(); // for b\nb();\n", "void f()"), "a();\nb();\n");
    }
}
