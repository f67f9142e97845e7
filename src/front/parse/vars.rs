//! Program-scope variables: those declared at the top level and a
//! function's `static`s, with the qualifier spelled for them and where a
//! missing one would go.

use super::declarator::space_of;
use super::libclang::{Cursor, RawToken};
use super::shared::Neighbours;
use super::walker::Walker;
use crate::facts::syntax::*;

impl<'t> Walker<'t, '_> {
    /// `function`: the link name of the function a `static` is declared in.
    /// `around`: its neighbours, for the empty macro uses it takes (`declaration_extent`).
    pub(super) fn program_var(&mut self, c: &Cursor<'t>, around: Neighbours<'t>, function: Option<&str>) -> ProgramVar {
        let loc = c.location();
        let pos = self.pos(&loc);
        let ty = c.ty();
        let extent = self.declaration_extent(c, around, false);
        let tokens: Vec<RawToken> = self.tu.tokens(&extent).into_iter().take_while(|t| t.start.offset < loc.offset).collect();
        let groups = self.spelled_qualifiers(&tokens);
        let spelling = groups.first().cloned().flatten().unwrap_or(Spelling::Unqualified);
        // Where a missing qualifier goes: after the storage class, before the type.
        let type_start = tokens
            .iter()
            .find(|t| t.text != "static" && t.text != "extern")
            .filter(|t| t.start.file.is_some() && t.start.file == loc.file)
            .map(|t| (t.start.file.clone().unwrap_or_default(), t.start.offset, t.end.offset))
            .map(|(file, start, end)| ByteRange { file: self.file_index(&file), start, end });
        let name = c.spelling();
        ProgramVar {
            ir_name: function.map_or(name.clone(), |f| format!("{f}.{name}")),
            function: function.map(String::from),
            name,
            pos,
            space: space_of(ty.address_space()).unwrap_or(Space::Constant),
            type_text: ty.spelling(),
            spelling,
            initialized: c.has_initializer(),
            type_start,
        }
    }
}
