//! Configuration discovery: code `#if` skips in every configuration a unit
//! is built in, where a helper's pointer is used other than to reach what it
//! points to (what would refuse it as `skipped-if`), is built too. From the
//! condition of the directive opening that code (`#ifdef FAST`, `#if MODE ==
//! 2 && defined(X)`: `config::condition`), one `-D` or `-U` that makes it
//! true is chosen, and the unit is loaded again with it, as one more
//! configuration of its file (named `discovered -DFAST`). From there on it
//! is a configuration like any other: declarations change only where every
//! configuration of the file agrees, and every change is verified in it.
//! A discovered configuration that does not compile, or does not compile
//! the code it was derived for, is dropped (and reported). A unit takes at
//! most `MigrateOptions::discover_configurations` extra builds; where its
//! skipped code needs more, the rest stays skipped and its refusals say
//! the bound was hit.

use std::path::PathBuf;

use crate::facts::syntax::{DeclKind, Function, SkippedRange, Space};
use crate::front::unit::Unit;
use crate::input::config::condition::{self, Known};
use crate::input::config::Job;
use crate::migrate::report::DiscoveredConfiguration;

/// One change to a unit's macros.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    Define(String, i64),
    Undefine(String),
}

impl Change {
    fn option(&self) -> String {
        match self {
            Change::Define(name, value) => format!("-D{name}={value}"),
            Change::Undefine(name) => format!("-U{name}"),
        }
    }
}

/// Skipped code a configuration is derived for: its file (canonical), range, and where it is for people.
#[derive(Debug, Clone)]
struct Target {
    canonical: PathBuf,
    start: u32,
    end: u32,
    file: PathBuf,
    line: u32,
}

/// A configuration to build for one unit.
pub(super) struct Candidate {
    /// The unit it is derived for, as reports name it.
    unit: String,
    pub job: Job,
    /// The unit it is derived from: its index in the batch.
    pub from: usize,
    change: Change,
    targets: Vec<Target>,
}

/// The configurations to build for each unit (at most `limit` each), and,
/// per unit that needed more, the bound it hit.
pub(super) fn candidates(units: &[Unit], jobs: &[&Job], limit: usize) -> (Vec<Candidate>, Vec<(usize, usize)>) {
    let mut out = Vec::new();
    let mut bounded = Vec::new();
    if limit == 0 {
        return (out, bounded);
    }
    for (u, (unit, job)) in units.iter().zip(jobs).enumerate() {
        // Embedded kernels and programs are built as their hosts build them.
        if job.embedded.is_some() || job.program.is_some() {
            continue;
        }
        let mut wanted: Vec<(Change, Vec<Target>)> = Vec::new();
        for skipped in unit.syntax.skipped.iter().filter(|s| hides_a_pointer(unit, s)) {
            // Each branch of the skipped text (`#if A` ... `#elif B`) on its own.
            for change in skipped.branches.iter().filter_map(|branch| enabling_change(unit, &branch.condition)) {
                let target = Target {
                    canonical: unit.canonical(skipped.range.file).to_path_buf(),
                    start: skipped.range.start,
                    end: skipped.range.end,
                    file: unit.syntax.files[skipped.range.file].clone(),
                    line: skipped.first_line,
                };
                match wanted.iter_mut().find(|(c, _)| *c == change) {
                    Some((_, targets)) => targets.push(target),
                    None => wanted.push((change, vec![target])),
                }
            }
        }
        if wanted.len() > limit {
            bounded.push((u, limit));
            wanted.truncate(limit);
        }
        for (change, targets) in wanted {
            out.push(Candidate { unit: job.label(), job: configured(job, &change), from: u, change, targets });
        }
    }
    (out, bounded)
}

/// Whether skipped code inside a helper uses one of its pointers other than
/// to reach what it points to. Any pointer a migration could make generic
/// counts, named or not yet: a second run over migrated code must choose the
/// same configurations (and hit the same bound) as the first.
fn hides_a_pointer(unit: &Unit, skipped: &SkippedRange) -> bool {
    let range = &skipped.range;
    let around = |f: &&std::sync::Arc<Function>| {
        f.is_definition && f.extent.file == range.file && f.extent.start <= range.start && range.end <= f.extent.end
    };
    let Some(function) = unit.syntax.functions.iter().find(around).filter(|f| !f.is_kernel) else { return false };
    function.pointers.iter().any(|d| {
        let could_be_generic = d.levels.first().is_some_and(|l| l.space != Space::Constant);
        could_be_generic && !matches!(d.kind, DeclKind::Return) && skipped.escaping.contains(&d.name)
    })
}

/// One `-D`/`-U` making the condition that opens the skipped code true:
/// the first that surely does, else the first the options cannot rule out
/// (the build decides); none where every one makes it false. The condition
/// is read as the preprocessor would in the build: the source's macros
/// expanded, and `defined M` of a macro only other skipped code defines
/// read as that code's own condition.
fn enabling_change(unit: &Unit, written: &[String]) -> Option<Change> {
    let defines = &unit.compile.defines;
    // What the options say: the last `-D` of a name (`-DX` is 1; a value that is
    // no integer is unknown); a name they do not define may be the source's.
    let known = |name: &str| -> Known {
        let (_, value) = defines.iter().rev().map(|d| d.split_once('=').unwrap_or((d, "1"))).find(|(n, _)| *n == name)?;
        condition::evaluate(&[value.to_string()], &|_| None).map(Some)
    };
    let through_skipped = through_skipped_definitions(unit, written.to_vec(), &known);
    // As the build reads it first; as written next (`#ifdef FAST`, FAST
    // defined under a reserved `__CPU__` no option should set: `-DFAST`).
    let mut maybe = None;
    for reading in [through_skipped, written.to_vec()] {
        match change_for(unit, &reading, &known) {
            Some((change, true)) => return Some(change),
            Some((change, false)) => maybe = maybe.or(Some(change)),
            None => {}
        }
    }
    maybe
}

/// For one reading of a condition: the first change that surely makes it
/// true (`true`), else the first the options cannot rule out (`false`).
fn change_for(unit: &Unit, condition: &[String], known: &dyn Fn(&str) -> Known) -> Option<(Change, bool)> {
    // A macro the condition tests by name stays a name to set, even where the
    // source gives it a default (`#ifndef USE_ATOMICS` / `#define USE_ATOMICS 0`).
    let settable = condition::tested_macros(condition);
    let expands = |name: &str| known(name).is_none() && !settable.iter().any(|s| s == name);
    let source_macro = |name: &str| expands(name).then(|| unit.syntax.condition_macros.get(name).cloned()).flatten();
    let tokens = condition::expanded(condition, &source_macro).unwrap_or_else(|| condition.to_vec());
    let tested = condition::tested_macros(&tokens);
    let mut maybe = None;
    for name in &tested {
        for change in candidate_changes(&tokens, name, &tested, known) {
            let value = condition::evaluate(&tokens, &|n| match &change {
                Change::Define(m, v) if m == n => Some(Some(*v)),
                Change::Undefine(m) if m == n => Some(None),
                _ => known(n),
            });
            match value {
                Some(0) => {}
                Some(_) => return Some((change, true)),
                None => maybe = maybe.or(Some((change, false))),
            }
        }
    }
    maybe
}

/// The changes of `name` to try, in order: the values the condition
/// compares with and the ones above; for a set of flags (`(DEV & NVIDIA)
/// && (DEV & NEWER)`), the value the options give with up to three of the
/// condition's masks added; the values below the ones compared with last (a
/// count or size macro set to 0 would enable code no real build compiles:
/// a division by it; a flags macro set to -1 claims every family at once);
/// then undefining it, where the options define it.
fn candidate_changes(tokens: &[String], name: &str, tested: &[String], known: &dyn Fn(&str) -> Known) -> Vec<Change> {
    let literals = condition::literals(tokens);
    let mut values = vec![1];
    values.extend(literals.iter().copied());
    values.extend(literals.iter().map(|k| k + 1));
    let unsettled = |n: &str| if tested.iter().any(|t| t == n) { None } else { known(n) };
    let mut masks: Vec<i64> = condition::constants(tokens, &unsettled).into_iter().filter(|m| *m > 0).collect();
    masks.truncate(MASKS_TRIED);
    let given = known(name).flatten().unwrap_or(0);
    // Fewest masks first: one, then two, then three.
    values.extend(masks.iter().map(|m| given | m));
    for (a, first) in masks.iter().enumerate() {
        values.extend(masks[a + 1..].iter().map(|second| given | first | second));
    }
    for (a, first) in masks.iter().enumerate() {
        for (b, second) in masks.iter().enumerate().skip(a + 1) {
            values.extend(masks[b + 1..].iter().map(|third| given | first | second | third));
        }
    }
    values.extend(literals.iter().map(|k| k - 1));
    let mut changes: Vec<Change> = Vec::new();
    for value in values {
        let change = Change::Define(name.to_string(), value);
        if !changes.contains(&change) {
            changes.push(change);
        }
    }
    if known(name).is_some() {
        changes.push(Change::Undefine(name.to_string()));
    }
    changes
}

/// How many of a condition's masks discovery combines (at most three at a
/// time: about 2,300 evaluations of the condition, a few milliseconds).
const MASKS_TRIED: usize = 24;

/// `tokens` with each `defined M` (or `defined ( M )`) of a macro the
/// options leave alone and only `#if`-skipped code defines replaced by that
/// code's condition: enabling it defines `M`. A few rounds, for such code
/// itself opened by such a test.
fn through_skipped_definitions(unit: &Unit, tokens: Vec<String>, known: &dyn Fn(&str) -> Known) -> Vec<String> {
    let mut tokens = tokens;
    for _ in 0..SKIPPED_DEFINITION_ROUNDS {
        let mut out = Vec::new();
        let mut replaced = false;
        let mut i = 0;
        while i < tokens.len() {
            let parenthesised = tokens.get(i + 1).is_some_and(|t| t == "(");
            let name = tokens.get(i + 1 + usize::from(parenthesised));
            let definer = name.filter(|n| tokens[i] == "defined" && known(n).is_none()).and_then(|n| {
                let mut branches = unit.syntax.skipped.iter().flat_map(|s| s.branches.iter());
                branches.find(|b| b.defines.contains(n)).map(|b| b.condition.clone())
            });
            match definer {
                Some(condition) => {
                    out.push("(".to_string());
                    out.extend(condition);
                    out.push(")".to_string());
                    replaced = true;
                    i += 2 + 2 * usize::from(parenthesised);
                }
                None => {
                    out.push(tokens[i].clone());
                    i += 1;
                }
            }
        }
        tokens = out;
        if !replaced {
            break;
        }
    }
    tokens
}

/// How many times a `defined` test is followed into the skipped code defining its macro.
const SKIPPED_DEFINITION_ROUNDS: usize = 4;

/// The unit's job in the configuration with `change`.
fn configured(job: &Job, change: &Change) -> Job {
    let mut job = job.clone();
    let name = match change {
        Change::Define(name, _) | Change::Undefine(name) => name,
    };
    job.compile.defines.retain(|d| d.split_once('=').map_or(d.as_str(), |(n, _)| n) != name);
    if let Change::Define(name, value) = change {
        job.compile.defines.push(format!("{name}={value}"));
    }
    let option = change.option();
    job.configuration = Some(match &job.configuration {
        Some(base) => format!("{base} + {option}"),
        None => format!("discovered {option}"),
    });
    job
}

/// Whether a discovered configuration's compile errors are ones a change of
/// address spaces could remove (clang words every address-space mismatch
/// with "address space"; an overload chosen by space is "no matching
/// function"): an undeclared name, say, stays an error whatever clasp does.
pub(super) fn a_change_could_fix(message: &str) -> bool {
    let errors = message.lines().filter(|line| line.contains(": error: "));
    errors.into_iter().any(|line| line.contains("address space") || line.contains("no matching function"))
}

/// The skipped code a candidate was derived for, in the unit it comes from:
/// (file index there, start, end).
pub(super) fn targets_in(candidate: &Candidate, unit: &Unit) -> Vec<(usize, u32, u32)> {
    let index = |t: &Target| (0..unit.syntax.files.len()).find(|i| unit.canonical(*i) == t.canonical);
    candidate.targets.iter().filter_map(|t| index(t).map(|i| (i, t.start, t.end))).collect()
}

/// Whether a candidate's unit compiles the code it was derived for; the
/// report of the candidate either way (`load`: its unit, or why it has none).
pub(super) fn judge(candidate: &Candidate, load: Result<Unit, String>) -> (Option<Unit>, DiscoveredConfiguration) {
    let first = &candidate.targets[0];
    let mut report = DiscoveredConfiguration {
        file: first.file.clone(),
        line: first.line,
        unit: candidate.unit.clone(),
        configuration: candidate.job.configuration.clone().unwrap_or_default(),
        options: vec![candidate.change.option()],
        enables: candidate
            .targets
            .iter()
            .map(|t| format!("{}:{}", crate::settings::paths::shown_path(&t.file), t.line))
            .collect(),
        analysed: false,
        detail: String::new(),
    };
    let unit = match load {
        Ok(unit) => unit,
        Err(message) => {
            let first_line = message.lines().next().unwrap_or_default().to_string();
            report.detail = format!("dropped: it does not compile: {first_line}");
            return (None, report);
        }
    };
    let still_skipped = |t: &Target| {
        unit.syntax
            .skipped
            .iter()
            .any(|s| unit.canonical(s.range.file) == t.canonical && s.range.start <= t.start && t.end <= s.range.end)
    };
    if candidate.targets.iter().all(still_skipped) {
        report.detail = "dropped: it does not compile the code it was derived for".into();
        return (None, report);
    }
    report.analysed = true;
    report.detail =
        "analysed as one more configuration of the file: a change stands only if it holds there too, and is verified there"
            .into();
    (Some(unit), report)
}
