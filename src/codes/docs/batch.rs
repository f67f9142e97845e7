//! The documentation of the reasons a duplicate group is not merged, a table stays `__constant`, or a change set is withdrawn.

use super::Doc;

pub(super) const ADDRESS_TAKEN: Doc = Doc {
    summary: "A member of a duplicate group has its address taken.",
    what: "A duplicate group is not merged when a member's name is used other than in a call (its address taken), in any \
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
};

pub(super) const PINNED: Doc = Doc {
    summary: "Fewer than two members of a duplicate group can become generic.",
    what: "A duplicate group is not merged when, once the members that must stay as their own functions are set aside, \
fewer than two remain. A member stays when one of its named pointers cannot become generic in some unit (a `__constant` pointer \
whose data cannot move, a builtin pin or another refusal) or when it would lose `const` in the merge. The message lists each \
kept member and why.",
    why: "A merge keeps one generic definition for members whose pointers all become generic; with one such member there \
is nothing to merge.",
    example: r#"void count_g(__global int *c) { atomic_inc(c); }   // builtin-pin
void count_l(__local int *c)  { atomic_inc(c); }   // builtin-pin: not merged"#,
    refuses: "When fewer than two members can merge and no kept member is kept for calling a group that does not merge \
(that is `calls-unmerged`).",
    safety: "Remove the reasons the message gives (the C11-style atomics of 2.0 take generic pointers; a `__constant` \
member's tables can move, see `constant-to-global`), or keep the copies.",
};

pub(super) const CALLS_UNMERGED: Doc = Doc {
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
};

pub(super) const NO_SURVIVOR: Doc = Doc {
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
};

pub(super) const DECLARED_ELSEWHERE: Doc = Doc {
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
};

pub(super) const ADDRESS_ESCAPES: Doc = Doc {
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
};

pub(super) const SHARES_CONSTANT_POINTER: Doc = Doc {
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
};

pub(super) const SHARED_HEADER: Doc = Doc {
    summary: "A table in a shared header cannot move in another program including it.",
    what: "A `__constant` table in a file several programs include stays `__constant` in all of them when it cannot move \
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
};

pub(super) const NO_PROGRAM_SCOPE_GLOBALS: Doc = Doc {
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
};

pub(super) const VERIFY_FAILED: Doc = Doc {
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
};

pub(super) const NOT_EQUIVALENT: Doc = Doc {
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
};

pub(super) const PROOF_TOO_LARGE: Doc = Doc {
    summary: "Proving the change would optimise a kernel over `--proof-limit`.",
    what: "A change set is withdrawn, its functions reported `refused` with this code, when proving it equivalent would \
run the equivalence pipeline on a kernel of more than `--proof-limit` instructions (default 500,000) with its changed helpers \
inlined: the size is estimated before the pipeline runs (each call counts its callee's inlined size again), and the check is \
refused instead. Found by bisection among the unit's sets like `not-equivalent`, so the other sets stand.",
    why: "Changed helpers are proven function by function where they can be, each once, and called opaquely by the \
kernels, which then cost their own size. Where that proves nothing (a helper whose proof fails, a kernel that still differs) \
the fallback inlines the helpers into the whole kernel; for a megakernel calling thousands of helpers that is millions of \
instructions, minutes and gigabytes, and the unit would time out with nothing written. A bound that refuses one change set \
keeps the rest of the program.",
    example: r#"// A kernel calling a helper tree thousands of calls wide, where one changed helper's
// proof fails (it subtracts pointers): the set holding it is withdrawn as proof-too-large
// (with the default limit), the sets proven function by function are kept.
__kernel void render(__global float *g) { /* ... thousands of helper calls ... */ }"#,
    refuses: "When the largest kernel the check would optimise (either side) is over the limit: at the first comparison, \
with changed functions proven on their own called opaquely, or at the fallback comparisons with helpers inlined after a \
difference. A function's own proof over the limit is not made (it is inlined instead).",
    safety: "Raise `--proof-limit` (or 0: no limit) when you can give verification the time and memory, or split the \
kernel; the warning names the kernel and its estimated size.",
};

pub(super) const UNREPAIRABLE_UNIT: Doc = Doc {
    summary: "A unit's required changes cannot all be made or verified.",
    what: "A unit that needs repairs to compile as the target keeps nothing when they cannot all be made: it is an error \
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
};

pub(super) const OVERLAPPING_EDITS: Doc = Doc {
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
};
