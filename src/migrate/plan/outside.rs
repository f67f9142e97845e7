//! Files outside the edit root that would change: never edited, and never
//! left silently either. Each is named in one warning saying that it lies
//! outside the root and how to take it in (`--root DIR`, or `root` in
//! clasp.toml).
//!
//! A file "would change" when a helper defined in it could become generic
//! were it under the root (the units including it inferred once more with
//! its declarations decided as any other), or when a change set under the
//! root is withheld because it would edit the file (a prototype there).
//! Only units with a helper pointer declared outside the root are inferred
//! again, so a batch whose outside headers hold no helper pays nothing.
//! The warning is no pending change: `--check` does not count it, as no
//! run with this root could apply it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::agree::{infer_options, written_in, Outside};
use super::{real_files, Plan};
use crate::codes::Code;
use crate::front::unit::Unit;
use crate::infer::{infer, Decision, InferOptions};
use crate::input::source::Place;
use crate::rules::Warning;
use crate::settings::options::MigrateOptions;
use crate::settings::root::is_under;

/// What would change in one file outside the root.
#[derive(Default)]
struct Changing {
    /// The first declaration that would become generic there, where it is.
    place: Option<Place>,
    /// The functions that would change there.
    functions: BTreeSet<String>,
}

/// One warning per file outside the edit root that would change (see the module doc).
pub fn outside_root_warnings(units: &[Unit], plan: &Plan, options: &MigrateOptions) -> Vec<Warning> {
    let mut changing = would_become_generic(units, options);
    for (id, (code, _)) in &plan.withheld {
        if *code != Code::OutsideRoot {
            continue;
        }
        let set = &plan.sets[*id];
        let real = set.edits.iter().flat_map(|(file, edits)| real_files(units, file, edits));
        for file in real.filter(|file| !is_under(&options.root, file)) {
            let functions = set.fixes.iter().map(|fix| fix.function.clone());
            changing.entry(file).or_default().functions.extend(functions);
        }
    }
    changing.into_iter().map(|(file, changing)| warning(&file, changing, &options.root)).collect()
}

/// The files outside the root where a declaration would become generic, were
/// it decided as any other: each with the first such declaration.
fn would_become_generic(units: &[Unit], options: &MigrateOptions) -> BTreeMap<PathBuf, Changing> {
    let outside = |unit: &Unit| {
        let decls = unit.syntax.functions.iter().filter(|f| f.is_definition && !f.is_kernel).flat_map(|f| &f.pointers);
        decls.into_iter().any(|decl| !is_under(&options.root, written_in(unit, decl)))
    };
    let affected: Vec<&Unit> = units.iter().filter(|unit| outside(unit)).collect();
    let mut changing: BTreeMap<PathBuf, Changing> = BTreeMap::new();
    for (file, place, function) in infer_each(&affected, options).into_iter().flatten() {
        let entry = changing.entry(file).or_default();
        entry.functions.insert(function);
        let earlier = |known: &Place| (known.line, known.col) <= (place.line, place.col);
        if !entry.place.as_ref().is_some_and(earlier) {
            entry.place = Some(place);
        }
    }
    changing
}

/// Each unit inferred with declarations outside the root decided as any
/// other, on `options.jobs` threads: the generic ones outside the root (real
/// file, place, function).
fn infer_each(units: &[&Unit], options: &MigrateOptions) -> Vec<Vec<(PathBuf, Place, String)>> {
    let chunk = units.len().div_ceil(options.jobs.max(1)).max(1);
    let each = |unit: &Unit| {
        let o: InferOptions = infer_options(unit, options, &BTreeSet::new(), Outside::Decided);
        let decided = infer(unit, &o).decls;
        let generic = decided.into_iter().filter(|d| matches!(d.decision, Decision::Generic { .. }));
        let outside = generic.filter_map(|d| {
            let file = written_in(unit, &d.decl);
            (!is_under(&options.root, file)).then(|| (file.to_path_buf(), unit.position(d.decl.pos), d.function))
        });
        outside.collect::<Vec<_>>()
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = units
            .chunks(chunk)
            .map(|units| scope.spawn(move || units.iter().map(|unit| each(unit)).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("inference worker")).collect()
    })
}

/// The warning for `file` (canonical), outside `root`.
fn warning(file: &Path, changing: Changing, root: &Path) -> Warning {
    let functions: Vec<String> = changing.functions.iter().map(|f| format!("`{f}`")).collect();
    // A file named through a symbolic link (a linked folder under the root) is said where it lies.
    let named = changing.place.as_ref().map(|place| std::env::current_dir().unwrap_or_default().join(&place.file));
    let linked = named.is_some_and(|named| Path::new(&crate::settings::paths::display_path(&named)) != file);
    let real = if linked { format!(" ({})", file.display()) } else { String::new() };
    let message = format!(
        "{} would change here, but this file{real} lies outside the edit root {}, so it is left as it is; \
         to migrate it, widen the root: --root {} (or `root` in clasp.toml)",
        functions.join(", "),
        root.display(),
        shown_dir(&covering(root, file)),
    );
    match changing.place {
        Some(place) => Warning::at(PathBuf::from(shown(&place.file)), place.line, place.col, message),
        None => Warning::new(PathBuf::from(shown(file)), message),
    }
}

/// The deepest folder holding both the root and `file`: the root that would take the file in.
fn covering(root: &Path, file: &Path) -> PathBuf {
    root.ancestors().find(|dir| file.starts_with(dir)).unwrap_or(Path::new("/")).to_path_buf()
}

/// A folder as messages name it: from the current directory when under it (`.` for itself).
fn shown_dir(dir: &Path) -> String {
    Some(shown(dir)).filter(|shown| !shown.is_empty()).unwrap_or_else(|| ".".to_string())
}

fn shown(path: &Path) -> String {
    crate::settings::paths::shown_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_suggested_is_the_deepest_folder_holding_both() {
        let covering = |root: &str, file: &str| covering(Path::new(root), Path::new(file));
        assert_eq!(covering("/p/kernels", "/p/include/h.h"), Path::new("/p"));
        assert_eq!(covering("/p/kernels", "/p/kernels2/h.h"), Path::new("/p"), "by components, not by text");
        assert_eq!(covering("/p", "/opt/sdk/h.h"), Path::new("/"));
    }

    #[test]
    fn the_warning_names_the_place_the_functions_the_root_and_the_way_in() {
        let place = Place { file: "/p/kernels/./../include/h.h".into(), line: 1, col: 35 };
        let changing = Changing { place: Some(place), functions: ["first".to_string(), "twice".to_string()].into() };
        let w = warning(Path::new("/p/include/h.h"), changing, Path::new("/p/kernels"));
        assert_eq!(w.location(), "/p/include/h.h:1:35", "tidied");
        assert_eq!(
            w.message,
            "`first`, `twice` would change here, but this file lies outside the edit root /p/kernels, so it is left as \
             it is; to migrate it, widen the root: --root /p (or `root` in clasp.toml)"
        );
        let whole = warning(Path::new("/p/include/h.h"), Changing::default(), Path::new("/p/kernels"));
        assert_eq!(whole.location(), "/p/include/h.h", "a file with no place: named whole");
    }

    #[test]
    fn a_file_named_through_a_link_is_said_where_it_lies() {
        let place = Place { file: "/p/kernels/vend/h.h".into(), line: 2, col: 7 };
        let changing = Changing { place: Some(place), functions: ["first".to_string()].into() };
        let w = warning(Path::new("/q/vendor/h.h"), changing, Path::new("/p"));
        assert_eq!(w.location(), "/p/kernels/vend/h.h:2:7");
        assert!(w.message.contains("but this file (/q/vendor/h.h) lies outside the edit root /p,"), "{}", w.message);
        assert!(w.message.ends_with("--root / (or `root` in clasp.toml)"), "{}", w.message);
    }
}
