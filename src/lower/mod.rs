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

mod in_process;
mod llvm;
mod trace;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

pub use inkwell::context::Context;

/// LLVM's message when it cannot read a module.
pub use llvm::LoadError;
/// The IR view `verify` reads: a module loaded into a context, its kernels
/// found by calling convention.
pub(crate) use llvm::{load, string_of, LoadedModule, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

use crate::ir::{spir_space, IrFacts, IrFunction, IrGlobal};
use crate::syntax::Space;

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

/// Registers LLVM's targets (the shim does what the clang executable does).
pub(crate) fn initialize_targets() {
    in_process::initialize_targets();
}

fn compile(path: &Path, args: &[String]) -> Result<Vec<u8>, ClangError> {
    check_in_process(args)?;
    let clang = clang_path()?;
    if std::env::var_os("CLASP_CLANG").is_some() {
        let output = Command::new(&clang)
            .args(args)
            .arg(path)
            .output()
            .map_err(|e| ClangError::Unavailable { clang: clang.clone(), source: Arc::new(e) })?;
        let diagnostics = String::from_utf8_lossy(&output.stderr).into_owned();
        return match output.status.code() {
            Some(0) => Ok(output.stdout),
            Some(_) => Err(ClangError::Rejected { diagnostics }),
            None => Err(ClangError::Killed { diagnostics }),
        };
    }
    // The driver finds OpenCL's headers next to the real executable, not a symlink to it.
    let executable = std::fs::canonicalize(&clang).unwrap_or(clang);
    let compiled = in_process::compile(&executable, args, path)?;
    if !compiled.success {
        return Err(ClangError::Rejected { diagnostics: compiled.messages });
    }
    Ok(compiled.output)
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
/// and extracts its facts in `context`.
pub fn lower(context: &Context, path: &Path, language_args: &[String]) -> Result<IrFacts, LowerError> {
    let bitcode = run_clang(path, &ir_args(language_args))?;
    Ok(facts_from_bitcode(context, &bitcode, &path.to_string_lossy())?)
}

/// Extracts facts from already compiled bitcode or textual IR.
pub fn facts_from_bitcode(context: &Context, bytes: &[u8], name: &str) -> Result<IrFacts, LoadError> {
    let module = llvm::load(context, bytes, name)?;
    let mut facts = IrFacts::default();
    let mut written = std::collections::BTreeSet::new();
    for f in module.functions() {
        if f.name.starts_with("llvm.") {
            continue;
        }
        let params = f.params.iter().map(|p| p.pointer_space().and_then(spir_space)).collect();
        let mut function = IrFunction {
            name: f.name.clone(),
            is_kernel: f.is_kernel,
            is_definition: f.is_definition,
            params,
            returns: f.return_space.and_then(spir_space),
            locals: Vec::new(),
            calls: Vec::new(),
        };
        if f.is_definition {
            let mut calls: Vec<String> = f
                .instructions
                .iter()
                .filter(|i| i.op() == Some(llvm::Op::Call))
                .filter_map(|i| i.callee())
                .filter(|(_, defined)| *defined)
                .map(|(name, _)| name)
                .collect();
            calls.sort();
            calls.dedup();
            function.calls = calls;
            let trace = trace::FunctionTrace::new(&f);
            function.locals = trace.locals();
            facts.flows.extend(trace.flows());
            written.extend(trace.written_globals());
        }
        facts.functions.push(function);
    }
    for g in module.globals() {
        if g.is_declaration {
            continue;
        }
        facts.globals.push(IrGlobal {
            written: written.contains(&g.name),
            name: g.name,
            space: spir_space(g.space).unwrap_or(Space::Private),
            size_bytes: g.size_bytes,
        });
    }
    facts.functions.sort_by(|a, b| a.name.cmp(&b.name));
    facts.globals.sort_by(|a, b| a.name.cmp(&b.name));
    facts.flows.sort();
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Flow, Node, Sink, Source};
    use crate::options::CompileOptions;

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
        let actual: Vec<String> = facts.flows.iter().map(line).collect();
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
}
