//! Kernels embedded in host files: which literals are kernels, the jobs
//! that load them (with the options of the build call that builds them),
//! and writing their edits back into the literal, in its own form.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use super::copies::{literal_edit, Copy};
use super::{Expected, HostFixes};
use crate::host::{HostFacts, Literal, OptionsArg, ProgramRef};
use crate::input::config::Job;
use crate::input::source::{Embedded, EscapedSource, Form, Part, SourceMap};
use crate::migrate::report::{EmbeddedReport, EmbeddedStatus, FileChange, Migration};
use crate::rules::host_build_options::HostInput;
use crate::rules::{Fix, Warning};
use crate::settings::options::{CompileOptions, MigrateOptions};

/// The embedded kernels of `hosts` and their jobs: the several literals of
/// one program (`clCreateProgramWithSource` given several strings) are one
/// unit, their texts concatenated; any other kernel literal is one. An
/// undecodable kernel literal is reported and left alone.
pub(super) fn jobs(
    hosts: &[HostInput],
    copies: &[Copy],
    scratch: &Path,
    options: &MigrateOptions,
    result: &mut Migration,
) -> (Vec<Arc<Embedded>>, Vec<Job>) {
    let (mut embedded, mut jobs) = (Vec::new(), Vec::new());
    for (h, host) in hosts.iter().enumerate() {
        let copied = |index: usize| copies.iter().any(|c| c.host == h && c.literal == index);
        let mut taken = BTreeSet::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let whole =
            |p: &&crate::host::ProgramCreation| p.untraced.is_none() && p.literals.len() > 1 && known(&host.facts, &p.literals);
        for program in host.facts.programs.iter().filter(whole) {
            if program.literals.iter().all(|l| !taken.contains(l) && !copied(*l)) {
                taken.extend(program.literals.iter().copied());
                groups.push(program.literals.clone());
            }
        }
        for (index, literal) in host.facts.literals.iter().enumerate() {
            let is_kernel = literal.declares_kernel || (literal.passed_to.is_some() && wholly_known(&host.facts, index));
            if !is_kernel || copied(index) || taken.contains(&index) {
                continue;
            }
            match &literal.undecodable {
                Some(why) => undecodable(host, literal, why, result),
                None => groups.push(vec![index]),
            }
        }
        groups.sort();
        let line_of = |group: &Vec<usize>| host.facts.literals[group[0]].start.line;
        for group in &groups {
            let shared_line = groups.iter().filter(|g| line_of(g) == line_of(group)).count() > 1;
            if let Some((kernel, job)) = unit(host, group, shared_line, scratch, options, result) {
                embedded.push(kernel);
                jobs.push(job);
            }
        }
    }
    (embedded, jobs)
}

/// The unit of the literals `group` (in order): their texts concatenated.
fn unit(
    host: &HostInput,
    group: &[usize],
    with_col: bool,
    scratch: &Path,
    options: &MigrateOptions,
    result: &mut Migration,
) -> Option<(Arc<Embedded>, Job)> {
    let first = &host.facts.literals[group[0]];
    let (mut text, mut parts, mut sources) = (String::new(), Vec::new(), Vec::new());
    let host_text: Arc<[u8]> = Arc::from(host.text.as_slice());
    for &index in group {
        let literal = &host.facts.literals[index];
        parts.push((index, text.len() as u32));
        text.push_str(&literal.text);
        // Each literal maps its own decoded text back to the host file, whatever its form.
        let form = Form::Escaped(Arc::new(EscapedSource { literal: literal.clone(), file_text: host_text.clone() }));
        let range = 0..literal.text.len() as u32;
        sources.push(Part { file: host.path.clone(), text: host_text.clone(), range, form });
    }
    let text = (text, SourceMap::concatenated(sources));
    let at = (first.start.line, first.start.col, with_col);
    let kernel = match Embedded::prepare(scratch, &host.path, at, parts, text) {
        Ok(kernel) => Arc::new(kernel),
        Err(e) => {
            undecodable(host, first, &format!("its scratch file cannot be written: {e}"), result);
            return None;
        }
    };
    let compile = compile_options(host, group[0], &options.compile, result);
    let job =
        Job { path: kernel.virtual_path.clone(), configuration: None, compile, embedded: Some(kernel.clone()), program: None };
    Some((kernel, job))
}

/// Whether every literal of a program is decodable.
fn known(facts: &HostFacts, literals: &[usize]) -> bool {
    literals.iter().all(|l| facts.literals[*l].undecodable.is_none())
}

/// Whether a literal is a stringify macro's argument (verbatim pieces whose
/// blanks the preprocessor collapsed).
fn stringified(literal: &Literal) -> bool {
    literal.pieces.iter().any(|p| p.form == crate::host::PieceForm::Verbatim && !p.exact)
}

/// Whether the program a literal is passed to is known whole: traced to
/// literals only, each decodable (a literal that is only a piece of a
/// program built at run time, such as a `snprintf` argument, is no kernel).
fn wholly_known(facts: &HostFacts, literal: usize) -> bool {
    facts
        .programs
        .iter()
        .filter(|p| p.literals.contains(&literal))
        .all(|p| p.untraced.is_none() && p.literals.iter().all(|l| facts.literals[*l].undecodable.is_none()))
}

fn undecodable(host: &HostInput, literal: &Literal, why: &str, result: &mut Migration) {
    let (line, col) = (literal.start.line, literal.start.col);
    let message = format!("an embedded kernel clasp cannot decode is left alone: {why}");
    result.warnings.push(Warning::at(host.path.clone(), line, col, message));
    result.host.embedded.push(EmbeddedReport {
        file: host.path.clone(),
        line,
        status: EmbeddedStatus::Undecodable,
        copy_of: None,
        detail: why.to_string(),
    });
}

/// The batch's options plus those of the build call that builds the
/// literal's program, where they can be traced (`-DN=4` from `clBuildProgram(..., "-DN=4", ...)`).
fn compile_options(host: &HostInput, literal: usize, batch: &CompileOptions, result: &mut Migration) -> CompileOptions {
    match host.facts.programs.iter().position(|p| p.literals.contains(&literal)) {
        Some(creation) => creation_options(host, creation, batch, result),
        None => batch.clone(),
    }
}

/// The batch's options plus those of the build call that builds the program
/// of `creation`, where they can be traced; a note at the call for each
/// option it passes that clasp ignores (a vendor `-cl-*`).
pub(super) fn creation_options(
    host: &HostInput,
    creation: usize,
    batch: &CompileOptions,
    result: &mut Migration,
) -> CompileOptions {
    let mut compile = batch.clone();
    let dir = host.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    for call in host.facts.build_calls.iter().filter(|c| builds(&host.facts, c, creation)) {
        if let Some(options) = option_text(&call.options) {
            // Options clasp cannot read as a host's (an option it does not know) are left out.
            let mut with = compile.clone();
            if let Ok(notes) = crate::input::config::apply_option(&mut with, &options, "options", dir) {
                compile = with;
                for note in notes {
                    super::note_at(result, &host.path, (call.at.line, call.at.col), note);
                }
            }
            break;
        }
    }
    compile
}

/// Whether a build call builds the program of creation `creation`.
pub(super) fn builds(facts: &HostFacts, call: &crate::host::BuildCall, creation: usize) -> bool {
    match &call.program {
        ProgramRef::Creation(i) => *i == creation,
        ProgramRef::Expr(expr) => {
            let program = &facts.programs[creation];
            let name = expr.trim().trim_start_matches(['&', '*']).trim();
            program.function == call.function && program.variable.as_deref() == Some(name) && program.at.byte < call.at.byte
        }
    }
}

/// A build call's options as one host option string, when they are known.
fn option_text(options: &OptionsArg) -> Option<String> {
    match options {
        OptionsArg::Literal { value, .. } => Some(value.clone()),
        OptionsArg::PythonList { values, .. } => Some(values.iter().map(|v| v.value.clone()).collect::<Vec<_>>().join(" ")),
        OptionsArg::Variable { init, .. } => option_text(init),
        _ => None,
    }
}

/// Moves the embedded kernels' changes out of the kernel changes and into
/// fixes of their host files, mapped through the literal; returns the
/// literals migrated, as (host index, literal index).
pub(super) fn write_back(
    hosts: &[HostInput],
    embedded: &[Arc<Embedded>],
    result: &mut Migration,
    fixes: &mut HostFixes,
    expected: &mut Vec<Expected>,
) -> BTreeSet<(usize, usize)> {
    let mut migrated = BTreeSet::new();
    for kernel in embedded {
        let Some(h) = hosts.iter().position(|h| h.path == kernel.host) else { continue };
        let change = result.changes.iter().position(|c| c.canonical == kernel.virtual_path).map(|i| result.changes.remove(i));
        let status = match change {
            None => EmbeddedStatus::Unchanged,
            Some(change) => match mapped_fixes(kernel, &hosts[h], change.clone()) {
                Ok(mapped) => {
                    let literals: Vec<usize> = kernel.literals.iter().map(|(l, _)| *l).collect();
                    // A stringify macro's argument reads with its blanks collapsed: only tokens can be compared.
                    let exact = !literals.iter().any(|l| stringified(&hosts[h].facts.literals[*l]));
                    expected.push(Expected { host: h, literals, text: change.migrated.clone(), exact });
                    fixes.entry(h).or_default().extend(mapped);
                    migrated.extend(kernel.literals.iter().map(|(l, _)| (h, *l)));
                    EmbeddedStatus::Migrated
                }
                Err(why) => {
                    let message = format!("the migrated embedded kernel cannot be written back: {why}");
                    result.warnings.push(Warning::at(kernel.host.clone(), kernel.line, kernel.col, message));
                    EmbeddedStatus::Undecodable
                }
            },
        };
        let failed = result.unanalysable.contains(&kernel.virtual_path);
        let (status, detail) = match (failed, status) {
            (true, _) => (EmbeddedStatus::Refused, "clasp could not analyse it (see the error above)".to_string()),
            (false, EmbeddedStatus::Migrated) => {
                (EmbeddedStatus::Migrated, "migrated and verified like a kernel file".to_string())
            }
            (false, EmbeddedStatus::Unchanged) => (EmbeddedStatus::Unchanged, "nothing to change".to_string()),
            (false, other) => (other, "its edits do not map back into the literal".to_string()),
        };
        result.host.embedded.push(EmbeddedReport { file: kernel.host.clone(), line: kernel.line, status, copy_of: None, detail });
    }
    migrated
}

/// Why an embedded kernel's change does not map back into its literals.
#[derive(Debug, thiserror::Error)]
enum UnmappedEdit {
    #[error("bytes {start}..{end} of the kernel are in none of its literals")]
    InNoLiteral { start: u32, end: u32 },
    #[error("bytes {start}..{end} of the kernel do not map into its literal")]
    NotInLiteral { start: u32, end: u32 },
}

/// The fixes of an embedded kernel's change as fixes of its host file: each
/// edit mapped into the literal holding its bytes and written in its form
/// (an edit across two literals of one program: its replacement in the
/// first, the rest deleted, blanks at the start of a later one kept).
fn mapped_fixes(kernel: &Embedded, host: &HostInput, change: FileChange) -> Result<Vec<Fix>, UnmappedEdit> {
    let mut out = Vec::new();
    for fix in change.fixes {
        let mut mapped = fix.clone();
        mapped.edits.clear();
        for edit in fix.edits.iter().filter(|e| e.file == kernel.virtual_path) {
            let covered = pieces(kernel, host, edit.start..edit.end);
            if covered.is_empty() {
                return Err(UnmappedEdit::InNoLiteral { start: edit.start, end: edit.end });
            }
            for (literal, range, first) in covered {
                let own = &literal.text.as_bytes()[range.start as usize..range.end as usize];
                if !first && own.iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                let replacement = if first { edit.replacement.as_str() } else { "" };
                let written = literal_edit(host, literal, range, replacement)
                    .ok_or(UnmappedEdit::NotInLiteral { start: edit.start, end: edit.end })?;
                mapped.edits.push(written);
            }
        }
        mapped.file = kernel.host.clone();
        // Placed at its first edit in the host file, as a program's fix is in its source.
        let place = match mapped.edits.first() {
            Some(first) => crate::input::source::Place::in_text(&kernel.host, &host.text, first.start as usize),
            None => kernel
                .map
                .place(fix.decl.offset)
                .unwrap_or_else(|| crate::input::source::Place::in_text(&kernel.host, &host.text, 0)),
        };
        (mapped.line, mapped.col) = (place.line, place.col);
        mapped.message = format!("in the kernel embedded at {}: {}", kernel.label(), fix.message);
        out.push(mapped);
    }
    Ok(out)
}

/// The literals an edit of the unit's text covers, each with the range of
/// its own text and whether it is the first.
fn pieces<'h>(
    kernel: &Embedded,
    host: &'h HostInput,
    range: std::ops::Range<u32>,
) -> Vec<(&'h Literal, std::ops::Range<u32>, bool)> {
    let mut out = Vec::new();
    for (i, &(index, start)) in kernel.literals.iter().enumerate() {
        let literal = &host.facts.literals[index];
        let end = kernel.literals.get(i + 1).map_or(kernel.text.len() as u32, |next| next.1);
        let covered = (range.start < end && start < range.end) || (range.is_empty() && range.start == start);
        if covered {
            let local = range.start.max(start) - start..range.end.min(end) - start;
            let first = out.is_empty();
            out.push((literal, local, first));
            if range.is_empty() {
                break;
            }
        }
    }
    out
}
