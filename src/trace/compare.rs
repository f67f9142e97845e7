//! Two original runs and a migrated one, compared step by step: the launch sequence (kernel, sizes,
//! scalar arguments), every writable buffer after each launch and every read the host made.
//! Whatever differs between the two original runs is nondeterministic and left out of the verdict;
//! whatever then differs in the migrated run is a difference, named by kernel, launch, argument and
//! first differing element. Floats are compared bit for bit, or within `tolerance` units in the
//! last place.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::record::{Arg, Buffer, Launch, Step, Trace};

/// What the comparison found.
#[derive(Debug, Default, Serialize)]
pub struct Comparison {
    pub launches: usize,
    pub reads: usize,
    /// Buffers (after launches, and host reads) compared.
    pub buffers: usize,
    pub kernels: BTreeMap<String, KernelCounts>,
    pub nondeterministic: Vec<Place>,
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

/// A step's argument: `kernel` is `None` for a host read.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
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
pub fn explain_by_options(comparison: &mut Comparison, m: &Trace, options_run: &Trace) {
    let value = |trace: &Trace, place: &Place| -> Option<Vec<u8>> {
        match (trace.steps.get(place.step - 1)?, place.argument) {
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
        let (migrated, optioned) = (value(m, &difference.place), value(options_run, &difference.place));
        difference.options_alone = optioned.map(|o| Some(o) == migrated);
    }
}

/// Compares the runs: `originals` ran the original sources (the first is the reference, the others
/// tell what varies on its own), `m` the migrated ones.
pub fn compare(originals: &[&Trace], m: &Trace, tolerance: u64) -> Comparison {
    let (a, others) = originals.split_first().expect("at least one original run");
    let mut out = Comparison::default();
    let mut launches_of: HashMap<&str, usize> = HashMap::new();
    let mut types: HashMap<&str, &str> = HashMap::new();
    for (index, step) in a.steps.iter().enumerate() {
        let repeats: Option<Vec<&Step>> = others.iter().map(|o| o.steps.get(index)).collect();
        let Some(repeats) = repeats else {
            out.original_divergence = Some(format!("an original run ended after {index} steps, the first ran {}", a.steps.len()));
            return out;
        };
        let Some(migrated) = m.steps.get(index) else {
            out.divergence = Some(format!("the migrated run ended after {index} steps, the original ran {}", a.steps.len()));
            return out;
        };
        if let Some(why) = repeats.iter().find_map(|other| shape_difference(step, other)) {
            out.original_divergence = Some(format!("step {}: {why}", index + 1));
            return out;
        }
        if let Some(why) = shape_difference(step, migrated) {
            out.divergence = Some(format!("step {}: {why}", index + 1));
            return out;
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
        let place = Place { step: index + 1, kernel: kernel.map(str::to_string), launch, argument: None };
        compare_step(&mut out, place, (step, &repeats, migrated), &mut types, tolerance);
    }
    if m.steps.len() > a.steps.len() {
        out.divergence = Some(format!("the migrated run went on after the original's {} steps", a.steps.len()));
    }
    out
}

/// Why two steps are not the same kind of step (a launch of another kernel or size, a read of
/// another size), if they are not.
fn shape_difference(x: &Step, y: &Step) -> Option<String> {
    match (x, y) {
        (Step::Launch(p), Step::Launch(q)) if p.kernel != q.kernel => Some(format!("kernel {} against {}", p.kernel, q.kernel)),
        (Step::Launch(p), Step::Launch(q)) if p.sizes != q.sizes || p.args.len() != q.args.len() => {
            Some(format!("kernel {} launched with other sizes or arguments", p.kernel))
        }
        (Step::Read(p), Step::Read(q)) if p.data.len() != q.data.len() => Some("a host read of another size".to_string()),
        (Step::Launch(p), Step::Read(_)) => Some(format!("kernel {} against a host read", p.kernel)),
        (Step::Read(_), Step::Launch(q)) => Some(format!("a host read against kernel {}", q.kernel)),
        _ => None,
    }
}

/// One step of every run: the reference's, the other original runs', the migrated run's.
type Steps<'t, 'r> = (&'t Step, &'r [&'t Step], &'t Step);

fn compare_step<'t>(
    out: &mut Comparison,
    place: Place,
    (a, others, m): Steps<'t, '_>,
    types: &mut HashMap<&'t str, &'t str>,
    tolerance: u64,
) {
    match (a, m) {
        (Step::Launch(a), Step::Launch(m)) => {
            out.launches += 1;
            out.kernels.entry(a.kernel.clone()).or_default().launches += 1;
            let others: Vec<&Launch> =
                others.iter().filter_map(|s| if let Step::Launch(l) = s { Some(l) } else { None }).collect();
            compare_launch(out, place, (a, &others, m), types, tolerance);
        }
        (Step::Read(a), Step::Read(m)) => {
            out.reads += 1;
            let type_name = types.get(a.mem.as_str()).copied().unwrap_or("");
            let others: Vec<&Buffer> = others.iter().filter_map(|s| if let Step::Read(b) = s { Some(b) } else { None }).collect();
            compare_buffer(out, place, (a, &others, m), type_name, tolerance);
        }
        _ => unreachable!("steps of one shape"),
    }
}

fn compare_launch<'t>(
    out: &mut Comparison,
    place: Place,
    (a, others, m): (&'t Launch, &[&'t Launch], &'t Launch),
    types: &mut HashMap<&'t str, &'t str>,
    tolerance: u64,
) {
    for (i, (x, z)) in a.args.iter().zip(&m.args).enumerate() {
        let place = Place { argument: Some(i), ..place.clone() };
        let repeats: Vec<&Arg> = others.iter().filter_map(|o| o.args.get(i)).collect();
        match (x, z) {
            (Arg::Buffer(x), Arg::Buffer(z)) => {
                types.insert(x.mem.as_str(), x.type_name.as_str());
                let ys: Vec<&Buffer> =
                    repeats.iter().filter_map(|y| if let Arg::Buffer(y) = y { Some(y) } else { None }).collect();
                compare_buffer(out, place, (x, &ys, z), &x.type_name, tolerance);
            }
            (Arg::Scalar(x), _) if repeats.iter().any(|y| !matches!(y, Arg::Scalar(y) if y == x)) => {
                note_nondeterministic(out, place)
            }
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

fn compare_buffer(
    out: &mut Comparison,
    place: Place,
    (a, others, m): (&Buffer, &[&Buffer], &Buffer),
    type_name: &str,
    tolerance: u64,
) {
    out.buffers += 1;
    if let Some(kernel) = &place.kernel {
        out.kernels.entry(kernel.clone()).or_default().buffers += 1;
    }
    if others.iter().any(|b| b.data != a.data) {
        note_nondeterministic(out, place);
        return;
    }
    let element = Element::of(type_name);
    if a.data.len() != m.data.len() {
        push_difference(out, place, None, format!("{} bytes", a.data.len()), format!("{} bytes", m.data.len()));
        return;
    }
    let width = element.width();
    let first = a.data.chunks(width).zip(m.data.chunks(width)).position(|(x, y)| !element.same(x, y, tolerance));
    if let Some(index) = first {
        let (x, y) = (&a.data[index * width..], &m.data[index * width..]);
        let (x, y) = (&x[..width.min(x.len())], &y[..width.min(y.len())]);
        push_difference(out, place, Some(index), element.show(x), element.show(y));
    }
}

fn note_nondeterministic(out: &mut Comparison, place: Place) {
    if let Some(kernel) = &place.kernel {
        out.kernels.entry(kernel.clone()).or_default().nondeterministic += 1;
    }
    out.nondeterministic.push(place);
}

fn push_difference(out: &mut Comparison, place: Place, element: Option<usize>, original: String, migrated: String) {
    if let Some(kernel) = &place.kernel {
        out.kernels.entry(kernel.clone()).or_default().differences += 1;
    }
    out.differences.push(Difference { place, element, original, migrated, options_alone: None });
}

/// How a buffer's bytes are read, from its OpenCL C type (`float4*` is read as floats).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Element {
    F32,
    F64,
    Signed(usize),
    Unsigned(usize),
}

impl Element {
    fn of(type_name: &str) -> Element {
        let base = type_name.trim_end_matches('*').trim().trim_end_matches(|c: char| c.is_ascii_digit());
        match base {
            "float" => Element::F32,
            "double" => Element::F64,
            "char" => Element::Signed(1),
            "short" => Element::Signed(2),
            "int" => Element::Signed(4),
            "long" => Element::Signed(8),
            "ushort" | "half" => Element::Unsigned(2),
            "uint" | "unsigned int" => Element::Unsigned(4),
            "ulong" | "size_t" => Element::Unsigned(8),
            // uchar, bool, structs and what the host read without a type: bytes.
            _ => Element::Unsigned(1),
        }
    }

    fn width(self) -> usize {
        match self {
            Element::F32 => 4,
            Element::F64 => 8,
            Element::Signed(n) | Element::Unsigned(n) => n,
        }
    }

    fn bits(bytes: &[u8]) -> u64 {
        bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    }

    fn same(self, x: &[u8], y: &[u8], tolerance: u64) -> bool {
        if x == y {
            return true;
        }
        if tolerance == 0 || x.len() != self.width() || y.len() != self.width() {
            return false;
        }
        let ordered = |bits: u64, sign: u64| -> i128 {
            if bits & sign != 0 {
                -((bits & !sign) as i128)
            } else {
                bits as i128
            }
        };
        let (x, y) = (Self::bits(x), Self::bits(y));
        match self {
            Element::F32 if !f32::from_bits(x as u32).is_nan() && !f32::from_bits(y as u32).is_nan() => {
                (ordered(x, 1 << 31) - ordered(y, 1 << 31)).unsigned_abs() <= u128::from(tolerance)
            }
            Element::F64 if !f64::from_bits(x).is_nan() && !f64::from_bits(y).is_nan() => {
                (ordered(x, 1 << 63) - ordered(y, 1 << 63)).unsigned_abs() <= u128::from(tolerance)
            }
            _ => false,
        }
    }

    fn show(self, bytes: &[u8]) -> String {
        let bits = Self::bits(bytes);
        match self {
            Element::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            Element::F64 => format!("{:?}", f64::from_bits(bits)),
            Element::Signed(n) => {
                let shift = 64 - 8 * n as u32;
                format!("{}", ((bits << shift) as i64) >> shift)
            }
            Element::Unsigned(_) => format!("{bits}"),
        }
    }
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
