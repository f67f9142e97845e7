//! Build calls and host changes: every build call decided by the rule
//! `host-build-options` (a call in a host file outside the edit root is a
//! warning instead of an edit), then each host file with fixes applied,
//! and checked: scanned again, every literal clasp wrote into must decode
//! to exactly what clasp meant.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::HostFixes;
use crate::options::MigrateOptions;
use crate::report::{BuildStatus, FileChange, FileError, Migration};
use crate::rules::host_build_options::{decide, std_flag, Changed, Decided, HostInput};
use crate::rules::{Edit, Fix, Warning};

/// Decides the build calls of the host files `host_code` (indexes: the
/// others are headers the kernels include) against the `programs`
/// (kernel files), embedded literals (`migrated`: host index, literal
/// index) and variables holding them (`variables`, for programs built from
/// another file's literal) the migration changed; their fixes join `fixes`.
/// What the migration changed, for linking build calls to it.
pub(super) struct Migrated<'a> {
    /// Kernel files changed (canonical, and as reported).
    pub programs: &'a [(PathBuf, PathBuf)],
    /// Every kernel file of the batch (canonical).
    pub kernel_files: &'a [PathBuf],
    /// Embedded kernels and generated copies: (host index, literal index).
    pub literals: &'a BTreeSet<(usize, usize)>,
    /// Variables holding one of them, with the program's name.
    pub variables: &'a BTreeMap<String, PathBuf>,
}

pub(super) fn decide_all(
    hosts: &[HostInput],
    host_code: &[usize],
    migrated: &Migrated,
    options: &MigrateOptions,
    result: &mut Migration,
    fixes: &mut HostFixes,
) {
    for &h in host_code {
        let host = &hosts[h];
        let literals: BTreeSet<usize> = migrated.literals.iter().filter(|(mh, _)| *mh == h).map(|(_, l)| *l).collect();
        let changed = Changed {
            programs: migrated.programs,
            kernel_files: migrated.kernel_files,
            literals: &literals,
            variables: migrated.variables,
        };
        let editable = crate::root::is_under(&options.root, &super::canonical(&host.path));
        for Decided { mut report, fix, warning } in decide(host, &changed, options.target) {
            match fix {
                Some(fix) if !editable => {
                    report.status = BuildStatus::Untraced;
                    report.detail =
                        format!("{} is outside the edit root: pass {}", host.path.display(), std_flag(options.target));
                    let message = format!("{} is outside the edit root: {}", host.path.display(), fix.message);
                    result.warnings.push(Warning::at(host.path.clone(), report.line, report.col, message));
                }
                Some(fix) => fixes.entry(h).or_default().push(fix),
                None => {}
            }
            result.warnings.extend(warning);
            result.host.build_calls.push(report);
        }
    }
}

/// Each host file with its fixes applied becomes a changed file, once the
/// result is checked; a host file that does not check out is an error and keeps its text.
pub(super) fn apply(hosts: &[HostInput], fixes: HostFixes, options: &MigrateOptions, result: &mut Migration) {
    for (h, fixes) in fixes {
        let host = &hosts[h];
        let canonical = super::canonical(&host.path);
        if !crate::root::is_under(&options.root, &canonical) {
            let message =
                format!("{}: warning: outside the edit root: its embedded kernels are not written back", host.path.display());
            result.warnings.push(Warning::new(host.path.clone(), message));
            continue;
        }
        let edits: BTreeSet<&Edit> = fixes.iter().flat_map(|f| f.edits.iter()).collect();
        let migrated = crate::migrate::plan::apply_edits(&host.path, &host.text, edits).and_then(|migrated| {
            check(host, &migrated)?;
            Ok(migrated)
        });
        match migrated {
            Ok(migrated) => result.changes.push(FileChange {
                path: host.path.clone(),
                canonical,
                original: host.text.clone(),
                migrated,
                fixes: sorted(fixes),
                configurations: Vec::new(),
            }),
            Err(message) => result.errors.push(FileError { path: host.path.clone(), message }),
        }
    }
    result.changes.sort_by(|a, b| a.canonical.cmp(&b.canonical));
}

fn sorted(mut fixes: Vec<Fix>) -> Vec<Fix> {
    fixes.sort_by(|a, b| (a.line, &a.message).cmp(&(b.line, &b.message)));
    fixes
}

/// The edited host file still yields its literals: as many as before, none
/// undecodable that was not before (a write-back that broke a literal is caught here).
fn check(host: &HostInput, migrated: &[u8]) -> Result<(), String> {
    let again = crate::host::scan(&host.path, migrated, host.facts.language);
    let kernels = |literals: &[crate::host::Literal]| literals.iter().filter(|l| l.undecodable.is_none()).count();
    if kernels(&again.literals) < kernels(&host.facts.literals) {
        return Err(format!(
            "{}: error: the edits clasp made to its embedded kernels do not decode back: left as it is",
            host.path.display()
        ));
    }
    Ok(())
}
