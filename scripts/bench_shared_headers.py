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

import json
import os
import random
import re
from string import Template

SEED = 20261123
# kernels/<mode>/: the options the host builds those files with.
MODES = {
    "fast": ["-DPLAINTEXT_LENGTH=31"],
    "pure": ["-DPLAINTEXT_LENGTH=256"],
    "vec": ["-DPLAINTEXT_LENGTH=55", "-DVECT_SIZE=4"],
    "salted": ["-DPLAINTEXT_LENGTH=55", "-DVECT_SIZE=2", "-DSALT_LENGTH=64", "-DBC_ROUNDS=14"],
}
HEADERS = ["lib_types.h", "lib_mem.h", "lib_hash.h", "lib_cipher.h"]
SPACE = {"g": "GLOBAL_AS", "l": "LOCAL_AS", "p": "PRIVATE_AS", "c": "CONSTANT_AS"}


def fill(template, **names):
    """`$name` / `${name}` substitution (C code has no `$`)."""
    return Template(template).substitute(names)


def per_space(combos, template, **names):
    """A helper written once per combination of address spaces, as 1.x code does:
    suffix `gp` puts its first pointer in GLOBAL_AS ($S0), its second in PRIVATE_AS ($S1)."""
    out = []
    for combo in combos.split():
        spaces = {f"S{i}": SPACE[c] for i, c in enumerate(combo)}
        out.append(fill(template, sfx=combo, **spaces, **names))
    return "\n".join(out)


def c_rows(values, fmt="0x{:08x}u", per_line=8, indent="  "):
    """An initializer's values, per_line a line."""
    return [indent + ", ".join(fmt.format(v) for v in values[i:i + per_line]) + "," for i in range(0, len(values), per_line)]


def c_table(decl, values, fmt="0x{:08x}u", per_line=8):
    return "\n".join([f"{decl} =", "{", *c_rows(values, fmt, per_line), "};", ""])


def guarded(name, parts):
    guard = name.upper().replace(".", "_")
    return "\n".join([f"#ifndef {guard}", f"#define {guard}", "", *parts, f"#endif // {guard}", ""])


# --- lib_types.h: spellings, option defaults, types, rotations, round functions

TYPES_PRELUDE = """// Address spaces are spelled through these macros everywhere.
#define GLOBAL_AS   __global
#define LOCAL_AS    __local
#define CONSTANT_AS __constant
#define PRIVATE_AS
#define HELPER_FN    inline static
#define KERNEL_FQ   __kernel

// Build options the host passes (-D...), and their defaults.
#ifndef PLAINTEXT_LENGTH
#define PLAINTEXT_LENGTH 55
#endif
#ifndef SALT_LENGTH
#define SALT_LENGTH 16
#endif
#ifndef VECT_SIZE
#define VECT_SIZE 1
#endif
#define PW_WORDS   ((PLAINTEXT_LENGTH + 4) / 4)
#define SALT_WORDS ((SALT_LENGTH + 3) / 4)

typedef uchar  u8;
typedef ushort u16;
typedef uint   u32;
typedef ulong  u64;

#if VECT_SIZE == 1
typedef uchar u8x;
typedef uint  vu32;
typedef ulong vu64;
#define VANY(c)    (c)
#define VLANE0(v)  (v)
#elif VECT_SIZE == 2
typedef uchar2 u8x;
typedef uint2  vu32;
typedef ulong2 vu64;
#define VANY(c)    any(c)
#define VLANE0(v)  ((v).s0)
#elif VECT_SIZE == 4
typedef uchar4 u8x;
typedef uint4  vu32;
typedef ulong4 vu64;
#define VANY(c)    any(c)
#define VLANE0(v)  ((v).s0)
#elif VECT_SIZE == 8
typedef uchar8 u8x;
typedef uint8  vu32;
typedef ulong8 vu64;
#define VANY(c)    any(c)
#define VLANE0(v)  ((v).s0)
#else
#error "VECT_SIZE must be 1, 2, 4 or 8"
#endif
#define VSPLAT(x) ((vu32) (x))

typedef struct pw
{
  u32 i[64];
  u32 pw_len;
} pw_t;

typedef struct salt
{
  u32 salt_buf[16];
  u32 salt_len;
  u32 salt_iter;
  u32 digests_offset;
  u32 digests_cnt;
} salt_t;

typedef struct digest
{
  u32 d[16];
} digest_t;

typedef struct plain
{
  u32 gid;
  u32 il_pos;
  u32 salt_pos;
  u32 digest_pos;
} plain_t;

typedef struct loop_tmp
{
  u32 ipad[16];
  u32 opad[16];
  u32 dgst[16];
  u32 out[16];
} loop_tmp_t;
"""

ROTATE_AND_SWAP = """#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define ROTL64(x, n) (((x) << (n)) | ((x) >> (64 - (n))))
#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

HELPER_FN u32 rotl32_one(const u32 a, const int n)
{
  return rotate(a, (u32) n);
}

HELPER_FN u32 rotr32_one(const u32 a, const int n)
{
  return rotate(a, (u32) (32 - n));
}

HELPER_FN u64 rotl64_one(const u64 a, const int n)
{
  return rotate(a, (u64) n);
}

HELPER_FN u64 rotr64_one(const u64 a, const int n)
{
  return rotate(a, (u64) (64 - n));
}

HELPER_FN vu32 rotl32(const vu32 a, const int n)
{
  return rotate(a, (vu32) n);
}

HELPER_FN vu32 rotr32(const vu32 a, const int n)
{
  return rotate(a, (vu32) (32 - n));
}

HELPER_FN vu64 rotl64(const vu64 a, const int n)
{
  return rotate(a, (vu64) n);
}

HELPER_FN vu64 rotr64(const vu64 a, const int n)
{
  return rotate(a, (vu64) (64 - n));
}

HELPER_FN u32 swap32_one(const u32 v)
{
  return (v >> 24) | ((v >> 8) & 0x0000ff00u) | ((v << 8) & 0x00ff0000u) | (v << 24);
}

HELPER_FN vu32 swap32(const vu32 v)
{
  return (v >> 24) | ((v >> 8) & 0x0000ff00u) | ((v << 8) & 0x00ff0000u) | (v << 24);
}

HELPER_FN u64 swap64_one(const u64 v)
{
  return ((u64) swap32_one((u32) v) << 32) | (u64) swap32_one((u32) (v >> 32));
}

HELPER_FN vu64 swap64(const vu64 v)
{
  vu64 t = (v << 32) | (v >> 32);
  t = ((t & 0x0000ffff0000ffffUL) << 16) | ((t >> 16) & 0x0000ffff0000ffffUL);
  return ((t & 0x00ff00ff00ff00ffUL) << 8) | ((t >> 8) & 0x00ff00ff00ff00ffUL);
}

HELPER_FN u64 hl32_to_64_one(const u32 hi, const u32 lo)
{
  return ((u64) hi << 32) | (u64) lo;
}

HELPER_FN u32 h32_from_64_one(const u64 v)
{
  return (u32) (v >> 32);
}

HELPER_FN u32 l32_from_64_one(const u64 v)
{
  return (u32) v;
}
"""

PACKING = """#define BYTE_AT(x, n)     (((x) >> ((n) * 8)) & 0xffu)
#define PACK4(a, b, c, d) ((u32) (a) | ((u32) (b) << 8) | ((u32) (c) << 16) | ((u32) (d) << 24))

HELPER_FN u32 add3_one(const u32 a, const u32 b, const u32 c)
{
  return a + b + c;
}

HELPER_FN vu32 add3(const vu32 a, const vu32 b, const vu32 c)
{
  return a + b + c;
}

HELPER_FN u32 bfe_one(const u32 a, const u32 offset, const u32 width)
{
  return (a >> offset) & ((1u << width) - 1u);
}

// The 32 bits of hi:lo starting `shift` bytes into lo.
HELPER_FN u32 funnel_bytes_one(const u32 hi, const u32 lo, const u32 shift)
{
  switch (shift & 3)
  {
    case 0: return lo;
    case 1: return (lo >> 8) | (hi << 24);
    case 2: return (lo >> 16) | (hi << 16);
    default: return (lo >> 24) | (hi << 8);
  }
}

HELPER_FN u32 lowest_zero_byte_one(const u32 v)
{
  if ((v & 0x000000ffu) == 0) return 0;
  if ((v & 0x0000ff00u) == 0) return 1;
  if ((v & 0x00ff0000u) == 0) return 2;
  if ((v & 0xff000000u) == 0) return 3;
  return 4;
}

HELPER_FN int vany_eq(const vu32 a, const u32 b)
{
#if VECT_SIZE == 1
  return a == b;
#else
  return any(a == (vu32) b);
#endif
}
"""


def bool_expr(rng, depth):
    if depth == 0:
        return rng.choice("xyz")
    left, right = bool_expr(rng, depth - 1), bool_expr(rng, depth - 1)
    if rng.random() < 0.3:
        left = "~" + left
    return f"({left} {rng.choice('&|^')} {right})"


def round_function(index, rng):
    """A boolean round function as a macro and as scalar, vector and 64-bit functions."""
    expr = bool_expr(rng, 2)
    macro = re.sub(r"\b([xyz])\b", r"(\1)", expr)
    out = [f"#define BF{index}(x, y, z) {macro}", ""]
    for ret, name in (("u32", f"bf{index}_one"), ("vu32", f"bf{index}"), ("u64", f"bf{index}_64")):
        out += [f"HELPER_FN {ret} {name}(const {ret} x, const {ret} y, const {ret} z)", "{", f"  return {expr};", "}", ""]
    return "\n".join(out)


def sigma_function(index, bits, rng):
    """A rotate/shift mixing function: macro, scalar and vector function."""
    a, b, c = sorted(rng.sample(range(1, bits), 3))
    last = (f"ROTR{bits}((x), {c})", f"rotr{bits}_one(x, {c})", f"rotr{bits}(x, {c})") if index % 2 else (f"((x) >> {c})", f"(x >> {c})", f"(x >> {c})")
    out = [f"#define SIG{bits}_{index}(x) (ROTR{bits}((x), {a}) ^ ROTR{bits}((x), {b}) ^ {last[0]})", ""]
    out += [f"HELPER_FN u{bits} sig{bits}_{index}_one(const u{bits} x)", "{", f"  return rotr{bits}_one(x, {a}) ^ rotr{bits}_one(x, {b}) ^ {last[1]};", "}", ""]
    out += [f"HELPER_FN vu{bits} sig{bits}_{index}(const vu{bits} x)", "{", f"  return rotr{bits}(x, {a}) ^ rotr{bits}(x, {b}) ^ {last[2]};", "}", ""]
    return "\n".join(out)


def types_header(rng):
    parts = [TYPES_PRELUDE, ROTATE_AND_SWAP, PACKING]
    parts += [round_function(i, rng) for i in range(12)]
    parts += [sigma_function(i, bits, rng) for bits in (32, 64) for i in range(8)]
    return guarded("lib_types.h", parts)


# --- lib_mem.h: memory helpers once per address space, tables, atomics

MEM_FAMILIES = [
    ("gg gp pg lg gl pl lp pp pc", """HELPER_FN void memcpy32_$sfx($S0 u32 *dst, $S1 const u32 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = src[i];
}
"""),
    ("pg gp lg pp pl", """HELPER_FN void memcpy8_$sfx($S0 u8 *dst, $S1 const u8 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = src[i];
}
"""),
    ("g l p", """HELPER_FN void memset32_$sfx($S0 u32 *dst, const u32 v, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = v;
}
"""),
    ("g l p", """HELPER_FN void memset8_$sfx($S0 u8 *dst, const u8 v, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = v;
}
"""),
    ("gp lp pp gg pc", """HELPER_FN int memcmp32_$sfx($S0 const u32 *a, $S1 const u32 *b, const u32 n)
{
  for (u32 i = 0; i < n; i++)
  {
    if (a[i] != b[i])
      return (a[i] < b[i]) ? -1 : 1;
  }
  return 0;
}
"""),
    ("pg pl pp gp", """HELPER_FN void memxor32_$sfx($S0 u32 *dst, $S1 const u32 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] ^= src[i];
}
"""),
    ("pg pl pp", """HELPER_FN void memswap32_$sfx($S0 u32 *dst, $S1 const u32 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    dst[i] = swap32_one(src[i]);
}
"""),
    ("g p", """HELPER_FN int memfind8_$sfx($S0 const u8 *buf, const u32 n, const u8 v)
{
  for (u32 i = 0; i < n; i++)
  {
    if (buf[i] == v)
      return (int) i;
  }
  return -1;
}
"""),
    ("g l p c", """HELPER_FN u32 load_be32_$sfx($S0 const u8 *buf, const u32 off)
{
  return ((u32) buf[off] << 24) | ((u32) buf[off + 1] << 16) | ((u32) buf[off + 2] << 8) | (u32) buf[off + 3];
}
"""),
    ("g l p", """HELPER_FN void store_be32_$sfx($S0 u8 *buf, const u32 off, const u32 v)
{
  buf[off + 0] = (u8) (v >> 24);
  buf[off + 1] = (u8) (v >> 16);
  buf[off + 2] = (u8) (v >> 8);
  buf[off + 3] = (u8) v;
}
"""),
    ("p g l", """HELPER_FN void append_byte_$sfx($S0 u32 *buf, const u32 pos, const u8 v)
{
  const u32 idx = pos / 4;
  const u32 sh = (pos & 3) * 8;
  buf[idx] = (buf[idx] & ~(0xffu << sh)) | ((u32) v << sh);
}
"""),
    ("pp pg pl", """// Appends src_len bytes of src at byte dst_len of dst (both little-endian words).
HELPER_FN u32 append_words_$sfx($S0 u32 *dst, const u32 dst_len, $S1 const u32 *src, const u32 src_len)
{
  const u32 shift = dst_len & 3;
  const u32 base = dst_len / 4;
  if (shift == 0)
  {
    for (u32 i = 0; i < (src_len + 3) / 4; i++)
      dst[base + i] = src[i];
    return dst_len + src_len;
  }
  u32 carry = dst[base] & ((1u << (shift * 8)) - 1u);
  for (u32 i = 0; i < (src_len + 3) / 4; i++)
  {
    dst[base + i] = carry | (src[i] << (shift * 8));
    carry = src[i] >> (32 - shift * 8);
  }
  dst[base + (src_len + 3) / 4] = carry;
  return dst_len + src_len;
}
"""),
    ("g l p", """HELPER_FN u32 table_mix_$sfx(u32 h, $S0 const u8 *buf, const u32 n)
{
  for (u32 i = 0; i < n; i++)
    h = (h >> 8) ^ mix_table[(h ^ buf[i]) & 0xff];
  return h;
}
"""),
    ("pg gp lp", """HELPER_FN void hex_encode_$sfx($S0 u8 *dst, $S1 const u8 *src, const u32 n)
{
  for (u32 i = 0; i < n; i++)
  {
    dst[2 * i + 0] = hex_lut[src[i] >> 4];
    dst[2 * i + 1] = hex_lut[src[i] & 15];
  }
}
"""),
    ("pg pp", """HELPER_FN u32 hex_decode_$sfx($S0 u8 *dst, $S1 const u8 *src, const u32 n)
{
  u32 bad = 0;
  for (u32 i = 0; i < n / 2; i++)
  {
    const u8 hi = src[2 * i + 0];
    const u8 lo = src[2 * i + 1];
    const u8 h = (hi <= '9') ? (u8) (hi - '0') : (u8) ((hi | 0x20) - 'a' + 10);
    const u8 l = (lo <= '9') ? (u8) (lo - '0') : (u8) ((lo | 0x20) - 'a' + 10);
    bad |= (h > 15) | (l > 15);
    dst[i] = (u8) ((h << 4) | l);
  }
  return bad;
}
"""),
    ("pg pl", """HELPER_FN u32 radix64_encode_$sfx($S0 u8 *dst, $S1 const u8 *src, const u32 n)
{
  u32 out = 0;
  for (u32 i = 0; i + 2 < n; i += 3)
  {
    const u32 v = ((u32) src[i] << 16) | ((u32) src[i + 1] << 8) | (u32) src[i + 2];
    dst[out++] = radix64_alphabet[(v >> 18) & 63];
    dst[out++] = radix64_alphabet[(v >> 12) & 63];
    dst[out++] = radix64_alphabet[(v >> 6) & 63];
    dst[out++] = radix64_alphabet[v & 63];
  }
  return out;
}
"""),
    ("c l", """HELPER_FN u32 lut_get_$sfx($S0 const u32 *t, const u32 i)
{
  return t[i & 0xff];
}
"""),
    ("g l", """// 1.x atomics have no generic overload: these stay in their space.
HELPER_FN void tally_$sfx($S0 u32 *bins, const u32 v)
{
  atomic_inc(&bins[v & 0xff]);
}
"""),
]

PAD_BLOCK = """// Puts the 0x80 terminator at byte len of a 16-word block, clearing what follows in its word.
HELPER_FN void pad_block_$sfx($S0 u32 *w, const u32 len)
{
  switch (len / 4)
  {
$cases  }
}
"""

MEM_SPECIALS = """// Reads 32-bit words out of a byte buffer through a cast pointer.
HELPER_FN u32 read_word_g(GLOBAL_AS const u8 *buf, const u32 idx)
{
  GLOBAL_AS const u32 *w = (GLOBAL_AS const u32 *) buf;
  return w[idx];
}

HELPER_FN u32 read_word_p(PRIVATE_AS const u8 *buf, const u32 idx)
{
  PRIVATE_AS const u32 *w = (PRIVATE_AS const u32 *) buf;
  return w[idx];
}

// Found-hash bookkeeping: the counter is bumped atomically.
HELPER_FN void mark_hash_g(GLOBAL_AS plain_t *plains, GLOBAL_AS u32 *found, const u32 salt_pos, const u32 digest_pos, const u32 gid, const u32 il_pos)
{
  const u32 idx = atomic_inc(found);
  plains[idx].salt_pos = salt_pos;
  plains[idx].digest_pos = digest_pos;
  plains[idx].gid = gid;
  plains[idx].il_pos = il_pos;
}

HELPER_FN int claim_slot_g(GLOBAL_AS u32 *flags, const u32 pos)
{
  return atomic_cmpxchg(&flags[pos], 0u, 1u) == 0u;
}

HELPER_FN u32 bump_max_l(LOCAL_AS u32 *slot, const u32 v)
{
  return atomic_max(slot, v);
}

HELPER_FN void stage_words_l(LOCAL_AS u32 *dst, GLOBAL_AS const u32 *src, const u32 n)
{
  event_t ev = async_work_group_copy(dst, src, (size_t) n, 0);
  wait_group_events(1, &ev);
}

// Password words into a private block; short builds copy a fixed prefix.
HELPER_FN void pw_load_pg(PRIVATE_AS u32 *w, GLOBAL_AS const pw_t *pw)
{
#if PLAINTEXT_LENGTH > 55
  for (u32 i = 0; i < 64; i++)
    w[i] = pw->i[i];
#else
$short_copy
  w[14] = 0;
  w[15] = 0;
#endif
}

HELPER_FN void pw_load_pl(PRIVATE_AS u32 *w, LOCAL_AS const pw_t *pw)
{
#if PLAINTEXT_LENGTH > 55
  for (u32 i = 0; i < 64; i++)
    w[i] = pw->i[i];
#else
$short_copy
  w[14] = 0;
  w[15] = 0;
#endif
}

HELPER_FN void words_fetch_pg(PRIVATE_AS u32 *dst, GLOBAL_AS const u32 *src, const u32 n)
{
#if defined(LEGACY_DRIVER_WORKAROUND)
  words_fetch_slow(dst, src, n);
#else
  for (u32 i = 0; i < n; i++)
    dst[i] = src[i];
#endif
}

// Constant-time comparisons (the local one answers 1/0 explicitly).
HELPER_FN int memeq32_gp(GLOBAL_AS const u32 *a, PRIVATE_AS const u32 *b, const u32 n)
{
  u32 diff = 0;
  for (u32 i = 0; i < n; i++)
    diff |= a[i] ^ b[i];
  return diff == 0;
}

HELPER_FN int memeq32_lp(LOCAL_AS const u32 *a, PRIVATE_AS const u32 *b, const u32 n)
{
  u32 diff = 0;
  for (u32 i = 0; i < n; i++)
    diff |= a[i] ^ b[i];
  return (diff == 0) ? 1 : 0;
}
"""


def pad_block_cases():
    cases = []
    for word in range(16):
        cases.append(f"    case {word}:\n      w[{word}] = (w[{word}] & ((1u << ((len & 3) * 8)) - 1u)) | (0x80u << ((len & 3) * 8));")
        cases += [f"      w[{k}] = 0;" for k in range(word + 1, min(word + 3, 16))]
        cases.append("      break;")
    return "\n".join(cases) + "\n"


def mem_header(rng):
    mix = [rng.getrandbits(32) for _ in range(256)]
    alphabet = list(b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    rng.shuffle(alphabet)
    parts = ['#include "lib_types.h"', ""]
    parts.append(c_table("CONSTANT_AS u32 mix_table[256]", mix))
    parts.append(c_table("CONSTANT_AS u8 hex_lut[16]", list(b"0123456789abcdef"), fmt="0x{:02x}", per_line=16))
    parts.append(c_table("CONSTANT_AS u8 radix64_alphabet[64]", alphabet, fmt="0x{:02x}", per_line=16))
    parts += [per_space(combos, template) for combos, template in MEM_FAMILIES]
    parts.append(per_space("p g l", PAD_BLOCK, cases=pad_block_cases()))
    short_copy = "\n".join(f"  w[{i}] = pw->i[{i}];" for i in range(14))
    parts.append(fill(MEM_SPECIALS, short_copy=short_copy))
    return guarded("lib_mem.h", parts)


# --- lib_hash.h: four invented hash families (ARX steps, __constant round keys)

# name, word bits, state words, steps, block bytes
HASH_FAMILIES = [("hxa", 32, 4, 64, 64), ("hxb", 32, 8, 64, 64), ("hxc", 64, 8, 80, 128), ("hxd", 32, 8, 48, 64)]

HASH_CTX = """typedef struct ${F}_ctx
{
  ${HT} h[${DW}];
  u32 w[${BW}];
  u32 len;
} ${F}_ctx_t;
"""

HASH_COMMON = """HELPER_FN void ${F}_init(PRIVATE_AS ${F}_ctx_t *ctx)
{
${iv}
  for (u32 i = 0; i < ${BW}; i++)
    ctx->w[i] = 0;
  ctx->len = 0;
}

HELPER_FN void ${F}_digest(PRIVATE_AS const ${F}_ctx_t *ctx, PRIVATE_AS u32 *out)
{
${out}
}

HELPER_FN void ${F}_final(PRIVATE_AS ${F}_ctx_t *ctx)
{
  const u32 pos = ctx->len & ${BM};
  append_byte_p(ctx->w, pos, 0x80);
  if (pos >= ${BB} - 9)
  {
    ${F}_transform(ctx->w, ctx->h);
    memset32_p(ctx->w, 0, ${BW});
  }
  ctx->w[${BW} - 2] = 0;
  ctx->w[${BW} - 1] = ctx->len * 8;
  ${F}_transform(ctx->w, ctx->h);
}

HELPER_FN void ${F}_hmac_final(PRIVATE_AS ${F}_ctx_t *ipad, PRIVATE_AS ${F}_ctx_t *opad, PRIVATE_AS u32 *out)
{
  u32 inner[${DOUT}];
  ${F}_final(ipad);
  ${F}_digest(ipad, inner);
  ${F}_update_p(opad, inner, ${DOUT} * 4);
  ${F}_final(opad);
  ${F}_digest(opad, out);
}
"""

HASH_UPDATE = """HELPER_FN void ${F}_update_$sfx(PRIVATE_AS ${F}_ctx_t *ctx, $S0 const u32 *data, const u32 len)
{
  u32 pos = ctx->len & ${BM};
  ctx->len += len;
  for (u32 i = 0; i < len / 4; i++)
  {
    ctx->w[pos / 4] = data[i];
    pos += 4;
    if (pos == ${BB})
    {
      ${F}_transform(ctx->w, ctx->h);
      memset32_p(ctx->w, 0, ${BW});
      pos = 0;
    }
  }
  if (len & 3)
    ctx->w[pos / 4] = data[len / 4] & ((1u << ((len & 3) * 8)) - 1u);
}
"""

HASH_UPDATE_SWAP = """HELPER_FN void ${F}_update_swap_$sfx(PRIVATE_AS ${F}_ctx_t *ctx, $S0 const u32 *data, const u32 len)
{
  u32 pos = ctx->len & ${BM};
  ctx->len += len;
  for (u32 i = 0; i < (len + 3) / 4; i++)
  {
    ctx->w[pos / 4] = swap32_one(data[i]);
    pos += 4;
    if (pos == ${BB})
    {
      ${F}_transform(ctx->w, ctx->h);
      memset32_p(ctx->w, 0, ${BW});
      pos = 0;
    }
  }
}
"""

HASH_PW = """HELPER_FN void ${F}_hash_pw_$sfx(PRIVATE_AS u32 *digest, $S0 const u32 *pw, const u32 pw_len)
{
  ${F}_ctx_t ctx;
  ${F}_init(&ctx);
#if PLAINTEXT_LENGTH > 55
  ${F}_update_$sfx(&ctx, pw, pw_len);
#else
  for (u32 i = 0; i < 14; i++)
    ctx.w[i] = pw[i];
  ctx.len = pw_len;
#endif
  ${F}_final(&ctx);
  ${F}_digest(&ctx, digest);
}
"""

HASH_HMAC_INIT = """HELPER_FN void ${F}_hmac_init_$sfx(PRIVATE_AS ${F}_ctx_t *ipad, PRIVATE_AS ${F}_ctx_t *opad, $S0 const u32 *key, const u32 key_len)
{
  u32 k[${BW}];
  memset32_p(k, 0, ${BW});
  if (key_len > ${BB})
  {
    ${F}_ctx_t tmp;
    ${F}_init(&tmp);
    ${F}_update_$sfx(&tmp, key, key_len);
    ${F}_final(&tmp);
    ${F}_digest(&tmp, k);
  }
  else
  {
    for (u32 i = 0; i < (key_len + 3) / 4; i++)
      k[i] = key[i];
  }
  ${F}_init(ipad);
  ${F}_init(opad);
  for (u32 i = 0; i < ${BW}; i++)
  {
    ipad->w[i] = k[i] ^ 0x36363636u;
    opad->w[i] = k[i] ^ 0x5c5c5c5cu;
  }
  ${F}_transform(ipad->w, ipad->h);
  ${F}_transform(opad->w, opad->h);
  ipad->len = ${BB};
  opad->len = ${BB};
}
"""

HASH_MATCH = """HELPER_FN int ${F}_match_$sfx($S0 const digest_t *digests, const u32 cnt, PRIVATE_AS const u32 *h)
{
  for (u32 i = 0; i < cnt; i++)
  {
    if (digests[i].d[0] != h[0])
      continue;
    if (memcmp32_${sfx}p(digests[i].d, h, ${DOUT}) == 0)
      return (int) i;
  }
  return -1;
}
"""

HASH_STORE = """HELPER_FN void ${F}_store_$sfx($S0 u32 *out, PRIVATE_AS const ${F}_ctx_t *ctx)
{
  u32 d[${DOUT}];
  ${F}_digest(ctx, d);
  for (u32 i = 0; i < ${DOUT}; i++)
    out[i] = d[i];
}
"""


def md_transform(name, word, rng, vector):
    """A four-word ARX transform over a 16-word block: STEP macro, unrolled."""
    f, up = name, name.upper()
    funcs = rng.sample(range(12), 4)
    call = (lambda i: f"bf{i}") if vector else (lambda i: f"BF{i}")
    t = f"v{word}" if vector else word
    suffix = "_vector" if vector else ""
    out = [f"HELPER_FN void {f}_transform{suffix}(PRIVATE_AS const {t} *w, PRIVATE_AS {t} *state)", "{"]
    out += [f"  {t} {r} = state[{i}];" for i, r in enumerate("abcd")]
    out.append("")
    for quarter in range(4):
        order = rng.sample(range(16), 16)
        for step in range(16):
            i = quarter * 16 + step
            regs = "abcd"[-(i % 4):] + "abcd"[:-(i % 4)] if i % 4 else "abcd"
            a, b, c, d = regs
            out.append(f"  {up}_STEP({call(funcs[quarter])}, {a}, {b}, {c}, {d}, w[{order[step]:2d}], {f}_k[{i:2d}], {rng.randint(3, 29):2d});")
    out.append("")
    out += [f"  state[{i}] += {r};" for i, r in enumerate("abcd")]
    out += ["}", ""]
    return "\n".join(out)


def sha_transform(name, bits, steps, rng, vector):
    """An eight-word transform with a message schedule (EXPAND) and STEP macro."""
    f, up = name, name.upper()
    word = f"u{bits}"
    t = f"v{word}" if vector else word
    suffix = "_vector" if vector else ""
    if bits == 64:
        out = [f"HELPER_FN void {f}_transform(PRIVATE_AS const u32 *block, PRIVATE_AS u64 *state)", "{", "  u64 w[16];",
               "  for (u32 i = 0; i < 16; i++)", "    w[i] = hl32_to_64_one(block[2 * i], block[2 * i + 1]);"]
    else:
        out = [f"HELPER_FN void {f}_transform{suffix}(PRIVATE_AS const {t} *block, PRIVATE_AS {t} *state)", "{", f"  {t} w[16];",
               "  for (u32 i = 0; i < 16; i++)", "    w[i] = block[i];"]
    regs = "abcdefgh"
    out += [f"  {t} {r} = state[{i}];" for i, r in enumerate(regs)]
    out.append("")
    for i in range(steps):
        if i >= 16:
            out.append(f"  {up}_EXPAND(w, {i});")
        rot = regs[-(i % 8):] + regs[:-(i % 8)] if i % 8 else regs
        out.append(f"  {up}_STEP({', '.join(rot)}, w[{i % 16:2d}], {f}_k[{i:2d}]);")
    out.append("")
    out += [f"  state[{i}] += {r};" for i, r in enumerate(regs)]
    out += ["}", ""]
    return "\n".join(out)


def hash_macros(name, bits, rng):
    up = name.upper()
    if name == "hxa":
        return f"#define {up}_STEP(f, a, b, c, d, x, k, s) \\\n  {{ (a) += (k) + (x) + f((b), (c), (d)); (a) = ROTL32((a), (s)) + (b); }}\n"
    s = rng.sample(range(8), 4)
    f0, f1 = rng.sample(range(12), 2)
    return (f"#define {up}_EXPAND(w, i) \\\n  ((w)[(i) & 15] += SIG{bits}_{s[0]}((w)[((i) + 14) & 15]) + (w)[((i) + 9) & 15] + SIG{bits}_{s[1]}((w)[((i) + 1) & 15]))\n"
            f"#define {up}_STEP(a, b, c, d, e, f, g, h, x, k) \\\n"
            f"  {{ (h) += SIG{bits}_{s[2]}(e) + BF{f0}((e), (f), (g)) + (k) + (x); (d) += (h); (h) += SIG{bits}_{s[3]}(a) + BF{f1}((a), (b), (c)); }}\n")


def hash_family(name, bits, state, steps, block, rng):
    word = f"u{bits}"
    names = dict(F=name, HT=word, DW=state, BW=block // 4, BB=block, BM=block - 1, DOUT=state * bits // 32)
    hexw = "0x{:016x}UL" if bits == 64 else "0x{:08x}u"
    iv = [rng.getrandbits(bits) for _ in range(state)]
    names["iv"] = "\n".join(f"  ctx->h[{i}] = {hexw.format(v)};" for i, v in enumerate(iv))
    if bits == 64:
        names["out"] = "\n".join(f"  out[{2 * i}] = h32_from_64_one(ctx->h[{i}]);\n  out[{2 * i + 1}] = l32_from_64_one(ctx->h[{i}]);" for i in range(state))
    else:
        names["out"] = "\n".join(f"  out[{i}] = ctx->h[{i}];" for i in range(state))
    parts = [f"// {name}: {state * bits}-bit state, {steps} steps over {block}-byte blocks.",
             c_table(f"CONSTANT_AS {word} {name}_k[{steps}]", [rng.getrandbits(bits) for _ in range(steps)], fmt=hexw, per_line=4 if bits == 64 else 8),
             hash_macros(name, bits, rng), fill(HASH_CTX, **names)]
    vectors = [False] if bits == 64 else [False, True]
    for vector in vectors:
        parts.append(md_transform(name, word, rng, vector) if state == 4 else sha_transform(name, bits, steps, rng, vector))
    parts.append(per_space("p g l", HASH_UPDATE, **names))
    parts.append(per_space("p g", HASH_UPDATE_SWAP, **names))
    parts.append(fill(HASH_COMMON, **names))
    parts.append(per_space("p g", HASH_PW, **names))
    parts.append(per_space("p g", HASH_HMAC_INIT, **names))
    parts.append(per_space("g l", HASH_MATCH, **names))
    parts.append(per_space("g l", HASH_STORE, **names))
    return "\n".join(parts)


def hash_header(rng):
    parts = ['#include "lib_mem.h"', ""]
    parts += [hash_family(*family, rng) for family in HASH_FAMILIES]
    return guarded("lib_hash.h", parts)


# --- lib_cipher.h: an invented table-driven block cipher, a Feistel cipher and
# a byte-permutation stream cipher, with tables passed as __local or __constant

CIPHER_PRELUDE = """#ifndef BC_ROUNDS
#define BC_ROUNDS 10
#endif
#define BC_KS_WORDS (4 * (BC_ROUNDS + 1))
"""

BC_SIGNATURE = "HELPER_FN void bc_$what_$sfx(PRIVATE_AS const u32 *ks, PRIVATE_AS const u32 *in, PRIVATE_AS u32 *out, $S0 const u32 *t0, $S0 const u32 *t1, $S0 const u32 *t2, $S0 const u32 *t3, $S0 const u8 *sb)"

BC_SPACED = """HELPER_FN void bc_expand_key_$sfx(PRIVATE_AS u32 *ks, $S0 const u32 *key)
{
  for (u32 i = 0; i < 4; i++)
    ks[i] = key[i];
  for (u32 i = 4; i < BC_KS_WORDS; i++)
  {
    u32 t = ks[i - 1];
    if ((i & 3) == 0)
      t = PACK4(bc_sbox[BYTE_AT(t, 1)], bc_sbox[BYTE_AT(t, 2)], bc_sbox[BYTE_AT(t, 3)], bc_sbox[BYTE_AT(t, 0)]) ^ bc_rcon[(i / 4) & 15];
    ks[i] = ks[i - 4] ^ t;
  }
}
""", """HELPER_FN void bc_cbc_decrypt_$sfx(PRIVATE_AS u32 *out, $S0 const u32 *in, const u32 blocks, PRIVATE_AS u32 *iv, PRIVATE_AS const u32 *ks,
                               LOCAL_AS const u32 *t0, LOCAL_AS const u32 *t1, LOCAL_AS const u32 *t2, LOCAL_AS const u32 *t3, LOCAL_AS const u8 *sb)
{
  for (u32 b = 0; b < blocks; b++)
  {
    u32 c[4];
    u32 p[4];
    for (u32 i = 0; i < 4; i++)
      c[i] = in[4 * b + i];
    bc_decrypt_l(ks, c, p, t0, t1, t2, t3, sb);
    for (u32 i = 0; i < 4; i++)
    {
      out[4 * b + i] = p[i] ^ iv[i];
      iv[i] = c[i];
    }
  }
}
""", """HELPER_FN void bc_ctr_xor_$sfx($S0 u32 *data, const u32 blocks, PRIVATE_AS const u32 *nonce, PRIVATE_AS const u32 *ks)
{
  for (u32 b = 0; b < blocks; b++)
  {
    u32 ctr[4];
    u32 key[4];
    ctr[0] = nonce[0];
    ctr[1] = nonce[1];
    ctr[2] = nonce[2];
    ctr[3] = nonce[3] + b;
    bc_encrypt_c(ks, ctr, key, bc_te0, bc_te1, bc_te2, bc_te3, bc_sbox);
    for (u32 i = 0; i < 4; i++)
      data[4 * b + i] ^= key[i];
  }
}
"""

BC_SINGLE = """HELPER_FN void bc_invert_key(PRIVATE_AS u32 *ks)
{
  for (u32 i = 0, j = 4 * BC_ROUNDS; i < j; i += 4, j -= 4)
  {
    for (u32 k = 0; k < 4; k++)
    {
      const u32 t = ks[i + k];
      ks[i + k] = ks[j + k];
      ks[j + k] = t;
    }
  }
  for (u32 i = 4; i < 4 * BC_ROUNDS; i++)
  {
    const u32 v = ks[i];
    ks[i] = bc_td0[bc_sbox[v >> 24]] ^ bc_td1[bc_sbox[(v >> 16) & 0xff]] ^ bc_td2[bc_sbox[(v >> 8) & 0xff]] ^ bc_td3[bc_sbox[v & 0xff]];
  }
}

// Every work-item of the group copies a share of the tables, then all wait.
void bc_tables_to_local(LOCAL_AS u32 *s_t0, LOCAL_AS u32 *s_t1, LOCAL_AS u32 *s_t2, LOCAL_AS u32 *s_t3, LOCAL_AS u8 *s_sb, const int decrypt)
{
  const u32 lid = get_local_id(0);
  const u32 lsz = get_local_size(0);
  for (u32 i = lid; i < 256; i += lsz)
  {
    s_t0[i] = decrypt ? bc_td0[i] : bc_te0[i];
    s_t1[i] = decrypt ? bc_td1[i] : bc_te1[i];
    s_t2[i] = decrypt ? bc_td2[i] : bc_te2[i];
    s_t3[i] = decrypt ? bc_td3[i] : bc_te3[i];
    s_sb[i] = decrypt ? bc_inv_sbox[i] : bc_sbox[i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

void fc_tables_to_local(LOCAL_AS u32 (*s_fc)[64])
{
  const u32 lid = get_local_id(0);
  const u32 lsz = get_local_size(0);
  for (u32 i = lid; i < 64; i += lsz)
  {
    for (u32 n = 0; n < 8; n++)
      s_fc[n][i] = fc_sbox[n][i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
"""

FC_SPACED = """inline void fc_encrypt_$sfx(PRIVATE_AS u32 *blk, PRIVATE_AS const u32 *ks, $S0 const u32 (*sb)[64])
{
  u32 l = blk[0];
  u32 r = blk[1];
$rounds
  blk[0] = r;
  blk[1] = l;
}
""", """inline void fc_expand_key_$sfx(PRIVATE_AS u32 *ks, $S0 const u32 *key)
{
  u32 a = key[0];
  u32 b = key[1];
  for (u32 i = 0; i < 16; i++)
  {
    a = rotl32_one(a, 3) ^ fc_sbox[i & 7][b & 63];
    b = rotl32_one(b, 5) + a;
    ks[i] = a ^ b;
  }
}
"""

SC_SPACED = """void sc_init_$sfx($S0 u8 *S, PRIVATE_AS const u32 *key, const u32 key_len)
{
  for (u32 i = 0; i < 256; i++)
    S[i] = (u8) i;
  u8 j = 0;
  for (u32 i = 0; i < 256; i++)
  {
    const u32 kpos = i % key_len;
    j = (u8) (j + S[i] + (u8) BYTE_AT(key[kpos / 4], kpos & 3) + sc_tweak[i & 15]);
    const u8 t = S[i];
    S[i] = S[j];
    S[j] = t;
  }
}
""", """void sc_crypt_$sfx($S0 u8 *S, PRIVATE_AS u32 *data, const u32 words)
{
  u8 i = 0;
  u8 j = 0;
  for (u32 n = 0; n < words; n++)
  {
    u32 ks = 0;
    for (u32 b = 0; b < 4; b++)
    {
      i = (u8) (i + 1);
      j = (u8) (j + S[i]);
      const u8 t = S[i];
      S[i] = S[j];
      S[j] = t;
      ks |= (u32) S[(u8) (S[i] + S[j] + sc_tweak[b])] << (b * 8);
    }
    data[n] ^= ks;
  }
}
"""


def bc_round(k, src, dst, decrypt):
    """One table round of the block cipher, src words -> dst words."""
    lines = []
    for j in range(4):
        o = [(j + n) % 4 for n in range(4)] if not decrypt else [(j - n) % 4 for n in range(4)]
        lines.append(f"  {dst}{j} = t0[{src}{o[0]} >> 24] ^ t1[({src}{o[1]} >> 16) & 0xff] ^ t2[({src}{o[2]} >> 8) & 0xff] ^ t3[{src}{o[3]} & 0xff] ^ ks[{4 * k + j}];")
    return lines


def bc_function(what):
    """bc_encrypt / bc_decrypt: 9 rounds (13 with -DBC_ROUNDS=14), then the S-box round."""
    decrypt = what == "decrypt"
    out = [BC_SIGNATURE.replace("$what", what), "{"]
    out += [f"  u32 s{j} = in[{j}] ^ ks[{j}];" for j in range(4)]
    out += ["  u32 r0, r1, r2, r3;", ""]
    for k in range(1, 14):
        if k == 10:
            out.append("#if BC_ROUNDS > 10")
        out += bc_round(k, *("sr" if k % 2 else "rs"), decrypt)
    out.append("#endif")
    for j in range(4):
        o = [(j + n) % 4 for n in range(4)] if not decrypt else [(j - n) % 4 for n in range(4)]
        out.append(f"  out[{j}] = PACK4(sb[r{o[3]} & 0xff], sb[(r{o[2]} >> 8) & 0xff], sb[(r{o[1]} >> 16) & 0xff], sb[r{o[0]} >> 24]) ^ ks[4 * BC_ROUNDS + {j}];")
    out += ["}", ""]
    return "\n".join(out)


def fc_macro():
    terms = ["sb[0][((r) ^ (k)) & 63]"] + [f"sb[{n}][(ROTR32((r), {4 * n}) ^ ((k) >> {n})) & 63]" for n in range(1, 8)]
    return "#define FC_F(sb, r, k) \\\n  (" + " ^ \\\n   ".join(terms) + ")\n"


def cipher_header(rng):
    te0 = [rng.getrandbits(32) for _ in range(256)]
    td0 = [rng.getrandbits(32) for _ in range(256)]
    rot = lambda t, n: [((v << (8 * n)) | (v >> (32 - 8 * n))) & 0xFFFFFFFF for v in t]
    sbox = list(range(256))
    rng.shuffle(sbox)
    inverse = [sbox.index(i) for i in range(256)]
    parts = ['#include "lib_mem.h"', "", CIPHER_PRELUDE]
    parts += [c_table(f"CONSTANT_AS u32 bc_te{n}[256]", rot(te0, n)) for n in range(4)]
    parts += [c_table(f"CONSTANT_AS u32 bc_td{n}[256]", rot(td0, n)) for n in range(4)]
    parts.append(c_table("CONSTANT_AS u8 bc_sbox[256]", sbox, fmt="0x{:02x}", per_line=16))
    parts.append(c_table("CONSTANT_AS u8 bc_inv_sbox[256]", inverse, fmt="0x{:02x}", per_line=16))
    parts.append(c_table("CONSTANT_AS u32 bc_rcon[16]", [rng.getrandbits(32) for _ in range(16)]))
    parts.append(c_table("CONSTANT_AS u8 sc_tweak[16]", [rng.getrandbits(8) for _ in range(16)], fmt="0x{:02x}", per_line=16))
    fc_rows = [line for _ in range(8) for line in ["  {", *c_rows([rng.getrandbits(32) for _ in range(64)], indent="    "), "  },"]]
    parts.append("\n".join(["CONSTANT_AS u32 fc_sbox[8][64] =", "{", *fc_rows, "};", ""]))
    parts.append(fc_macro())
    parts += [per_space("l c", bc_function(what)) for what in ("encrypt", "decrypt")]
    parts += [per_space(combos, text) for combos, text in zip(("p g", "g p l", "g p l"), BC_SPACED)]
    parts.append(BC_SINGLE)
    rounds = "\n".join(f"  l ^= FC_F(sb, r, ks[{2 * i}]);\n  r ^= FC_F(sb, l, ks[{2 * i + 1}]);" for i in range(8))
    parts += [per_space(combos, text, rounds=rounds) for combos, text in zip(("c l", "p g"), FC_SPACED)]
    parts += [per_space("p l", text) for text in SC_SPACED]
    return guarded("lib_cipher.h", parts)


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
    modes = list(MODES)
    paths = []
    for i in range(units):
        mode = modes[i % len(modes)]
        os.makedirs(os.path.join(root, "kernels", mode), exist_ok=True)
        path = os.path.join("kernels", mode, f"prog{i:05d}.cl")
        with open(os.path.join(root, path), "w") as f:
            f.write(unit(i, mode, random.Random(f"{seed}-unit-{i}")))
        paths.append(path)
    entries = "".join(f'\n[[file]]\npath = "kernels/{mode}/*.cl"\noptions = {json.dumps(options)}\n' for mode, options in MODES.items())
    with open(os.path.join(root, "clasp.toml"), "w") as f:
        f.write(f'include = ["include"]\n{entries}')
    return paths


def options_of(path):
    return ["-Iinclude", *MODES[path.split(os.sep)[1]]]
