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
    /// How many times the original program ran.
    pub original_runs: usize,
    pub comparison: Comparison,
    pub timing: Vec<KernelTime>,
}

impl Report {
    pub fn new(
        comparison: Comparison,
        timing: Vec<KernelTime>,
        migrated_sources: Vec<String>,
        substituted: usize,
        original_runs: usize,
    ) -> Report {
        let identical = comparison.differences.is_empty() && comparison.divergence.is_none();
        let verdict = if identical { "identical" } else { "different" };
        Report { verdict, migrated_sources, substituted, original_runs, comparison, timing }
    }

    pub fn identical(&self) -> bool {
        self.verdict == "identical"
    }

    pub fn text(&self) -> String {
        let c = &self.comparison;
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut out = format!(
            "clasp run-check: {}: {} and {} compared ({}), {} left out as nondeterministic, {}; {} ({})\n",
            self.verdict,
            plural(c.launches, "launch", "launches"),
            plural(c.reads, "host read", "host reads"),
            plural(c.buffers, "buffer", "buffers"),
            c.nondeterministic.len(),
            plural(c.differences.len(), "difference", "differences"),
            plural(self.substituted, "program substituted", "programs substituted"),
            plural(self.migrated_sources.len(), "migrated source", "migrated sources"),
        );
        out.push_str(&self.table());
        for time in self.timing.iter().filter(|t| t.slower) {
            if let Some(lint) = &time.residual_generic {
                let _ = writeln!(
                    out,
                    "note: kernel {} is slower ({:.2}x); residual-generic at {}: {} memory accesses through generic pointers, {} before: {} (clasp rule residual-generic)",
                    time.kernel, time.ratio, lint.at, lint.accesses, lint.original, lint.detail
                );
            }
        }
        if let Some(why) = &c.original_divergence {
            let _ = writeln!(out, "note: the two original runs launched differently from here on, not compared: {why}");
        }
        if let Some(why) = &c.divergence {
            let _ = writeln!(out, "divergence: {why}");
        }
        for d in &c.differences {
            let element = d.element.map_or(String::new(), |e| format!(", element {e}"));
            let why = match d.options_alone {
                Some(true) => " (the migrated build options alone give the same on the original sources)",
                Some(false) => " (not the build options alone: the original sources built with them do not give it)",
                None => "",
            };
            let _ = writeln!(
                out,
                "difference: {}{element}: original {}, migrated {}{why}",
                describe(&d.place),
                d.original,
                d.migrated
            );
        }
        for varied in &c.nondeterministic {
            let _ = match (varied.elements, varied.of, varied.first) {
                (Some(n), Some(of), Some(first)) => writeln!(
                    out,
                    "nondeterministic: {}: {n} of {of} elements (the first: element {first}) differ between the original runs; the others are compared",
                    describe(&varied.place)
                ),
                _ => writeln!(out, "nondeterministic: {} (differs between the original runs)", describe(&varied.place)),
            };
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
            let flag = match (time.slower, time.judged) {
                (true, _) => "  slower",
                (false, false) => "  (too few launches to judge)",
                (false, true) => "",
            };
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
    let stream = place.stream.as_ref().map_or(String::new(), |s| format!("{s}: "));
    stream
        + &match &place.kernel {
            Some(kernel) => format!("kernel {kernel}, launch {} (step {}){argument}", place.launch, place.step),
            None => format!("host read (step {})", place.step),
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::residual::ResidualKernel;

    #[test]
    fn a_slower_kernel_is_linked_to_its_residual_generic_accesses() {
        let lint =
            ResidualKernel { accesses: 4, original: 0, detail: "4 loads in out-of-line `f`".into(), at: "k.cl:3:15".into() };
        let time = |kernel: &str, slower: bool| KernelTime {
            kernel: kernel.into(),
            original_us: 10.0,
            migrated_us: if slower { 20.0 } else { 10.0 },
            ratio: if slower { 2.0 } else { 1.0 },
            spread: 0.01,
            judged: true,
            slower,
            residual_generic: Some(lint.clone()),
        };
        let report = Report::new(Comparison::default(), vec![time("slow", true), time("even", false)], vec![], 0, 2);
        let text = report.text();
        assert!(text.contains("\nnote: kernel slow is slower (2.00x); residual-generic at k.cl:3:15: 4 memory accesses through generic pointers, 0 before: 4 loads in out-of-line `f` (clasp rule residual-generic)\n"), "{text}");
        assert!(!text.contains("kernel even"), "a kernel no slower gets no note: {text}");
    }
}
