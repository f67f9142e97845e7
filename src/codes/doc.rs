//! A code's documentation as data: the fixed headings `clasp rule` prints.
//! A rule's is the `DOC` of its module under `rules`, a reason's a constant
//! under `codes::reasons`, a lint's one under `codes::lints`; `rules::registry::doc` finds either from the table.

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

/// How every rule's change is proven, said once: each rule adds what is its own.
macro_rules! verified {
    ($own:literal) => {
        concat!(
            "Every change set (the declarations linked by pointer flows, across the batch) is recompiled as the target, ",
            "and every kernel that runs a changed function is compiled for amdgcn before and after, put through one fixed ",
            "pass pipeline (every helper inlined, address spaces inferred) and compared canonically. A set whose result ",
            "does not compile is withdrawn (`verify-failed`), as is one whose kernels differ (`not-equivalent`); the rest ",
            "is kept. `--allow-unverified` keeps unproven sets marked unverified; `--no-verify` skips the checks. ",
            $own
        )
    };
}

pub(crate) use verified;

impl Doc {
    /// The headings `clasp rule` prints, each with its text, worded for a rule or a reason.
    pub fn sections(&self, kind: super::Kind) -> [(&'static str, &'static str); 5] {
        let (when, safety) = match kind {
            super::Kind::Rule => ("When it refuses", "Fix safety"),
            super::Kind::Reason | super::Kind::Lint => ("When it applies", "What to do"),
        };
        [("What it does", self.what), ("Why", self.why), ("Example", self.example), (when, self.refuses), (safety, self.safety)]
    }
}
