//! Functions the two compilations of a check share unchanged are kept out of
//! the equivalence pipeline: their bodies are dropped on both sides, and the
//! kernels compare their calls to them as calls.
//!
//! A kernel is compared with every helper inlined, so a change inside one
//! helper used to cost the optimisation of the whole kernel with everything
//! it calls (a hash kernel's rounds, a big codebase's shared headers). A
//! function whose unoptimised IR is the same on both sides (same
//! instructions, same callees, same globals, same address spaces) behaves
//! the same on both sides, so calling it is the same on both sides: it needs
//! neither inlining nor optimisation. Only what differs (the changed
//! helpers, their callers whose calls changed, functions reading a moved
//! table) is inlined and optimised, as before.
//!
//! It prints functions (with one slot tracker per module), makes
//! declarations and replaces uses through `lower`'s IR view: no `unsafe` here.

use std::collections::{HashMap, HashSet};

use super::canonical::canonical_type_names;
use super::ProofScope;
use super::PROVEN_PREFIX;
use crate::front::lower::{LoadedModule, Val};

/// The prefix a shared function's declaration is renamed with on both
/// sides: no `_Z` prefix, so the canonical printer never mistakes it for a
/// library builtin (whose flat casts it looks through).
const SHARED_PREFIX: &str = "clasp.same.";

/// What `share_identical` found.
pub(super) struct Sharing {
    /// Functions defined alike, now declared only on both sides.
    pub(super) shared: usize,
    /// Functions the original defines that the result defines differently
    /// (or merged into another), each a candidate for a proof of its own.
    pub(super) changed: Vec<Candidate>,
}

/// A function of the original and the result's function its callers call
/// instead (itself, or the survivor of a merge), with what a proof of the
/// two depends on.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub(super) original: String,
    pub(super) result: String,
    pub(super) key: ProofKey,
}

/// What a function-level proof depends on: both names and, on each side,
/// every function it runs, by name, with its text and the declarations of
/// the program-scope variables it names (their initialisers are no part of a proof).
pub(super) type ProofKey = (String, String, Closure, Closure);
pub(super) type Closure = std::collections::BTreeMap<String, (String, Vec<String>)>;

/// A function's text (see `fingerprints`), the defined functions it calls,
/// and the program-scope variables it names, as declared.
struct Fingerprint {
    print: String,
    callees: Vec<String>,
    globals: Vec<String>,
}

/// Drops the body of every non-kernel function defined alike in `original`
/// and `migrated`, on both sides; returns how many, and the functions
/// `scope` lets be proven on their own that are defined differently.
pub(super) fn share_identical(original: &mut LoadedModule<'_>, migrated: &mut LoadedModule<'_>, scope: &ProofScope) -> Sharing {
    let before = fingerprints(original);
    let after = fingerprints(migrated);
    let mut shared: HashSet<&String> =
        (before.iter()).filter(|(name, mark)| after.get(*name).map(|m| &m.print) == Some(&mark.print)).map(|(n, _)| n).collect();
    // A function calling one that differs differs too (its calls do
    // something else), whatever its own text: shared only with every
    // function it calls, to the leaves.
    loop {
        let differing: Vec<&String> = (shared.iter().copied())
            .filter(|name| before[*name].callees.iter().chain(&after[*name].callees).any(|callee| !shared.contains(callee)))
            .collect();
        if differing.is_empty() {
            break;
        }
        for name in differing {
            shared.remove(name);
        }
    }
    let changed = changed(&before, &after, &shared, scope);
    for name in &shared {
        original.replace_with_declaration(name, &format!("{SHARED_PREFIX}{name}"));
        migrated.replace_with_declaration(name, &format!("{SHARED_PREFIX}{name}"));
    }
    Sharing { shared: shared.len(), changed }
}

/// The functions of the original (that the kernels reach) that `scope`
/// lets be proven and that are not shared, with the result's function
/// replacing them (the same name, or the survivor of a merge) when the
/// kernels reach it, each with a key: the texts of
/// both and of everything they call, to the leaves. Two checks giving a
/// pair the same key would prove it alike, so a proof is kept by that key.
/// A function reaching a kernel (whose text `fingerprints` does not keep) is none.
fn changed(
    before: &HashMap<String, Fingerprint>,
    after: &HashMap<String, Fingerprint>,
    shared: &HashSet<&String>,
    scope: &ProofScope,
) -> Vec<Candidate> {
    let closure = |side: &HashMap<String, Fingerprint>, name: &String| {
        let mut seen = std::collections::BTreeMap::new();
        let mut pending = vec![name];
        while let Some(next) = pending.pop() {
            let mark = side.get(next)?;
            if !seen.contains_key(next) {
                seen.insert(next.clone(), (mark.print.clone(), mark.globals.clone()));
                pending.extend(&mark.callees);
            }
        }
        Some(seen)
    };
    let mut out: Vec<Candidate> = (before.keys())
        .filter(|name| (scope.every_function || scope.shared.contains(*name)) && !shared.contains(name))
        .filter_map(|name| {
            let result = scope.merged.get(name).filter(|r| after.contains_key(*r)).unwrap_or(name);
            let key = (name.clone(), result.clone(), closure(before, name)?, closure(after, result)?);
            Some(Candidate { original: name.clone(), result: result.clone(), key })
        })
        .collect();
    out.sort_by(|a, b| a.original.cmp(&b.original));
    out
}

/// Declares the functions proven on their own only, on both sides, by the
/// result's name (LLVM numbers a second original proven against the same
/// result function: `canonical.rs` reads the name without that number).
/// A result function standing for one original only is declared with the
/// original's parameters, its calls casting their flat pointers back to the
/// named space: InferAddressSpaces then folds each pair of casts, through
/// any offsets taken in between, and the call reads as the original's. (A
/// cast it cannot fold, the pointer coming from elsewhere, stays a line of
/// its own, and the kernels differ.)
pub(super) fn declare_proven(original: &mut LoadedModule<'_>, migrated: &mut LoadedModule<'_>, proven: &[Candidate]) {
    let mut standing_for: HashMap<&str, usize> = HashMap::new();
    for pair in proven {
        *standing_for.entry(pair.result.as_str()).or_default() += 1;
    }
    for pair in proven {
        let declared = format!("{PROVEN_PREFIX}{}", pair.result);
        match original.replace_with_declaration(&pair.original, &declared) {
            Some(original_type) if standing_for[pair.result.as_str()] == 1 => {
                migrated.replace_with_declaration_of_type(&pair.result, &declared, original_type)
            }
            // Declared once however many originals it stands for (then no longer defined).
            _ => drop(migrated.replace_with_declaration(&pair.result, &declared)),
        }
    }
}

/// Every defined non-kernel function the kernels reach, by name: its IR as
/// printed (metadata attachments and attribute-group numbers left out, they
/// are numbered per module; each struct as its name without the context's
/// suffix, then its body), the defined functions it calls, and the
/// program-scope variables it names.
fn fingerprints(module: &LoadedModule<'_>) -> HashMap<String, Fingerprint> {
    let mut out = HashMap::new();
    let mut structs = HashMap::new();
    let printer = module.slot_printer();
    // Only what the kernels reach: the rest is never inlined into anything compared.
    let mut pending: Vec<Val<'_>> = Vec::new();
    for function in module.function_values() {
        if function.is_defined_function() && function.is_kernel() {
            pending.extend(defined_callees(function));
        }
    }
    while let Some(function) = pending.pop() {
        let name = function.name();
        if function.is_kernel() || out.contains_key(&name) {
            continue;
        }
        let callees = defined_callees(function);
        // A struct prints as its name and its body: two layouts never read alike.
        let printed = (printer.print_function(function).lines())
            .map(|line| canonical_type_names(&without_numbering(line), module, &mut structs))
            .collect::<Vec<_>>()
            .join("\n");
        let globals = (named_globals(function).into_iter())
            .map(|g| canonical_type_names(&global_declaration(g), module, &mut structs))
            .collect();
        out.insert(name, Fingerprint { print: printed, callees: callees.iter().map(|c| c.name()).collect(), globals });
        pending.extend(callees);
    }
    out
}

/// The program-scope variables `function`'s instructions name, directly or
/// inside constant expressions, in order of first use.
fn named_globals(function: Val<'_>) -> Vec<Val<'_>> {
    let mut found = Vec::new();
    for inst in function.instructions() {
        let mut pending: Vec<Val<'_>> = inst.operands().collect();
        while let Some(value) = pending.pop() {
            if value.is_global_variable() {
                if !found.contains(&value) {
                    found.push(value);
                }
            } else if value.is_constant_expression() {
                pending.extend(value.operands());
            }
        }
    }
    found
}

/// A program-scope variable as a declaration reads: name, space, type,
/// whether constant, alignment (not its initialiser).
fn global_declaration(global: Val<'_>) -> String {
    let Some(declared) = global.global_declaration() else { return String::new() };
    format!(
        "@{} addrspace({}) {} {} align {}",
        global.name(),
        declared.space,
        if declared.constant { "constant" } else { "global" },
        declared.value_type.print(),
        declared.alignment
    )
}

/// The functions with a body that `function` calls (kernels included).
fn defined_callees(function: Val<'_>) -> Vec<Val<'_>> {
    (function.instructions()).filter_map(|inst| inst.called_function()).filter(|callee| callee.is_defined_function()).collect()
}

/// A printed IR line without what is numbered per module: metadata
/// attachments (`, !tbaa !12`) and attribute groups (`#3`). (Struct names,
/// numbered per context, are `canonical_type_names`' job.)
fn without_numbering(line: &str) -> String {
    let line = line.split(", !").next().unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            out.push('#');
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::without_numbering;
    use crate::front::lower::{load, Context};

    /// Printing with one tracker for the module reads exactly as printing
    /// each function on its own: numbered values, attribute groups,
    /// metadata attachments, structs and unnamed globals alike.
    #[test]
    fn one_tracker_prints_what_one_print_per_function_prints() {
        let ir = "%struct.T = type { float, i32 }\n\
             @0 = private addrspace(1) constant [2 x i32] [i32 1, i32 2]\n\
             @table = addrspace(1) global %struct.T zeroinitializer\n\
             define internal float @h(ptr addrspace(1) %p, i32 %i) #0 {\n  \
               %q = getelementptr inbounds %struct.T, ptr addrspace(1) %p, i32 %i\n  \
               %1 = load float, ptr addrspace(1) %q, align 4, !tbaa !0\n  \
               %2 = load i32, ptr addrspace(1) @0, align 4\n  \
               %3 = sitofp i32 %2 to float\n  \
               %4 = fadd float %1, %3\n  \
               ret float %4\n}\n\
             define amdgpu_kernel void @k(ptr addrspace(1) %out) #1 {\n  \
               %v = call float @h(ptr addrspace(1) @table, i32 1) #0\n  \
               store float %v, ptr addrspace(1) %out, align 4, !tbaa !0\n  \
               ret void\n}\n\
             attributes #0 = { nounwind \"x\"=\"y\" }\n\
             attributes #1 = { convergent }\n\
             !0 = !{!1, !1, i64 0}\n!1 = !{!\"float\", !2}\n!2 = !{!\"tbaa root\"}\n";
        let context = Context::create();
        let module = load(&context, ir.as_bytes(), "t.ll").expect("the test IR parses");
        let printer = module.slot_printer();
        assert!(printer.has_tracker());
        let mut printed = 0;
        for function in module.function_values() {
            assert_eq!(printer.print_function(function), function.print());
            printed += 1;
        }
        assert_eq!(printed, 2);
    }

    #[test]
    fn numbering_per_module_is_left_out() {
        assert_eq!(
            without_numbering("  %3 = load float, ptr addrspace(1) %2, align 4, !tbaa !12"),
            "  %3 = load float, ptr addrspace(1) %2, align 4"
        );
        assert_eq!(without_numbering("define internal float @f(ptr %p) #3 {"), "define internal float @f(ptr %p)  {");
        assert_eq!(without_numbering("  %add.1 = fadd float %x.0, 1.0"), "  %add.1 = fadd float %x.0, 1.0");
        assert_eq!(without_numbering("  call void @g(i32 7) #5"), "  call void @g(i32 7) ");
    }
}
