//! The one table of codes: a row per code, rules first, then reasons, then
//! lints. Each
//! layer that needs something per code expands this table with a macro of
//! its own, so nothing per code is written twice:
//!
//! - `codes` (this leaf, which every stage may name) makes the `Code` enum,
//!   its strings, its kind, which rules `--select`/`--ignore`/`keep(...)`
//!   take and which reasons withdraw a change set;
//! - `rules::registry` (the rules stage) takes each code's documentation
//!   (a rule's from the `DOC` of its module, a reason's from
//!   `codes::reasons`) and dispatches each declaration to the one
//!   declaration rule whose `applies` takes it.
//!
//! A rule's row: `Variant = "code", its module under `rules`, its scope`.
//! The scope says how it is chosen: `Declaration` (one declaration at a
//! time: its module has `applies` and `fix`; `--select`, `--ignore` and
//! `// clasp: keep(CODE)` take it), `Batch` (changes across the batch:
//! `--select` and `--ignore` take it) or `Follows` (follows the changes it
//! serves; never selected on its own).
//!
//! A reason's row: `Variant = "code", its documentation under
//! `codes::reasons`, its effect`: `Keeps` (something stays as it is) or
//! `Withdraws` (verification withdraws a planned change set with it).
//!
//! A lint's row: `Variant = "code", its documentation under `codes::lints``.
//! A lint changes nothing and keeps nothing: it is a note about a kept,
//! verified result (what the migrated code costs), reported beside it.
//!
//! Adding a rule is its module (detection, edits, `DOC`) and one row here.

/// Calls `$apply!` with every row of the table.
macro_rules! code_table {
    ($apply:ident) => {
        $apply! {
            rules {
                GenericParam = "generic-param", generic_param, Declaration;
                GenericLocal = "generic-local", generic_local, Declaration;
                GenericReturn = "generic-return", generic_return, Declaration;
                ArrayParamToPointer = "array-param-to-pointer", array_param, Declaration;
                MergeDuplicates = "merge-duplicates", merge_duplicates, Batch;
                ConstantToGlobal = "constant-to-global", program_scope::constant_to_global, Follows;
                InferProgramScopeSpace = "infer-program-scope-space", program_scope::infer_space, Follows;
                HostBuildOptions = "host-build-options", host_build_options, Follows;
            }
            reasons {
                KernelParam = "kernel-param", declarations::KERNEL_PARAM, Keeps;
                BuiltinPin = "builtin-pin", declarations::BUILTIN_PIN, Keeps;
                ConstantSpace = "constant-space", declarations::CONSTANT_SPACE, Keeps;
                FlowsToPinned = "flows-to-pinned", declarations::FLOWS_TO_PINNED, Keeps;
                SizeofPointer = "sizeof-pointer", declarations::SIZEOF_POINTER, Keeps;
                PointerToInteger = "pointer-to-integer", declarations::POINTER_TO_INTEGER, Keeps;
                EscapesToMemory = "escapes-to-memory", declarations::ESCAPES_TO_MEMORY, Keeps;
                PointerToPointer = "pointer-to-pointer", declarations::POINTER_TO_POINTER, Keeps;
                UndefinedCallee = "undefined-callee", declarations::UNDEFINED_CALLEE, Keeps;
                Macro = "macro", declarations::MACRO, Keeps;
                HiddenQualifier = "hidden-qualifier", declarations::HIDDEN_QUALIFIER, Keeps;
                SkippedIf = "skipped-if", declarations::SKIPPED_IF, Keeps;
                SkippedCaller = "skipped-caller", declarations::SKIPPED_CALLER, Keeps;
                CastToNamed = "cast-to-named", declarations::CAST_TO_NAMED, Keeps;
                NoEvidence = "no-evidence", declarations::NO_EVIDENCE, Keeps;
                TargetWithoutGeneric = "target-without-generic", declarations::TARGET_WITHOUT_GENERIC, Keeps;
                // Keeps what is outside the edit root, and withdraws a change whose prototype is.
                OutsideRoot = "outside-root", declarations::OUTSIDE_ROOT, Withdraws;
                HeaderConflict = "header-conflict", declarations::HEADER_CONFLICT, Keeps;
                Configuration = "configuration", declarations::CONFIGURATION, Keeps;
                VolatilePointee = "volatile-pointee", declarations::VOLATILE_POINTEE, Keeps;
                Suppressed = "suppressed", declarations::SUPPRESSED, Keeps;
                AddressTaken = "address-taken", batch::ADDRESS_TAKEN, Keeps;
                Pinned = "pinned", batch::PINNED, Keeps;
                CallsUnmerged = "calls-unmerged", batch::CALLS_UNMERGED, Keeps;
                NoSurvivor = "no-survivor", batch::NO_SURVIVOR, Keeps;
                DeclaredElsewhere = "declared-elsewhere", batch::DECLARED_ELSEWHERE, Keeps;
                AddressEscapes = "address-escapes", batch::ADDRESS_ESCAPES, Keeps;
                SharesConstantPointer = "shares-constant-pointer", batch::SHARES_CONSTANT_POINTER, Keeps;
                SharedHeader = "shared-header", batch::SHARED_HEADER, Keeps;
                NoProgramScopeGlobals = "no-program-scope-globals", batch::NO_PROGRAM_SCOPE_GLOBALS, Keeps;
                VerifyFailed = "verify-failed", withdrawals::VERIFY_FAILED, Withdraws;
                NotEquivalent = "not-equivalent", withdrawals::NOT_EQUIVALENT, Withdraws;
                ProofTooLarge = "proof-too-large", withdrawals::PROOF_TOO_LARGE, Withdraws;
                UnrepairableUnit = "unrepairable-unit", withdrawals::UNREPAIRABLE_UNIT, Withdraws;
                OverlappingEdits = "overlapping-edits", withdrawals::OVERLAPPING_EDITS, Withdraws;
                FailedUnit = "failed-unit", withdrawals::FAILED_UNIT, Withdraws;
                UntracedOptions = "untraced-options", host::UNTRACED_OPTIONS, Keeps;
                UnlinkedBuild = "unlinked-build", host::UNLINKED_BUILD, Keeps;
            }
            lints {
                ResidualGeneric = "residual-generic", RESIDUAL_GENERIC;
            }
        }
    };
}

pub(crate) use code_table;
