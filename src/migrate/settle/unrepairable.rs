//! The error for a unit clasp cannot make compile as the target: one line
//! per cause, each starting `file:line:col: error:` (at the declaration
//! that blocks it, or at the compiler's own diagnostic), so editors' and
//! CI's problem matchers find every one of them.

use crate::front::unit::Unit;
use crate::migrate::report::Refusal;

/// One reason a unit cannot be repaired: where (when known) and what.
pub(super) struct Cause {
    at: Option<String>,
    text: String,
}

impl Cause {
    /// A declaration that must change and cannot.
    pub(super) fn blocking(r: &Refusal) -> Cause {
        let text = format!("`{}` of `{}`: {} ({})", r.name, r.function, r.detail, r.reason);
        let at = crate::input::source::Place { file: r.file.clone(), line: r.line, col: r.col };
        Cause { at: Some(at.to_string()), text }
    }

    /// A cause given as text: a compiler diagnostic inside it (`path:L:C: error: ...`)
    /// becomes its location, the rest of the text kept around it.
    pub(super) fn detail(detail: &str) -> Cause {
        match split_diagnostic(detail) {
            Some((before, at, after)) => Cause { at: Some(at.to_string()), text: format!("{before}{after}") },
            None => Cause { at: None, text: detail.to_string() },
        }
    }
}

/// The error message: a line per cause, unplaced causes at the unit's first
/// line; every place in a program's or an embedded kernel's virtual file
/// named where it is in a real file.
pub(super) fn message(unit: &Unit, target: &str, causes: &[Cause]) -> String {
    let fallback = unit.place(0, 0).to_string();
    let message = causes
        .iter()
        .map(|c| {
            let at = c.at.as_deref().unwrap_or(&fallback);
            format!("{at}: error: cannot make {} compile as {target}, left unchanged: {}", unit.label(), c.text)
        })
        .collect::<Vec<_>>()
        .join("\n");
    unit.diagnostics(&message)
}

/// `prefix: path:12:5: error: message` -> (`prefix: `, `path:12:5`, `message`):
/// the first diagnostic of clang's that the text quotes, if any.
fn split_diagnostic(text: &str) -> Option<(&str, &str, &str)> {
    let marker = ": error: ";
    let end = text.find(marker)?;
    let start = text[..end].rfind(": ").map_or(0, |i| i + 2);
    let at = &text[start..end];
    let mut parts = at.rsplitn(3, ':');
    let (col, line) = (parts.next()?, parts.next()?);
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (numeric(col) && numeric(line) && parts.next().is_some_and(|p| !p.is_empty()))
        .then(|| (&text[..start], at, &text[end + marker.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_diagnostic_becomes_the_location() {
        let text = "it does not compile as cl2.0: a/k.cl:22:38: error: passing 'x' changes address space";
        let (before, at, after) = split_diagnostic(text).unwrap();
        assert_eq!((before, at, after), ("it does not compile as cl2.0: ", "a/k.cl:22:38", "passing 'x' changes address space"));
        assert!(split_diagnostic("no location: error: here").is_none());
        assert!(split_diagnostic("nothing quoted").is_none());
    }
}
