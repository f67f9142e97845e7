//! The host stage: after the kernels are settled, every host file is read
//! (tree-sitter, `crate::host`) and each build call decided by the rule
//! `host-build-options` against the kernel files that changed. A host file
//! with edits becomes one more changed file; one outside the edit root is
//! never edited (its calls are warnings instead).

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::host::{scan, HostLanguage};
use crate::options::MigrateOptions;
use crate::report::{BuildStatus, FileChange, FileError, Migration};
use crate::rules::host_build_options::{decide, std_flag, Changed, Decided, HostInput};
use crate::rules::{Edit, Warning};

/// Reads `host_files`, decides their build calls against the `programs`
/// the migration changed (canonical and reported main files) and adds the host changes,
/// reports and warnings to `result`. A file the kernels' migration changed
/// (a kernel header with a host extension) is kernel code, not host code.
pub fn host_stage(host_files: &[PathBuf], programs: &[(PathBuf, PathBuf)], options: &MigrateOptions, result: &mut Migration) {
    let changed = Changed { programs };
    let kernel_changes: BTreeSet<PathBuf> = result.changes.iter().map(|c| c.canonical.clone()).collect();
    for path in host_files {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if kernel_changes.contains(&canonical) {
            continue;
        }
        let Some(host) = read(path, &mut result.errors) else { continue };
        result.host.files += 1;
        let decided = decide(&host, &changed, options.target);
        let editable = crate::root::is_under(&options.root, &canonical);
        let mut fixes = Vec::new();
        for Decided { mut report, fix, warning } in decided {
            if let (Some(fix), false) = (&fix, editable) {
                report.status = BuildStatus::Untraced;
                report.detail = format!("{} is outside the edit root: pass {}", path.display(), std_flag(options.target));
                let message = format!("{} is outside the edit root: {}", path.display(), fix.message);
                result.warnings.push(Warning::at(path.clone(), report.line, report.col, message));
            } else if let Some(fix) = fix {
                fixes.push(fix);
            }
            result.warnings.extend(warning);
            result.host.build_calls.push(report);
        }
        if !fixes.is_empty() {
            add_change(host, canonical, fixes, result);
        }
    }
    result.changes.sort_by(|a, b| a.canonical.cmp(&b.canonical));
}

/// The host file as read and scanned; an unreadable one is an error for it.
fn read(path: &PathBuf, errors: &mut Vec<FileError>) -> Option<HostInput> {
    let language = HostLanguage::of(path)?;
    match std::fs::read(path) {
        Ok(text) => {
            let facts = crate::timings::time("host: scan", || scan(path, &text, language));
            Some(HostInput { path: path.clone(), text, facts })
        }
        Err(e) => {
            errors.push(FileError { path: path.clone(), message: format!("{}: error: cannot read: {e}", path.display()) });
            None
        }
    }
}

/// A host file with the edits of its fixes applied (each edit once, in order).
fn add_change(host: HostInput, canonical: PathBuf, fixes: Vec<crate::rules::Fix>, result: &mut Migration) {
    let edits: BTreeSet<&Edit> = fixes.iter().flat_map(|f| f.edits.iter()).collect();
    match super::plan::apply_edits(&host.path, &host.text, edits) {
        Ok(migrated) => result.changes.push(FileChange {
            path: host.path.clone(),
            canonical,
            original: host.text,
            migrated,
            fixes,
            configurations: Vec::new(),
        }),
        Err(message) => result.errors.push(FileError { path: host.path.clone(), message }),
    }
}
