//! The registry of every code clasp prints: the fix rules, every reason
//! a change is refused, not merged, kept or withdrawn, and the lints about
//! a kept result. One table
//! (`table.rs`, a row per code) makes one enum with a stable kebab-case
//! string per code, so `--json`, `--statistics`, `--explain` and SARIF all
//! name codes from here and no code is ever chosen by matching
//! human-readable text. Each code's documentation is data under fixed
//! headings (`Doc`): a rule's lives in its own module under `rules`, a
//! reason's under `reasons`, a lint's under `lints`; `rules::registry`
//! reads them off the same table.
//!
//! This module is a leaf: every stage may name a code, and it names none of them.

mod doc;
pub mod lints;
pub mod reasons;
mod table;

use serde::{Serialize, Serializer};

pub(crate) use doc::verified;
pub use doc::Doc;
pub(crate) use table::code_table;

/// What a code names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A rewrite rule: its fixes are the changes clasp offers.
    Rule,
    /// Why something stays as it is: a declaration, a duplicate group, a
    /// program-scope table, or a change withdrawn by verification.
    Reason,
    /// A note about a kept, verified result: nothing changes or stays for
    /// it (what the migrated code costs, for example).
    Lint,
}

/// How a rule is chosen (a column of the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// It changes one declaration at a time: `--select`, `--ignore` and
    /// `// clasp: keep(CODE)` take it, and its module says which
    /// declarations it `applies` to.
    Declaration,
    /// It changes code across the batch: `--select` and `--ignore` take it.
    Batch,
    /// It follows the changes it serves, and is never chosen on its own.
    Follows,
}

/// What a reason does to a planned change (a column of the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Something stays as it is, never planned to change.
    Keeps,
    /// Verification may withdraw a planned change set with it: a function
    /// refused with it was planned, then withdrawn.
    Withdraws,
}

/// Makes the `Code` enum and what the table says of each code.
macro_rules! define_codes {
    (
        rules { $( $rule:ident = $rule_code:literal, $($module:ident)::+, $scope:ident; )* }
        reasons { $( $reason:ident = $reason_code:literal, $($doc:ident)::+, $effect:ident; )* }
        lints { $( $lint:ident = $lint_code:literal, $lint_doc:ident; )* }
    ) => {
        /// Every code clasp prints: rules, reasons and lints.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $( #[doc = concat!("Rule `", $rule_code, "`.")] $rule, )*
            $( #[doc = concat!("Reason `", $reason_code, "`.")] $reason, )*
            $( #[doc = concat!("Lint `", $lint_code, "`.")] $lint, )*
        }

        impl Code {
            /// Every code, rules first, then reasons, then lints, in the order of the table.
            pub const ALL: &'static [Code] = &[$( Code::$rule, )* $( Code::$reason, )* $( Code::$lint, )*];

            /// The stable string shown to users and in every report.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Code::$rule => $rule_code, )*
                    $( Code::$reason => $reason_code, )*
                    $( Code::$lint => $lint_code, )*
                }
            }

            /// How a rule is chosen; `None` for a reason or a lint.
            pub fn scope(self) -> Option<Scope> {
                match self {
                    $( Code::$rule => Some(Scope::$scope), )*
                    _ => None,
                }
            }

            /// What a reason does to a planned change; `None` for a rule or a lint.
            pub fn effect(self) -> Option<Effect> {
                match self {
                    $( Code::$reason => Some(Effect::$effect), )*
                    _ => None,
                }
            }
        }
    };
}

table::code_table!(define_codes);

impl Code {
    /// The code spelled `text`.
    pub fn parse(text: &str) -> Result<Code, String> {
        Code::ALL.iter().copied().find(|c| c.as_str() == text).ok_or_else(|| format!("unknown code `{text}`"))
    }

    /// The fix rules, in the registry's order.
    pub fn rules() -> impl Iterator<Item = Code> {
        Code::ALL.iter().copied().filter(|c| c.kind() == Kind::Rule)
    }

    /// Whether it names a rule, a reason or a lint (a row of none of the
    /// first two columns: neither chosen nor keeping anything).
    pub fn kind(self) -> Kind {
        match (self.scope(), self.effect()) {
            (Some(_), _) => Kind::Rule,
            (None, Some(_)) => Kind::Reason,
            (None, None) => Kind::Lint,
        }
    }

    /// The rules `--select`, `--ignore` and `clasp.toml`'s `select`/`ignore` take.
    pub fn selectable() -> impl Iterator<Item = Code> {
        Code::rules().filter(|c| matches!(c.scope(), Some(Scope::Declaration | Scope::Batch)))
    }

    /// The selectable rule `text` names (spaces around it aside), or why there is none.
    pub fn parse_selectable(text: &str) -> Result<Code, String> {
        let code = Code::parse(text.trim()).map_err(|e| format!("{e}; `clasp rule` lists every code"))?;
        if Code::selectable().any(|c| c == code) {
            return Ok(code);
        }
        let names = Code::selectable().map(Code::as_str).collect::<Vec<_>>().join(", ");
        Err(format!("`{code}` cannot be selected or ignored; these rules can: {names}"))
    }

    /// Whether verification withdraws change sets with this code (a
    /// function refused with it was planned, then withdrawn).
    pub fn withdraws(self) -> bool {
        self.effect() == Some(Effect::Withdraws)
    }
}

/// A code is stored as it is spelled (`generic-param`), and read back from it.
impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Code, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Code::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_selection_and_withdrawal_as_before_it_existed() {
        let selectable: Vec<&str> = Code::selectable().map(Code::as_str).collect();
        let expected = ["generic-param", "generic-local", "generic-return", "array-param-to-pointer", "merge-duplicates"];
        assert_eq!(selectable, expected);
        let withdrawing: Vec<&str> = Code::ALL.iter().filter(|c| c.withdraws()).map(|c| c.as_str()).collect();
        let expected = [
            "outside-root",
            "verify-failed",
            "not-equivalent",
            "proof-too-large",
            "unrepairable-unit",
            "overlapping-edits",
            "failed-unit",
        ];
        assert_eq!(withdrawing, expected);
        assert!(Code::ALL.iter().all(|c| !(c.scope().is_some() && c.effect().is_some())), "a rule or a reason, never both");
        assert_eq!(Code::rules().count(), 8);
        let lints: Vec<&str> = Code::ALL.iter().filter(|c| c.kind() == Kind::Lint).map(|c| c.as_str()).collect();
        assert_eq!(lints, ["residual-generic"]);
    }

    #[test]
    fn codes_are_unique_kebab_case_and_parse_back() {
        let mut seen = std::collections::BTreeSet::new();
        for &code in Code::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(text.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{text}");
            assert_eq!(Code::parse(text), Ok(code));
        }
        assert!(Code::parse("no-such-code").is_err());
    }
}
