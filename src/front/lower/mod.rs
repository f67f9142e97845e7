//! `lower`: clang-19 -> LLVM IR -> `IrFacts`.
//!
//! The IR boundary. Compiles a translation unit with the same options as
//! `parse` (`-target spir64 -O0 -g`, value names kept), loads the bitcode
//! with inkwell in the caller's LLVM context and extracts owned facts:
//! functions and their pointer params, pointer flows with their origins and
//! source locations, builtin calls, program-scope variables and their sizes.
//!
//! `lower` only produces facts: `verify` compiles with `run_clang` and
//! reads its modules through the IR view (`load`, `LoadedModule`).

mod facts;
mod in_process;
mod llvm;
pub mod preamble;
pub mod targets;
mod trace;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

pub use inkwell::context::Context;

/// LLVM's message when it cannot read a module.
pub use llvm::LoadError;
/// The IR view `verify` reads and edits: a module loaded into a context,
/// its values, types and blocks as safe handles, a builder, the pass
/// options; kernels found by calling convention.
pub(crate) use llvm::{load, pass_options, IrBuilder, LoadedModule, StructBody, Ty, Val, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

pub use facts::facts_from_bitcode;
/// A header heavy enough to precompile (tests).
#[cfg(test)]
pub(crate) use facts::tests::heavy;
use facts::Parts;
pub use in_process::LeftOut;

use crate::facts::ir::IrFacts;

/// Why clang produced nothing. Only `Rejected` means clang ran and refused
/// the code (a compile error); the others are clang failing as a tool.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClangError {
    /// No clang executable was found.
    #[error("clang-19 not found: install it with `apt-get install clang-19` (or run scripts/setup), or set CLASP_CLANG")]
    NotFound,
    /// The clang executable (`$CLASP_CLANG`) could not be started.
    #[error("cannot run {}: {source}", clang.display())]
    Unavailable { clang: PathBuf, source: Arc<std::io::Error> },
    /// An argument cannot be passed to clang (it holds a NUL byte).
    #[error("an argument contains a NUL byte: {argument}")]
    BadArgument { argument: String },
    /// clang crashed while compiling `input` in this process.
    #[error("{}: clang crashed compiling it (in process): {}", input.display(), messages.trim())]
    Crashed { input: PathBuf, messages: String },
    /// clang failed in this process without crashing (an exception the shim caught).
    #[error("{}: clang failed compiling it (in process): {}", input.display(), messages.trim())]
    Failed { input: PathBuf, messages: String },
    /// An option the in-process clang cannot honour.
    #[error("{option} sets LLVM's process-wide options, which the in-process clang cannot do for one unit: set CLASP_CLANG=clang-19 to run clang as a process, which honours it")]
    InProcessOption { option: String },
    /// The clang process was killed by a signal; its first error, as `Rejected` shows it.
    #[error("{}", first_error(diagnostics))]
    Killed { diagnostics: String },
    /// clang ran and rejected the code: its diagnostics, as it prints them
    /// (shown: the first error).
    #[error("{}", first_error(diagnostics))]
    Rejected { diagnostics: String },
}

/// The first `error:` line of clang's diagnostics (all of them, trimmed, if none is).
fn first_error(diagnostics: &str) -> &str {
    diagnostics.lines().find(|l| l.contains("error:")).unwrap_or(diagnostics.trim())
}

impl ClangError {
    /// clang ran and rejected the code, as opposed to clang missing or failing.
    pub fn is_rejection(&self) -> bool {
        matches!(self, ClangError::Rejected { .. })
    }
}

/// Why a unit's facts could not be gathered: clang, or reading its bitcode.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LowerError {
    #[error(transparent)]
    Clang(#[from] ClangError),
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// The clang executable: `$CLASP_CLANG`, else `clang-19` on PATH, else the
/// Debian LLVM 19 install.
pub fn clang_path() -> Result<PathBuf, ClangError> {
    if let Some(path) = std::env::var_os("CLASP_CLANG") {
        return Ok(PathBuf::from(path));
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join("clang-19");
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    let debian = PathBuf::from("/usr/lib/llvm-19/bin/clang");
    if debian.is_file() {
        return Ok(debian);
    }
    Err(ClangError::NotFound)
}

/// Runs clang with `args` on `path` and returns what it writes to `-o -`,
/// or why not (`ClangError::Rejected`: clang's diagnostics). clang 19's library
/// compiles in this process (`in_process`); with `$CLASP_CLANG` set, that
/// executable runs instead.
pub fn run_clang(path: &Path, args: &[String]) -> Result<Vec<u8>, ClangError> {
    crate::isolation::phase(crate::isolation::Phase::Compiling, || compile(path, args))
}

/// `run_clang` for a compile of a unit's main file, against the preamble its
/// batch shares when it has one (`preamble`); `replaced` is what the overlay
/// in `args` lays over the disk (the main file's text among it, for a
/// result). What clang rejects against the shared preamble is compiled
/// whole again, so an error reads as it does for the unit alone.
pub fn run_clang_for_unit(
    path: &Path,
    args: &[String],
    replaced: &std::collections::BTreeMap<PathBuf, Vec<u8>>,
) -> Result<Vec<u8>, ClangError> {
    run_clang_for_unit_dropping(path, args, replaced, None).map(|compiled| compiled.bitcode)
}

/// A unit's compile, and what it left out of code generation.
pub struct UnitBitcode {
    pub bitcode: Vec<u8>,
    /// With definitions to leave out: those it left out (`$CLASP_CLANG`
    /// leaves nothing out, and says so with `None`).
    pub left_out: Option<LeftOut>,
}

/// `run_clang_for_unit`, with the definitions of `drop` left out of code
/// generation: parsed and checked, but a call to one emits a declaration.
pub fn run_clang_for_unit_dropping(
    path: &Path,
    args: &[String],
    replaced: &std::collections::BTreeMap<PathBuf, Vec<u8>>,
    drop: Option<&BTreeSet<String>>,
) -> Result<UnitBitcode, ClangError> {
    crate::isolation::phase(crate::isolation::Phase::Compiling, || {
        let bodies = drop.map_or(in_process::Bodies::Kept, in_process::Bodies::Dropped);
        let unit = |(bitcode, _, left_out): Emitted| UnitBitcode { bitcode, left_out };
        match shared_preamble_use(path, args, replaced) {
            Some(preamble::Use::Shared(extra, _)) => {
                if let Ok(compiled) = compile_emitting(path, &[args, &extra[..]].concat(), bodies) {
                    return Ok(unit(compiled));
                }
            }
            Some(preamble::Use::Weigh(hash)) => return compile_weighing(path, args, hash, bodies).map(unit),
            None => {}
        }
        compile_emitting(path, args, bodies).map(unit)
    })
}

/// How `path`'s compile uses its batch's shared preamble.
fn shared_preamble_use(
    path: &Path,
    args: &[String],
    replaced: &std::collections::BTreeMap<PathBuf, Vec<u8>>,
) -> Option<preamble::Use> {
    let canonical = crate::support::overlay::canonical(path);
    let text = match replaced.get(&canonical).or_else(|| replaced.get(path)) {
        Some(text) => text.clone(),
        None => crate::support::overlay::read(path).ok()?,
    };
    let clang = executable().ok()?;
    let request = preamble::Request { clang: &clang, main: path, text: &text, args, replaced, facts: false };
    preamble::arguments(&request)
}

/// A whole compile, the first of its preamble: what it read weighs the preamble (`preamble::weigh`).
fn compile_weighing(path: &Path, args: &[String], hash: u64, bodies: in_process::Bodies<'_>) -> Result<Emitted, ClangError> {
    let emitted = compile_emitting(path, args, bodies)?;
    preamble::weigh(hash, path, &emitted.1);
    Ok(emitted)
}

/// Whether `path`'s compile with `args` over `replaced` has a shared preamble
/// precompiled (testing only: it counts as a compile asking for it).
#[cfg(test)]
pub(crate) fn uses_shared_preamble(
    path: &Path,
    args: &[String],
    replaced: &std::collections::BTreeMap<PathBuf, Vec<u8>>,
) -> bool {
    matches!(shared_preamble_use(path, args, replaced), Some(preamble::Use::Shared(..)))
}

/// Refuses what the in-process clang cannot do (the clang executable, with
/// `$CLASP_CLANG`, can): `-mllvm` sets LLVM's global options, shared by
/// every compile of the process.
pub fn check_in_process(args: &[String]) -> Result<(), ClangError> {
    if std::env::var_os("CLASP_CLANG").is_some() {
        return Ok(());
    }
    match args.iter().find(|a| *a == "-mllvm" || a.starts_with("-mllvm=")) {
        Some(option) => Err(ClangError::InProcessOption { option: option.clone() }),
        None => Ok(()),
    }
}

pub use in_process::release_freed_memory;

fn compile(path: &Path, args: &[String]) -> Result<Vec<u8>, ClangError> {
    compile_reading(path, args).map(|(output, _)| output)
}

/// `compile`, with the files clang read (none known from a clang process).
/// Texts laid over files (`support::overlay`, standard input's) are laid
/// first, under any overlay in `args` (`in_process::compile_with` lays them
/// for every in-process compile); a laid main file is compiled through its stand-in.
fn compile_reading(path: &Path, args: &[String]) -> Result<(Vec<u8>, Vec<PathBuf>), ClangError> {
    compile_emitting(path, args, in_process::Bodies::Kept).map(|(output, read, _)| (output, read))
}

/// A compile's output, the files it read, and what it left out of code generation.
type Emitted = (Vec<u8>, Vec<PathBuf>, Option<LeftOut>);

/// `compile_reading`, with `bodies` saying which definitions code
/// generation leaves out, and what it left out (a clang process leaves
/// nothing out).
fn compile_emitting(path: &Path, args: &[String], bodies: in_process::Bodies<'_>) -> Result<Emitted, ClangError> {
    check_in_process(args)?;
    let process = std::env::var_os("CLASP_CLANG").is_some();
    let stand_in = crate::support::overlay::stand_in(path, process);
    if process {
        let clang = clang_path()?;
        let output = Command::new(&clang)
            .args(crate::support::overlay::clang_args())
            .args(args)
            .arg(stand_in.as_deref().unwrap_or(path))
            .output()
            .map_err(|e| ClangError::Unavailable { clang: clang.clone(), source: Arc::new(e) })?;
        let diagnostics = String::from_utf8_lossy(&output.stderr).into_owned();
        return match output.status.code() {
            Some(0) => Ok((output.stdout, Vec::new(), None)),
            Some(_) => Err(ClangError::Rejected { diagnostics }),
            None => Err(ClangError::Killed { diagnostics }),
        };
    }
    let compiled = match &stand_in {
        Some(copy) => in_process::compile_with(&executable()?, args, copy, Some(path), bodies)?,
        None => in_process::compile_with(&executable()?, args, path, None, bodies)?,
    };
    if !compiled.success {
        return Err(ClangError::Rejected { diagnostics: compiled.messages });
    }
    Ok((compiled.output, compiled.read, compiled.left_out))
}

/// The clang executable the in-process compiles name (`clang_path`, links
/// resolved): the driver finds OpenCL's headers next to the real executable,
/// not a symlink to it.
fn executable() -> Result<PathBuf, ClangError> {
    let clang = clang_path()?;
    Ok(std::fs::canonicalize(&clang).unwrap_or(clang))
}

/// The arguments that make clang emit the IR `lower` reads. Every function
/// must be in it to have evidence: `-femit-all-decls` emits unused `static`
/// helpers, and `-fgnu89-inline` emits a plain `inline` definition, which
/// C99 rules (OpenCL's) leave undefined at -O0, where nothing is inlined.
pub fn ir_args(language_args: &[String]) -> Vec<String> {
    let mut args = language_args.to_vec();
    args.extend(
        [
            "-O0",
            "-g",
            "-fno-discard-value-names",
            "-femit-all-decls",
            "-fgnu89-inline",
            "-emit-llvm",
            "-c",
            "-o",
            "-",
            "-Wno-everything",
        ]
        .into_iter()
        .map(String::from),
    );
    args
}

/// Compiles `path` with `language_args` (from `CompileOptions::clang_args`)
/// and extracts its facts in `context`. With a precompiled preamble shared
/// by the batch (`preamble`), the unit's compile defines its own functions
/// only (the header's are declared: compiling them again in every unit, with
/// debug locations in the precompiled header, was most of the compile); the
/// facts of the headers' functions come from the preamble compiled alone,
/// read once per batch.
pub fn lower(context: &Context, path: &Path, language_args: &[String]) -> Result<IrFacts, LowerError> {
    let args = ir_args(language_args);
    if let Some((facts, _)) = lower_with_preamble(context, path, &args)? {
        return Ok(facts);
    }
    let bitcode = run_clang(path, &args)?;
    Ok(facts_from_bitcode(context, &bitcode, &path.to_string_lossy())?)
}

/// The facts of a unit compiled against its shared preamble (`true`) or, the
/// first of its preamble, whole, weighing it (`false`); `None` when it has none, or when a
/// header function calls one the unit defines (its facts depend on the
/// unit: a flow into a defined function is a parameter, into a declared one
/// an external call).
fn lower_with_preamble(context: &Context, path: &Path, args: &[String]) -> Result<Option<(IrFacts, bool)>, LowerError> {
    let Ok(text) = crate::support::overlay::read(path) else { return Ok(None) };
    let compiled =
        crate::isolation::phase(crate::isolation::Phase::Compiling, || match shared_preamble(context, path, &text, args)? {
            Shared::Facts(extra, parts) => Some((compile(path, &[args, &extra[..]].concat()), Some(parts))),
            Shared::Weigh(hash) => {
                Some((compile_weighing(path, args, hash, in_process::Bodies::Kept).map(|(output, ..)| output), None))
            }
        });
    let Some((compiled, parts)) = compiled else { return Ok(None) };
    let Some(parts) = parts else { return Ok(Some((facts_from_bitcode(context, &compiled?, &path.to_string_lossy())?, false))) };
    let bitcode = match compiled {
        Ok(bitcode) => bitcode,
        // Whatever clang says against the shared preamble, the unit compiled whole says it as the user knows it.
        Err(_) => return Ok(None),
    };
    let own = Parts::read(context, &bitcode, &path.to_string_lossy(), &parts.defined)?;
    Ok(own.completed_by(&parts).map(|parts| (parts.into_facts(), true)))
}

/// How a unit's facts compile stands with its shared preamble.
enum Shared {
    /// Against it: the arguments that use it, and its functions' facts.
    Facts(Vec<String>, Arc<Parts>),
    /// Whole, the first of its preamble: weighing it (`preamble::weigh`).
    Weigh(u64),
}

/// The preamble `path` shares, with the facts of its functions read once per batch.
fn shared_preamble(context: &Context, path: &Path, text: &[u8], args: &[String]) -> Option<Shared> {
    let clang = executable().ok()?;
    let request = preamble::Request { clang: &clang, main: path, text, args, replaced: &Default::default(), facts: true };
    let (extra, built) = match preamble::arguments(&request)? {
        preamble::Use::Shared(extra, built) => (extra, built),
        preamble::Use::Weigh(hash) => return Some(Shared::Weigh(hash)),
    };
    let parts = built.facts.get_or_init(|| {
        let alone = built.alone.lock().ok()?.take()?;
        Parts::read(context, &alone, &path.to_string_lossy(), &Default::default()).ok().map(Arc::new)
    });
    Some(Shared::Facts(extra, parts.clone()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::ir::{Flow, Node, Sink, Source};
    use crate::settings::options::CompileOptions;

    fn node(n: &Node) -> String {
        match n {
            Node::Param { func, index } => format!("{func}#{index}"),
            Node::Local { func, name, .. } => format!("{func}.{name}"),
            Node::Return { func } => format!("{func}()"),
        }
    }

    fn line(flow: &Flow) -> String {
        let from = match &flow.from {
            Source::Decl { node: n } => node(n),
            Source::Global { name } => format!("@{name}"),
            Source::PrivateObject { func, name } => format!("{func}.&{name}"),
            Source::Memory => "memory".into(),
            Source::Null => "null".into(),
            Source::Unknown { what } => format!("?{what}"),
        };
        let to = match &flow.to {
            Sink::Decl { node: n } => node(n),
            Sink::Builtin { name, arg, .. } => format!("{name}[{arg}]"),
            Sink::External { name, arg } => format!("extern {name}[{arg}]"),
            Sink::Memory => "memory".into(),
            Sink::Integer => "int".into(),
        };
        format!("{from} -> {to} {:?} @{}", flow.space, flow.at.line)
    }

    /// Compiles `source` as OpenCL C 1.2 and compares every flow, one per line.
    fn check(source: &str, expected: &str) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.cl");
        std::fs::write(&path, source).unwrap();
        let context = Context::create();
        let facts = lower(&context, &path, &CompileOptions::default().clang_args(None))
            .expect("clang-19 must be installed (scripts/setup)");
        let actual: Vec<String> = facts.flows.iter().map(|f| line(f)).collect();
        let expected: Vec<String> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
        assert_eq!(actual, expected, "flows of:\n{source}");
    }

    #[test]
    fn clang_rejecting_the_code_is_a_rejection_shown_as_its_first_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.cl");
        std::fs::write(&path, "kernel void k(global float *p)\n{ p[0] = undeclared; }\n").unwrap();
        let args = CompileOptions::default().clang_args(None);
        let error = lower(&Context::create(), &path, &args).unwrap_err();
        assert!(matches!(&error, LowerError::Clang(e) if e.is_rejection()), "{error:?}");
        let expected = format!("{}:2:10: error: use of undeclared identifier 'undeclared'", path.display());
        assert_eq!(error.to_string(), expected);
        // Failing as a tool is not a rejection, and says what failed.
        let crashed = ClangError::Crashed { input: path.clone(), messages: " stack dump\n".into() };
        assert!(!crashed.is_rejection());
        assert_eq!(crashed.to_string(), format!("{}: clang crashed compiling it (in process): stack dump", path.display()));
    }

    #[test]
    fn pointer_through_two_helpers() {
        check(
            "float b(__global float *q) { return q[0]; }\n\
             float a(__global float *p) { return b(p); }\n\
             __kernel void k(__global float *in, __global float *out) { out[0] = a(in); }\n",
            "a#0 -> b#0 Global @2
             k#0 -> a#0 Global @3",
        );
    }

    #[test]
    fn pointer_through_a_local_variable_and_arithmetic() {
        check(
            "float first(__global const float *p) { return p[0]; }\n\
             __kernel void k(__global const float *in, int w) {\n\
               __global const float *row = in + w * 2;\n\
               float x = first(row);\n\
               x += first(row + 4);\n\
             }\n",
            "k#0 -> k.row Global @3
             k.row -> first#0 Global @4
             k.row -> first#0 Global @5",
        );
    }

    #[test]
    fn constant_table_and_private_array() {
        check(
            "__constant float tab[4] = {1, 2, 3, 4};\n\
             float pick(__constant float *t, int i) { return t[i]; }\n\
             void fill(float *acc) { acc[0] = 1.0f; }\n\
             __kernel void k(__global float *out) {\n\
               float acc[4];\n\
               fill(acc);\n\
               out[0] = pick(tab, 1) + acc[0];\n\
             }\n",
            "@tab -> pick#0 Constant @7
             k.&acc -> fill#0 Private @6",
        );
    }

    #[test]
    fn builtins_returns_and_escapes() {
        check(
            "__global int *at(__global int *base, int i) { return base + i; }\n\
             void bump(__global int *c) { atomic_inc(c); }\n\
             typedef struct { __global int *data; } view;\n\
             __kernel void k(__global int *counts, __global view *v) {\n\
               __global int *slot = at(counts, 3);\n\
               bump(slot);\n\
               v->data = counts;\n\
             }\n",
            "at#0 -> at() Global @1
             bump#0 -> atomic_inc[0] Global @2
             k#0 -> at#0 Global @5
             k#0 -> memory Global @7
             k.slot -> bump#0 Global @6
             at() -> k.slot Global @5",
        );
    }

    /// What clang rejects against a shared preamble reads as it does for the whole file.
    #[test]
    fn a_rejection_against_a_shared_preamble_reads_as_the_whole_files() {
        let _session = crate::support::session::Session::begin();
        let dir = tempfile::tempdir().unwrap();
        let header = facts::tests::heavy("inline static float first(__global float *p) { return p[0]; }\n");
        std::fs::write(dir.path().join("h.h"), header).unwrap();
        let good = dir.path().join("good.cl");
        std::fs::write(&good, "#include \"h.h\"\nkernel void k(__global float *p) { p[1] = first(p); }\n").unwrap();
        let bad = dir.path().join("bad.cl");
        std::fs::write(&bad, "#include \"h.h\"\nkernel void k(__global float *p)\n{ p[0] = first(q); }\n").unwrap();
        let args = crate::verify::equivalence_args(&CompileOptions::default().clang_args(None));
        let none = std::collections::BTreeMap::new();
        run_clang_for_unit(&good, &args, &none).expect("clang-19 must be installed (scripts/setup)");
        assert!(uses_shared_preamble(&good, &args, &none), "the second compile of a preamble precompiles it");
        let against = run_clang_for_unit(&bad, &args, &none).unwrap_err();
        let whole = run_clang(&bad, &args).unwrap_err();
        assert!(matches!(&against, ClangError::Rejected { .. }), "{against:?}");
        assert_eq!(against.to_string(), whole.to_string());
        assert_eq!(against.to_string(), format!("{}:3:16: error: use of undeclared identifier 'q'", bad.display()));
    }

    /// What must not be precompiled: light headers (it would cost more than it
    /// saves), and a header only an overlay provides (an embedded kernel's
    /// text: no stamp would tell it changed). Those units compile whole.
    #[test]
    fn light_headers_and_overlaid_files_are_not_precompiled() {
        let _session = crate::support::session::Session::begin();
        let dir = tempfile::tempdir().unwrap();
        let args = crate::verify::equivalence_args(&CompileOptions::default().clang_args(None));
        let none = std::collections::BTreeMap::new();
        let unit = |name: &str, headers: &[&str]| {
            let path = dir.path().join(name);
            let includes: String = headers.iter().map(|h| format!("#include \"{h}\"\n")).collect();
            std::fs::write(&path, format!("{includes}kernel void k(__global float *p) {{ p[1] = first(p); }}\n")).unwrap();
            path
        };
        let helper = "inline static float first(__global float *p) { return p[0]; }\n";
        std::fs::write(dir.path().join("light.h"), helper).unwrap();
        let light = unit("light.cl", &["light.h"]);
        run_clang_for_unit(&light, &args, &none).expect("clang-19 must be installed (scripts/setup)");
        assert!(!uses_shared_preamble(&light, &args, &none), "a light preamble is compiled whole");

        // Heavy on disk, with a header that is nowhere on disk: an overlay lays it in the directory.
        std::fs::write(dir.path().join("heavy.h"), facts::tests::heavy("")).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let contents = elsewhere.path().join("contents.h");
        std::fs::write(&contents, helper).unwrap();
        let overlay = elsewhere.path().join("overlay.yaml");
        let root = serde_json::json!({ "type": "file", "name": dir.path().join("virtual.h").display().to_string(), "external-contents": contents.display().to_string() });
        let yaml = serde_json::json!({ "version": 0, "case-sensitive": "true", "use-external-names": false, "roots": [root] });
        std::fs::write(&overlay, yaml.to_string()).unwrap();
        let overlaid = [args.clone(), vec!["-ivfsoverlay".to_string(), overlay.display().to_string()]].concat();
        let virtual_unit = unit("virtual.cl", &["heavy.h", "virtual.h"]);
        run_clang_for_unit(&virtual_unit, &overlaid, &none).expect("the overlay provides the header");
        assert!(!uses_shared_preamble(&virtual_unit, &overlaid, &none), "an overlaid header is compiled whole");
        run_clang_for_unit(&virtual_unit, &overlaid, &none).expect("compiled whole, as before");
    }
}
