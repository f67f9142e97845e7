//! A loaded `Unit` as bytes, and back: what lets a later run skip parsing
//! and lowering a unit whose files and options have not changed (the cache
//! looking units up lives with the batch driver; this is the format only).
//!
//! Stored is what `load` made of the unit's files: its syntax and IR facts
//! whole, the parts the JSON report leaves out included (helpers' tokens,
//! macro bodies, condition macros, identifiers as own and shared words,
//! references as their runs), its standard and options, each file's
//! canonical path; and what the batch set on it since (configuration,
//! discovery bound, unbuildable code), as it was. Not stored, but given back
//! by the job on `decode`: an embedded kernel or a `[[program]]` (their
//! texts, the virtual file's text the unit holds, and the scratch wrapper and
//! VFS overlay clang is given, whose paths are a run's own: where the stored
//! unit names the old ones, the decoded one names the job's). File texts are
//! read when first needed, the main file's too; batch-wide file ids are left
//! for `Unit::intern`, as on a unit just loaded.
//!
//! The encoding is a line naming the format and its version, then JSON: the
//! facts' own `Serialize` (that of the JSON report) where it keeps
//! everything, with what it leaves out carried beside it (`StoredSyntax`).
//! JSON, because the facts use internally tagged enums, which formats
//! without field names (bincode, postcard) cannot read back. Anything that
//! does not read back whole (truncated, another version, not this format)
//! decodes to `None`, never a panic.
//!
//! A header's functions (with their tokens) and reference runs are read back
//! as their JSON text and decoded once per run for each distinct text
//! (`lazy`): units including the same header alike share them as decoded.
//! What else loaded units share by content (skipped ranges, shared words, IR
//! functions and flows) a decoded unit holds its own copy of: `Interner`
//! shares them again across a batch's units.

mod intern;
mod lazy;
#[cfg(test)]
mod measure;
#[cfg(test)]
mod tests;
mod tokens;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::facts::ir::IrFacts;
use crate::facts::syntax::{
    ByteRange, ConditionMacro, Diagnostic, Function, FunctionRef, Identifiers, KernelSyntax, ProgramVar, References, SiteFacts,
    SkippedRange, Space, UnqualifiedCastArg,
};
use crate::front::unit::{Restored, Unit};
use crate::input::source::{Embedded, Program};
use crate::settings::options::{ClStd, CompileOptions, InputStd, Standard};

pub use intern::Interner;

/// Lets go of what reading units back kept to share (`lazy`), once a batch is loaded.
pub fn forget_read() {
    lazy::forget();
}
use lazy::Lazy;
use tokens::StoredTokens;

/// The format's first line; the version changes whenever what is stored does.
const HEADER: &str = "clasp-unit 2\n";

/// The unit's bytes; `None` when it cannot be written so (a path that is not UTF-8).
pub fn encode(unit: &Unit) -> Option<Vec<u8>> {
    let mut bytes = HEADER.as_bytes().to_vec();
    serde_json::to_writer(&mut bytes, &StoredUnit::of(unit)).ok()?;
    Some(bytes)
}

/// The unit `encode` wrote, its job's embedded kernel or program (what
/// `Workbench::load_embedded` and `load_program` are given) attached; `None`
/// when the bytes do not read back whole, or are another job's (a kernel
/// file's, an embedded kernel's or a program's, under another name).
pub fn decode(bytes: &[u8], embedded: Option<Arc<Embedded>>, program: Option<Arc<Program>>) -> Option<Unit> {
    let body = bytes.strip_prefix(HEADER.as_bytes())?;
    let mut stored: StoredUnit = serde_json::from_slice(body).ok()?;
    let (old, new) = (stored.scratch.take(), Scratch::of(embedded.as_deref(), program.as_deref()));
    let (configuration, discovery_bound) = (stored.configuration.take(), stored.discovery_bound);
    let unbuildable = std::mem::take(&mut stored.unbuildable).into_owned();
    let mut restored = stored.into_facts()?;
    // The job names the unit as the stored one was named: its virtual file's path.
    let virtual_path = embedded.as_ref().map(|e| &e.virtual_path).or(program.as_ref().map(|p| &p.virtual_path));
    if virtual_path.is_some_and(|path| *path != restored.path) {
        return None;
    }
    match (old, new) {
        (Some(old), Some(new)) => old.replace_with(&new, &mut restored),
        (None, None) => {}
        _ => return None,
    }
    let mut unit = Unit::restored(restored, embedded, program)?;
    unit.configuration = configuration.map(Cow::into_owned);
    unit.discovery_bound = discovery_bound;
    unit.unbuildable = unbuildable;
    Some(unit)
}

/// A unit as stored: borrowed from the unit to encode it, owned when decoded.
#[derive(Serialize, Deserialize)]
struct StoredUnit<'a> {
    path: Cow<'a, Path>,
    input: Cow<'a, Path>,
    /// The scratch files of the unit's embedded kernel or program, if any.
    scratch: Option<Scratch>,
    #[serde(borrow)]
    syntax: StoredSyntax<'a>,
    ir: Cow<'a, IrFacts>,
    standard: StoredStandard<'a>,
    compile: StoredOptions<'a>,
    /// Per file of `syntax.files`.
    canonical: Vec<Cow<'a, Path>>,
    configuration: Option<Cow<'a, str>>,
    discovery_bound: Option<usize>,
    unbuildable: Cow<'a, [(usize, u32, u32)]>,
}

impl<'a> StoredUnit<'a> {
    fn of(unit: &'a Unit) -> StoredUnit<'a> {
        StoredUnit {
            path: Cow::Borrowed(&unit.path),
            input: Cow::Borrowed(&unit.input),
            scratch: Scratch::of(unit.embedded.as_deref(), unit.program.as_deref()),
            syntax: StoredSyntax::of(&unit.syntax),
            ir: Cow::Borrowed(&unit.ir),
            standard: StoredStandard { std: unit.standard.std.name().to_string(), flags: Cow::Borrowed(&unit.standard.flags) },
            compile: StoredOptions::of(&unit.compile),
            canonical: unit.canonical_paths().map(Cow::Borrowed).collect(),
            configuration: unit.configuration.as_deref().map(Cow::Borrowed),
            discovery_bound: unit.discovery_bound,
            unbuildable: Cow::Borrowed(&unit.unbuildable),
        }
    }

    /// The facts read back, `None` where they do not fit together.
    fn into_facts(self) -> Option<Restored> {
        Some(Restored {
            path: self.path.into_owned(),
            input: self.input.into_owned(),
            syntax: self.syntax.into_syntax()?,
            ir: self.ir.into_owned(),
            standard: self.standard.into_standard()?,
            compile: self.compile.into_options()?,
            canonical: self.canonical.into_iter().map(Cow::into_owned).collect(),
        })
    }
}

/// An embedded kernel's or a program's scratch files: what clang compiles
/// (the wrapper) and the VFS overlay its options name.
#[derive(Serialize, Deserialize)]
struct Scratch {
    wrapper: PathBuf,
    overlay: String,
}

impl Scratch {
    /// The scratch files of a job's embedded kernel or program.
    fn of(embedded: Option<&Embedded>, program: Option<&Program>) -> Option<Scratch> {
        let (wrapper, overlay) = match (embedded, program) {
            (Some(e), _) => (&e.wrapper, &e.overlay),
            (None, Some(p)) => (&p.wrapper, &p.overlay),
            (None, None) => return None,
        };
        Some(Scratch { wrapper: wrapper.clone(), overlay: overlay.display().to_string() })
    }

    /// Names `new`'s files where `facts` name these (as `load` names them:
    /// the input, a file of the syntax and its canonical path, a
    /// diagnostic's file, the overlay in the options).
    fn replace_with(&self, new: &Scratch, facts: &mut Restored) {
        if facts.input == self.wrapper {
            facts.input = new.wrapper.clone();
        }
        let files = facts.syntax.files.iter_mut().zip(&mut facts.canonical);
        for (file, canonical) in files.filter(|(file, _)| **file == self.wrapper) {
            file.clone_from(&new.wrapper);
            *canonical = crate::support::overlay::canonical(&new.wrapper);
        }
        for diagnostic in facts.syntax.diagnostics.iter_mut().filter(|d| d.file == self.wrapper) {
            diagnostic.file.clone_from(&new.wrapper);
        }
        for argument in facts.compile.clang_extra.iter_mut().filter(|a| **a == self.overlay) {
            argument.clone_from(&new.overlay);
        }
    }
}

/// `KernelSyntax` with what its `Serialize` (the JSON report's) leaves out
/// or cannot write (`macro_sites`' keys are not strings) carried beside it.
#[derive(Serialize, Deserialize)]
struct StoredSyntax<'a> {
    files: Cow<'a, [PathBuf]>,
    #[serde(borrow)]
    functions: Vec<Lazy<'a, &'a Arc<Function>>>,
    /// Per function of `functions`: its tokens.
    #[serde(borrow)]
    tokens: Vec<Lazy<'a, StoredTokens<'a>>>,
    program_vars: Cow<'a, [ProgramVar]>,
    skipped: Cow<'a, [Arc<SkippedRange>]>,
    diagnostics: Cow<'a, [Diagnostic]>,
    unqualified_cast_args: Cow<'a, [UnqualifiedCastArg]>,
    /// `references` as held: its sealed runs, then its open references.
    #[serde(borrow)]
    reference_runs: Vec<Lazy<'a, &'a [FunctionRef]>>,
    open_references: Cow<'a, [FunctionRef]>,
    macro_sites: Vec<(ByteRange, Cow<'a, SiteFacts>)>,
    qualifier_macros: Cow<'a, BTreeMap<String, Space>>,
    macro_bodies: Cow<'a, BTreeMap<String, String>>,
    condition_macros: Cow<'a, BTreeMap<String, ConditionMacro>>,
    /// `identifiers` as held: the unit's own words, and those it shares.
    own_identifiers: Cow<'a, BTreeSet<String>>,
    shared_identifiers: Cow<'a, BTreeSet<String>>,
}

impl<'a> StoredSyntax<'a> {
    fn of(syntax: &'a KernelSyntax) -> StoredSyntax<'a> {
        let (runs, open) = syntax.references.runs();
        let (own, shared) = syntax.identifiers.parts();
        StoredSyntax {
            files: Cow::Borrowed(&syntax.files),
            functions: syntax.functions.iter().map(Lazy::Value).collect(),
            tokens: syntax.functions.iter().map(|f| Lazy::Value(StoredTokens::of(&f.tokens))).collect(),
            program_vars: Cow::Borrowed(&syntax.program_vars),
            skipped: Cow::Borrowed(&syntax.skipped),
            diagnostics: Cow::Borrowed(&syntax.diagnostics),
            unqualified_cast_args: Cow::Borrowed(&syntax.unqualified_cast_args),
            reference_runs: runs.iter().map(|run| Lazy::Value(&**run)).collect(),
            open_references: Cow::Borrowed(open),
            macro_sites: syntax.macro_sites.iter().map(|(range, facts)| (*range, Cow::Borrowed(facts))).collect(),
            qualifier_macros: Cow::Borrowed(&syntax.qualifier_macros),
            macro_bodies: Cow::Borrowed(&syntax.macro_bodies),
            condition_macros: Cow::Borrowed(&syntax.condition_macros),
            own_identifiers: Cow::Borrowed(own),
            shared_identifiers: Cow::Borrowed(&**shared),
        }
    }

    /// The syntax read back; `None` when the tokens do not match the functions.
    fn into_syntax(self) -> Option<KernelSyntax> {
        if self.tokens.len() != self.functions.len() {
            return None;
        }
        let functions = (self.functions.iter().zip(&self.tokens))
            .map(|(function, tokens)| lazy::function(function, tokens))
            .collect::<Option<Vec<_>>>()?;
        let runs = self.reference_runs.iter().map(lazy::references).collect::<Option<_>>()?;
        Some(KernelSyntax {
            files: self.files.into_owned(),
            functions,
            program_vars: self.program_vars.into_owned(),
            skipped: self.skipped.into_owned(),
            diagnostics: self.diagnostics.into_owned(),
            unqualified_cast_args: self.unqualified_cast_args.into_owned(),
            references: References::from_runs(runs, self.open_references.into_owned()),
            macro_sites: self.macro_sites.into_iter().map(|(range, facts)| (range, facts.into_owned())).collect(),
            qualifier_macros: self.qualifier_macros.into_owned(),
            macro_bodies: self.macro_bodies.into_owned(),
            condition_macros: self.condition_macros.into_owned(),
            identifiers: Identifiers::from_parts(
                self.own_identifiers.into_owned(),
                Arc::new(self.shared_identifiers.into_owned()),
            ),
        })
    }
}

/// `Standard` (its standard by name, as `--std` takes it).
#[derive(Serialize, Deserialize)]
struct StoredStandard<'a> {
    std: String,
    flags: Cow<'a, [String]>,
}

impl StoredStandard<'_> {
    fn into_standard(self) -> Option<Standard> {
        Some(Standard { std: ClStd::parse(&self.std).ok()?, flags: self.flags.into_owned() })
    }
}

/// `CompileOptions` (`std`: `None` for `auto`).
#[derive(Serialize, Deserialize)]
struct StoredOptions<'a> {
    std: Option<String>,
    include_dirs: Cow<'a, [PathBuf]>,
    defines: Cow<'a, [String]>,
    includes: Cow<'a, [PathBuf]>,
    clang_extra: Cow<'a, [String]>,
    full_header: bool,
}

impl<'a> StoredOptions<'a> {
    fn of(options: &'a CompileOptions) -> StoredOptions<'a> {
        StoredOptions {
            std: match options.std {
                InputStd::Auto => None,
                InputStd::Fixed(std) => Some(std.name().to_string()),
            },
            include_dirs: Cow::Borrowed(&options.include_dirs),
            defines: Cow::Borrowed(&options.defines),
            includes: Cow::Borrowed(&options.includes),
            clang_extra: Cow::Borrowed(&options.clang_extra),
            full_header: options.full_header,
        }
    }

    fn into_options(self) -> Option<CompileOptions> {
        Some(CompileOptions {
            std: match &self.std {
                None => InputStd::Auto,
                Some(name) => InputStd::Fixed(ClStd::parse(name).ok()?),
            },
            include_dirs: self.include_dirs.into_owned(),
            defines: self.defines.into_owned(),
            includes: self.includes.into_owned(),
            clang_extra: self.clang_extra.into_owned(),
            full_header: self.full_header,
        })
    }
}
