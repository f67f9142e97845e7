//! The documentation of the fix rules.

use super::Doc;

pub(super) const GENERIC_PARAM: Doc = Doc {
    summary: "A helper's pointer parameter loses its named address space and becomes generic.",
    what: "Removes the `__global`, `__local` or `__private` qualifier of a helper's pointer parameter (written \
`__global` or `global`, before or after `const`, or through a macro whose definition is exactly a qualifier), in its definition \
and every prototype. `const` and the pointee type stay. A `__constant` parameter that follows a table moved to `__global` loses \
its qualifier too and keeps its data read-only with `const`.",
    why: "In OpenCL C 2.0 a pointer to `__global`, `__local` or `__private` converts implicitly to a generic pointer, so \
one generic helper accepts what needed a named space in 1.x. Some changes are required: an unqualified pointer is private in 1.x \
but generic in 2.0, so a parameter it reaches (one spelled `__private`, or one receiving an argument cast to an unqualified \
pointer type) must become generic or 2.0 rejects the call.",
    example: r#"// before
float first(__global const float *p) { return p[0]; }

// after
float first(const float *p) { return p[0]; }"#,
    refuses: "Kernel parameters never change. A helper's parameter keeps its space when it, or a declaration its value \
flows into, must stay named: `builtin-pin`, `constant-space`, `flows-to-pinned`, `sizeof-pointer`, `pointer-to-integer`, \
`escapes-to-memory`, `undefined-callee`, `cast-to-named`, `volatile-pointee`, `macro`, `hidden-qualifier`, `skipped-if`, \
`skipped-caller`, `no-evidence`, `outside-root`, `header-conflict`, `configuration`, `target-without-generic`. On a required \
change a pin is an error for the file (`cannot repair <code>`), except `skipped-if` and `skipped-caller`, which it overrides \
with a note to check the configurations clasp did not build.",
    safety: verified!("A required change is all-or-nothing for its unit (`unrepairable-unit`)."),
};

pub(super) const GENERIC_LOCAL: Doc = Doc {
    summary: "A local pointer variable loses its named address space and becomes generic.",
    what: "Removes the named qualifier of a helper's local pointer variable, like a parameter's, unless something its \
value flows into must stay named. In a kernel, a local pointer changes only when a generic value reaches it, such as a helper's \
generic result.",
    why: "In 2.0 a generic value cannot be assigned to a pointer into a named space without an explicit cast, so a local \
that receives a parameter which became generic, or a helper's generic result, must be generic too.",
    example: r#"// before
float ends(__global const float *p, int n)
{
__global const float *q = p + 1;
return q[0] + q[n - 2];
}

// after
float ends(const float *p, int n)
{
const float *q = p + 1;
return q[0] + q[n - 2];
}"#,
    refuses: "With the same reason codes as `generic-param`, for the local or for a declaration its value flows into. A \
kernel's local pointer that no generic value reaches stays as it is, without a refusal.",
    safety: verified!("The local changes in the same change set as the declarations its value comes from."),
};

pub(super) const GENERIC_RETURN: Doc = Doc {
    summary: "A helper's returned pointer type loses its named address space and becomes generic.",
    what: "Removes the named qualifier from a helper's return type, in its definition and every prototype, when every \
declaration receiving the result can be generic too: a helper's pointer, or a kernel's local pointer, which then becomes generic \
with it.",
    why: "A helper whose pointer parameter became generic returns a pointer derived from it; the return type must be \
generic to carry it, and the caller's destination must be generic to receive it.",
    example: r#"// before
__global float *row_of(__global float *m, int w, int r) { return m + r * w; }

__kernel void clear_rows(__global float *m, int w)
{
__global float *row = row_of(m, w, get_global_id(0));
row[0] = 0.0f;
}

// after
float *row_of(float *m, int w, int r) { return m + r * w; }

__kernel void clear_rows(__global float *m, int w)
{
float *row = row_of(m, w, get_global_id(0));
row[0] = 0.0f;
}"#,
    refuses: "With the same reason codes as `generic-param`: the result stays named when a declaration receiving it must \
stay named (a kernel parameter, a pinned helper pointer) or the return type itself is pinned (`macro`, `hidden-qualifier`, ...).",
    safety: verified!("The return type, the parameters it comes from and the locals receiving it are one change set."),
};

pub(super) const ARRAY_PARAM_TO_POINTER: Doc = Doc {
    summary: "An array parameter that receives a generic pointer becomes a pointer parameter.",
    what: "Rewrites an array parameter as a pointer, keeping `const` and the element type and dropping the size: `const \
uchar d[64]` becomes `const uchar *d`, `float m[4][4]` becomes `float (*m)[4]`, and a parameter of an array typedef becomes a \
pointer to its element. An explicit `__private` goes too. The definition and every prototype change.",
    why: "clang types an array parameter as a pointer to `__private`, even under 2.0, while an unqualified pointer \
argument is generic there; so 1.2 code passing such a pointer to an array parameter stops compiling as 2.0 (\"changes address \
space of pointer\"). A parameter's array size never meant anything to the compiler, so nothing is lost.",
    example: r#"// before: `p` is unqualified, so generic under 2.0
uint fold(const uint w[8]) { return w[0] ^ w[7]; }

__kernel void mix(__global uint *out)
{
uint pad[8] = { 0 };
uint *p = pad;
out[0] = fold(p);
}

// after
uint fold(const uint *w) { return w[0] ^ w[7]; }"#,
    refuses: "It changes an array parameter only when a generic pointer reaches it, which is nearly always a repair; one \
that only ever receives private arrays stays as it is. Being required, a pin on the parameter (`macro`, `hidden-qualifier`, \
`builtin-pin`, ...) makes the file an error, marked `cannot repair <code>`, and leaves it unchanged; `skipped-if` and \
`skipped-caller` are overridden with a note.",
    safety: verified!(
        "A repair is also compared with the unit as it was read (1.2); when that build differs whatever clasp does (an \
unqualified pointer kept in memory is 4 bytes under 1.2 and 8 under 2.0), the repair is kept, marked unverified, with a warning, \
since the unit cannot compile as the target without it. A unit whose repairs fail verification keeps nothing \
(`unrepairable-unit`)."
    ),
};

pub(super) const MERGE_DUPLICATES: Doc = Doc {
    summary: "Helpers written once per address space become one generic helper.",
    what: "Finds helper definitions that are the same token for token except for the qualifiers the generic rewrite \
removes, their own names and calls to other such copies, keeps one of them (the survivor) as a generic helper, deletes the \
others with their prototypes and the comment lines right above them, and renames every call. The survivor takes the name the \
copies share (`row_sum_g`, `row_sum_l` -> `row_sum`) when no unit seeing them writes it, it is no keyword, builtin or C library \
function, and no other merge took it; else it keeps its own. An overload set keeps its name. `__constant` or pinned members stay \
as their own functions while the others merge.",
    why: "1.x has no generic pointers, so helpers were copied once per address space. In 2.0 one generic definition \
serves global, local and private memory, and the copies are only code to keep in step.",
    example: r#"// before
float row_sum_g(__global const float *r, int n)
{
float s = 0.0f;
for (int i = 0; i < n; ++i)
    s += r[i];
return s;
}

float row_sum_l(__local const float *r, int n)
{
float s = 0.0f;
for (int i = 0; i < n; ++i)
    s += r[i];
return s;
}
// ... row_sum_g(in, n) + row_sum_l(tile, n) ...

// after
float row_sum(const float *r, int n)
{
float s = 0.0f;
for (int i = 0; i < n; ++i)
    s += r[i];
return s;
}
// ... row_sum(in, n) + row_sum(tile, n) ..."#,
    refuses: "A group is not merged (`not merged <code>`) when a member's address is taken (`address-taken`); it is \
named in a macro body or called through a macro (`macro`); it is named in code `#if` skips (`skipped-if`); a build sees the \
copies differ or defines another function of a member's name (`configuration`); it is called from outside the edit root \
(`outside-root`); a unit calls a member it does not define (`declared-elsewhere`); fewer than two members can become generic \
(`pinned`); its members call a group that does not merge (`calls-unmerged`); no member can be kept (`no-survivor`); or \
verification withdrew the merge (its withdrawal code). Copies with the same qualifiers are not per-space duplicates and are left \
alone. `--no-merge` turns the rule off.",
    safety: verified!(
        "A merge is one change set with its members' generic rewrites and the merges it calls into, checked in every \
unit that defines or declares a member. When verification withdraws it, clasp plans again without that merge, so the members' \
own generic rewrites may still stand."
    ),
};

pub(super) const CONSTANT_TO_GLOBAL: Doc = Doc {
    summary: "A program-scope `__constant` table moves to `__global const`.",
    what: "Moves a program-scope `__constant` variable (or a `static` one in a function) to `__global const`, spelled as \
the file spells it (`constant` -> `global`; a qualifier macro -> the unit's own macro for global, else `__global`). The \
`__constant` pointers its address reaches move with it: a helper's becomes generic, keeping `const`, when nothing else pins it; \
a kernel's local becomes `__global const`. A table moves when a merge of duplicates needs it, when its program's `__constant` \
data is over `--constant-budget` (largest tables first, until the rest fits), or, with `--globals prefer-global`, whenever it \
can.",
    why: "2.0 allows program-scope `__global` data, while devices guarantee only 64 KiB of constant memory. A \
`__constant` pointer can never become generic, so the `__constant` copy of a duplicated helper can only merge once its tables \
are `__global`. The cost: reads go through the global cache instead of the constant cache.",
    example: r#"// before: 80 KiB of __constant data, over the 64 KiB budget
__constant float weights[20480] = { 0.5f };
float weight(__constant float *w, int i) { return w[i]; }

// after
__global const float weights[20480] = { 0.5f };
float weight(const float *w, int i) { return w[i]; }"#,
    refuses: "A table stays `__constant` (`refused <code>` on the table, when a move was wanted) with `address-escapes`, \
`shares-constant-pointer`, `macro`, `outside-root`, `shared-header` or `no-program-scope-globals`. Tables whose addresses reach \
a common pointer move together or not at all, and a table wanted by a merge that is not made does not move.",
    safety: verified!(
        "A table and its followers are one change set. The comparison includes the program-scope data (every definition \
with its initialiser), with amdgcn's constant space read as its global one: a moved table compares equal, a changed initialiser \
would not."
    ),
};

pub(super) const INFER_PROGRAM_SCOPE_SPACE: Doc = Doc {
    summary: "A program-scope variable written with no address space gets one.",
    what: "Names the space of a program-scope variable, or a `static` one in a function, written with none: `__constant` \
when it is initialised, only read (its address passed to nothing but `vload` builtins) and the program's `__constant` data stays \
within `--constant-budget`; else `__global` (it is written, not initialised, its address is passed on, the budget is exceeded, \
or `--globals prefer-global`). The keyword follows the file's spelling; a variable in a shared header is `__global` if any \
program including it needs it so.",
    why: "OpenCL C 1.2 rejects such a variable (\"program scope variable must reside in constant address space\"), \
though lenient vendor compilers accepted it; clasp reads the unit as 2.0, where it is `__global`. Naming the space says which \
one the program gets, and `__constant` keeps read-only data in the constant cache.",
    example: r#"// before: OpenCL C 1.2 rejects both
const float gain[4] = { 1.0f, 0.5f, 0.25f, 0.125f };
int histogram[256];

// after
__constant const float gain[4] = { 1.0f, 0.5f, 0.25f, 0.125f };
__global int histogram[256];"#,
    refuses: "It has no refusal code of its own: a variable that cannot be `__constant` gets `__global`, with why. \
Variables in files outside the edit root are left alone, and nothing is named under `--target cl3.0-nogeneric` (such a unit \
compiles neither as 1.2 nor as the target, and is an error).",
    safety: verified!(
        "Program-scope data is compared too: a variable never written and marked `__constant` on one side only compares \
equal, a changed initialiser does not."
    ),
};
