//! One translation unit through the fact-gathering stages: read, `parse`
//! (libclang) and `lower` (clang-19 + inkwell), with every failure turned
//! into a `UnitError` that names the file, line and column.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::ir::IrFacts;
use crate::lower::{self, Context};
use crate::options::CompileOptions;
use crate::parse::Parser;
use crate::syntax::{FileId, KernelSyntax};

/// A unit whose facts are known.
#[derive(Debug, Clone)]
pub struct Unit {
    pub path: PathBuf,
    pub syntax: KernelSyntax,
    pub ir: IrFacts,
    /// One per `syntax.files` entry (same `FileId`).
    sources: Vec<SourceFile>,
}

/// A file of the unit: its canonical path, resolved once, and its text,
/// read once when first needed (headers are only read if edited).
#[derive(Debug, Clone)]
struct SourceFile {
    canonical: PathBuf,
    text: OnceLock<String>,
}

impl Unit {
    /// The canonical path of a file of the unit, to compare files across units.
    pub fn canonical(&self, file: FileId) -> &Path {
        &self.sources[file].canonical
    }

    /// The text of a file of the unit (empty if a header cannot be read).
    pub fn text(&self, file: FileId) -> &str {
        self.sources[file].text.get_or_init(|| std::fs::read_to_string(&self.syntax.files[file]).unwrap_or_default())
    }
}

/// Why a unit could not be analysed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UnitError {
    #[error("{path}: error: cannot read: {message}")]
    Read { path: String, message: String },
    #[error("{}", diagnostics.join("\n"))]
    Syntax { diagnostics: Vec<String> },
    #[error("{path}: error: {message}")]
    Tool { path: String, message: String },
}

impl UnitError {
    /// clang (or libclang) rejected the code, as opposed to an unreadable file or a missing tool.
    pub fn is_compile_error(&self) -> bool {
        match self {
            UnitError::Syntax { .. } => true,
            UnitError::Read { .. } => false,
            UnitError::Tool { message, .. } => message.contains("error:"),
        }
    }
}

/// The per-worker tools: a libclang index and an LLVM context.
pub struct Workbench {
    pub parser: Parser,
    pub context: Context,
}

impl Workbench {
    pub fn new() -> Result<Workbench, String> {
        // Fail early and clearly when either tool is missing.
        lower::clang_path()?;
        Ok(Workbench { parser: Parser::new()?, context: Context::create() })
    }

    pub fn load(&self, path: &Path, options: &CompileOptions) -> Result<Unit, UnitError> {
        let display = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| UnitError::Read { path: display.clone(), message: e.to_string() })?;
        let syntax = self
            .parser
            .parse_input(path, &text, options)
            .map_err(|message| UnitError::Tool { path: display.clone(), message })?;
        let errors: Vec<String> = syntax.errors().map(|d| d.to_string()).collect();
        if !errors.is_empty() {
            return Err(UnitError::Syntax { diagnostics: errors });
        }
        let ir = lower::lower(&self.context, path, &options.clang_args(None))
            .map_err(|message| UnitError::Tool { path: display.clone(), message })?;
        let sources = syntax
            .files
            .iter()
            .enumerate()
            .map(|(id, file)| SourceFile {
                canonical: std::fs::canonicalize(file).unwrap_or_else(|_| file.clone()),
                text: if id == 0 { OnceLock::from(text.clone()) } else { OnceLock::new() },
            })
            .collect();
        Ok(Unit { path: path.to_path_buf(), syntax, ir, sources })
    }
}
