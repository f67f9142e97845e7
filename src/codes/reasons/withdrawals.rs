//! The documentation of the reasons verification withdraws a planned change
//! set: its functions are reported `refused` with the code.

use super::Doc;

pub const VERIFY_FAILED: Doc = Doc {
    summary: "The result does not compile as the target.",
    what: "A change set is withdrawn because the unit with it applied does not compile as the target; its functions are \
reported `refused` with this code, a warning gives clang's message, and every other change stands. A merge withdrawn so is \
reported `not merged verify-failed`, and clasp plans again without it.",
    why: "Every change is recompiled as the target (the migrated files laid over the originals) before it is shown; a \
result that does not compile is never offered.",
    example: r#"// The safety net behind the inference. Were `c` made generic (clasp refuses it as
// builtin-pin), 2.0 would find no atomic_inc for it: the recompile fails, the set is withdrawn.
void count(__global int *c) { atomic_inc(c); }"#,
    refuses: "When the recompile of a unit with the set fails (the migrated files laid over the originals through a clang \
VFS overlay, compiled as the target). Each unit is checked with all its sets; when it fails, the sets responsible are found by \
bisection (a half that passes is kept, a failing half is split again, a single failing set is withdrawn) and the rest is kept. \
A withdrawn set is withdrawn in every unit that touches it (a shared header), and those units are checked again, to a \
fixpoint.",
    safety: "Nothing is written for the set. The warning names its functions and clang's error: change the code by hand \
if you need it migrated, and report the case, since clasp's inference should have refused it.",
};

pub const NOT_EQUIVALENT: Doc = Doc {
    summary: "The result's kernels could not be proven equivalent to the original's.",
    what: "A change set is withdrawn because a kernel that runs one of its functions compares different after the \
equivalence pipeline, or cannot be compared at all. Its functions are reported `refused` with this code, and a warning names the set's \
functions and shows the first differing lines (`store i32 4, ...` became `store i32 8, ...`). A merge withdrawn so is reported `not merged not-equivalent`, and clasp plans again without it.",
    why: "Original and result are compiled for amdgcn, every helper inlined and address spaces inferred, and compared \
canonically (values renamed by position, metadata dropped, program-scope data compared too). The comparison is \
syntactic, so it can only prove, never disprove: anything that does not come out identical is withdrawn. LLVM's \
InferAddressSpaces does not look through `ptrtoint`, so a helper that subtracts or orders its pointers is not proven \
equivalent once generic, and its change is withdrawn with this code.",
    example: r#"// Were `p` made generic (clasp refuses it as sizeof-pointer), the kernel would store
// another size at amdgcn (`store i32 4, ...` becoming `store i32 8, ...`): the set is withdrawn.
void put_size(__local int *p, __global int *out) { out[0] = sizeof(p); }"#,
    refuses: "When the canonical kernels differ, found by bisection among the unit's sets like `verify-failed` (when \
kernels compared different, the sets whose functions reach none of those kernels are tried together first, and only the others \
are bisected; where functions were proven on their own, the sets whose functions were all proven are tried together first, \
then each set changing a function whose own proof failed is checked alone). Also when the original does \
not compile for the equivalence triple (`amdgcn-amd-amdhsa`): the result is then recompiled for spir64 instead, and there is \
nothing to compare with.",
    safety: "Read the warning's differing lines. `--allow-unverified` keeps such changes, marked unverified, with a \
warning, when you have checked them yourself.",
};

pub const PROOF_TOO_LARGE: Doc = Doc {
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

pub const UNREPAIRABLE_UNIT: Doc = Doc {
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
repair clasp found (a generic pointer reaching a private parameter through memory, which clasp does not follow: the error \
names clang's message). Nothing of the unit is written; the batch goes on.",
    safety: "Fix the declarations the error lists (write the code out of the macro, spell the qualifier at the \
declaration, ...), or migrate that file by hand; the rest of the batch is unaffected.",
};

pub const OVERLAPPING_EDITS: Doc = Doc {
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

pub const FAILED_UNIT: Doc = Doc {
    summary: "A unit that reads the file has errors.",
    what: "A change set is withdrawn when it would edit a file a unit with errors stands on: that unit's own file (an \
`#error` in one of its configurations is enough), or any header it includes, directly or through another (a `[[program]]` with errors: each of its sources). An edit of a program's or an embedded kernel's text counts as an edit of the files holding it. Where clasp \
cannot tell what the unit reads (an `#include` it names is not found, it ran past `--timeout`, or it crashed clang), every \
file is held back but the main files of the units that loaded. Its functions are reported `withdrawn failed-unit`, the detail \
names the unit, and the unit's own error is on stderr (exit 2).",
    why: "clasp never saw what the failing unit calls: a merge renaming a helper it calls, or any change no check of it \
covered, could leave it broken once its own error is fixed.",
    example: r#"// k/b.cl includes common.h and misses a semicolon; common.h's sum_g and sum_l would merge
// into one generic sum, renaming their calls in the units that load. b.cl calls sum_g too:
// the merge waits until b.cl compiles.
__kernel void b(__global const float *in, __global float *out) { out[0] = sum_g(in, 4) }"#,
    refuses: "When an edit of the set is in a file a unit with errors reads, or in any file but the loaded units' own \
when a unit failed before clasp could see what it reads.",
    safety: "Fix the unit's error, or leave its file out of the batch (`exclude` in `clasp.toml`, or narrower PATHs), \
and run again.",
};
