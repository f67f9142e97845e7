//! The equivalence check's pass pipeline: the fixed amdgcn pipeline both
//! compilations go through, the target machine it runs with, dropping the
//! kernels no change can reach, and the clang arguments that emit the IR
//! it starts from.
//!
//! It runs on `lower`'s IR view (`LoadedModule`): the pass options with
//! their inliner threshold, whether a kernel is used and its deletion come
//! from there, so there is no `unsafe` here.

use std::collections::BTreeSet;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::targets::{CodeModel, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

use crate::front::lower::{pass_options, LoadedModule, AMDGPU_KERNEL_CC, SPIR_KERNEL_CC};

/// The arguments that make clang emit the IR the equivalence check optimises
/// itself: -O2 codegen (no `optnone`/`noinline`, TBAA, lifetime markers) but
/// no LLVM pass, so both versions go through exactly `EQUIVALENCE_PIPELINE`
/// and nothing of clang's own pipeline. `-nogpulib`: no device library.
/// `-g0` after the unit's own options: debug records (`-g` from a host's
/// build options) say where a value lived, not what a kernel computes, and
/// a generic pointer's record reads differently once its space is inferred.
pub fn equivalence_args(language_args: &[String]) -> Vec<String> {
    let mut args = language_args.to_vec();
    args.extend(
        ["-nogpulib", "-O2", "-g0", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", "-o", "-", "-Wno-everything"]
            .into_iter()
            .map(String::from),
    );
    args
}

/// The pass pipeline both compilations of the equivalence check go through,
/// after clang emitted them unoptimised (`-O2 -Xclang -disable-llvm-passes`,
/// so no `optnone`/`noinline` from -O0). Every helper is inlined first, so
/// the default inliner's cost model (which sees a generic helper differently
/// from a named one, and a helper called twice differently from one called
/// once) decides nothing; SROA then turns the inlined arguments back into
/// the kernel's own values and InferAddressSpaces runs at once, before any
/// pass whose result depends on what may alias (early CSE forwards a load
/// past a store to a __global pointer when the load is from __local, not
/// when it is from a generic pointer: the two versions would part there,
/// a loop of a helper over __local memory folded in one only), and again
/// after early CSE for pointers it exposes (loaded from memory); every pass
/// that reacts to pointer width (index widening, reassociation, scheduling)
/// sees the named pointer. Then a second round of scalar clean-up (CFG simplification,
/// SROA, memory-SSA CSE, GVN, instcombine, dead code) instead of the whole
/// O2 pipeline: the same verdicts on every corpus project (equal IR after
/// semantics-preserving passes proves equivalence; fewer passes can only
/// prove less, and the corpus shows they do not), at about 60% of the
/// pipeline time (no loop passes, no vectorisers).
pub const EQUIVALENCE_PIPELINE: &str =
    "globalopt,cgscc(inline),function(sroa,infer-address-spaces,early-cse,infer-address-spaces,instcombine<no-verify-fixpoint>,\
     simplifycfg,sroa,early-cse<memssa>,gvn,instcombine<no-verify-fixpoint>,simplifycfg,adce),globaldce";

/// The inliner threshold for `EQUIVALENCE_PIPELINE`: no helper is too big.
pub const INLINE_THRESHOLD: i32 = 1_000_000;

/// Why the equivalence pipeline could not run: LLVM's message.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// LLVM knows no target for the module's triple.
    #[error("{message}")]
    UnknownTarget { message: String },
    /// The target made no target machine.
    #[error("no LLVM target machine for {triple}")]
    NoTargetMachine { triple: String },
    /// The passes failed.
    #[error("{message}")]
    Passes { message: String },
}

/// A target machine for `triple`; the target's optimiser hooks (the flat
/// address space InferAddressSpaces needs, pointer widths) come from it.
fn target_machine(triple: &TargetTriple) -> Result<TargetMachine, PipelineError> {
    crate::front::lower::targets::ensure_registered();
    let target = Target::from_triple(triple).map_err(|e| PipelineError::UnknownTarget { message: e.to_string() })?;
    target
        .create_target_machine(triple, "", "", OptimizationLevel::Default, RelocMode::Default, CodeModel::Default)
        .ok_or_else(|| PipelineError::NoTargetMachine { triple: triple.as_str().to_string_lossy().into_owned() })
}

/// Deletes the kernels of `module` not in `keep` that nothing calls, so the
/// equivalence pipeline spends nothing on kernels no change can reach
/// (their text and callees are the same on both sides).
pub fn keep_only_kernels(module: &mut LoadedModule<'_>, keep: &BTreeSet<String>) {
    let unwanted: Vec<String> = (module.function_values())
        .filter(|f| f.is_kernel() && f.is_defined_function() && !f.has_uses())
        .map(|f| f.name())
        .filter(|name| !keep.contains(name))
        .collect();
    for name in unwanted {
        module.delete_unused_function(&name);
    }
}

/// Which helpers `optimise_for_equivalence` inlines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inlining {
    /// Every helper (the comparison: a source `noinline` must not keep a
    /// helper's generic parameter opaque in one version only).
    Every,
    /// Every helper but those the source marks `noinline`, kept out of
    /// line as a GPU compiler keeps them (`residual.rs` counts what they
    /// leave generic).
    HonouringNoinline,
}

/// Runs `EQUIVALENCE_PIPELINE` on `module` for its own triple. Every
/// defined non-kernel function is made internal and, as `inlining` says,
/// `alwaysinline` first (`noinline` and `optnone` removed).
/// Kernels are left as they are; one kernel calling another is compared as a call.
pub fn optimise_for_equivalence(loaded: &mut LoadedModule<'_>, inlining: Inlining) -> Result<(), PipelineError> {
    let module = loaded.module();
    let context = module.get_context();
    let always = context.create_enum_attribute(Attribute::get_named_enum_kind_id("alwaysinline"), 0);
    let [noinline, optnone] = ["noinline", "optnone"].map(Attribute::get_named_enum_kind_id);
    for f in module.get_functions() {
        let cc = f.get_call_conventions();
        if f.count_basic_blocks() == 0 || cc == AMDGPU_KERNEL_CC || cc == SPIR_KERNEL_CC {
            continue;
        }
        f.set_linkage(Linkage::Internal);
        f.remove_enum_attribute(AttributeLoc::Function, optnone);
        if inlining == Inlining::HonouringNoinline && f.get_enum_attribute(AttributeLoc::Function, noinline).is_some() {
            continue;
        }
        f.remove_enum_attribute(AttributeLoc::Function, noinline);
        f.add_attribute(AttributeLoc::Function, always);
    }
    // Program-scope variables are internal too: no host API writes one, so a
    // variable no kernel stores to is read-only data whatever its space, and
    // `globalopt` (first in the pipeline) marks it constant on both sides
    // alike. Else a table given `__constant` folds its loads on one side only.
    // `globaldce` (last) removes on both sides a table whose every load folded.
    for g in module.get_globals() {
        if g.get_initializer().is_some() && !g.get_name().to_bytes().starts_with(b"llvm.") {
            g.set_linkage(Linkage::Internal);
        }
    }
    let machine = target_machine(&module.get_triple())?;
    let run = |passes: &str| {
        let options = pass_options(INLINE_THRESHOLD);
        crate::isolation::phase(crate::isolation::Phase::Optimising, || module.run_passes(passes, &machine, options))
            .map_err(|e| PipelineError::Passes { message: e.to_string() })
    };
    // The same passes in two halves, the calls to builtins and proven
    // functions given their offsets in named spaces in between (`known_calls.rs`).
    let (head, tail) = EQUIVALENCE_PIPELINE.split_at(EQUIVALENCE_PIPELINE.find(PIPELINE_SPLIT).unwrap_or(0));
    run(&format!("{head})"))?;
    super::known_calls::offsets_in_named_spaces(loaded);
    run(&format!("function({}", &tail[1..]))
}

/// Where `EQUIVALENCE_PIPELINE` is split: after the first InferAddressSpaces (the function passes run
/// per function, so two adaptors in a row do what one does).
const PIPELINE_SPLIT: &str = ",early-cse,";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lower::{lower, run_clang, Context};
    use crate::settings::options::CompileOptions;
    use crate::verify::{optimised_kernels_from_bitcode, EQUIVALENCE_TRIPLE, PROGRAM_SCOPE_DATA};

    #[test]
    fn the_equivalence_pipeline_inlines_every_helper() {
        // A helper marked noinline, called three times: none of the calls survive.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.cl");
        std::fs::write(
            &path,
            "__attribute__((noinline)) float f(__global const float *v, int i) { return v[i] * v[i + 1] + sqrt(v[i + 2]); }\n\
             __kernel void k(__global const float *in, __global float *out) {\n\
               int i = get_global_id(0);\n\
               out[i] = f(in, i) + f(in, i + 3) + f(in + 1, i);\n\
             }\n",
        )
        .unwrap();
        let args = CompileOptions::default().clang_args_for(None, EQUIVALENCE_TRIPLE);
        let bitcode = run_clang(&path, &equivalence_args(&args)).expect("clang-19 must be installed (scripts/setup)");
        let context = Context::create();
        let kernels = optimised_kernels_from_bitcode(&context, &bitcode, "t.cl", None).unwrap();
        // The kernel, then the program-scope data.
        assert_eq!(kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["k", PROGRAM_SCOPE_DATA]);
        assert!(!kernels[0].lines.iter().any(|l| l.contains("@f(")), "{:#?}", kernels[0].lines);
    }

    /// Only the kernels that run a changed function are optimised and compared.
    #[test]
    fn kernels_reaching_a_function_and_the_others_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.cl");
        std::fs::write(
            &path,
            "float leaf(__global const float *p) { return p[0]; }\n\
             float mid(__global const float *p) { return leaf(p) * 2.0f; }\n\
             __kernel void uses_mid(__global float *o) { o[0] = mid(o); }\n\
             __kernel void uses_leaf(__global float *o) { o[1] = leaf(o); }\n\
             __kernel void alone(__global float *o) { o[2] = 1.0f; }\n",
        )
        .unwrap();
        let context = Context::create();
        let facts = lower(&context, &path, &CompileOptions::default().clang_args(None)).expect("clang-19 must be installed");
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<std::collections::BTreeSet<String>>();
        assert_eq!(facts.kernels_reaching(&names(&["mid"])), names(&["uses_mid"]));
        assert_eq!(facts.kernels_reaching(&names(&["leaf"])), names(&["uses_leaf", "uses_mid"]));
        assert_eq!(facts.kernels_reaching(&names(&["alone"])), names(&["alone"]));
        let args = CompileOptions::default().clang_args_for(None, EQUIVALENCE_TRIPLE);
        let bitcode = run_clang(&path, &equivalence_args(&args)).unwrap();
        let kept = optimised_kernels_from_bitcode(&context, &bitcode, "t.cl", Some(&names(&["uses_mid"]))).unwrap();
        assert_eq!(kept.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["uses_mid", PROGRAM_SCOPE_DATA]);
        assert_eq!(optimised_kernels_from_bitcode(&context, &bitcode, "t.cl", None).unwrap().len(), 4);
    }

    /// A unit compiled against the preamble it shares with another (with an
    /// edited header laid over, as for a result) gives the kernels it gives whole.
    #[test]
    fn kernels_against_a_shared_preamble_are_the_whole_units() {
        let _session = crate::support::session::Session::begin();
        let dir = tempfile::tempdir().unwrap();
        let header = dir.path().join("h.h");
        let helper = |space: &str| {
            format!("#define SCALE 3.0f\ninline static float twice({space}const float *p) {{ return SCALE * p[0]; }}\n")
        };
        // Heavy enough to precompile, as a big codebase's headers are.
        let helper = |space: &str| format!("/*{}*/\n{}", " ".repeat(64 * 1024), helper(space));
        std::fs::write(&header, helper("__global ")).unwrap();
        let unit = |name: &str, body: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("// {name}\n#include \"h.h\"\n\n{body}")).unwrap();
            path
        };
        let a = unit("a.cl", "kernel void ka(global float *o) { o[1] = twice(o); }\n");
        let b = unit("b.cl", "kernel void kb(global float *o, local float *l) { l[0] = o[0]; o[2] = twice(o) + l[0]; }\n");
        let args = CompileOptions::default().clang_args_for(Some(&["-cl-std=CL2.0".to_string()]), EQUIVALENCE_TRIPLE);
        let canonical = std::fs::canonicalize(&header).unwrap();
        let edited = std::collections::BTreeMap::from([(canonical, helper("").into_bytes())]);
        let context = Context::create();
        for replaced in [std::collections::BTreeMap::new(), edited] {
            let kernels = |path: &std::path::Path, args: &[String]| {
                let bitcode = crate::verify::compile_for_equivalence(path, args, &replaced).expect("clang-19 must be installed");
                optimised_kernels_from_bitcode(&context, &bitcode, "t.cl", None).unwrap()
            };
            // The first compile of a preamble is whole; the second precompiles it and uses it.
            let whole_a = kernels(&a, &args);
            let shared_b = kernels(&b, &args);
            assert!(crate::front::lower::uses_shared_preamble(&b, &equivalence_args(&args), &replaced));
            assert_eq!(kernels(&a, &args), whole_a);
            // `-w` changes nothing here but the key: the first compile with it is whole.
            let quiet = [args.clone(), vec!["-w".to_string()]].concat();
            assert_eq!(shared_b, kernels(&b, &quiet));
        }
    }
}
