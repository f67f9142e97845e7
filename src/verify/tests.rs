//! The equivalence check's tests: OpenCL C sources compiled with clang-19,
//! compared as `migrate` compares them.

use super::*;
use crate::settings::options::{CompileOptions, Target};

/// Compiles `original` as OpenCL C 1.2 and `migrated` (laid over it
/// through the overlay, as `migrate` does) as 2.0, and compares their
/// kernels. Needs clang-19: fails, never skips, without it.
fn check_equivalent(original: &str, migrated: &str) -> Equivalence {
    check_equivalent_read_as(None, original, migrated)
}

/// `check_equivalent` with the original read with `original_std` (the default standard without).
fn check_equivalent_read_as(original_std: Option<&[String]>, original: &str, migrated: &str) -> Equivalence {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unit.cl");
    std::fs::write(&path, original).unwrap();
    let options = CompileOptions::default();
    let original_args = options.clang_args_for(original_std, EQUIVALENCE_TRIPLE);
    let target_args = options.clang_args_for(Some(&Target::Cl20.std_flags()), EQUIVALENCE_TRIPLE);
    let replaced = BTreeMap::from([(path.clone(), migrated.as_bytes().to_vec())]);
    // The result must compile as 2.0 on its own, or the test proves nothing.
    compiles(&path, &options.clang_args(Some(&Target::Cl20.std_flags())), &replaced)
        .expect("the migrated source compiles as CL2.0 (clang-19 must be installed: scripts/setup)");
    let context = Context::create();
    equivalence(&context, &path, &original_args, &target_args, &replaced)
        .expect("both versions compile for amdgcn (clang-19 must be installed: scripts/setup)")
}

/// `source` with each `(from, to)` replaced once (the edits `migrate` would make).
fn edited(source: &str, edits: &[(&str, &str)]) -> String {
    edits.iter().fold(source.to_string(), |text, (from, to)| {
        assert!(text.contains(from), "`{from}` not in the source");
        text.replacen(from, to, 1)
    })
}

/// Every kernel, and the program-scope data, compared equal.
fn assert_equal(found: &Equivalence, kernels: usize) {
    assert!(found.different.is_empty(), "{:#?}", found.different);
    assert_eq!(found.equal.len(), kernels + 1, "{found:?}");
    assert!(found.equal.iter().any(|k| k == PROGRAM_SCOPE_DATA), "{found:?}");
}

#[test]
fn a_table_moved_from_constant_to_global_is_equivalent() {
    let original = "__constant float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n\
        float lookup(__constant float *t, int i) { return t[i]; }\n\
        __kernel void k(__global float *out) { int i = get_global_id(0); out[i] = lookup(table, i & 3); }\n";
    let migrated = edited(
        original,
        &[("__constant float table", "__global const float table"), ("lookup(__constant float *t", "lookup(const float *t")],
    );
    assert_equal(&check_equivalent(original, &migrated), 1);
}

#[test]
fn kernel_scope_local_structs_compare_by_layout_not_by_numbered_name() {
    // A struct type used before the kernel's __local variable gets a numbered name in one
    // compilation only when another module of the context already has the name.
    let original = "typedef struct { float a; int b; } pair_t;\n\
        float first(__local pair_t *p) { return p->a; }\n\
        __kernel void k(__global float *out) {\n\
          __local pair_t shared[4]; int l = get_local_id(0);\n\
          shared[l & 3].a = out[l]; barrier(CLK_LOCAL_MEM_FENCE); out[l] = first(&shared[(l + 1) & 3]);\n\
        }\n";
    let migrated = edited(original, &[("first(__local pair_t *p)", "first(pair_t *p)")]);
    assert_equal(&check_equivalent(original, &migrated), 1);
}

#[test]
fn a_variable_no_kernel_writes_given_constant_is_equivalent_where_its_loads_fold() {
    // Read as 2.0, an unqualified program-scope variable is __global; given __constant (the
    // space clasp infers for data only read), its loads at constant indices fold to the
    // initialiser. No host API writes a program-scope variable, so both are read-only data.
    let original = "int offsets[2] = {1, 2};\n__kernel void k(__global int *out) { out[0] = offsets[0] * 3 + offsets[1]; }\n";
    let migrated = edited(original, &[("int offsets[2]", "__constant int offsets[2]")]);
    let as_20 = Target::Cl20.std_flags();
    assert_equal(&check_equivalent_read_as(Some(&as_20), original, &migrated), 1);
    // The same move with another initialiser is caught, folded or not.
    let changed = edited(original, &[("int offsets[2] = {1, 2}", "__constant int offsets[2] = {1, 3}")]);
    let found = check_equivalent_read_as(Some(&as_20), original, &changed);
    assert!(!found.different.is_empty(), "{found:?}");
}

#[test]
fn a_moved_table_with_another_initialiser_is_caught() {
    let original = "__constant float table[2] = {1.0f, 2.0f};\n\
        __kernel void k(__global float *out, int i) { out[0] = table[i & 1]; }\n";
    let migrated =
        edited(original, &[("__constant float table[2] = {1.0f, 2.0f}", "__global const float table[2] = {1.0f, 5.0f}")]);
    let found = check_equivalent(original, &migrated);
    assert!(found.different.iter().any(|d| d.kernel == PROGRAM_SCOPE_DATA), "{found:?}");
}

fn assert_different(found: &Equivalence) -> KernelDifference {
    assert!(!found.different.is_empty(), "a behaviour change compared equal: {found:?}");
    found.different[0].clone()
}

/// Helpers with struct parameters; the private array of structs keeps
/// its type through O2 (indexed at run time), and the second module
/// loaded into the shared context names it `%struct.Params.0`.
const STRUCT_HELPER: &str = "typedef struct { float scale; int offset; } Params;\n\
    float apply(__global const Params *p, __global const float *v, int i) { return v[i + p->offset] * p->scale; }\n\
    float pick(__private const Params *table, int i) { return table[i & 3].scale * (float)table[(i >> 2) & 3].offset; }\n\
    __kernel void k(__global const Params *ps, __global const float *in, __global float *out) {\n\
      int i = get_global_id(0);\n\
      Params table[4];\n\
      for (int j = 0; j < 4; ++j) table[j] = ps[(i + j) % 5];\n\
      out[i] = apply(&ps[i % 7], in, i) + pick(table, in[i] > 0.0f ? i : i + 1);\n\
    }\n";

#[test]
fn helper_with_a_struct_parameter_is_equivalent() {
    let migrated = edited(
        STRUCT_HELPER,
        &[
            ("apply(__global const Params *p, __global const float *v", "apply(const Params *p, const float *v"),
            ("pick(__private const Params *table", "pick(const Params *table"),
        ],
    );
    let found = check_equivalent(STRUCT_HELPER, &migrated);
    assert_equal(&found, 1);
}

#[test]
fn helper_called_twice_is_equivalent() {
    // Big enough, and called twice, that O2's own inliner may keep the generic version out of line.
    let original = "float mix(__global const float *v, int i, int n) {\n\
          float s = 0.0f;\n\
          for (int j = 0; j < n; ++j) s += sqrt(v[i + j]) * (float)j + exp(v[i - j]);\n\
          return s / (float)n + v[i];\n\
        }\n\
        __kernel void k(__global const float *a, __global const float *b, __global float *out, int n) {\n\
          int i = get_global_id(0);\n\
          out[i] = mix(a, i, n) + mix(b, i + 1, n);\n\
        }\n";
    let migrated = edited(original, &[("mix(__global const float *v", "mix(const float *v")]);
    assert_equal(&check_equivalent(original, &migrated), 1);
}

#[test]
fn local_helper_indexed_by_a_truncated_local_id_is_equivalent() {
    // fixtures/migrate/unprefixed.cl: O2 alone scheduled the index arithmetic differently.
    let original = std::fs::read_to_string("fixtures/migrate/unprefixed.cl").unwrap();
    let migrated = edited(&original, &[("global const float *v", "const float *v"), ("local float *dst", "float *dst")]);
    assert_equal(&check_equivalent(&original, &migrated), 1);
}

#[test]
fn private_array_passed_to_a_generic_helper_is_equivalent() {
    // The private array reaches the helper, and a library builtin's generic overload through it.
    let original = "float sum(__private const float *v, int n) {\n\
          float s = 0.0f;\n\
          for (int j = 0; j < n; ++j) s += v[j];\n\
          return s + dot(vload4(0, v), (float4)(1.0f));\n\
        }\n\
        float first(__global const float *g) { return vload4(0, g).x; }\n\
        __kernel void k(__global const float *in, __global float *out) {\n\
          float acc[8];\n\
          int i = get_global_id(0);\n\
          for (int j = 0; j < 8; ++j) acc[j] = in[i * 8 + j];\n\
          out[i] = sum(acc, 8) + first(in + i);\n\
        }\n";
    let migrated = edited(
        original,
        &[("sum(__private const float *v", "sum(const float *v"), ("first(__global const float *g", "first(const float *g")],
    );
    assert_equal(&check_equivalent(original, &migrated), 1);
}

#[test]
fn private_variable_reaching_a_builtin_through_a_generic_helper_is_equivalent() {
    // The 2.0 `fract` overload is the generic one: the private address is cast to flat for it.
    let original = "float split(float x, __private float *whole) { return fract(x, whole); }\n\
        __kernel void k(__global const float *in, __global float *out) {\n\
          int i = get_global_id(0);\n\
          float w;\n\
          float f = split(in[i], &w);\n\
          out[i] = f + w;\n\
        }\n";
    let migrated = edited(original, &[("__private float *whole", "float *whole")]);
    assert_equal(&check_equivalent(original, &migrated), 1);
}

#[test]
fn an_offset_generic_pointer_handed_to_a_builtin_is_equivalent() {
    // `&src[-stride]` of a helper made generic is an offset taken on the flat pointer, the
    // original's on the `__local` one; both hand `vload8` the same address. Read as 2.0 too,
    // where the original also reaches the generic overload through a cast.
    let original = "int edge(const __local uchar *src, int stride, __private uchar *pred) {\n\
          uchar8 above = vload8(0, &src[-stride]);\n\
          vstore8(above, 0, pred);\n\
          return above.s0 + pred[7] + src[stride + 1];\n\
        }\n\
        __kernel void k(__global const uchar *in, __global int *out, int stride) {\n\
          __local uchar tile[256]; __private uchar pred[8];\n\
          int l = get_local_id(0);\n\
          tile[l] = in[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n\
          out[get_global_id(0)] = edge(&tile[64 + (l & 63)], stride, pred);\n\
        }\n";
    let migrated =
        edited(original, &[("const __local uchar *src", "const uchar *src"), ("__private uchar *pred)", "uchar *pred)")]);
    assert_equal(&check_equivalent(original, &migrated), 1);
    let as_20 = Target::Cl20.std_flags();
    assert_equal(&check_equivalent_read_as(Some(&as_20), original, &migrated), 1);
    // The same rewrite reading one byte further is another address.
    let shifted = edited(&migrated, &[("&src[-stride]", "&src[1 - stride]")]);
    assert_different(&check_equivalent(original, &shifted));
}

#[test]
fn offsets_into_a_kernels_own_local_array_handed_to_builtins_are_equivalent() {
    // The kernel's `__local` array is a constant, so is its cast to flat, and so is an offset
    // into it at a constant index: the offsets are constant expressions, not instructions.
    let original = "float4 at(const __local float *p, int k) { return vload4(0, p + k); }\n\
        float8 back(const __local float *p) { return vload8(0, &p[-8]); }\n\
        void put(__local float *p, float4 v) { vstore4(v, 1, p + 4); }\n\
        __kernel void k(__global float *out, int off) {\n\
          __local float lt[64]; lt[get_local_id(0)] = out[get_global_id(0)];\n\
          barrier(CLK_LOCAL_MEM_FENCE);\n\
          float4 a = at(lt, off); float8 b = back(lt + 16); put(lt, a);\n\
          barrier(CLK_LOCAL_MEM_FENCE);\n\
          out[get_global_id(0)] = a.y + b.s3 + lt[5];\n\
        }\n";
    let migrated = edited(
        original,
        &[
            ("at(const __local float *p", "at(const float *p"),
            ("back(const __local float *p", "back(const float *p"),
            ("put(__local float *p", "put(float *p"),
        ],
    );
    assert_equal(&check_equivalent(original, &migrated), 1);
    let shifted = edited(&migrated, &[("&p[-8]", "&p[-7]")]);
    assert_different(&check_equivalent(original, &shifted));
}

#[test]
fn noinline_helper_is_equivalent() {
    // A source `noinline` must not keep the generic pointer opaque in one version.
    let original = "__attribute__((noinline)) void put(__local float *d, int i, float x) { d[i] = x; }\n\
        __kernel void k(__global float *out, __local float *buf) {\n\
          int l = get_local_id(0);\n\
          put(buf, l, 2.0f);\n\
          barrier(CLK_LOCAL_MEM_FENCE);\n\
          out[get_global_id(0)] = buf[(l + 1) % get_local_size(0)];\n\
        }\n";
    let migrated = edited(original, &[("put(__local float *d", "put(float *d")]);
    assert_equal(&check_equivalent(original, &migrated), 1);
}

#[test]
fn a_helper_the_same_on_both_sides_stays_a_call_unless_its_callees_differ() {
    // `rounds` is unchanged and calls nothing that changed: kept out of the pipeline on
    // both sides. `outer` is unchanged too but calls `scaled`, which changed (its text,
    // not its signature): it must be inlined, or the change would be hidden behind it.
    let original = "float rounds(float x) { for (int r = 0; r < 8; ++r) x = x * 1.5f + (float)r; return x; }\n\
        float scaled(int i) { return (float)i * 3.0f; }\n\
        float outer(int i) { return scaled(i) + 1.0f; }\n\
        float get(__global const float *v, int i) { return v[i]; }\n\
        __kernel void k(__global const float *in, __global float *out) {\n\
          int i = get_global_id(0);\n\
          out[i] = rounds(get(in, i)) + outer(i);\n\
        }\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unit.cl");
    std::fs::write(&path, original).unwrap();
    let options = CompileOptions::default();
    let before_args = options.clang_args_for(None, EQUIVALENCE_TRIPLE);
    let after_args = options.clang_args_for(Some(&Target::Cl20.std_flags()), EQUIVALENCE_TRIPLE);
    let generic = edited(original, &[("get(__global const float *v", "get(const float *v")]);
    let changed = edited(&generic, &[("(float)i * 3.0f", "(float)i * 4.0f")]);
    let compile = |text: &str, args: &[String]| {
        compile_for_equivalence(&path, args, &BTreeMap::from([(path.clone(), text.as_bytes().to_vec())]))
            .expect("clang-19 must be installed (scripts/setup)")
    };
    let before = compile(original, &before_args);
    let context = Context::create();
    let shared = |migrated: &[u8]| {
        let mut a = load(&context, &before, "a").unwrap();
        let mut b = load(&context, migrated, "b").unwrap();
        opaque::share_identical(&mut a, &mut b, &ProofScope::default()).shared
    };
    // `rounds`, `scaled` and `outer` are the same; `get` differs.
    assert_eq!(shared(&compile(&generic, &after_args)), 3);
    // `scaled` differs, and so does `outer` through it: only `rounds` stays a call.
    assert_eq!(shared(&compile(&changed, &after_args)), 1);
    let name = path.to_string_lossy().to_string();
    assert_equal(
        &compare_compiled(&context, &before, &compile(&generic, &after_args), &name, None, &ProofScope::default()).unwrap(),
        1,
    );
    let difference = assert_different(
        &compare_compiled(&context, &before, &compile(&changed, &after_args), &name, None, &ProofScope::default()).unwrap(),
    );
    assert!(difference.original.contains("3.0") || difference.migrated.contains("4.0"), "{difference:?}");
}

#[test]
fn a_helper_the_same_in_text_over_a_struct_whose_layout_changed_is_caught() {
    // `count` reads the same field in the same words on both sides, but the field before
    // it became a generic pointer (8 bytes on amdgcn, a __local one is 4): the struct's
    // layout is part of what "defined alike" compares, or the change would hide behind it.
    let original = "typedef struct { __local float *p; int n; } View;\n\
        int count(__global const View *v) { return v->n; }\n\
        __kernel void k(__global const View *views, __global int *out) { out[0] = count(views); }\n";
    let migrated = edited(original, &[("{ __local float *p; int n; }", "{ float *p; int n; }")]);
    let difference = assert_different(&check_equivalent(original, &migrated));
    assert_eq!(difference.kernel, "k", "{difference:?}");
}

#[test]
fn pointers_subtracted_and_compared_in_a_merged_helper() {
    // Per-space copies merged into one generic helper: the same difference and order
    // within each space, but the subtraction goes through `ptrtoint` of flat pointers,
    // which InferAddressSpaces does not look through: not proven, so such a merge is
    // withdrawn (conservative). A caller passing pointers of another space: caught.
    let original = "int gap_g(__global const float *a, __global const float *b) { return (int)(b - a) + (a < b); }\n\
        int gap_l(__local const float *a, __local const float *b) { return (int)(b - a) + (a < b); }\n\
        __kernel void k(__global const float *in, __global int *out, __local float *tile) {\n\
          int i = get_global_id(0);\n\
          out[i] = gap_g(in, in + i) + gap_l(tile, tile + (i & 7));\n\
        }\n";
    let merged = edited(
        original,
        &[
            ("int gap_g(__global const float *a, __global const float *b) { return (int)(b - a) + (a < b); }\n", ""),
            ("gap_l(__local const float *a, __local const float *b)", "gap(const float *a, const float *b)"),
            ("gap_g(in, in + i) + gap_l(tile", "gap(in, in + i) + gap(tile"),
        ],
    );
    let not_proven = assert_different(&check_equivalent(original, &merged));
    assert!(not_proven.migrated.contains("addrspacecast"), "{not_proven:?}");
    let crossed = edited(&merged, &[("gap(tile, tile + (i & 7))", "gap(in, in + (i & 7))")]);
    assert_different(&check_equivalent(original, &crossed));
}

#[test]
fn a_changed_constant_inside_a_helper_is_caught() {
    let original = "float scaled(__global const float *v, int i) { return v[i] * 3.0f; }\n\
        __kernel void k(__global const float *in, __global float *out) {\n\
          int i = get_global_id(0);\n\
          out[i] = scaled(in, i) + scaled(in, i + 1);\n\
        }\n";
    let migrated = edited(
        original,
        &[(
            "scaled(__global const float *v, int i) { return v[i] * 3.0f;",
            "scaled(const float *v, int i) { return v[i] * 4.0f;",
        )],
    );
    let difference = assert_different(&check_equivalent(original, &migrated));
    assert!(difference.original.contains("3.0") && difference.migrated.contains("4.0"), "{difference:?}");
}

#[test]
fn a_pointer_size_observed_through_a_helper_is_caught() {
    // A __local pointer is 4 bytes on amdgcn, a generic one 8.
    let original = "int bytes(__local int *slot) { slot[0] = 1; return (int)sizeof(slot); }\n\
        __kernel void k(__global int *out, __local int *scratch) { out[get_global_id(0)] = bytes(scratch); }\n";
    let migrated = edited(original, &[("bytes(__local int *slot)", "bytes(int *slot)")]);
    let difference = assert_different(&check_equivalent(original, &migrated));
    assert!(difference.original.contains("i32 4") && difference.migrated.contains("i32 8"), "{difference:?}");
}

/// A 1.x atomic in a helper (pinned to `__global`, so the helper keeps
/// its qualifier) beside a helper that does become generic.
const ATOMIC: &str = "void bump(__global int *c) { atomic_inc(c); }\n\
    int get(__global const int *v, int i) { return v[i]; }\n\
    __kernel void k(__global int *counts, __local int *scratch, __global int *out) {\n\
      bump(counts + get_group_id(0));\n\
      out[get_global_id(0)] = get(counts, 3);\n\
    }\n";

#[test]
fn an_atomic_on_a_different_address_is_caught() {
    let migrated = edited(
        ATOMIC,
        &[
            ("int get(__global const int *v", "int get(const int *v"),
            ("bump(counts + get_group_id(0))", "bump(counts + get_local_id(0))"),
        ],
    );
    assert_different(&check_equivalent(ATOMIC, &migrated));
}

#[test]
fn an_atomic_on_a_different_address_space_is_caught() {
    let migrated = edited(
        ATOMIC,
        &[
            ("void bump(__global int *c)", "void bump(__local int *c)"),
            ("int get(__global const int *v", "int get(const int *v"),
            ("bump(counts + get_group_id(0))", "bump(scratch + get_group_id(0))"),
        ],
    );
    let difference = assert_different(&check_equivalent(ATOMIC, &migrated));
    assert!(difference.original.contains("addrspace(1)") && difference.migrated.contains("addrspace(3)"), "{difference:?}");
}

#[test]
fn a_generic_atomic_on_another_pointer_is_caught() {
    // 2.0 atomics take generic pointers: a helper made generic that now
    // reaches the local buffer instead of the global one.
    let original = "void add(volatile __global atomic_int *c, int x) { atomic_fetch_add(c, x); }\n\
        __kernel void k(__global atomic_int *g, __local atomic_int *l) { add(g, 1); }\n";
    let migrated = edited(
        original,
        &[("void add(volatile __global atomic_int *c", "void add(volatile atomic_int *c"), ("add(g, 1)", "add(l, 1)")],
    );
    let context = Context::create();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unit.cl");
    // Both sides are 2.0 here (1.2 has no atomic_int): compare through the split API.
    std::fs::write(&path, original).unwrap();
    let args = CompileOptions::default().clang_args_for(Some(&Target::Cl20.std_flags()), EQUIVALENCE_TRIPLE);
    let name = path.to_string_lossy().to_string();
    let before = compile_for_equivalence(&path, &args, &BTreeMap::new()).expect("clang-19 must be installed");
    assert_equal(&compare_compiled(&context, &before, &before, &name, None, &ProofScope::default()).unwrap(), 1);
    let after = compile_for_equivalence(&path, &args, &BTreeMap::from([(path.clone(), migrated.into_bytes())])).unwrap();
    let difference = assert_different(&compare_compiled(&context, &before, &after, &name, None, &ProofScope::default()).unwrap());
    assert!(difference.original.contains("addrspace(1)") && difference.migrated.contains("addrspace(3)"), "{difference:?}");
}
