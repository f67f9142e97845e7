//! The documentation of the reasons a duplicate group is not merged or a
//! program-scope table stays `__constant`.

use super::Doc;

pub const ADDRESS_TAKEN: Doc = Doc {
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

pub const PINNED: Doc = Doc {
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

pub const CALLS_UNMERGED: Doc = Doc {
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

pub const NO_SURVIVOR: Doc = Doc {
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

pub const DECLARED_ELSEWHERE: Doc = Doc {
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

pub const ADDRESS_ESCAPES: Doc = Doc {
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

pub const SHARES_CONSTANT_POINTER: Doc = Doc {
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

pub const SHARED_HEADER: Doc = Doc {
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

pub const NO_PROGRAM_SCOPE_GLOBALS: Doc = Doc {
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
