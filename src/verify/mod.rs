//! `verify`: does the rewritten text compile under the target, and do its
//! kernels still do what they did?
//!
//! Takes the front end (clang in process, the safe IR view) and the
//! settings; gives `compiles` (a recompile through the overlay) and
//! `equivalence` (each kernel's verdict, the differing line named), which
//! `migrate/settle` calls for every change set.
//!
//! The migrated files are written to a temporary directory and laid over
//! the originals with a clang VFS overlay, so the unit compiles exactly as
//! it would in place (same paths, same `#include` resolution, diagnostics
//! naming the original files) without touching the user's tree.
//!
//! Equivalence: the original (as its input standard) and the result (as the
//! target) are compiled for `amdgcn-amd-amdhsa` without LLVM passes, then
//! both go through one fixed pipeline (`pipeline::EQUIVALENCE_PIPELINE`): every
//! helper inlined, InferAddressSpaces turning generic pointers back into
//! the named spaces they come from before anything reacts to pointer width,
//! then a round of scalar clean-up. Every kernel's canonical body (`canonical`,
//! read with inkwell through `lower`'s IR view) must then be the same
//! (`compare`). The two halves are separate (`optimised_kernels`,
//! `compare`) so a caller trying several results for one unit computes the
//! original's kernels once.

mod canonical;
mod compare;
mod cost;
mod flat;
mod functions;
mod known_calls;
mod opaque;
mod pipeline;
mod residual;
mod whole;
mod wrappers;

/// The prefix a function proven on its own (`functions.rs`) is declared
/// with on both sides: calls to it print as calls by that name, with casts
/// to flat that only feed such calls looked through (`canonical.rs`).
const PROVEN_PREFIX: &str = "clasp.proven.";

/// Which changed functions a comparison may prove on their own.
#[derive(Debug, Clone, Default)]
pub struct ProofScope {
    /// A function the result merged into another -> that other (link names):
    /// its calls are proven against the survivor's.
    pub merged: BTreeMap<String, String>,
    /// The functions (link names) worth a proof of their own: those defined
    /// in a file other units read too, whose proof they reuse. A function
    /// only one unit runs costs less inlined.
    pub shared: std::sync::Arc<BTreeSet<String>>,
    /// The largest inlined kernel a comparison may optimise (instructions,
    /// as `cost.rs` estimates them); over it the check is refused
    /// (`VerifyError::TooCostly`) instead of running for minutes and
    /// gigabytes. `None`: no bound.
    pub limit: Option<u64>,
    /// Every changed function may be proven on its own, shared or not (set
    /// for a unit whose kernels are big: `PROVE_EVERY_FUNCTION_ABOVE`).
    pub every_function: bool,
}

/// Above this inlined size (instructions) of its largest kernel, every
/// changed function of a unit is proven on its own, not only those of
/// shared files: inlined, a helper is optimised again at each call of a
/// big kernel, while its proof is made once and the kernel calls it.
/// Below it, a unit's own helpers cost less inlined.
pub const PROVE_EVERY_FUNCTION_ABOVE: u64 = 20_000;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use canonical::{canonical_kernels_from_bitcode, KernelBody, PROGRAM_SCOPE_DATA};
pub use compare::{compare, Equivalence, FlatRegression, KernelDifference};
pub use flat::{AccessKind, Cause, FlatAccesses};
pub use pipeline::{equivalence_args, Inlining, EQUIVALENCE_PIPELINE, INLINE_THRESHOLD};

use crate::front::lower::{load, run_clang, run_clang_for_unit_dropping, ClangError, Context, LoadError};
pub use crate::front::lower::{LeftOut, UnitBitcode};
pub use pipeline::PipelineError;

/// Why a check could not compile or read a unit.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The VFS overlay could not be written.
    #[error(transparent)]
    Overlay(#[from] std::io::Error),
    /// clang rejected the unit (`ClangError::Rejected`) or could not compile it.
    #[error(transparent)]
    Clang(#[from] ClangError),
    /// LLVM could not read the bitcode.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The equivalence pipeline could not run.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The comparison would optimise a kernel over the bound (`ProofScope::limit`).
    #[error(
        "kernel `{kernel}` would be compared with about {instructions} instructions inlined, over the limit of {limit} \
         (--proof-limit){after}"
    )]
    TooCostly {
        kernel: String,
        instructions: u64,
        limit: u64,
        after: &'static str,
        /// Met after a first comparison: the changed functions it proved on
        /// their own (`Equivalence::proven_alone`).
        proven_alone: Vec<String>,
    },
}

impl VerifyError {
    /// The error, a bound met after a first comparison that proved `proven` on their own.
    fn after_proving(self, proven: &[String]) -> VerifyError {
        match self {
            VerifyError::TooCostly { kernel, instructions, limit, after, .. } => {
                VerifyError::TooCostly { kernel, instructions, limit, after, proven_alone: proven.to_vec() }
            }
            other => other,
        }
    }
}

/// The GPU target whose optimiser resolves generic pointers.
pub const EQUIVALENCE_TRIPLE: &str = "amdgcn-amd-amdhsa";

/// A temporary VFS overlay putting `replaced` (absolute path -> new bytes) over the files on disk.
struct Overlay {
    _dir: Option<tempfile::TempDir>,
    args: Vec<String>,
}

impl Overlay {
    fn new(replaced: &BTreeMap<PathBuf, Vec<u8>>) -> Result<Overlay, std::io::Error> {
        if replaced.is_empty() {
            return Ok(Overlay { _dir: None, args: Vec::new() });
        }
        let dir = tempfile::tempdir()?;
        let mut roots = Vec::new();
        for (i, (original, text)) in replaced.iter().enumerate() {
            let copy = dir.path().join(format!("{i}.cl"));
            std::fs::write(&copy, text)?;
            roots.push(serde_json::json!({
                "type": "file",
                "name": original.display().to_string(),
                "external-contents": copy.display().to_string(),
            }));
        }
        let overlay = dir.path().join("overlay.yaml");
        let yaml = serde_json::json!({ "version": 0, "case-sensitive": "true", "use-external-names": false, "roots": roots });
        std::fs::write(&overlay, yaml.to_string())?;
        let args = vec!["-ivfsoverlay".to_string(), overlay.display().to_string()];
        Ok(Overlay { _dir: Some(dir), args })
    }
}

/// Compiles `main` with `language_args`, with `replaced` in place of the
/// files on disk. Fails with clang's error (shown: its first).
pub fn compiles(main: &Path, language_args: &[String], replaced: &BTreeMap<PathBuf, Vec<u8>>) -> Result<(), VerifyError> {
    let overlay = Overlay::new(replaced)?;
    let mut args = language_args.to_vec();
    args.extend(overlay.args.iter().cloned());
    args.push("-fsyntax-only".into());
    // The path as given, so clang's messages name it as the user did.
    crate::support::timings::time("verify: recompile", || run_clang(main, &args))?;
    Ok(())
}

/// One compilation of `main` for the equivalence triple (`language_args`
/// from `CompileOptions::clang_args_for`), with `replaced` laid over the
/// files on disk (empty for the original): unoptimised bitcode, for
/// `compare_compiled`. Compile the original once per unit and compare it
/// with each candidate result.
pub fn compile_for_equivalence(
    main: &Path,
    language_args: &[String],
    replaced: &BTreeMap<PathBuf, Vec<u8>>,
) -> Result<Vec<u8>, VerifyError> {
    Ok(compile_for_equivalence_leaving_out(main, language_args, replaced, None)?.bitcode)
}

/// `compile_for_equivalence`, with the definitions named in `left_out` left
/// out of code generation (parsed and checked; a call to one is a call to a
/// declaration), and what it left out. Both sides of a comparison must
/// leave out the same definitions, alike (`UnitBitcode::left_out`).
pub fn compile_for_equivalence_leaving_out(
    main: &Path,
    language_args: &[String],
    replaced: &BTreeMap<PathBuf, Vec<u8>>,
    left_out: Option<&BTreeSet<String>>,
) -> Result<UnitBitcode, VerifyError> {
    let overlay = Overlay::new(replaced)?;
    let mut args = language_args.to_vec();
    args.extend(overlay.args.iter().cloned());
    let args = equivalence_args(&args);
    Ok(crate::support::timings::time("verify: clang amdgcn", || run_clang_for_unit_dropping(main, &args, replaced, left_out))?)
}

/// Compares the kernels of two compilations (`compile_for_equivalence`):
/// with `only`, the other kernels (which nothing changed can reach) are
/// dropped first. Functions both define alike are kept out of the pipeline
/// first (`opaque`), and functions they define differently but proven on
/// their own (`functions`) are called opaquely: cheaper, and equal kernels
/// then prove equivalence. A difference found that way is checked again
/// with the changed helpers inlined (when some were proven, and the unit
/// is not big), then with every helper inlined (a call kept opaque can
/// hide from SROA and InferAddressSpaces what the changed code does with a
/// pointer it shares), and that verdict stands (`whole_kernels`, `whole.rs`).
/// `scope` says which changed functions may be proven on their own.
pub fn compare_compiled(
    context: &Context,
    original: &[u8],
    migrated: &[u8],
    name: &str,
    only: Option<&BTreeSet<String>>,
    scope: &ProofScope,
) -> Result<Equivalence, VerifyError> {
    crate::support::timings::time("verify: pipeline", || {
        let first = compare_modules(context, original, migrated, name, only, KeptOut::ProvenAndAlike(scope))?;
        let proven_alone = first.found.proven_functions.clone();
        let out_of_line = first.out_of_line;
        let settled = |found: Equivalence| {
            let found = Equivalence { proven_alone: proven_alone.clone(), ..found };
            if out_of_line && found.different.is_empty() {
                return with_helpers_out_of_line(context, (original, migrated), name, only, scope.limit, found);
            }
            Ok(found)
        };
        if first.found.different.is_empty() {
            return settled(first.found);
        }
        // In a big unit nearly every helper changed: inlining the changed
        // ones costs what inlining all does, so the whole kernels are next,
        // their original side optimised once for every check (`whole.rs`).
        let big = first.big;
        let found = if first.found.proven_functions.is_empty() || big {
            first
        } else {
            // A call kept opaque the result reaches otherwise (a merged
            // function given an offset pointer) reads differently: the
            // changed helpers inlined, as when none is proven.
            crate::support::timings::time("verify: pipeline, changed helpers inlined", || {
                compare_modules(context, original, migrated, name, only, KeptOut::Alike(scope.limit))
            })
            .map_err(|e| e.after_proving(&proven_alone))?
        };
        if found.found.different.is_empty() || found.shared == 0 {
            return settled(found.found);
        }
        crate::support::timings::time("verify: pipeline, all inlined", || {
            let found = whole::compare_whole_kernels(context, (original, migrated), name, only, scope.limit, big)
                .map_err(|e| e.after_proving(&proven_alone))?;
            settled(Equivalence { whole_kernels: true, ..found })
        })
    })
}

/// `found` with its flat regressions counted again with the helpers the
/// source marks `noinline` kept out of line (`residual.rs`), as a GPU
/// compiler keeps them; as it was when that cannot be counted.
fn with_helpers_out_of_line(
    context: &Context,
    compiled: (&[u8], &[u8]),
    name: &str,
    only: Option<&BTreeSet<String>>,
    limit: Option<u64>,
    found: Equivalence,
) -> Result<Equivalence, VerifyError> {
    let counted = crate::support::timings::time("verify: residual generic, helpers out of line", || {
        residual::out_of_line_regressions(context, compiled, name, only, limit)
    })?;
    Ok(match counted {
        Some(flat_regressions) => Equivalence { flat_regressions, ..found },
        None => found,
    })
}

/// What a comparison keeps out of the pipeline before the whole kernels
/// (`whole.rs`), and the bound on what it optimises (`ProofScope::limit`).
#[derive(Clone, Copy)]
enum KeptOut<'a> {
    /// Functions defined alike, and functions proven on their own (in `scope`).
    ProvenAndAlike(&'a ProofScope),
    /// Functions defined alike.
    Alike(Option<u64>),
}

/// How a bound met after a first comparison is explained.
const WHOLE_AFTER: &str = "; comparing it with its changed functions kept out found a difference";

/// One comparison's verdict, how many functions defined alike were kept
/// out, whether the unit is big (`PROVE_EVERY_FUNCTION_ABOVE`), and
/// whether the result keeps a helper with a generic pointer parameter out
/// of line (`residual.rs`: its flat accesses are then counted again).
struct Comparison {
    found: Equivalence,
    shared: usize,
    big: bool,
    out_of_line: bool,
}

/// `Err(TooCostly)` when either side's largest kernel, as it would be
/// optimised, is over `limit`; `after` says what was compared before.
fn within_limit(
    before: &mut crate::front::lower::LoadedModule<'_>,
    after: &mut crate::front::lower::LoadedModule<'_>,
    limit: Option<u64>,
    after_what: &'static str,
) -> Result<(), VerifyError> {
    let Some(limit) = limit else { return Ok(()) };
    let largest = [cost::largest_inlined_kernel(before), cost::largest_inlined_kernel(after)]
        .into_iter()
        .flatten()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)));
    match largest {
        Some((kernel, instructions)) if instructions > limit => {
            Err(VerifyError::TooCostly { kernel, instructions, limit, after: after_what, proven_alone: Vec::new() })
        }
        _ => Ok(()),
    }
}

/// One comparison: both modules loaded, pruned to `only`, what `kept_out`
/// says kept out of the pipeline, optimised, compared.
fn compare_modules(
    context: &Context,
    original: &[u8],
    migrated: &[u8],
    name: &str,
    only: Option<&BTreeSet<String>>,
    kept_out: KeptOut<'_>,
) -> Result<Comparison, VerifyError> {
    let (before, after) = crate::support::timings::time("verify: load", || {
        (loaded(context, original, name, only), loaded(context, migrated, name, only))
    });
    let (mut before, mut after) = (before?, after?);
    let big = cost::largest_inlined_kernel(&mut before).is_some_and(|(_, size)| size > PROVE_EVERY_FUNCTION_ABOVE);
    let out_of_line = !residual::generic_helpers_kept_out_of_line(&after).is_empty();
    let (shared, proven, limit, after_what) = match kept_out {
        KeptOut::Alike(limit) => {
            let default = ProofScope::default();
            (opaque::share_identical(&mut before, &mut after, &default).shared, Vec::new(), limit, WHOLE_AFTER)
        }
        KeptOut::ProvenAndAlike(scope) => {
            let scope = ProofScope { every_function: scope.every_function || big, ..scope.clone() };
            let sharing =
                crate::support::timings::time("verify: alike", || opaque::share_identical(&mut before, &mut after, &scope));
            let proven = functions::proven(context, original, migrated, name, sharing.changed, scope.limit);
            opaque::declare_proven(&mut before, &mut after, &proven);
            (sharing.shared, proven, scope.limit, "")
        }
    };
    within_limit(&mut before, &mut after, limit, after_what)?;
    let found = crate::support::timings::time("verify: optimise", || {
        Ok::<_, VerifyError>(compare(&optimised(&mut before)?, &optimised(&mut after)?))
    })?;
    let proven = proven.into_iter().map(|pair| pair.original).collect();
    Ok(Comparison { found: Equivalence { proven_functions: proven, ..found }, shared, big, out_of_line })
}

/// Unoptimised bitcode loaded, with only the kernels in `only` (all without it).
fn loaded<'c>(
    context: &'c Context,
    bytes: &[u8],
    name: &str,
    only: Option<&BTreeSet<String>>,
) -> Result<crate::front::lower::LoadedModule<'c>, VerifyError> {
    let mut module = load(context, bytes, name)?;
    if let Some(kernels) = only {
        pipeline::keep_only_kernels(&mut module, kernels);
    }
    Ok(module)
}

/// The module's kernels after `EQUIVALENCE_PIPELINE`, canonicalised.
fn optimised(module: &mut crate::front::lower::LoadedModule<'_>) -> Result<Vec<KernelBody>, VerifyError> {
    pipeline::optimise_for_equivalence(module, Inlining::Every)?;
    Ok(canonical::canonical_kernels(module))
}

/// The kernels of unoptimised bitcode (from `equivalence_args`) after
/// `EQUIVALENCE_PIPELINE` with every helper inlined, canonicalised.
pub fn optimised_kernels_from_bitcode(
    context: &Context,
    bytes: &[u8],
    name: &str,
    only: Option<&BTreeSet<String>>,
) -> Result<Vec<KernelBody>, VerifyError> {
    optimised(&mut loaded(context, bytes, name, only)?)
}

/// Compiles `main` as it was (`original_args`) and with `replaced` laid
/// over (`target_args`) and compares every kernel.
pub fn equivalence(
    context: &Context,
    main: &Path,
    original_args: &[String],
    target_args: &[String],
    replaced: &BTreeMap<PathBuf, Vec<u8>>,
) -> Result<Equivalence, VerifyError> {
    let before = compile_for_equivalence(main, original_args, &BTreeMap::new())?;
    let after = compile_for_equivalence(main, target_args, replaced)?;
    compare_compiled(context, &before, &after, &main.to_string_lossy(), None, &ProofScope::default())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod left_out_tests;
