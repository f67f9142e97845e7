//! A pointer declaration as written: each level's address space (from clang's
//! type) matched with the qualifier spelled for it (a keyword, a macro use,
//! or hidden behind a typedef, a complex macro or parentheses), and array
//! parameters, which decay to pointers to private memory.

use super::libclang::{Cursor, CursorKind, RawToken, TokenKind, Type, TypeKind};
use super::shared::{MacroMeaning, TypedefFacts};
use super::walker::Walker;
use crate::facts::syntax::*;

/// A typedef named by a declaration's type.
pub(super) struct TypedefUse {
    /// The typedef's name at the declaration.
    pub(super) used_at: ByteRange,
    pub(super) facts: TypedefFacts,
}

impl Walker<'_, '_> {
    /// A param or local of pointer (or array-parameter) type.
    pub(super) fn pointer_decl(&mut self, c: &Cursor, kind: DeclKind) -> Option<PointerDecl> {
        let ty = c.ty();
        let canonical = ty.canonical();
        let is_pointer = canonical.kind() == TypeKind::Pointer;
        let is_array = canonical.is_array();
        let is_param = matches!(kind, DeclKind::Param(_));
        if !(is_pointer || (is_param && is_array)) {
            return None;
        }
        let tokens = self.tu.tokens(&c.extent());
        let loc = c.location();
        let name = c.spelling();
        let pos = self.pos(&loc);
        let in_macro = self.enclosing_macro(c);
        let sizeof_used = self.sizeof_targets.contains(&(pos.file, pos.offset));
        let mut casts = self.cast_targets.get(&(pos.file, pos.offset)).cloned().unwrap_or_default();
        casts.sort_by_key(|c| (c.file, c.line, c.spelling.range()));
        casts.dedup();
        let split = split_at_name(&tokens, &name, loc.offset);
        let mut pos = pos;
        let (before, after): (&[RawToken], &[RawToken]) = match split {
            Some((b, a)) => (&tokens[..b], &tokens[a..]),
            None => (&tokens[..], &[]),
        };
        let typedefs = self.typedefs_used(c);
        // An array parameter decays to a pointer to private memory; clang may
        // report it either as the decayed pointer or as the array type.
        let array = if !is_param {
            None
        } else if after.first().map(|t| t.text == "[").unwrap_or(false) {
            Some(self.bracket_array(after, &name, loc.offset)?)
        } else {
            // `const block_t d` with `typedef uint block_t[16]`.
            let named = split.is_some() && !name.is_empty();
            typedef_array(&typedefs, before, named, loc.offset)
        };
        let hidden_typedef = typedefs.iter().find(|t| t.facts.spells_space).map(|t| t.facts.name.clone());
        // A parameter a macro use declares (a helper the macro stamps out): its specifiers as expanded.
        let stamped = if in_macro.is_some() && is_param { self.before_in_expansion(c, &name, pos) } else { None };
        let levels = if is_array || array.is_some() {
            let element = if is_array { canonical.element() } else { canonical.pointee() };
            vec![self.array_level(&element, before, hidden_typedef.as_deref(), array.is_none())]
        } else if let Some(expanded) = stamped {
            let (groups, parenthesised) = super::sites::qualifier_groups(&expanded);
            let levels = levels_of(&ty, groups, parenthesised, hidden_typedef.as_deref());
            // Every declaration of the use is at the use: one whose space is an
            // argument is known by that argument instead, so that the helper's
            // parameters are told apart (and stand or fall on their own).
            if let Some(Spelling::MacroSite { site, .. }) = levels.first().map(|l| &l.spelling) {
                if site.kind == SiteKind::Argument && site.range.file == pos.file {
                    pos.offset = site.range.start;
                }
            }
            levels
        } else {
            self.levels(&ty, before, hidden_typedef.as_deref())
        };
        Some(PointerDecl { kind, name, pos, type_text: ty.spelling(), levels, array, in_macro, sizeof_used, casts })
    }

    /// `T name[N]`: the brackets after the name (`None` when they do not close).
    fn bracket_array(&mut self, after: &[RawToken], name: &str, name_offset: u32) -> Option<ArrayDeclarator> {
        let close = after.iter().position(|t| t.text == "]")?;
        let file = self.file_index(after[0].start.file.as_deref().unwrap_or_default());
        let brackets = ByteRange { file, start: after[0].start.offset, end: after[close].end.offset };
        let name_start = if name.is_empty() { brackets.start } else { name_offset };
        Some(ArrayDeclarator {
            spelled: after.iter().map(|t| t.text.as_str()).collect(),
            form: ArrayForm::Brackets {
                brackets,
                name_start,
                more_dimensions: after.get(close + 1).map(|t| t.text == "[").unwrap_or(false),
            },
        })
    }

    /// The one level of an array (or array parameter): the element's space,
    /// whose qualifier, if spelled, is in the specifiers.
    fn array_level(&mut self, element: &Type, before: &[RawToken], hidden_typedef: Option<&str>, unspelled: bool) -> Level {
        let space = space_of(element.address_space()).unwrap_or(Space::Private);
        let spelling = match (self.spelled_qualifiers(before).into_iter().next().flatten(), hidden_typedef) {
            (Some(spelled), _) => spelled,
            (None, Some(name)) => Spelling::Hidden { why: format!("typedef `{name}`") },
            (None, None) if unspelled => Spelling::Hidden { why: "array type not spelled at the declaration".into() },
            (None, None) => Spelling::Unqualified,
        };
        Level { space, spelling }
    }

    /// The typedefs a declaration's type names: where, whether their own
    /// text spells an address space, and the element type of an array typedef.
    pub(super) fn typedefs_used(&mut self, c: &Cursor) -> Vec<TypedefUse> {
        let mut out = Vec::new();
        for child in c.children().into_iter().filter(|k| k.kind() == CursorKind::TypeRef) {
            let Some(decl) = child.referenced().filter(|d| d.kind() == CursorKind::TypedefDecl) else { continue };
            let extent = child.extent();
            let start = extent.start();
            let Some(file) = start.file.as_deref() else { continue };
            let used_at = ByteRange { file: self.file_index(file), start: start.offset, end: extent.end().offset };
            let facts = self.typedef_facts(&decl);
            out.push(TypedefUse { used_at, facts });
        }
        out
    }

    /// A typedef declaration's facts, read from its tokens the first time it is used.
    fn typedef_facts(&mut self, decl: &Cursor) -> TypedefFacts {
        let location = decl.location();
        let key = (self.file_index(location.file.as_deref().unwrap_or_default()), location.offset);
        if let Some(known) = self.typedef_facts.get(&key) {
            return known.clone();
        }
        let underlying = decl.typedef_underlying();
        let decl_tokens = self.tu.tokens(&decl.extent());
        let spells_space = underlying.canonical().kind() != TypeKind::Record
            && self.spelled_qualifiers(&decl_tokens).iter().flatten().next().is_some();
        let array_element = if underlying.is_array() {
            let element = underlying.element();
            (!element.canonical().is_array() && !spells_space).then(|| element.spelling())
        } else {
            None
        };
        let facts = TypedefFacts { name: decl.spelling(), spells_space, array_element };
        self.typedef_facts.insert(key, facts.clone());
        facts
    }

    /// The qualifier tokens in the specifier part, grouped by `*`:
    /// result[s] is the qualifier written after the s-th star (s = 0: before
    /// any star). `None` for a group with no qualifier token.
    pub(super) fn spelled_qualifiers(&mut self, before: &[RawToken]) -> Vec<Option<Spelling>> {
        let mut groups: Vec<Option<Spelling>> = vec![None];
        for t in before {
            if t.kind == TokenKind::Punctuation && t.text == "*" {
                groups.push(None);
                continue;
            }
            if t.kind == TokenKind::Comment || t.kind == TokenKind::Literal {
                continue;
            }
            if let Some(s) = self.token_qualifier(t) {
                let slot = groups.last_mut().unwrap();
                // A complex macro hides what the group means; keep the first hidden reason.
                // A qualifier written twice (`__local __local`, legal C) is not one range to edit.
                *slot = match slot.take() {
                    None => Some(s),
                    Some(hidden @ Spelling::Hidden { .. }) => Some(hidden),
                    Some(_) => Some(Spelling::Hidden { why: "declaration that writes it twice".into() }),
                };
            }
        }
        groups
    }

    /// The qualifier one token spells: an address-space keyword, a macro that
    /// stands for one, or a macro that hides what it means.
    fn token_qualifier(&mut self, t: &RawToken) -> Option<Spelling> {
        let file = t.start.file.as_deref().map(|f| f.to_string());
        let range = |me: &mut Self, end: u32| ByteRange {
            file: file.as_deref().map(|f| me.file_index(f)).unwrap_or(0),
            start: t.start.offset,
            end,
        };
        if Space::from_keyword(&t.text).is_some() {
            Some(Spelling::Keyword { text: t.text.clone(), range: range(self, t.end.offset) })
        } else if let Some((name, end)) = self.macro_at(t) {
            match self.macro_meaning(&name) {
                MacroMeaning::Keyword(k) if Space::from_keyword(&k).is_some() => {
                    Some(Spelling::MacroUse { name, keyword: k, range: range(self, end.max(t.end.offset)) })
                }
                MacroMeaning::Keyword(_) | MacroMeaning::Empty => None,
                MacroMeaning::Other => Some(Spelling::Hidden { why: format!("macro `{name}`") }),
            }
        } else {
            None
        }
    }

    /// Levels of a pointer type, matched with the qualifiers spelled before the
    /// name; where a macro there hides them, as its expansion spells them.
    pub(super) fn levels(&mut self, ty: &Type, before: &[RawToken], hidden_typedef: Option<&str>) -> Vec<Level> {
        let groups = self.spelled_qualifiers(before);
        let parenthesised = before.iter().any(|t| t.text == "(");
        let hidden = groups.iter().flatten().any(|s| matches!(s, Spelling::Hidden { .. }));
        let (groups, parenthesised) = match (hidden || parenthesised).then(|| self.expanded_groups(before)).flatten() {
            Some(expanded) => expanded,
            None => (groups, parenthesised),
        };
        levels_of(ty, groups, parenthesised, hidden_typedef)
    }
}

/// Levels of a pointer type from the qualifier groups spelled before its name
/// (`parenthesised`: a parenthesis among those tokens).
fn levels_of(ty: &Type, groups: Vec<Option<Spelling>>, parenthesised: bool, hidden_typedef: Option<&str>) -> Vec<Level> {
    // Semantic levels from clang's type.
    let mut semantic = Vec::new();
    let mut current = ty.canonical();
    while current.kind() == TypeKind::Pointer {
        let pointee = current.pointee();
        semantic.push(space_of(pointee.address_space()).unwrap_or(Space::Private));
        current = pointee.canonical();
    }
    let stars = groups.len() - 1;
    // `float (*m)[4]` (a pointer to an array) is the one parenthesised form read here.
    let to_array = ty.canonical().pointee().canonical().is_array();
    let parenthesised = !to_array && parenthesised;
    // A macro that expands to more than a qualifier hides what the levels are spelled as.
    let hidden_macro = groups.iter().flatten().find(|s| matches!(s, Spelling::Hidden { .. })).cloned();
    semantic
        .iter()
        .enumerate()
        .map(|(i, space)| {
            // Level i (depth i+1) is qualified in group stars - (i + 1).
            let default_space = *space == Space::Private || *space == Space::Generic;
            let spelling = if parenthesised {
                Spelling::Hidden { why: "parenthesised declarator".into() }
            } else if stars > i {
                match &groups[stars - (i + 1)] {
                    Some(s) => s.clone(),
                    None if default_space && hidden_typedef.is_none() => Spelling::Unqualified,
                    None if hidden_typedef.is_some() && i == 0 => {
                        Spelling::Hidden { why: format!("typedef `{}`", hidden_typedef.unwrap_or_default()) }
                    }
                    None => Spelling::Hidden { why: "qualifier not spelled at the declaration".into() },
                }
            } else if let Some(hidden) = &hidden_macro {
                hidden.clone()
            } else if let Some(name) = hidden_typedef {
                Spelling::Hidden { why: format!("typedef `{name}`") }
            } else if default_space {
                Spelling::Unqualified
            } else {
                Spelling::Hidden { why: "typedef".into() }
            };
            Level { space: *space, spelling }
        })
        .collect()
}

/// Where a declaration's tokens split around its name: (end of the specifiers,
/// start of what follows the name). An unnamed parameter splits at its first `[`.
fn split_at_name(tokens: &[RawToken], name: &str, name_offset: u32) -> Option<(usize, usize)> {
    if name.is_empty() {
        tokens.iter().position(|t| t.text == "[").map(|i| (i, i))
    } else {
        tokens.iter().position(|t| t.start.offset == name_offset && t.text == name).map(|i| (i, i + 1))
    }
}

/// A parameter whose type is an array typedef (`block_t d` with `typedef uint block_t[16]`).
/// `named`: the declaration has a name, found among its tokens.
fn typedef_array(typedefs: &[TypedefUse], before: &[RawToken], named: bool, name_offset: u32) -> Option<ArrayDeclarator> {
    let t = typedefs.iter().find(|t| t.facts.array_element.is_some())?;
    // `block_t d` -> `T *d`: the blanks up to the name go with the typedef's name.
    let mut name_range = t.used_at;
    let just_before_name = named && before.last().map(|last| last.start.offset == t.used_at.start).unwrap_or(false);
    if just_before_name {
        name_range.end = name_offset;
    }
    Some(ArrayDeclarator {
        spelled: t.facts.name.clone(),
        form: ArrayForm::Typedef { name: name_range, element: t.facts.array_element.clone().unwrap_or_default() },
    })
}

/// Clang's language address-space numbers (`LangAS`) as seen through libclang.
pub(super) fn space_of(lang_as: u32) -> Option<Space> {
    match lang_as {
        0 => None,
        1 => Some(Space::Global),
        2 => Some(Space::Local),
        3 => Some(Space::Constant),
        4 => Some(Space::Private),
        5 => Some(Space::Generic),
        _ => None,
    }
}
