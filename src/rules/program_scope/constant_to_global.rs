//! Rule `constant-to-global`: a program-scope `__constant` variable moves to
//! `__global const`, with the `__constant` pointers that receive its address.
//!
//! What it does: `__constant float big[20000] = {...};` becomes `__global
//! const float big[20000] = {...};` (spelled as the file spells it: `global`
//! for `constant`, the project's own macro for global when the unit has one),
//! and `__constant float *w = big;` becomes `__global const float *w = big;`.
//! Why: OpenCL 2.0 allows program-scope `__global` data, and devices only
//! guarantee 64 KiB of constant memory; which variables move, and why, is
//! decided by `choose` in this module. The cost: reads go through the
//! global cache instead of the constant cache.
//!
//! Its documentation, what `clasp rule constant-to-global` prints, is `DOC` below.

use crate::codes::{verified, Code, Doc};
use crate::facts::syntax::{Pos, Space, Spelling};
use crate::front::unit::Unit;
use crate::infer::Evidence;
use crate::rules::{Edit, Fix};

/// What the move costs, said with every move.
pub const PERFORMANCE: &str = "reads go through the global cache now";

/// How a unit spells `__global`, given how the edited qualifier is spelled:
/// the same style of keyword, or the unit's own macro for global.
pub fn global_spelling(unit: &Unit, spelling: &Spelling) -> Option<String> {
    match spelling {
        Spelling::Keyword { text, .. } => Some(if text.starts_with("__") { "__global" } else { "global" }.to_string()),
        Spelling::MacroUse { .. } => Some(
            unit.syntax
                .qualifier_macros
                .iter()
                .find(|(_, s)| **s == Space::Global)
                .map_or("__global".to_string(), |(m, _)| m.clone()),
        ),
        _ => None,
    }
}

/// The edit turning one `__constant` qualifier into `__global` (plus `const`
/// when the declaration does not say it: __constant data is read-only, and
/// so must its new pointers be).
pub fn requalify(unit: &Unit, spelling: &Spelling, type_text: &str) -> Option<Edit> {
    let range = spelling.range()?;
    let global = global_spelling(unit, spelling)?;
    let replacement = if crate::facts::syntax::says_const(type_text) { global } else { format!("{global} const") };
    Some(Edit { file: unit.syntax.files[range.file].clone(), start: range.start, end: range.end, replacement })
}

/// The fix for one moved variable: its own edit and its followers', with why.
pub fn fix(unit: &Unit, name: &str, pos: Pos, edits: Vec<Edit>, why: String, evidence: Vec<Evidence>) -> Fix {
    let mut edits = edits;
    edits.sort();
    Fix {
        rule: Code::ConstantToGlobal,
        file: unit.syntax.files[pos.file].clone(),
        line: pos.line,
        col: pos.col,
        function: String::new(),
        decl: pos,
        link_name: String::new(),
        message: format!("`{name}` moves from __constant to __global: {why}; {PERFORMANCE}"),
        required: false,
        evidence,
        edits,
        variable: None,
        origin: None,
    }
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A program-scope `__constant` table moves to `__global const`.",
    what: "Moves a program-scope `__constant` variable (or a `static` one in a function, whose IR name is \
`function.name`) to `__global const`, spelled as the file spells it (`constant` -> `global`; a qualifier macro -> the unit's \
own macro for global when it has one, else `__global`), with `const` added. `__constant` stays by default; a table moves when:\n\
- a merge needs it: the `__constant` member of a duplicate group (`norm2_c(__constant float *v)` beside `norm2_g`/`norm2_l`) \
joins the merge only if every `__constant` pointer it has receives only tables that can move; those tables then move, its \
pointers become generic (`const float *v`) and it merges, the survivor being a member that reads through `const` pointers \
wherever another member does, so no call loses `const`. If the merge is not made after all (refused, no survivor), the batch is \
planned again without those moves; a member whose tables cannot move stays as its own function, with why;\n\
- its program (a unit) is over the budget: the program's `__constant` data, summed from the IR's sizes, is over \
`--constant-budget` (65536 bytes), and its largest movable tables move until the rest fits;\n\
- it is asked: `--globals prefer-global` moves every movable one (`as-needed`, the default, moves only for the two reasons \
above).\n\
The `__constant` pointers its address reaches (its followers: `__constant float *w = table;`, a helper's parameter receiving it) \
change in the same change set: the inference runs again with them moved, so a helper's pointer becomes generic, keeping \
`const`, when nothing else pins it, and a kernel's local becomes `__global const`. A program still over the budget (its other \
tables cannot move) gets a warning. Every move is explained in `--explain` (size, the program's `__constant` total, the budget, \
the followers, which merge needed it, the cost: \"reads go through the global cache now\"), and in `--json` as the fix's \
`variable` object (`name`, `size_bytes`, `space`, `because`: `merge`, `over-budget` or `prefer-global`, `needed_by`, \
`constant_bytes`, `budget_bytes`, `performance`); the summary counts program-scope variables given a new space.",
    why: "In 1.x every program-scope variable is `__constant`; 2.0 also allows `__global` ones (and `static` variables in \
functions, which 1.2 does not allow at all). The constant cache is fast for uniform reads, but devices guarantee only 64 KiB \
of constant memory. A `__constant` pointer can never become generic, so the `__constant` copy of a duplicated helper can only \
merge once its tables are `__global`. The cost of a move: reads go through the global cache instead of the constant cache.",
    example: r#"// before: 80 KiB of __constant data, over the 64 KiB budget
__constant float weights[20480] = { 0.5f };
float weight(__constant float *w, int i) { return w[i]; }

// after
__global const float weights[20480] = { 0.5f };
float weight(const float *w, int i) { return w[i]; }"#,
    refuses: "A table stays `__constant` (`refused <code>: `t` (program scope)` in `--explain`, when a move was wanted) \
with `shares-constant-pointer` (a pointer it reaches also receives other `__constant` data), `address-escapes` (its address is \
stored in memory, made an integer or passed to a function the unit does not define), `macro` (a declaration on the way is \
produced by a macro), `outside-root`, `shared-header` (a table in a shared header moves in every program including it, each with \
its own followers, or in none) or `no-program-scope-globals` (`--target cl3.0-nogeneric`: nothing moves). Tables whose \
addresses reach a common pointer (`pick_c(ramp)`, `pick_c(steps)`) move together or not at all, and a table wanted by a merge \
that is not made does not move.",
    safety: verified!(
        "A table and its followers are one change set. The comparison includes the program-scope data (every definition \
with its initialiser), with amdgcn's constant space read as its global one: a moved table compares equal, a changed initialiser \
would not, so a moved table must keep its initialiser."
    ),
};
