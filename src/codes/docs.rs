//! The documentation of every code, under fixed headings.

use super::Code;

/// A code's documentation: a one-line summary, then the fixed headings.
#[derive(Debug, Clone, Copy)]
pub struct Doc {
    pub summary: &'static str,
    /// What it does: what clasp changes (a rule) or keeps (a reason).
    pub what: &'static str,
    /// Why: the language or tool fact behind it.
    pub why: &'static str,
    /// Example: OpenCL C before and after (a rule), or code that gives the reason.
    pub example: &'static str,
    /// When it refuses: when the rule makes no change (a rule), or when the reason applies.
    pub refuses: &'static str,
    /// Fix safety: how the change is proven (a rule), or what the user can do (a reason).
    pub safety: &'static str,
}

pub(super) fn doc(code: Code) -> Doc {
    let _ = code;
    Doc { summary: "", what: "", why: "", example: "", refuses: "", safety: "" }
}
