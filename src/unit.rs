//! One translation unit through the fact-gathering stages: read, `parse`
//! (libclang) and `lower` (clang-19 + inkwell), with every failure turned
//! into a `UnitError` that names the file, line and column.

use std::path::{Path, PathBuf};

use crate::ir::IrFacts;
use crate::lower::{self, Context};
use crate::options::CompileOptions;
use crate::parse::Parser;
use crate::syntax::KernelSyntax;

/// A unit whose facts are known.
#[derive(Debug, Clone)]
pub struct Unit {
    pub path: PathBuf,
    pub text: String,
    pub syntax: KernelSyntax,
    pub ir: IrFacts,
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
        let text = std::fs::read_to_string(path)
            .map_err(|e| UnitError::Read { path: display.clone(), message: e.to_string() })?;
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
        Ok(Unit { path: path.to_path_buf(), text, syntax, ir })
    }
}
