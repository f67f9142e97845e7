//! Rule `merge-duplicates`: helpers written once per address space become
//! one generic helper.
//!
//! What it does: given `float dot_g(__global float *a, ...)` and `float
//! dot_l(__local float *a, ...)` whose bodies are the same token for token,
//! the first is kept (renamed `dot` when that name is free), the other's
//! definition and prototypes are deleted with the blank lines they leave,
//! and every call of either is renamed. The survivor's qualifiers go by the
//! generic rules, in the same change set. Why: in OpenCL 2.0 one generic
//! helper serves global, local and private memory; the copies were only
//! there because 1.x had no generic pointers. Which groups merge, and which
//! member survives, is decided in `migrate::duplicates`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::{Edit, Fix};
use crate::infer::Evidence;
use crate::migrate::duplicates::Member;
use crate::syntax::{ByteRange, FileId, Function, Space};
use crate::unit::Unit;

pub const CODE: &str = "merge-duplicates";

/// A merge's fix, and the files it edits: (canonical path, a unit that has it, its id there).
pub struct MergeEdits {
    pub fix: Fix,
    pub files: Vec<(PathBuf, usize, FileId)>,
}

/// The fix merging `members` (the survivor first) into one function named `name`,
/// in every unit of `seeing`. `kept` are the group's members that stay, for the message.
pub fn fix(units: &[Unit], seeing: &BTreeSet<usize>, members: &[Member], kept: &[(Member, String)], name: &str) -> MergeEdits {
    let survivor = &members[0];
    let deleted: Vec<&Member> = members[1..].iter().collect();
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    let mut edits: BTreeSet<Edit> = BTreeSet::new();
    let mut files = Vec::new();
    let mut renames: BTreeSet<(PathBuf, u32)> = BTreeSet::new();
    let mut spaces: Vec<Option<Space>> = vec![None; members.len()];
    for &u in seeing {
        let unit = &units[u];
        let mut edit = |id: FileId, start: u32, end: u32, replacement: &str| {
            let file = unit.canonical(id).to_path_buf();
            if !files.iter().any(|(f, _, _)| f == &file) {
                files.push((file.clone(), u, id));
            }
            edits.insert(Edit { file, start, end, replacement: replacement.to_string() });
        };
        for f in &unit.syntax.functions {
            let key = (unit.canonical(f.pos.file).to_path_buf(), f.pos.offset);
            if let Some(i) = members.iter().position(|m| m.key == key) {
                spaces[i] = spaces[i].or(first_space(f));
            }
            let is_survivor = if f.is_definition { key == survivor.key } else { f.link_name == survivor.link_name };
            let is_deleted = if f.is_definition {
                deleted.iter().any(|m| m.key == key)
            } else {
                deleted.iter().any(|m| m.link_name == f.link_name)
            };
            if is_deleted {
                let (start, end) = tidy_deletion(unit.text(f.extent.file), f.extent);
                edit(f.extent.file, start, end, "");
            } else if is_survivor && f.name != name && f.in_macro.is_none() {
                edit(f.pos.file, f.pos.offset, f.pos.offset + f.name.len() as u32, name);
            }
        }
        for r in unit.syntax.references.iter().filter(|r| links.contains(r.link_name.as_str()) && r.spelled) {
            if r.callee != name {
                renames.insert((unit.canonical(r.range.file).to_path_buf(), r.range.start));
                edit(r.range.file, r.range.start, r.range.end, name);
            }
        }
    }
    // Calls inside the deleted copies go with them.
    let inside_deleted = |(file, at): &(PathBuf, u32)| {
        edits.iter().any(|e| &e.file == file && e.replacement.is_empty() && e.start <= *at && *at < e.end && e.end - e.start > 1)
    };
    let renamed = renames.iter().filter(|c| !inside_deleted(c)).count();
    let evidence = members
        .iter()
        .zip(&spaces)
        .map(|(m, space)| Evidence {
            space: space.unwrap_or(Space::Private),
            from: format!("`{}`", m.name),
            at: format!("{}:{}", m.file.display(), m.line),
        })
        .collect();
    let cited: Vec<String> = members.iter().map(|m| m.cited()).collect();
    let mut message = format!(
        "{} merged into one generic `{name}`: the same tokens but for address-space qualifiers{}; {} deleted, {} renamed",
        cited.join(", "),
        if name != survivor.name { format!(" (`{}` renamed)", survivor.name) } else { String::new() },
        crate::text::plural(deleted.len(), "definition", ""),
        crate::text::plural(renamed, "call", ""),
    );
    for (m, why) in kept {
        message.push_str(&format!("; {} stays: {why}", m.cited()));
    }
    let fix = Fix {
        rule: CODE,
        file: survivor.file.clone(),
        line: survivor.line,
        function: survivor.name.clone(),
        decl: crate::syntax::Pos { file: 0, line: survivor.line, col: 0, offset: survivor.key.1 },
        link_name: survivor.link_name.clone(),
        message,
        required: false,
        evidence,
        edits: coalesce_deletions(edits),
        variable: None,
    };
    MergeEdits { fix, files }
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
        let range = crate::syntax::ByteRange { file: 0, start: start as u32, end: (start + what.len()) as u32 };
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
