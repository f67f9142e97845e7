//! Pins: what keeps one declaration's named address space on its own
//! account (not through its downstream), checked in an order that puts the
//! reason that says most first, and the one a required change may override
//! (code `#if` skips naming the function) last.

use super::InferOptions;
use crate::codes::Code;
use crate::facts::flowgraph::FlowGraph;
use crate::facts::ir::{Node, Sink};
use crate::facts::syntax::{
    ByteRange, Function, KernelSyntax, Level, MacroSite, PointerDecl, SiteKind, SkippedRange, Space, Spelling,
};
use crate::front::unit::Unit;
use crate::infer::describe::at;

/// A pin and what it says.
type Pin = Option<(Code, String)>;

/// Builtins with no generic-pointer overload under OpenCL 2.0.
pub fn builtin_pins(name: &str) -> bool {
    const LEGACY_ATOMICS: [&str; 11] = ["add", "sub", "xchg", "inc", "dec", "cmpxchg", "min", "max", "and", "or", "xor"];
    if let Some(op) = name.strip_prefix("atomic_").or_else(|| name.strip_prefix("atom_")) {
        return LEGACY_ATOMICS.contains(&op);
    }
    matches!(name, "async_work_group_copy" | "async_work_group_strided_copy" | "prefetch")
}

/// A pin on a declaration itself (not through its downstream): the first of
/// the stages below that finds one.
pub(super) fn own_pin(
    unit: &Unit,
    graph: &FlowGraph,
    function: &Function,
    decl: &PointerDecl,
    node: &Node,
    options: &InferOptions,
) -> Pin {
    let level = decl.levels.first()?;
    declared_pin(unit, function, decl, level, options)
        .or_else(|| skipped_use_pin(unit, function, decl))
        .or_else(|| cast_pin(unit, decl, level))
        .or_else(|| sink_pin(unit, graph, node))
        .or_else(|| qualifier_pin(&unit.syntax, decl, level, options))
        .or_else(|| skipped_caller_pin(unit, function))
        .or_else(|| unbuildable_caller_pin(unit, function))
}

/// Pins known from the declaration and its function alone: `__constant`,
/// refused from outside the unit, written in a macro, its size observed, or
/// a function the compiler does not emit (so no flow facts to go by).
fn declared_pin(unit: &Unit, function: &Function, decl: &PointerDecl, level: &Level, options: &InferOptions) -> Pin {
    if level.space == Space::Constant && !options.moved.contains(&(decl.pos.file, decl.pos.offset)) {
        return Some((Code::ConstantSpace, "__constant is not part of the generic address space".into()));
    }
    if let Some((reason, detail)) = options.refused_from_outside.get(&(decl.pos.file, decl.pos.offset)) {
        return Some((*reason, detail.clone()));
    }
    // A qualifier a macro writes is edited there, where every expansion agrees (`qualifier_pin`, `plan::agree`).
    let at_macro_site = matches!(level.spelling, Spelling::MacroSite { .. });
    if let Some(m) = decl.in_macro.as_ref().or(function.in_macro.as_ref()).filter(|_| !at_macro_site) {
        return Some((Code::Macro, format!("declared inside the expansion of macro `{m}`")));
    }
    if decl.sizeof_used {
        return Some((Code::SizeofPointer, format!("`sizeof({})` observes the pointer's own size", decl.name)));
    }
    if !unit.ir.function(&function.link_name).map(|f| f.is_definition).unwrap_or(false) {
        return Some((Code::NoEvidence, format!("`{}` is not emitted by the compiler", function.name)));
    }
    None
}

/// "file:line" of a range `#if` skips, for messages.
pub fn skipped_at(unit: &Unit, skipped: &SkippedRange) -> String {
    unit.place_of(&unit.syntax.files[skipped.range.file], skipped.first_line, 1).file_line()
}

/// The declaration is used, other than to reach what it points to, in code
/// that `#if` skips inside its function: the compiler never saw that use.
fn skipped_use_pin(unit: &Unit, function: &Function, decl: &PointerDecl) -> Pin {
    let syntax = &unit.syntax;
    let extent = &function.extent;
    let inside = |r: &ByteRange| r.file == extent.file && r.start >= extent.start && r.end <= extent.end;
    let skipped = syntax.skipped.iter().find(|s| inside(&s.range) && s.escaping.contains(&decl.name))?;
    let at = skipped_at(unit, skipped);
    let bound = unit.discovery_bound.map(|n| {
        let builds = crate::support::text::plural(n, "extra build", "");
        format!(" (configuration discovery stopped at its bound of {builds} of this unit: --discover-configurations)")
    });
    Some((Code::SkippedIf, format!("`{}` is used in code skipped by #if at {at}{}", decl.name, bound.unwrap_or_default())))
}

/// Its value, or a pointer derived from it, is cast to a named-space pointer
/// that the migration cannot turn into a mere retyping: the cast names
/// another space than the declaration's (from generic, a cast into a
/// space the pointer may not be in), or `__constant` (not part of generic),
/// or its qualifier cannot be edited where the cast is written.
fn cast_pin(unit: &Unit, decl: &PointerDecl, level: &Level) -> Pin {
    for cast in &decl.casts {
        let at = unit.place_of(&unit.syntax.files[cast.file], cast.line, 1).file_line();
        let into = cast.space.keyword();
        if cast.space != level.space || cast.space == Space::Constant {
            let detail =
                format!("its value is cast to a {into} pointer at {at}, which would cast a generic pointer into a named space");
            return Some((Code::CastToNamed, detail));
        }
        if let Spelling::Hidden { why } = &cast.spelling {
            let detail =
                format!("its value is cast to a {into} pointer at {at}, whose qualifier comes from a {why}, not editable there");
            return Some((Code::CastToNamed, detail));
        }
    }
    None
}

/// Where its value goes directly: a builtin with no generic overload, a
/// callee the unit does not define, memory, or an integer. A store into
/// memory the target's build declares generic (a field written `const T *`
/// under `#if __OPENCL_C_VERSION__ >= 200`) takes a generic pointer as well.
fn sink_pin(unit: &Unit, graph: &FlowGraph, node: &Node) -> Pin {
    let syntax = &unit.syntax;
    for flow in graph.outgoing(node) {
        if flow.to == Sink::Memory && unit.ir.generic_stores_in_target.contains(&flow.at) {
            continue;
        }
        let here = at(unit, &flow.at);
        match &flow.to {
            Sink::Builtin { name, .. } if builtin_pins(name) => {
                return Some((Code::BuiltinPin, format!("passed to `{name}` at {here}, which has no generic overload")));
            }
            Sink::External { name, .. } => {
                return Some((Code::UndefinedCallee, format!("passed to `{name}` at {here}, not defined in this unit")));
            }
            Sink::Builtin { name, mangled, .. } if is_user_prototype(syntax, mangled) => {
                return Some((Code::UndefinedCallee, format!("passed to `{name}` at {here}, not defined in this unit")));
            }
            Sink::Memory => return Some((Code::EscapesToMemory, format!("stored into memory at {here}"))),
            Sink::Integer => return Some((Code::PointerToInteger, format!("converted to an integer at {here}"))),
            _ => {}
        }
    }
    None
}

/// The qualifier itself: hidden where it cannot be edited, written in a
/// macro that an expansion uses otherwise, or on a pointer to volatile data.
fn qualifier_pin(syntax: &KernelSyntax, decl: &PointerDecl, level: &Level, options: &InferOptions) -> Pin {
    if let Spelling::Hidden { why } = &level.spelling {
        return Some((Code::HiddenQualifier, format!("the qualifier comes from a {why}, not editable here")));
    }
    if let Spelling::MacroSite { site, .. } = &level.spelling {
        let disagreement = syntax.macro_sites.get(&site.range).map(|facts| facts.disagreement.as_deref());
        let elsewhere = options.site_refusals.get(&(site.range.file, site.range.start)).map(String::as_str);
        if let Some(why) = disagreement.unwrap_or(Some("its expansions were not checked")).or(elsewhere) {
            return Some(macro_site_pin(syntax, site, why));
        }
    }
    // Checked before the build (after the pins that say more, such as a 1.x atomic): a generic pointer to volatile data would compile, and be
    // withdrawn by verification every time, after a costly bisection.
    if decl.type_text.split('*').next().is_some_and(|pointee| pointee.split_whitespace().any(|w| w == "volatile")) {
        let detail = "it points to volatile data: volatile accesses through a generic pointer stay flat (LLVM does not infer their address space), so the kernels would change";
        return Some((Code::VolatilePointee, detail.into()));
    }
    None
}

/// The pin of a declaration whose qualifier is written in a macro that
/// cannot change: `macro` for an argument of the use, `hidden-qualifier` for
/// the macro's definition, as before such qualifiers were edited.
pub fn macro_site_pin(syntax: &KernelSyntax, site: &MacroSite, why: &str) -> (Code, String) {
    let file = syntax.files[site.range.file].display();
    match site.kind {
        SiteKind::Argument => {
            (Code::Macro, format!("the qualifier is an argument of macro `{}` ({file}), and {why}", site.macro_name))
        }
        SiteKind::Body => {
            (Code::HiddenQualifier, format!("the qualifier comes from macro `{}` ({file}), and {why}", site.macro_name))
        }
    }
}

/// Last: the one pin a required change overrides (see `infer`).
/// A generic parameter accepts every pointer but a __constant one, so unseen code
/// naming the function (a call, or only another configuration's definition) is a
/// risk only where it could pass a __constant pointer: it spells __constant, or
/// names a declaration in its scope that is a __constant variable or pointer.
fn skipped_caller_pin(unit: &Unit, function: &Function) -> Pin {
    let syntax = &unit.syntax;
    let skipped = syntax
        .skipped
        .iter()
        .map(|s| &**s)
        .filter(|s| s.identifiers.contains(&function.name))
        .find(|s| s.spells_constant || s.identifiers.iter().any(|name| names_constant(syntax, s, name)))?;
    let at = skipped_at(unit, skipped);
    let detail = format!("`{}` is named in code skipped by #if at {at}, which could pass a __constant pointer", function.name);
    Some((Code::SkippedCaller, detail))
}

/// Skipped code naming the function, for which clasp derived a configuration
/// that does not compile as written: a change here could make it compile
/// (a generic parameter accepting what a named one refused), so what that
/// code would do is unknown, and a second run would see other code.
fn unbuildable_caller_pin(unit: &Unit, function: &Function) -> Pin {
    let syntax = &unit.syntax;
    let skipped = syntax.skipped.iter().find(|s| {
        let r = &s.range;
        s.identifiers.contains(&function.name) && unit.unbuildable.contains(&(r.file, r.start, r.end))
    })?;
    let at = skipped_at(unit, skipped);
    let detail = format!(
        "`{}` is named in code skipped by #if at {at}, which the configuration clasp derived to build it does not compile",
        function.name
    );
    Some((Code::SkippedCaller, detail))
}

/// Whether `name`, in skipped code, can be a __constant variable or pointer:
/// resolved by declaration, as the compiler would, never by name alone. A
/// pointer of the function around the skipped code (a parameter or local)
/// shadows program-scope variables; a pointer of another function is not in
/// scope there, whatever its name.
fn names_constant(syntax: &KernelSyntax, skipped: &SkippedRange, name: &str) -> bool {
    let range = &skipped.range;
    let around = syntax.functions.iter().find(|f| {
        let e = &f.extent;
        f.is_definition && e.file == range.file && e.start <= range.start && range.end <= e.end
    });
    if let Some(decl) = around.and_then(|f| f.pointers.iter().find(|d| d.name == name)) {
        return decl.levels.first().is_some_and(|l| l.space == Space::Constant);
    }
    syntax.program_vars.iter().any(|v| v.name == name && v.space == Space::Constant)
}

/// A call to a function the unit declares but does not define (the IR sees a declaration).
fn is_user_prototype(syntax: &KernelSyntax, mangled: &str) -> bool {
    syntax.functions.iter().any(|f| f.link_name == mangled && !f.is_definition)
}
