//! Explicit casts to a pointer into a named space, attributed to every
//! pointer declaration whose value the cast's operand is or is derived from.
//!
//! Derived means the pointer the operand yields points into the memory the
//! declaration points into: the declaration itself, pointer arithmetic on
//! it (`p + 4`, `p -= 2`), a step (`p++`), an element's or a field's
//! address (`&p[i]`, `&p->f.g[2]`), an assignment's or a comma's value,
//! either arm of `?:`, and other casts, through any parentheses. A pointer
//! loaded from memory (`pp[i]`, `s.ptr`) is another pointer, not derived.
//! Casts through a local variable need no walk: the variable is a pointer
//! declaration of its own, with its own casts and a flow from the first.
//!
//! `infer` refuses a declaration whose casts would change space once it is
//! generic, or whose cast qualifier cannot be edited; otherwise the rules
//! remove each cast's qualifier with the declaration's, so the cast only retypes.

use super::declarator::space_of;
use super::libclang::{Cursor, CursorKind, Expression, RawToken, TypeKind};
use super::walker::Walker;
use crate::facts::syntax::*;

impl Walker<'_, '_> {
    /// Records `cast` for the declarations it is derived from, if it casts to a pointer into a named space.
    pub(super) fn record_named_cast(&mut self, cast: &Cursor) {
        let ty = cast.ty();
        let canonical = ty.canonical();
        if canonical.kind() != TypeKind::Pointer {
            return;
        }
        let space = match space_of(canonical.pointee().address_space()) {
            Some(Space::Generic) | None => return,
            Some(space) => space,
        };
        let Some(operand) = cast.children().into_iter().last() else { return };
        let mut roots = Vec::new();
        self.derived_roots(&operand, &mut roots);
        if roots.is_empty() {
            return;
        }
        let loc = cast.location();
        let Some(file) = loc.file.as_deref().map(|f| self.file_index(f)) else { return };
        let named = NamedCast { space, file, line: loc.line, spelling: self.cast_spelling(cast) };
        for key in roots {
            self.cast_targets.entry(key).or_default().push(named.clone());
            if let Some(capture) = self.capture.as_mut() {
                capture.cast_targets.push((key, named.clone()));
            }
        }
    }

    /// How a cast's type spells the space of what it points to: a keyword or
    /// a macro use standing for one (editable), else hidden (a macro around
    /// the cast, a typedef, a parenthesised declarator).
    fn cast_spelling(&mut self, cast: &Cursor) -> Spelling {
        if let Some(name) = self.enclosing_macro(cast) {
            return Spelling::Hidden { why: format!("macro `{name}` around the cast") };
        }
        let tokens = self.tu.tokens(&cast.extent());
        let Some(close) = closing_parenthesis(&tokens) else {
            return Spelling::Hidden { why: "cast not spelled as `(type)`".into() };
        };
        let hidden_typedef = self.typedefs_used(cast).into_iter().find(|t| t.facts.spells_space).map(|t| t.facts.name);
        let levels = self.levels(&cast.ty(), &tokens[1..close], hidden_typedef.as_deref());
        levels.into_iter().next().map(|level| level.spelling).unwrap_or(Spelling::Unqualified)
    }

    /// The pointer declarations (by place) whose value the pointer-typed `expr` is or is derived from.
    fn derived_roots(&mut self, expr: &Cursor, roots: &mut Vec<(FileIndex, u32)>) {
        // An integer (`(T *)(size_t)p`) is no pointer derived from `p`: its conversion pins `p` on its own.
        if !is_pointer(expr) && !expr.ty().canonical().is_array() {
            return;
        }
        let children = expr.children();
        if expr.kind() == CursorKind::DeclRefExpr {
            if let Some(decl) = expr.referenced().filter(|d| matches!(d.kind(), CursorKind::ParmDecl | CursorKind::VarDecl)) {
                let loc = decl.location();
                if let Some(file) = loc.file.as_deref() {
                    roots.push((self.file_index(file), loc.offset));
                }
            }
            return;
        }
        if expr.kind() == CursorKind::CStyleCast {
            if let Some(operand) = children.last() {
                self.derived_roots(operand, roots);
            }
            return;
        }
        match expr.expression() {
            Expression::Transparent | Expression::Step if children.len() == 1 => self.derived_roots(&children[0], roots),
            Expression::Arithmetic | Expression::Assignment | Expression::Conditional => {
                // The pointer operands: the value is one of them (moved by an integer).
                let arms = if expr.expression() == Expression::Conditional && children.len() == 3 {
                    &children[1..]
                } else {
                    &children[..]
                };
                for arm in arms.iter().filter(|c| is_pointer(c)) {
                    self.derived_roots(arm, roots);
                }
            }
            Expression::Comma => {
                if let Some(last) = children.last() {
                    self.derived_roots(last, roots);
                }
            }
            Expression::AddressOf if children.len() == 1 => self.lvalue_roots(&children[0], roots),
            // An array decays to a pointer into the memory it lies in.
            Expression::Member | Expression::Subscript | Expression::Dereference if expr.ty().canonical().is_array() => {
                self.lvalue_roots(expr, roots)
            }
            _ => {}
        }
    }

    /// The pointer declarations into whose memory the lvalue `expr` lies.
    fn lvalue_roots(&mut self, expr: &Cursor, roots: &mut Vec<(FileIndex, u32)>) {
        let children = expr.children();
        match expr.expression() {
            Expression::Transparent if children.len() == 1 => self.lvalue_roots(&children[0], roots),
            Expression::Dereference if children.len() == 1 => self.derived_roots(&children[0], roots),
            // `p[i]` (or `i[p]`): the pointer operand; `a[i]` of an array: the array's memory.
            Expression::Subscript | Expression::Member => {
                for part in &children {
                    if is_pointer(part) {
                        self.derived_roots(part, roots);
                    } else if part.ty().canonical().is_array() || part.ty().canonical().kind() == TypeKind::Record {
                        self.lvalue_roots(part, roots);
                    }
                }
            }
            _ => {}
        }
    }
}

fn is_pointer(expr: &Cursor) -> bool {
    expr.ty().canonical().kind() == TypeKind::Pointer
}

/// The index of the `)` closing a cast's leading `(` (nested parentheses counted).
fn closing_parenthesis(tokens: &[RawToken]) -> Option<usize> {
    if tokens.first()?.text != "(" {
        return None;
    }
    super::closing_index(tokens.iter().map(|t| t.text.as_str()))
}
