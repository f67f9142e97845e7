"""Small C-writing helpers shared by the shared-headers generator's modules:
`$name` templates, helpers written once per address space, initializer
tables, include guards.
"""

from string import Template


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
