//! Kernel files, and the `[[program]]`s a host gathers by `#include`,
//! analysed with the options their hosts build them with.
//!
//! A build call linked to a kernel file of the batch (the rule
//! `host-build-options` links calls to programs, `files_built`) whose
//! options clasp can read adds them to every job of that file, before
//! loading: `-D` and `-U` (in order, the last of a name wins), `-I` and
//! `-include`, and the `-cl-*`/`-w`/`-g` options clang accepts (another
//! `-cl-*`, a vendor option, is left out with a note at the call). Two things
//! are left out, on purpose: `-cl-std=` (the input standard is clasp's to
//! find, 1.2 first, and the target is clasp's choice; the rule edits the
//! host's `-cl-std=` to the target anyway) and `-Werror` (a driver's
//! warnings are not clang's).
//!
//! A relative `-I` or `-include` is relative to the working directory of
//! the host's process, which clasp cannot know: it is taken from the
//! directory the host's file name for the kernel resolves from (where the
//! process must run to open it), else the host's own directory or the
//! nearest one above it that holds the path.
//!
//! What the user declared for the file (clasp.toml, its configuration, its
//! `[[file]]` entries, the command line) wins: a host `-D`/`-U` of a macro
//! declared otherwise is dropped, with a warning at the build call naming
//! both. Several calls building a file with different options make several
//! configurations of it (named after the call, `host.c:14`), each of which
//! must verify. A call whose options cannot be traced adds nothing: a file
//! only such calls build is analysed as before; nor does a call whose
//! program may be one of several files (`files_built` takes none of them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::host::{BuildCall, OptionsArg};
use crate::input::config::Job;
use crate::migrate::report::Migration;
use crate::rules::host_build_options::{files_built, BuiltFile, Helpers, HostInput};
use crate::rules::Warning;
use crate::settings::options::CompileOptions;
use crate::settings::paths::display_path;
use crate::settings::root::canonical;

/// A build call's options, as clasp analyses a kernel file with them.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct HostOptions {
    /// Each macro's last `-D` (`Some("N=4")`) or `-U` (`None`), in the order of those.
    macros: Vec<(String, Option<String>)>,
    include_dirs: Vec<PathBuf>,
    includes: Vec<PathBuf>,
    clang_extra: Vec<String>,
}

/// The build call that first passes a set of options, for names and messages.
#[derive(Debug, Clone)]
struct Site {
    host: PathBuf,
    line: u32,
    col: u32,
    api: String,
    /// The options as the host writes them.
    text: String,
}

impl Site {
    fn label(&self) -> String {
        format!("{}:{}", display_path(&self.host), self.line)
    }
}

/// Adds to the kernel-file jobs the options of the build calls that build
/// them (see the module's doc); warnings for options clasp cannot read and
/// for declared options that override a host's.
pub(super) fn apply(hosts: &[HostInput], helpers: &Helpers, jobs: &mut Vec<Job>, result: &mut Migration) {
    let mut kernel_files: Vec<PathBuf> = jobs.iter().filter(|j| is_file_job(j)).map(|j| canonical(&j.path)).collect();
    kernel_files.sort();
    kernel_files.dedup();
    let programs: Vec<(Vec<PathBuf>, PathBuf)> = (jobs.iter())
        .filter_map(|j| j.program.as_ref().map(|p| (p.files.iter().map(|f| canonical(f)).collect(), j.path.clone())))
        .collect();
    let mut built = options_by_file(hosts, helpers, &kernel_files, result);
    built.extend(options_by_program(hosts, &programs, result));
    let mut warnings = BTreeSet::new();
    let mut out = Vec::with_capacity(jobs.len());
    for job in jobs.drain(..) {
        let key = if is_file_job(&job) { Some(canonical(&job.path)) } else { job.program.as_ref().map(|_| job.path.clone()) };
        let sets = key.and_then(|key| built.get(&key));
        let Some(sets) = sets.filter(|sets| sets.iter().any(|(options, _)| *options != HostOptions::default())) else {
            out.push(job);
            continue;
        };
        for (options, site) in sets {
            let mut with = job.clone();
            with.compile = merged(&job, options, site, &mut warnings);
            if sets.len() > 1 {
                let name = site.label();
                with.configuration = Some(job.configuration.as_ref().map_or(name.clone(), |c| format!("{c}, {name}")));
            }
            out.push(with);
        }
    }
    *jobs = out;
    result.warnings.extend(warnings.into_iter().map(|(path, line, col, message)| Warning::at(path, line, col, message)));
}

/// A job that loads a kernel file (not an embedded kernel, not a `[[program]]`).
fn is_file_job(job: &Job) -> bool {
    job.embedded.is_none() && job.program.is_none()
}

/// Per kernel file (canonical), the distinct options its build calls pass,
/// each with the first call passing it, in the order of the host files and calls.
fn options_by_file(
    hosts: &[HostInput],
    helpers: &Helpers,
    kernel_files: &[PathBuf],
    result: &mut Migration,
) -> BTreeMap<PathBuf, Vec<(HostOptions, Site)>> {
    let mut built: BTreeMap<PathBuf, Vec<(HostOptions, Site)>> = BTreeMap::new();
    for host in hosts {
        for call in &host.facts.build_calls {
            // Options computed at run time: clasp cannot tell what they add.
            let Some(text) = traced_text(&call.options) else { continue };
            let site =
                Site { host: host.path.clone(), line: call.at.line, col: call.at.col, api: call.api.clone(), text: text.clone() };
            for BuiltFile { file, working_dir } in files_built(host, call, kernel_files, helpers) {
                let dirs = working_dirs(&working_dir, &host.path);
                add_options(&mut built, file, &dirs, (call, &site), result);
            }
        }
    }
    built
}

/// Per declared `[[program]]` (by its job's path), the distinct options of
/// the build calls building a creation that gathers its sources by
/// `#include`, in order (relative paths from the host's directory, where
/// the host's `#include`s resolve).
fn options_by_program(
    hosts: &[HostInput],
    programs: &[(Vec<PathBuf>, PathBuf)],
    result: &mut Migration,
) -> BTreeMap<PathBuf, Vec<(HostOptions, Site)>> {
    let mut built: BTreeMap<PathBuf, Vec<(HostOptions, Site)>> = BTreeMap::new();
    for host in hosts.iter().filter(|_| !programs.is_empty()) {
        let dir = host.path.parent().unwrap_or(Path::new(""));
        for (c, creation) in host.facts.programs.iter().enumerate().filter(|(_, c)| !c.included.is_empty()) {
            let sources: Vec<PathBuf> = creation.included.iter().map(|name| canonical(&dir.join(name))).collect();
            let Some((_, key)) = programs.iter().find(|(files, _)| *files == sources) else { continue };
            for call in host.facts.build_calls.iter().filter(|call| super::embedded::builds(&host.facts, call, c)) {
                let Some(text) = traced_text(&call.options) else { continue };
                let site = Site { host: host.path.clone(), line: call.at.line, col: call.at.col, api: call.api.clone(), text };
                let dirs = working_dirs(&canonical(dir), &host.path);
                add_options(&mut built, key.clone(), &dirs, (call, &site), result);
            }
        }
    }
    built
}

/// The options of the call at `site`, read from `dirs`, as one more set
/// of `key`'s (unless it has them already); a warning when clasp cannot read them.
fn add_options(
    built: &mut BTreeMap<PathBuf, Vec<(HostOptions, Site)>>,
    key: PathBuf,
    dirs: &[PathBuf],
    (call, site): (&BuildCall, &Site),
    result: &mut Migration,
) {
    match parse(&site.text, dirs) {
        Ok((options, ignored)) => {
            for note in ignored {
                super::note_at(result, &site.host, (site.line, site.col), note);
            }
            let sets = built.entry(key).or_default();
            if !sets.iter().any(|(known, _)| *known == options) {
                sets.push((options, site.clone()));
            }
        }
        Err(why) => result.warnings.push(unreadable(call, site, &key, &why)),
    }
}

fn unreadable(call: &BuildCall, site: &Site, file: &Path, why: &str) -> Warning {
    let message = format!(
        "{} builds {} with options clasp cannot read ({why}): it is analysed without them",
        call.api,
        crate::settings::paths::shown_path(file)
    );
    Warning::at(site.host.clone(), site.line, site.col, message)
}

/// The options a build call passes, as one string, when clasp can trace
/// them (`NULL`, none, or a constructor that builds: the empty string).
fn traced_text(options: &OptionsArg) -> Option<String> {
    match options {
        OptionsArg::Literal { value, .. } => Some(value.clone()),
        OptionsArg::PythonList { values, .. } => Some(values.iter().map(|v| v.value.as_str()).collect::<Vec<_>>().join(" ")),
        OptionsArg::Variable { init, .. } => traced_text(init),
        // A constructor that builds passes no options.
        OptionsArg::Null { .. } | OptionsArg::Absent { .. } | OptionsArg::BuildFlag { .. } => Some(String::new()),
        OptionsArg::Untraced { .. } => None,
    }
}

/// Where a relative path among a host's options is looked for, in order:
/// the directory the kernel's file name resolves from, then the host's
/// directory and those above it.
fn working_dirs(working_dir: &Path, host: &Path) -> Vec<PathBuf> {
    let host = canonical(host);
    let mut dirs = vec![working_dir.to_path_buf()];
    dirs.extend(host.ancestors().skip(1).map(Path::to_path_buf).filter(|d| d != working_dir));
    dirs
}

/// Reads a host's option string (split as a shell would); relative paths
/// are resolved against the first of `dirs` holding them (else the first).
/// The notes of the options it ignores (a vendor `-cl-*`).
fn parse(text: &str, dirs: &[PathBuf]) -> Result<(HostOptions, Vec<String>), String> {
    let words = crate::settings::build_options::split_build_string(text, "options").map_err(|e| e.to_string())?;
    let mut out = HostOptions::default();
    let mut others = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        if let Some(define) = value_of(&word, "-D", &mut words)? {
            let name = macro_name(&define).to_string();
            out.set_macro(name, Some(define));
        } else if let Some(name) = value_of(&word, "-U", &mut words)? {
            out.set_macro(name, None);
        } else if let Some(dir) = value_of(&word, "-I", &mut words)? {
            out.include_dirs.push(resolve(dirs, &dir));
        } else if word == "-include" {
            let file = words.next().ok_or("`-include` needs a file")?;
            out.includes.push(resolve(dirs, &file));
        } else if word.starts_with("-cl-std=") || word == "-Werror" {
            // The standard is clasp's to find; a driver's warnings are not clang's.
        } else {
            others.push(word);
        }
    }
    let mut rest = CompileOptions::default();
    let notes = crate::input::config::apply_words(&mut rest, others, &dirs[0]).map_err(|e| e.to_string())?;
    out.clang_extra = rest.clang_extra;
    Ok((out, notes))
}

impl HostOptions {
    fn set_macro(&mut self, name: String, define: Option<String>) {
        self.macros.retain(|(known, _)| *known != name);
        self.macros.push((name, define));
    }
}

/// The value of `-X VALUE` or `-XVALUE` when `word` is option `prefix`.
fn value_of(word: &str, prefix: &str, rest: &mut impl Iterator<Item = String>) -> Result<Option<String>, String> {
    match word.strip_prefix(prefix) {
        Some("") => rest.next().map(Some).ok_or_else(|| format!("`{prefix}` needs a value")),
        Some(value) => Ok(Some(value.to_string())),
        None => Ok(None),
    }
}

/// `N` of `N=4`, `N(x)=x` or `N`.
fn macro_name(define: &str) -> &str {
    define.split(['=', '(']).next().unwrap_or(define)
}

fn resolve(dirs: &[PathBuf], path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        return path.to_path_buf();
    }
    dirs.iter().map(|d| d.join(path)).find(|p| p.exists()).unwrap_or_else(|| dirs[0].join(path))
}

/// A warning at a build call: (host, line, col, message).
type Located = (PathBuf, u32, u32, String);

/// `job`'s options with `host`'s added before the declared ones, which win:
/// a host macro the job declares otherwise is left out, with a warning.
fn merged(job: &Job, host: &HostOptions, site: &Site, warnings: &mut BTreeSet<Located>) -> CompileOptions {
    let declared = &job.compile;
    let declared_as = |name: &str| declared.defines.iter().rev().find(|d| macro_name(d) == name);
    let mut compile = declared.clone();
    let mut defines = Vec::new();
    for (name, define) in &host.macros {
        match (declared_as(name), define) {
            (Some(ours), Some(theirs)) if ours == theirs => {}
            (Some(ours), theirs) => {
                let theirs = theirs.as_ref().map_or(format!("-U{name}"), |d| format!("-D{d}"));
                let within = job.configuration.as_ref().map_or(String::new(), |c| format!(" in configuration `{c}`"));
                let message = format!(
                    "{} builds {} with `{theirs}` (options `{}`), but `-D{ours}` is declared for it{within}: \
                     clasp analyses it with `-D{ours}` (declared options win)",
                    site.api,
                    display_path(&job.path),
                    site.text
                );
                warnings.insert((site.host.clone(), site.line, site.col, message));
            }
            (None, Some(theirs)) => defines.push(theirs.clone()),
            // After every `-D`: clang reads `-D` and `-U` in order.
            (None, None) => compile.clang_extra.push(format!("-U{name}")),
        }
    }
    defines.extend(declared.defines.iter().cloned());
    compile.defines = defines;
    let new = |known: &[PathBuf], p: &PathBuf| !known.contains(p);
    compile.include_dirs.extend(host.include_dirs.iter().filter(|d| new(&declared.include_dirs, d)).cloned());
    compile.includes.extend(host.includes.iter().filter(|f| new(&declared.includes, f)).cloned());
    compile.clang_extra.extend(host.clang_extra.iter().filter(|a| !declared.clang_extra.contains(a)).cloned());
    compile
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> HostOptions {
        parse(text, &[PathBuf::from("/nowhere/work"), PathBuf::from("/nowhere")]).unwrap().0
    }

    #[test]
    fn defines_and_undefines_keep_each_macros_last() {
        let options = parsed("-DTILE=16 -D N=4 -UTILE -cl-mad-enable -cl-std=CL1.2 -Werror -w");
        assert_eq!(options.macros, [("N".to_string(), Some("N=4".to_string())), ("TILE".to_string(), None)]);
        assert_eq!(options.clang_extra, ["-cl-mad-enable", "-w"]);
        assert_eq!(parsed("-U X -DX=1").macros, [("X".to_string(), Some("X=1".to_string()))]);
    }

    #[test]
    fn relative_paths_resolve_from_the_first_directory_holding_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("host/include")).unwrap();
        let dirs = [dir.path().to_path_buf(), dir.path().join("host")];
        let (options, _) = parse("-Iinclude -I /abs -include defs.h", &dirs).unwrap();
        assert_eq!(options.include_dirs, [dir.path().join("host/include"), PathBuf::from("/abs")]);
        assert_eq!(options.includes, [dir.path().join("defs.h")], "found nowhere: the first directory");
    }

    #[test]
    fn options_clasp_cannot_read_are_an_error() {
        let dirs = [PathBuf::from("/w")];
        assert!(parse("-DX -fancy", &dirs).unwrap_err().contains("-fancy"));
        assert!(parse("-D", &dirs).unwrap_err().contains("`-D` needs a value"));
        let unbalanced = parse("\"-DX", &dirs).unwrap_err();
        assert!(
            unbalanced.starts_with("options `\"-DX`: unbalanced quotes") && !unbalanced.contains("--build-options"),
            "{unbalanced}"
        );
    }

    /// A vendor option (`-cl-nv-verbose`) is left out with a note, as on the command line.
    #[test]
    fn vendor_options_are_left_out_with_a_note() {
        let (options, notes) = parse("-DN=4 -cl-nv-verbose -cl-mad-enable", &[PathBuf::from("/w")]).unwrap();
        assert_eq!(options.clang_extra, ["-cl-mad-enable"]);
        assert_eq!(notes, ["ignoring build option `-cl-nv-verbose`: clang does not accept it"]);
    }

    #[test]
    fn declared_macros_win_over_a_hosts_with_a_warning() {
        let job = Job {
            path: PathBuf::from("k/tile.cl"),
            configuration: Some("fp32".into()),
            compile: CompileOptions { defines: vec!["TILE=32".into(), "REAL=float".into()], ..Default::default() },
            embedded: None,
            program: None,
        };
        let site = Site { host: "h.c".into(), line: 3, col: 5, api: "clBuildProgram".into(), text: "-DTILE=16".into() };
        let mut warnings = BTreeSet::new();
        let compile = merged(&job, &parsed("-DTILE=16 -DREAL=float -DN=2 -UM"), &site, &mut warnings);
        assert_eq!(compile.defines, ["N=2", "TILE=32", "REAL=float"]);
        assert_eq!(compile.clang_extra, ["-UM"]);
        let messages: Vec<&String> = warnings.iter().map(|w| &w.3).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("`-DTILE=16`") && messages[0].contains("`-DTILE=32`"), "{}", messages[0]);
        assert!(messages[0].contains("configuration `fp32`"), "{}", messages[0]);
    }
}
