//! `clasp migrate --interactive`: each change set (the declarations linked
//! by pointer flows, which stand or fall together and independently of the
//! other sets) is shown with its diff and its evidence, and accepted or
//! skipped. The skipped sets' declarations are then kept as they are
//! (`suppressed`) and the batch is migrated and verified again, so what is
//! written is a verified result of the accepted sets alone.
//!
//! Some edits follow only from several sets together: a host build call
//! whose program may be any of several files is switched to the new
//! standard only once all of them changed, so no set's diff holds it. Once
//! the answers are in, every edit of the result that no accepted set
//! showed is shown as one more diff, with its evidence, before anything is
//! written (`show_follow_up`): the diffs shown are what gets written.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::Stop;
use crate::codes::Code;
use crate::migrate::report::{FileChange, Fix, Migration};
use crate::output::render;
use crate::support::style::Palettes;

/// A fix across runs: its rule and where it is reported (canonical file, line,
/// column), which, unlike a declaration inside an embedded kernel's scratch
/// file, is the same in every run.
type Identity = (Code, PathBuf, u32, u32);

/// What the review decided: the declarations of the skipped sets, to keep in
/// the next run, the fixes that must not come back and those accepted.
#[derive(Debug, Default)]
pub struct Review {
    pub kept_decls: BTreeMap<(PathBuf, u32), String>,
    skipped: BTreeSet<Identity>,
    accepted: BTreeSet<Identity>,
    /// Every edit the accepted sets' diffs showed (host build calls included).
    shown: BTreeSet<Shown>,
    /// The directory the sets' diffs name files from: the follow-up diff names them alike.
    base: Option<render::DiffBase>,
}

/// An edit as shown, across runs: its rule, where it is reported, and the edit itself.
type Shown = (Code, PathBuf, u32, u32, Vec<crate::rules::Edit>);

fn shown_key(fix: &Fix) -> Shown {
    (fix.rule, crate::settings::root::canonical(&fix.file), fix.line, fix.col, fix.edits.clone())
}

/// How many times the batch may run again after a review before giving up.
pub const ROUNDS: usize = 8;

/// One answer to the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accept,
    Skip,
    AcceptRest,
    SkipRest,
}

/// One change set as shown: the files it alone writes (`Migration::set_changes`).
struct SetView<'m> {
    files: &'m [FileChange],
}

impl SetView<'_> {
    /// Its fixes (host build calls that follow it included), in each file it changes.
    fn fixes(&self) -> impl Iterator<Item = &Fix> {
        self.files.iter().flat_map(|change| change.fixes.iter())
    }
}

/// Shows each change set, its files named from `root` as the batch's diff
/// names them, and reads an answer for it from `input`.
pub fn review(
    migration: &Migration,
    root: &Path,
    input: &mut dyn BufRead,
    palettes: Palettes,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Review {
    let sets = sets(migration);
    // One base for every set: the files of all of them, as the batch's diff would name them.
    let base = render::DiffBase::for_files(migration.changes.iter().map(|c| c.path.as_path()), root);
    if let Some(note) = base.note().filter(|_| !sets.is_empty()) {
        let _ = writeln!(stderr, "{}", palettes.stderr.diagnostic(&note));
    }
    let mut review = Review { base: Some(base.clone()), ..Review::default() };
    let mut rest: Option<Answer> = None;
    for (index, set) in sets.iter().enumerate() {
        let answer = match rest {
            Some(answer) => answer,
            None => {
                let _ = stdout.write_all(&palettes.stdout.diff(set_diff(set, &base)));
                for line in evidence(set) {
                    let _ = writeln!(stderr, "{}", palettes.stderr.explanation(&line));
                }
                ask(input, stderr, index + 1, sets.len())
            }
        };
        match answer {
            Answer::Accept | Answer::AcceptRest => accept(set, &mut review),
            Answer::Skip | Answer::SkipRest => skip(set, &mut review),
        }
        if matches!(answer, Answer::AcceptRest | Answer::SkipRest) {
            rest = Some(answer);
        }
    }
    review
}

/// The change sets of a migration, in the order their first fix is reported.
fn sets(migration: &Migration) -> Vec<SetView<'_>> {
    let mut order: Vec<usize> = Vec::new();
    // Host build calls follow the kernels they build: not asked about, shown with the sets they follow.
    for origin in migration.changes.iter().flat_map(|c| c.fixes.iter()).filter_map(|fix| fix.origin.as_ref()) {
        if !order.contains(&origin.set) {
            order.push(origin.set);
        }
    }
    let files = |id: usize| migration.set_changes.get(&id).map_or(&[][..], Vec::as_slice);
    order.into_iter().map(|id| SetView { files: files(id) }).collect()
}

/// The set's own diff: the files it alone writes, rendered as the dry run
/// renders the batch's (`--write` writes exactly these texts when only it is accepted).
fn set_diff(set: &SetView, base: &render::DiffBase) -> Vec<u8> {
    set.files.iter().flat_map(|change| render::diff(change, base)).collect()
}

/// The set's fixes as `--explain` lines, in source order.
fn evidence(set: &SetView) -> Vec<String> {
    let lines: BTreeSet<(String, u32, u32, String)> = set
        .fixes()
        .map(|fix| (crate::settings::paths::shown_path(&fix.file), fix.line, fix.col, format!("{}: {}", fix.rule, fix.message)))
        .collect();
    lines.into_iter().map(|(file, line, col, text)| format!("{file}:{line}:{col}: {text}")).collect()
}

/// Asks until the answer is one of those offered; the end of the input skips the rest.
fn ask(input: &mut dyn BufRead, stderr: &mut dyn Write, number: usize, total: usize) -> Answer {
    loop {
        let _ = write!(stderr, "[{number}/{total}] apply this change? [y]es, [n]o, [a]ll the rest, [q]uit (skip the rest): ");
        let _ = stderr.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                let _ = writeln!(stderr);
                return Answer::SkipRest;
            }
            // A terminal echoes the answer; from a pipe, it is shown so the transcript reads right.
            Ok(_) if !std::io::IsTerminal::is_terminal(&std::io::stdin()) => {
                let _ = writeln!(stderr, "{}", line.trim());
            }
            Ok(_) => {}
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Answer::Accept,
            "n" | "no" => return Answer::Skip,
            "a" | "all" => return Answer::AcceptRest,
            "q" | "quit" => return Answer::SkipRest,
            _ => {}
        }
    }
}

fn identity(fix: &Fix) -> Option<Identity> {
    fix.origin.as_ref().map(|_| (fix.rule, crate::settings::root::canonical(&fix.file), fix.line, fix.col))
}

fn accept(set: &SetView, review: &mut Review) {
    review.accepted.extend(set.fixes().filter_map(identity));
    review.shown.extend(set.fixes().map(shown_key));
}

/// The edits of `result` (what will be written) that no accepted set's diff
/// showed, shown as one more diff with their evidence: the host build calls
/// that follow only from the accepted sets together.
pub fn show_follow_up(
    review: &Review,
    result: &Migration,
    root: &Path,
    palettes: Palettes,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) {
    let base = (review.base.clone())
        .unwrap_or_else(|| render::DiffBase::for_files(result.changes.iter().map(|c| c.path.as_path()), root));
    let mut diff = Vec::new();
    let mut lines = BTreeSet::new();
    for change in &result.changes {
        let unshown: Vec<&Fix> = change.fixes.iter().filter(|fix| !review.shown.contains(&shown_key(fix))).collect();
        if unshown.is_empty() {
            continue;
        }
        let edits: BTreeSet<&crate::rules::Edit> = unshown.iter().flat_map(|fix| fix.edits.iter()).collect();
        // Fixes of one result never overlap: these apply as they do in the whole file.
        let Ok(migrated) = crate::migrate::apply_edits(&change.path, &change.original, edits) else { continue };
        let alone = FileChange { migrated, fixes: Vec::new(), ..change.clone() };
        diff.extend(render::diff(&alone, &base));
        for fix in unshown {
            let at = format!("{}:{}:{}", crate::settings::paths::display_path(&fix.file), fix.line, fix.col);
            lines.insert(format!("{at}: {}: {} (follows from the sets you accepted)", fix.rule, fix.message));
        }
    }
    if diff.is_empty() {
        return;
    }
    let _ = writeln!(stderr, "clasp: these edits follow from the sets you accepted together; they are written with them:");
    let _ = stderr.flush();
    let _ = stdout.write_all(&palettes.stdout.diff(diff));
    let _ = stdout.flush();
    for line in lines {
        let _ = writeln!(stderr, "{}", palettes.stderr.explanation(&line));
    }
}

/// A skipped set: its declarations kept in the next run, its fixes not to come back.
fn skip(set: &SetView, review: &mut Review) {
    for fix in set.fixes() {
        let Some(origin) = &fix.origin else { continue };
        review.kept_decls.insert(origin.decl.clone(), "skipped in the --interactive review".to_string());
        review.skipped.extend(identity(fix));
    }
}

/// What a run without the skipped sets says: done (only accepted changes),
/// or changes that appear only now, never reviewed (a helper a skipped merge
/// would have deleted becomes generic on its own), which are kept too and
/// the batch runs again. A skipped change that is back (one the kept
/// declarations cannot hold: a table moved for the budget, a change inside
/// an embedded kernel) stops the run before anything is written.
pub fn settle(review: &mut Review, migration: &Migration) -> Result<bool, Stop> {
    let fixes = || migration.changes.iter().flat_map(|c| c.fixes.iter()).filter(|f| f.origin.is_some());
    let shown = |fix: &Fix| {
        format!("  {}:{}:{}: {}: {}", crate::settings::paths::shown_path(&fix.file), fix.line, fix.col, fix.rule, fix.message)
    };
    let back: Vec<String> = fixes().filter(|f| identity(f).is_some_and(|i| review.skipped.contains(&i))).map(shown).collect();
    if !back.is_empty() {
        let message = format!("these skipped changes cannot be left out on their own; nothing written:\n{}", back.join("\n"));
        return Err(Stop::clasp(message));
    }
    let mut done = true;
    for fix in fixes().filter(|f| identity(f).is_some_and(|i| !review.accepted.contains(&i))) {
        let origin = fix.origin.as_ref().expect("filtered");
        let why = "not reviewed: it appears only once the skipped changes are left out".to_string();
        review.kept_decls.insert(origin.decl.clone(), why);
        review.skipped.extend(identity(fix));
        done = false;
    }
    Ok(done)
}
