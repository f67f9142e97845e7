"""The big-headers shape of scripts/bench: real big-header code's layout.

What the shared-headers shape lacks and large real code bases have: many
distinct headers, each unit including a different combination of several of
them; very large kernels (unrolled rounds: hundreds of lines of straight-line
code); hundreds of helpers per header, most of which clasp leaves alone.
Everything here is generated from scratch; nothing is a real algorithm.

  include/bh_base.h       address-space macros (GLOBAL_AS ..., PRIVATE_AS
                          empty), DECLSPEC (empty: every helper is an external
                          function, emitted by every unit including it),
                          option defaults (-DPW_MAX, -DSALT_MAX, -DKERN_OPT),
                          types, structs, rotations, byte order, and
                          copy/set/compare helpers once per address space;
  include/prim_NN_<f>.h   HEADERS primitive headers, each an invented hash or
                          cipher family <f>: __constant round constants, 150
                          to 260 small value helpers (ARX mixing functions on
                          u32 and u64, some calling earlier ones, some reading
                          the family's __constant table directly), an unrolled
                          transform of 48 to 96 rounds (200 to 400 lines), a
                          private context with init/final, and a few helpers
                          clasp migrates: update once per space (_g, _l, _p:
                          exact duplicates it merges), a load from __global
                          and a store to __global (made generic), and one
                          taking a __constant table (refused: constant-space).

A unit (kernels/<mode>/kNNNNN.cl) includes bh_base.h and one combination of
3 to 6 primitive headers (from a pool of COMBOS combinations, drawn with a
skew, so some combinations are common and most are rare), has two per-space
helpers of its own and two or three kernels, each a prelude (loads through
the family's helpers), 120 to 320 lines of unrolled straight-line rounds
calling the included headers' value helpers, the family's transform, and a
store. Units go to kernels/<mode>/, each mode built with its own options
(clasp.toml [[file]] entries). Generation is deterministic: the headers
depend only on the seed, unit i only on the seed and i, so a larger tree is
a smaller one plus more units.
"""

import functools
import os
import random

SEED = 20261127
HEADERS = 32
COMBOS = 64
MODES = {
    "opt": ["-DKERN_OPT=1", "-DPW_MAX=31"],
    "pure": ["-DPW_MAX=256"],
    "salted": ["-DPW_MAX=55", "-DSALT_MAX=64"],
}
REGS = ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"]  # the unrolled rounds' working registers
SPACE = {"g": "GLOBAL_AS", "l": "LOCAL_AS", "p": "PRIVATE_AS", "c": "CONSTANT_AS"}

from bench_shared_headers import mode_options, write_units  # noqa: E402

BASE = """#ifndef BH_BASE_H
#define BH_BASE_H
// Address spaces are spelled through these macros everywhere.
#define GLOBAL_AS   __global
#define LOCAL_AS    __local
#define CONSTANT_AS __constant
#define PRIVATE_AS
#define DECLSPEC
#define KERNEL_FQ   __kernel

#ifndef PW_MAX
#define PW_MAX 55
#endif
#ifndef SALT_MAX
#define SALT_MAX 16
#endif
#ifndef KERN_OPT
#define KERN_OPT 0
#endif

typedef uchar  u8;
typedef ushort u16;
typedef uint   u32;
typedef ulong  u64;

typedef struct bh_pw { u32 i[64]; u32 len; } bh_pw_t;
typedef struct bh_salt { u32 buf[16]; u32 len; u32 iter; } bh_salt_t;
typedef struct bh_digest { u32 d[16]; } bh_digest_t;
typedef struct bh_tmp { u32 st[16]; u32 out[16]; } bh_tmp_t;

#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

DECLSPEC u32 rotl32_s(const u32 a, const u32 n) { return rotate(a, n & 31u); }
DECLSPEC u32 rotr32_s(const u32 a, const u32 n) { return rotate(a, (32u - (n & 31u)) & 31u); }
DECLSPEC u64 rotl64_s(const u64 a, const u32 n) { return rotate(a, (u64) (n & 63u)); }
DECLSPEC u32 swap32_s(const u32 v) { return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24); }
DECLSPEC u64 hl32_64(const u32 hi, const u32 lo) { return ((u64) hi << 32) | lo; }

$copies
DECLSPEC void bh_mark_g(GLOBAL_AS u32 *found, GLOBAL_AS u32 *out, const u32 gid, const u32 idx)
{
  if (atomic_inc(found) == 0)
  {
    out[0] = gid;
    out[1] = idx;
  }
}

#endif // BH_BASE_H
"""

BASE_PER_SPACE = [
    ("pg pl pp gp lp", """DECLSPEC void bh_copy32_$sfx($S0 u32 *dst, $S1 const u32 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = src[i];
}
"""),
    ("g l p", """DECLSPEC void bh_set32_$sfx($S0 u32 *dst, const u32 v, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = v;
}
"""),
    ("gp lp", """DECLSPEC int bh_equal32_$sfx($S0 const u32 *a, $S1 const u32 *b, const u32 n)
{
  u32 diff = 0;
  for (u32 i = 0; i < n; i++)
    diff |= a[i] ^ b[i];
  return diff == 0;
}
"""),
]


def fill(template, **names):
    """`$name` substitution, longest names first (C code has no `$`)."""
    for key in sorted(names, key=len, reverse=True):
        template = template.replace("$" + key, str(names[key]))
    return template


def per_space(combos, template, **names):
    """A helper written once per combination of spaces: suffix `gp` puts $S0 in __global, $S1 in private."""
    out = []
    for combo in combos.split():
        spaces = {f"S{i}": SPACE[c] for i, c in enumerate(combo)}
        out.append(fill(template, sfx=combo, **spaces, **names))
    return "\n".join(out)


# --- primitive headers

def arx(rng, x, y, z=None):
    """One ARX expression over the named operands."""
    c = f"0x{rng.getrandbits(32):08x}u"
    r = rng.randint(1, 31)
    forms = [f"rotl32_s({x} ^ {y}, {r}u) + {c}", f"({x} + {y}) ^ ROTR32({x}, {r})", f"({x} & {y}) | (~{x} & {c})",
             f"{x} ^ rotr32_s({y} + {c}, {r}u)", f"swap32_s({x}) + ({y} ^ {c})"]
    if z is not None:
        forms += [f"({x} & {y}) ^ ({x} & {z}) ^ ({y} & {z})", f"{z} ^ ({x} & ({y} ^ {z}))", f"rotl32_s({x} + {z}, {r}u) ^ {y}"]
    return rng.choice(forms)


def value_helper(f, j, rng, earlier):
    """Helper j of family f: a small value-only mixing function (clasp never changes it)."""
    kind = rng.random()
    if kind < 0.15:
        c = rng.getrandbits(64)
        return f"""DECLSPEC u64 {f}_w{j}(const u64 a, const u64 b)
{{
  const u64 t = rotl64_s(a ^ 0x{c:016x}ul, {rng.randint(1, 63)}u) + b;
  return t ^ (t >> {rng.randint(7, 41)});
}}
""", None
    lines = [f"DECLSPEC u32 {f}_f{j}(const u32 a, const u32 b, const u32 c)", "{"]
    lines.append(f"  u32 t = {arx(rng, 'a', 'b', 'c')};")
    for _ in range(rng.randint(0, 3)):
        lines.append(f"  t = {arx(rng, 't', rng.choice('abc'), rng.choice('abc'))};")
    if earlier and kind < 0.45:
        lines.append(f"  t ^= {f}_f{rng.choice(earlier)}(b, c, t);")
    elif kind < 0.55:
        lines.append(f"  t += {f}_k[(a ^ t) & {f.upper()}_KMASK];")
    lines += ["  return t;", "}", ""]
    return "\n".join(lines), j


def transform(f, rounds, rng, callable_helpers):
    """The family's transform: every round unrolled, each a few lines calling its value helpers."""
    out = [f"DECLSPEC void {f}_transform(PRIVATE_AS const u32 *w, PRIVATE_AS u32 *h)", "{", "  u32 x[16];"]
    out += ["  for (u32 i = 0; i < 16; i++)", "    x[i] = w[i];"]
    out += [f"  u32 {r} = h[{i}];" for i, r in enumerate(REGS)]
    regs = list(REGS)
    for i in range(rounds):
        a, b, c, d, e = regs[0], regs[1], regs[2], regs[3], regs[4]
        g = rng.choice(callable_helpers)
        out.append(f"  {e} += {f}_f{g}({a}, {b}, x[{i % 16}]) + {f}_k[{i}];")
        out.append(f"  {a} = ROTL32({a} ^ {e}, {rng.randint(1, 31)}) + {c};")
        if i % 3 == 0:
            out.append(f"  x[{(i + 7) % 16}] ^= {f}_f{rng.choice(callable_helpers)}(x[{(i + 3) % 16}], {d}, 0x{rng.getrandbits(32):08x}u);")
        regs = regs[1:] + regs[:1]
    out += [f"  h[{i}] += {r};" for i, r in enumerate(REGS)]
    out += ["}", ""]
    return "\n".join(out)


UPDATE = """DECLSPEC void $F_update_$sfx(PRIVATE_AS $F_ctx_t *ctx, $S0 const u32 *data, const u32 len)
{
  u32 pos = ctx->len & 63u;
  ctx->len += len;
  for (u32 i = 0; i < (len + 3) / 4; i++)
  {
    ctx->w[(pos / 4) & 15] ^= data[i];
    pos += 4;
    if (pos >= 64)
    {
      $F_transform(ctx->w, ctx->h);
      pos = 0;
    }
  }
}
"""

FAMILY_TAIL = """typedef struct $F_ctx { u32 h[8]; u32 w[16]; u32 len; } $F_ctx_t;

DECLSPEC void $F_init(PRIVATE_AS $F_ctx_t *ctx)
{
  for (u32 i = 0; i < 8; i++)
    ctx->h[i] = $F_k[i] ^ 0x$ivu;
  for (u32 i = 0; i < 16; i++)
    ctx->w[i] = 0;
  ctx->len = 0;
}

DECLSPEC void $F_final(PRIVATE_AS $F_ctx_t *ctx)
{
  ctx->w[(ctx->len / 4) & 15] ^= 0x80u << ((ctx->len & 3) * 8);
  ctx->w[15] = ctx->len * 8;
  $F_transform(ctx->w, ctx->h);
}

$updates
DECLSPEC void $F_load_g(PRIVATE_AS u32 *dst, GLOBAL_AS const u32 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = swap32_s(src[i]) ^ $F_k[i & $KMASK];
}

DECLSPEC void $F_store_g(GLOBAL_AS u32 *out, PRIVATE_AS const $F_ctx_t *ctx)
{
  for (u32 i = 0; i < 8; i++)
    out[i] = ctx->h[i];
}

DECLSPEC u32 $F_lookup_c(CONSTANT_AS const u32 *table, const u32 i)
{
  return table[i & $KMASK] ^ table[(i >> 8) & $KMASK];
}

#if PW_MAX > 64
DECLSPEC void $F_absorb_long_g(PRIVATE_AS $F_ctx_t *ctx, GLOBAL_AS const bh_pw_t *pw)
{
  $F_update_g(ctx, pw->i, pw->len);
}
#endif
"""


class Family:
    """One primitive header's family: its name, header file, and the value helpers others may call."""

    def __init__(self, index, seed):
        rng = random.Random(f"{seed}-header-{index}")
        self.index = index
        self.name = f"{rng.choice(['hx', 'cx', 'mx', 'sx'])}{index:02d}"
        self.file = f"prim_{index:02d}_{self.name}.h"
        self.rounds = rng.randint(48, 96)
        self.kwords = 1 << (self.rounds - 1).bit_length()  # a power of two holding every round's constant
        self.text, self.callable = self.write(rng, seed)

    def write(self, rng, seed):
        f, kmask = self.name, f"{self.name.upper()}_KMASK"
        parts = [f"#ifndef PRIM_{self.index:02d}_H", f"#define PRIM_{self.index:02d}_H",
                 f"// {f}: an invented {'hash' if f[0] in 'hm' else 'cipher'} family of {self.rounds} rounds.", "",
                 f"#define {kmask} {self.kwords - 1}u",
                 f"__constant u32 {f}_k[{self.kwords}] =", "{"]
        words = [rng.getrandbits(32) for _ in range(self.kwords)]
        parts += ["  " + ", ".join(f"0x{v:08x}u" for v in words[i:i + 8]) + "," for i in range(0, len(words), 8)]
        parts += ["};", ""]
        callable_helpers = []
        for j in range(rng.randint(150, 260)):
            text, name = value_helper(f, j, rng, callable_helpers[-20:])
            parts.append(text)
            if name is not None:
                callable_helpers.append(name)
        parts.append(transform(f, self.rounds, rng, callable_helpers))
        updates = per_space("g l p", UPDATE, F=f)
        parts.append(fill(FAMILY_TAIL, F=f, iv=f"{rng.getrandbits(32):08x}", updates=updates, KMASK=kmask))
        parts += [f"#endif // PRIM_{self.index:02d}_H", ""]
        return "\n".join(parts), callable_helpers


def families(seed=SEED):
    return [Family(i, seed) for i in range(HEADERS)]


def combos(seed=SEED):
    """The pool of include combinations: the family a unit is about first, then 2 to 5 others."""
    rng = random.Random(f"{seed}-combos")
    pool = []
    for _ in range(COMBOS):
        picked = rng.sample(range(HEADERS), rng.randint(3, 6))
        pool.append(picked)
    return pool


# --- units

PRELUDE = """  const u32 gid = get_global_id(0);
  const u32 lid = get_local_id(0);
  if (gid >= gid_max) return;
  u32 w[16];
  u32 h[8];
  bh_set32_p(h, 0, 8);
  $F_load_g(w, pws[gid].i, 16);
  $F_ctx_t ctx;
  $F_init(&ctx);
"""


def straight_rounds(rng, fams, lines):
    """`lines` lines of unrolled rounds over eight registers, calling the included families' helpers."""
    out = [f"  u32 {r} = w[{i}] ^ h[{i}];" for i, r in enumerate(REGS)]
    regs = list(REGS)
    while len(out) < lines:
        fam = rng.choice(fams)
        x, y, z = regs[0], regs[1], regs[5]
        out.append(f"  {z} = {fam.name}_f{rng.choice(fam.callable)}({x}, {y}, w[{rng.randrange(16)}]) + 0x{rng.getrandbits(32):08x}u;")
        out.append(f"  {x} = ROTL32({x} ^ {z}, {rng.randint(1, 31)}) + {regs[2]};")
        if rng.random() < 0.25:
            out.append(f"  w[{rng.randrange(16)}] ^= {fam.name}_f{rng.choice(fam.callable)}({regs[3]}, {x}, {z}) ^ {fam.name}_k[{rng.randrange(fam.kwords)}];")
        regs = regs[1:] + regs[:1]
    out += [f"  h[{i}] ^= {r};" for i, r in enumerate(REGS)]
    return "\n".join(out)


def kernel(prefix, role, main, fams, rng):
    """One large kernel: loads through the main family's helpers, unrolled rounds, the transform, a store."""
    body = straight_rounds(rng, fams, rng.randint(120, 320))
    update = rng.choice(["p", "g", "l"])
    source = {"p": "  $F_update_p(&ctx, w, 64);", "g": "  $F_update_g(&ctx, pws[gid].i, pws[gid].len);",
              "l": "  bh_copy32_lp(lbuf + lid * 16, w, 16);\n  $F_update_l(&ctx, lbuf + lid * 16, 64);"}[update]
    tail = """  $F_transform(w, h);
$update
  $F_final(&ctx);
#if KERN_OPT
  if (bh_equal32_gp(digests[0].d, ctx.h, 4))
    bh_mark_g(found, out, gid, 0);
#else
  $F_store_g(out + gid * 8, &ctx);
#endif
  $P_mix_g(out + gid * 8, 8, h[0]);
  $P_mix_l(lbuf + lid * 16, 16, h[1]);
}
"""
    head = (f"KERNEL_FQ void {prefix}_{role}(GLOBAL_AS const bh_pw_t *pws, GLOBAL_AS const bh_digest_t *digests, "
            f"GLOBAL_AS u32 *found, GLOBAL_AS u32 *out, LOCAL_AS u32 *lbuf, const u32 gid_max)\n{{\n")
    return fill(head + PRELUDE + body + "\n" + tail, F=main.name, P=prefix, update=fill(source, F=main.name))


UNIT_MIX = """DECLSPEC void $P_mix_$sfx($S0 u32 *buf, const u32 n, const u32 seed)
{
  u32 acc = seed;
  for (u32 i = 0; i < n; i++)
  {
    acc = rotl32_s(acc ^ buf[i], $ru) + 0x$cu;
    buf[i] = acc;
  }
}
"""


def unit(index, mode, fams, pool, rng):
    """Unit `index`: bh_base.h and one combination of primitive headers, two own helpers, two or three large kernels."""
    prefix = f"k{index:05d}"
    combo = pool[min(int(rng.paretovariate(1.2)) - 1, len(pool) - 1) if rng.random() < 0.5 else rng.randrange(len(pool))]
    included = [fams[i] for i in combo]
    main = included[0]
    out = [f"// {prefix}: kernels on {main.name} with {len(included) - 1} more families ({mode} build).", '#include "bh_base.h"']
    out += [f'#include "{fam.file}"' for fam in included]
    out.append("")
    out.append(per_space("g l", UNIT_MIX, P=prefix, r=rng.randint(1, 31), c=f"{rng.getrandbits(32):08x}"))
    for role in ["init", "loop", "comp"][: rng.randint(2, 3)]:
        out.append(kernel(prefix, role, main, included, rng))
    return "\n".join(out)


def generate(root, units, seed=SEED):
    """The headers (the same at every unit count), the units, a clasp.toml giving each mode its options."""
    os.makedirs(os.path.join(root, "include"), exist_ok=True)
    fams = families(seed)
    copies = "\n".join(per_space(combos_, text) for combos_, text in BASE_PER_SPACE)
    with open(os.path.join(root, "include", "bh_base.h"), "w") as f:
        f.write(fill(BASE, copies=copies))
    for fam in fams:
        with open(os.path.join(root, "include", fam.file), "w") as f:
            f.write(fam.text)
    pool = combos(seed)
    return write_units(root, units, MODES, lambda i: f"k{i:05d}.cl", lambda i, mode: unit(i, mode, fams, pool, random.Random(f"{seed}-unit-{i}")))


options_of = functools.partial(mode_options, modes=MODES)


def describe(root, paths):
    """Headers, helpers, includes per unit, distinct include sets and (include set, mode) pairs."""
    include = os.path.join(root, "include")
    sizes = [open(os.path.join(include, h)).read().count("\n") for h in sorted(os.listdir(include)) if h.startswith("prim_")]
    helpers = [len(fam.callable) for fam in families()]
    sets, pairs, counts = set(), set(), []
    for p in paths:
        with open(os.path.join(root, p)) as f:
            incs = tuple(line for line in f if line.startswith("#include"))
        sets.add(incs)
        pairs.add((incs, p.split(os.sep)[1]))
        counts.append(len(incs) - 1)
    return (f"headers: bh_base.h and {len(sizes)} primitive headers of {min(sizes)}-{max(sizes)} lines "
            f"({sum(sizes)} in all; {min(helpers)}-{max(helpers)} u32 value helpers each); "
            f"{min(counts)}-{max(counts)} primitive headers a unit; {len(sets)} distinct include sets, "
            f"{len(pairs)} distinct (include set, build options) pairs over {len(paths)} units")
