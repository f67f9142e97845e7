//! A module's facts read per function, then put together: `lower` reads a
//! unit compiled against its batch's shared preamble (`preamble`), whose
//! precompiled header declares the headers' functions without their bodies,
//! so the unit's compile defines its own functions only (a call into a
//! header function still reads as a call into a defined one), and completes
//! it with every header function from the preamble compiled alone, as the
//! unit compiled whole would have them.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::{llvm, trace, Context, LoadError};
use crate::facts::ir::{spir_space, Flow, IrFacts, IrFunction, IrGlobal};
use crate::facts::syntax::Space;

/// Extracts facts from already compiled bitcode or textual IR.
pub fn facts_from_bitcode(context: &Context, bytes: &[u8], name: &str) -> Result<IrFacts, LoadError> {
    Ok(Parts::read(context, bytes, name, &HashSet::new())?.into_facts())
}

/// One defined or declared function's facts, as its module shows them.
/// Shared: every unit compiled against a preamble holds its header
/// functions' facts, once per batch.
#[derive(Debug)]
pub(super) struct FunctionFacts {
    function: Arc<IrFunction>,
    flows: Vec<Arc<Flow>>,
    /// Globals it stores into directly.
    written: BTreeSet<String>,
    /// Functions it calls that its module only declares: were one defined
    /// with it, its flows into it and its calls would read differently.
    declared_callees: BTreeSet<String>,
}

/// A module's facts before they are put together: per function, and its globals.
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
    functions: Vec<Arc<FunctionFacts>>,
    globals: Vec<(String, Space, u64)>,
    /// The names of the functions it defines.
    pub(super) defined: HashSet<String>,
}

impl Parts {
    /// The parts of the module in `bytes`; `defined_elsewhere` names the
    /// functions the program defines that the module only declares (a
    /// shared preamble's, for a unit compiled against it).
    pub(super) fn read(
        context: &Context,
        bytes: &[u8],
        name: &str,
        defined_elsewhere: &HashSet<String>,
    ) -> Result<Parts, LoadError> {
        let module = llvm::load(context, bytes, name)?;
        let mut parts = Parts::default();
        for f in module.functions() {
            if f.name.starts_with("llvm.") {
                continue;
            }
            let params = f.params.iter().map(|p| p.pointer_space().and_then(spir_space)).collect();
            let mut function = IrFunction {
                name: f.name.clone(),
                is_kernel: f.is_kernel,
                is_definition: f.is_definition,
                params,
                returns: f.return_space.and_then(spir_space),
                locals: Vec::new(),
                calls: Vec::new(),
            };
            let (mut flows, mut written, mut declared_callees) = (Vec::new(), BTreeSet::new(), BTreeSet::new());
            if f.is_definition {
                parts.defined.insert(f.name.clone());
                let trace = trace::FunctionTrace::new(&f, defined_elsewhere);
                let mut calls = Vec::new();
                for (callee, defined) in
                    f.instructions.iter().filter(|i| i.op() == Some(llvm::Op::Call)).filter_map(|i| trace.callee(*i))
                {
                    if defined {
                        calls.push(callee);
                    } else if !callee.starts_with("llvm.") {
                        declared_callees.insert(callee);
                    }
                }
                calls.sort();
                calls.dedup();
                function.calls = calls;
                function.locals = trace.locals();
                flows = trace.flows().into_iter().map(Arc::new).collect();
                written = trace.written_globals();
            }
            let function = Arc::new(function);
            parts.functions.push(Arc::new(FunctionFacts { function, flows, written, declared_callees }));
        }
        parts.globals = module
            .globals()
            .into_iter()
            .filter(|g| !g.is_declaration)
            .map(|g| (g.name, spir_space(g.space).unwrap_or(Space::Private), g.size_bytes))
            .collect();
        Ok(parts)
    }

    /// These parts (a unit compiled against its preamble) with the functions
    /// and globals only `preamble` (the preamble compiled alone) defines, as
    /// the unit compiled whole would have them; `None` when one of those
    /// calls a function the unit defines.
    pub(super) fn completed_by(mut self, preamble: &Parts) -> Option<Parts> {
        // Each function of the unit's compile: whether it defines it.
        let known: HashMap<&str, bool> =
            self.functions.iter().map(|f| (f.function.name.as_str(), f.function.is_definition)).collect();
        let mut added = Vec::new();
        for f in &preamble.functions {
            match known.get(f.function.name.as_str()) {
                Some(true) => continue,
                Some(false) if !f.function.is_definition => continue,
                _ => {}
            }
            if f.declared_callees.iter().any(|c| known.get(c.as_str()) == Some(&true)) {
                return None;
            }
            added.push(f.clone());
        }
        let added_names: HashSet<&str> = added.iter().map(|f| f.function.name.as_str()).collect();
        self.functions.retain(|f| !added_names.contains(f.function.name.as_str()));
        self.functions.extend(added);
        let globals: HashSet<String> = self.globals.iter().map(|g| g.0.clone()).collect();
        self.globals.extend(preamble.globals.iter().filter(|g| !globals.contains(&g.0)).cloned());
        Some(self)
    }

    /// The facts, sorted: a global is written if any function writes it directly.
    pub(super) fn into_facts(self) -> IrFacts {
        let mut facts = IrFacts::default();
        let mut written = BTreeSet::new();
        for f in &self.functions {
            facts.flows.extend(f.flows.iter().cloned());
            written.extend(f.written.iter().cloned());
            facts.functions.push(f.function.clone());
        }
        facts.globals = self
            .globals
            .into_iter()
            .map(|(name, space, size_bytes)| IrGlobal { written: written.contains(&name), name, space, size_bytes })
            .collect();
        facts.functions.sort_by(|a, b| a.name.cmp(&b.name));
        facts.globals.sort_by(|a, b| a.name.cmp(&b.name));
        facts.flows.sort();
        // Kept for the whole run, once per unit: no growth slack.
        facts.flows.shrink_to_fit();
        facts.functions.shrink_to_fit();
        facts
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::front::lower::{ir_args, lower, lower_with_preamble, run_clang, Context};
    use crate::settings::options::CompileOptions;

    const HEADER: &str = "#ifndef H_H\n#define H_H\n\
        __constant int table[4] = {1, 2, 3, 4};\n\
        int user_hook(__global int *p);\n\
        int pick(__constant int *t) { return t[0]; }\n\
        void used(__global int *p) { p[0] = table[1]; }\n\
        void unused(__global int *p, __local int *l) { l[0] = p[0]; }\n\
        void unused_table(__global int *out) { out[0] = pick(table); }\n\
        static void unused_static(__global float *f) { f[0] = 1.0f; }\n\
        inline static void calls_hook(__global int *p) { user_hook(p); }\n\
        __global int *at(__global int *p, int i) { return p + i; }\n\
        #endif\n";

    /// A header heavy enough to precompile (`preamble::WORTH_PRECOMPILING`), as a big codebase's are.
    pub(crate) fn heavy(header: &str) -> String {
        format!("/*{}*/\n{header}", " ".repeat(64 * 1024))
    }

    /// Each unit's facts against the shared preamble are those of the unit
    /// compiled whole; `uses_preamble` says which units can share it. The
    /// precompiled header holds no function bodies: a unit's compile against
    /// it defines the unit's own functions only, and every header function's
    /// facts come from the preamble compiled alone.
    #[test]
    fn facts_against_the_shared_preamble_are_the_whole_units() {
        let _session = crate::support::session::Session::begin();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("h.h"), heavy(HEADER)).unwrap();
        let a = "// unit a\n#include \"h.h\"\n\nkernel void ka(__global int *p) { used(p); }\n";
        let units = [
            // The first compile of a preamble compiles whole and weighs it: it is precompiled for the second.
            ("a.cl", a, false),
            // It defines the function a header function calls, and uses that function: the preamble's
            // facts of `calls_hook` (an external call) are not this unit's, which compiles whole.
            (
                "b.cl",
                "/* unit b: another comment */\n#include \"h.h\"\n\nint user_hook(__global int *p) { return p[0]; }\nkernel void kb(__global int *p) { calls_hook(p); }\n",
                false,
            ),
            // It calls header functions, one returning what it was given: calls into functions the
            // preamble defines are calls into parameters and results, as if the unit defined them.
            (
                "d.cl",
                "// unit d\n#include \"h.h\"\n\nkernel void kd(__global int *p, __local int *l) { used(p); unused(p, l); __global int *q = at(p, 1); used(q); }\n",
                true,
            ),
            // It defines `user_hook` without using the `inline static` `calls_hook`: the preamble's facts
            // of `calls_hook` (an external call) are not this unit's (a call into its parameter).
            ("c.cl", "// unit c\n#include \"h.h\"\n\nint user_hook(__global int *p) { return 2; }\nkernel void kc(__global int *p) { p[0] = 1; }\n", false),
            // The header's functions it does not use come from the preamble compiled alone.
            ("a.cl", a, true),
        ];
        let args = CompileOptions::default().clang_args(None);
        for (name, text, uses_preamble) in units {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let context = Context::create();
            let whole = run_clang(&path, &ir_args(&args)).expect("clang-19 must be installed (scripts/setup)");
            let whole = super::facts_from_bitcode(&context, &whole, name).unwrap();
            let shared = lower_with_preamble(&context, &path, &ir_args(&args)).unwrap();
            assert_eq!(shared.as_ref().is_some_and(|(_, against)| *against), uses_preamble, "{name}");
            let shared = shared.map(|(facts, _)| facts);
            let lowered = lower(&context, &path, &args).unwrap();
            let json = |facts: &crate::facts::ir::IrFacts| serde_json::to_string_pretty(facts).unwrap();
            assert_eq!(json(&lowered), json(&whole), "{name}");
            if let Some(shared) = shared {
                assert_eq!(json(&shared), json(&whole), "{name}");
            }
            assert!(whole.functions.iter().any(|f| f.name == "unused_static"), "{name}: every header function has facts");
            assert!(whole.flows.iter().any(|f| f.func == "unused_table"), "{name}");
        }
    }

    /// A header changed after its preamble was precompiled (a second run in
    /// the same process) makes the preamble stale: the facts are the new header's.
    #[test]
    fn a_header_changed_since_precompiling_is_read_again() {
        let _session = crate::support::session::Session::begin();
        let dir = tempfile::tempdir().unwrap();
        let header = dir.path().join("h.h");
        std::fs::write(&header, heavy("inline static void fill(__global int *p) { p[0] = 1; }\n")).unwrap();
        let args = CompileOptions::default().clang_args(None);
        let unit = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, "#include \"h.h\"\nkernel void k(__global int *p) { p[1] = 2; }\n").unwrap();
            path
        };
        let (a, b) = (unit("a.cl"), unit("b.cl"));
        let context = Context::create();
        let params = |path: &std::path::Path| {
            let facts = lower(&context, path, &args).expect("clang-19 must be installed (scripts/setup)");
            facts.function("fill").map(|f| f.params.clone())
        };
        assert_eq!(params(&a), Some(vec![Some(crate::facts::syntax::Space::Global)]));
        assert_eq!(params(&b), Some(vec![Some(crate::facts::syntax::Space::Global)]));
        assert!(lower_with_preamble(&context, &b, &ir_args(&args)).unwrap().is_some_and(|(_, against)| against));
        std::fs::write(&header, heavy("inline static void fill(__local int *p, int n) { p[0] = n; }\n")).unwrap();
        assert_eq!(params(&b), Some(vec![Some(crate::facts::syntax::Space::Local), None]));
    }
}
