//! `parse`: libclang -> `KernelSyntax`.
//!
//! The syntax boundary. It parses one translation unit as OpenCL C and hands
//! on owned data only: functions, their pointer declarations with each
//! level's qualifier as spelled (keyword, macro use, or hidden), program-scope
//! variables, `#if`-skipped ranges and diagnostics. Libclang handles never
//! leave this module; the FFI itself is confined to `libclang/`.
//!
//! The walk is one `Walker` over the unit, its methods grouped by what they read:
//! `walker` (the top level and its stages), `macros` (macro definitions and uses,
//! `#if`-skipped text), `uses` (expressions that observe a pointer or name a
//! function), `function` (functions and their parameters and locals),
//! `declarator` (a pointer declaration's levels and spelled qualifiers) and
//! `vars` (program-scope variables).

mod branches;
mod casts;
mod declarator;
mod error;
mod expand;
mod extent;
mod function;
mod libclang;
mod macros;
mod memo;
mod preamble;
mod shared;
mod sites;
mod uses;
mod vars;
mod walker;

use std::collections::BTreeSet;
use std::path::Path;

use crate::facts::syntax::KernelSyntax;
use libclang::Index;
use walker::Walker;

pub use error::ParseError;
pub use libclang::ensure_loaded;
pub use preamble::Preamble;

/// Lets go of what parsing kept for the units after it (`memo`), once a batch is loaded.
pub fn forget_walks() {
    memo::forget();
}

/// Lets go of the walks kept for units parsed with `preamble` (its
/// `Preamble::identity`), once no unit left to load has it.
pub fn forget_walks_of(preamble: u64) {
    memo::forget_preamble(preamble);
}

/// A reusable libclang session (one per worker thread).
pub struct Parser {
    index: Index,
}

impl Parser {
    pub fn new() -> Result<Parser, ParseError> {
        Ok(Parser { index: Index::new()? })
    }

    /// Parses `path`, whose current bytes are `contents` (any encoding:
    /// offsets are byte offsets), with `args` (see `CompileOptions::clang_args`).
    pub fn parse(&self, path: &Path, contents: &[u8], args: &[String]) -> Result<KernelSyntax, ParseError> {
        self.parse_sharing(path, contents, args, None)
    }

    /// `parse`, sharing the batch's other units' parse of `preamble`
    /// (`preamble`: a precompiled header of it) and the walks of the
    /// functions of the headers it includes, with the units that include
    /// them alike (`memo`).
    pub fn parse_sharing(
        &self,
        path: &Path,
        contents: &[u8],
        args: &[String],
        preamble: Option<Preamble>,
    ) -> Result<KernelSyntax, ParseError> {
        let Some(preamble) = preamble else {
            let tu = self.index.parse(path, contents, args)?;
            return Ok(Walker::new(&tu, path, None).run());
        };
        match preamble::arguments(&self.index, path, contents, args, &preamble) {
            Some(preamble::Use::Against(extra, alias)) => {
                let against = [args, &extra[..]].concat();
                if let Ok(tu) = self.index.parse_against(path, contents, &against, alias) {
                    let syntax = Walker::new(&tu, path, Some(preamble.clone())).run();
                    // An error reads as it does for the unit parsed whole.
                    if syntax.errors().next().is_none() {
                        #[cfg(test)]
                        preamble::counted::AGAINST.with(|n| n.set(n.get() + 1));
                        return Ok(syntax);
                    }
                }
            }
            Some(preamble::Use::Weigh(weighing)) => {
                let tu = self.index.parse(path, contents, args)?;
                preamble::weigh(weighing, path, &tu.included_files());
                return Ok(Walker::new(&tu, path, Some(preamble)).run());
            }
            None => {}
        }
        let tu = self.index.parse(path, contents, args)?;
        Ok(Walker::new(&tu, path, Some(preamble)).run())
    }

    /// The byte ranges of `path`'s own tokens as written (macros unexpanded,
    /// directives included), in order: what a tool mutating or counting
    /// tokens works on (the fuzzer does).
    pub fn token_ranges(&self, path: &Path, contents: &[u8], args: &[String]) -> Result<Vec<std::ops::Range<u32>>, ParseError> {
        let tu = self.index.parse(path, contents, args)?;
        let tokens = tu.tokens(&tu.cursor().extent());
        let main = path.to_string_lossy();
        let own = tokens.into_iter().filter(|t| t.start.file.as_deref() == Some(&*main));
        Ok(own.map(|t| t.start.offset..t.end.offset).collect())
    }
}

impl Parser {
    /// Which of `names` cannot name a new function under `args`: keywords,
    /// OpenCL builtins (`dot`, which a user function would silently shadow),
    /// names the headers declare, and C library functions (`memset`).
    /// Two small parses that call each name with no arguments, one line each:
    /// as OpenCL C, a name is free only if clang finds it undeclared; as C,
    /// clang calls the library's "library functions".
    pub fn taken_names(&self, names: &[String], args: &[String]) -> Result<BTreeSet<String>, ParseError> {
        if names.is_empty() {
            return Ok(BTreeSet::new());
        }
        let calls = |names: &[String]| {
            let mut probe = b"void clasp_name_probe(void) {\n".to_vec();
            for name in names {
                probe.extend_from_slice(format!("{name}();\n").as_bytes());
            }
            probe.extend_from_slice(b"}\n");
            probe
        };
        let line_of = |line: u32| names.get((line as usize).wrapping_sub(2));
        let mut free = BTreeSet::new();
        // Every name is an error when free: clang's default limit (19 errors)
        // would make every later name look taken, so names would depend on
        // how many a batch asks about.
        let mut args = args.to_vec();
        args.push("-ferror-limit=0".into());
        let tu = self.index.parse(Path::new("clasp-name-probe.cl"), &calls(names), &args)?;
        for d in tu.diagnostics() {
            if let Some(name) = line_of(d.loc.line).filter(|n| d.message == format!("use of undeclared identifier '{n}'")) {
                free.insert(name.clone());
            }
        }
        let c_args: Vec<String> = ["-x", "c", "-std=c99", "-ferror-limit=0"].iter().map(|a| a.to_string()).collect();
        let tu = self.index.parse(Path::new("clasp-name-probe.c"), &calls(names), &c_args)?;
        for d in tu.diagnostics().into_iter().filter(|d| d.message.contains("library function")) {
            if let Some(name) = line_of(d.loc.line) {
                free.remove(name);
            }
        }
        Ok(names.iter().filter(|n| !free.contains(*n)).cloned().collect())
    }
}

/// Among token texts starting at a `(`, the index of the `)` closing it
/// (nested parentheses counted); `None` when it never closes.
fn closing_index<'t>(texts: impl Iterator<Item = &'t str>) -> Option<usize> {
    let mut depth = 0usize;
    for (i, text) in texts.enumerate() {
        match text {
            "(" => depth += 1,
            ")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_names_sees_past_clangs_error_limit() {
        // More free names than clang's default limit of 19 errors, then a builtin and a C library function.
        let mut names: Vec<String> = (0..40).map(|i| format!("clasp_fresh_name_{i}")).collect();
        names.extend(["dot".to_string(), "memset".to_string()]);
        let parser = Parser::new().expect("libclang 19 (scripts/setup)");
        let args: Vec<String> = ["-x", "cl", "-cl-std=CL2.0"].iter().map(|a| a.to_string()).collect();
        let taken = parser.taken_names(&names, &args).unwrap();
        assert_eq!(taken, BTreeSet::from(["dot".to_string(), "memset".to_string()]));
    }

    /// A token's text is what clang spells: read from the file's bytes, but
    /// spelled by libclang where a line continuation splits it (the bytes
    /// hold a backslash and a newline clang leaves out); a UTF-8 comment
    /// before a token moves no offset.
    #[test]
    fn token_texts_are_clangs_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.cl");
        let text = "float fir\\\nst(__global const float *v) { /* caf\u{e9} */ return v[0] + 1.0f; }\n\
                    __kernel void k(__global float *o) { o[0] = first(o); }\n";
        std::fs::write(&path, text).unwrap();
        let parser = Parser::new().expect("libclang 19 (scripts/setup)");
        let args: Vec<String> = ["-x", "cl", "-cl-std=CL1.2"].iter().map(|a| a.to_string()).collect();
        let syntax = parser.parse(&path, text.as_bytes(), &args).unwrap();
        let texts: Vec<&str> = syntax.function("first").expect("the helper").tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts[..3], ["float", "first", "("], "{texts:?}");
        assert!(texts.contains(&"1.0f") && !texts.iter().any(|t| t.contains('\\')), "{texts:?}");
        // Its place still spans the continuation as written.
        let first = &syntax.function("first").unwrap().tokens[1];
        assert_eq!(&text[first.start as usize..first.end as usize], "fir\\\nst");
    }

    #[test]
    fn a_header_helper_seen_by_two_units_keeps_one_copy_of_its_tokens() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("common.h"), "float twice(__global const float *v) { return v[0] * 2.0f; }\n").unwrap();
        let parser = Parser::new().expect("libclang 19 (scripts/setup)");
        let args: Vec<String> = vec!["-x".into(), "cl".into(), "-cl-std=CL1.2".into(), format!("-I{}", dir.path().display())];
        let tokens_of = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let syntax = parser.parse(&path, text.as_bytes(), &args).unwrap();
            syntax.function("twice").expect("the header's helper").tokens.clone()
        };
        let a = tokens_of("a.cl", "#include \"common.h\"\n__kernel void a(__global float *o) { o[0] = twice(o); }\n");
        let b = tokens_of("b.cl", "#include \"common.h\"\n__kernel void b(__global float *o) { o[1] = twice(o) + 1.0f; }\n");
        assert!(!a.is_empty());
        assert!(std::sync::Arc::ptr_eq(&a, &b), "each unit holds its own copy");
    }
}
