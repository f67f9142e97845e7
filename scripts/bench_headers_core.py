"""lib_types.h and lib_mem.h of the shared-headers shape (see
bench_shared_headers.py): address-space spellings, option defaults, vector
types, rotations and byte order, round functions; memcpy/memset/memcmp-style
helpers written once per address space with the __constant tables they read,
1.x atomics, an async copy, a cast to a named space.
"""

import random
import re

from bench_c import c_table, fill, guarded, per_space


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
