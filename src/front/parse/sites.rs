//! Qualifiers written inside macros: a declaration whose address space comes
//! from a macro's body (`#define CONST_ARRAY(T) __global const T *`) or from
//! an argument of a macro use (`STAMP(sum_l, const __local)` defining a
//! helper) is spelled `Spelling::MacroSite`, the token's own place.
//!
//! Removing that token changes every expansion that carries it, so after the
//! walk every use of the unit that can carry a site is expanded again
//! (`expand`), and each carried token is matched with the declarations that
//! spell through it: a site is editable in this unit only if every token it
//! puts anywhere is the first-level qualifier of a pointer declaration and no
//! `#if`-skipped text uses the macro. Otherwise `SiteFacts::disagreement`
//! names the expansion that differs. Agreement across units (and with the
//! decisions) is the planner's (`migrate::plan::agree`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use super::expand::{Definitions, Token, NO_FILE};
use super::libclang::{Cursor, RawToken, TokenKind};
use super::walker::Walker;
use crate::facts::syntax::*;

/// (outermost macro use, site) -> how many first-level qualifiers of declarations it puts there.
type FirstLevel = BTreeMap<((FileIndex, u32), ByteRange), usize>;

impl Walker<'_, '_> {
    /// Tokens as written in a file (comments left out), for expanding.
    pub(super) fn written_tokens(&mut self, raw: &[RawToken]) -> Vec<Token> {
        let mut out = Vec::new();
        for t in raw.iter().filter(|t| t.kind != TokenKind::Comment) {
            // A macro defined on the command line (`-D`) is written in no file.
            let file = match t.start.file.as_deref() {
                Some(name) => self.file_index(name),
                None => NO_FILE,
            };
            let range = ByteRange { file, start: t.start.offset, end: t.end.offset };
            out.push(Token {
                text: t.text.clone(),
                identifier: t.kind == TokenKind::Identifier,
                range,
                site: None,
                expansion: None,
            });
        }
        out
    }

    fn definitions(&self) -> Definitions<'_> {
        Definitions { defs: &self.macro_defs, redefined: &self.redefined_macros }
    }

    /// What the macro use starting at `at` expands to, read once.
    fn expand_use(&mut self, at: (FileIndex, u32)) -> Option<Arc<[Token]>> {
        if let Some(known) = self.expanded_uses.get(&at) {
            return known.clone();
        }
        let cursor = *self.expansion_cursors.get(&at)?;
        let raw = self.tu.tokens(&cursor.extent());
        let written = self.written_tokens(&raw);
        let expanded: Option<Arc<[Token]>> = self.definitions().expand(&written).map(Arc::from);
        self.expanded_uses.insert(at, expanded.clone());
        expanded
    }

    /// The qualifier groups of specifiers that use a macro, read from their
    /// expansion (see `qualifier_groups`); `None` when none is used or the
    /// expansion is not modelled.
    pub(super) fn expanded_groups(&mut self, before: &[RawToken]) -> Option<(Vec<Option<Spelling>>, bool)> {
        if !before.iter().any(|t| self.macro_at(t).is_some()) {
            return None;
        }
        let written = self.written_tokens(before);
        let expanded = self.definitions().expand(&written)?;
        Some(qualifier_groups(&expanded))
    }

    /// The specifiers of a parameter that a macro use declares (a helper
    /// stamped out by a macro), as expanded: the tokens from the `(` or `,`
    /// before its name to the name. `None` where the name is not found once.
    pub(super) fn before_in_expansion(&mut self, c: &Cursor, name: &str, pos: Pos) -> Option<Vec<Token>> {
        let expanded = self.expand_use((pos.file, pos.offset))?;
        let spelled = c.spelling_location();
        let file = self.file_index(spelled.file.as_deref()?);
        let mut at = expanded
            .iter()
            .enumerate()
            .filter(|(_, t)| t.text == name && t.range.file == file && t.range.start == spelled.offset);
        let (index, _) = at.next()?;
        if at.next().is_some() {
            return None;
        }
        let mut depth = 0usize;
        let mut start = index;
        while start > 0 {
            match expanded[start - 1].text.as_str() {
                ")" | "]" => depth += 1,
                "(" | "[" if depth == 0 => break,
                "(" | "[" => depth -= 1,
                "," | ";" | "{" | "}" if depth == 0 => break,
                _ => {}
            }
            start -= 1;
        }
        Some(expanded[start..index].to_vec())
    }

    /// Every site a declaration spells through, checked against every use of the unit that carries it.
    pub(super) fn record_macro_sites(&mut self) {
        let (sites, first_level) = self.declared_sites();
        if sites.is_empty() {
            return;
        }
        let outermost = self.outermost_expansions();
        // The uses to expand: an argument's own use; for a body, every use of a macro that reaches it.
        let mut uses: BTreeMap<(FileIndex, u32), Vec<ByteRange>> = BTreeMap::new();
        for (range, site) in &sites {
            let reaching = self.macros_reaching(&site.macro_name);
            for (at, (name, _)) in &self.expansions {
                let carries = match site.kind {
                    SiteKind::Argument => false,
                    SiteKind::Body => reaching.contains(name.as_str()),
                };
                if carries {
                    uses.entry(*outermost.get(at).unwrap_or(at)).or_default().push(*range);
                }
            }
        }
        for (at, range) in first_level.keys().filter(|(_, s)| sites[s].kind == SiteKind::Argument) {
            uses.entry(*at).or_default().push(*range);
        }
        let mut disagreements: BTreeMap<ByteRange, String> = BTreeMap::new();
        for (at, carried) in uses {
            let carried: BTreeSet<ByteRange> = carried.into_iter().collect();
            let Some(expanded) = self.expand_use(at) else {
                let detail = format!("its use at {} is not expanded by clasp", self.describe_at(at));
                for site in carried {
                    disagreements.entry(site).or_insert_with(|| detail.clone());
                }
                continue;
            };
            for site in carried {
                let found = expanded.iter().filter(|t| t.range == site && t.site.is_some()).count();
                let declared = first_level.get(&(at, site)).copied().unwrap_or(0);
                if found != declared {
                    let detail = format!(
                        "its expansion at {} puts it where no pointer parameter or local can change",
                        self.describe_at(at)
                    );
                    disagreements.entry(site).or_insert(detail);
                }
            }
        }
        for (range, site) in &sites {
            if site.kind == SiteKind::Body && !disagreements.contains_key(range) {
                if let Some(at) = self.skipped_use_of(&site.macro_name) {
                    disagreements.insert(*range, format!("macro `{}` is used in code skipped by #if at {at}", site.macro_name));
                }
            }
        }
        for (range, site) in sites {
            let disagreement = disagreements.remove(&range);
            self.syntax.macro_sites.insert(range, SiteFacts { site, disagreement });
        }
    }

    /// The sites the unit's declarations spell through, and how many
    /// first-level qualifiers each puts in each outermost macro use.
    fn declared_sites(&self) -> (BTreeMap<ByteRange, MacroSite>, FirstLevel) {
        let mut sites = BTreeMap::new();
        let mut first_level = FirstLevel::new();
        for decl in self.syntax.functions.iter().flat_map(|f| f.pointers.iter()) {
            for (depth, level) in decl.levels.iter().enumerate() {
                let Spelling::MacroSite { site, expansion, .. } = &level.spelling else { continue };
                sites.insert(site.range, site.clone());
                if depth == 0 {
                    let at = (expansion.file, expansion.start);
                    *first_level.entry((at, site.range)).or_default() += 1;
                }
            }
        }
        (sites, first_level)
    }

    /// Each macro use inside another's written extent (a macro named in an
    /// argument) -> the outermost use around it.
    fn outermost_expansions(&self) -> BTreeMap<(FileIndex, u32), (FileIndex, u32)> {
        let mut by_start: Vec<((FileIndex, u32), u32)> = self.expansions.iter().map(|(at, (_, end))| (*at, *end)).collect();
        by_start.sort();
        let mut out = BTreeMap::new();
        let mut current: Option<((FileIndex, u32), u32)> = None;
        for (at, end) in by_start {
            match current {
                Some((outer, outer_end)) if outer.0 == at.0 && at.1 < outer_end => {
                    out.insert(at, outer);
                }
                _ => current = Some((at, end)),
            }
        }
        out
    }

    /// `name` and every macro whose body names it, directly or not.
    fn macros_reaching<'a>(&'a self, name: &'a str) -> HashSet<&'a str> {
        let mut reached: HashSet<&str> = HashSet::new();
        reached.insert(name);
        loop {
            let more: Vec<&str> = self
                .macro_words
                .iter()
                .filter(|(m, words)| !reached.contains(m.as_str()) && words.iter().any(|w| reached.contains(w.as_str())))
                .map(|(m, _)| m.as_str())
                .collect();
            if more.is_empty() {
                return reached;
            }
            reached.extend(more);
        }
    }

    /// Where code `#if` skips uses `name` (or a macro reaching it), other than to define or test it.
    fn skipped_use_of(&self, name: &str) -> Option<String> {
        let reaching = self.macros_reaching(name);
        for skipped in &self.syntax.skipped {
            if !skipped.identifiers.iter().any(|w| reaching.contains(w.as_str())) {
                continue;
            }
            let path = self.syntax.files[skipped.range.file].to_string_lossy();
            let same = |e: &super::libclang::Extent| {
                let start = e.start();
                start.offset == skipped.range.start && start.file.as_deref() == Some(path.as_ref())
            };
            let at = format!("{}:{}", self.syntax.files[skipped.range.file].display(), skipped.first_line);
            // Where the skipped text cannot be read again, it counts as a use.
            let Some(extent) = self.tu.skipped_ranges().into_iter().find(same) else { return Some(at) };
            let tokens = self.tu.tokens(&extent);
            let used = tokens.iter().enumerate().any(|(i, t)| {
                let named_by_directive = i >= 1
                    && matches!(tokens[i - 1].text.as_str(), "define" | "undef" | "ifdef" | "ifndef" | "defined")
                    || i >= 2 && tokens[i - 1].text == "(" && tokens[i - 2].text == "defined";
                t.kind == TokenKind::Identifier && reaching.contains(t.text.as_str()) && !named_by_directive
            });
            if used {
                return Some(at);
            }
        }
        None
    }

    /// "file:line:col" of a macro use, for messages.
    fn describe_at(&self, at: (FileIndex, u32)) -> String {
        match self.expansion_cursors.get(&at) {
            Some(c) => {
                let loc = c.extent().start();
                format!("{}:{}:{}", self.syntax.files[at.0].display(), loc.line, loc.column)
            }
            None => self.syntax.files[at.0].display().to_string(),
        }
    }
}

/// The qualifier written after each `*` of expanded specifiers (see
/// `spelled_qualifiers`), and whether a parenthesis is left among them.
pub(super) fn qualifier_groups(expanded: &[Token]) -> (Vec<Option<Spelling>>, bool) {
    let mut groups: Vec<Option<Spelling>> = vec![None];
    for t in expanded {
        if t.text == "*" {
            groups.push(None);
            continue;
        }
        if Space::from_keyword(&t.text).is_none() {
            continue;
        }
        let spelling = match (&t.site, t.expansion) {
            (Some((macro_name, _)), _) if t.range.file == NO_FILE => {
                Spelling::Hidden { why: format!("macro `{macro_name}` defined on the command line") }
            }
            (Some((macro_name, kind)), Some(expansion)) => {
                let site = MacroSite { macro_name: macro_name.clone(), kind: *kind, range: t.range };
                Spelling::MacroSite { site, keyword: t.text.clone(), expansion }
            }
            _ => Spelling::Keyword { text: t.text.clone(), range: t.range },
        };
        let slot = groups.last_mut().expect("one group at least");
        *slot = match slot.take() {
            None => Some(spelling),
            Some(_) => Some(Spelling::Hidden { why: "declaration that writes it twice".into() }),
        };
    }
    (groups, expanded.iter().any(|t| t.text == "("))
}
