//! Agreement: every unit inferred, and inferred again until the units
//! sharing a header (or a file built in several configurations) agree on
//! every declaration in it; refusals as reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::codes::Code;
use crate::facts::syntax::{FileIndex, MacroSite, Spelling};
use crate::front::unit::Unit;
use crate::infer::{infer, Decision, Decisions, DeclDecision, InferOptions, Interned};
use crate::migrate::report::Refusal;
use crate::settings::options::MigrateOptions;

/// Infers every unit; where units sharing a header disagree on a
/// declaration there, it stays named in all of them, and they are inferred again.
pub(super) fn agree_on_headers(units: &[Unit], options: &MigrateOptions, moved: &[BTreeSet<(FileIndex, u32)>]) -> Vec<Decisions> {
    let mut per_unit: Vec<InferOptions> =
        units.iter().zip(moved).map(|(unit, moved)| infer_options(unit, options, moved, Outside::Refused)).collect();
    for _ in 0..8 {
        let decisions = infer_all(units, &per_unit, options.jobs);
        let conflicts = conflicts(units, &decisions);
        let sites = site_conflicts(units, &decisions);
        if conflicts.is_empty() && sites.is_empty() {
            return decisions;
        }
        refuse_site_conflicts(units, &sites, &mut per_unit);
        for ((unit, o), decided) in units.iter().zip(per_unit.iter_mut()).zip(&decisions) {
            for d in decided {
                let at = origin(unit, d).map(|at| (at, d.decl.name.as_str()));
                let Some((why, in_configuration)) = at.and_then(|at| conflicts.get(&at)) else { continue };
                let reason = if *in_configuration { Code::Configuration } else { Code::HeaderConflict };
                o.refused_from_outside.entry((d.decl.pos.file, d.decl.pos.offset)).or_insert((reason, why.clone()));
            }
        }
    }
    infer_all(units, &per_unit, options.jobs)
}

/// What a unit's inference makes of declarations in files outside the edit root.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Outside {
    /// Refused (`outside-root`): they are never edited.
    Refused,
    /// Decided as any other, to learn what would change there (`outside`).
    Decided,
}

/// A unit's inference options: the target's, the pins ignored for tests, the
/// followers of moved tables, and every declaration in a file it may not edit
/// refused (`MigrateOptions::not_editable`; one outside the root only with `Outside::Refused`).
pub(super) fn infer_options(
    unit: &Unit,
    options: &MigrateOptions,
    moved: &BTreeSet<(FileIndex, u32)>,
    outside: Outside,
) -> InferOptions {
    let mut o = InferOptions::for_target(options.target);
    o.ignored_pins = options.ignored_pins.clone();
    o.moved = moved.clone();
    let mut comments = super::keep::Comments::default();
    for function in &unit.syntax.functions {
        for decl in &function.pointers {
            let file = unit.canonical(decl.pos.file);
            let at = (decl.pos.file, decl.pos.offset);
            let written_in = written_in(unit, decl);
            let lifted = outside == Outside::Decided && !crate::settings::root::is_under(&options.root, written_in);
            if let Some(detail) = options.not_editable(written_in).filter(|_| !lifted) {
                o.refused_from_outside.insert(at, (Code::OutsideRoot, detail));
            } else if let Some(detail) = comments.kept(unit, function, decl, options) {
                o.refused_from_outside.insert(at, (Code::Suppressed, detail));
            } else if let Some(why) = options.kept_decls.get(&(file.to_path_buf(), decl.pos.offset)) {
                o.refused_from_outside.insert(at, (Code::Suppressed, why.clone()));
            }
        }
    }
    o
}

/// The real file (canonical) a declaration is written in: an embedded kernel's is its host file.
pub(super) fn written_in<'u>(unit: &'u Unit, decl: &crate::facts::syntax::PointerDecl) -> &'u std::path::Path {
    let file = unit.canonical(decl.pos.file);
    unit.origin(decl.pos.file, decl.pos.offset..decl.pos.offset).map_or(file, |(real, _)| real)
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
/// share, and files built in several configurations, may have more. (By
/// name too: the parameters of a helper a macro use stamps out share the
/// use's place.)
fn conflicts<'u>(units: &'u [Unit], decisions: &'u [Decisions]) -> BTreeMap<(Origin<'u>, &'u str), (String, bool)> {
    // (Origin, name) -> "generic?" -> the first unit answering so, and why.
    type Answers = BTreeMap<bool, (String, bool)>;
    let mut answers: BTreeMap<(Origin, &str), Answers> = BTreeMap::new();
    for (unit, decided) in units.iter().zip(decisions) {
        for d in decided {
            let Some(at) = origin(unit, d) else { continue };
            let key = (at, d.decl.name.as_str());
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

/// A qualifier token inside a macro, by its canonical file and offset.
type SiteKey = (PathBuf, u32);

/// The macro site a declaration's first level is spelled through, if any.
fn site_of(decl: &crate::facts::syntax::PointerDecl) -> Option<&MacroSite> {
    match &decl.levels.first()?.spelling {
        Spelling::MacroSite { site, .. } => Some(site),
        _ => None,
    }
}

/// The macro sites some declaration would edit (it is generic) while an
/// expansion elsewhere disagrees (a use that is no declaration, or a
/// declaration that stays as it is, in any unit): each with that expansion.
fn site_conflicts(units: &[Unit], decisions: &[Decisions]) -> BTreeMap<SiteKey, String> {
    let mut against: BTreeMap<SiteKey, String> = BTreeMap::new();
    let mut generic: BTreeSet<SiteKey> = BTreeSet::new();
    for (unit, decided) in units.iter().zip(decisions) {
        let key = |range: crate::facts::syntax::ByteRange| (unit.canonical(range.file).to_path_buf(), range.start);
        for (range, facts) in &unit.syntax.macro_sites {
            if let Some(why) = &facts.disagreement {
                against.entry(key(*range)).or_insert_with(|| format!("in {}, {why}", unit.label()));
            }
        }
        for d in decided {
            let Some(site) = site_of(&d.decl) else { continue };
            let why = match &d.decision {
                Decision::Generic { .. } => {
                    generic.insert(key(site.range));
                    continue;
                }
                Decision::Unchanged => "stays as it is".to_string(),
                Decision::Refused { reason, detail } | Decision::Impossible { reason, detail } => {
                    format!("stays named: {reason} ({detail})")
                }
            };
            let at = unit.position(d.decl.pos).file_line();
            let detail = format!("its expansion for `{}` of `{}` ({at}) {why}", d.decl.name, d.function);
            against.entry(key(site.range)).or_insert(detail);
        }
    }
    against.retain(|site, _| generic.contains(site));
    against
}

/// Every conflicting site stays, in every unit, with the expansion that disagrees
/// (the declarations spelled through it are pinned by `infer`).
fn refuse_site_conflicts(units: &[Unit], sites: &BTreeMap<SiteKey, String>, per_unit: &mut [InferOptions]) {
    if sites.is_empty() {
        return;
    }
    for (unit, o) in units.iter().zip(per_unit.iter_mut()) {
        for range in unit.syntax.macro_sites.keys() {
            if let Some(why) = sites.get(&(unit.canonical(range.file).to_path_buf(), range.start)) {
                o.site_refusals.entry((range.file, range.start)).or_insert_with(|| why.clone());
            }
        }
    }
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
    let crate::input::source::Place { file, line, col } = unit.position(d.decl.pos);
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
