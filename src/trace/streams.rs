//! The runs' streams paired for comparison. A stream is what one thread of one process did
//! (`record::Stream`); a program with one thread in one process has one. Which process or thread
//! starts first can change from run to run, so streams are paired by what they are: the process's
//! command line, then, among a run's unpaired streams of that command, the first whose steps have
//! the reference stream's shape and results, else its shape, else the first left.

use super::record::{Step, Stream, Trace};
use super::steps::{same_results, same_shape};

/// One stream of every run: the original runs' (the first is the reference), the migrated run's.
pub struct Paired<'t> {
    /// Names the stream in messages; `None` when every run is one stream.
    pub label: Option<String>,
    pub originals: Vec<Vec<&'t Step>>,
    pub migrated: Vec<&'t Step>,
}

/// The pairing: the streams found in every run, and what could not be paired.
#[derive(Default)]
pub struct Pairing<'t> {
    pub streams: Vec<Paired<'t>>,
    /// A stream of the reference that another original run lacks.
    pub original_missing: Option<String>,
    /// A stream of the reference that the migrated run lacks, or one the migrated run has over.
    pub migrated_missing: Option<String>,
}

fn steps<'t>(trace: &'t Trace, stream: &Stream) -> Vec<&'t Step> {
    stream.steps.iter().map(|&i| &trace.steps[i]).collect()
}

fn label(stream: &Stream) -> String {
    let mut command: String = stream.command.chars().take(60).collect();
    if command.len() < stream.command.len() {
        command.push_str("...");
    }
    format!("`{command}` (process {}, thread {})", stream.process + 1, stream.thread + 1)
}

/// Whether a run's stream (the second) fits the reference's (the first).
type Fits = dyn Fn(&[&Step], &[&Step]) -> bool;

/// Which of `run`'s streams each stream of `a` pairs with: first every one with the same
/// results, then by the same shape, then any of the same command left, each in `a`'s order.
fn assign(a: &Trace, run: &Trace) -> Vec<Option<usize>> {
    let mut taken = vec![false; run.streams.len()];
    let mut found: Vec<Option<usize>> = vec![None; a.streams.len()];
    let tests: [&Fits; 3] = [
        &|x, y| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q) && same_results(p, q)),
        &|x, y| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q)),
        &|_, _| true,
    ];
    for test in tests {
        for (k, stream) in a.streams.iter().enumerate() {
            if found[k].is_some() {
                continue;
            }
            let reference = steps(a, stream);
            let fits = |i: &usize| {
                !taken[*i] && run.streams[*i].command == stream.command && test(&reference, &steps(run, &run.streams[*i]))
            };
            if let Some(i) = (0..run.streams.len()).find(fits) {
                taken[i] = true;
                found[k] = Some(i);
            }
        }
    }
    found
}

/// Pairs the streams of the runs.
pub fn pair<'t>(originals: &[&'t Trace], m: &'t Trace) -> Pairing<'t> {
    let (a, others) = originals.split_first().expect("at least one original run");
    let labelled = a.streams.len() > 1 || m.streams.len() > 1;
    let repeats: Vec<Vec<Option<usize>>> = others.iter().map(|run| assign(a, run)).collect();
    let in_m = assign(a, m);
    let mut pairing = Pairing::default();
    for (k, stream) in a.streams.iter().enumerate() {
        let name = label(stream);
        let mut runs = vec![steps(a, stream)];
        for (run, found) in others.iter().zip(&repeats) {
            match found[k] {
                Some(i) => runs.push(steps(run, &run.streams[i])),
                None => {
                    pairing.original_missing.get_or_insert(name.clone());
                }
            }
        }
        let Some(i) = in_m[k] else {
            pairing.migrated_missing.get_or_insert(format!("the migrated run has no stream like {name}"));
            continue;
        };
        if runs.len() == originals.len() {
            pairing.streams.push(Paired { label: labelled.then_some(name), originals: runs, migrated: steps(m, &m.streams[i]) });
        }
    }
    if let Some(extra) = (0..m.streams.len()).find(|i| !in_m.contains(&Some(*i))) {
        let why = format!("the migrated run has a stream the original has not: {}", label(&m.streams[extra]));
        pairing.migrated_missing.get_or_insert(why);
    }
    pairing
}
