//! What a build call builds, and whether clasp changed it.
//!
//! Each program creation reaching the call is followed to its origins: the
//! embedded kernels it takes, another host file's kernel variables, the
//! files it `#include`s as its sources, the kernel files its source is
//! read from (resolved as the host would at run time, from its own
//! directory or one above it), and, for a helper that
//! creates the program from what its callers pass, the files every caller
//! of the batch names in those parameters (one level of calls). An origin
//! is a program clasp changed, one it did not change (a file outside the
//! batch, excluded, unanalysable or withdrawn counts as unchanged: clasp
//! did not change it), or one clasp cannot name. The call's verdict follows
//! from all of them: edited only when every origin changed, unchanged only
//! when every origin is known and unchanged.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::{Changed, HostInput};
use crate::host::{HelperCall, ProgramCreation, Through};
use crate::settings::paths::display_path;

/// The calls of the batch's program-creating helpers, and which host files define each.
#[derive(Debug, Default)]
pub struct Helpers {
    /// (calling host file, canonical; the call).
    pub sites: Vec<(PathBuf, HelperCall)>,
    /// Helper name -> the host files (canonical) that define it.
    pub definers: BTreeMap<String, BTreeSet<PathBuf>>,
}

/// One thing a program is built from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    /// A program clasp changed, as reports name it, and the file (canonical)
    /// its change is written in: a kernel file, or the host file holding the kernel.
    Changed(String, PathBuf),
    /// A program clasp did not change.
    Unchanged(String),
    /// Something clasp cannot name: why.
    Unknown(String),
}

/// What the programs a build call may build come to.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Link {
    /// Every one is a program clasp changed: these, and the files (canonical) their changes are written in.
    Changed { programs: Vec<String>, files: Vec<PathBuf> },
    /// Every one is known, and none changed.
    Unchanged(Vec<String>),
    /// Some changed, some did not: one options string cannot suit both.
    Mixed { changed: Vec<String>, unchanged: Vec<String> },
    /// Some cannot be named: why.
    Unknown(String),
}

/// The link of a build call reached by `creations` (at least one).
pub(super) fn link(host: &HostInput, creations: &[&ProgramCreation], changed: &Changed) -> Link {
    let mut origins: Vec<Origin> = creations.iter().flat_map(|c| creation_origins(host, c, changed)).collect();
    origins.sort();
    origins.dedup();
    if let Some(why) = origins.iter().find_map(|o| if let Origin::Unknown(why) = o { Some(why.clone()) } else { None }) {
        return Link::Unknown(why);
    }
    let pick = |changed: bool| -> Vec<String> {
        (origins.iter())
            .filter_map(|o| match o {
                Origin::Changed(name, _) if changed => Some(name.clone()),
                Origin::Unchanged(name) if !changed => Some(name.clone()),
                _ => None,
            })
            .collect()
    };
    let (migrated, unchanged) = (pick(true), pick(false));
    match (migrated.is_empty(), unchanged.is_empty()) {
        (true, _) => Link::Unchanged(unchanged),
        (false, true) => {
            let files = origins.iter().filter_map(|o| if let Origin::Changed(_, file) = o { Some(file.clone()) } else { None });
            Link::Changed { programs: migrated, files: files.collect() }
        }
        (false, false) => Link::Mixed { changed: migrated, unchanged },
    }
}

/// What one creation builds from.
fn creation_origins(host: &HostInput, creation: &ProgramCreation, changed: &Changed) -> Vec<Origin> {
    let mut out = Vec::new();
    let host_path = crate::settings::root::canonical(&host.path);
    for &l in &creation.literals {
        let literal = &host.facts.literals[l];
        let name = format!("{}:{}", display_path(&host.path), literal.start.line);
        if changed.literals.contains(&l) {
            out.push(Origin::Changed(name, host_path.clone()));
        } else if literal.declares_kernel {
            out.push(Origin::Unchanged(format!("the kernel embedded at {name}")));
        }
    }
    for variable in &creation.external {
        out.push(match changed.variables.get(variable) {
            Some((program, holder)) => Origin::Changed(display_path(program), holder.clone()),
            None if changed.kernel_variables.contains(variable) => Origin::Unchanged(format!("the kernel in `{variable}`")),
            None => Origin::Unknown(format!("`{variable}` is declared in no host file of the batch")),
        });
    }
    out.extend(included_origins(&host_path, creation, changed));
    let files: Vec<Origin> = creation.file_names.iter().flat_map(|name| file_origins(&host_path, name, changed)).collect();
    let through = creation.through.as_ref().map(|through| helper_origins(&host_path, through, changed));
    let read_from_files = !files.is_empty() || through.as_ref().is_some_and(|t| !t.is_empty());
    out.extend(files);
    out.extend(through.into_iter().flatten());
    match (&creation.opaque, read_from_files) {
        (Some(why), false) => out.push(Origin::Unknown(why.clone())),
        (None, false) if out.is_empty() => {
            let why = creation.untraced.clone().unwrap_or_else(|| "its source is not traced".into());
            out.push(Origin::Unknown(why));
        }
        _ => {}
    }
    out
}

/// The files a creation `#include`s as its sources (`host` canonical),
/// found from the host's own directory as the preprocessor finds them: each
/// is a source of the program clasp gathered from them (or a declared
/// `[[program]]`), changed when that program changed. A file clasp read as
/// no program's source (missing, excluded, or not gathered: a creation
/// mixing literals and `#include`s, whose order is not recorded) cannot be
/// named: a part of it may have been migrated on its own.
fn included_origins(host: &Path, creation: &ProgramCreation, changed: &Changed) -> Vec<Origin> {
    if creation.included.is_empty() {
        return Vec::new();
    }
    if !creation.literals.is_empty() {
        return vec![Origin::Unknown("its sources are both literals and `#include`d files".into())];
    }
    let dir = host.parent().unwrap_or(Path::new("/"));
    (creation.included.iter())
        .map(|name| {
            let file = crate::settings::root::canonical(&dir.join(name));
            match changed.programs.iter().find(|(canonical, _)| *canonical == file) {
                Some((_, shown)) => Origin::Changed(display_path(shown), file.clone()),
                None if changed.kernel_files.contains(&file) => Origin::Unchanged(crate::settings::paths::shown_path(&file)),
                None => Origin::Unknown(format!(
                    "`{name}` is `#include`d as a source of a program clasp has no analysis of (see its error, if any: \
                     clasp could not analyse it, was told to leave it out, or could not read the file)"
                )),
            }
        })
        .collect()
}

/// The programs a file name written in `host` (canonical) names: every
/// kernel file of the batch it resolves to, else the name itself (a file
/// clasp did not see, so did not change).
fn file_origins(host: &Path, name: &str, changed: &Changed) -> Vec<Origin> {
    let files: Vec<&PathBuf> = changed.kernel_files.iter().filter(|f| names_file(host, name, f)).collect();
    if files.is_empty() {
        return vec![Origin::Unchanged(display_path(Path::new(name)))];
    }
    (files.into_iter())
        .map(|file| match changed.programs.iter().find(|(canonical, _)| canonical == file) {
            Some((_, shown)) => Origin::Changed(display_path(shown), file.clone()),
            None => Origin::Unchanged(crate::settings::paths::shown_path(file)),
        })
        .collect()
}

/// What the callers of a program-creating helper pass it: at each
/// parameter some caller passes a kernel file name in, every caller must
/// pass one (a caller passing its own parameter, or a name computed at run
/// time, makes the program unknown). Callers are the helper's own file's,
/// and those of files that do not define a function of that name and whose
/// nearest definer (by directory) is this file.
fn helper_origins(host: &Path, through: &Through, changed: &Changed) -> Vec<Origin> {
    let calls = helper_calls(host, through, changed.helpers);
    let function = &through.function;
    if calls.is_empty() {
        return vec![Origin::Unknown(format!("`{function}` reads a file its callers name, and no call of it was found"))];
    }
    let file_parameters: Vec<usize> = (through.parameters.iter().copied())
        .filter(|&p| calls.iter().any(|(_, call)| call.arguments.get(p).is_some_and(|a| !a.file_names.is_empty())))
        .collect();
    if file_parameters.is_empty() {
        let why = format!("no call of `{function}` names a kernel file in the parameters its program is read through");
        return vec![Origin::Unknown(why)];
    }
    let mut out = Vec::new();
    for (caller, call) in calls {
        for &p in &file_parameters {
            let at = format!("{}:{}", crate::settings::paths::shown_path(caller), call.at.line);
            match call.arguments.get(p) {
                Some(argument) if argument.opaque.is_none() && !argument.file_names.is_empty() => {
                    out.extend(argument.file_names.iter().flat_map(|name| file_origins(caller, name, changed)))
                }
                Some(argument) => {
                    let why = argument.opaque.clone().unwrap_or_else(|| "it names no kernel file".into());
                    out.push(Origin::Unknown(format!(
                        "`{function}` is called at {at} with a file name clasp cannot trace ({why})"
                    )));
                }
                None => out.push(Origin::Unknown(format!("`{function}` is called at {at} without argument {}", p + 1))),
            }
        }
    }
    out
}

/// A kernel file a build call builds, and where the host's process is taken
/// to run: the directory the host's file name for it resolves from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct BuiltFile {
    /// Canonical.
    pub file: PathBuf,
    pub working_dir: PathBuf,
}

/// The kernel files of the batch (`kernel_files`, canonical) the
/// `creations` read their source from: those named where the host reads
/// them, and, for a helper creating the program from what its callers
/// pass, those its callers name. Embedded kernels are no files. Where one
/// creation (or one caller's argument) names several kernel files, clasp
/// cannot tell which the program reads (the names of the function may be
/// all it knows): none of them is taken.
pub(super) fn built_files(
    host: &HostInput,
    creations: &[&ProgramCreation],
    kernel_files: &[PathBuf],
    helpers: &Helpers,
) -> Vec<BuiltFile> {
    let host_path = crate::settings::root::canonical(&host.path);
    let single = |from: &Path, names: &[String]| -> Vec<BuiltFile> {
        let found: Vec<BuiltFile> = (names.iter())
            .flat_map(|name| kernel_files.iter().map(move |file| (name, file)))
            .filter_map(|(name, file)| {
                resolving_dir(from, name, file).map(|dir| BuiltFile { file: file.clone(), working_dir: dir })
            })
            .collect();
        let one = found.iter().all(|b| b.file == found[0].file);
        if one {
            found
        } else {
            Vec::new()
        }
    };
    let mut out = Vec::new();
    for creation in creations {
        out.extend(single(&host_path, &creation.file_names));
        let Some(through) = &creation.through else { continue };
        for (caller, call) in helper_calls(&host_path, through, helpers) {
            let arguments = through.parameters.iter().filter_map(|&p| call.arguments.get(p));
            out.extend(arguments.flat_map(|a| single(caller, &a.file_names)));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The calls of the helper `through` names that bind to its definition in
/// `host` (canonical): those of `host` itself, and those of files that do
/// not define a function of that name and whose nearest definer is `host`.
fn helper_calls<'h>(host: &Path, through: &Through, helpers: &'h Helpers) -> Vec<(&'h PathBuf, &'h HelperCall)> {
    let definers = helpers.definers.get(&through.function);
    (helpers.sites.iter())
        .filter(|(_, call)| call.callee == through.function)
        .filter(|(caller, _)| match definers {
            Some(definers) if definers.contains(caller) => caller.as_path() == host,
            Some(definers) => nearest(caller, definers).contains(&host),
            None => false,
        })
        .map(|(caller, call)| (caller, call))
        .collect()
}

/// The definers nearest `caller`: sharing the longest leading directories with it.
fn nearest<'d>(caller: &Path, definers: &'d BTreeSet<PathBuf>) -> Vec<&'d Path> {
    let shared = |d: &Path| caller.components().zip(d.components()).take_while(|(a, b)| a == b).count();
    let best = definers.iter().map(|d| shared(d)).max().unwrap_or(0);
    definers.iter().filter(|d| shared(d) == best).map(PathBuf::as_path).collect()
}

/// Whether a file name written in host code (`kernels/scale.cl`,
/// `../kernels/scale.cl`) names `file` (canonical) from `host` (canonical):
/// joined to the host's directory or to one of its ancestors, it is `file`.
pub(super) fn names_file(host: &Path, name: &str, file: &Path) -> bool {
    resolving_dir(host, name, file).is_some()
}

/// The directory (the host's or one of its ancestors) from which the file
/// name `name` written in `host` resolves to `file` (both canonical): where
/// the host's process must run for the name to open the file.
fn resolving_dir(host: &Path, name: &str, file: &Path) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    let resolve = |dir: &Path| {
        let mut path = dir.to_path_buf();
        for component in Path::new(name).components() {
            match component {
                Component::Normal(part) => path.push(part),
                Component::ParentDir => {
                    path.pop();
                }
                Component::RootDir => path = PathBuf::from("/"),
                _ => {}
            }
        }
        path
    };
    host.ancestors().skip(1).find(|dir| resolve(dir) == file).map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_resolve_from_the_host_directory_or_above() {
        let (host, file) = (Path::new("/work/project/src/host.c"), Path::new("/work/project/kernels/scale.cl"));
        assert!(names_file(host, "kernels/scale.cl", file), "from the project's directory");
        assert!(names_file(host, "../kernels/scale.cl", file), "from the host's directory");
        assert!(names_file(host, "./kernels/scale.cl", file));
        assert!(!names_file(host, "scale.cl", file), "no directory of the host holds it");
        assert!(!names_file(host, "other/scale.cl", file));
        assert!(!names_file(host, "", file));
        assert!(!names_file(Path::new("/work/elsewhere/host.c"), "kernels/scale.cl", file));
    }

    #[test]
    fn a_caller_binds_to_the_nearest_definition_of_a_helper() {
        let definers: BTreeSet<PathBuf> = ["/p/a/util.c", "/p/b/util.c"].into_iter().map(PathBuf::from).collect();
        assert_eq!(nearest(Path::new("/p/a/main.c"), &definers), [Path::new("/p/a/util.c")]);
        assert_eq!(nearest(Path::new("/p/c/main.c"), &definers).len(), 2, "equally near: both");
    }
}
