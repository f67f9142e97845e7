//! A function: its name as written and as linked, whether it is a kernel,
//! its pointer declarations (return, parameters, locals), the `static`
//! variables it holds, and for a helper definition its tokens, to compare
//! with copies of it elsewhere.

use super::libclang::{Cursor, CursorKind, Extent, RawToken, TokenKind, TypeKind};
use super::shared::{MacroMeaning, Neighbours, KERNEL_WORDS};
use super::walker::Walker;
use crate::facts::syntax::*;
use std::collections::HashSet;
use std::sync::Arc;

impl<'t> Walker<'t, '_> {
    /// `tokens`: the function's whole `extent` (`declaration_extent`), read once by the caller.
    pub(super) fn function(&mut self, c: &Cursor<'t>, extent: &Extent, tokens: Vec<RawToken>) -> Function {
        let name = c.spelling();
        let mangled = c.mangling();
        let link_name = if mangled.is_empty() { name.clone() } else { mangled };
        let loc = c.location();
        let pos = self.pos(&loc);
        let extent = self.range(extent);
        let in_macro = self.enclosing_macro(c);
        // Tokens before the name: specifiers and the return type.
        let head: Vec<RawToken> = tokens.iter().take_while(|t| t.start.offset < loc.offset).cloned().collect();
        let is_kernel = self.spells_kernel(&head);
        let mut pointers: Vec<Arc<PointerDecl>> = self.return_decl(c, &head, pos, &in_macro).into_iter().map(Arc::new).collect();
        let children = c.children();
        let param_count = self.params(&children, &mut pointers);
        let is_definition = c.is_definition();
        if is_definition {
            let body: Vec<Cursor> = children.into_iter().filter(|k| k.kind() != CursorKind::ParmDecl).collect();
            let locals = self.locals(body, &link_name, &in_macro);
            pointers.extend(locals.into_iter().map(Arc::new));
        }
        // A helper that uses a macro defined twice (directly or through other macros) may mean
        // something else than a copy spelled the same: it is not compared (left empty).
        let comparable = is_definition && !is_kernel && !self.uses_redefined_macro(&tokens);
        let tokens = shared(if comparable { source_tokens(tokens) } else { Vec::new() });
        Function {
            tokens,
            name,
            link_name: link_name.clone(),
            is_kernel,
            is_definition,
            is_overloadable: link_name.starts_with("_Z"),
            pos,
            extent,
            in_macro,
            param_count,
            pointers,
        }
    }

    /// Whether the specifiers say `__kernel`, as a keyword or through a macro that stands for one.
    fn spells_kernel(&mut self, head: &[RawToken]) -> bool {
        let mut is_kernel = false;
        for t in head {
            if KERNEL_WORDS.contains(&t.text.as_str()) {
                is_kernel = true;
            } else if let Some((m, _)) = self.macro_at(t) {
                if let MacroMeaning::Keyword(w) = self.macro_meaning(&m) {
                    is_kernel |= KERNEL_WORDS.contains(&w.as_str());
                }
            }
        }
        is_kernel
    }

    /// The returned pointer, if the function returns one (declared where the function is).
    fn return_decl(&mut self, c: &Cursor, head: &[RawToken], pos: Pos, in_macro: &Option<String>) -> Option<PointerDecl> {
        let result = c.result_type();
        if result.canonical().kind() != TypeKind::Pointer {
            return None;
        }
        let hidden_typedef = self.typedefs_used(c).into_iter().find(|t| t.facts.spells_space).map(|t| t.facts.name);
        let levels = self.levels(&result, head, hidden_typedef.as_deref());
        Some(PointerDecl {
            kind: DeclKind::Return,
            name: "return".into(),
            pos,
            type_text: result.spelling(),
            levels,
            array: None,
            in_macro: in_macro.clone(),
            sizeof_used: false,
            casts: Vec::new(),
        })
    }

    /// The parameters' pointer declarations, into `pointers`; returns how many parameters there are.
    fn params(&mut self, children: &[Cursor], pointers: &mut Vec<Arc<PointerDecl>>) -> u32 {
        let mut param_count = 0;
        for child in children.iter().filter(|k| k.kind() == CursorKind::ParmDecl) {
            let index = param_count;
            param_count += 1;
            if let Some(decl) = self.pointer_decl(child, DeclKind::Param(index)) {
                pointers.push(Arc::new(decl));
            }
        }
        param_count
    }

    /// The pointer locals of a definition's body, in source order; its
    /// `static` variables go to the unit's program-scope variables.
    fn locals(&mut self, body: Vec<Cursor<'t>>, link_name: &str, in_macro: &Option<String>) -> Vec<PointerDecl> {
        let mut stack = body;
        let mut locals = Vec::new();
        while let Some(node) = stack.pop() {
            if node.kind() == CursorKind::VarDecl {
                if let Some(decl) = self.pointer_decl(&node, DeclKind::Local) {
                    locals.push(decl);
                }
                // A `static` in a function lives at program scope (2.0; 1.2 has none).
                if node.is_static() && in_macro.is_none() {
                    let v = self.program_var(&node, Neighbours::NONE, Some(link_name));
                    self.syntax.program_vars.push(v);
                }
            }
            stack.extend(node.children());
        }
        locals.sort_by_key(|d| d.pos);
        locals
    }
}

/// Every helper's tokens the batch has kept, once each: a big codebase's
/// units include the same headers, and each unit would otherwise hold its own
/// copy of every header helper's tokens (most of a unit's memory).
static KEPT_TOKENS: std::sync::LazyLock<std::sync::Mutex<HashSet<Arc<[SourceToken]>>>> =
    std::sync::LazyLock::new(Default::default);

/// `tokens`, shared with every function kept with the same ones.
fn shared(tokens: Vec<SourceToken>) -> Arc<[SourceToken]> {
    match KEPT_TOKENS.lock() {
        Ok(mut kept) => crate::support::ids::intern(&mut kept, tokens),
        Err(_) => tokens.into(),
    }
}

/// A helper's tokens as kept for comparison: comments left out, offsets only.
fn source_tokens(tokens: Vec<RawToken>) -> Vec<SourceToken> {
    // A new vector, not the raw tokens' buffer reused in place (three times the size, kept for the run).
    let mut kept = Vec::with_capacity(tokens.len());
    kept.extend(tokens.into_iter().filter(|t| t.kind != TokenKind::Comment).map(|t| SourceToken {
        text: t.text,
        start: t.start.offset,
        end: t.end.offset,
    }));
    kept
}
