//! What the user keeps as it is: a `// clasp: keep` comment alone on the
//! line just before a declaration or its function's name (every rule, or
//! `// clasp: keep(CODE, ...)` for those rules), and the rules `--select`
//! and `--ignore` (or clasp.toml, for the batch or a `[[file]]`'s files)
//! leave out of a declaration's file. Each kept declaration is pinned with
//! code `suppressed` before the inference runs, so what flows into it stays
//! named too and a required change it blocks is an error, as for any pin.
//! Which rule would change a declaration is the code table's
//! (`rules::registry::declaration_rule`), as for the fixes themselves.

use std::collections::BTreeMap;

use crate::codes::Code;
use crate::facts::syntax::{FileIndex, Function, PointerDecl};
use crate::front::unit::Unit;
use crate::settings::options::MigrateOptions;

/// What one `// clasp: keep` comment keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Keep {
    /// Every rule (no list, or a list with a code clasp does not know).
    All,
    /// Only these rules.
    Rules(Vec<Code>),
}

/// The comments of a unit's files, by file and the line they are on (1-based).
#[derive(Default)]
pub(super) struct Comments {
    by_file: BTreeMap<FileIndex, BTreeMap<u32, (Keep, String)>>,
}

impl Comments {
    /// Why `decl` of `function` is kept, if it is: its own comment, its
    /// function's, or its rule left out of its file by `--select`/`--ignore`,
    /// clasp.toml's `select`/`ignore` or a `[[file]]`'s (`MigrateOptions::left_out_in`).
    pub(super) fn kept(
        &mut self,
        unit: &Unit,
        function: &Function,
        decl: &PointerDecl,
        options: &MigrateOptions,
    ) -> Option<String> {
        let rule = crate::rules::registry::declaration_rule(decl);
        let mut lines = vec![(decl.pos.file, decl.pos.line)];
        lines.push((function.pos.file, function.pos.line));
        for (file, line) in lines {
            let comments = self.by_file.entry(file).or_insert_with(|| scan(unit.text(file)));
            match comments.get(&line.saturating_sub(1)) {
                Some((Keep::All, text)) => return Some(format!("kept by `{text}` (line {})", line - 1)),
                Some((Keep::Rules(rules), text)) if rule.is_some_and(|r| rules.contains(&r)) => {
                    return Some(format!("kept by `{text}` (line {})", line - 1))
                }
                _ => {}
            }
        }
        rule.and_then(|rule| options.left_out_in(unit.canonical(decl.pos.file), rule).cloned())
    }
}

/// Every line of `text` that is only a `// clasp: keep` comment, by line number.
fn scan(text: &[u8]) -> BTreeMap<u32, (Keep, String)> {
    let mut found = BTreeMap::new();
    if memchr::memmem::find(text, b"clasp:").is_none() {
        return found;
    }
    for (index, line) in text.split(|b| *b == b'\n').enumerate() {
        let Ok(line) = std::str::from_utf8(line) else { continue };
        if let Some(keep) = parse(line.trim()) {
            found.insert(index as u32 + 1, (keep, line.trim().to_string()));
        }
    }
    found
}

/// `// clasp: keep` or `// clasp: keep(generic-param, generic-local)`.
fn parse(line: &str) -> Option<Keep> {
    let rest = line.strip_prefix("//")?.trim_start().strip_prefix("clasp:")?.trim_start().strip_prefix("keep")?.trim();
    if rest.is_empty() {
        return Some(Keep::All);
    }
    let list = rest.strip_prefix('(')?.strip_suffix(')')?;
    let codes: Result<Vec<Code>, String> = list.split(',').map(|c| Code::parse(c.trim())).collect();
    // An unknown code keeps everything: a typing error never changes code meant to be kept.
    Some(codes.map_or(Keep::All, Keep::Rules))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_comments_are_read_whole_line_only() {
        assert_eq!(parse("// clasp: keep"), Some(Keep::All));
        assert_eq!(parse("//clasp:keep"), Some(Keep::All));
        assert_eq!(
            parse("// clasp: keep(generic-param, generic-local)"),
            Some(Keep::Rules(vec![Code::GenericParam, Code::GenericLocal]))
        );
        assert_eq!(parse("// clasp: keep(generic-parm)"), Some(Keep::All), "an unknown code keeps everything");
        assert_eq!(parse("// clasp: keeper"), None);
        assert_eq!(parse("x = 1; // clasp: keep"), None);
        let lines = scan(b"a\n  // clasp: keep\nfloat f(__global float *p);\n");
        assert_eq!(lines.keys().copied().collect::<Vec<_>>(), [2]);
    }
}
