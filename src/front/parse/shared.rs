//! What the parts of the walk share, below all of them: the walker
//! (`walker`) and the parts that extend it (`declarator`, `extent`,
//! `function`, `macros`, ...) name these, and this names none of them.

use super::libclang::{Cursor, CursorKind};

/// The keywords that make a function a kernel.
pub(super) const KERNEL_WORDS: [&str; 2] = ["__kernel", "kernel"];

/// What a macro's body amounts to, for qualifier purposes.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum MacroMeaning {
    Empty,
    Keyword(String),
    Other,
}

/// What a typedef's own declaration spells.
#[derive(Clone)]
pub(super) struct TypedefFacts {
    pub(super) name: String,
    /// Its text spells an address-space qualifier.
    pub(super) spells_space: bool,
    /// For `typedef T name[N]`: how `T` is spelled (if one-dimensional and unqualified).
    pub(super) array_element: Option<String>,
}

/// Where a top-level declaration's neighbours in its file end and start:
/// the uses it may take lie between (a use before the previous declaration's
/// end is inside it). Offsets in the declaration's file.
#[derive(Clone, Copy)]
pub(super) struct Neighbours<'t> {
    /// The previous declaration in the file (`None`: this is the first).
    pub(super) previous: Option<Cursor<'t>>,
    pub(super) previous_end: u32,
    pub(super) next_start: u32,
}

impl Neighbours<'_> {
    /// No bound: a declaration whose neighbours are not known (a `static` in a function) takes no use.
    pub(super) const NONE: Neighbours<'static> = Neighbours { previous: None, previous_end: u32::MAX, next_start: 0 };
}

/// For each top-level cursor, its neighbours (declarations in the same file).
pub(super) fn neighbours<'t>(top: &[Cursor<'t>]) -> Vec<Neighbours<'t>> {
    let is_declaration = |c: &Cursor| {
        !matches!(c.kind(), CursorKind::MacroDefinition | CursorKind::MacroExpansion | CursorKind::InclusionDirective)
    };
    let places: Vec<Option<(std::sync::Arc<str>, u32, u32)>> = top
        .iter()
        .map(|c| {
            let extent = c.extent();
            let (start, end) = (extent.start(), extent.end());
            is_declaration(c).then_some(())?;
            Some((start.file?, start.offset, end.offset))
        })
        .collect();
    let mut out = vec![Neighbours { previous: None, previous_end: 0, next_start: u32::MAX }; top.len()];
    let mut last: std::collections::HashMap<std::sync::Arc<str>, usize> = Default::default();
    for (i, place) in places.iter().enumerate() {
        let Some((file, start, _)) = place else { continue };
        if let Some(&before) = last.get(file) {
            out[i].previous = Some(top[before]);
            out[i].previous_end = places[before].as_ref().map_or(0, |p| p.2);
            out[before].next_start = *start;
        }
        last.insert(file.clone(), i);
    }
    out
}
