//! The original runs and the migrated one, compared stream by stream (`streams`: a thread of a
//! process) and step by step: the launch sequence (kernel, sizes, scalar arguments), every
//! writable buffer after each launch and every read the host made. Whatever differs between the
//! original runs is nondeterministic and left out of the verdict, element by element (`varying`);
//! whatever then differs in the migrated run is a difference, named by kernel, launch, argument
//! and first differing element. Floats are compared bit for bit, or within `tolerance` units in
//! the last place.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::record::{Arg, Buffer, Launch, Step, Trace};
use super::steps::{shape_difference, Element};
use super::streams::{self, Paired};
use super::varying::{self, Key, Vary};

/// What the comparison found.
#[derive(Debug, Default, Serialize)]
pub struct Comparison {
    pub launches: usize,
    pub reads: usize,
    /// Buffers (after launches, and host reads) compared.
    pub buffers: usize,
    /// Of those, the ones left out whole because they varied between the original runs.
    pub buffers_left_out: usize,
    pub kernels: BTreeMap<String, KernelCounts>,
    pub nondeterministic: Vec<Varied>,
    pub differences: Vec<Difference>,
    /// Where the migrated run's launch sequence left the original's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<String>,
    /// Where the two original runs' launch sequences differ (nothing after it is compared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_divergence: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct KernelCounts {
    pub launches: usize,
    pub buffers: usize,
    pub nondeterministic: usize,
    pub differences: usize,
}

/// A result that varies between the original runs: whole, or `elements` of its `of`.
#[derive(Debug, Serialize)]
pub struct Varied {
    #[serde(flatten)]
    pub place: Place,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub of: Option<usize>,
    /// The first element that varies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<usize>,
}

/// A step's argument: `kernel` is `None` for a host read.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    /// The thread and process, when the program has several (`streams`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
    /// The step within its stream (1 = the first).
    pub step: usize,
    pub kernel: Option<String>,
    /// Which launch of this kernel (1 = its first).
    pub launch: usize,
    pub argument: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct Difference {
    #[serde(flatten)]
    pub place: Place,
    /// The first differing element (`None` for a scalar argument).
    pub element: Option<usize>,
    pub original: String,
    pub migrated: String,
    /// Whether the original sources, built with the migrated run's options alone, give the
    /// migrated run's value here (`None`: that run was not made, or did not get this far).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options_alone: Option<bool>,
}

/// Marks each difference whose migrated value the original sources built with the migrated
/// options (`options_run`) give too: the options, not the migrated code, made it.
pub fn explain_by_options(comparison: &mut Comparison, originals: &[&Trace], m: &Trace, options_run: &Trace) {
    // The place's step in the stream of `run` paired with the reference's stream of its label.
    fn steps_of<'t>(originals: &[&'t Trace], run: &'t Trace) -> Vec<(Option<String>, Vec<&'t Step>)> {
        let pairing = streams::pair(&originals[..1], run);
        pairing.streams.into_iter().map(|p| (p.label, p.migrated)).collect()
    }
    let (in_m, in_options) = (steps_of(originals, m), steps_of(originals, options_run));
    let value = |streams: &[(Option<String>, Vec<&Step>)], place: &Place| -> Option<Vec<u8>> {
        let (_, steps) = streams.iter().find(|(label, _)| *label == place.stream)?;
        match (steps.get(place.step - 1)?, place.argument) {
            (Step::Read(buffer), _) => Some(buffer.data.clone()),
            (Step::Launch(launch), Some(i)) => match launch.args.get(i)? {
                Arg::Buffer(buffer) => Some(buffer.data.clone()),
                Arg::Scalar(hex) => Some(hex.clone().into_bytes()),
                Arg::Local(size) => Some(size.to_le_bytes().to_vec()),
                Arg::Other => None,
            },
            _ => None,
        }
    };
    for difference in &mut comparison.differences {
        let (migrated, optioned) = (value(&in_m, &difference.place), value(&in_options, &difference.place));
        difference.options_alone = optioned.map(|o| Some(o) == migrated);
    }
}

/// Compares the runs: `originals` ran the original sources (the first is the reference, the others
/// tell what varies on its own), `m` the migrated ones.
pub fn compare(originals: &[&Trace], m: &Trace, tolerance: u64) -> Comparison {
    let mut out = Comparison::default();
    let pairing = streams::pair(originals, m);
    for stream in &pairing.streams {
        compare_stream(&mut out, stream, tolerance);
    }
    if let Some(name) = pairing.original_missing {
        out.original_divergence.get_or_insert(format!("an original run has no stream like {name}"));
    }
    if let Some(why) = pairing.migrated_missing {
        out.divergence.get_or_insert(why);
    }
    out
}

/// `why`, in `stream` when the program has several.
fn within(stream: &Paired, why: String) -> String {
    match &stream.label {
        Some(label) => format!("{label}: {why}"),
        None => why,
    }
}

/// Compares one stream of every run; a divergence ends it (the first divergence is kept).
fn compare_stream(out: &mut Comparison, stream: &Paired, tolerance: u64) {
    let (a, others) = stream.originals.split_first().expect("at least one original run");
    let m = &stream.migrated;
    let varies = varying::varying(&stream.originals);
    let mut launches_of: HashMap<&str, usize> = HashMap::new();
    let mut types: HashMap<&str, &str> = HashMap::new();
    for (index, step) in a.iter().enumerate() {
        let repeats: Option<Vec<&Step>> = others.iter().map(|o| o.get(index).copied()).collect();
        let Some(repeats) = repeats else {
            let why = format!("an original run ended after {index} steps, the first ran {}", a.len());
            out.original_divergence.get_or_insert(within(stream, why));
            return;
        };
        let Some(migrated) = m.get(index) else {
            let why = format!("the migrated run ended after {index} steps, the original ran {}", a.len());
            out.divergence.get_or_insert(within(stream, why));
            return;
        };
        if let Some(why) = repeats.iter().find_map(|other| shape_difference(step, other)) {
            out.original_divergence.get_or_insert(within(stream, format!("step {}: {why}", index + 1)));
            return;
        }
        if let Some(why) = shape_difference(step, migrated) {
            out.divergence.get_or_insert(within(stream, format!("step {}: {why}", index + 1)));
            return;
        }
        let kernel = match step {
            Step::Launch(l) => Some(l.kernel.as_str()),
            Step::Read(_) => None,
        };
        let launch = kernel.map_or(0, |k| {
            let n = launches_of.entry(k).or_default();
            *n += 1;
            *n
        });
        let place =
            Place { stream: stream.label.clone(), step: index + 1, kernel: kernel.map(str::to_string), launch, argument: None };
        compare_step(out, place, (step, migrated), &varies, &mut types, tolerance);
    }
    if m.len() > a.len() {
        out.divergence.get_or_insert(within(stream, format!("the migrated run went on after the original's {} steps", a.len())));
    }
}

/// What varies between the original runs, by where results come from (`varying`).
type Varies = HashMap<Key, Vary>;

fn compare_step<'t>(
    out: &mut Comparison,
    place: Place,
    (a, m): (&'t Step, &'t Step),
    varies: &Varies,
    types: &mut HashMap<&'t str, &'t str>,
    tolerance: u64,
) {
    match (a, m) {
        (Step::Launch(a), Step::Launch(m)) => {
            out.launches += 1;
            out.kernels.entry(a.kernel.clone()).or_default().launches += 1;
            compare_launch(out, place, (a, m), varies, types, tolerance);
        }
        (Step::Read(a), Step::Read(m)) => {
            out.reads += 1;
            let type_name = types.get(a.mem.as_str()).copied().unwrap_or("");
            let vary = varies.get(&Key::Read(a.mem.clone()));
            compare_buffer(out, place, (a, m), vary, type_name, tolerance);
        }
        _ => unreachable!("steps of one shape"),
    }
}

fn compare_launch<'t>(
    out: &mut Comparison,
    place: Place,
    (a, m): (&'t Launch, &'t Launch),
    varies: &Varies,
    types: &mut HashMap<&'t str, &'t str>,
    tolerance: u64,
) {
    for (i, (x, z)) in a.args.iter().zip(&m.args).enumerate() {
        let place = Place { argument: Some(i), ..place.clone() };
        let vary = varies.get(&Key::Argument(a.kernel.clone(), i));
        match (x, z) {
            (Arg::Buffer(x), Arg::Buffer(z)) => {
                types.insert(x.mem.as_str(), x.type_name.as_str());
                compare_buffer(out, place, (x, z), vary, &x.type_name, tolerance);
            }
            (Arg::Scalar(_), _) if vary.is_some() => note_nondeterministic(out, place, None),
            (Arg::Scalar(x), Arg::Scalar(z)) if x != z => {
                push_difference(out, place, None, format!("0x{x}"), format!("0x{z}"));
            }
            (Arg::Local(x), Arg::Local(z)) if x != z => {
                push_difference(out, place, None, format!("{x} bytes of __local"), format!("{z} bytes of __local"));
            }
            _ => {}
        }
    }
}

/// Compares a buffer of the reference with the migrated run's, leaving out the elements that vary.
fn compare_buffer(
    out: &mut Comparison,
    place: Place,
    (a, m): (&Buffer, &Buffer),
    vary: Option<&Vary>,
    type_name: &str,
    tolerance: u64,
) {
    out.buffers += 1;
    if let Some(kernel) = &place.kernel {
        out.kernels.entry(kernel.clone()).or_default().buffers += 1;
    }
    let element = Element::of(type_name);
    let width = element.width();
    let left_out = match vary {
        Some(Vary::Whole) => {
            out.buffers_left_out += 1;
            return note_nondeterministic(out, place, None);
        }
        Some(Vary::Elements(elements)) => elements.clone(),
        None => Default::default(),
    };
    let count = a.data.len().div_ceil(width);
    if left_out.len() >= count && count > 0 {
        out.buffers_left_out += 1;
        return note_nondeterministic(out, place, None);
    }
    if !left_out.is_empty() {
        note_nondeterministic(
            out,
            place.clone(),
            Some((left_out.len().min(count), count, *left_out.first().expect("not empty"))),
        );
    }
    if a.data.len() != m.data.len() {
        push_difference(out, place, None, format!("{} bytes", a.data.len()), format!("{} bytes", m.data.len()));
        return;
    }
    let pairs = a.data.chunks(width).zip(m.data.chunks(width)).enumerate();
    let first = pairs.filter(|(i, _)| !left_out.contains(i)).find(|(_, (x, y))| !element.same(x, y, tolerance)).map(|(i, _)| i);
    if let Some(index) = first {
        let (x, y) = (&a.data[index * width..], &m.data[index * width..]);
        let (x, y) = (&x[..width.min(x.len())], &y[..width.min(y.len())]);
        push_difference(out, place, Some(index), element.show(x), element.show(y));
    }
}

/// A result that varies between the original runs: whole, or (elements, of, first) of it.
fn note_nondeterministic(out: &mut Comparison, place: Place, part: Option<(usize, usize, usize)>) {
    if let Some(kernel) = &place.kernel {
        out.kernels.entry(kernel.clone()).or_default().nondeterministic += 1;
    }
    let (elements, of, first) = (part.map(|p| p.0), part.map(|p| p.1), part.map(|p| p.2));
    out.nondeterministic.push(Varied { place, elements, of, first });
}

fn push_difference(out: &mut Comparison, place: Place, element: Option<usize>, original: String, migrated: String) {
    if let Some(kernel) = &place.kernel {
        out.kernels.entry(kernel.clone()).or_default().differences += 1;
    }
    out.differences.push(Difference { place, element, original, migrated, options_alone: None });
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
