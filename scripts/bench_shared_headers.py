"""The shared-headers shape of scripts/bench: a big OpenCL project's layout.

Think of a password cracker or a crypto library with a thousand kernel files:
every unit is a small program (40-150 lines: one or two kernels, a few
helpers of its own written per address space) including the same four large
headers (about 4,600 lines in all), all generated here from scratch:

  lib_types.h   address-space macros (GLOBAL_AS ..., PRIVATE_AS empty),
                defaults of the build options (-DPLAINTEXT_LENGTH,
                -DVECT_SIZE, -DSALT_LENGTH), vector types, structs,
                rotations and byte order, round functions as macros and as
                scalar, vector and 64-bit functions;
  lib_mem.h     memcpy/memset/memcmp-style helpers written once per space
                (_gg, _gp, _pg, _lg, ..., _pc reading __constant), __constant
                tables and helpers reading them, 1.x atomics, an async copy,
                a cast to a named space, #if blocks on the options (one on
                an option no build sets);
  lib_hash.h    four invented hash families: __constant round keys, STEP
                macros, unrolled transforms (scalar and vector), update per
                space, final, HMAC, digest matching per space;
  lib_cipher.h  an invented table-driven block cipher whose tables are
                passed as __local or __constant pointers (-DBC_ROUNDS), a
                Feistel cipher over a __constant [8][64] table, a stream
                cipher whose state is private or __local.

Units go to kernels/<mode>/, each mode built with its own options (given to
clasp by clasp.toml [[file]] entries). Generation is deterministic: the
headers depend only on the seed, unit i only on the seed and i, so a larger
tree is a smaller one plus more units.
"""

import functools
import json
import os
import random

SEED = 20261123
# kernels/<mode>/: the options the host builds those files with.
MODES = {
    "fast": ["-DPLAINTEXT_LENGTH=31"],
    "pure": ["-DPLAINTEXT_LENGTH=256"],
    "vec": ["-DPLAINTEXT_LENGTH=55", "-DVECT_SIZE=4"],
    "salted": ["-DPLAINTEXT_LENGTH=55", "-DVECT_SIZE=2", "-DSALT_LENGTH=64", "-DBC_ROUNDS=14"],
}
HEADERS = ["lib_types.h", "lib_mem.h", "lib_hash.h", "lib_cipher.h"]
from bench_c import fill, per_space  # noqa: E402
from bench_headers_core import mem_header, types_header  # noqa: E402
from bench_headers_crypto import HASH_FAMILIES, cipher_header, hash_header  # noqa: E402


# --- units: one or two kernels each, a few helpers of their own

UNIT_HELPERS = {
    # Exact per-space copies (clasp merges them).
    "mix": ("g l p", """HELPER_FN void ${P}_mix_$sfx($S0 u32 *buf, const u32 n, const u32 seed)
{
  u32 acc = seed;
  for (u32 i = 0; i < n; i++)
  {
    acc = rotl32_one(acc ^ buf[i], $r) + 0x${c}u;
    buf[i] = acc;
  }
}
"""),
    # The same helper copied into many files, same names everywhere.
    "xor_words": ("gp lp", """void xor_words_$sfx($S0 u32 *dst, $S1 const u32 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] ^= src[i];
}
"""),
    # A 1.x atomic pins both copies.
    "note": ("l g", """HELPER_FN void ${P}_note_$sfx($S0 u32 *hist, const u32 v)
{
  atomic_inc(&hist[v & 63]);
}
"""),
}

UNIT_FOLD = """HELPER_FN u32 ${P}_fold_g(GLOBAL_AS const u32 *v, const u32 n)
{
  u32 acc = 0;
  for (u32 i = 0; i < n; i++)
    acc = rotl32_one(acc, 5) ^ v[i];
  return acc;
}

HELPER_FN u32 ${P}_fold_p(PRIVATE_AS const u32 *v, const u32 n)
{
  u32 acc = 0;
  for (u32 i = 0; i < n; i++)
    acc = rotl32_one(acc, 7) ^ v[i];
  return acc;
}
"""

UNIT_CHECK = """HELPER_FN int ${P}_check(PRIVATE_AS const u32 *v, const u32 mask)
{
  return ((v[0] ^ v[3]) & mask) == 0 && (v[1] & 0xff) == $pad;
}
"""

HELPER_CALLS = {
    "mix": {"g": "${P}_mix_g(aux + gid * 16, 16, h[0]);", "l": "${P}_mix_l(lbuf, 16, h[1]);", "p": "${P}_mix_p(t, 16, h[2]);"},
    "xor_words": {"gp": "xor_words_gp(aux + gid * 16, t, 16);", "lp": "xor_words_lp(lbuf, t, 16);"},
    "note": {"l": "${P}_note_l(scratch, h[0]);", "g": "${P}_note_g(aux, h[1]);"},
    "fold": {"": "aux[gid] = ${P}_fold_g(aux + gid * 16, 16) ^ ${P}_fold_p(t, ${DOUT});"},
}

HEADER_CALLS = [
    "aux[gid] ^= lut_get_c(mix_table, h[0]);",
    "tally_l(scratch, h[0]);",
    "append_byte_l(lbuf, 5, (u8) h[1]);",
    "memxor32_pg(t, aux + gid * 16, 4);",
    "aux[gid] += bump_max_l(scratch + 255, h[2]);",
    "words_fetch_pg(t, aux + gid * 16, 8);",
    "pad_block_l(lbuf, h[3] & 63);",
    "aux[gid] = table_mix_l(aux[gid], (LOCAL_AS const u8 *) lbuf, 64);",
    "memset32_g(aux + gid * 16 + 8, 0, 8);",
    "store_be32_p((PRIVATE_AS u8 *) t, 4, h[1]);",
    "memswap32_pl(t, lbuf, 16);",
]

PRELUDE = """  const u64 gid = get_global_id(0);
  const u32 lid = get_local_id(0);
  LOCAL_AS u32 *lbuf = scratch + lid * 16;
  if (gid >= gid_max) return;
  u32 h[16];
  memset32_p(h, 0, 16);
"""

VECTOR_PATH = """#if VECT_SIZE > 1
  vu32 wv[16];
  vu32 hv[${DW}];
  for (u32 i = 0; i < 16; i++)
    wv[i] = VSPLAT(h[i & 7]) ^ VSPLAT(i);
  for (u32 i = 0; i < ${DW}; i++)
    hv[i] = VSPLAT(h[i]);
  ${F}_transform_vector(wv, hv);
  if (vany_eq(hv[0], h[1]))
    h[0] ^= VLANE0(hv[1]);
#endif
"""

MATCH_TAIL = """  const int idx = ${F}_match_g(digests, digests_cnt, h);
  if (idx >= 0)
    mark_hash_g(plains, found, 0, (u32) idx, (u32) gid, 0);
}
"""

COMMON_PARAMS = "GLOBAL_AS plain_t *plains, GLOBAL_AS u32 *found, GLOBAL_AS u32 *aux, LOCAL_AS u32 *scratch"

KERNELS = {
    "raw": """KERNEL_FQ void ${P}_mxx(GLOBAL_AS const pw_t *pws, GLOBAL_AS const digest_t *digests, $common, const u32 digests_cnt, const u64 gid_max)
{
$prelude
  u32 w[64];
  memset32_p(w, 0, 64);
  pw_load_pg(w, &pws[gid]);
  ${F}_hash_pw_p(h, w, pws[gid].pw_len);
$body$match""",
    "salted": """KERNEL_FQ void ${P}_sxx(GLOBAL_AS const pw_t *pws, GLOBAL_AS const salt_t *salts, GLOBAL_AS const digest_t *digests, $common, const u32 salt_pos, const u64 gid_max)
{
$prelude
  u32 w[64];
  memset32_p(w, 0, 64);
  pw_load_pg(w, &pws[gid]);
  ${F}_ctx_t ctx;
  ${F}_init(&ctx);
#if SALT_LENGTH > 32
  ${F}_update_$salt_update(&ctx, salts[salt_pos].salt_buf, salts[salt_pos].salt_len);
  ${F}_update_p(&ctx, w, pws[gid].pw_len);
#else
  u32 s[16];
  memcpy32_pg(s, salts[salt_pos].salt_buf, 16);
  ${F}_update_p(&ctx, w, pws[gid].pw_len);
  ${F}_update_p(&ctx, s, salts[salt_pos].salt_len);
#endif
  ${F}_final(&ctx);
  ${F}_digest(&ctx, h);
$body  const int idx = ${F}_match_g(digests + salts[salt_pos].digests_offset, salts[salt_pos].digests_cnt, h);
  if (idx >= 0)
    mark_hash_g(plains, found, salt_pos, salts[salt_pos].digests_offset + (u32) idx, (u32) gid, 0);
}
""",
    "hmac": """KERNEL_FQ void ${P}_hmac(GLOBAL_AS const pw_t *pws, GLOBAL_AS const salt_t *salts, GLOBAL_AS const digest_t *digests, $common, const u32 salt_pos, const u32 digests_cnt, const u64 gid_max)
{
$prelude
  ${F}_ctx_t ipad;
  ${F}_ctx_t opad;
  ${F}_hmac_init_g(&ipad, &opad, pws[gid].i, pws[gid].pw_len);
  ${F}_update_g(&ipad, salts[salt_pos].salt_buf, salts[salt_pos].salt_len);
  ${F}_store_l(lbuf, &opad);
  ${F}_hmac_final(&ipad, &opad, h);
$body$match""",
    "cipher": """KERNEL_FQ void ${P}_comp(GLOBAL_AS const pw_t *pws, GLOBAL_AS const u32 *blobs, $common, const u64 gid_max)
{
  LOCAL_AS u32 s_t0[256];
  LOCAL_AS u32 s_t1[256];
  LOCAL_AS u32 s_t2[256];
  LOCAL_AS u32 s_t3[256];
  LOCAL_AS u8 s_sb[256];
  bc_tables_to_local(s_t0, s_t1, s_t2, s_t3, s_sb, 1);
$prelude
  ${F}_hash_pw_g(h, pws[gid].i, pws[gid].pw_len);
  u32 ks[60];
  bc_expand_key_p(ks, h);
  bc_invert_key(ks);
  u32 iv[4];
  memcpy32_pg(iv, blobs, 4);
  u32 pt[8];
  bc_cbc_decrypt_g(pt, blobs + 4, 2, iv, ks, s_t0, s_t1, s_t2, s_t3, s_sb);
$stream$body  if (${P}_check(pt, 0x${c}u))
    mark_hash_g(plains, found, 0, 0, (u32) gid, 0);
}
""",
    "loop": """KERNEL_FQ void ${P}_loop(GLOBAL_AS loop_tmp_t *tmps, GLOBAL_AS u32 *aux, LOCAL_AS u32 *scratch, const u32 loop_cnt, const u64 gid_max)
{
$prelude
  u32 dgst[16];
  u32 out[16];
  memcpy32_pg(dgst, tmps[gid].dgst, 16);
  memcpy32_pg(out, tmps[gid].out, 16);
  for (u32 j = 0; j < loop_cnt; j++)
  {
    ${F}_ctx_t ctx;
    ${F}_init(&ctx);
    ${F}_update_p(&ctx, dgst, ${DOUT} * 4);
    ${F}_final(&ctx);
    ${F}_digest(&ctx, dgst);
    memxor32_pp(out, dgst, ${DOUT});
  }
  memcpy32_pp(h, out, 16);
$body  memcpy32_gp(tmps[gid].dgst, dgst, 16);
  memcpy32_gp(tmps[gid].out, out, 16);
}
""",
}

SECOND_KERNELS = {
    "raw": """KERNEL_FQ void ${P}_sxx(GLOBAL_AS const pw_t *pws, GLOBAL_AS const digest_t *digests, GLOBAL_AS plain_t *plains, GLOBAL_AS u32 *found, const u32 digests_cnt, const u64 gid_max)
{
  LOCAL_AS digest_t s_digests[32];
  const u32 lid = get_local_id(0);
  for (u32 i = lid; i < 32 && i < digests_cnt; i += get_local_size(0))
    s_digests[i] = digests[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  const u64 gid = get_global_id(0);
  if (gid >= gid_max) return;
  u32 h[16];
  memset32_p(h, 0, 16);
  ${F}_hash_pw_g(h, pws[gid].i, pws[gid].pw_len);
  const int idx = ${F}_match_l(s_digests, min(digests_cnt, 32u), h);
  if (idx >= 0 && claim_slot_g(found + 1, (u32) idx))
    mark_hash_g(plains, found, 0, (u32) idx, (u32) gid, 0);
}
""",
    "loop": """KERNEL_FQ void ${P}_comp(GLOBAL_AS const loop_tmp_t *tmps, GLOBAL_AS const digest_t *digests, GLOBAL_AS plain_t *plains, GLOBAL_AS u32 *found, const u32 digests_cnt, const u64 gid_max)
{
  const u64 gid = get_global_id(0);
  if (gid >= gid_max) return;
  u32 h[16];
  memcpy32_pg(h, tmps[gid].out, 16);
  const int idx = ${F}_match_g(digests, digests_cnt, h);
  if (idx >= 0 && memeq32_gp(digests[idx].d, h, ${DOUT}))
    mark_hash_g(plains, found, 0, (u32) idx, (u32) gid, 0);
}
""",
}

STREAM_STEP = """  u8 S[256];
  sc_init_p(S, h, 16);
  sc_crypt_p(S, pt, 8);
"""


def unit_helpers(rng):
    """Which of its own helpers a unit has, each with the spaces it is written for."""
    chosen = {"mix": " ".join(sorted(rng.sample("glp", rng.randint(2, 3))))}
    for name in rng.sample(["xor_words", "note", "fold"], rng.randint(0, 2)):
        chosen[name] = "" if name == "fold" else UNIT_HELPERS[name][0]
    return chosen


def unit_body(helpers, rng, names):
    """The kernel's middle: its own helpers and a few header helpers, on global, local and private buffers."""
    lines = ["  u32 t[16];", "  memcpy32_pp(t, h, 16);"]
    for name, combos in helpers.items():
        lines += [HELPER_CALLS[name][c] for c in (combos.split() or [""])]
    lines += rng.sample(HEADER_CALLS, rng.randint(1, 3))
    lines.append("  aux[gid * 16 + 15] = t[0] ^ lbuf[0];")
    return fill("".join((line if line.startswith("  ") else "  " + line) + "\n" for line in lines), **names)


def unit(index, mode, rng):
    """Unit `index`: a kernel kind (raw, salted, hmac, cipher, loop) on one hash family, its own helpers first."""
    prefix = f"prog{index:05d}"
    kind = rng.choices(list(KERNELS), weights=[3, 3, 2, 2, 2])[0]
    name, bits, state, _, _ = rng.choice(HASH_FAMILIES)
    names = dict(P=prefix, F=name, DW=state, DOUT=state * bits // 32, c=f"{rng.getrandbits(32):08x}",
                 r=rng.randint(1, 31), pad=rng.randint(1, 16), salt_update=rng.choice(["g", "swap_g"]))
    helpers = unit_helpers(rng)
    out = [f"// {prefix}: {kind} kernel on {name} ({mode} build)."]
    out += [f'#include "{h}"' for h in HEADERS]
    out.append("")
    for helper, combos in helpers.items():
        out.append(fill(UNIT_FOLD, **names) if helper == "fold" else per_space(combos, UNIT_HELPERS[helper][1], **names))
    if kind == "cipher":
        out.append(fill(UNIT_CHECK, **names))
    body = unit_body(helpers, rng, names)
    if bits == 32 and rng.random() < 0.5:
        body = fill(VECTOR_PATH, **names) + body
    out.append(fill(KERNELS[kind], common=COMMON_PARAMS, prelude=PRELUDE.rstrip("\n"), body=body, match=fill(MATCH_TAIL, **names),
                    stream=STREAM_STEP if rng.random() < 0.5 else "", **names))
    if kind in SECOND_KERNELS and rng.random() < 0.6:
        out.append(fill(SECOND_KERNELS[kind], **names))
    return "\n".join(out)


def generate(root, units, seed=SEED):
    """The headers (the same for every unit count), the units, a clasp.toml giving each mode its options."""
    os.makedirs(os.path.join(root, "include"), exist_ok=True)
    for name, make in zip(HEADERS, (types_header, mem_header, hash_header, cipher_header)):
        with open(os.path.join(root, "include", name), "w") as f:
            f.write(make(random.Random(f"{seed}-{name}")))
    return write_units(root, units, MODES, lambda i: f"prog{i:05d}.cl", lambda i, mode: unit(i, mode, random.Random(f"{seed}-unit-{i}")))


def write_units(root, units, modes, name, make):
    """Unit i, `make(i, mode)`, as kernels/<mode>/`name(i)`, the modes taken in
    turn, and a clasp.toml giving each mode's files its options; the units' paths."""
    paths = []
    for i in range(units):
        mode = list(modes)[i % len(modes)]
        os.makedirs(os.path.join(root, "kernels", mode), exist_ok=True)
        path = os.path.join("kernels", mode, name(i))
        with open(os.path.join(root, path), "w") as f:
            f.write(make(i, mode))
        paths.append(path)
    entries = "".join(f'\n[[file]]\npath = "kernels/{mode}/*.cl"\noptions = {json.dumps(options)}\n' for mode, options in modes.items())
    with open(os.path.join(root, "clasp.toml"), "w") as f:
        f.write(f'include = ["include"]\n{entries}')
    return paths


def mode_options(path, modes):
    """The clang options of a unit written by `write_units` with `modes`."""
    return ["-Iinclude", *modes[path.split(os.sep)[1]]]


options_of = functools.partial(mode_options, modes=MODES)
