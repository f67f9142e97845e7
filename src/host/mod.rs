//! Facts about one host file: the C, C++ or Python code that embeds OpenCL
//! kernels as string literals and builds them into programs.
//!
//! clasp migrates kernels; a kernel held in a host file is a string literal,
//! and once it is migrated the host must also ask for OpenCL C 2.0 when it
//! builds the program (`-cl-std=CL2.0`). This module only *reads*: [`scan`]
//! parses one file with tree-sitter (real grammars, error-tolerant, no build
//! configuration) and reports
//!
//! - [`Literal`]s that hold kernel code, decoded as the program sees them,
//!   with a map from every decoded byte back to the file bytes that spell it
//!   (so an edit of the kernel can be written back in the literal's own
//!   form: escaped, raw or stringified);
//! - [`ProgramCreation`]s (`clCreateProgramWithSource`, `cl::Program`,
//!   pyopencl `Program`) and which literals they take;
//! - [`BuildCall`]s (`clBuildProgram`, `clCompileProgram`, C++ `.build`/
//!   `.compile`, pyopencl `.build`) and where their options come from, with
//!   [`options_edit`] giving the one edit that makes them ask for a standard;
//! - and, once every file is scanned, [`helper_calls`]: the calls of the
//!   helpers whose creations take their source or file name from a
//!   parameter ([`Through`]), with the kernel files each call names.
//!
//! Nothing here is wired into the pipeline: a unit whose text is a host
//! literal is built from these facts elsewhere (see `crate::input::source`, and
//! docs/design.md, "Where a unit's text comes from"). The analysis walks
//! syntax trees; text is only looked at inside a literal (its escapes) or a
//! stringify macro's body (`#A`), which tree-sitter does not parse.

mod builds;
mod constructor;
mod decode;
mod helpers;
mod includes;
mod index;
mod literal;
mod members;
mod options;
mod origins;
mod programs;
mod scan;
mod stringify;
mod syntax;
mod trace;

#[cfg(test)]
mod tests_builds;
#[cfg(test)]
mod tests_literals;
#[cfg(test)]
mod tests_programs;

use std::ops::Range;
use std::path::{Path, PathBuf};

pub use helpers::helper_calls;
pub use literal::{decode_wrapper, whole_literal_lines};
pub use options::options_edit;
pub use scan::scan;

/// The grammar a host file is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostLanguage {
    C,
    Cpp,
    Python,
}

impl HostLanguage {
    /// The language of a file by its extension: `.c` is C; `.cc .cpp .cxx .h
    /// .hh .hpp .hxx` are C++ (tree-sitter-cpp reads C headers too, and a
    /// header may be included from either); `.py` is Python.
    pub fn of(path: &Path) -> Option<HostLanguage> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "c" => Some(HostLanguage::C),
            "cc" | "cpp" | "cxx" | "h" | "hh" | "hpp" | "hxx" => Some(HostLanguage::Cpp),
            "py" => Some(HostLanguage::Python),
            _ => None,
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            HostLanguage::C => tree_sitter_c::LANGUAGE.into(),
            HostLanguage::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            HostLanguage::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }
}

/// A place in a file: byte offset, and 1-based line and column (the column
/// counts bytes, as compilers do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub byte: u32,
    pub line: u32,
    pub col: u32,
}

/// Everything [`scan`] found in one host file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFacts {
    pub path: PathBuf,
    pub language: HostLanguage,
    /// Literals that declare a kernel or are passed to a program-creation
    /// API, in file order (other literals are noise and left out).
    pub literals: Vec<Literal>,
    pub build_calls: Vec<BuildCall>,
    pub programs: Vec<ProgramCreation>,
    /// Every file `#include`d where a source string is expected, as written,
    /// once each, whether or not a program creation was traced to it.
    pub included: Vec<String>,
}

/// How a file spells the bytes of a [`Piece`]; the form an edit is written in.
///
/// A program source file wrapped as escaped C literals keeps its decoded
/// [`Literal`] in `crate::input::source::Form::Escaped`, and its edits are written
/// back through these pieces too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceForm {
    /// Byte for byte: a raw string (`R"d(...)d"`, `r"..."`), a stringify
    /// macro's argument.
    Verbatim,
    /// Inside an ordinary C/C++ literal: `\` and `"` are escaped, a newline is `\n`.
    CEscaped,
    /// Inside an ordinary Python literal delimited by `quote`; a triple-quoted
    /// one holds newlines and tabs as they are.
    PythonEscaped { quote: u8, triple: bool },
}

/// A run of a literal's decoded text and the file bytes that spell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Bytes of [`Literal::text`].
    pub decoded: Range<u32>,
    /// Bytes of the file.
    pub file: Range<u32>,
    pub form: PieceForm,
    /// The file bytes are the decoded bytes, one for one (so any sub-range
    /// maps); otherwise (an escape sequence, a line continuation, stringified
    /// whitespace collapsed to one space) only the whole piece maps.
    pub exact: bool,
    /// An edit may run from the previous piece into this one: both sit in
    /// one literal, or in adjacent literals of the same kind joined only by
    /// their quotes, whitespace and comments (replacing that span merges them).
    pub joins_previous: bool,
}

/// A string literal (or an adjacent concatenation, or a stringify macro's
/// argument) as the program sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    pub start: Position,
    /// The whole literal in the file, quotes (and prefixes) included.
    pub range: Range<u32>,
    /// The decoded text. For a stringify macro, the argument's source text
    /// as the preprocessor stringifies it: leading and trailing whitespace
    /// dropped, every run of whitespace and comments outside string and
    /// character literals collapsed to one space.
    pub text: String,
    /// Covers `text` in order, without gaps; empty when `undecodable`.
    pub pieces: Vec<Piece>,
    /// Why the text is not known exactly (a piece produced by a macro, a
    /// format string filled at run time, an f-string...). `text` is then
    /// the decodable part only, and nothing maps back to the file.
    pub undecodable: Option<String>,
    /// The decoded text has `__kernel` or `kernel` followed by `void`.
    pub declares_kernel: bool,
    /// The variable or array the literal initialises (or is assigned to).
    pub variable: Option<String>,
    /// The program-creation API that takes it, directly or through `variable`.
    pub passed_to: Option<String>,
    /// The files it is `#include`d from, in order (`#include "axpy.opencl"`
    /// where a string is expected: the file holds the literal); `text` is
    /// then empty and the literal `undecodable`.
    pub included: Vec<String>,
}

/// A call that creates a program from source strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramCreation {
    pub at: Position,
    /// `clCreateProgramWithSource`, `cl::Program` or `pyopencl.Program`.
    pub api: String,
    /// The enclosing function; `None` at file (module) scope.
    pub function: Option<String>,
    /// The variable the program is assigned to or declared as.
    pub variable: Option<String>,
    /// The class member it is stored in, `Class::name` (see `members`):
    /// a build of that member in any method of the class builds it.
    pub member: Option<String>,
    /// Indexes into [`HostFacts::literals`], in the order the sources are concatenated.
    pub literals: Vec<usize>,
    /// Why some source could not be traced to a literal of this file (read
    /// from a file, built at run time, a parameter...).
    pub untraced: Option<String>,
    /// The kernel files (`.cl`, `.ocl`, `.opencl`, `.clh`) the source is
    /// read from: named where it is read (`read_text("k.cl")`, through
    /// variables), else by any literal of the same function.
    pub file_names: Vec<String>,
    /// Source variables declared in no scope of this file: another file's
    /// (a generated header's string copy, included by the host).
    pub external: Vec<String>,
    /// The files `#include`d as its sources, in order, as written (relative
    /// to the host file's directory); none of them is among `literals`.
    pub included: Vec<String>,
    /// Why some source is computed at run time (neither a literal, a kernel
    /// file name, a parameter, nor another file's variable): then only
    /// `file_names` or `through` can say what the program is.
    pub opaque: Option<String>,
    /// The function's parameters the program's source or file name comes
    /// through: its callers (`helper_calls`) say what the program is.
    pub through: Option<Through>,
}

/// A helper that creates a program from what its callers pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Through {
    /// The function, as calls name it (without class or namespace).
    pub function: String,
    /// The parameters (0-based, Python's `self` not counted) that may carry
    /// the source or its file name: those reached, or every one when the
    /// function reads its source where clasp cannot follow (a stream).
    pub parameters: Vec<usize>,
}

/// A call of a helper that creates programs (`CreateProgram(ctx, dev, "k.cl")`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperCall {
    pub at: Position,
    pub callee: String,
    pub arguments: Vec<Argument>,
}

/// What a helper call passes in one argument.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Argument {
    /// Kernel files named (a literal, a variable initialised from one, a
    /// call reading one).
    pub file_names: Vec<String>,
    /// Why the argument may carry a program clasp cannot name (a parameter
    /// of the caller, an embedded kernel, a value computed at run time).
    pub opaque: Option<String>,
}

/// The calls of some helpers in one file, and whether the file defines them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HelperCalls {
    pub calls: Vec<HelperCall>,
    /// Helpers (of those asked about) this file defines.
    pub defines: Vec<String>,
}

/// What a build call builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramRef {
    /// The expression's text, e.g. a variable name.
    Expr(String),
    /// A creation chained directly, `cl.Program(ctx, src).build()`: an index
    /// into [`HostFacts::programs`].
    Creation(usize),
}

/// A call that builds (or compiles) a program, and its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildCall {
    pub at: Position,
    /// `clBuildProgram`, `clCompileProgram`, `cl::Program::build`,
    /// `cl::Program::compile`, `pyopencl.Program.build`, `pyopencl.Program.compile`.
    pub api: String,
    pub function: Option<String>,
    pub program: ProgramRef,
    /// The class member the built program is read from, `Class::name`.
    pub member: Option<String>,
    pub options: OptionsArg,
}

/// A string literal among build options (bytes of the file, quotes included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionString {
    pub range: Range<u32>,
    pub value: String,
}

/// Where a build call's options come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsArg {
    /// A string literal (`python`: written in Python).
    Literal { range: Range<u32>, value: String, python: bool },
    /// `NULL`, `nullptr`, `0`, Python `None`.
    Null { range: Range<u32> },
    /// No options argument; one can be inserted at `insert_at`, after a
    /// comma when `needs_comma`.
    Absent { insert_at: u32, needs_comma: bool, python: bool },
    /// A Python list of options: its literal items; a new item goes at
    /// `insert_at`, after a comma when `needs_comma`.
    PythonList { range: Range<u32>, values: Vec<OptionString>, insert_at: u32, needs_comma: bool },
    /// A variable initialised from a literal or a list, in the same function
    /// or at file scope, and never written again in that function.
    Variable { name: String, init: Box<OptionsArg> },
    /// Built at run time, a parameter, read from the environment...
    Untraced { why: String },
    /// A constructor that builds (`cl::Program program(ctx, src, true)`)
    /// takes no options: the `true` at `flag` is turned off and the build
    /// of `program` with the options goes at `end` (after the statement
    /// that stores the program, or first in the body of the constructor
    /// whose member initializer it is), on a line indented by `indent`, its
    /// status stored in `error` as the constructor did. `rest`: the file's
    /// bytes from the flag's end to `end`, kept; `close`: what follows the
    /// build (an empty body's closing brace, put on a line of its own).
    BuildFlag { flag: Range<u32>, end: u32, rest: String, program: String, error: Option<String>, indent: String, close: String },
}
