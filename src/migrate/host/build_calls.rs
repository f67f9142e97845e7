//! Build calls and host changes: every build call decided by the rule
//! `host-build-options` (a call in a host file outside the edit root is a
//! warning instead of an edit), then each host file with fixes applied,
//! and checked: scanned again, every literal clasp wrote into must decode
//! to exactly what clasp meant.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::{Expected, HostFixes};
use crate::migrate::report::{BuildStatus, FileChange, FileError, Migration};
use crate::rules::host_build_options::{decide, std_flag, Changed, Decided, HostInput};
use crate::rules::{Edit, Fix, Warning};
use crate::settings::options::MigrateOptions;

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
    /// Variables holding one of them, with the program's name and the host file holding it.
    pub variables: &'a BTreeMap<String, (PathBuf, PathBuf)>,
    /// Variables holding a kernel literal (migrated or not).
    pub kernel_variables: &'a BTreeSet<String>,
    /// The calls of program-creating helpers.
    pub helpers: &'a crate::rules::host_build_options::Helpers,
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
            kernel_variables: migrated.kernel_variables,
            helpers: migrated.helpers,
            kernels_changed: !migrated.programs.is_empty() || !migrated.literals.is_empty(),
        };
        let editable = options.not_editable(&super::canonical(&host.path)).is_none();
        for Decided { mut report, fix, warning } in decide(host, &changed, options.target) {
            match fix {
                Some(fix) if !editable => {
                    report.status = BuildStatus::Untraced;
                    report.pending = true;
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
pub(super) fn apply(
    hosts: &[HostInput],
    fixes: HostFixes,
    expected: &[Expected],
    options: &MigrateOptions,
    result: &mut Migration,
) {
    for (h, fixes) in fixes {
        let host = &hosts[h];
        let canonical = super::canonical(&host.path);
        if !crate::settings::root::is_under(&options.root, &canonical) {
            let message =
                format!("{}: warning: outside the edit root: its embedded kernels are not written back", host.path.display());
            result.warnings.push(Warning::new(host.path.clone(), message));
            continue;
        }
        let edits: BTreeSet<&Edit> = fixes.iter().flat_map(|f| f.edits.iter()).collect();
        let migrated =
            crate::migrate::plan::apply_edits(&host.path, &host.text, edits).map_err(WriteBackError::from).and_then(|migrated| {
                // Only a file with kernel literals written back is scanned again:
                // an options edit is a fresh literal `options_edit` encoded, and
                // moves no kernel literal.
                let written_back: Vec<&Expected> = expected.iter().filter(|e| e.host == h).collect();
                if !written_back.is_empty() {
                    check(host, &migrated, written_back.into_iter())?;
                }
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
            Err(error) => result.errors.push(FileError { path: host.path.clone(), message: error.to_string() }),
        }
    }
    result.changes.sort_by(|a, b| a.canonical.cmp(&b.canonical));
}

fn sorted(mut fixes: Vec<Fix>) -> Vec<Fix> {
    fixes.sort_by(|a, b| (a.line, &a.message).cmp(&(b.line, &b.message)));
    fixes
}

/// Why a host file's write-back is left out.
#[derive(Debug, thiserror::Error)]
enum WriteBackError {
    /// The edits do not apply.
    #[error(transparent)]
    Apply(#[from] crate::migrate::plan::ApplyError),
    /// The edited file, scanned again, is not what clasp meant.
    #[error("{}: error: the migrated embedded kernels do not read back ({why}): left as it is", path.display())]
    NotReadBack { path: PathBuf, why: ReadBack },
}

/// What differs when an edited host file is scanned again.
#[derive(Debug, thiserror::Error)]
enum ReadBack {
    #[error("the file has another number of kernel literals")]
    LiteralCount,
    #[error("the literal at line {line} does not decode to the verified kernel")]
    Literal { line: u32 },
}

/// The edited host file, scanned again, yields exactly what clasp meant:
/// the same literals, each migrated kernel decoding to the verified
/// migrated text (a copy to its file's, whitespace aside). A write-back
/// that broke or changed a literal is caught here, and nothing is written.
fn check<'e>(host: &HostInput, migrated: &[u8], expected: impl Iterator<Item = &'e Expected>) -> Result<(), WriteBackError> {
    let again = crate::host::scan(&host.path, migrated, host.facts.language);
    let fail = |why| Err(WriteBackError::NotReadBack { path: host.path.clone(), why });
    if again.literals.len() != host.facts.literals.len() {
        return fail(ReadBack::LiteralCount);
    }
    for e in expected {
        let text: Vec<u8> = e.literals.iter().flat_map(|l| again.literals[*l].text.bytes()).collect();
        let same = if e.exact {
            text == e.text
        } else {
            let visible = |t: &[u8]| super::copies::visible(t).into_iter().map(|(_, b)| b).collect::<Vec<u8>>();
            visible(&text) == visible(&e.text)
        };
        if !same {
            let line = host.facts.literals[e.literals[0]].start.line;
            return fail(ReadBack::Literal { line });
        }
    }
    Ok(())
}
