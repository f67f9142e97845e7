"""lib_hash.h and lib_cipher.h of the shared-headers shape (see
bench_shared_headers.py): four invented hash families and invented
table-driven, Feistel and stream ciphers whose tables are passed as __local
or __constant pointers. Written from scratch; nothing here is a real algorithm.
"""


from bench_c import c_rows, c_table, fill, guarded, per_space


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
