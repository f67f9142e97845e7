//! Generated copies: a host literal whose decoded text is the same program
//! as a kernel file of the batch (whitespace aside) is that file's copy,
//! not a unit of its own. It gets the file's edits in lockstep, so
//! regenerating it from the migrated file gives the same text.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::{Expected, HostFixes};
use crate::host::Literal;
use crate::input::config::Job;
use crate::migrate::report::{EmbeddedReport, EmbeddedStatus, Migration};
use crate::rules::host_build_options::HostInput;
use crate::rules::{Edit, Warning};

/// A literal that copies a kernel file.
pub(super) struct Copy {
    /// Index of the host file in the batch, and of the literal in it.
    pub host: usize,
    pub literal: usize,
    /// The kernel file, as the batch names it, and canonical.
    pub file: PathBuf,
    pub canonical: PathBuf,
    /// The kernel file's text as read.
    pub text: Vec<u8>,
}

/// The literals of `hosts` that copy a kernel file of `jobs`.
pub(super) fn find(hosts: &[HostInput], jobs: &[Job]) -> Vec<Copy> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = jobs
        .iter()
        .filter(|j| j.embedded.is_none())
        .filter_map(|j| Some((j.path.clone(), crate::support::overlay::read(&j.path).ok()?)))
        .collect();
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    let mut out = Vec::new();
    for (h, host) in hosts.iter().enumerate() {
        for (index, literal) in host.facts.literals.iter().enumerate() {
            if literal.undecodable.is_some() || !literal.declares_kernel {
                continue;
            }
            let Some((file, text)) = files.iter().find(|(_, text)| same_program(text, literal.text.as_bytes())) else { continue };
            let canonical = crate::settings::root::canonical(file);
            out.push(Copy { host: h, literal: index, file: file.clone(), canonical, text: text.clone() });
        }
    }
    out
}

/// The bytes of `text` that are not whitespace, with their offsets.
pub(super) fn visible(text: &[u8]) -> Vec<(usize, u8)> {
    text.iter().copied().enumerate().filter(|(_, b)| !b.is_ascii_whitespace()).collect()
}

fn same_program(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (visible(a), visible(b));
    !a.is_empty() && a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.1 == y.1)
}

/// A kernel file and its copy, byte for visible byte (found once per copy).
struct Alignment {
    file: Vec<(usize, u8)>,
    copy: Vec<(usize, u8)>,
    copy_len: usize,
}

impl Alignment {
    fn new(file: &[u8], copy: &[u8]) -> Alignment {
        Alignment { file: visible(file), copy: visible(copy), copy_len: copy.len() }
    }

    /// An offset of the kernel file as an offset of the copy: the same
    /// non-whitespace byte; an offset in whitespace keeps its distance from the
    /// visible byte before it, within the copy's own whitespace there.
    fn aligned(&self, offset: usize) -> usize {
        let (f, c) = (&self.file, &self.copy);
        let k = f.partition_point(|(i, _)| *i < offset);
        let (gap_file, gap_copy) = if k == 0 { (0, 0) } else { (f[k - 1].0 + 1, c[k - 1].0 + 1) };
        let end = if k < c.len() { c[k].0 } else { self.copy_len };
        (gap_copy + offset.saturating_sub(gap_file)).min(end)
    }
}

/// The copies of changed kernel files get those files' edits, mapped into the copy's text and through its literal.
/// Returns the copies migrated, as (host index, literal index).
pub(super) fn lockstep(
    hosts: &[HostInput],
    copies: &[Copy],
    result: &mut Migration,
    fixes: &mut HostFixes,
    expected: &mut Vec<Expected>,
) -> BTreeSet<(usize, usize)> {
    let mut migrated = BTreeSet::new();
    for copy in copies {
        let host = &hosts[copy.host];
        let literal = &host.facts.literals[copy.literal];
        let change = result.changes.iter().find(|c| c.canonical == copy.canonical);
        let mut status = EmbeddedStatus::Unchanged;
        if let Some(change) = change {
            let (mut mapped, mut complete) = (Vec::new(), true);
            let alignment = Alignment::new(&copy.text, literal.text.as_bytes());
            for fix in &change.fixes {
                let mut copied = fix.clone();
                copied.edits.clear();
                for edit in fix.edits.iter().filter(|e| same_file(&e.file, &copy.canonical)) {
                    let (start, end) = (alignment.aligned(edit.start as usize), alignment.aligned(edit.end as usize));
                    match literal_edit(host, literal, start as u32..end as u32, &edit.replacement) {
                        Some(written) => copied.edits.push(written),
                        None => complete = false,
                    }
                }
                copied.file = host.path.clone();
                copied.line = literal.start.line;
                copied.col = literal.start.col;
                copied.message = format!("generated copy of {}: {}", copy.file.display(), fix.message);
                mapped.push(copied);
            }
            if complete {
                fixes.entry(copy.host).or_default().extend(mapped);
                let text = change.migrated.clone();
                expected.push(Expected { host: copy.host, literals: vec![copy.literal], text, exact: false });
                migrated.insert((copy.host, copy.literal));
                status = EmbeddedStatus::Migrated;
            } else {
                let message = format!("the generated copy of {} cannot follow its edits: left as it is", copy.file.display());
                result.warnings.push(Warning::at(host.path.clone(), literal.start.line, literal.start.col, message));
                status = EmbeddedStatus::Undecodable;
            }
        }
        result.host.embedded.push(EmbeddedReport {
            file: host.path.clone(),
            line: literal.start.line,
            status,
            copy_of: Some(copy.file.clone()),
            detail: format!("generated copy of {}", copy.file.display()),
        });
    }
    migrated
}

fn same_file(edit_file: &std::path::Path, canonical: &std::path::Path) -> bool {
    crate::settings::root::canonical(edit_file) == canonical
}

/// The edit of the host file that replaces bytes `decoded` of a literal's
/// text with `replacement`, written in the literal's form (a deletion of
/// whole literal lines takes the lines); `None` when the bytes do not map
/// into the literal.
pub(super) fn literal_edit(
    host: &HostInput,
    literal: &Literal,
    decoded: std::ops::Range<u32>,
    replacement: &str,
) -> Option<Edit> {
    let at = literal.to_file(decoded.clone())?;
    let replacement = literal.encode(decoded.start, replacement);
    let at = if replacement.is_empty() { crate::host::whole_literal_lines(&host.text, at) } else { at };
    Some(Edit { file: host.path.clone(), start: at.start, end: at.end, replacement })
}
