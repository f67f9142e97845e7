//! Device time per kernel, from the profiling events of its launches: the median of the migrated
//! run over the median of the two original runs, beside the spread between the two original runs
//! (how far timing alone moves on this device). A kernel slower by more than twice that spread, and
//! by at least 5%, is flagged.

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::{Step, Trace};

#[derive(Debug, Serialize)]
pub struct KernelTime {
    pub kernel: String,
    /// Median device time of a launch, in microseconds: both original runs, then the migrated one.
    pub original_us: f64,
    pub migrated_us: f64,
    /// `migrated_us / original_us` (1 when the device reported no time).
    pub ratio: f64,
    /// `|median(first original) / median(second original) - 1|`.
    pub spread: f64,
    pub slower: bool,
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
pub fn per_kernel(a: &Trace, b: &Trace, m: &Trace) -> Vec<KernelTime> {
    let (ta, tb, tm) = (launch_times(a), launch_times(b), launch_times(m));
    let empty = Vec::new();
    ta.iter()
        .map(|(kernel, first)| {
            let second = tb.get(kernel).unwrap_or(&empty);
            let both: Vec<u64> = first.iter().chain(second).copied().collect();
            let original = median(&both);
            let migrated = median(tm.get(kernel).unwrap_or(&empty));
            let spread = (ratio(median(first), median(second)) - 1.0).abs();
            let r = ratio(migrated, original);
            KernelTime {
                kernel: kernel.to_string(),
                original_us: original / 1000.0,
                migrated_us: migrated / 1000.0,
                ratio: r,
                spread,
                slower: r > 1.0 + (2.0 * spread).max(0.05),
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
        Trace { steps, sources: vec![] }
    }

    #[test]
    fn slower_beyond_the_spread_of_the_originals_is_flagged() {
        let t = per_kernel(&trace(&[100, 100, 100]), &trace(&[110, 110, 110]), &trace(&[200, 200, 200]));
        assert_eq!((t[0].original_us, t[0].migrated_us), (0.105, 0.2));
        assert!((t[0].spread - (1.0 - 100.0 / 110.0)).abs() < 1e-9);
        assert!(t[0].slower);
        let within = per_kernel(&trace(&[100]), &trace(&[150]), &trace(&[140]));
        assert!(!within[0].slower, "{within:?}");
    }
}
