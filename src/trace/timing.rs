//! Device time per kernel, from the profiling events of its launches: the median of the migrated
//! run over the median of the original runs, beside the spread between the original runs (how far
//! timing alone moves on this device: the slowest run's median over the fastest's, less one). A
//! kernel slower by more than twice that spread, and by at least 5%, is flagged, if it ran at
//! least `JUDGED_LAUNCHES` times in each run: one or two launches are mostly start-up noise
//! (a first launch pays for compiling and moving data on many drivers). run-check runs the
//! migrated program between two original runs, so that a device warming up or a machine getting
//! busier moves the originals as much as it moves the migrated run.

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::{Step, Trace};
use crate::output::residual::ResidualKernel;

/// The launches per run a kernel needs before a slowdown is flagged.
pub const JUDGED_LAUNCHES: usize = 3;

#[derive(Debug, Serialize)]
pub struct KernelTime {
    pub kernel: String,
    /// Median device time of a launch, in microseconds: the original runs, then the migrated one.
    pub original_us: f64,
    pub migrated_us: f64,
    /// `migrated_us / original_us` (1 when the device reported no time).
    pub ratio: f64,
    /// The slowest original run's median over the fastest's, less one.
    pub spread: f64,
    /// Whether the kernel ran often enough in every run to be judged (`JUDGED_LAUNCHES`).
    pub judged: bool,
    pub slower: bool,
    /// What clasp's `residual-generic` lint says of the migrated kernel (the accesses its migrated
    /// code still makes through generic pointers), when it says something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub residual_generic: Option<ResidualKernel>,
}

/// Links each kernel to its entry of the `residual-generic` lint.
pub fn link_residual_generic(times: &mut [KernelTime], lint: &BTreeMap<String, ResidualKernel>) {
    for time in times {
        time.residual_generic = lint.get(&time.kernel).cloned();
    }
}

fn launch_times(trace: &Trace) -> BTreeMap<&str, Vec<u64>> {
    let mut times: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for step in &trace.steps {
        if let Step::Launch(launch) = step {
            times.entry(launch.kernel.as_str()).or_default().push(launch.ns);
        }
    }
    times
}

fn median(values: &[u64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid] as f64
    } else {
        (sorted[mid - 1] + sorted[mid]) as f64 / 2.0
    }
}

fn ratio(x: f64, y: f64) -> f64 {
    if y > 0.0 {
        x / y
    } else {
        1.0
    }
}

/// Each kernel the first original run launched, by name.
pub fn per_kernel(originals: &[&Trace], m: &Trace) -> Vec<KernelTime> {
    let runs: Vec<BTreeMap<&str, Vec<u64>>> = originals.iter().map(|t| launch_times(t)).collect();
    let tm = launch_times(m);
    let empty = Vec::new();
    runs[0]
        .keys()
        .map(|kernel| {
            let each: Vec<&Vec<u64>> = runs.iter().map(|run| run.get(kernel).unwrap_or(&empty)).collect();
            let all: Vec<u64> = each.iter().flat_map(|times| times.iter().copied()).collect();
            let original = median(&all);
            let medians: Vec<f64> = each.iter().map(|times| median(times)).collect();
            let (fastest, slowest) = medians.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            let spread = ratio(slowest, fastest) - 1.0;
            let migrated_times = tm.get(kernel).unwrap_or(&empty);
            let migrated = median(migrated_times);
            let judged = each.iter().chain([&migrated_times]).all(|times| times.len() >= JUDGED_LAUNCHES);
            let r = ratio(migrated, original);
            KernelTime {
                kernel: kernel.to_string(),
                original_us: original / 1000.0,
                migrated_us: migrated / 1000.0,
                ratio: r,
                spread,
                judged,
                slower: judged && r > 1.0 + (2.0 * spread).max(0.05),
                residual_generic: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::record::Launch;

    fn trace(times: &[u64]) -> Trace {
        let steps = times
            .iter()
            .map(|&ns| Step::Launch(Launch { kernel: "k".into(), ns, sizes: [None, None, None], args: vec![] }))
            .collect();
        Trace { steps, ..Trace::default() }
    }

    #[test]
    fn slower_beyond_the_spread_of_the_originals_is_flagged() {
        let t = per_kernel(&[&trace(&[100, 100, 100]), &trace(&[110, 110, 110])], &trace(&[200, 200, 200]));
        let few = per_kernel(&[&trace(&[100, 100]), &trace(&[110, 110])], &trace(&[200, 200]));
        assert!(!few[0].judged && !few[0].slower, "two launches are not judged: {few:?}");
        assert_eq!((t[0].original_us, t[0].migrated_us), (0.105, 0.2));
        assert!((t[0].spread - 0.1).abs() < 1e-9);
        assert!(t[0].slower);
        let within = per_kernel(&[&trace(&[100; 3]), &trace(&[150; 3])], &trace(&[140; 3]));
        assert!(!within[0].slower, "{within:?}");
        let three = per_kernel(&[&trace(&[100; 3]), &trace(&[100; 3]), &trace(&[125; 3])], &trace(&[140; 3]));
        assert!((three[0].spread - 0.25).abs() < 1e-9 && !three[0].slower, "{three:?}");
    }
}
