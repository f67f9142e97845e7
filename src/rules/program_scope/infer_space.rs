//! Rule `infer-program-scope-space`: a program-scope variable, or a `static`
//! one in a function, written with no address space gets one.
//!
//! What it does: `const float w[4] = {...};` becomes `__constant const float
//! w[4] = {...};`, and `int hits[64];` becomes `__global int hits[64];`
//! (spelled as the file spells its qualifiers: `constant`/`global` when it
//! uses the short keywords). Why: OpenCL C 1.2 rejects such a variable
//! ("program scope variable must reside in constant address space"), though
//! lenient vendor compilers accepted it; 2.0 reads it as `__global`. Naming
//! the space says which one the program gets: `__constant` when it is
//! initialised, only read and within the budget, else `__global` (`infer_spaces`).
//!
//! Its documentation, what `clasp rule infer-program-scope-space` prints, is `DOC` below.

use std::collections::BTreeMap;

use super::components::{size_of, tables_of};
use crate::codes::{verified, Code, Doc};
use crate::facts::ir::{Sink, Source};
use crate::facts::syntax::{ProgramVar, Space, Spelling};
use crate::front::unit::Unit;
use crate::infer::Evidence;
use crate::rules::{Because, Edit, Fix, VariableEvidence};
use crate::settings::options::{GlobalsPolicy, MigrateOptions};
use crate::support::ids::{DeclKey, UnitId};

/// What `__constant` means for reads, said with the fix.
pub const CONSTANT_CACHE: &str = "reads go through the constant cache";

/// The fix naming `space` for `var`, inserted before its type (after `static`).
pub fn fix(
    unit: &Unit,
    var: &ProgramVar,
    space: Space,
    why: String,
    evidence: Vec<Evidence>,
    data: VariableEvidence,
) -> Option<Fix> {
    let at = var.type_start?;
    let keyword = keyword_for(unit, at.file, space);
    let edit =
        Edit { file: unit.syntax.files[at.file].clone(), start: at.start, end: at.start, replacement: format!("{keyword} ") };
    let performance = if data.performance.is_empty() { String::new() } else { format!("; {}", data.performance) };
    Some(Fix {
        rule: Code::InferProgramScopeSpace,
        file: unit.syntax.files[var.pos.file].clone(),
        line: var.pos.line,
        col: var.pos.col,
        function: var.function.clone().unwrap_or_default(),
        decl: var.pos,
        link_name: String::new(),
        message: format!("`{}` has no address space (OpenCL C 1.2 rejects it): {keyword}, {why}{performance}", var.name),
        required: false,
        evidence,
        edits: vec![edit],
        variable: Some(data),
        origin: None,
    })
}

/// `__constant`, or `constant` when the file spells its qualifier keywords without underscores.
fn keyword_for(unit: &Unit, file: usize, space: Space) -> String {
    let keywords = unit
        .syntax
        .functions
        .iter()
        .flat_map(|f| f.pointers.iter())
        .flat_map(|d| d.levels.iter())
        .map(|l| &l.spelling)
        .chain(unit.syntax.program_vars.iter().map(|v| &v.spelling));
    let mut short = 0i32;
    for spelling in keywords {
        if let Spelling::Keyword { text, range } = spelling {
            if range.file == file {
                short += if text.starts_with("__") { -1 } else { 1 };
            }
        }
    }
    let long = space.keyword();
    if short > 0 {
        long.trim_start_matches("__").to_string()
    } else {
        long.to_string()
    }
}

/// The space inferred for a variable written with none, in one unit.
struct Inferred {
    space: Space,
    why: String,
    /// The program's `__constant` data before it.
    constant_bytes: u64,
}

/// Program-scope variables (and `static` ones in functions) written with no
/// address space, which OpenCL C 1.2 rejects and 2.0 reads as `__global`:
/// each gets one (rule `infer-program-scope-space`). `__constant` when it
/// is initialised, only read (never stored to, its address never passed
/// on) and the program's `__constant` data stays within the budget, unless
/// `--globals prefer-global`; else `__global`. A variable in a shared header
/// is `__global` if any program including it needs it so. Each fix comes
/// with its unit and its key.
pub fn infer_spaces(units: &[Unit], options: &MigrateOptions) -> Vec<(UnitId, DeclKey, Fix)> {
    if !options.target.has_program_scope_globals() {
        return Vec::new();
    }
    // Variable -> (unit, index in it, what that unit infers).
    let mut answers: BTreeMap<DeclKey, Vec<(UnitId, usize, Inferred)>> = BTreeMap::new();
    for (u, unit) in UnitId::enumerate(units) {
        for (index, key, inferred) in infer_in_unit(unit, options) {
            answers.entry(key).or_default().push((u, index, inferred));
        }
    }
    let mut out = Vec::new();
    for (key, found) in answers {
        if let Some(fix) = agreed_fix(units, options, &found) {
            out.extend(found.iter().map(|(u, _, _)| (*u, key, fix.clone())));
        }
    }
    out
}

/// What one unit infers for each of its variables written with no address
/// space under the root (index in the unit, key), in source order: each one
/// found `__constant` counts towards the budget of the ones after it.
fn infer_in_unit(unit: &Unit, options: &MigrateOptions) -> Vec<(usize, DeclKey, Inferred)> {
    let mut constant_total: u64 = tables_of(unit).iter().map(|t| t.size).sum();
    let mut out = Vec::new();
    for (index, var) in unit.syntax.program_vars.iter().enumerate() {
        if var.spelling != Spelling::Unqualified || var.space != Space::Global || var.type_start.is_none() {
            continue;
        }
        let written_in =
            unit.origin(var.pos.file, var.pos.offset..var.pos.offset).map_or(unit.canonical(var.pos.file), |(f, _)| f);
        if options.not_editable(written_in).is_some() {
            continue;
        }
        let size = size_of(unit, var);
        let constant_bytes = constant_total;
        let inferred = match why_global(unit, var, options, constant_total + size) {
            Some(why) => Inferred { space: Space::Global, why, constant_bytes },
            None => {
                constant_total += size;
                let why = format!(
                    "{size} bytes, initialised and only read; the program's __constant data stays within the {}-byte budget ({constant_total} bytes)",
                    options.constant_budget
                );
                Inferred { space: Space::Constant, why, constant_bytes }
            }
        };
        out.push((index, unit.key(var.pos.file, var.pos.offset), inferred));
    }
    out
}

/// The one fix for a variable every unit in `found` shares: `__global` if
/// any program needs it so (it is read as global there today), else the first unit's answer.
fn agreed_fix(units: &[Unit], options: &MigrateOptions, found: &[(UnitId, usize, Inferred)]) -> Option<Fix> {
    let global = found.iter().find(|(_, _, i)| i.space == Space::Global);
    let (u, index, inferred) = global.unwrap_or(&found[0]);
    let unit = &units[*u];
    let var = &unit.syntax.program_vars[*index];
    let mut why = inferred.why.clone();
    if found.len() > 1 && global.is_some() {
        why = format!("{why} (in {})", unit.label());
    }
    let evidence = vec![Evidence {
        space: inferred.space,
        from: format!("`{}` ({} bytes)", var.name, size_of(unit, var)),
        at: format!("{}:{}", unit.syntax.files[var.pos.file].display(), var.pos.line),
    }];
    let data = VariableEvidence {
        name: var.name.clone(),
        size_bytes: size_of(unit, var),
        space: inferred.space,
        because: Because::Inferred,
        needed_by: None,
        constant_bytes: inferred.constant_bytes,
        budget_bytes: options.constant_budget,
        performance: if inferred.space == Space::Constant { CONSTANT_CACHE } else { "" },
    };
    fix(unit, var, inferred.space, why, evidence, data)
}

/// Why a variable written with no address space must be (or is asked to be) `__global`.
fn why_global(unit: &Unit, var: &ProgramVar, options: &MigrateOptions, constant_total: u64) -> Option<String> {
    if options.globals == GlobalsPolicy::PreferGlobal {
        return Some("as asked (--globals prefer-global)".to_string());
    }
    if unit.ir.globals.iter().any(|g| g.name == var.ir_name && g.written) {
        return Some("it is written".to_string());
    }
    if !var.initialized {
        return Some("it is not initialised (a __constant variable must be)".to_string());
    }
    let source = Source::Global { name: var.ir_name.clone() };
    // Read-only builtins (`vload4(i, table)`) read through the address; anything else may write or keep it.
    let passed = unit
        .ir
        .flows
        .iter()
        .find(|f| f.from == source && !matches!(&f.to, Sink::Builtin { name, .. } if name.starts_with("vload")));
    if let Some(flow) = passed {
        return Some(format!(
            "its address is passed on at {} (a __constant pointer would not convert)",
            crate::infer::describe::at(unit, &flow.at)
        ));
    }
    if constant_total > options.constant_budget {
        return Some(format!(
            "the program's __constant data would be {constant_total} bytes, over the {}-byte budget",
            options.constant_budget
        ));
    }
    None
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A program-scope variable written with no address space gets one.",
    what: "Names the space of a program-scope variable, or a `static` one in a function, written with none: `__constant` \
when it is initialised, only read (its address passed to nothing but `vload` builtins) and the program's `__constant` data stays \
within `--constant-budget`; else `__global` (it is written, not initialised, its address is passed on, the budget is exceeded, \
or `--globals prefer-global`), with why. The keyword follows the file's spelling; a variable in a shared header is `__global` \
if any program including it needs it so. `clasp analyze` marks such a variable (\"no address space\"); `--explain` says the \
space given, why, and the cost (\"reads go through the constant cache\" / \"the global cache\"); `--json` has the fix's \
`variable` object (`because`: `inferred`; see `constant-to-global`), and the summary counts it among the program-scope \
variables given a new space.",
    why: "OpenCL C 1.2 rejects such a variable (\"program scope variable must reside in constant address space\"), \
though lenient vendor compilers accepted it; so `--std auto` (the default) reads the unit as 2.0, where it is `__global`. Naming the space says which \
one the program gets, and `__constant` keeps read-only data in the constant cache.",
    example: r#"// before: OpenCL C 1.2 rejects both
const float gain[4] = { 1.0f, 0.5f, 0.25f, 0.125f };
int histogram[256];

// after
__constant const float gain[4] = { 1.0f, 0.5f, 0.25f, 0.125f };
__global int histogram[256];"#,
    refuses: "It has no refusal code of its own: a variable that cannot be `__constant` gets `__global`, with why. \
Variables in files outside the edit root are left alone, and nothing is named under `--target cl3.0-nogeneric` (such a unit \
compiles neither as 1.2 nor as the target, and is an error with clang's message, file, line and column).",
    safety: verified!(
        "Program-scope data is compared too: a variable never written and marked `__constant` on one side only compares \
equal, a changed initialiser does not."
    ),
};
