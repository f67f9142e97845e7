//! What varies between the original runs, element by element: a buffer's elements that differ
//! between any two original runs are left out of the comparison, the rest of it is still compared.
//! An element that varies after one launch of a kernel's argument is left out of every launch of
//! it (a race that two runs happen to win the same way once is still a race), and likewise for the
//! host's reads of one buffer. A scalar that varies, or a buffer whose size does, varies whole.

use std::collections::{BTreeSet, HashMap};

use super::record::{Arg, Buffer, Step};
use super::steps::{same_shape, Element};

/// Where a result comes from, across launches: a kernel's argument, or the buffer a host read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    Argument(String, usize),
    Read(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vary {
    Whole,
    Elements(BTreeSet<usize>),
}

impl Vary {
    fn add(&mut self, other: Vary) {
        match (&mut *self, other) {
            (Vary::Whole, _) => {}
            (_, Vary::Whole) => *self = Vary::Whole,
            (Vary::Elements(mine), Vary::Elements(more)) => mine.extend(more),
        }
    }
}

/// The elements (of `width` bytes) at which `others` differ from `reference`.
fn varying_elements(reference: &Buffer, others: &[&Buffer], width: usize) -> Option<Vary> {
    if others.iter().any(|o| o.data.len() != reference.data.len()) {
        return Some(Vary::Whole);
    }
    let mut elements = BTreeSet::new();
    for other in others.iter().filter(|o| o.data != reference.data) {
        let pairs = reference.data.chunks(width).zip(other.data.chunks(width));
        elements.extend(pairs.enumerate().filter(|(_, (x, y))| x != y).map(|(i, _)| i));
    }
    (!elements.is_empty()).then_some(Vary::Elements(elements))
}

/// What varies, per key, over the steps of one stream of every original run (`runs[0]` the
/// reference; steps compared up to the first that differs in shape).
pub fn varying(runs: &[Vec<&Step>]) -> HashMap<Key, Vary> {
    let (reference, others) = runs.split_first().expect("at least one original run");
    let mut found: HashMap<Key, Vary> = HashMap::new();
    let mut types: HashMap<&str, &str> = HashMap::new();
    for (index, step) in reference.iter().enumerate() {
        let Some(repeats) = others.iter().map(|o| o.get(index).copied()).collect::<Option<Vec<&Step>>>() else { break };
        if repeats.iter().any(|r| !same_shape(step, r)) {
            break;
        }
        let mut note = |key: Key, vary: Option<Vary>| {
            if let Some(vary) = vary {
                found.entry(key).or_insert(Vary::Elements(BTreeSet::new())).add(vary);
            }
        };
        match step {
            Step::Launch(launch) => {
                for (i, arg) in launch.args.iter().enumerate() {
                    let key = Key::Argument(launch.kernel.clone(), i);
                    let theirs: Vec<&Arg> = repeats
                        .iter()
                        .filter_map(|r| match *r {
                            Step::Launch(l) => l.args.get(i),
                            Step::Read(_) => None,
                        })
                        .collect();
                    match arg {
                        Arg::Buffer(buffer) => {
                            types.insert(&buffer.mem, &buffer.type_name);
                            let bufs: Vec<&Buffer> =
                                theirs.iter().filter_map(|a| if let Arg::Buffer(b) = a { Some(b) } else { None }).collect();
                            note(key, varying_elements(buffer, &bufs, Element::of(&buffer.type_name).width()));
                        }
                        Arg::Scalar(x) if theirs.iter().any(|a| !matches!(a, Arg::Scalar(y) if y == x)) => {
                            note(key, Some(Vary::Whole))
                        }
                        _ => {}
                    }
                }
            }
            Step::Read(buffer) => {
                let bufs: Vec<&Buffer> =
                    repeats.iter().filter_map(|r| if let Step::Read(b) = r { Some(b) } else { None }).collect();
                let width = Element::of(types.get(buffer.mem.as_str()).copied().unwrap_or("")).width();
                note(Key::Read(buffer.mem.clone()), varying_elements(buffer, &bufs, width));
            }
        }
    }
    found
}
