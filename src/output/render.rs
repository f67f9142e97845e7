//! `render`: a migration as unified diffs, explanations and a summary, and
//! the atomic writer behind `--write` and `--out-dir`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::codes::Code;
use crate::migrate::report::{BuildStatus, FileChange, FileError, Migration, Outcome};
use crate::settings::paths::{display_path, shown_path};

/// The one directory every file of a diff is named from, so that one
/// `git apply` there takes the whole diff: the current directory when every
/// file shown is under it, else the edit root (every edited file is under
/// it). `git apply` refuses `../` paths, so mixing bases (one file from the
/// current directory, a sibling header from the root) would leave a diff
/// that applies nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffBase {
    pub dir: PathBuf,
    /// Whether `dir` is the current directory (no note needed).
    pub is_cwd: bool,
}

impl DiffBase {
    /// The base for a diff showing `files` of a migration under the edit root `root`.
    pub fn for_files<'a>(files: impl IntoIterator<Item = &'a Path>, root: &Path) -> DiffBase {
        let cwd = crate::settings::root::canonical(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
        let all_under_cwd = files.into_iter().all(|file| crate::settings::root::canonical(file).starts_with(&cwd));
        if all_under_cwd {
            DiffBase { dir: cwd, is_cwd: true }
        } else {
            DiffBase { dir: crate::settings::root::canonical(root), is_cwd: false }
        }
    }

    /// The line on stderr saying where the diff applies, when that is not the current directory.
    pub fn note(&self) -> Option<String> {
        (!self.is_cwd)
            .then(|| format!("clasp: note: the diff names files from {} (the edit root): apply it there", self.dir.display()))
    }
}

/// A `git apply`-able unified diff of one file, over its bytes: lines in
/// any encoding are shown as they are, so applying it reproduces the file.
/// The file is named as [`diff_path`] says, from `base`.
pub fn diff(change: &FileChange, base: &DiffBase) -> Vec<u8> {
    let path = diff_path(&change.path, base);
    let text_diff = similar::TextDiff::from_lines(change.original.as_slice(), change.migrated.as_slice());
    let mut unified = text_diff.unified_diff();
    unified.context_radius(3);
    let mut out = Vec::new();
    // Hunk by hunk: `UnifiedDiff::to_writer` formats hunks through `Display`,
    // which is lossy for bytes that are not UTF-8; `UnifiedDiffHunk::to_writer` is not.
    for hunk in unified.iter_hunks() {
        if out.is_empty() {
            out.extend_from_slice(format!("--- a/{path}\n+++ b/{path}\n").as_bytes());
        }
        hunk.to_writer(&mut out).expect("writing to a Vec cannot fail");
    }
    out
}

/// How a diff names a file: relative to `base`, tidied. A file not under
/// it (not edited: cannot happen for a change) keeps its absolute path,
/// without the leading `/` (`a//abs` would confuse `git apply`).
pub fn diff_path(path: &Path, base: &DiffBase) -> String {
    let canonical = crate::settings::root::canonical(path);
    match canonical.strip_prefix(&base.dir) {
        Ok(relative) => display_path(relative),
        Err(_) => display_path(&canonical).trim_start_matches('/').to_string(),
    }
}

/// A place in a file and what is said about it, in the order explanations are listed.
type Explained = (PathBuf, u32, u32, String);

/// One line per fix and refusal: `file:line:col: rule: message`.
pub fn explanations(migration: &Migration) -> Vec<String> {
    let mut lines = Vec::new();
    for change in &migration.changes {
        for fix in &change.fixes {
            lines.push((fix.file.clone(), fix.line, fix.col, format!("{}: {}", fix.rule, fix.message)));
        }
    }
    lines.extend(refusals(migration));
    lines.extend(partly_migrated(migration));
    lines.extend(discovered(migration));
    lines.extend(host_calls(migration));
    lines.extend(residual_generic(migration));
    // A fix editing several files (a merge) is listed with each: explained once.
    lines.sort();
    lines.dedup();
    lines.into_iter().map(|(file, line, col, text)| format!("{}:{line}:{col}: {text}", shown_path(&file))).collect()
}

/// Declarations refused, functions withdrawn by verification and duplicate groups not merged.
fn refusals(migration: &Migration) -> Vec<Explained> {
    let mut lines = Vec::new();
    for r in &migration.refusals {
        let verdict = if r.blocking { "cannot repair" } else { "refused" };
        let subject = if r.function.is_empty() {
            format!("`{}` (program scope)", r.name)
        } else {
            format!("`{}` of `{}`", r.name, r.function)
        };
        lines.push((r.file.clone(), r.line, r.col, format!("{verdict} {}: {subject}: {}", r.reason, r.detail)));
    }
    for f in &migration.functions {
        if let Outcome::Refused { reason, detail } = &f.outcome {
            if reason.withdraws() {
                lines.push((f.file.clone(), f.line, f.col, format!("withdrawn {reason}: `{}`: {detail}", f.name)));
            }
        }
    }
    for group in &migration.unmerged {
        if let Some(first) = group.members.first() {
            let text = format!("not merged {}: {}: {}", group.reason, group.names(), group.detail);
            lines.push((first.file.clone(), first.line, first.col, text));
        }
    }
    lines
}

/// Functions changed with named parameters left: `partly-migrated: `f`
/// keeps `p` (builtin-pin), `q` (skipped-if)` (each refusal has its own line too).
fn partly_migrated(migration: &Migration) -> Vec<Explained> {
    let mut lines = Vec::new();
    for f in &migration.functions {
        if let Outcome::PartlyMigrated { kept, .. } = &f.outcome {
            let kept: Vec<String> = kept
                .iter()
                .map(|k| format!("`{}` ({})", k.name, k.reason.map_or_else(|| k.detail.clone(), |r| r.to_string())))
                .collect();
            let text = format!("partly-migrated: `{}` keeps named {}", f.name, kept.join(", "));
            lines.push((f.file.clone(), f.line, f.col, text));
        }
    }
    lines
}

/// Configurations derived to build code `#if` skips, analysed or dropped.
fn discovered(migration: &Migration) -> Vec<Explained> {
    let lines = migration.discovered.iter().map(|d| {
        let text =
            format!("configuration `{}` of {} discovered for the code #if skips here: {}", d.configuration, d.unit, d.detail);
        (d.file.clone(), d.line, 1, text)
    });
    lines.collect()
}

/// Kernels whose kept result accesses memory through more generic pointers
/// than the original (lint `residual-generic`), at their definitions.
fn residual_generic(migration: &Migration) -> Vec<Explained> {
    let lines = migration.residual_generic.iter().map(|r| {
        let text = format!("{}: {}", Code::ResidualGeneric, r.message());
        (r.path.clone(), r.line, r.col, text)
    });
    lines.collect()
}

/// Host build calls left as they are, with why.
fn host_calls(migration: &Migration) -> Vec<Explained> {
    let mut lines = Vec::new();
    for call in migration.host.build_calls.iter().filter(|c| c.status != BuildStatus::Edited) {
        let status = match call.status {
            BuildStatus::Untraced => "untraced",
            BuildStatus::Unlinked => "unlinked",
            _ => "unchanged",
        };
        let program = call.program.as_deref().map(|p| format!(" ({p})")).unwrap_or_default();
        let text = format!("{} {status}: {}{program}: {}", Code::HostBuildOptions, call.api, call.detail);
        lines.push((call.file.clone(), call.line, call.col, text));
    }
    lines
}

/// An error as printed (`FileError::located`).
pub fn error_message(error: &FileError) -> String {
    error.located()
}

/// When kernels changed and no host build call was found for them: which
/// option the host must pass (a migration is only done when the host asks
/// for the standard the kernels were migrated to).
pub fn host_note(migration: &Migration, std_flag: &str) -> Option<String> {
    let kernels_changed = migration.changes.iter().any(|c| c.fixes.iter().any(|f| f.rule != Code::HostBuildOptions));
    (kernels_changed && migration.host.build_calls.is_empty()).then(|| {
        format!("clasp: note: no host build call was found for the migrated kernels: the host must build them with {std_flag}")
    })
}

/// `--statistics`, as ruff prints it: one line per fix rule and per reason
/// code (refusals, groups not merged, withdrawals), by count, then code.
/// A fix counts once per declaration it changes: a merge is listed with each
/// file it edits, and a table in a shared header moves in every program that
/// includes it (one fix per program, with that program's followers), but
/// that is one declaration changed, as the summary counts it.
pub fn statistics(migration: &Migration) -> String {
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut fixes: std::collections::BTreeSet<(&str, PathBuf, u32, u32)> = Default::default();
    for change in &migration.changes {
        for fix in &change.fixes {
            // Canonical: two units may spell one header differently (`a/../inc/h.h`, `inc/h.h`).
            let file =
                crate::support::overlay::canonicalize(&fix.file).unwrap_or_else(|_| PathBuf::from(display_path(&fix.file)));
            fixes.insert((fix.rule.as_str(), file, fix.line, fix.decl.offset));
        }
    }
    for (rule, ..) in fixes {
        *counts.entry((rule.to_string(), "fixed")).or_default() += 1;
    }
    for r in &migration.refusals {
        *counts.entry((r.reason.to_string(), "refused")).or_default() += 1;
    }
    for group in &migration.unmerged {
        *counts.entry((group.reason.to_string(), "not merged")).or_default() += 1;
    }
    for call in &migration.host.build_calls {
        let code = match call.status {
            BuildStatus::Untraced => Code::UntracedOptions,
            BuildStatus::Unlinked => Code::UnlinkedBuild,
            _ => continue,
        };
        *counts.entry((code.to_string(), "warned")).or_default() += 1;
    }
    for _ in &migration.residual_generic {
        *counts.entry((Code::ResidualGeneric.to_string(), "kernels")).or_default() += 1;
    }
    for f in &migration.functions {
        match &f.outcome {
            Outcome::Refused { reason, .. } if reason.withdraws() => {
                *counts.entry((reason.to_string(), "withdrawn")).or_default() += 1;
            }
            Outcome::PartlyMigrated { .. } => *counts.entry(("partly-migrated".to_string(), "functions")).or_default() += 1,
            _ => {}
        }
    }
    let mut rows: Vec<((String, &str), usize)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let width = rows.iter().map(|((code, _), _)| code.len()).max().unwrap_or(0);
    rows.iter().map(|((code, kind), n)| format!("{n:>5}  {code:<width$}  {kind}\n")).collect()
}
