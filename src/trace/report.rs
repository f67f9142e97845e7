//! `run-check`'s report: a summary line, a per-kernel table (counts and device times), then each
//! difference, divergence and nondeterministic result; or the same as one JSON object.

use std::fmt::Write as _;

use serde::Serialize;

use super::compare::{Comparison, Place};
use super::timing::KernelTime;

#[derive(Debug, Serialize)]
pub struct Report {
    /// `identical` or `different`.
    pub verdict: &'static str,
    /// The original files of the migrated sources clasp had, and how many program creations of
    /// the migrated run used one.
    pub migrated_sources: Vec<String>,
    pub substituted: usize,
    pub comparison: Comparison,
    pub timing: Vec<KernelTime>,
}

impl Report {
    pub fn new(comparison: Comparison, timing: Vec<KernelTime>, migrated_sources: Vec<String>, substituted: usize) -> Report {
        let identical = comparison.differences.is_empty() && comparison.divergence.is_none();
        Report { verdict: if identical { "identical" } else { "different" }, migrated_sources, substituted, comparison, timing }
    }

    pub fn identical(&self) -> bool {
        self.verdict == "identical"
    }

    pub fn text(&self) -> String {
        let c = &self.comparison;
        let mut out = format!(
            "clasp run-check: {}: {} launches and {} host reads compared ({} buffers), {} left out as nondeterministic, {} differences; {} program sources substituted ({} migrated)\n",
            self.verdict,
            c.launches,
            c.reads,
            c.buffers,
            c.nondeterministic.len(),
            c.differences.len(),
            self.substituted,
            self.migrated_sources.len()
        );
        out.push_str(&self.table());
        if let Some(why) = &c.original_divergence {
            let _ = writeln!(out, "note: the two original runs launched differently from here on, not compared: {why}");
        }
        if let Some(why) = &c.divergence {
            let _ = writeln!(out, "divergence: {why}");
        }
        for d in &c.differences {
            let element = d.element.map_or(String::new(), |e| format!(", element {e}"));
            let _ =
                writeln!(out, "difference: {}{element}: original {}, migrated {}", describe(&d.place), d.original, d.migrated);
        }
        for place in &c.nondeterministic {
            let _ = writeln!(out, "nondeterministic: {} (differs between the two original runs)", describe(place));
        }
        out
    }

    fn table(&self) -> String {
        let mut out = format!(
            "{:<24} {:>8} {:>8} {:>7} {:>7} {:>12} {:>12} {:>7} {:>7}\n",
            "kernel", "launches", "buffers", "nondet", "differ", "original us", "migrated us", "ratio", "spread"
        );
        for time in &self.timing {
            let counts = self.comparison.kernels.get(&time.kernel);
            let (launches, buffers, nondet, differ) =
                counts.map_or((0, 0, 0, 0), |k| (k.launches, k.buffers, k.nondeterministic, k.differences));
            let flag = if time.slower { "  slower" } else { "" };
            let _ = writeln!(
                out,
                "{:<24} {launches:>8} {buffers:>8} {nondet:>7} {differ:>7} {:>12.1} {:>12.1} {:>7.2} {:>6.0}%{flag}",
                time.kernel,
                time.original_us,
                time.migrated_us,
                time.ratio,
                time.spread * 100.0
            );
        }
        out
    }
}

fn describe(place: &Place) -> String {
    let argument = place.argument.map_or(String::new(), |a| format!(", argument {a}"));
    match &place.kernel {
        Some(kernel) => format!("kernel {kernel}, launch {} (step {}){argument}", place.launch, place.step),
        None => format!("host read (step {})", place.step),
    }
}
