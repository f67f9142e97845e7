//! The one-line summary `clasp migrate` prints on stderr: every function
//! counted once, then merges, program-scope variables, host build calls,
//! refusals and errors. Worded for what happened: "migrated" when the
//! changes were written (`--write`, `--out-dir`), "would migrate" when they
//! were only shown or checked, so a dry run never reads as if files changed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::codes::Code;
use crate::migrate::report::{BuildStatus, Migration, Outcome};
use crate::support::text::plural;

/// Whether the changes were written, which decides the summary's verbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Written in place or under `--out-dir`.
    Written,
    /// Shown as a diff, a report or only checked: nothing was written.
    DryRun,
}

/// The verbs of one mode.
struct Words {
    migrated: &'static str,
    merged: &'static str,
    deleted: &'static str,
    edited: &'static str,
    new_space: &'static str,
}

impl Mode {
    fn words(self) -> Words {
        match self {
            Mode::Written => Words {
                migrated: "migrated",
                merged: "merged",
                deleted: "deleted",
                edited: "edited",
                new_space: "given a new space",
            },
            Mode::DryRun => Words {
                migrated: "would migrate",
                merged: "would merge",
                deleted: "to delete",
                edited: "would change",
                new_space: "would get a new space",
            },
        }
    }
}

/// `clasp: 3 files, 5 functions migrated (verified), 2 refused (1 builtin-pin,
/// 1 macro), 12 unchanged, 0 unanalysable, 0 errors`: every function counted
/// once (`, 1 of them partly` after the migrated ones when some keep a named
/// parameter), and every file read as code (`Migration::files_read`), so a file
/// listed as changed (`--check -q`) is always among those counted.
pub fn summary(migration: &Migration, mode: Mode) -> String {
    let words = mode.words();
    let (migrated, refused, unchanged) = functions(migration, &words);
    let partly = migration.functions.iter().filter(|f| matches!(f.outcome, Outcome::PartlyMigrated { .. })).count();
    let partly = if partly == 0 { String::new() } else { format!(", {partly} of them partly") };
    let not_written = migration.functions.iter().filter(|f| f.outcome == Outcome::NotWritten).count();
    let not_written = if not_written == 0 { String::new() } else { format!(", {not_written} not written") };
    format!(
        "clasp: {}, {migrated}{partly}{not_written}{}{}{}, {refused}, {unchanged} unchanged, {} unanalysable, {}",
        plural(migration.files_read, "file", ""),
        merges(migration, &words),
        variables(migration, &words),
        host(migration, &words),
        migration.unanalysable.len(),
        plural(migration.errors.len(), "error", "")
    )
}

/// The functions: migrated (verified or not: a partly migrated one is counted
/// here too, and again in the `N of them partly` that follows), refused (by
/// reason) and unchanged.
fn functions(migration: &Migration, words: &Words) -> (String, String, usize) {
    let (mut verified, mut unverified, mut unchanged) = (0, 0, 0);
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &migration.functions {
        match &f.outcome {
            Outcome::Migrated { verified: true } | Outcome::PartlyMigrated { verified: true, .. } => verified += 1,
            Outcome::Migrated { verified: false } | Outcome::PartlyMigrated { verified: false, .. } => unverified += 1,
            Outcome::Unchanged => unchanged += 1,
            Outcome::NotWritten => {}
            Outcome::Refused { reason, .. } => *reasons.entry(reason.as_str()).or_default() += 1,
        }
    }
    let verb = words.migrated;
    let migrated = match (verified, unverified) {
        (0, 0) => format!("0 functions {verb}"),
        (v, 0) => format!("{} {verb} (verified)", plural(v, "function", "")),
        (0, u) => format!("{} {verb} (not verified)", plural(u, "function", "")),
        (v, u) => format!("{} {verb} ({v} verified, {u} unverified)", plural(v + u, "function", "")),
    };
    let count: usize = reasons.values().sum();
    let refused = if count == 0 {
        "0 refused".to_string()
    } else {
        let parts: Vec<String> = reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
        format!("{count} refused ({})", parts.join(", "))
    };
    (migrated, refused, unchanged)
}

/// Whether a file (as reported) was left as it is by the write.
fn not_written(migration: &Migration, file: &Path) -> bool {
    !migration.not_written.is_empty() && migration.not_written.contains(&crate::settings::root::canonical(file))
}

/// `, 1 duplicate group merged (2 definitions deleted), 0 not merged`, when
/// the batch has duplicates; a merge a write left out (a file of it could not be written) is not counted.
fn merges(migration: &Migration, words: &Words) -> String {
    if migration.merges.is_empty() && migration.unmerged.is_empty() {
        return String::new();
    }
    let written: Vec<_> =
        migration.merges.iter().filter(|m| !m.members.iter().any(|member| not_written(migration, &member.file))).collect();
    let deleted: usize = written.iter().map(|m| m.members.len() - 1).sum();
    format!(
        ", {} {} ({} {}), {} not merged",
        plural(written.len(), "duplicate group", ""),
        words.merged,
        plural(deleted, "definition", ""),
        words.deleted,
        migration.unmerged.len()
    )
}

/// `, 2 program-scope variables given a new space`: not functions, so
/// counted apart, each once however many files show it.
fn variables(migration: &Migration, words: &Words) -> String {
    let variables: BTreeSet<(&Path, u32)> = (migration.changes.iter())
        .filter(|c| !migration.not_written.contains(&c.canonical))
        .flat_map(|c| c.fixes.iter())
        .filter(|f| f.rule == Code::ConstantToGlobal || f.rule == Code::InferProgramScopeSpace)
        .map(|f| (f.file.as_path(), f.line))
        .collect();
    if variables.is_empty() {
        return String::new();
    }
    format!(", {} {}", plural(variables.len(), "program-scope variable", ""), words.new_space)
}

/// `, 2 build calls edited (1 untraced, 0 unlinked)`: the host's build
/// calls, when the batch has any. Edited ones in a file the write left out
/// are not counted; untraced and unlinked ones are those pending (warned,
/// failing `--check`): an unlinked call is pending only when the batch changed kernels.
fn host(migration: &Migration, words: &Words) -> String {
    let calls = &migration.host.build_calls;
    if calls.is_empty() {
        return String::new();
    }
    let edited = calls.iter().filter(|c| c.status == BuildStatus::Edited && !not_written(migration, &c.file)).count();
    let pending = |status: BuildStatus| calls.iter().filter(|c| c.status == status && c.pending).count();
    let edited = plural(edited, "build call", words.edited);
    format!(", {edited} ({} untraced, {} unlinked)", pending(BuildStatus::Untraced), pending(BuildStatus::Unlinked))
}
