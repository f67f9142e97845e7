//! The documentation of the reasons a declaration keeps its named space.

use super::Doc;

pub const KERNEL_PARAM: Doc = Doc {
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
    safety: "Nothing to do in the kernel. If a helper calls a kernel as a function, move the kernel's body into a helper \
that both call; that helper's parameters can become generic.",
};

pub const BUILTIN_PIN: Doc = Doc {
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
};

pub const CONSTANT_SPACE: Doc = Doc {
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
};

pub const FLOWS_TO_PINNED: Doc = Doc {
    summary: "A pointer whose value flows into a declaration that must stay named keeps its space.",
    what: "A helper's pointer keeps its space because a declaration downstream of it (a callee's parameter, a local, a \
returned pointer, through any number of calls) must stay named; the message names that declaration and its own reason.",
    why: "In 2.0 a named pointer converts implicitly to generic, never back: were this declaration generic, the one \
downstream would receive a generic pointer it cannot accept.",
    example: r#"void add_one(__global int *c) { atomic_inc(c); }            // builtin-pin
void add_two(__global int *c) { add_one(c); add_one(c); }  // flows-to-pinned"#,
    refuses: "When the declaration has no pin of its own and some declaration its value reaches is pinned (by any reason \
code, or as a kernel parameter).",
    safety: "Remove the reason of the declaration named in the message; this one then follows it.",
};

pub const SIZEOF_POINTER: Doc = Doc {
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
};

pub const POINTER_TO_INTEGER: Doc = Doc {
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
    safety: "Keep an index or an offset instead of the address where you can; otherwise the helper keeps its named space.",
};

pub const ESCAPES_TO_MEMORY: Doc = Doc {
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
    refuses: "When the IR shows the pointer's value stored to memory other than a declared variable's own slot, \
unless the unit compiled unchanged as the target stores a generic pointer there: a field declared per version \
(`__global const T *` under `#if __OPENCL_C_VERSION__ < 200`, `const T *` otherwise) is read as the target's build \
declares it.",
    safety: "Pass the pointer itself to the helpers that use it instead of storing it in a struct or an array.",
};

pub const POINTER_TO_POINTER: Doc = Doc {
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
    safety: "Pass the inner pointer, and return the advanced one, instead of a pointer to it if the helper should become \
generic.",
};

pub const UNDEFINED_CALLEE: Doc = Doc {
    summary: "A pointer passed to a function declared but not defined in the unit keeps its named space.",
    what: "A helper's pointer keeps its space when it is passed to a function the unit declares but does not define: its \
body is in another program linked in, or elsewhere.",
    why: "clasp decides from a callee's body what its parameter needs; with no body it cannot tell whether the parameter \
accepts a generic pointer, and it cannot change that definition.",
    example: r#"float total(__global const float *v, int n);   // defined in another program

float twice(__global const float *v, int n)
{
    return 2.0f * total(v, n);   // `v` stays __global
}"#,
    refuses: "When a flow from the declaration reaches a call of a user function with no definition in the unit.",
    safety: "Make the definition part of the unit, for example in a header it includes; its parameter is then analysed \
like any other.",
};

pub const MACRO: Doc = Doc {
    summary: "Produced by a macro, called through one, or not spelled at the declaration.",
    what: "Something depends on a macro clasp cannot edit safely, so it stays. A declaration (`refused macro`): the \
pointer declaration, or its whole function, comes from a macro expansion and its qualifier is not written in the macro's \
argument or body; or the qualifier is an argument of a macro use (`DEFINE_SUM(sum_l, const __local)`) that cannot change, \
because another expansion of that macro puts the token elsewhere (the message names that expansion). A duplicate group (`not \
merged macro`): a member is called through a macro or named in a macro body, so renaming it would edit the macro. A \
program-scope table (`refused macro`, program scope): its qualifier is not written at its declaration, or a `__constant` \
pointer its address reaches is declared by a macro.",
    why: "A macro's text is shared by every place that expands it, with other arguments elsewhere; an edit there could \
change code clasp did not analyse. So clasp edits a qualifier inside a macro (its definition or a use's argument) only when \
every expansion, in every unit and configuration it builds, puts it on the first level of a pointer declaration that becomes \
generic; a use elsewhere (a kernel parameter, a variable, a cast, a deeper pointer level, code `#if` skips) or a macro with `#`, \
`##` or `__VA_ARGS__` keeps the token. A qualifier written as a macro use at the declaration (`GMEM float *p`, with `#define \
GMEM __global`) is fine: the use is removed.",
    example: r#"#define DEFINE_SCALE(S) \
void scale_##S(S float *p, float k) { p[0] *= k; }
DEFINE_SCALE(__global)        // declared inside a macro expansion: `p` stays

#define SUM(p, n) sum_g(p, n)  // names `sum_g`: its duplicate group is not merged"#,
    refuses: "Declaration: it or its function lies inside a macro expansion that does not write its qualifier, or its \
qualifier is a macro argument some expansion uses otherwise. Group: a call of a member is produced by a macro, or a macro body \
names a member. Table: the table's qualifier is not written at its declaration, or a `__constant` pointer \
its address reaches lies inside a macro expansion or has no written qualifier.",
    safety: "Write out by hand what should migrate (the function instead of the macro that stamps it, a direct call \
instead of the macro), or leave it as it is.",
};

pub const HIDDEN_QUALIFIER: Doc = Doc {
    summary: "The qualifier comes from a typedef or a macro that is more than a qualifier.",
    what: "A helper's pointer keeps its space when its qualifier is written where clasp cannot edit it for this \
declaration alone: in a typedef (`typedef __global float *gptr;`), in the body of a macro (`#define ROWS(T) __global const T \
*`) that some expansion uses otherwise (a kernel parameter, a variable, a cast, a deeper pointer level, code `#if` skips; the \
message names that expansion) or that clasp cannot read through, or in a parenthesised declarator.",
    why: "Removing it would mean editing the typedef or the macro, which every other use shares. A macro body is edited \
only when every expansion, in every unit and configuration, agrees (`clasp rule generic-param`). A macro whose definition is \
exactly a qualifier (`#define GMEM __global`) is not hidden: its use is removed. A macro naming no space at all (`#define SRC \
const`, `#define vec_t float4`) is not a qualifier, just part of the type.",
    example: r#"typedef __global float *gfloat_ptr;

float first(gfloat_ptr p) { return p[0]; }   // the space is in the typedef: it stays"#,
    refuses: "When the declaration's first level names a space that is spelled nowhere editable at the declaration. On a \
required change it is an error for the file (`cannot repair hidden-qualifier`).",
    safety: "Write the type out at the declaration (`__global float *p`), or use a macro that is exactly a qualifier, \
and run clasp again.",
};

pub const SKIPPED_IF: Doc = Doc {
    summary: "Used in code `#if` skips in every unit of the batch.",
    what: "A declaration (`refused skipped-if`): a helper's pointer keeps its space when code of its own function that \
`#if` skips uses it other than to reach what it points to (`p[i]` and `p->f` are fine; passing, assigning, casting or `&p[i]` \
are not). A duplicate group (`not merged skipped-if`): a member's name appears in code `#if` skips, where renaming cannot follow \
it: in a unit that includes the member, or in any unit of the batch (its skipped code may include the header too).",
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
overrides it, with a note naming the skipped code; a group is never merged over it. Before refusing, clasp builds the \
unit in up to `--discover-configurations` (4) more configurations, each with one `-D`/`-U` derived from the condition of \
the directive opening the skipped code (`-DFAST_PATH=1` here), and analyses and verifies it like any configuration; the \
refusal stays where no such configuration compiles that code (`--explain` lists each one tried), or where the unit needed \
more (its detail says the bound was hit).",
    safety: "Declare the builds your host makes (`[[configuration]]` entries in `clasp.toml`, or `--compile-commands`) \
so a unit compiles that code, or delete the dead branch.",
};

pub const SKIPPED_CALLER: Doc = Doc {
    summary: "Named in code `#if` skips that could pass it a `__constant` pointer.",
    what: "A helper's pointers keep their spaces when code `#if` skips names the function and could pass it a \
`__constant` pointer: the skipped code spells `__constant` (directly or through a macro) or names a `__constant` program-scope \
variable or a `__constant` pointer of the function around it (a name is resolved to the declaration in scope there, as the \
compiler would, so another function's `__constant` parameter of the same name does not count). Also when the skipped code \
names the function and clasp derived a configuration to build it (`--discover-configurations`) that fails with an \
address-space error: a change here could make that code compile, and a second run see other code.",
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
    safety: "Declare the build that compiles that code (`[[configuration]]` in `clasp.toml`, or `--compile-commands`) so \
clasp analyses it instead of guessing, or remove the dead branch.",
};

pub const CAST_TO_NAMED: Doc = Doc {
    summary: "A pointer cast to a named space that would not only retype it keeps its own space.",
    what: "A helper's pointer keeps its space when its value, or a pointer derived from it (arithmetic, an element's \
address, a step, another cast), is cast explicitly to a pointer into another named space, into `__constant`, or \
through a type whose qualifier cannot be edited where the cast is (a typedef, a macro around the cast).",
    why: "In 1.x such a cast only changes the pointee type. A cast into the pointer's own space loses its qualifier \
with the declaration (`(__global uint *)(p + 1)` becomes `(uint *)(p + 1)`). One left naming a space would be a \
generic-to-named cast, which 2.0 accepts for any argument: a caller's `__local` or `__private` pointer would \
silently become a `__global` one.",
    example: r#"typedef __global const uint *words_t;
uint first_word(__global const uchar *bytes)
{
    return *(words_t)bytes;   // `bytes` stays __global: the typedef spells the space
}"#,
    refuses: "When the source casts the declaration's value, or a pointer derived from it, to a pointer into another \
space than the declaration's, into `__constant`, or through a typedef, a macro body or a parenthesised declarator.",
    safety: "Once the code is 2.0 you may write the cast with an unqualified pointer type (`(const uint *)bytes`, \
generic) and make the parameter generic by hand.",
};

pub const NO_EVIDENCE: Doc = Doc {
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
};

pub const TARGET_WITHOUT_GENERIC: Doc = Doc {
    summary: "The target has no generic address space.",
    what: "Under `--target cl3.0-nogeneric` every helper pointer keeps its space: no generic rewrite and no merge applies.",
    why: "OpenCL C 3.0 makes the generic address space optional (`__opencl_c_generic_address_space`); without it, 3.0 \
follows the 1.2 rules and unqualified pointers are private.",
    example: r#"// clasp migrate --target cl3.0-nogeneric kernels/
float first(__global const float *p) { return p[0]; }   // stays __global"#,
    refuses: "For every helper pointer without an earlier reason, when the target is `cl3.0-nogeneric`.",
    safety: "Choose the target your devices build: `--target cl2.0` (the default), or `cl3.0` for devices with the \
generic feature (`CL_DEVICE_OPENCL_C_FEATURES` says).",
};

pub const OUTSIDE_ROOT: Doc = Doc {
    summary: "In a file outside the edit root.",
    what: "Nothing outside the edit root is edited. A declaration (`refused outside-root`): a pointer declared in a file \
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
};

pub const HEADER_CONFLICT: Doc = Doc {
    summary: "Another program including the same header keeps the declaration named.",
    what: "A declaration in a file several programs include keeps its space in all of them when one program keeps it \
named (or, likewise, in programs sharing the same program source); the message names that program and its reason. Units sharing a header are inferred again until they agree.",
    why: "A header's text is the same for every program including it, so clasp changes it only when the change is right \
for each of them.",
    example: r#"// util.h, included by a.cl and b.cl
void bump(__global int *c) { BUMP(c); }
// a.cl: #define BUMP(c) c[0] += 1
// b.cl: #define BUMP(c) atomic_inc(c)   -> builtin-pin in b.cl, so `c` stays in a.cl too"#,
    refuses: "When units that are different programs (not configurations of one file) disagree on a declaration of a \
file they share. When the unit keeping it named is a configuration, the code is `configuration`.",
    safety: "Remove the reason given for the other program, or accept that the declaration stays named there and here.",
};

pub const CONFIGURATION: Doc = Doc {
    summary: "Another configuration of the same file (or of a shared header) disagrees.",
    what: "A declaration (`refused configuration`): the same file, or a header it shares, built in another configuration \
(`[[configuration]]` in `clasp.toml`, a file listed more than once in `--compile-commands`, a build call of the host with other \
options, or a configuration clasp discovered for code `#if` skips, `discovered -DFAST=1`) keeps the pointer named; the \
message names the configuration and its reason. (A file that fails to compile in one configuration only, an `#error` there, \
changes in none: `failed-unit`.) A duplicate group (`not merged configuration`): a unit sees the copies differ in \
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
};

pub const VOLATILE_POINTEE: Doc = Doc {
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
};

pub const SUPPRESSED: Doc = Doc {
    summary: "A declaration the user keeps as it is: a `// clasp: keep` comment, or a rule not selected.",
    what: "A `// clasp: keep` comment alone on the line just before a declaration keeps that declaration's named \
space; on the line just before a function, every pointer declaration of the function (its parameters, locals and return \
type), so it is not merged with its duplicates either. `// clasp: keep(generic-param)` (several codes separated by commas) keeps \
it from those rules only. `--select CODES` and `--ignore CODES` (or `select = [...]` and `ignore = [...]` in clasp.toml) do the same \
for every declaration: a rule that is ignored, or not selected, changes nothing. `generic-param`, `generic-local`, \
`generic-return`, `array-param-to-pointer` and `merge-duplicates` can be chosen; the program-scope and host rules follow the \
changes they serve. The command line's `--select` replaces clasp.toml's; ignored rules add up. Declarations whose values flow \
into a kept one keep their space too (`flows-to-pinned`). What is kept is refused with this code in every report: \
`--explain` (`k.cl:13:34: refused suppressed: `v` of `sum_l`: kept by `// clasp: keep` (line 12)`), the summary, \
`--statistics`, JSON and SARIF.",
    why: "Some helpers must keep their named space for reasons clasp cannot see: an ABI shared with code built \
elsewhere, a vendor compiler's performance on named pointers, or a change planned for later.",
    example: r#"// clasp: keep
float sum_l(__local const float *v, int n)   // stays as it is
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += v[i];
    return s;
}"#,
    refuses: "When the comment (`// clasp: keep`, or `// clasp: keep(CODES)` naming the rule that would change the \
declaration) is the whole of the line just before the declaration's or its function's name, or when the rule is not selected. \
A code clasp does not know inside the parentheses keeps the declaration from every rule, so a typing error never changes code \
meant to be kept.",
    safety: "Remove the comment, or select the rule, to let clasp change the declaration. A kept declaration that \
must change for the unit to compile as the target is an error (`cannot repair suppressed`), as for any pin.",
};
