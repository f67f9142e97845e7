//! Where the time goes: wall time and call count per stage, summed over the
//! run (all threads). Printed on stderr when `CLASP_TIMINGS` is set, to
//! measure before optimising, and part of the JSON report; never in the diff.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

static TOTALS: Mutex<BTreeMap<&'static str, (Duration, u32)>> = Mutex::new(BTreeMap::new());
/// (point in the run, resident MB then, peak resident MB so far), in order.
static MEMORY: Mutex<Vec<(&'static str, u64, u64)>> = Mutex::new(Vec::new());

/// Notes the process's resident and peak resident memory at `point` (Linux
/// only: read from /proc/self/status; elsewhere nothing is noted).
pub fn note_memory(point: &'static str) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return };
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb / 1024)
    };
    if let (Some(now), Some(peak), Ok(mut memory)) = (field("VmRSS:"), field("VmHWM:"), MEMORY.lock()) {
        memory.push((point, now, peak));
    }
}

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

/// Whether the environment asks for the times (`CLASP_TIMINGS` set).
pub fn requested() -> bool {
    std::env::var_os("CLASP_TIMINGS").is_some()
}

/// `stage: 1.234 s in 12 calls`, one line per stage, then the memory noted.
pub fn lines() -> Option<String> {
    let totals = TOTALS.lock().ok()?;
    let lines: Vec<String> = totals
        .iter()
        .map(|(stage, (spent, calls))| format!("clasp: time: {stage}: {:.3} s in {calls} calls", spent.as_secs_f64()))
        .chain(
            MEMORY
                .lock()
                .ok()?
                .iter()
                .map(|(point, now, peak)| format!("clasp: memory: {point}: {now} MB resident, peak {peak} MB")),
        )
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
