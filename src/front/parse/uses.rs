//! Expressions inside function bodies that matter to a pointer declaration
//! or to a function: `sizeof(p)`, explicit casts to a named space, casts
//! that spell no space passed as arguments, and every use of a function's name.

use std::collections::HashSet;

use super::libclang::{Cursor, CursorKind, RawToken, TypeKind};
use super::walker::Walker;
use crate::facts::syntax::*;

impl Walker<'_, '_> {
    /// Uses of a pointer that observe more than its value: `sizeof(p)` (its
    /// own size) and `(__global T *)(p + 1)` (an explicit cast that names a
    /// space, which must lose it if `p` becomes generic: `casts`).
    pub(super) fn find_observed_uses(&mut self, c: &Cursor) {
        let caller = if c.mangling().is_empty() { c.spelling() } else { c.mangling() };
        let mut called: HashSet<(FileIndex, u32)> = HashSet::new();
        let first_reference = self.syntax.references.open_mut().len();
        let mut stack = c.children();
        while let Some(node) = stack.pop() {
            match node.kind() {
                CursorKind::DeclRefExpr => self.record_reference(&node, &caller),
                CursorKind::SizeofExpr => {
                    let first = self.tu.tokens(&node.extent()).into_iter().next();
                    if first.map(|t| t.text == "sizeof").unwrap_or(false) {
                        if let Some(key) = self.operand_decl(&node) {
                            self.sizeof_targets.insert(key);
                            if let Some(capture) = self.capture.as_mut() {
                                capture.sizeof_targets.push(key);
                            }
                        }
                    }
                }
                CursorKind::CallExpr => {
                    if let Some(callee) = self.callee_name_at(&node) {
                        called.insert(callee);
                    }
                    self.record_unqualified_cast_args(&node);
                }
                CursorKind::CStyleCast => self.record_named_cast(&node),
                _ => {}
            }
            stack.extend(node.children());
        }
        let mine = &mut self.syntax.references.open_mut()[first_reference..];
        for reference in mine.iter_mut() {
            reference.called = called.contains(&(reference.range.file, reference.range.start));
        }
        mine.sort_by_key(|r| r.range);
    }

    /// A use of a function's name (a call's callee, or its address).
    fn record_reference(&mut self, node: &Cursor, caller: &str) {
        let Some(function) = node.referenced().filter(|d| d.kind() == CursorKind::FunctionDecl) else { return };
        let loc = node.location();
        let Some(file) = loc.file.as_deref() else { return };
        let file = self.file_index(file);
        let callee = function.spelling();
        let end = loc.offset + callee.len() as u32;
        // A name that a macro body produces is located at the macro's use (where an expansion
        // starts); one written in a macro's argument is located where it is written.
        let spelled = !self.expansions.contains_key(&(file, loc.offset));
        let mangled = function.mangling();
        self.syntax.references.push(FunctionRef {
            link_name: if mangled.is_empty() { callee.clone() } else { mangled },
            callee,
            range: ByteRange { file, start: loc.offset, end },
            called: false,
            spelled,
            caller: caller.to_string(),
        });
    }

    /// Where a call's callee names its function, through the implicit decay to a pointer.
    fn callee_name_at(&mut self, call: &Cursor) -> Option<(FileIndex, u32)> {
        let mut callee = call.children().into_iter().next();
        while let Some(node) = callee {
            match node.kind() {
                CursorKind::DeclRefExpr => {
                    let loc = node.location();
                    return Some((self.file_index(loc.file.as_deref()?), loc.offset));
                }
                CursorKind::Other(_) | CursorKind::ParenExpr if node.children().len() == 1 => {
                    callee = node.children().into_iter().next()
                }
                _ => return None,
            }
        }
        None
    }

    /// Arguments of a call written as a cast to a pointer type that spells no
    /// address space: such a cast makes a private pointer in 1.x and a generic
    /// one under 2.0, whatever its operand (`(uchar *)words`).
    fn record_unqualified_cast_args(&mut self, call: &Cursor) {
        let Some(callee) = call.referenced().filter(|d| d.kind() == CursorKind::FunctionDecl) else { return };
        for (index, arg) in call.children().into_iter().skip(1).enumerate() {
            let mut expr = Some(arg);
            while let Some(e) = expr.take() {
                match e.kind() {
                    CursorKind::ParenExpr | CursorKind::Other(_) if e.children().len() == 1 => {
                        expr = e.children().into_iter().next()
                    }
                    CursorKind::CStyleCast => {
                        if e.ty().canonical().kind() != TypeKind::Pointer {
                            break;
                        }
                        let tokens = self.tu.tokens(&e.extent());
                        // The type name: the tokens inside the cast's first parentheses.
                        let close = tokens.iter().position(|t| t.text == ")").unwrap_or(0);
                        let type_tokens: Vec<RawToken> = tokens.into_iter().take(close).skip(1).collect();
                        let spells_space = self.spelled_qualifiers(&type_tokens).into_iter().flatten().next().is_some();
                        if !spells_space {
                            let line = e.location().line;
                            self.syntax.unqualified_cast_args.push(UnqualifiedCastArg {
                                callee: callee.spelling(),
                                index: index as u32,
                                line,
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The declaration an expression's single operand names, through parentheses and implicit casts.
    fn operand_decl(&mut self, node: &Cursor) -> Option<(FileIndex, u32)> {
        let mut operand = node.children().into_iter().last();
        while let Some(inner) = operand {
            match inner.kind() {
                CursorKind::ParenExpr | CursorKind::Other(_) if inner.children().len() == 1 => {
                    operand = inner.children().into_iter().next();
                }
                CursorKind::DeclRefExpr => {
                    let loc = inner.referenced()?.location();
                    let id = self.file_index(loc.file.as_deref()?);
                    return Some((id, loc.offset));
                }
                _ => return None,
            }
        }
        None
    }
}
