//! The documentation of every code, under fixed headings: one constant
//! per code, in a file per kind, matched exhaustively here.

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

mod batch;
mod declarations;
mod host;
mod rules;

/// The documentation of `code`.
pub(super) fn doc(code: Code) -> Doc {
    match code {
        Code::GenericParam => rules::GENERIC_PARAM,
        Code::GenericLocal => rules::GENERIC_LOCAL,
        Code::GenericReturn => rules::GENERIC_RETURN,
        Code::ArrayParamToPointer => rules::ARRAY_PARAM_TO_POINTER,
        Code::MergeDuplicates => rules::MERGE_DUPLICATES,
        Code::ConstantToGlobal => rules::CONSTANT_TO_GLOBAL,
        Code::InferProgramScopeSpace => rules::INFER_PROGRAM_SCOPE_SPACE,
        Code::HostBuildOptions => host::HOST_BUILD_OPTIONS,
        Code::KernelParam => declarations::KERNEL_PARAM,
        Code::BuiltinPin => declarations::BUILTIN_PIN,
        Code::ConstantSpace => declarations::CONSTANT_SPACE,
        Code::FlowsToPinned => declarations::FLOWS_TO_PINNED,
        Code::SizeofPointer => declarations::SIZEOF_POINTER,
        Code::PointerToInteger => declarations::POINTER_TO_INTEGER,
        Code::EscapesToMemory => declarations::ESCAPES_TO_MEMORY,
        Code::PointerToPointer => declarations::POINTER_TO_POINTER,
        Code::UndefinedCallee => declarations::UNDEFINED_CALLEE,
        Code::Macro => declarations::MACRO,
        Code::HiddenQualifier => declarations::HIDDEN_QUALIFIER,
        Code::SkippedIf => declarations::SKIPPED_IF,
        Code::SkippedCaller => declarations::SKIPPED_CALLER,
        Code::CastToNamed => declarations::CAST_TO_NAMED,
        Code::NoEvidence => declarations::NO_EVIDENCE,
        Code::TargetWithoutGeneric => declarations::TARGET_WITHOUT_GENERIC,
        Code::OutsideRoot => declarations::OUTSIDE_ROOT,
        Code::HeaderConflict => declarations::HEADER_CONFLICT,
        Code::Configuration => declarations::CONFIGURATION,
        Code::VolatilePointee => declarations::VOLATILE_POINTEE,
        Code::Suppressed => declarations::SUPPRESSED,
        Code::AddressTaken => batch::ADDRESS_TAKEN,
        Code::Pinned => batch::PINNED,
        Code::CallsUnmerged => batch::CALLS_UNMERGED,
        Code::NoSurvivor => batch::NO_SURVIVOR,
        Code::DeclaredElsewhere => batch::DECLARED_ELSEWHERE,
        Code::AddressEscapes => batch::ADDRESS_ESCAPES,
        Code::SharesConstantPointer => batch::SHARES_CONSTANT_POINTER,
        Code::SharedHeader => batch::SHARED_HEADER,
        Code::NoProgramScopeGlobals => batch::NO_PROGRAM_SCOPE_GLOBALS,
        Code::VerifyFailed => batch::VERIFY_FAILED,
        Code::NotEquivalent => batch::NOT_EQUIVALENT,
        Code::ProofTooLarge => batch::PROOF_TOO_LARGE,
        Code::UnrepairableUnit => batch::UNREPAIRABLE_UNIT,
        Code::OverlappingEdits => batch::OVERLAPPING_EDITS,
        Code::UntracedOptions => host::UNTRACED_OPTIONS,
        Code::UnlinkedBuild => host::UNLINKED_BUILD,
    }
}
