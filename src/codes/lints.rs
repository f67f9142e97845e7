//! The documentation of every lint code, one constant per code: notes
//! about a kept, verified result that change nothing and keep nothing (the
//! code table names each constant in the lint's row).

use super::Doc;

pub const RESIDUAL_GENERIC: Doc = Doc {
    summary: "A migrated kernel still reads or writes memory through generic pointers after address spaces are inferred.",
    what: "Reports, per kernel of each unit whose changes are kept, how many of its memory accesses (loads, stores, atomics, \
`llvm.mem*` copies and builtin calls given a pointer) still go through generic (flat) pointers in the migrated code, when that \
is more than the original had, and why where the IR says: an out-of-line helper, or a pointer chosen by a `select` or a `phi`, \
loaded from memory or returned by a call. `--explain` prints a line at the kernel's definition, a warning names the kernel, \
`--format json` lists it under `residual_generic` (`unit`, `path`, `kernel`, `accesses`, `original`, `detail`), and \
`clasp run-check` links a slower kernel to it. The change stands: it was proven equivalent.",
    why: "Each generic access costs more than a named one on GPUs: NVIDIA's generic `ld`/`st` resolve the space at run \
time, AMD's flat instructions wait on both the vector-memory and the LDS counters, Intel's IGC branches on the pointer's tag \
bits. A compiler removes them only where it can see which space a pointer holds: after inlining, LLVM's InferAddressSpaces \
does. Counted in the IR clasp's verification already made (amdgcn, every helper inlined, address spaces inferred), each \
kernel compared with the original compiled as the target. A compiler keeps a helper marked `__attribute__((noinline))` out of \
line, where its generic parameters stay generic: when the result has one with a generic pointer parameter, both sides are \
optimised once more from the same bitcode with such helpers left out of line, and their accesses count in every kernel that \
calls them.",
    example: r#"// Twins merged into one generic `sum`; kept out of line, its loads are flat
// whatever each call passes: `total` gets residual-generic (2 loads in `sum`).
__attribute__((noinline)) float sum_g(__global const float *v, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}
__attribute__((noinline)) float sum_l(__local const float *v, int n) { /* the same */ }
__kernel void total(__global const float *in, __global float *out, __local float *tile, int n) {
    out[0] = sum_g(in, n) + sum_l(tile, n);
}"#,
    refuses: "When a kernel of a unit whose changes are kept and verified has more generic accesses after the pipeline \
than the original compiled as the target (builtins called through their 2.0 generic overloads count on both sides). Not for \
changes withdrawn or kept unverified without a comparison, nor with `--no-verify`. Without `noinline`, every helper is \
inlined and inferred, so a kernel is reported only for a pointer whose space depends on data (a `select` or `phi` between \
spaces) or that goes through memory.",
    safety: "Nothing is required: the result computes what the original did. If the kernel is hot (`clasp run-check` shows \
it slower), keep the helper's named spaces with `// clasp: keep` before its name (the twins then stay twins), drop its \
`noinline` so each call is inlined and inferred, or restructure the call so one pointer holds one space (call the helper in \
each branch rather than passing a pointer chosen between spaces). Run clasp again to see the count.",
};
