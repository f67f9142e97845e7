//! Agreement: every unit inferred, and inferred again until the units
//! sharing a header (or a file built in several configurations) agree on
//! every declaration in it; refusals as reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::codes::Code;
use crate::infer::{infer, Decision, Decisions, DeclDecision, InferOptions, Interned};
use crate::options::MigrateOptions;
use crate::report::Refusal;
use crate::syntax::FileIndex;
use crate::unit::Unit;

/// Infers every unit; where units sharing a header disagree on a
/// declaration there, it stays named in all of them, and they are inferred again.
pub(super) fn agree_on_headers(
    units: &[Unit],
    options: &MigrateOptions,
    root: &Path,
    moved: &[BTreeSet<(FileIndex, u32)>],
) -> Vec<Decisions> {
    let mut per_unit: Vec<InferOptions> =
        units.iter().zip(moved).map(|(unit, moved)| infer_options(unit, options, root, moved)).collect();
    for _ in 0..8 {
        let decisions = infer_all(units, &per_unit, options.jobs);
        let conflicts = conflicts(units, &decisions);
        if conflicts.is_empty() {
            return decisions;
        }
        for ((unit, o), decided) in units.iter().zip(per_unit.iter_mut()).zip(&decisions) {
            for d in decided {
                let Some((why, in_configuration)) = origin(unit, d).and_then(|at| conflicts.get(&at)) else { continue };
                let reason = if *in_configuration { Code::Configuration } else { Code::HeaderConflict };
                o.refused_from_outside.entry((d.decl.pos.file, d.decl.pos.offset)).or_insert((reason, why.clone()));
            }
        }
    }
    infer_all(units, &per_unit, options.jobs)
}

/// A unit's inference options: the target's, the pins ignored for tests, the
/// followers of moved tables, and every declaration outside the edit root refused.
fn infer_options(unit: &Unit, options: &MigrateOptions, root: &Path, moved: &BTreeSet<(FileIndex, u32)>) -> InferOptions {
    let mut o = InferOptions::for_target(options.target);
    o.ignored_pins = options.ignored_pins.clone();
    o.moved = moved.clone();
    let mut comments = super::keep::Comments::default();
    for function in &unit.syntax.functions {
        for decl in &function.pointers {
            let file = unit.canonical(decl.pos.file);
            let at = (decl.pos.file, decl.pos.offset);
            if !crate::root::is_under(root, file) {
                let detail = format!("{} is outside the edit root {}", file.display(), root.display());
                o.refused_from_outside.insert(at, (Code::OutsideRoot, detail));
            } else if let Some(detail) = comments.kept(unit, function, decl, &options.left_out) {
                o.refused_from_outside.insert(at, (Code::Suppressed, detail));
            } else if let Some(why) = options.kept_decls.get(&(file.to_path_buf(), decl.pos.offset)) {
                o.refused_from_outside.insert(at, (Code::Suppressed, why.clone()));
            }
        }
    }
    o
}

/// Where a declaration is in the real files (a header, or a source several
/// programs share, is read by several units): what units agree on. (The
/// path as bytes: compared faster than a `Path`'s components, and as well.)
type Origin<'u> = (&'u std::ffi::OsStr, u32);

fn origin<'u>(unit: &'u Unit, d: &DeclDecision) -> Option<Origin<'u>> {
    unit.origin(d.decl.pos.file, d.decl.pos.offset..d.decl.pos.offset).map(|(file, range)| (file.as_os_str(), range.start))
}

/// The declarations units answer differently (generic in one, named in
/// another), each with why it stays named and whether a configuration said so.
/// Files of one unit only have one answer; headers, sources several programs
/// share, and files built in several configurations, may have more.
fn conflicts<'u>(units: &'u [Unit], decisions: &[Decisions]) -> BTreeMap<Origin<'u>, (String, bool)> {
    // Origin -> "generic?" -> the first unit answering so, and why.
    let mut answers: BTreeMap<Origin, BTreeMap<bool, (String, bool)>> = BTreeMap::new();
    for (unit, decided) in units.iter().zip(decisions) {
        for d in decided {
            let Some(key) = origin(unit, d) else { continue };
            let why = match &d.decision {
                Decision::Refused { reason, detail } | Decision::Impossible { reason, detail } => {
                    format!("{} keeps it named: {reason} ({detail})", unit.label())
                }
                _ => String::new(),
            };
            let in_configuration = unit.configuration.is_some();
            answers
                .entry(key)
                .or_default()
                .entry(matches!(d.decision, Decision::Generic { .. }))
                .or_insert((why, in_configuration));
        }
    }
    answers.into_iter().filter(|(_, a)| a.len() > 1).map(|(k, mut a)| (k, a.remove(&false).unwrap_or_default())).collect()
}

/// Every unit's decisions, on `jobs` threads (the inference is pure: the result
/// does not depend on how the units are shared out).
fn infer_all(units: &[Unit], per_unit: &[InferOptions], jobs: usize) -> Vec<Decisions> {
    let chunk = units.len().div_ceil(jobs.max(1)).max(1);
    let interned = &Interned::default();
    std::thread::scope(|scope| {
        let workers: Vec<_> = units
            .chunks(chunk)
            .zip(per_unit.chunks(chunk))
            .map(|(units, options)| {
                scope
                    .spawn(move || units.iter().zip(options).map(|(u, o)| interned.intern(infer(u, o).decls)).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("inference worker")).collect()
    })
}

pub(super) fn refusal_of(unit: &Unit, d: &DeclDecision) -> Option<Refusal> {
    let (reason, detail, blocking) = match &d.decision {
        Decision::Refused { reason, detail } => (*reason, detail.clone(), false),
        Decision::Impossible { reason, detail } => (*reason, detail.clone(), true),
        _ => return None,
    };
    let crate::source::Place { file, line, col } = unit.position(d.decl.pos);
    Some(Refusal {
        file,
        line,
        col,
        function: d.function.clone(),
        name: d.decl.name.clone(),
        reason,
        detail,
        blocking,
        canonical: unit.canonical(d.decl.pos.file).to_path_buf(),
    })
}
