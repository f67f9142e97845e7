//! The last comparison of a check: whole kernels, every helper inlined.
//!
//! Its verdict stands, so it runs whenever a cheaper comparison found a
//! difference. In a big unit that is the costly part of settling: every
//! check bisection makes of a megakernel's change sets optimises a kernel
//! of hundreds of thousands of instructions on both sides. The original's
//! side is the same for every check of a unit (the same bitcode, the same
//! kernels kept), so for a big unit it is optimised once and its canonical
//! kernels kept for the session, by content.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::WHOLE_AFTER;
use super::{compare, loaded, optimised, within_limit, Equivalence, KernelBody, VerifyError};
use crate::front::lower::Context;
use crate::support::session::Shared;

/// The original's whole kernels, by hash of its bitcode and the kernels kept.
static ORIGINALS: Shared<HashMap<u64, Arc<Vec<KernelBody>>>> = Shared::new();

/// At most this many originals are kept (each is a big unit's kernels, some
/// megabytes of text): a batch settles its units one after another.
const KEPT_ORIGINALS: usize = 4;

/// Compares the kernels of `original` and `migrated` (unoptimised bitcode)
/// with every helper inlined, within `limit` (`VerifyError::TooCostly`);
/// `big`: the unit is big (`PROVE_EVERY_FUNCTION_ABOVE`), so its
/// original's kernels are kept for its next checks.
pub(super) fn compare_whole_kernels(
    context: &Context,
    (original, migrated): (&[u8], &[u8]),
    name: &str,
    only: Option<&BTreeSet<String>>,
    limit: Option<u64>,
    big: bool,
) -> Result<Equivalence, VerifyError> {
    let mut before = loaded(context, original, name, only)?;
    let mut after = loaded(context, migrated, name, only)?;
    within_limit(&mut before, &mut after, limit, WHOLE_AFTER)?;
    let key = crate::support::ids::hash_of(&(original, only));
    let kept = if big { ORIGINALS.lock().and_then(|kept| kept.get(&key).cloned()) } else { None };
    let original_kernels = match kept {
        Some(kernels) => kernels,
        None => {
            let kernels = Arc::new(optimised(&mut before)?);
            if big {
                if let Some(mut kept) = ORIGINALS.lock() {
                    if kept.len() >= KEPT_ORIGINALS {
                        kept.clear();
                    }
                    kept.insert(key, kernels.clone());
                }
            }
            kernels
        }
    };
    drop(before);
    let result_kernels = optimised(&mut after)?;
    Ok(compare(&original_kernels, &result_kernels))
}
