//! The documentation of every code, under fixed headings.

use super::Code;

/// A code's documentation: a one-line summary, then the fixed headings.
#[derive(Debug, Clone, Copy)]
pub struct Doc {
    pub summary: &'static str,
    /// What it does: what clasp changes (a rule) or keeps (a reason).
    pub what: &'static str,
    /// Why: the language or tool fact behind it.
    pub why: &'static str,
    /// Example: OpenCL C before and after (a rule), or code that gives the reason.
    pub example: &'static str,
    /// When it refuses: when the rule makes no change (a rule), or when the reason applies.
    pub refuses: &'static str,
    /// Fix safety: how the change is proven (a rule), or what the user can do (a reason).
    pub safety: &'static str,
}

/// How every rule's change is proven, said once: each rule adds what is its own.
macro_rules! verified {
    ($own:literal) => {
        concat!(
            "Every change set (the declarations linked by pointer flows, across the batch) is recompiled as the target, ",
            "and every kernel that runs a changed function is compiled for amdgcn before and after, put through one fixed ",
            "pass pipeline (every helper inlined, address spaces inferred) and compared canonically. A set whose result ",
            "does not compile is withdrawn (`verify-failed`), as is one whose kernels differ (`not-equivalent`); the rest ",
            "is kept. `--allow-unverified` keeps unproven sets marked unverified; `--no-verify` skips the checks. ",
            $own
        )
    };
}

pub(super) fn doc(code: Code) -> Doc {
    match code {
        Code::GenericParam => Doc {
            summary: "A helper's pointer parameter loses its named address space and becomes generic.",
            what: "Removes the `__global`, `__local` or `__private` qualifier of a helper's pointer parameter (written \
`__global` or `global`, before or after `const`, or through a macro whose definition is exactly a qualifier), in its definition \
and every prototype. `const` and the pointee type stay. A `__constant` parameter that follows a table moved to `__global` loses \
its qualifier too and keeps its data read-only with `const`.",
            why:
                "In OpenCL C 2.0 a pointer to `__global`, `__local` or `__private` converts implicitly to a generic pointer, so \
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
        },
        Code::GenericLocal => Doc {
            summary: "A local pointer variable loses its named address space and becomes generic.",
            what: "Removes the named qualifier of a helper's local pointer variable, like a parameter's, unless something its \
value flows into must stay named. In a kernel, a local pointer changes only when a generic value reaches it, such as a helper's \
generic result.",
            why:
                "In 2.0 a generic value cannot be assigned to a pointer into a named space without an explicit cast, so a local \
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
        },
        Code::GenericReturn => Doc {
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
            refuses:
                "With the same reason codes as `generic-param`: the result stays named when a declaration receiving it must \
stay named (a kernel parameter, a pinned helper pointer) or the return type itself is pinned (`macro`, `hidden-qualifier`, ...).",
            safety: verified!("The return type, the parameters it comes from and the locals receiving it are one change set."),
        },
        Code::ArrayParamToPointer => Doc {
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
            refuses:
                "It changes an array parameter only when a generic pointer reaches it, which is nearly always a repair; one \
that only ever receives private arrays stays as it is. Being required, a pin on the parameter (`macro`, `hidden-qualifier`, \
`builtin-pin`, ...) makes the file an error, marked `cannot repair <code>`, and leaves it unchanged; `skipped-if` and \
`skipped-caller` are overridden with a note.",
            safety: verified!(
                "A repair is also compared with the unit as it was read (1.2); when that build differs whatever clasp does (an \
unqualified pointer kept in memory is 4 bytes under 1.2 and 8 under 2.0), the repair is kept, marked unverified, with a warning, \
since the unit cannot compile as the target without it. A unit whose repairs fail verification keeps nothing \
(`unrepairable-unit`)."
            ),
        },
        Code::MergeDuplicates => Doc {
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
        },
        Code::ConstantToGlobal => Doc {
            summary: "A program-scope `__constant` table moves to `__global const`.",
            what:
                "Moves a program-scope `__constant` variable (or a `static` one in a function) to `__global const`, spelled as \
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
            refuses:
                "A table stays `__constant` (`refused <code>` on the table, when a move was wanted) with `address-escapes`, \
`shares-constant-pointer`, `macro`, `outside-root`, `shared-header` or `no-program-scope-globals`. Tables whose addresses reach \
a common pointer move together or not at all, and a table wanted by a merge that is not made does not move.",
            safety: verified!(
                "A table and its followers are one change set. The comparison includes the program-scope data (every definition \
with its initialiser), with amdgcn's constant space read as its global one: a moved table compares equal, a changed initialiser \
would not."
            ),
        },
        Code::InferProgramScopeSpace => Doc {
            summary: "A program-scope variable written with no address space gets one.",
            what:
                "Names the space of a program-scope variable, or a `static` one in a function, written with none: `__constant` \
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
        },

        Code::KernelParam => Doc {
            summary: "A kernel parameter keeps its named space.",
            what: "A kernel's pointer parameters keep `__global`, `__local` or `__constant`; kernels are left unchanged, not \
refused. The code appears where a change would need one generic: a helper pointer whose value flows into a kernel called like a \
function is refused as `flows-to-pinned` (\"it is a kernel parameter\"), and a required change reaching one is an error for the \
file (`cannot repair kernel-param`).",
            why: "Kernel pointer parameters must name `__global`, `__local` or `__constant` in every OpenCL C version: the host \
decides what they point to.",
            example: r#"__kernel void scale(__global float *v, float k) { v[get_global_id(0)] *= k; }

void scale_all(__global float *v, float k)
{
    scale(v, k);   // flows into kernel parameter `v` of `scale`: stays __global
}"#,
            refuses: "For every pointer parameter of a kernel: a function the compiler gives the kernel calling convention, \
including kernels stamped out by a macro.",
            safety:
                "Nothing to do in the kernel. If a helper calls a kernel as a function, move the kernel's body into a helper \
that both call; that helper's parameters can become generic.",
        },
        Code::BuiltinPin => Doc {
            summary: "A pointer passed to a builtin with no generic overload keeps its named space.",
            what: "A helper's pointer keeps its space when it, or a pointer derived from it, is passed to a 1.x atomic \
(`atomic_*`, `atom_*`), `async_work_group_copy`, `async_work_group_strided_copy` or `prefetch`. The declarations whose values \
flow into it stay too (`flows-to-pinned`).",
            why: "Under OpenCL C 2.0 these builtins are declared for `__global` and `__local` pointers only (`prefetch` for \
`__global`), so a generic pointer finds no matching overload. clasp reads the calls from their mangled names in the IR.",
            example: r#"void count(__global int *c)
{
    atomic_inc(c);   // no generic overload: `c` stays __global
}"#,
            refuses: "When a flow from the declaration reaches a call of `atomic_` or `atom_` followed by add, sub, xchg, inc, \
dec, cmpxchg, min, max, and, or or xor, of either async copy, or of `prefetch`. `vload`/`vstore`, the math builtins with pointer \
out-parameters and C11-style atomics accept generic pointers and do not pin.",
            safety: "Keep the per-space helper, or move to the C11-style atomics of 2.0 (`atomic_fetch_add_explicit` on \
`atomic_int *`), which take generic pointers. Copies of a helper that are all pinned are not merged (`pinned`).",
        },
        Code::ConstantSpace => Doc {
            summary: "A `__constant` pointer keeps its space: `__constant` is not part of the generic address space.",
            what: "A helper's `__constant` pointer stays `__constant`. When every `__constant` value it receives is a \
program-scope table that moves to `__global` (`constant-to-global`), it follows the tables instead and may become generic.",
            why: "`__constant` is outside the 2.0 generic address space: a `__constant` pointer does not convert to a generic \
one (clang: \"changes address space of pointer\").",
            example: r#"__constant float taps[3] = { 0.25f, 0.5f, 0.25f };

float tap(__constant float *t, int i) { return t[i]; }   // stays __constant"#,
            refuses: "Whenever the declaration's first level is `__constant` and it does not follow a table that moves.",
            safety: "Let the tables it receives move to `__global`: with `--globals prefer-global`, when the program is over \
`--constant-budget`, or when the helper is the `__constant` copy of a duplicate group that can then merge. A pointer that \
receives a string literal or a kernel's `__constant` parameter cannot follow.",
        },
        Code::FlowsToPinned => Doc {
            summary: "A pointer whose value flows into a declaration that must stay named keeps its space.",
            what: "A helper's pointer keeps its space because a declaration downstream of it (a callee's parameter, a local, a \
returned pointer, through any number of calls) must stay named; the message names that declaration and its own reason.",
            why: "In 2.0 a named pointer converts implicitly to generic, never back: were this declaration generic, the one \
downstream would receive a generic pointer it cannot accept.",
            example: r#"void add_one(__global int *c) { atomic_inc(c); }            // builtin-pin
void add_two(__global int *c) { add_one(c); add_one(c); }  // flows-to-pinned"#,
            refuses:
                "When the declaration has no pin of its own and some declaration its value reaches is pinned (by any reason \
code, or as a kernel parameter).",
            safety: "Remove the reason of the declaration named in the message; this one then follows it.",
        },
        Code::SizeofPointer => Doc {
            summary: "A pointer whose own size is taken (`sizeof(p)`) keeps its named space.",
            what: "A helper's pointer keeps its space when `sizeof` is applied to the pointer itself, not to what it points to.",
            why: "Pointers into different address spaces may differ in size (never assume `sizeof(__local int *) == sizeof(int \
*)`), so a generic pointer could change the value the code computes.",
            example: r#"void put_size(__local int *p, __global int *out)
{
    out[0] = sizeof(p);   // the pointer's own size: `p` stays __local
}"#,
            refuses: "When the source takes `sizeof` of the declaration by name.",
            safety: "If the size of the data was meant, write `sizeof(*p)` or the type; the pointer can then become generic.",
        },
        Code::PointerToInteger => Doc {
            summary: "A pointer converted to an integer keeps its named space.",
            what: "A helper's pointer keeps its space when its value, or a pointer derived from it, is converted to an integer \
(an alignment test, an address used as a key).",
            why: "The integer value of an address depends on its address space: a generic pointer's bits and width may differ \
from a `__local` or `__private` one's, so the computed value could change.",
            example: r#"int aligned16(__global const float *p)
{
    return ((ulong)p & 15) == 0;   // `p` stays __global
}"#,
            refuses: "When the IR shows a flow from the declaration to a pointer-to-integer conversion.",
            safety:
                "Keep an index or an offset instead of the address where you can; otherwise the helper keeps its named space.",
        },
        Code::EscapesToMemory => Doc {
            summary: "A pointer stored into memory that is not a declared variable keeps its named space.",
            what: "A helper's pointer keeps its space when its value is stored into memory other than a declared pointer \
variable: a struct field, an array element, a location reached through another pointer.",
            why: "clasp follows pointer values through declared variables, not through memory; and the type of the field or \
element receiving it is fixed by a declaration elsewhere, which a generic value would not fit.",
            example: r#"typedef struct { __global float *data; int n; } view_t;

void bind(view_t *v, __global float *p, int n)
{
    v->data = p;   // stored into a struct field: `p` stays __global
    v->n = n;
}"#,
            refuses: "When the IR shows the pointer's value stored to memory other than a declared variable's own slot.",
            safety: "Pass the pointer itself to the helpers that use it instead of storing it in a struct or an array.",
        },
        Code::PointerToPointer => Doc {
            summary: "The inner levels of a pointer to pointer keep their named spaces.",
            what: "In a helper's `__global float **pp`, the inner `__global` stays; the declaration is refused for it when its \
first level gets no change.",
            why: "clasp rewrites only the first level of a declaration. An inner level is the type of a pointer object in \
memory, shared with the declarations that read and write it, and its size may change when generic.",
            example: r#"float next(__global const float **cursor)
{
    float v = **cursor;   // the inner __global stays
    *cursor += 1;
    return v;
}"#,
            refuses: "For a helper's pointer declaration with an inner level spelled `__global`, `__local` or `__private`, when \
its first level stays as it is.",
            safety:
                "Pass the inner pointer, and return the advanced one, instead of a pointer to it if the helper should become \
generic.",
        },
        Code::UndefinedCallee => Doc {
            summary: "A pointer passed to a function declared but not defined in the unit keeps its named space.",
            what:
                "A helper's pointer keeps its space when it is passed to a function the unit declares but does not define: its \
body is in another program linked in, or elsewhere.",
            why:
                "clasp decides from a callee's body what its parameter needs; with no body it cannot tell whether the parameter \
accepts a generic pointer, and it cannot change that definition.",
            example: r#"float total(__global const float *v, int n);   // defined in another program

float twice(__global const float *v, int n)
{
    return 2.0f * total(v, n);   // `v` stays __global
}"#,
            refuses: "When a flow from the declaration reaches a call of a user function with no definition in the unit.",
            safety: "Make the definition part of the unit, for example in a header it includes; its parameter is then analysed \
like any other.",
        },
        Code::Macro => Doc {
            summary: "Produced by a macro, called through one, or not spelled at the declaration.",
            what: "clasp never edits a macro definition or text a macro expands to, so what depends on one stays. A declaration \
(`refused macro`): the pointer declaration, or its whole function, comes from a macro expansion. A duplicate group (`not merged \
macro`): a member is called through a macro or named in a macro body, so renaming it would edit the macro. A program-scope table \
(`refused macro`, program scope): its qualifier is not written at its declaration, or a `__constant` pointer its address reaches \
is declared by a macro.",
            why: "A macro's text is shared by every place that expands it, with other arguments elsewhere; an edit there could \
change code clasp did not analyse. A qualifier written as a macro use at the declaration (`GMEM float *p`, with `#define GMEM \
__global`) is fine: the use is removed.",
            example: r#"#define DEFINE_SCALE(S) \
    void scale_##S(S float *p, float k) { p[0] *= k; }
DEFINE_SCALE(__global)        // declared inside a macro expansion: `p` stays

#define SUM(p, n) sum_g(p, n)  // names `sum_g`: its duplicate group is not merged"#,
            refuses: "Declaration: it or its function lies inside a macro expansion. Group: a call of a member is produced by a \
macro, or a macro body names a member. Table: the table's qualifier is not written at its declaration, or a `__constant` pointer \
its address reaches lies inside a macro expansion or has no written qualifier.",
            safety: "Write out by hand what should migrate (the function instead of the macro that stamps it, a direct call \
instead of the macro), or leave it as it is.",
        },
        Code::HiddenQualifier => Doc {
            summary: "The qualifier comes from a typedef or a macro that is more than a qualifier.",
            what: "A helper's pointer keeps its space when its qualifier is not written at the declaration as a keyword or a \
qualifier macro: it comes from a typedef (`typedef __global float *gptr;`), from a macro that expands to more than a qualifier \
(`#define GPTR __global float *`), or from a parenthesised declarator.",
            why: "Removing it would mean editing the typedef or the macro, which every other use shares. A macro whose \
definition is exactly a qualifier (`#define GMEM __global`) is not hidden: its use is removed. A macro naming no space at all \
(`#define SRC const`) is just part of the type.",
            example: r#"typedef __global float *gfloat_ptr;

float first(gfloat_ptr p) { return p[0]; }   // the space is in the typedef: it stays"#,
            refuses:
                "When the declaration's first level names a space that is spelled nowhere editable at the declaration. On a \
required change it is an error for the file (`cannot repair hidden-qualifier`).",
            safety: "Write the type out at the declaration (`__global float *p`), or use a macro that is exactly a qualifier, \
and run clasp again.",
        },
        Code::SkippedIf => Doc {
            summary: "Used in code `#if` skips in every unit of the batch.",
            what: "A declaration (`refused skipped-if`): a helper's pointer keeps its space when code of its own function that \
`#if` skips uses it other than to reach what it points to (`p[i]` and `p->f` are fine; passing, assigning, casting or `&p[i]` \
are not). A duplicate group (`not merged skipped-if`): a member's name appears in code `#if` skips, where renaming cannot follow \
it.",
            why: "clasp analyses what the compiler compiles; skipped code is only tokens, so what it does with the pointer or \
the function is unknown, and a change could break the build that compiles it.",
            example: r#"void load(__global const uchar *src, uchar *dst, int n)
{
#ifdef FAST_PATH
    fast_copy(src, dst, n);   // a use clasp cannot see: `src` stays __global
#else
    for (int i = 0; i < n; ++i)
        dst[i] = src[i];
#endif
}"#,
            refuses: "Only for code no unit of the batch compiles: code one configuration skips and another compiles, or a \
header one program includes with other macros, is analysed by the unit that compiles it. For a declaration, a required change \
overrides it, with a note naming the skipped code; a group is never merged over it.",
            safety: "Declare the builds your host makes (`[[configuration]]` entries in `clasp.toml`, or `--compile-commands`) \
so a unit compiles that code, or delete the dead branch.",
        },
        Code::SkippedCaller => Doc {
            summary: "Named in code `#if` skips that could pass it a `__constant` pointer.",
            what: "A helper's pointers keep their spaces when code `#if` skips names the function and could pass it a \
`__constant` pointer: the skipped code spells `__constant` (directly or through a macro) or names a `__constant` variable or \
pointer of the unit.",
            why: "A generic parameter accepts every pointer but a `__constant` one; an unseen caller passing one would stop the \
build that compiles it. Skipped code that cannot pass one (another build's definition, calls with other pointers) does not \
refuse.",
            example: r#"#if USE_TABLE
float pick(__constant float *t, int i) { return t[i]; }
#else
float pick(__global const float *t, int i) { return t[i]; }   // `t` stays __global
#endif"#,
            refuses: "When a range of the unit that every unit including its file skips contains the function's name and could \
pass a `__constant` pointer as above. A required change overrides it, with a note naming the skipped code.",
            safety:
                "Declare the build that compiles that code (`[[configuration]]` in `clasp.toml`, or `--compile-commands`) so \
clasp analyses it instead of guessing, or remove the dead branch.",
        },
        Code::CastToNamed => Doc {
            summary: "A pointer cast explicitly to a pointer into a named space keeps its own space.",
            what: "A helper's pointer keeps its space when its value is cast explicitly to a pointer type that names a space, \
such as `(__global uint *)p`.",
            why: "In 1.x that cast only changes the pointee type. Were `p` generic, it would be a generic-to-named cast, which \
2.0 accepts for any argument: a caller's `__local` or `__private` pointer would silently become a `__global` one.",
            example: r#"uint first_word(__global const uchar *bytes)
{
    return *(__global const uint *)bytes;   // `bytes` stays __global
}"#,
            refuses: "When the source casts the declaration's value to a pointer into `__global`, `__local`, `__private` or \
`__constant`.",
            safety: "1.x cannot express the cast without the space. Once the code is 2.0 you may cast to an unqualified pointer \
type (`(const uint *)bytes`, generic) and make the parameter generic by hand.",
        },
        Code::NoEvidence => Doc {
            summary: "The function is not in the IR, so there is no evidence about its pointers.",
            what: "A function's pointers keep their spaces when the compiler emitted no code for it, so the IR cannot say what \
they receive or reach.",
            why: "clasp decides from the compiler's IR. It asks clang to emit every definition (`-femit-all-decls \
-fgnu89-inline`, which covers unused `static` and C99 `inline` ones), so this is rare.",
            example: r#"// Under the GNU inline rules, an `extern inline` definition only serves inlining:
// unused, it is never emitted.
extern inline float first(__global const float *p) { return p[0]; }   // stays __global"#,
            refuses: "When the unit's IR has no definition of the function.",
            safety: "Delete the function if it is dead, or make it an ordinary definition (or call it), so it is compiled and \
clasp has evidence.",
        },
        Code::TargetWithoutGeneric => Doc {
            summary: "The target has no generic address space.",
            what:
                "Under `--target cl3.0-nogeneric` every helper pointer keeps its space: no generic rewrite and no merge applies.",
            why: "OpenCL C 3.0 makes the generic address space optional (`__opencl_c_generic_address_space`); without it, 3.0 \
follows the 1.2 rules and unqualified pointers are private.",
            example: r#"// clasp migrate --target cl3.0-nogeneric kernels/
float first(__global const float *p) { return p[0]; }   // stays __global"#,
            refuses: "For every helper pointer without an earlier reason, when the target is `cl3.0-nogeneric`.",
            safety: "Choose the target your devices build: `--target cl2.0` (the default), or `cl3.0` for devices with the \
generic feature (`CL_DEVICE_OPENCL_C_FEATURES` says).",
        },
        Code::OutsideRoot => Doc {
            summary: "In a file outside the edit root.",
            what:
                "Nothing outside the edit root is edited. A declaration (`refused outside-root`): a pointer declared in a file \
outside the root (a system or SDK header, another tree) keeps its space, and the declarations flowing into it stay as \
`flows-to-pinned`. A duplicate group (`not merged outside-root`): a member is called from a file outside the root. A \
program-scope table (`refused outside-root`, program scope, when a move was wanted): one declared outside the root stays \
`__constant`. A change set (withdrawn): a change whose function has a prototype outside the root is withdrawn, since the \
prototype could not change with it.",
            why: "The edit root bounds what clasp may write: `--root DIR`, else `root` in `clasp.toml`, else the git work tree \
enclosing the paths, else their deepest common directory.",
            example: r#"// kernels/blur.cl, with the edit root kernels/
#include "../common/fetch.h"   // float fetch(__global const float *p): outside the root, stays"#,
            refuses: "When the declaration, the table, the call of a duplicate, or an edit of the change set is in a file that \
is not under the edit root.",
            safety: "If clasp may edit that file, widen the root to cover it (`--root DIR`, or `root` in `clasp.toml`); \
otherwise it stays as it is by design.",
        },
        Code::HeaderConflict => Doc {
            summary: "Another program including the same header keeps the declaration named.",
            what: "A declaration in a file several programs include keeps its space in all of them when one program keeps it \
named; the message names that program and its reason. Units sharing a header are inferred again until they agree.",
            why: "A header's text is the same for every program including it, so clasp changes it only when the change is right \
for each of them.",
            example: r#"// util.h, included by a.cl and b.cl
void bump(__global int *c) { BUMP(c); }
// a.cl: #define BUMP(c) c[0] += 1
// b.cl: #define BUMP(c) atomic_inc(c)   -> builtin-pin in b.cl, so `c` stays in a.cl too"#,
            refuses: "When units that are different programs (not configurations of one file) disagree on a declaration of a \
file they share. When the unit keeping it named is a configuration, the code is `configuration`.",
            safety: "Remove the reason given for the other program, or accept that the declaration stays named there and here.",
        },
        Code::Configuration => Doc {
            summary: "Another configuration of the same file (or of a shared header) disagrees.",
            what:
                "A declaration (`refused configuration`): the same file, or a header it shares, built in another configuration \
(`[[configuration]]` in `clasp.toml`, or a file listed more than once in `--compile-commands`) keeps the pointer named; the \
message names the configuration and its reason. A duplicate group (`not merged configuration`): a unit sees the copies differ in \
more than address spaces (other macros, other `#if` branches), or defines another function of a member's name, which its calls \
reach.",
            why: "A file changes once for every build the host makes of it, so a change must be right in each; clasp intersects \
the configurations' decisions.",
            example: r#"// clasp.toml builds this file with -DUSE_ATOMICS=0 ("plain") and -DUSE_ATOMICS=1 ("atomics")
void add_to(__global int *dst, int v)
{
#if USE_ATOMICS
    atomic_add(dst, v);   // builtin-pin in "atomics": `dst` stays in "plain" too
#else
    *dst += v;
#endif
}"#,
            refuses: "Declaration: the units building the file disagree and the one keeping it named is a configuration. Group: \
a unit seeing the group does not find its members alike, or defines a function of a member's name outside the group.",
            safety: "Remove the reason given for the named configuration, or accept that the declaration stays; a configuration \
your host does not build can be dropped from `clasp.toml`.",
        },
        Code::VolatilePointee => Doc {
            summary: "A pointer to `volatile` data keeps its named space.",
            what: "A helper's pointer to `volatile` data keeps its space; it is refused before anything is built.",
            why: "LLVM's InferAddressSpaces does not rewrite volatile loads and stores through a generic pointer, so they stay \
flat accesses and the kernels would compile differently; verification would withdraw the change every time.",
            example: r#"void signal_done(volatile __local int *flag)
{
    *flag = 1;   // a volatile store: `flag` stays __local
}"#,
            refuses: "When the pointee of the declaration's first level is `volatile` and no earlier reason applies (a 1.x \
atomic gives `builtin-pin`).",
            safety: "Drop `volatile` only where the code does not rely on it; otherwise the helper keeps its named space.",
        },

        Code::AddressTaken => Doc {
            summary: "A member of a duplicate group has its address taken.",
            what:
                "A duplicate group is not merged when a member's name is used other than in a call (its address taken), in any \
unit that sees the group.",
            why: "A merge deletes all copies but one and renames their calls; a function's address used as a value cannot be \
renamed safely.",
            example: r#"#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
float first_g(__global const float *p) { return p[0]; }
float first_l(__local const float *p) { return p[0]; }

__kernel void k(__global const float *in, __global ulong *tag)
{
    tag[0] = (ulong)&first_g;   // not a call: the group is not merged
}"#,
            refuses: "When a unit seeing the group refers to a member without calling it.",
            safety: "Call the helpers directly instead of using their addresses; the group then merges.",
        },
        Code::Pinned => Doc {
            summary: "Fewer than two members of a duplicate group can become generic.",
            what: "A duplicate group is not merged when, once the members that must stay as their own functions are set aside, \
fewer than two remain. A member stays when one of its named pointers cannot become generic in some unit (a `__constant` pointer \
whose data cannot move, a builtin pin or another refusal) or when it would lose `const` in the merge. The message lists each \
kept member and why.",
            why:
                "A merge keeps one generic definition for members whose pointers all become generic; with one such member there \
is nothing to merge.",
            example: r#"void count_g(__global int *c) { atomic_inc(c); }   // builtin-pin
void count_l(__local int *c)  { atomic_inc(c); }   // builtin-pin: not merged"#,
            refuses: "When fewer than two members can merge and no kept member is kept for calling a group that does not merge \
(that is `calls-unmerged`).",
            safety: "Remove the reasons the message gives (the C11-style atomics of 2.0 take generic pointers; a `__constant` \
member's tables can move, see `constant-to-global`), or keep the copies.",
        },
        Code::CallsUnmerged => Doc {
            summary: "A member calls a duplicate whose own group does not merge.",
            what: "A member of a duplicate group that calls into another group of duplicates which does not merge stays as its \
own function; when fewer than two members are left, the whole group is not merged with this code.",
            why: "Copies are alike only with their calls compared by the callee's group. If that group stays split, the copies \
call different functions after all, and one survivor could not call both.",
            example: r#"float get_g(__global const float *p) { return p[0]; }
float get_l(__local const float *p) { return p[0]; }
#define GET(p) get_g(p)   // `get_g`/`get_l` not merged (macro)

float twice_g(__global const float *p) { return get_g(p) * 2.0f; }
float twice_l(__local const float *p) { return get_l(p) * 2.0f; }   // not merged: calls-unmerged"#,
            refuses: "When members are kept because a duplicate they call does not merge, and fewer than two members remain.",
            safety: "Remove the reason the called group does not merge (see its own `not merged` line); the groups then merge \
together, in one change set.",
        },
        Code::NoSurvivor => Doc {
            summary: "No member is defined before every use in every unit seeing the group.",
            what: "A duplicate group is not merged when no member can be the one kept: none is defined in every unit that sees \
the group and declared there before the first function that uses a member.",
            why: "The survivor replaces every other copy, so every program using one must have its definition, declared before \
its first use.",
            example: r#"// a.cl
float scale_g(__global const float *p, float k) { return p[0] * k; }
float use_g(__global const float *p) { return scale_g(p, 2.0f); }
#include "common.h"   // defines scale_l, after use_g's call
// b.cl
#include "common.h"   // sees scale_l only"#,
            refuses: "When every member that could merge fails those conditions in some unit that sees the group.",
            safety: "Put the copies in a header that every program using them includes before the code that calls them; one of \
them can then be kept.",
        },
        Code::DeclaredElsewhere => Doc {
            summary: "A unit calls a member of a duplicate group it only declares.",
            what: "A duplicate group is not merged when a unit that defines no member calls one: its program links another \
unit's definition. Units that only declare members (a shared header's prototypes) without using them are edited in step instead.",
            why: "The call is resolved when the host links programs, which clasp does not check; renaming it would tie two \
programs together unseen.",
            example: r#"// ops.cl defines total_g and total_l; user.cl only declares one and calls it:
float total_l(__local const float *v, int n);

__kernel void sum_tile(__global float *out, __local float *tile, int n)
{
    out[0] = total_l(tile, n);
}"#,
            refuses: "When a unit that defines no member (nor another function of a member's name) refers to one.",
            safety: "Build the helpers into each program that calls them (a header with their definitions) instead of linking \
them from another program, or keep the copies.",
        },
        Code::AddressEscapes => Doc {
            summary: "A table's address escapes where clasp cannot follow it.",
            what: "A program-scope `__constant` table stays `__constant`, when a move was wanted, because its address, or a \
pointer it reaches, is stored in memory, made an integer, passed to a function the unit does not define, or reaches a \
declaration clasp cannot edit.",
            why: "Moving a table changes the type of every pointer holding its address; clasp moves those pointers with it, so \
it must see them all.",
            example: r#"__constant int primes[8] = { 2, 3, 5, 7, 11, 13, 17, 19 };
typedef struct { __constant int *table; } lut_t;

__kernel void k(__global int *out)
{
    lut_t l;
    l.table = primes;   // its address is stored in memory: `primes` stays
    out[0] = l.table[get_global_id(0) & 7];
}"#,
            refuses: "When a move is wanted (a merge needs it, the program is over `--constant-budget`, or `--globals \
prefer-global`) and a flow of the table's address, or of a pointer it reaches, ends in memory, an integer, an undefined function \
or an uneditable declaration.",
            safety: "Index the table directly, or hand its address only to helpers defined in the program through declared \
pointers; it can then move with them.",
        },
        Code::SharesConstantPointer => Doc {
            summary: "A pointer the table reaches also receives other `__constant` data.",
            what: "A program-scope `__constant` table stays `__constant`, when a move was wanted, because a pointer its address \
reaches also receives `__constant` data that does not move with it: a kernel's `__constant` parameter, a string literal, a table \
that cannot move.",
            why: "That pointer would have to be `__global` for the moved table and `__constant` for the other data at once. \
Tables reaching a common pointer move together; data that cannot move keeps them all `__constant`.",
            example: r#"__constant float ramp[4] = { 0.0f, 0.33f, 0.67f, 1.0f };
float at(__constant float *t, int i) { return t[i]; }

__kernel void k(__constant float *user, __global float *out)
{
    out[0] = at(ramp, 1) + at(user, 2);   // `t` also receives a kernel's __constant parameter
}"#,
            refuses: "When a move is wanted and a declaration the table's address reaches receives a `__constant` value from \
outside the tables moving with it.",
            safety: "Give the other data its own pointer (another helper or parameter); the table can then move with its own \
followers.",
        },
        Code::SharedHeader => Doc {
            summary: "A table in a shared header cannot move in another program including it.",
            what:
                "A `__constant` table in a file several programs include stays `__constant` in all of them when it cannot move \
in one: it moves in every program including it, each with its own followers, or in none. The message names the program where it \
cannot move.",
            why: "The header's text is the same for every program: the table cannot be `__global` in one and `__constant` in \
another.",
            example: r#"// tables.h, included by a.cl and b.cl
__constant uint sbox[256] = { 0x63 };
// a.cl is over the budget and would move sbox; b.cl stores its address in a struct"#,
            refuses: "When a table in a shared file is chosen to move in one unit and cannot move in another (for any of the \
other table reasons there).",
            safety: "Remove the reason in the program the message names; the table then moves everywhere.",
        },
        Code::NoProgramScopeGlobals => Doc {
            summary: "The target has no program-scope `__global` variables.",
            what: "Under `--target cl3.0-nogeneric` no table moves: each table of a program over `--constant-budget`, or every \
table with `--globals prefer-global`, is reported with this code, and a program over the budget gets a warning.",
            why: "Without `__opencl_c_program_scope_global_variables`, OpenCL C 3.0 allows program-scope variables only in \
`__constant`, as 1.2 does.",
            example: r#"// clasp migrate --target cl3.0-nogeneric --globals prefer-global kernels/
__constant float lut[256] = { 0.0f };   // stays __constant"#,
            refuses: "When the target is `cl3.0-nogeneric` and a move would be wanted (the program is over the budget, or \
`--globals prefer-global`).",
            safety: "Choose a target with program-scope globals (`--target cl2.0`, or `cl3.0` for devices with the feature), or \
shrink the tables; if your devices have more constant memory, `--constant-budget` can say so.",
        },
        Code::VerifyFailed => Doc {
            summary: "The result does not compile as the target.",
            what: "A change set is withdrawn because the unit with it applied does not compile as the target; its functions are \
reported `refused` with this code, a warning gives clang's message, and every other change stands. A merge withdrawn so is \
reported `not merged verify-failed`, and clasp plans again without it.",
            why: "Every change is recompiled as the target (the migrated files laid over the originals) before it is shown; a \
result that does not compile is never offered.",
            example: r#"// The safety net behind the inference. Were `c` made generic (clasp refuses it as
// builtin-pin), 2.0 would find no atomic_inc for it: the recompile fails, the set is withdrawn.
void count(__global int *c) { atomic_inc(c); }"#,
            refuses: "When the recompile of a unit with the set fails, found by bisection among the unit's sets (a set that \
fails alone is withdrawn in every unit touching it).",
            safety: "Nothing is written for the set. The warning names its functions and clang's error: change the code by hand \
if you need it migrated, and report the case, since clasp's inference should have refused it.",
        },
        Code::NotEquivalent => Doc {
            summary: "The result's kernels could not be proven equivalent to the original's.",
            what: "A change set is withdrawn because a kernel that runs one of its functions compares different after the \
equivalence pipeline, or cannot be compared at all. Its functions are reported `refused` with this code, and a warning shows the \
first differing lines. A merge withdrawn so is reported `not merged not-equivalent`, and clasp plans again without it.",
            why: "Original and result are compiled for amdgcn, every helper inlined and address spaces inferred, and compared \
canonically. That can only prove, never disprove, so anything that does not come out identical is withdrawn.",
            example: r#"// Were `p` made generic (clasp refuses it as sizeof-pointer), the kernel would store
// another size at amdgcn (`store i32 4, ...` becoming `store i32 8, ...`): the set is withdrawn.
void put_size(__local int *p, __global int *out) { out[0] = sizeof(p); }"#,
            refuses: "When the canonical kernels differ, or the original does not compile for the equivalence triple (there is \
nothing to compare with), found by bisection among the unit's sets.",
            safety: "Read the warning's differing lines. `--allow-unverified` keeps such changes, marked unverified, with a \
warning, when you have checked them yourself.",
        },
        Code::UnrepairableUnit => Doc {
            summary: "A unit's required changes cannot all be made or verified.",
            what:
                "A unit that needs repairs to compile as the target keeps nothing when they cannot all be made: it is an error \
for that file (exit 2), none of its change sets stand, and the units sharing them are checked again. The functions those sets \
would have changed report this code.",
            why: "A unit's required changes are all-or-nothing: without every one of them the unit does not compile as the \
target, so keeping only some would help nothing.",
            example: r#"// `p` is private in 1.2 and generic in 2.0, so `d` must become generic;
// but the declaration comes from a macro clasp never edits.
#define TAKE(T) uint take(const T d[4]) { return d[0]; }
TAKE(uint)
uint use(uint *p) { return take(p); }"#,
            refuses: "When a required change cannot be made (`cannot repair <code>`), when the required changes fail \
verification, when one of them is withdrawn by another unit, or when the unit does not compile as the target even with every \
repair clasp found.",
            safety: "Fix the declarations the error lists (write the code out of the macro, spell the qualifier at the \
declaration, ...), or migrate that file by hand; the rest of the batch is unaffected.",
        },
        Code::OverlappingEdits => Doc {
            summary: "Two change sets edit overlapping bytes.",
            what: "A change set is withdrawn when its edits overlap another set's in the same file, or when a file it edits \
cannot be read. The rest is kept.",
            why: "Edits are byte ranges into the original text; two that overlap have no one meaning, so neither is guessed.",
            example: r#"// Not expected from ordinary code: identical edits from units sharing a header count once,
// and edits inside a deleted duplicate go with it. If it happens, the warning names the
// withdrawn set's functions and the byte where the edits meet."#,
            refuses: "When applying a unit's change sets finds overlapping or invalid edits, or an unreadable file.",
            safety: "Check that the file named is readable; otherwise report the warning, since overlapping edits point at a \
clasp bug. The other change sets are unaffected.",
        },
    }
}
