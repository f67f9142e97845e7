//! Where the time goes: wall time and call count per stage, summed over the
//! run (all threads). Printed on stderr when `CLASP_TIMINGS` is set, to
//! measure before optimising, and part of the JSON report; never in the diff.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

static TOTALS: Mutex<BTreeMap<&'static str, (Duration, u32)>> = Mutex::new(BTreeMap::new());

/// Runs `f`, adding its wall time to `stage`.
pub fn time<T>(stage: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let spent = start.elapsed();
    if let Ok(mut totals) = TOTALS.lock() {
        let entry = totals.entry(stage).or_default();
        entry.0 += spent;
        entry.1 += 1;
    }
    out
}

/// `stage: 1.234 s in 12 calls`, one line per stage, when `CLASP_TIMINGS` is set.
pub fn report() -> Option<String> {
    std::env::var_os("CLASP_TIMINGS")?;
    let totals = TOTALS.lock().ok()?;
    let lines: Vec<String> = totals
        .iter()
        .map(|(stage, (spent, calls))| format!("clasp: time: {stage}: {:.3} s in {calls} calls", spent.as_secs_f64()))
        .collect();
    Some(lines.join("\n"))
}

/// One stage's total, for the JSON report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StageTime {
    pub stage: &'static str,
    pub seconds: f64,
    pub calls: u32,
}

/// Every stage's total so far.
pub fn stages() -> Vec<StageTime> {
    let Ok(totals) = TOTALS.lock() else { return Vec::new() };
    totals.iter().map(|(stage, (spent, calls))| StageTime { stage, seconds: spent.as_secs_f64(), calls: *calls }).collect()
}
