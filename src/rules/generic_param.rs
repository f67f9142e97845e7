//! Rule `generic-param`: a helper's pointer parameter loses its named
//! qualifier. The declarations it takes (`applies`), its edits (`fix`) and
//! its documentation (`DOC`, what `clasp rule generic-param` prints);
//! whether a parameter may become generic is the inference's (`infer`).

use super::{generic_fix, qualifier_only, Fix};
use crate::codes::{verified, Code, Doc};
use crate::facts::syntax::{DeclKind, PointerDecl};
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

/// A parameter that is not an array (`array-param-to-pointer` takes those).
pub fn applies(decl: &PointerDecl) -> bool {
    matches!(decl.kind, DeclKind::Param(_)) && decl.array.is_none()
}

/// The fix: the qualifier goes, in the definition and every prototype.
pub fn fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
    generic_fix(
        unit,
        decision,
        Code::GenericParam,
        format!("`{}` of `{}`", decision.decl.name, decision.function),
        qualifier_only,
    )
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "A helper's pointer parameter loses its named address space and becomes generic.",
    what: "Removes the `__global`, `__local` or `__private` qualifier of a helper's pointer parameter, in its definition \
and every prototype, when every declaration its value flows into can become generic too. `const` and the pointee type stay. \
The qualifier may be written `__global` or `global`, before or after `const`, or through a macro use such as `GMEM` whose \
definition is exactly a qualifier (the use goes). A qualifier written inside a macro is edited where it is written: in the \
macro's definition (`#define ROWS(T) __global const T *` becomes `const T *`; `#define TABLE __local const` becomes `const`, in \
the `#if` branch the build takes, other branches left as they are), or in the argument of the use that stamps out the helper \
(`DEFINE_SUM(sum_l, const __local)` becomes `DEFINE_SUM(sum_l, const)`; an argument that was only the space becomes empty). \
clasp expands every use of such a macro in every unit and configuration it builds, and edits it only when each qualifier the \
token puts anywhere is the first level of a pointer declaration that becomes generic; those declarations are then one change \
set, verified in every unit that includes the macro. A `__constant` parameter that follows a table moved to `__global` \
(`constant-to-global`) loses its qualifier too and keeps its data read-only with `const`.",
    why: "In OpenCL C 2.0 a pointer to `__global`, `__local` or `__private` converts implicitly to a generic pointer, so \
one generic helper accepts what needed a named space in 1.x. Some changes are required (repairs): an unqualified pointer is \
private in 1.x but generic in 2.0, so a parameter it reaches must become generic or 2.0 rejects the call (\"changes address \
space of pointer\"): a parameter spelled `__private` (keyword or macro use), and one receiving an argument cast to a pointer \
type that names no space (`f((uchar *)words)`), with everything downstream, in headers shared by several programs too. \
clasp makes these changes even where it would otherwise leave code alone.",
    example: r#"// before
float first(__global const float *p) { return p[0]; }

// after
float first(const float *p) { return p[0]; }"#,
    refuses: "Kernel parameters never change (`kernel-param`). A helper's parameter keeps its space when it, or a \
declaration its value flows into, must stay named: `builtin-pin`, `constant-space`, `flows-to-pinned`, `sizeof-pointer`, \
`pointer-to-integer`, `escapes-to-memory`, `pointer-to-pointer`, `undefined-callee`, `cast-to-named`, `volatile-pointee`, \
`macro`, `hidden-qualifier`, `skipped-if`, `skipped-caller`, `no-evidence`, `outside-root`, `header-conflict`, \
`configuration`, `target-without-generic`, `suppressed`. A qualifier token inside a macro stays when one of its uses is \
elsewhere (a kernel parameter, a variable, a cast, a deeper pointer level, code `#if` skips, a macro with `#`, `##` or \
`__VA_ARGS__`): the refusal (`macro` for an argument, `hidden-qualifier` for a definition) names that expansion. A required \
change that cannot be made (its qualifier in a macro another expansion uses otherwise, a `__private` from a typedef, a builtin \
pin, ...) is an error for the file, listing every such declaration with its reason (`cannot repair <code>` in `--explain`); the \
file is left unchanged and the batch goes on. A required change overrides `skipped-if` and `skipped-caller` instead: its \
explanation ends with `check the configurations clasp did not build: ...` and the skipped code's position.",
    safety: verified!(
        "A unit needing repairs cannot compile unchanged as the target, so its other changes are proven against the unit \
with its repairs applied, compiled as the target, and the repairs against the unit as it was read (1.2); when that build \
differs whatever clasp does (an unqualified pointer kept in memory is 4 bytes under 1.2 and 8 under 2.0), the repairs are kept, \
marked unverified, with a warning `repairs kept unverified: ...`. A unit's required changes are all-or-nothing \
(`unrepairable-unit`)."
    ),
};
