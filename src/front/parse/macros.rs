//! Macros and the preprocessor: definitions (and redefinitions), uses, what
//! an object-like macro expands to, and the text `#if` left out.
//!
//! Qualifiers are often spelled through macros (`#define GLOBAL_AS __global`),
//! so a macro's meaning is read from its definition's tokens, expanding
//! chains of object-like macros, rather than from the expanded AST.

use std::collections::{HashMap, HashSet};

use super::branches;
use super::libclang::{Cursor, CursorKind, Extent, RawToken, TokenKind};
use super::shared::{MacroMeaning, KERNEL_WORDS};
use super::walker::Walker;
use crate::facts::syntax::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn record_macro(&mut self, c: &Cursor) {
        let name = c.spelling();
        let tokens = self.tu.tokens(&c.extent());
        // Everything after the name (parameters too): two definitions spelled alike mean the same
        // thing (C's "identical redefinition", as headers sharing `#define GLOBAL_AS __global` do).
        let definition: Vec<String> = tokens.iter().skip(1).map(|t| t.text.clone()).collect();
        match self.macro_definitions.get(&name) {
            Some(earlier) if *earlier == definition => return,
            Some(_) => {
                self.redefined_macros.insert(name.clone());
            }
            None => {
                self.macro_definitions.insert(name.clone(), definition);
                let after_name = self.written_tokens(tokens.get(1..).unwrap_or_default());
                self.macro_defs.insert(name.clone(), super::expand::definition(&after_name, c.is_function_like_macro()));
            }
        }
        let words = self.macro_words.entry(name.clone()).or_default();
        for t in tokens.iter().skip(1).filter(|t| t.kind == TokenKind::Identifier) {
            words.push(t.text.clone());
            self.syntax.macro_bodies.entry(t.text.clone()).or_insert_with(|| name.clone());
        }
        if c.is_function_like_macro() {
            self.macros.insert(name, None);
            return;
        }
        // The first token is the macro's own name.
        let body = tokens.iter().skip(1).map(|t| t.text.clone()).collect();
        self.macros.insert(name, Some(body));
    }

    /// A macro use: where it starts and ends, to find it again from a token,
    /// and, when it expands to nothing, the use itself (`extent`).
    pub(super) fn record_expansion(&mut self, c: &Cursor<'t>) {
        let (start, end) = (c.extent().start(), c.extent().end());
        if let Some(f) = &start.file {
            let id = self.file_index(f);
            self.expansions.insert((id, start.offset), (c.spelling(), end.offset));
            self.expansion_cursors.insert((id, start.offset), *c);
            if self.expands_to_nothing(c) {
                self.empty_uses.entry(id).or_default().insert(start.offset, (end.offset, *c));
            }
        }
    }

    /// Whether a macro use expands to nothing: the definition in force at
    /// the use has no body, or one of object-like macros that expand to
    /// nothing (`#define NOINLINE`, `#define ATTR(x)`).
    fn expands_to_nothing(&self, c: &Cursor) -> bool {
        let Some(definition) = c.referenced().filter(|d| d.kind() == CursorKind::MacroDefinition) else { return false };
        let tokens = self.tu.tokens(&definition.extent());
        // The first token is the macro's own name; a function-like macro's parameters follow it.
        let mut body = match tokens.first() {
            Some(name) if name.text == c.spelling() => tokens[1..].iter(),
            _ => return false,
        };
        if definition.is_function_like_macro() && !body.by_ref().any(|t| t.text == ")") {
            return false;
        }
        body.all(|t| {
            let mut words = Vec::new();
            t.kind == TokenKind::Identifier && self.expand_words(&t.text, &mut words, 0) && words.is_empty()
        })
    }

    /// What a macro expands to, for qualifiers: exactly one qualifier
    /// keyword (through chains of object-like macros), no address space at
    /// all (empty, `const`, a type such as `#define vtype uint4`), or
    /// something else (a space beside other words, a function-like macro).
    pub(super) fn macro_meaning(&self, name: &str) -> MacroMeaning {
        let mut words = Vec::new();
        if !self.expand_words(name, &mut words, 0) {
            return MacroMeaning::Other;
        }
        let spaces: Vec<&String> =
            words.iter().filter(|w| Space::from_keyword(w).is_some() || KERNEL_WORDS.contains(&w.as_str())).collect();
        match (spaces.as_slice(), words.len()) {
            ([], _) => MacroMeaning::Empty,
            ([keyword], 1) => MacroMeaning::Keyword((*keyword).clone()),
            _ => MacroMeaning::Other,
        }
    }

    /// The words an object-like macro expands to, recursively; false when
    /// that cannot be known (a function-like macro, too deep).
    pub(super) fn expand_words(&self, name: &str, out: &mut Vec<String>, depth: u32) -> bool {
        match self.macros.get(name) {
            Some(Some(body)) if depth < 16 => {
                for word in body {
                    if self.macros.contains_key(word) {
                        if !self.expand_words(word, out, depth + 1) {
                            return false;
                        }
                    } else {
                        out.push(word.clone());
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// The macros that stand for exactly one address-space keyword.
    pub(super) fn record_qualifier_macros(&mut self) {
        let names: Vec<String> = self.macros.keys().cloned().collect();
        for name in names {
            if let MacroMeaning::Keyword(keyword) = self.macro_meaning(&name) {
                if let Some(space) = Space::from_keyword(&keyword) {
                    self.syntax.qualifier_macros.insert(name, space);
                }
            }
        }
    }

    /// The macro used at this token, if the token starts a macro expansion.
    pub(super) fn macro_at(&mut self, token: &RawToken) -> Option<(String, u32)> {
        let file = self.file_index(token.start.file.as_deref()?);
        self.expansions.get(&(file, token.start.offset)).cloned()
    }

    /// The macro whose expansion contains the cursor's name, if any.
    pub(super) fn enclosing_macro(&mut self, c: &Cursor) -> Option<String> {
        let loc = c.location();
        let file = self.file_index(loc.file.as_deref()?);
        self.expansions
            .iter()
            .filter(|((f, start), (_, end))| *f == file && *start <= loc.offset && loc.offset < (*end).max(*start + 1))
            .map(|(_, (name, _))| name.clone())
            .min()
    }

    /// Whether the tokens use, directly or through other macros' bodies, a macro defined more than once.
    pub(super) fn uses_redefined_macro(&self, tokens: &[RawToken]) -> bool {
        if self.redefined_macros.is_empty() {
            return false;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = tokens.iter().filter(|t| t.kind == TokenKind::Identifier).map(|t| t.text.as_str()).collect();
        while let Some(word) = stack.pop() {
            let Some(body) = self.macro_words.get(word) else { continue };
            if !seen.insert(word) {
                continue;
            }
            if self.redefined_macros.contains(word) {
                return true;
            }
            stack.extend(body.iter().map(|w| w.as_str()));
        }
        false
    }

    /// The text `#if` left out: its names, those used as more than `p[i]` or
    /// `p->f`, whether it spells `__constant` (directly or through a macro),
    /// and its branches. A branch the build does not take may still use what
    /// a migration changes.
    pub(super) fn record_skipped(&mut self) {
        let skipped: Vec<(Extent<'t>, ByteRange, Vec<RawToken>)> =
            self.tu.skipped_ranges().into_iter().map(|extent| (extent, self.range(&extent), self.tu.tokens(&extent))).collect();
        let chains = self.directives_before_continued_chains(&skipped);
        for (extent, range, tokens) in skipped {
            let first_line = extent.start().line;
            let names_constant = |word: &str| Space::from_keyword(word) == Some(Space::Constant);
            let spells_constant = tokens.iter().any(|t| {
                let mut words = Vec::new();
                names_constant(&t.text) || (self.expand_words(&t.text, &mut words, 0) && words.iter().any(|w| names_constant(w)))
            });
            // `p[i]` and `p->f` only reach the pointee; `&p[i]` takes an address again.
            let text = |i: usize| tokens.get(i).map(|t| t.text.as_str());
            let mut escaping: Vec<String> = (0..tokens.len())
                .filter(|&i| tokens[i].kind == TokenKind::Identifier)
                .filter(|&i| !(matches!(text(i + 1), Some("[") | Some("->")) && (i == 0 || text(i - 1) != Some("&"))))
                .map(|i| tokens[i].text.clone())
                .collect();
            escaping.sort();
            escaping.dedup();
            let within = branches::directives(&tokens);
            let earlier = chains.get(&range.file).map(|before| branches::earlier_tests(before, range.start)).unwrap_or_default();
            let branches = branches::branches(&tokens, &within, earlier);
            let mut identifiers: Vec<String> =
                tokens.into_iter().filter(|t| t.kind == TokenKind::Identifier).map(|t| t.text).collect();
            identifiers.sort();
            identifiers.dedup();
            // Collected in place, the list kept the tokens' whole buffer
            // (every token of the range, several times a name's size) for
            // as long as the unit lives.
            identifiers.shrink_to_fit();
            let skipped = SkippedRange { range, first_line, identifiers, escaping, spells_constant, branches };
            self.syntax.skipped.push(super::memo::intern_skipped(skipped));
        }
        self.syntax.skipped.sort_by_key(|s| s.range);
        self.record_condition_macros();
    }

    /// For each file with a skipped range that continues a chain (it opens
    /// at `#elif` or `#else`): the file's conditional directives, where the
    /// chain's earlier tests are, read once per batch for each file's bytes
    /// (`memo::file_directives`; the unit's own file, whose text may be laid
    /// over, up to its last such range).
    fn directives_before_continued_chains(
        &self,
        skipped: &[(Extent<'t>, ByteRange, Vec<RawToken>)],
    ) -> HashMap<FileIndex, std::sync::Arc<[branches::Directive]>> {
        let mut last: HashMap<FileIndex, (u32, Extent<'t>)> = HashMap::new();
        for (extent, range, tokens) in skipped {
            if !matches!(tokens.get(1).map(|t| t.text.as_str()), Some("elif" | "else")) {
                continue;
            }
            if last.get(&range.file).is_none_or(|(start, _)| *start < range.start) {
                last.insert(range.file, (range.start, *extent));
            }
        }
        let read = |(file, (_, extent)): (FileIndex, (u32, Extent<'t>))| {
            let directives = match self.tu.whole_file(&extent).filter(|_| file != 0) {
                Some((whole, bytes)) => {
                    let name = self.syntax.files[file].to_string_lossy().into_owned();
                    super::memo::file_directives((name, bytes), || branches::directives(&self.tu.tokens(&whole)))
                }
                None => {
                    let before = self.tu.file_start(&extent).through(&extent.start_point());
                    branches::directives(&self.tu.tokens(&before)).into()
                }
            };
            (file, directives)
        };
        last.into_iter().map(read).collect()
    }

    /// The macros the skipped code's conditions use, and those their
    /// definitions use in turn, as conditions read them (see `KernelSyntax::condition_macros`).
    fn record_condition_macros(&mut self) {
        let conditions = self.syntax.skipped.iter().flat_map(|s| s.branches.iter().flat_map(|b| b.condition.iter().cloned()));
        let mut wanted: Vec<String> = conditions.collect();
        while let Some(name) = wanted.pop() {
            if self.syntax.condition_macros.contains_key(&name) || self.redefined_macros.contains(&name) {
                continue;
            }
            let Some(definition) = self.macro_definitions.get(&name) else { continue };
            let Some(read) = condition_macro(definition, self.macros.get(&name).is_some_and(Option::is_none)) else { continue };
            wanted.extend(read.body.iter().cloned());
            self.syntax.condition_macros.insert(name, read);
        }
    }
}

/// A definition's tokens after the name, read as a condition macro: a
/// function-like macro's parameters, then the body; none for a variadic
/// macro or one that pastes or quotes (no condition reads those).
fn condition_macro(definition: &[String], function_like: bool) -> Option<ConditionMacro> {
    // Comments are tokens here (`TokenKind::Comment`); a condition reads none.
    let definition: Vec<String> = definition.iter().filter(|t| !t.starts_with("/*") && !t.starts_with("//")).cloned().collect();
    let mut rest = definition.as_slice();
    let params = if function_like {
        let close = rest.iter().position(|t| t == ")")?;
        let params: Vec<String> = rest[1..close].iter().filter(|t| *t != ",").cloned().collect();
        rest = &rest[close + 1..];
        Some(params)
    } else {
        None
    };
    let quotes = |t: &String| t == "#" || t == "##" || t == "..." || t == "__VA_ARGS__";
    if rest.iter().any(quotes) || params.as_ref().is_some_and(|p| p.iter().any(quotes)) {
        return None;
    }
    Some(ConditionMacro { params, body: rest.to_vec() })
}
