//! The registry of every code clasp prints: the fix rules and every reason
//! a change is refused, not merged, kept or withdrawn. One enum, one stable
//! kebab-case string per code, a one-line summary and documentation under
//! fixed headings (the way ruff's rule docs are data), so `--json`,
//! `--statistics`, `--explain` and SARIF all name codes from here and no
//! code is ever chosen by matching human-readable text.

mod docs;

use serde::{Serialize, Serializer};

pub use docs::Doc;

/// What a code names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A rewrite rule: its fixes are the changes clasp offers.
    Rule,
    /// Why something stays as it is: a declaration, a duplicate group, a
    /// program-scope table, or a change withdrawn by verification.
    Reason,
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, $kind:ident; )*) => {
        /// Every code clasp prints, rules and reasons alike.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, rules first, in the order of the registry.
            pub const ALL: &'static [Code] = &[$( Code::$variant, )*];

            /// The stable string shown to users and in every report.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Code::$variant => $code, )*
                }
            }

            /// Whether it names a rule or a reason.
            pub fn kind(self) -> Kind {
                match self {
                    $( Code::$variant => Kind::$kind, )*
                }
            }
        }
    };
}

codes! {
    /// A helper's pointer parameter loses its named space.
    GenericParam = "generic-param", Rule;
    /// A helper's local pointer variable loses its named space.
    GenericLocal = "generic-local", Rule;
    /// A helper's returned pointer type loses its named space.
    GenericReturn = "generic-return", Rule;
    /// An array parameter with a named space becomes a generic pointer.
    ArrayParamToPointer = "array-param-to-pointer", Rule;
    /// Helpers written once per address space become one generic helper.
    MergeDuplicates = "merge-duplicates", Rule;
    /// Program-scope `__constant` data moves to `__global`.
    ConstantToGlobal = "constant-to-global", Rule;
    /// A program-scope variable written with no space gets one.
    InferProgramScopeSpace = "infer-program-scope-space", Rule;
    /// A host's build call asks for the target's OpenCL C standard.
    HostBuildOptions = "host-build-options", Rule;

    /// A kernel parameter keeps its named space.
    KernelParam = "kernel-param", Reason;
    /// A builtin with no generic overload receives the pointer.
    BuiltinPin = "builtin-pin", Reason;
    /// `__constant` is not part of the generic address space.
    ConstantSpace = "constant-space", Reason;
    /// A declaration the pointer flows into must stay named.
    FlowsToPinned = "flows-to-pinned", Reason;
    /// `sizeof` of the pointer itself.
    SizeofPointer = "sizeof-pointer", Reason;
    /// The pointer is converted to an integer.
    PointerToInteger = "pointer-to-integer", Reason;
    /// The pointer is stored into memory that is not a declared variable.
    EscapesToMemory = "escapes-to-memory", Reason;
    /// An inner level of a pointer to pointer.
    PointerToPointer = "pointer-to-pointer", Reason;
    /// Passed to a function declared but not defined in the unit.
    UndefinedCallee = "undefined-callee", Reason;
    /// Produced by a macro, called through one, or not spelled at the declaration.
    Macro = "macro", Reason;
    /// The qualifier comes from a typedef or a macro that is more than a qualifier.
    HiddenQualifier = "hidden-qualifier", Reason;
    /// Used in code `#if` skips in every unit of the batch.
    SkippedIf = "skipped-if", Reason;
    /// Called from code `#if` skips, with arguments clasp cannot see.
    SkippedCaller = "skipped-caller", Reason;
    /// Cast explicitly to a pointer into a named space.
    CastToNamed = "cast-to-named", Reason;
    /// Not in the IR (an unused `static` function): no evidence.
    NoEvidence = "no-evidence", Reason;
    /// The target has no generic address space.
    TargetWithoutGeneric = "target-without-generic", Reason;
    /// In a file outside the edit root.
    OutsideRoot = "outside-root", Reason;
    /// Another program including the same header refuses the change.
    HeaderConflict = "header-conflict", Reason;
    /// Another configuration of the same file (or of a shared header) disagrees.
    Configuration = "configuration", Reason;
    /// Points to `volatile` data.
    VolatilePointee = "volatile-pointee", Reason;
    /// Kept as it is by the user: a `// clasp: keep` comment, or a rule not selected.
    Suppressed = "suppressed", Reason;
    /// A member of a duplicate group has its address taken.
    AddressTaken = "address-taken", Reason;
    /// Every member but one stays named (a `__constant` or pinned pointer).
    Pinned = "pinned", Reason;
    /// A member calls a duplicate whose own group does not merge.
    CallsUnmerged = "calls-unmerged", Reason;
    /// No member is defined before every use in every unit seeing the group.
    NoSurvivor = "no-survivor", Reason;
    /// A unit calls a member it only declares.
    DeclaredElsewhere = "declared-elsewhere", Reason;
    /// A table's address escapes where clasp cannot follow it.
    AddressEscapes = "address-escapes", Reason;
    /// A pointer the table reaches also receives other `__constant` data.
    SharesConstantPointer = "shares-constant-pointer", Reason;
    /// A table in a shared header cannot move in another program including it.
    SharedHeader = "shared-header", Reason;
    /// The target has no program-scope `__global` variables.
    NoProgramScopeGlobals = "no-program-scope-globals", Reason;
    /// The result does not compile as the target.
    VerifyFailed = "verify-failed", Reason;
    /// The result's kernels could not be proven equivalent to the original's.
    NotEquivalent = "not-equivalent", Reason;
    /// Proving the change would optimise a kernel over `--proof-limit`.
    ProofTooLarge = "proof-too-large", Reason;
    /// A unit's required changes cannot all be made or verified.
    UnrepairableUnit = "unrepairable-unit", Reason;
    /// Two change sets edit overlapping bytes.
    OverlappingEdits = "overlapping-edits", Reason;
    /// A host build call's options cannot be traced to a literal clasp can edit.
    UntracedOptions = "untraced-options", Reason;
    /// A host build call cannot be linked to the program it builds.
    UnlinkedBuild = "unlinked-build", Reason;
}

impl Code {
    /// The code spelled `text`.
    pub fn parse(text: &str) -> Result<Code, String> {
        Code::ALL.iter().copied().find(|c| c.as_str() == text).ok_or_else(|| format!("unknown code `{text}`"))
    }

    /// The fix rules, in the registry's order.
    pub fn rules() -> impl Iterator<Item = Code> {
        Code::ALL.iter().copied().filter(|c| c.kind() == Kind::Rule)
    }

    /// Whether verification withdraws change sets with this code (a
    /// function refused with it was planned, then withdrawn).
    pub fn withdraws(self) -> bool {
        matches!(
            self,
            Code::VerifyFailed
                | Code::NotEquivalent
                | Code::ProofTooLarge
                | Code::UnrepairableUnit
                | Code::OverlappingEdits
                | Code::OutsideRoot
        )
    }

    /// Its documentation under the fixed headings.
    pub fn doc(self) -> Doc {
        docs::doc(self)
    }

    /// Its one-line summary (the first sentence of what it does).
    pub fn summary(self) -> &'static str {
        self.doc().summary
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
    fn every_code_has_every_heading_filled() {
        for &code in Code::ALL {
            let doc = code.doc();
            let headings = [
                ("summary", doc.summary),
                ("What it does", doc.what),
                ("Why", doc.why),
                ("Example", doc.example),
                ("When it refuses", doc.refuses),
                ("Fix safety", doc.safety),
            ];
            for (heading, text) in headings {
                assert!(!text.trim().is_empty(), "{code}: `{heading}` is empty");
            }
            assert!(!doc.summary.contains('\n'), "{code}: the summary is one line");
        }
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
