//! Rule `host-build-options`: a host's build call for a program clasp
//! changed asks for the target's OpenCL C standard.
//!
//! What it does: the options argument of `clBuildProgram`,
//! `clCompileProgram`, `cl::Program::build`/`compile` and pyopencl's
//! `build` gets `-cl-std=CL2.0` (`CL3.0` for the 3.0 targets), every other
//! option kept (`crate::host::options_edit` writes the edit). Why: without
//! `-cl-std`, drivers build the highest 1.x version they support, and a
//! migrated program's generic helpers fail to build at run time.
//!
//! Only a call linked to a program clasp changed is edited: the program is
//! created in the same function (or chained, in Python) from a kernel file
//! clasp changed, named by a string literal there and matched by path
//! suffix. A call building a program clasp did not change is left alone; a
//! call whose options cannot be traced (`untraced-options`) or whose program
//! cannot be found (`unlinked-build`, only when the batch changed kernels)
//! is a warning with the exact option to add.
//!
//! Its documentation, what `clasp rule host-build-options` prints, is `DOC` below.

mod links;

use std::path::PathBuf;

use links::Link;
pub use links::{BuiltFile, Helpers};

use serde::Serialize;

use crate::codes::{Code, Doc};
use crate::facts::syntax::Pos;
use crate::host::{BuildCall, HostFacts, OptionsArg, ProgramCreation, ProgramRef};
use crate::rules::{Edit, Fix, Warning};
use crate::settings::options::Target;

/// A build call of a host (`clBuildProgram`, `cl::Program::build`, pyopencl's `build`, ...).
#[derive(Debug, Clone, Serialize)]
pub struct BuildCallReport {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
    pub api: String,
    pub status: BuildStatus,
    /// The program it builds, as clasp traced it (a kernel file, an embedded kernel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    pub detail: String,
    /// The host must be changed by hand (a warning says how): `--check` fails on it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Edited: the files (canonical) the changes of the programs it builds
    /// are written in. Its edit stands or falls with them (`write::batch`).
    #[serde(skip)]
    pub follows: Vec<PathBuf>,
}

/// What clasp did with a build call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuildStatus {
    /// Its options are edited to ask for the target's standard (`host-build-options`).
    Edited,
    /// Nothing to do: it builds a program clasp did not change, or already asks for the standard.
    Unchanged,
    /// Its options are computed where clasp cannot follow them (`untraced-options`).
    Untraced,
    /// Its program could not be traced to its source (`unlinked-build`).
    Unlinked,
}

/// A host file as read, with what `crate::host::scan` found in it.
pub struct HostInput {
    /// The path as discovered (as the reports name it).
    pub path: PathBuf,
    pub text: Vec<u8>,
    pub facts: HostFacts,
}

/// The programs clasp changed in the batch: each unit's main file whose
/// program changed, as (canonical path, path as reported).
pub struct Changed<'a> {
    pub programs: &'a [(PathBuf, PathBuf)],
    /// Every kernel file of the batch (canonical): a file name in host code
    /// names the one closest to the host among those it matches.
    pub kernel_files: &'a [PathBuf],
    /// The host file's embedded kernels clasp migrated (indexes of its literals).
    pub literals: &'a std::collections::BTreeSet<usize>,
    /// Variables of other host files that hold a migrated kernel, with the
    /// program's name and the host file (canonical) holding it.
    pub variables: &'a std::collections::BTreeMap<String, (PathBuf, PathBuf)>,
    /// Variables of host files that hold a kernel (migrated or not).
    pub kernel_variables: &'a std::collections::BTreeSet<String>,
    /// The calls of program-creating helpers, across the batch.
    pub helpers: &'a Helpers,
    /// Whether the batch changed any kernel (a file's or an embedded one).
    pub kernels_changed: bool,
}

/// What the rule decides for one build call.
pub struct Decided {
    pub report: BuildCallReport,
    pub fix: Option<Fix>,
    pub warning: Option<Warning>,
}

/// The option that asks for `target`'s standard.
pub fn std_flag(target: Target) -> String {
    target.standard().std.flag()
}

/// Every build call of `host`, decided.
pub fn decide(host: &HostInput, changed: &Changed, target: Target) -> Vec<Decided> {
    let mut decided: Vec<Decided> = host.facts.build_calls.iter().map(|call| decide_call(host, call, changed, target)).collect();
    keep_shared_options(host, &mut decided, &std_flag(target));
    decided
}

fn decide_call(host: &HostInput, call: &BuildCall, changed: &Changed, target: Target) -> Decided {
    let flag = std_flag(target);
    let mut report = BuildCallReport {
        file: host.path.clone(),
        line: call.at.line,
        col: call.at.col,
        api: call.api.clone(),
        status: BuildStatus::Unchanged,
        program: None,
        detail: String::new(),
        pending: false,
        follows: Vec::new(),
    };
    let creations = creations_of(&host.facts, call);
    if creations.is_empty() {
        return unlinked(host, call, report, changed, &flag);
    }
    let migrated = match links::link(host, &creations, changed) {
        Link::Unknown(why) => {
            report.detail = format!("clasp cannot tell what it builds: {why}");
            return unlinked(host, call, report, changed, &flag);
        }
        Link::Mixed { changed: migrated, unchanged } => {
            report.program = Some(format!("{}, {}", migrated.join(", "), unchanged.join(", ")));
            report.detail = format!(
                "it builds {} (migrated) or {} (not migrated): one options string cannot suit both",
                migrated.join(", "),
                unchanged.join(", ")
            );
            return unlinked(host, call, report, changed, &flag);
        }
        Link::Unchanged(programs) => {
            report.program = Some(programs.join(", "));
            report.detail = "it builds a program clasp did not change".to_string();
            return Decided { report, fix: None, warning: None };
        }
        Link::Changed { programs, files } => {
            report.follows = files;
            programs
        }
    };
    report.program = Some(migrated.join(", "));
    match crate::host::options_edit(&call.options, &flag) {
        Some((range, replacement)) => {
            report.status = BuildStatus::Edited;
            report.detail = format!("its edit makes its options ask for {flag}");
            let fix = fix(host, call, &flag, &migrated, range, replacement);
            Decided { report, fix: Some(fix), warning: None }
        }
        None if traced(&call.options) => {
            report.detail = format!("its options already ask for {flag}");
            Decided { report, fix: None, warning: None }
        }
        None => untraced(host, call, report, &flag),
    }
}

/// The kernel files of the batch (`kernel_files`, canonical) `call` builds,
/// traced as the rule links calls to programs (whether or not clasp changes them).
pub fn files_built(host: &HostInput, call: &BuildCall, kernel_files: &[PathBuf], helpers: &Helpers) -> Vec<BuiltFile> {
    links::built_files(host, &creations_of(&host.facts, call), kernel_files, helpers)
}

/// An options variable shared by build calls that are not all edited (one
/// builds a program clasp did not change): editing its initialiser would
/// switch that program too, so none of them is edited; each is untraced.
fn keep_shared_options(host: &HostInput, decided: &mut [Decided], flag: &str) {
    let variable = |call: &BuildCall| match &call.options {
        OptionsArg::Variable { name, .. } => Some(name.clone()),
        _ => None,
    };
    let calls = &host.facts.build_calls;
    for i in 0..decided.len() {
        let Some(name) = variable(&calls[i]) else { continue };
        let shared_with_unedited = (0..decided.len())
            .any(|j| j != i && variable(&calls[j]).as_deref() == Some(name.as_str()) && decided[j].fix.is_none());
        if decided[i].fix.is_some() && shared_with_unedited {
            let why = format!("`{name}` is also the options of a call clasp leaves as it is");
            let report = decided[i].report.clone();
            decided[i] = untraced_because(host, &calls[i], report, flag, &why);
        }
    }
}

/// The creations of the program `call` may build: the chained one, or
/// every one in the same function, before the call, assigned to the
/// variable the call names (several when branches assign it); failing
/// those, when the call builds a class member, every creation stored in
/// that member, in any method of the class.
fn creations_of<'f>(facts: &'f HostFacts, call: &BuildCall) -> Vec<&'f ProgramCreation> {
    match &call.program {
        ProgramRef::Creation(i) => facts.programs.get(*i).into_iter().collect(),
        ProgramRef::Expr(expr) => {
            let name = expr.trim().trim_start_matches(['&', '*']).trim();
            let local: Vec<&ProgramCreation> = (facts.programs.iter())
                .filter(|p| p.function == call.function && p.at.byte < call.at.byte)
                .filter(|p| p.variable.as_deref() == Some(name))
                .collect();
            match &call.member {
                Some(member) if local.is_empty() => facts.programs.iter().filter(|p| p.member.as_ref() == Some(member)).collect(),
                _ => local,
            }
        }
    }
}

/// Whether clasp can read the options (then a missing edit means they already ask for the flag).
fn traced(options: &OptionsArg) -> bool {
    match options {
        OptionsArg::Untraced { .. } => false,
        OptionsArg::Variable { init, .. } => traced(init),
        _ => true,
    }
}

fn fix(
    host: &HostInput,
    call: &BuildCall,
    flag: &str,
    migrated: &[String],
    range: std::ops::Range<u32>,
    replacement: String,
) -> Fix {
    let program = migrated.join(", ");
    Fix {
        rule: Code::HostBuildOptions,
        file: host.path.clone(),
        line: call.at.line,
        col: call.at.col,
        function: call.function.clone().unwrap_or_default(),
        decl: Pos { file: 0, line: call.at.line, col: call.at.col, offset: call.at.byte },
        link_name: String::new(),
        message: format!("{}: builds {program}, migrated: its options ask for {flag}", call.api),
        required: false,
        evidence: Vec::new(),
        edits: vec![Edit { file: host.path.clone(), start: range.start, end: range.end, replacement }],
        variable: None,
        origin: None,
    }
}

fn untraced(host: &HostInput, call: &BuildCall, report: BuildCallReport, flag: &str) -> Decided {
    let why = match &call.options {
        OptionsArg::Untraced { why } => why.clone(),
        OptionsArg::Variable { init, .. } => match init.as_ref() {
            OptionsArg::Untraced { why } => why.clone(),
            _ => "its options are not a literal".to_string(),
        },
        _ => "its options are not a literal".to_string(),
    };
    untraced_because(host, call, report, flag, &why)
}

fn untraced_because(host: &HostInput, call: &BuildCall, mut report: BuildCallReport, flag: &str, why: &str) -> Decided {
    report.status = BuildStatus::Untraced;
    report.detail = format!("{why}: pass {flag}");
    report.pending = true;
    let program = report.program.clone().unwrap_or_default();
    let message = format!(
        "{} builds {program}, which clasp migrated, with options it cannot trace ({why}): pass {flag} ({})",
        call.api,
        Code::UntracedOptions
    );
    Decided { report, fix: None, warning: Some(Warning::at(host.path.clone(), call.at.line, call.at.col, message)) }
}

fn unlinked(host: &HostInput, call: &BuildCall, mut report: BuildCallReport, changed: &Changed, flag: &str) -> Decided {
    report.status = BuildStatus::Unlinked;
    if report.detail.is_empty() {
        report.detail = "the program it builds is not created in the same function from a kernel clasp can see".to_string();
    }
    if !changed.kernels_changed {
        return Decided { report, fix: None, warning: None };
    }
    report.pending = true;
    let message =
        format!("{}: {}: if it builds a program clasp migrated, pass {flag} ({})", call.api, report.detail, Code::UnlinkedBuild);
    Decided { report, fix: None, warning: Some(Warning::at(host.path.clone(), call.at.line, call.at.col, message)) }
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A host's build call for a migrated program asks for the target's OpenCL C standard.",
    what: "Edits the options argument of every build call that builds a program clasp changed (its kernel file, one of \
its sources, its embedded text, or a header any of them `#include`s) so that it passes `-cl-std=CL2.0` (`-cl-std=CL3.0` for \
the `cl3.0` targets), every other option kept. Build calls: `clBuildProgram`, `clCompileProgram`, \
`cl::Program::build`/`compile` (any overload, on any object that may be a program: one a creation is stored in, one declared \
with a type naming `Program`, or one declared in another file when this one names a `Program` type; a tree's \
`bvh->build(mesh)` is not one) and pyopencl's `Program(...).build(...)`/`compile`. The edit, by options argument:\n\
- a string literal: the flag added, an existing `-cl-std=CL1.x` replaced (`\"-DTILE=16 -cl-std=CL1.2\"` -> \
`\"-DTILE=16 -cl-std=CL2.0\"`);\n\
- `NULL`, `nullptr`, `0` (also cast), Python `None`: replaced by `\"-cl-std=CL2.0\"`;\n\
- absent (`build()`, `compile()`, `build(devices)`, `build(device)`, also before a callback's arguments: \
`build(devices, nullptr, cb, data)` has `nullptr` replaced; pyopencl `build()` or `build(devices=...)`): added, \
`build(\"-cl-std=CL2.0\")`, `build(devices, \"-cl-std=CL2.0\")`, pyopencl `build(options=[\"-cl-std=CL2.0\"])`;\n\
- none, a constructor that builds (`cl::Program program(ctx, src, true, &err);`, or `cl::Program program(src, true)`): the \
flag turned off and the build done right after the statement storing the program (`err = program.build(\"-cl-std=CL2.0\");` \
on the next line, `program.build(...)` alone without an error pointer), likewise after an assignment, and first in the \
constructor's body for a member initializer;\n\
- a Python list of strings: the flag appended as an item;\n\
- a variable initialised from one of those, in the same function or at file scope, never assigned again: its initialiser \
edited.\n\
A newer standard already asked for (`-cl-std=CL3.0` when 2.0 is the target) stays. When kernels changed and no build call was \
found at all, the summary is preceded by a note saying which option the host must pass. `--explain` has a line per host edit \
and per build call left as it is, the summary counts build calls (`1 build call edited (0 untraced, 0 unlinked)`), \
`--statistics` counts the fixes, and `--json` lists each call under `host.build_calls` with its `status` (`edited`, \
`unchanged`, `untraced`, `unlinked`). `--no-host` (or `host = false` in clasp.toml) turns host code off.",
    why: "Without `-cl-std`, drivers build the highest 1.x version they support (AMD, Intel, PoCL), so a migrated \
program's generic helpers fail to build at run time; only some drivers default to 3.0. The migration is only done when the \
host asks for the standard the kernels were migrated to.",
    example: r#"// before (host.c)
fread(source, 1, size, fopen("kernels/scale.cl", "rb"));
program = clCreateProgramWithSource(context, 1, &src, NULL, &err);
clBuildProgram(program, 0, NULL, NULL, NULL, NULL);

// after: kernels/scale.cl was migrated
clBuildProgram(program, 0, NULL, "-cl-std=CL2.0", NULL, NULL);"#,
    refuses: "A call is edited only when every program it may build was migrated and verified in this run; a program \
whose kernel file was excluded, failed to parse or compile, was withdrawn, or is not in the batch is never switched, and a call \
is `unchanged` only when clasp traced what it builds and that did not change. clasp traces a program from its creation \
(`clCreateProgramWithSource`, `cl::Program(ctx, ...)`, pyopencl's `Program(ctx, src)`, or chained) in the call's function, or, \
for a program stored in a member of the class whose method builds it (`self.prg`, `this->program_`), from every creation stored \
in that member: to an embedded kernel, to a variable another host file declares holding one, to the files the host `#include`s \
as its sources, or to the kernel file its source is read from. That file is the one a string literal names where the source is \
read (directly, through a variable, or as the reader call in the source argument), else any kernel file named in the same \
function, unless a source of that function is read from a file named at run time; it is resolved from the host's directory or \
one above it. A file name that comes from a caller (a helper `CreateProgram(ctx, dev, \"k.cl\")` reading the file its parameter \
names) is followed through the parameter to every call of the helper in the batch (the nearest file defining the helper; one \
level of calls), and the helper's call is edited when all of them changed. A call whose options cannot be traced is \
`untraced-options`; one whose program cannot be traced is `unlinked-build`; both are warnings, pending manual work.",
    safety: "The edit changes only the options string the host passes; the kernels it builds were verified as the target \
standard. A second run finds the flag and changes nothing. Review the host diff like any other: it is shown with the kernels'.",
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The decisions for a host `src` at `host`, of a batch whose kernel
    /// files are `files`, the first of which changed.
    fn decided_at(host: &str, src: &str, files: &[&str]) -> Vec<(BuildStatus, bool)> {
        let path = PathBuf::from(host);
        let facts = crate::host::scan(&path, src.as_bytes(), crate::host::HostLanguage::of(&path).unwrap());
        let host = HostInput { path, text: src.as_bytes().to_vec(), facts };
        let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
        let programs = [(files[0].clone(), files[0].clone())];
        let (literals, variables, kernel_variables) = (Default::default(), Default::default(), Default::default());
        let helpers = Helpers::default();
        let changed = Changed {
            programs: &programs,
            kernel_files: &files,
            literals: &literals,
            variables: &variables,
            kernel_variables: &kernel_variables,
            helpers: &helpers,
            kernels_changed: true,
        };
        decide(&host, &changed, Target::Cl20).into_iter().map(|d| (d.report.status, d.fix.is_some())).collect()
    }

    /// /p/a.cl changed, /p/b.cl did not.
    fn decided(src: &str) -> Vec<(BuildStatus, bool)> {
        decided_at("/p/host.c", src, &["/p/a.cl", "/p/b.cl"])
    }

    #[test]
    fn a_file_name_names_the_kernel_file_nearest_the_host() {
        let src = "void f(cl_context c) {\n  char *s = load(\"kernel/k.cl\");\n  \
                   cl_program p = clCreateProgramWithSource(c, 1, (const char **)&s, NULL, NULL);\n  \
                   clBuildProgram(p, 0, NULL, NULL, NULL, NULL);\n}\n";
        let files = ["/p/a/kernel/k.cl", "/p/b/kernel/k.cl"];
        assert_eq!(decided_at("/p/a/host.c", src, &files), [(BuildStatus::Edited, true)]);
        // Only a's program changed: b's host building its own kernel/k.cl is not linked to it.
        assert_eq!(decided_at("/p/b/host.c", src, &files), [(BuildStatus::Unchanged, false)]);
    }

    #[test]
    fn each_creation_builds_the_file_its_source_is_read_from() {
        let src = "void f(cl_context c) {\n  char *a = load(\"a.cl\"); cl_program pa = clCreateProgramWithSource(c, 1, (const char **)&a, NULL, NULL);\n\
                   clBuildProgram(pa, 0, NULL, NULL, NULL, NULL);\n\
                   char *b = load(\"b.cl\"); cl_program pb = clCreateProgramWithSource(c, 1, (const char **)&b, NULL, NULL);\n\
                   clBuildProgram(pb, 0, NULL, NULL, NULL, NULL);\n}\n";
        assert_eq!(decided(src), vec![(BuildStatus::Edited, true), (BuildStatus::Unchanged, false)]);
        // Not in the batch at all (excluded): never switched.
        let src = src.replace("b.cl", "elsewhere/c.cl");
        assert_eq!(decided(&src), vec![(BuildStatus::Edited, true), (BuildStatus::Unchanged, false)]);
    }

    #[test]
    fn a_function_naming_a_changed_and_an_unchanged_file_edits_neither_of_its_untraced_programs() {
        // Read into buffers clasp does not follow: the function's file names are all it knows.
        let src = "void f(cl_context c) {\n  char a[64], b[64];\n  read(a, \"a.cl\"); read(b, \"b.cl\");\n  \
                   cl_program pa = clCreateProgramWithSource(c, 1, (const char **)&a, NULL, NULL);\n\
                   clBuildProgram(pa, 0, NULL, NULL, NULL, NULL);\n}\n";
        assert_eq!(decided(src), vec![(BuildStatus::Unlinked, false)]);
        let excluded = src.replace("b.cl", "elsewhere/c.cl");
        assert_eq!(decided(&excluded), vec![(BuildStatus::Unlinked, false)]);
    }

    #[test]
    fn a_program_clasp_cannot_trace_is_unlinked_never_unchanged() {
        let src = "void f(cl_context c) {\n  char *s = getenv(\"KERNEL_SOURCE\");\n  \
                   cl_program p = clCreateProgramWithSource(c, 1, (const char **)&s, NULL, NULL);\n  \
                   clBuildProgram(p, 0, NULL, NULL, NULL, NULL);\n}\n";
        assert_eq!(decided(src), vec![(BuildStatus::Unlinked, false)]);
    }

    /// The kernel files (of /p/a.cl, /p/b.cl) each build call of a C host at /p/host.c builds.
    fn built(src: &str) -> Vec<Vec<PathBuf>> {
        built_at("/p/host.c", src)
    }

    /// The kernel files (of /p/a.cl, /p/b.cl) each build call of the host `src` at `host` builds.
    fn built_at(host: &str, src: &str) -> Vec<Vec<PathBuf>> {
        let path = PathBuf::from(host);
        let facts = crate::host::scan(&path, src.as_bytes(), crate::host::HostLanguage::of(&path).unwrap());
        let host = HostInput { path, text: src.as_bytes().to_vec(), facts };
        let files = [PathBuf::from("/p/a.cl"), PathBuf::from("/p/b.cl")];
        let calls = host.facts.build_calls.iter();
        calls.map(|c| files_built(&host, c, &files, &Helpers::default()).into_iter().map(|b| b.file).collect()).collect()
    }

    #[test]
    fn a_build_call_builds_the_one_file_its_program_reads_or_none_when_several_may_be() {
        let src = "void f(cl_context c) {\n  char *a = load(\"a.cl\"); cl_program pa = clCreateProgramWithSource(c, 1, (const char **)&a, NULL, NULL);\n\
                   clBuildProgram(pa, 0, NULL, \"-DA\", NULL, NULL);\n\
                   char *b = load(\"b.cl\"); cl_program pb = clCreateProgramWithSource(c, 1, (const char **)&b, NULL, NULL);\n\
                   clBuildProgram(pb, 0, NULL, \"-DB\", NULL, NULL);\n}\n";
        assert_eq!(built(src), [vec![PathBuf::from("/p/a.cl")], vec![PathBuf::from("/p/b.cl")]]);
        // Read where clasp does not follow: the function's names are all it knows, and there are two.
        let src = "void f(cl_context c) {\n  char a[64], b[64];\n  read(a, \"a.cl\"); read(b, \"b.cl\");\n  \
                   cl_program pa = clCreateProgramWithSource(c, 1, (const char **)&a, NULL, NULL);\n\
                   clBuildProgram(pa, 0, NULL, \"-DA\", NULL, NULL);\n}\n";
        assert_eq!(built(src), [Vec::<PathBuf>::new()]);
    }

    #[test]
    fn an_options_variable_shared_with_a_call_left_alone_is_not_edited() {
        let src = "static const char *opts = \"-DX=1\";\n\
                   void f(cl_context c) {\n  char *a = load(\"a.cl\"); cl_program pa = clCreateProgramWithSource(c, 1, (const char **)&a, NULL, NULL);\n\
                   clBuildProgram(pa, 0, NULL, opts, NULL, NULL);\n}\n\
                   void g(cl_program other) { clBuildProgram(other, 0, NULL, opts, NULL, NULL); }\n";
        assert_eq!(decided(src), vec![(BuildStatus::Untraced, false), (BuildStatus::Unlinked, false)]);
    }

    #[test]
    fn a_program_of_included_files_is_linked_through_them() {
        // A kernel file the function names otherwise is no source of it.
        let src = "static const char *sources[] = {\n#include \"a.cl\"\n};\n\
                   void f(cl_context c) {\n  const char *log_name = \"b.cl\";\n  \
                   cl_program p = clCreateProgramWithSource(c, 1, sources, NULL, NULL);\n  \
                   clBuildProgram(p, 0, NULL, NULL, NULL, NULL);\n}\n";
        assert_eq!(decided(src), [(BuildStatus::Edited, true)]);
        let unchanged = src.replace("#include \"a.cl\"", "#include \"b.cl\"");
        assert_eq!(decided(&unchanged), [(BuildStatus::Unchanged, false)]);
        // A file clasp read as no program's source: a part of it may have been migrated alone.
        let unknown = src.replace("#include \"a.cl\"", "#include \"elsewhere/c.cl\"");
        assert_eq!(decided(&unknown), [(BuildStatus::Unlinked, false)]);
        // One of its files changed, another did not: one options string cannot suit both.
        let two = src.replace("#include \"a.cl\"\n", "#include \"a.cl\"\n,\n#include \"b.cl\"\n");
        assert_eq!(decided(&two), [(BuildStatus::Unlinked, false)]);
        // A literal beside the `#include`: the program is not known whole.
        let mixed = src.replace("{\n#include", "{ \"#define N 4\\n\",\n#include");
        assert_eq!(decided(&mixed), [(BuildStatus::Unlinked, false)]);
        // Its files are no kernel files it reads at run time: their options are its program's.
        assert_eq!(built(src), [Vec::<PathBuf>::new()]);
    }

    #[test]
    fn a_member_built_in_another_method_builds_the_file_its_creation_reads() {
        let src = "class Blur {\n  cl::Program program_;\n  \
                   void load(const cl::Context &c) { std::string s = read_text(\"a.cl\"); program_ = cl::Program(c, s); }\n  \
                   int prepare() { return program_.build(\"-DA\"); }\n};\n";
        assert_eq!(built_at("/p/host.cpp", src), [vec![PathBuf::from("/p/a.cl")]]);
        assert_eq!(decided_at("/p/host.cpp", src, &["/p/a.cl", "/p/b.cl"]), [(BuildStatus::Edited, true)]);
        let other = src.replace("\"a.cl\"", "\"b.cl\"");
        assert_eq!(built_at("/p/host.cpp", &other), [vec![PathBuf::from("/p/b.cl")]]);
        assert_eq!(decided_at("/p/host.cpp", &other, &["/p/a.cl", "/p/b.cl"]), [(BuildStatus::Unchanged, false)]);
    }
}
