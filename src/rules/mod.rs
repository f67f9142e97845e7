//! Rewrite rules: each turns decisions into `Fix`es, sorted,
//! non-overlapping byte-range edits of the original text. A rule lives in
//! one place: its module holds what it takes (`applies`, or its detection),
//! its edits and its documentation (`DOC`, what `clasp rule CODE` prints);
//! the per-declaration rules are a file each, the batch-wide ones
//! (`merge_duplicates`, `program_scope`, `host_build_options`) a directory
//! each. Its code is one row of the table in `crate::codes`, which
//! `registry` reads for the documentation and the per-declaration dispatch.
//! The shared edit primitives live here.

pub mod array_param;
pub mod generic_local;
pub mod generic_param;
pub mod generic_return;
pub mod host_build_options;
pub mod merge_duplicates;
pub mod program_scope;
pub mod registry;

use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

use crate::codes::Code;
use crate::facts::syntax::{ByteRange, DeclKind, PointerDecl, Pos};
use crate::front::unit::Unit;
use crate::infer::{spaces, Decision, DeclDecision, Evidence};

/// Something to know that is not an error: a withdrawn change, a flat-access regression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub path: PathBuf,
    /// Where in the file, when the warning is about one place (a host's build call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub col: Option<u32>,
    pub message: String,
}

impl Warning {
    /// A warning about a whole file.
    pub fn new(path: PathBuf, message: String) -> Warning {
        Warning { path, line: None, col: None, message }
    }

    /// A warning about one place of a file.
    pub fn at(path: PathBuf, line: u32, col: u32, message: String) -> Warning {
        Warning { path, line: Some(line), col: Some(col), message }
    }

    /// `file:line:col`, or `file` for a whole file: where editors and problem matchers look.
    pub fn location(&self) -> String {
        match (self.line, self.col) {
            (Some(line), Some(col)) => format!("{}:{line}:{col}", self.path.display()),
            _ => self.path.display().to_string(),
        }
    }
}

/// A declaration whose qualifier stays, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    /// The column of the declaration's name (1-based, in bytes), for editors and SARIF.
    pub col: u32,
    pub function: String,
    pub name: String,
    pub reason: Code,
    pub detail: String,
    /// The file cannot compile as the target because of it.
    pub blocking: bool,
    #[serde(skip)]
    pub(crate) canonical: PathBuf,
}

/// Replace `[start, end)` of `file` with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Edit {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub start: u32,
    pub end: u32,
    pub replacement: String,
}

/// One reviewable change: a rule, its edits and its explanation.
#[derive(Debug, Clone, Serialize)]
pub struct Fix {
    pub rule: Code,
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    /// The column on `line` (1-based, in bytes): the declaration's name, or the build call.
    pub col: u32,
    pub function: String,
    /// The declaration the fix changes (its name's position): what links it to flows.
    #[serde(skip)]
    pub decl: Pos,
    /// The function's name in the IR (mangled when overloadable).
    #[serde(skip)]
    pub link_name: String,
    pub message: String,
    pub required: bool,
    pub evidence: Vec<Evidence>,
    pub edits: Vec<Edit>,
    /// For a program-scope variable's fix: what it rests on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<VariableEvidence>,
    /// The change set it belongs to and its declaration, once the batch is settled
    /// (for `--interactive`, which accepts or skips sets).
    #[serde(skip)]
    pub origin: Option<FixOrigin>,
}

/// Where a kept fix comes from: its change set (an index of this run) and its
/// declaration (canonical file, name offset), which names it in another run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixOrigin {
    pub set: usize,
    pub decl: (PathBuf, u32),
}

/// What a program-scope variable's new space rests on, for reports.
#[derive(Debug, Clone, Serialize)]
pub struct VariableEvidence {
    pub name: String,
    pub size_bytes: u64,
    /// The space it gets.
    pub space: crate::facts::syntax::Space,
    pub because: Because,
    /// The duplicate whose merge needs the move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needed_by: Option<String>,
    /// The program's `__constant` data before the change, and the budget.
    pub constant_bytes: u64,
    pub budget_bytes: u64,
    pub performance: &'static str,
}

/// Why a program-scope variable gets its new space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Because {
    /// Moved: a merge of duplicates needs it.
    Merge,
    /// Moved: the program's `__constant` data is over the budget.
    OverBudget,
    /// Moved as asked (`--globals prefer-global`).
    PreferGlobal,
    /// A variable written with no space was given one.
    Inferred,
}

/// Removes a qualifier token (or the macro use that spells it) and the
/// blanks that follow it, or precede it when nothing follows on the line.
pub fn remove_qualifier(unit: &Unit, range: ByteRange) -> Edit {
    let file = unit.syntax.files[range.file].clone();
    let bytes = unit.text(range.file);
    let (mut start, mut end) = (range.start as usize, range.end as usize);
    let blank = |b: u8| b == b' ' || b == b'\t';
    // A macro argument that was only the space is left empty, the blank before it kept: `F(a, )`, `F(a, , b)`.
    let before = bytes[..start].iter().rev().find(|b| !blank(**b));
    let after = bytes[end.min(bytes.len())..].iter().find(|b| !blank(**b));
    if matches!(before, Some(b'(' | b',')) && matches!(after, Some(b',' | b')')) {
        while end < bytes.len() && blank(bytes[end]) {
            end += 1;
        }
        return Edit { file, start: start as u32, end: end as u32, replacement: String::new() };
    }
    if end < bytes.len() && blank(bytes[end]) {
        while end < bytes.len() && blank(bytes[end]) {
            end += 1;
        }
    } else {
        while start > 0 && blank(bytes[start - 1]) {
            start -= 1;
        }
    }
    Edit { file, start: start as u32, end: end as u32, replacement: String::new() }
}

/// The qualifier edit of a declaration's first level, if it is spelled editably.
/// A `__constant` one (a pointer following a table moved to `__global`) keeps
/// its data read-only: it becomes `const` unless the declaration says it already.
pub fn qualifier_edit(unit: &Unit, decl: &PointerDecl) -> Option<Edit> {
    let level = decl.levels.first()?;
    let mut edit = level.spelling.edit_range().map(|r| remove_qualifier(unit, r))?;
    if level.space == crate::facts::syntax::Space::Constant && !crate::facts::syntax::says_const(&decl.type_text) {
        edit.replacement = "const ".to_string();
    }
    Some(edit)
}

/// How a rule edits one declaration (the definition's or a prototype's);
/// an empty list means it cannot.
pub type DeclEdits = fn(&Unit, &PointerDecl) -> Vec<Edit>;

/// The plain generic rewrite of a declaration: its qualifier goes.
pub fn qualifier_only(unit: &Unit, decl: &PointerDecl) -> Vec<Edit> {
    qualifier_edit(unit, decl).into_iter().collect()
}

/// The qualifiers of the casts of a declaration's value (and of pointers
/// derived from it) into its own space: with the declaration's gone, each
/// cast only retypes the pointee (`(__global uint *)(p + 1)` becomes
/// `(uint *)(p + 1)`). Inference refused the declaration when a cast
/// names another space or hides its qualifier (`infer::pin`).
fn cast_edits(unit: &Unit, decl: &PointerDecl) -> Vec<Edit> {
    decl.casts.iter().filter_map(|cast| cast.spelling.range()).map(|range| remove_qualifier(unit, range)).collect()
}

/// Edits for the same param or return in every prototype of the function.
fn prototype_edits(unit: &Unit, decision: &DeclDecision, edits_of: DeclEdits) -> Vec<Edit> {
    unit.syntax
        .functions
        .iter()
        .filter(|f| !f.is_definition && f.link_name == decision.link_name)
        .flat_map(|f| f.pointers.iter().filter(|d| d.kind == decision.decl.kind))
        .flat_map(|d| edits_of(unit, d))
        .collect()
}

/// "receives __global (a.cl:40) and __local (a.cl:52)".
pub fn evidence_phrase(evidence: &[Evidence]) -> String {
    if evidence.is_empty() {
        return "has no callers in this unit".into();
    }
    let parts: Vec<String> = spaces(evidence)
        .into_iter()
        .map(|space| {
            let mut places: Vec<&str> = evidence.iter().filter(|e| e.space == space).map(|e| e.at.as_str()).collect();
            places.dedup();
            format!("{} ({})", space.keyword(), places.join(", "))
        })
        .collect();
    format!("receives {}", parts.join(" and "))
}

/// "required under 2.0: receives `state` of `absorb` (a.h:16), generic there".
fn required_phrase(evidence: &[Evidence]) -> String {
    let mut sources: Vec<String> = evidence.iter().map(|e| format!("{} ({})", e.from, e.at)).collect();
    sources.dedup();
    format!("required: under 2.0 it receives generic pointers from {}", sources.join(", "))
}

/// The fix for a generic decision, built the same way by every rule:
/// `edits_of` rewrites the definition's declaration and every prototype's.
pub fn generic_fix(unit: &Unit, decision: &DeclDecision, rule: Code, subject: String, edits_of: DeclEdits) -> Option<Fix> {
    let Decision::Generic { required, caveat } = &decision.decision else { return None };
    let required = *required;
    let mut edits = edits_of(unit, &decision.decl);
    if edits.is_empty() {
        return None;
    }
    edits.extend(cast_edits(unit, &decision.decl));
    if !matches!(decision.decl.kind, DeclKind::Local) {
        edits.extend(prototype_edits(unit, decision, edits_of));
    }
    edits.sort();
    let mut why = if required { required_phrase(&decision.receives) } else { evidence_phrase(&decision.receives) };
    if let Some(caveat) = caveat {
        why.push_str(&format!("; check the configurations clasp did not build: {caveat}"));
    }
    Some(Fix {
        rule,
        file: unit.syntax.files[decision.decl.pos.file].clone(),
        line: decision.decl.pos.line,
        col: decision.decl.pos.col,
        function: decision.function.clone(),
        decl: decision.decl.pos,
        link_name: decision.link_name.clone(),
        message: format!("{subject}{} {why}", if required { ":" } else { "" }),
        required,
        evidence: decision.receives.clone(),
        edits,
        variable: None,
        origin: None,
    })
}

/// Every fix for a unit's decisions, in source order.
pub fn fixes(unit: &Unit, decisions: &[Arc<DeclDecision>]) -> Vec<Fix> {
    let mut out: Vec<Fix> = decisions.iter().filter_map(|d| registry::declaration_fix(unit, d)).collect();
    out.sort_by(|a, b| (&a.file, &a.edits).cmp(&(&b.file, &b.edits)));
    out
}
