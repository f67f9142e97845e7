#!/usr/bin/env python3
"""Generates one big OpenCL C 1.2 `[[program]]`, as a renderer's path-tracing
megakernel is: about 140 parts concatenated in order by the host, tens of
thousands of lines (not a test: the benchmark and a CLI test call it).

The parts, in order:
  part000.cl   the common header: structs, qualifier macros, `__constant`
               tables (lookup tables, and a few passed by pointer).
  partNNN.cl   helper modules: per-address-space duplicates (`_g` `__global`,
               `_l` `__local`, `_p` private), exact and with one token
               different; chains of helpers passing a pointer on (offset
               at each step); unrolled loops; helpers reading `__constant`
               tables by pointer; a 1.x atomic that pins its pointer; struct
               pointers (`__global const Material *`, private `Hit *`).
  the last parts: a few huge kernels, each calling the entry helpers of
               hundreds of modules, some with unrolled bounce loops.
and clasp.toml declaring the program (`[[program]] sources = [...]`).

Deterministic for a seed and a size: `--lines` is the target total; the
number of parts and of kernels follow it (140 parts and 4 kernels at
50,000 lines; fewer for a small instance).

    scripts/gen_big_program.py OUT_DIR [--lines 50000] [--seed 1] [--parts N] [--kernels N]
"""

import argparse
import os
import random

HEADER = """/* part000: the common header of the program */
#define GLOBAL_AS __global
#define LOCAL_AS __local
#define INLINE_FN inline
#define EPS 1e-4f
#define MAX_BOUNCES 4

typedef struct {
    float4 albedo;
    float roughness;
    float ior;
    int kind;
    int texture;
} Material;

typedef struct {
    float t;
    float3 n;
    int material;
    int prim;
} Hit;

typedef struct {
    float3 o;
    float3 d;
    float tmin;
    float tmax;
} Ray;
"""


def table(name, size, rng):
    values = ", ".join(f"{rng.random():.5f}f" for _ in range(size))
    return f"__constant float {name}[{size}] = {{{values}}};\n"


def header(rng, tables):
    out = [HEADER]
    for t in range(tables):
        out.append(table(f"c_table{t}", 64, rng))
    return "\n".join(out)


class Module:
    """One helper part: its functions, and the calls a kernel makes into it."""

    def __init__(self, index, rng, tables, weight):
        self.index = index
        self.p = f"m{index:03d}"
        self.rng = rng
        self.tables = tables
        self.lines = []
        self.calls = []  # statements for a kernel (in scope: g, gc, l, priv, mats, hit, acc, gid, lid, counts)
        self.weight = weight
        self.entries = []  # (name, space) others may call: f(p, int)

    def emit(self, text):
        self.lines.append(text)

    def duplicates(self, k):
        """The same helper per space; the `_l` one differs by a token one time in three."""
        name = f"{self.p}_accum{k}"
        op = self.rng.choice(["+", "-", "*"])
        scale = self.rng.randint(2, 9)
        differ = self.rng.random() < 0.33
        for space, suffix in (("GLOBAL_AS", "g"), ("LOCAL_AS", "l"), ("", "p")):
            start = "1.0f" if differ and suffix == "l" else "0.0f"
            q = f"{space} " if space else ""
            self.emit(
                f"float {name}_{suffix}({q}const float *src, int n)\n{{\n    float s = {start};\n"
                f"    for (int i = 0; i < n; i++)\n        s = s {op} src[i] * {scale}.0f;\n    return s;\n}}\n"
            )
        self.calls += [f"acc += {name}_g(gc + (gid & 7), 4);", f"acc += {name}_l(l + (lid & 3), 4);",
                       f"acc += {name}_p(priv, 4);"]

    def chain(self, k, depth):
        """Helpers passing a pointer on through `depth` calls, per space."""
        for space, suffix in (("__global", "g"), ("__local", "l")):
            base = f"{self.p}_chain{k}_{suffix}"
            self.emit(f"float {base}_0({space} const float *p, int i)\n{{\n    return p[i & 3] * 0.5f + p[0];\n}}\n")
            for d in range(1, depth):
                self.emit(
                    f"float {base}_{d}({space} const float *p, int i)\n{{\n    float v = p[{d % 4}];\n"
                    f"    return {base}_{d - 1}(p + 1, i + {d}) + v;\n}}\n"
                )
        self.entries.append((f"{self.p}_chain{k}_g_{depth - 1}", "g"))
        self.calls += [f"acc += {self.p}_chain{k}_g_{depth - 1}(gc, gid);",
                       f"acc += {self.p}_chain{k}_l_{depth - 1}(l, lid);"]

    def unrolled(self, k, steps):
        """An unrolled loop over a `__global` pointer, weighted by a table."""
        t = self.rng.randrange(self.tables)
        body = "".join(f"    s += p[{i}] * c_table{t}[{(i * 7 + k) % 64}];\n" for i in range(steps))
        self.emit(f"float {self.p}_unrolled{k}(__global const float *p)\n{{\n    float s = 0.0f;\n{body}    return s;\n}}\n")
        self.calls.append(f"acc += {self.p}_unrolled{k}(gc + (gid & 15));")

    def constant_reader(self, k):
        """A helper given a `__constant` table by pointer (it stays `__constant`)."""
        t = self.rng.randrange(self.tables)
        self.emit(f"float {self.p}_lookup{k}(__constant float *t, int i)\n{{\n    return t[i & 63] * 2.0f + t[(i + 1) & 63];\n}}\n")
        self.calls.append(f"acc += {self.p}_lookup{k}(c_table{t}, gid);")

    def struct_helpers(self, k):
        """Struct pointers: a material read from `__global`, a private hit updated."""
        self.emit(
            f"float {self.p}_shade{k}(__global const Material *m, float3 n)\n{{\n"
            f"    float d = fmax(dot(n, (float3)(0.0f, 1.0f, 0.0f)), 0.0f);\n"
            f"    return m->albedo.x * d * (1.0f - m->roughness) + m->ior * {k + 1}.0f;\n}}\n"
        )
        self.emit(
            f"void {self.p}_update{k}(Hit *h, float t, int prim)\n{{\n"
            f"    if (t > EPS && t < h->t) {{\n        h->t = t;\n        h->prim = prim;\n    }}\n}}\n"
        )
        self.calls += [f"acc += {self.p}_shade{k}(mats + (gid & 3), hit.n);",
                       f"{self.p}_update{k}(&hit, acc, {k});"]

    def compose(self, k, lower):
        """A helper calling entry helpers of modules one level down, with
        its own pointers, offset (a renderer's shading calling its BSDFs,
        calling their Fresnel and sampling terms): inlined, sizes multiply."""
        calls = [c for c in lower if c[1] == "g"]
        picked = self.rng.sample(calls, min(3, len(calls))) if calls else []
        body = "".join(f"    s += {name}(p + {i + 1}, i + {i});\n" for i, (name, _) in enumerate(picked))
        name = f"{self.p}_compose{k}_g"
        self.emit(f"float {name}(__global const float *p, int i)\n{{\n    float s = p[i & 7];\n{body}    return s;\n}}\n")
        self.entries.append((name, "g"))
        self.calls.append(f"acc += {name}(gc + (gid & 7), gid);")

    def span(self):
        """Pointer subtraction: generic pointers compare otherwise at amdgcn (not-equivalent)."""
        self.emit(
            f"int {self.p}_span_g(__global const float *p, __global const float *end)\n{{\n"
            f"    return (int)(end - p);\n}}\n"
        )
        self.calls.append(f"acc += (float){self.p}_span_g(gc, gc + (gid & 31));")

    def atomic(self):
        """A 1.x atomic: its pointer stays `__global`."""
        self.emit(f"void {self.p}_count(__global int *c, int v)\n{{\n    atomic_add(c + (v & 7), 1);\n}}\n")
        self.calls.append(f"{self.p}_count(counts, gid);")

    def build(self, target_lines, lower):
        """Helpers up to `target_lines`; `lower`: entry helpers of the level below."""
        self.emit(f"/* part {self.p}: helpers */\n")
        k = 0
        while sum(s.count("\n") for s in self.lines) < target_lines:
            kind = self.rng.random()
            if kind < 0.12 and lower:
                self.compose(k, lower)
            elif kind < 0.35:
                self.duplicates(k)
            elif kind < 0.55:
                self.chain(k, self.rng.randint(3, 6))
            elif kind < 0.7:
                self.unrolled(k, self.rng.choice([8, 16, 32]))
            elif kind < 0.82:
                self.constant_reader(k)
            else:
                self.struct_helpers(k)
            k += 1
        if self.rng.random() < 0.3:
            self.atomic()
        if self.index % 33 == 1:
            self.span()
        return "\n".join(self.lines)


def kernel(name, modules, rng, bounces):
    """A huge kernel calling the entry helpers of `modules`, its bounce loop unrolled."""
    out = [
        f"__kernel void {name}(__global float *g, __global const float *gc, __global const Material *mats,\n"
        f"                     __global int *counts, __local float *l)\n{{",
        "    int gid = get_global_id(0);\n    int lid = get_local_id(0);",
        "    l[lid] = gc[gid];\n    barrier(CLK_LOCAL_MEM_FENCE);",
        "    float priv[4] = {gc[0], gc[1], gc[2], gc[3]};",
        "    Hit hit;\n    hit.t = 1e30f;\n    hit.n = (float3)(0.0f, 1.0f, 0.0f);\n    hit.prim = -1;\n    hit.material = 0;",
        "    float acc = 0.0f;",
    ]
    for bounce in range(bounces):
        out.append(f"    /* bounce {bounce} */")
        for module in modules:
            calls = module.calls
            picked = calls if bounce == 0 else rng.sample(calls, max(1, len(calls) // 4))
            out += [f"    {c}" for c in picked]
        out.append(f"    priv[{bounce % 4}] = acc;")
    out.append("    g[gid] = acc + hit.t;\n}\n")
    return "\n".join(out)


def generate(root, lines, seed, parts=None, kernels=None):
    rng = random.Random(seed)
    parts = parts or max(6, round(140 * lines / 50000))
    kernels = kernels or max(1, min(4, round(4 * lines / 50000 + 0.5)))
    tables = 8
    kernel_parts = kernels
    module_parts = parts - 1 - kernel_parts
    os.makedirs(os.path.join(root, "kernels"), exist_ok=True)
    texts = [header(rng, tables)]
    # Kernels take about 35% of the lines; the rest is helpers.
    per_module = max(20, int(lines * 0.65 / module_parts))
    modules = [Module(i + 1, rng, tables, per_module) for i in range(module_parts)]
    # Levels: a module's composed helpers call entry helpers of modules one level down.
    levels = 6
    for i, m in enumerate(modules):
        level = i * levels // module_parts
        lower = [e for j, o in enumerate(modules[:i]) if j * levels // module_parts == level - 1 for e in o.entries]
        texts.append(m.build(per_module, lower))
    kernel_lines = max(0, lines - sum(t.count("\n") for t in texts))
    calls = sum(len(m.calls) for m in modules)
    for k in range(kernels):
        # Each kernel runs most modules; the bounces fill the lines left.
        runs = sorted(rng.sample(range(module_parts), max(1, module_parts * 3 // 4)), key=int)
        runs_calls = sum(len(modules[i].calls) for i in runs)
        bounces = max(1, min(8, int((kernel_lines / kernels) / max(1, runs_calls) * 4 / 3)))
        texts.append(kernel(f"render{k}", [modules[i] for i in runs], rng, bounces))
    names = []
    for i, text in enumerate(texts):
        name = f"kernels/part{i:03d}.cl"
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
        names.append(name)
    sources = ",\n    ".join(f'"{n}"' for n in names)
    with open(os.path.join(root, "clasp.toml"), "w") as f:
        f.write(f'host = false\n\n[[program]]\nname = "megakernel"\nsources = [\n    {sources},\n]\n')
    return names, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--lines", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", type=int)
    parser.add_argument("--kernels", type=int)
    args = parser.parse_args()
    names, _ = generate(args.out, args.lines, args.seed, args.parts, args.kernels)
    total = 0
    for n in names:
        with open(os.path.join(args.out, n)) as f:
            total += f.read().count("\n")
    print(f"{len(names)} parts, {total} lines in {args.out}")


if __name__ == "__main__":
    main()
