//! `migrate`: the pipeline from facts to verified new text for a batch.
//!
//! infer (per unit, repeated until units sharing a header agree) -> plan
//! (fixes grouped per file, identical edits from several units merged,
//! overlapping edits refused) -> verify (each changed unit recompiled as the
//! target; a failure withdraws every file that unit would change).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::infer::{infer, Decision, DeclDecision, InferOptions, Reason};
use crate::options::{CompileOptions, Target};
use crate::rules::{self, Edit, Fix};
use crate::unit::{Unit, Workbench};
use crate::verify::EQUIVALENCE_TRIPLE;

#[derive(Debug, Clone)]
pub struct MigrateOptions {
    pub compile: CompileOptions,
    pub target: Target,
    /// The paths given on the command line: only files under them are edited.
    pub roots: Vec<PathBuf>,
    /// Recompile as the target and prove the kernels equivalent.
    pub verify: bool,
    /// Keep changes whose kernels could not be proven equivalent, marked unverified.
    pub allow_unverified: bool,
    /// Testing only: pins ignored by the inference, to prove verification catches what they prevent.
    pub ignored_pins: Vec<Reason>,
}

/// How one function ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Outcome {
    /// Changed; `verified`: recompiled and its unit's kernels proven equivalent.
    Migrated { verified: bool },
    /// Nothing to do.
    Unchanged,
    /// Something could change but does not, with a stable reason code.
    Refused { reason: &'static str, detail: String },
}

/// The outcome of one function definition.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionAccount {
    pub file: PathBuf,
    pub line: u32,
    pub name: String,
    pub kernel: bool,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Something to know that is not an error: a withdrawn change, a flat-access regression.
#[derive(Debug, Clone, Serialize)]
pub struct Warning {
    pub path: PathBuf,
    pub message: String,
}

/// A declaration whose qualifier stays, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    pub file: PathBuf,
    pub line: u32,
    pub function: String,
    pub name: String,
    pub reason: &'static str,
    pub detail: String,
    /// The file cannot compile as the target because of it.
    pub blocking: bool,
    #[serde(skip)]
    canonical: PathBuf,
}

/// One file with its changes.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    #[serde(skip)]
    pub canonical: PathBuf,
    /// The file's bytes as read, and with the edits: every other byte is kept, whatever the encoding.
    #[serde(skip)]
    pub original: Vec<u8>,
    #[serde(skip)]
    pub migrated: Vec<u8>,
    pub fixes: Vec<Fix>,
}

/// An error for one file; the batch goes on.
#[derive(Debug, Clone, Serialize)]
pub struct FileError {
    pub path: PathBuf,
    pub message: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Migration {
    pub files_seen: usize,
    pub changes: Vec<FileChange>,
    pub refusals: Vec<Refusal>,
    pub errors: Vec<FileError>,
    pub warnings: Vec<Warning>,
    /// Every function definition of every analysed file under the paths, in order.
    pub functions: Vec<FunctionAccount>,
    /// Files that could not be parsed or compiled (their functions are unknown).
    pub unanalysable: Vec<PathBuf>,
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

pub fn migrate(bench: &Workbench, files: &[PathBuf], options: &MigrateOptions) -> Migration {
    let mut result = Migration { files_seen: files.len(), ..Default::default() };
    let roots: Vec<PathBuf> = options.roots.iter().map(|r| canonical(r)).collect();
    let mut units = Vec::new();
    for path in files {
        match bench.load(path, &options.compile, options.target) {
            Ok(unit) => units.push(unit),
            Err(e) => {
                result.unanalysable.push(path.clone());
                result.errors.push(FileError { path: path.clone(), message: e.to_string() });
            }
        }
    }
    let decisions = agree_on_headers(&units, options, &roots);
    // Plan: fixes per unit, then edits per file.
    let mut by_file: BTreeMap<PathBuf, (PathBuf, Vec<Fix>)> = BTreeMap::new();
    let mut unit_files: Vec<BTreeSet<PathBuf>> = Vec::new();
    for (unit, decided) in units.iter().zip(&decisions) {
        let mut touched = BTreeSet::new();
        for fix in rules::fixes(unit, decided) {
            let key = canonical(&fix.file);
            touched.insert(key.clone());
            let entry = by_file.entry(key).or_insert_with(|| (fix.file.clone(), Vec::new()));
            if !entry.1.iter().any(|f| f.edits == fix.edits) {
                entry.1.push(fix);
            }
        }
        unit_files.push(touched);
        for d in decided {
            if let Some(refusal) = refusal_of(unit, d) {
                if !result
                    .refusals
                    .iter()
                    .any(|r| r.canonical == refusal.canonical && r.line == refusal.line && r.name == refusal.name)
                {
                    result.refusals.push(refusal);
                }
            }
        }
    }
    // (file, function) of every planned fix, before verification.
    let planned: BTreeSet<(PathBuf, String)> =
        by_file.iter().flat_map(|(key, (_, fixes))| fixes.iter().map(move |f| (key.clone(), f.function.clone()))).collect();
    let mut changes: BTreeMap<PathBuf, FileChange> = BTreeMap::new();
    let mut overlapping: Vec<(PathBuf, String)> = Vec::new();
    for (key, (path, fixes)) in by_file {
        match apply(&path, &fixes) {
            Ok((original, migrated)) => {
                changes.insert(key.clone(), FileChange { path, canonical: key, original, migrated, fixes });
            }
            Err(message) => {
                result.errors.push(FileError { path, message: message.clone() });
                overlapping.push((key, message));
            }
        }
    }
    // Verify: every unit whose files change must compile as the target and
    // keep its kernels; a failing unit withdraws every file it touches.
    let target_args = options.compile.clang_args(Some(&options.target.std_flags()));
    let result_args = options.compile.clang_args_for(Some(&options.target.std_flags()), EQUIVALENCE_TRIPLE);
    let mut withdrawn: BTreeMap<PathBuf, Withdrawal> = BTreeMap::new();
    let mut unverified: BTreeSet<PathBuf> = BTreeSet::new();
    for (key, message) in &overlapping {
        withdrawn.insert(key.clone(), Withdrawal { reason: OVERLAPPING_EDITS, detail: message.clone() });
    }
    for (unit, touched) in units.iter().zip(&unit_files) {
        let blocking: Vec<&Refusal> = result.refusals.iter().filter(|r| r.blocking && r.canonical == unit.canonical(0)).collect();
        if !blocking.is_empty() {
            let reasons: Vec<String> = blocking
                .iter()
                .map(|r| {
                    format!(
                        "{}:{}: error: `{}` of `{}`: {} ({})",
                        r.file.display(),
                        r.line,
                        r.name,
                        r.function,
                        r.detail,
                        r.reason
                    )
                })
                .collect();
            result.errors.push(FileError {
                path: unit.path.clone(),
                message: format!(
                    "{}: error: cannot make this file compile as {}, left unchanged:\n{}",
                    unit.path.display(),
                    options.target.name(),
                    reasons.join("\n")
                ),
            });
            // The file cannot compile as the target whatever else changes: leave it as it is.
            let detail = format!("{} cannot compile as {}", unit.path.display(), options.target.name());
            withdraw(&mut withdrawn, touched, UNREPAIRABLE_UNIT, &detail);
            continue;
        }
        if touched.is_empty() || !options.verify {
            continue;
        }
        let replaced: BTreeMap<PathBuf, Vec<u8>> =
            touched.iter().filter_map(|k| changes.get(k).map(|c| (k.clone(), c.migrated.clone()))).collect();
        if let Err(message) = crate::verify::compiles(&unit.path, &target_args, &replaced) {
            let detail = format!("the result does not compile as {}: {message}", options.target.name());
            result.warnings.push(Warning { path: unit.path.clone(), message: format!("changes withdrawn: {detail}") });
            withdraw(&mut withdrawn, touched, VERIFY_FAILED, &detail);
            continue;
        }
        // The original as the unit was read (its own standard with `--std auto`).
        let original_args = options.compile.clang_args_for(Some(&unit.standard.flags), EQUIVALENCE_TRIPLE);
        let difference = match crate::verify::equivalence(&bench.context, &unit.path, &original_args, &result_args, &replaced) {
            Ok(found) => {
                for flat in &found.flat_regressions {
                    result.warnings.push(Warning {
                        path: unit.path.clone(),
                        message: format!(
                            "kernel `{}` has {} flat (generic) memory accesses after migration, {} before: slower on GPUs",
                            flat.kernel, flat.after, flat.before
                        ),
                    });
                }
                found.different.first().map(|d| {
                    format!(
                        "kernel `{}` is not equivalent at {}: `{}` became `{}`",
                        d.kernel, EQUIVALENCE_TRIPLE, d.original, d.migrated
                    )
                })
            }
            Err(message) => Some(format!("cannot compare kernels at {EQUIVALENCE_TRIPLE} -O2: {message}")),
        };
        if let Some(detail) = difference {
            if options.allow_unverified {
                result.warnings.push(Warning { path: unit.path.clone(), message: format!("kept unverified: {detail}") });
                unverified.extend(touched.iter().cloned());
            } else {
                result.warnings.push(Warning { path: unit.path.clone(), message: format!("changes withdrawn: {detail}") });
                withdraw(&mut withdrawn, touched, NOT_EQUIVALENT, &detail);
            }
        }
    }
    // A unit's changes stand or fall together: withdrawing a shared header
    // withdraws every file of every unit that touched it, and so on.
    loop {
        let before = withdrawn.len();
        for touched in &unit_files {
            if let Some(w) = touched.iter().find_map(|f| withdrawn.get(f)).cloned() {
                withdraw(&mut withdrawn, touched, w.reason, &w.detail);
            }
        }
        if withdrawn.len() == before {
            break;
        }
    }
    let mut migrated_functions: BTreeSet<(PathBuf, String)> = BTreeSet::new();
    for (key, change) in changes {
        if withdrawn.contains_key(&key) {
            continue;
        }
        for fix in &change.fixes {
            migrated_functions.insert((key.clone(), fix.function.clone()));
        }
        result.changes.push(change);
    }
    result.refusals.sort_by(|a, b| (&a.file, a.line, &a.name).cmp(&(&b.file, b.line, &b.name)));
    result.functions =
        account(&units, &roots, &planned, &migrated_functions, &withdrawn, &unverified, &result.refusals, options.verify);
    result
}

/// Reason codes of changes planned, then withdrawn by verification.
pub const VERIFY_FAILED: &str = "verify-failed";
pub const NOT_EQUIVALENT: &str = "not-equivalent";
pub const UNREPAIRABLE_UNIT: &str = "unrepairable-unit";
pub const OVERLAPPING_EDITS: &str = "overlapping-edits";
pub const WITHDRAWALS: [&str; 4] = [VERIFY_FAILED, NOT_EQUIVALENT, UNREPAIRABLE_UNIT, OVERLAPPING_EDITS];

/// Why a file's changes were withdrawn.
#[derive(Debug, Clone)]
struct Withdrawal {
    reason: &'static str,
    detail: String,
}

fn withdraw(withdrawn: &mut BTreeMap<PathBuf, Withdrawal>, files: &BTreeSet<PathBuf>, reason: &'static str, detail: &str) {
    for file in files {
        withdrawn.entry(file.clone()).or_insert_with(|| Withdrawal { reason, detail: detail.to_string() });
    }
}

/// Every function definition under the paths, once, with how it ended:
/// migrated (its fixes stand), refused (a fix withdrawn, or a declaration
/// refused), or unchanged.
#[allow(clippy::too_many_arguments)]
fn account(
    units: &[Unit],
    roots: &[PathBuf],
    planned: &BTreeSet<(PathBuf, String)>,
    migrated: &BTreeSet<(PathBuf, String)>,
    withdrawn: &BTreeMap<PathBuf, Withdrawal>,
    unverified: &BTreeSet<PathBuf>,
    refusals: &[Refusal],
    verify: bool,
) -> Vec<FunctionAccount> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for unit in units {
        for function in unit.syntax.functions.iter().filter(|f| f.is_definition) {
            let path = &unit.syntax.files[function.pos.file];
            let key = (unit.canonical(function.pos.file).to_path_buf(), function.name.clone());
            if !roots.iter().any(|r| key.0.starts_with(r)) || !seen.insert(key.clone()) {
                continue;
            }
            let refusal = refusals.iter().find(|r| r.canonical == key.0 && r.function == function.name);
            let outcome = if migrated.contains(&key) {
                Outcome::Migrated { verified: verify && !unverified.contains(&key.0) }
            } else if let Some(w) = withdrawn.get(&key.0).filter(|_| planned.contains(&key)) {
                Outcome::Refused { reason: w.reason, detail: w.detail.clone() }
            } else if let Some(r) = refusal {
                Outcome::Refused { reason: r.reason, detail: format!("`{}`: {}", r.name, r.detail) }
            } else {
                Outcome::Unchanged
            };
            out.push(FunctionAccount {
                file: path.clone(),
                line: function.pos.line,
                name: function.name.clone(),
                kernel: function.is_kernel,
                outcome,
            });
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// Infers every unit; where units sharing a header disagree on a
/// declaration there, it stays named in all of them, and they are inferred again.
fn agree_on_headers(units: &[Unit], options: &MigrateOptions, roots: &[PathBuf]) -> Vec<Vec<DeclDecision>> {
    let mut per_unit: Vec<InferOptions> = units
        .iter()
        .map(|unit| {
            let mut o = InferOptions::for_target(options.target);
            o.ignored_pins = options.ignored_pins.clone();
            for function in &unit.syntax.functions {
                for decl in &function.pointers {
                    let file = unit.canonical(decl.pos.file);
                    if !roots.iter().any(|r| file.starts_with(r)) {
                        let detail = format!("{} is outside the paths given", file.display());
                        o.refused_from_outside.insert((decl.pos.file, decl.pos.offset), (Reason::OutsidePaths, detail));
                    }
                }
            }
            o
        })
        .collect();
    for _ in 0..8 {
        let decisions: Vec<Vec<DeclDecision>> = units.iter().zip(&per_unit).map(|(u, o)| infer(u, o).decls).collect();
        // (header, offset) -> "generic?" -> the first unit answering so, and why.
        let mut answers: BTreeMap<(PathBuf, u32), BTreeMap<bool, String>> = BTreeMap::new();
        for (unit, decided) in units.iter().zip(&decisions) {
            for d in decided.iter().filter(|d| d.decl.pos.file != 0) {
                let key = (unit.canonical(d.decl.pos.file).to_path_buf(), d.decl.pos.offset);
                let why = match &d.decision {
                    Decision::Refused { reason, detail } | Decision::Impossible { reason, detail } => {
                        format!("{} keeps it named: {} ({detail})", unit.path.display(), reason.code())
                    }
                    _ => String::new(),
                };
                answers.entry(key).or_default().entry(matches!(d.decision, Decision::Generic { .. })).or_insert(why);
            }
        }
        let conflicts: BTreeMap<(PathBuf, u32), String> = answers
            .into_iter()
            .filter(|(_, a)| a.len() > 1)
            .map(|(k, mut a)| (k, a.remove(&false).unwrap_or_default()))
            .collect();
        if conflicts.is_empty() {
            return decisions;
        }
        for (unit, o) in units.iter().zip(per_unit.iter_mut()) {
            for id in 0..unit.syntax.files.len() {
                for ((path, offset), why) in &conflicts {
                    if path == unit.canonical(id) {
                        o.refused_from_outside.entry((id, *offset)).or_insert((Reason::HeaderConflict, why.clone()));
                    }
                }
            }
        }
    }
    units.iter().zip(&per_unit).map(|(u, o)| infer(u, o).decls).collect()
}

fn refusal_of(unit: &Unit, d: &DeclDecision) -> Option<Refusal> {
    let (reason, detail, blocking) = match &d.decision {
        Decision::Refused { reason, detail } => (*reason, detail.clone(), false),
        Decision::Impossible { reason, detail } => (*reason, detail.clone(), true),
        _ => return None,
    };
    Some(Refusal {
        file: unit.syntax.files[d.decl.pos.file].clone(),
        line: d.decl.pos.line,
        function: d.function.clone(),
        name: d.decl.name.clone(),
        reason: reason.code(),
        detail,
        blocking,
        canonical: unit.canonical(d.decl.pos.file).to_path_buf(),
    })
}

/// Applies the fixes' edits to the file's current bytes. Edits must not
/// overlap; identical edits from different fixes count once.
fn apply(path: &Path, fixes: &[Fix]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let original = std::fs::read(path).map_err(|e| format!("{}: error: cannot read: {e}", path.display()))?;
    let mut edits: Vec<&Edit> = fixes.iter().flat_map(|f| f.edits.iter()).collect();
    edits.sort();
    edits.dedup();
    let mut migrated = Vec::with_capacity(original.len());
    let mut cursor = 0usize;
    for edit in edits {
        let (start, end) = (edit.start as usize, edit.end as usize);
        if start < cursor || start > end || end > original.len() {
            return Err(format!(
                "{}: error: overlapping or invalid edits at byte {start}; no change made to this file",
                path.display()
            ));
        }
        migrated.extend_from_slice(&original[cursor..start]);
        migrated.extend_from_slice(edit.replacement.as_bytes());
        cursor = end;
    }
    migrated.extend_from_slice(&original[cursor..]);
    Ok((original, migrated))
}
