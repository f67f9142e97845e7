//! Checking a unit with some of its change sets: the texts recompiled as
//! the target and the kernels compared with the unit's baseline (the
//! original compiled as the target, or with its required repairs), with
//! every check memoised across rounds of planning.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::Withdrawal;
use crate::codes::Code;
use crate::front::lower::Context;
use crate::front::unit::Unit;
use crate::migrate::plan::{apply, ApplyError, Plan, SetId};
use crate::settings::options::MigrateOptions;
use crate::support::ids::UnitId;
use crate::verify::{FlatRegression, EQUIVALENCE_TRIPLE};

/// A failed check: why, and which kernels compared different (none for a compile failure).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Failure {
    pub(super) why: Withdrawal,
    pub(super) differing: BTreeSet<String>,
    /// Changed functions (link names) proven on their own before the
    /// kernels were found to differ: the sets changing only these are
    /// the least likely cause.
    pub(super) proven_alone: BTreeSet<String>,
}

impl From<Withdrawal> for Failure {
    fn from(why: Withdrawal) -> Failure {
        Failure { why, differing: BTreeSet::new(), proven_alone: BTreeSet::new() }
    }
}

/// What a passing check leaves to report about the changes it kept.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Passed {
    pub(super) flat_regressions: Vec<FlatRegression>,
    /// Kept with `--allow-unverified` although not proven equivalent: why.
    pub(super) unverified: Option<String>,
    /// How the kernels were proven equivalent.
    pub(super) proof: Option<crate::migrate::report::ProofMethod>,
    /// Changed functions proven on their own (their kernels call them opaquely).
    pub(super) proven_functions: Vec<String>,
}

/// Checks already made, kept across rounds of planning (see `Checker::check`).
#[derive(Default)]
pub struct Memo {
    /// (unit, hash of the kernels compared and the texts checked) -> the check's result.
    results: std::sync::Mutex<HashMap<(UnitId, u64), Result<Passed, Failure>>>,
    /// (unit, kernels compared) -> what they were compared with.
    baselines: std::sync::Mutex<HashMap<(UnitId, BTreeSet<String>), Original>>,
}

/// What checking a unit needs; shared by the worker threads of the first pass.
pub(super) struct Checker<'a> {
    pub(super) memo: &'a Memo,
    pub(super) units: &'a [Unit],
    pub(super) plan: &'a Plan,
    pub(super) options: &'a MigrateOptions,
    /// Per unit (its own options: a configuration's): clang arguments as the target, for spir64 and for the equivalence triple.
    /// (Equal ones, as every unit of one configuration has, are one value.)
    pub(super) target_args: Vec<Arc<Vec<String>>>,
    pub(super) result_args: Vec<Arc<Vec<String>>>,
    /// Per unit: its files' canonical paths.
    pub(super) files: Vec<BTreeSet<PathBuf>>,
    /// Per unit: the kernels that run a function any of its sets changes (the others cannot differ).
    pub(super) kernels: Vec<BTreeSet<String>>,
    /// Per unit: the functions it defines in a file other units read too
    /// (link names): a proof of one of them on its own serves them all.
    /// (Units reading the same shared files hold one set.)
    pub(super) shared_functions: Vec<Arc<BTreeSet<String>>>,
    /// Per unit: what its checks' keys in the store share.
    stored: super::stored::Stored,
}

/// Per unit, the link names of the functions it defines in a file another unit reads too.
fn shared_functions(units: &[Unit], files: &[BTreeSet<PathBuf>]) -> Vec<Arc<BTreeSet<String>>> {
    let mut readers: HashMap<&std::path::Path, usize> = HashMap::new();
    for path in files.iter().flatten() {
        *readers.entry(path.as_path()).or_default() += 1;
    }
    let shared =
        |unit: &Unit, f: &crate::facts::syntax::Function| readers.get(unit.canonical(f.pos.file)).is_some_and(|n| *n > 1);
    let mut kept = HashSet::new();
    (units.iter())
        .map(|unit| {
            let names =
                (unit.syntax.functions.iter()).filter(|f| f.is_definition && shared(unit, f)).map(|f| f.link_name.clone());
            crate::support::ids::intern_value(&mut kept, names.collect())
        })
        .collect()
}

/// What a unit's results are compared with, compiled once (when verification first needs it).
pub(super) type Original = Option<Result<Baseline, Arc<BaselineError>>>;

/// Why a unit's baseline (or one way of making it) does not compile.
#[derive(Debug, thiserror::Error)]
pub(super) enum BaselineError {
    /// clang or the equivalence check's front end failed.
    #[error(transparent)]
    Compile(#[from] crate::verify::VerifyError),
    /// The unit's required repairs do not apply.
    #[error(transparent)]
    Apply(#[from] ApplyError),
}

/// The kernels results are compared with.
#[derive(Debug, Clone)]
pub(super) struct Baseline {
    /// Unoptimised, for `verify::compare_compiled`. Shared: the memo and the
    /// settler hold the same baseline, and every check clones it.
    pub(super) bitcode: std::sync::Arc<Vec<u8>>,
    /// The unit does not compile unchanged as the target: these are the kernels of the
    /// unit with its required repairs applied (compiled as the target), so the other
    /// changes are proven against them, and the repairs on their own (`prove_repairs`).
    pub(super) repaired: bool,
    /// Neither the original nor its repairs compile as the target: clang's error.
    /// No change can make the unit compile as the target; it is an error.
    pub(super) uncompilable: Option<Arc<BaselineError>>,
    /// What its compile left out of code generation: a result compiled
    /// leaving out other definitions, or the same unlike, is compared with
    /// the original compiled whole (`Checker::compiled_alike`).
    pub(super) left_out: Option<crate::verify::LeftOut>,
}

impl Baseline {
    /// Whether a unit's baseline, after a check with `result`, is still to be
    /// read: to find what failed (a failure is bisected), or to prove its
    /// repairs (`Settler::prove_kept_repairs`). A unit that passed is compared
    /// again only when planning again changes its result (a merge withdrawn
    /// elsewhere), and then compiles its baseline again: each unit's compiled
    /// original kept to the end grew the batch's memory with every unit.
    pub(super) fn still_needed(baseline: &Result<Baseline, Arc<BaselineError>>, result: &Result<Passed, Failure>) -> bool {
        result.is_err() || baseline.as_ref().is_ok_and(|b| b.repaired)
    }
}

/// A check of some of a unit's sets, and what it found.
pub(super) type Checked = (BTreeSet<SetId>, Result<Passed, Failure>);

/// The kernels of `unit` that `sets` can change: those running a function a
/// set changes, or every kernel when a set changes a program-scope variable
/// (a kernel may read it directly; a load of a variable made `__constant`
/// can fold to its initialiser, which only a comparison of that kernel sees).
fn kernels_changed<'s>(unit: &Unit, plan: &Plan, sets: impl Iterator<Item = &'s SetId> + Clone) -> BTreeSet<String> {
    if sets.clone().any(|id| plan.sets[*id].changes_program_scope_data()) {
        return unit.ir.functions.iter().filter(|f| f.is_kernel).map(|f| f.name.clone()).collect();
    }
    let changed = sets.flat_map(|id| plan.sets[*id].link_names()).collect();
    unit.ir.kernels_reaching(&changed)
}

impl<'a> Checker<'a> {
    pub(super) fn new(units: &'a [Unit], plan: &'a Plan, options: &'a MigrateOptions, memo: &'a Memo) -> Checker<'a> {
        let target_flags = options.target.std_flags();
        let mut kept = HashSet::new();
        let mut args = |args: Vec<String>| crate::support::ids::intern_value(&mut kept, args);
        let files: Vec<BTreeSet<PathBuf>> =
            units.iter().map(|u| (0..u.syntax.files.len()).map(|id| u.canonical(id).to_path_buf()).collect()).collect();
        Checker {
            memo,
            units,
            plan,
            options,
            target_args: units.iter().map(|u| args(u.compile.clang_args(Some(&target_flags)))).collect(),
            result_args: units.iter().map(|u| args(u.compile.clang_args_for(Some(&target_flags), EQUIVALENCE_TRIPLE))).collect(),
            kernels: units.iter().zip(&plan.unit_sets).map(|(unit, sets)| kernels_changed(unit, plan, sets.iter())).collect(),
            shared_functions: shared_functions(units, &files),
            stored: super::stored::Stored::new(units.len()),
            files,
        }
    }

    /// What unit `u`'s results are compared with: the original compiled as the target
    /// when it compiles so (the same preprocessor view: code under `#if
    /// __OPENCL_C_VERSION__` is the same on both sides, so only the edits can differ);
    /// else, for a unit that needs repairs, the unit with its required repairs applied,
    /// compiled as the target; else the original as it was read.
    pub(super) fn baseline(&self, u: UnitId) -> Result<Baseline, Arc<BaselineError>> {
        let unit = &self.units[u];
        let none = BTreeMap::new();
        let as_target = |replaced: &BTreeMap<PathBuf, Vec<u8>>| {
            crate::verify::compile_for_equivalence(&unit.input, &self.result_args[u], replaced).map_err(BaselineError::from)
        };
        let left_out = self.left_out(u);
        let mut target_error = match crate::verify::compile_for_equivalence_leaving_out(
            &unit.input,
            &self.result_args[u],
            &none,
            left_out.as_deref(),
        ) {
            Ok(compiled) => {
                let (bitcode, left_out) = (compiled.bitcode.into(), compiled.left_out);
                return Ok(Baseline { bitcode, repaired: false, uncompilable: None, left_out });
            }
            Err(message) => BaselineError::from(message),
        };
        let required = &self.plan.required[u];
        if !required.is_empty() {
            match apply(self.plan, required, &self.files[u])
                .map_err(BaselineError::from)
                .and_then(|repaired| as_target(&repaired))
            {
                Ok(bitcode) => {
                    return Ok(Baseline { bitcode: bitcode.into(), repaired: true, uncompilable: None, left_out: None })
                }
                Err(message) => target_error = message,
            }
        }
        let as_read = unit.compile.clang_args_for(Some(&unit.standard.flags), EQUIVALENCE_TRIPLE);
        let bitcode =
            crate::verify::compile_for_equivalence(&unit.input, &as_read, &none).map_err(|e| Arc::new(BaselineError::from(e)))?;
        // The original compiles for the triple as it was read, not as the target: the
        // target is what is missing (had the triple been, the as-read compile would fail too).
        Ok(Baseline { bitcode: bitcode.into(), repaired: false, uncompilable: Some(Arc::new(target_error)), left_out: None })
    }

    /// For a unit whose baseline is repaired: are the repairs alone equivalent to the
    /// original as it was read? `Some(why not)` when they cannot be proven (the 1.x
    /// build differs in more than the edits: an unqualified pointer stored in memory
    /// is private and 4 bytes there, generic and 8 bytes under 2.0).
    pub(super) fn prove_repairs(&self, context: &Context, u: UnitId, baseline: &Baseline) -> Option<String> {
        let unit = &self.units[u];
        let only = Some(&self.kernels[u]);
        let as_read = unit.compile.clang_args_for(Some(&unit.standard.flags), EQUIVALENCE_TRIPLE);
        let name = unit.input.to_string_lossy();
        let found = crate::verify::compile_for_equivalence(&unit.input, &as_read, &BTreeMap::new()).and_then(|original| {
            let scope = crate::verify::ProofScope { limit: self.options.proof_limit, ..Default::default() };
            crate::verify::compare_compiled(context, &original, &baseline.bitcode, &name, only, &scope)
        });
        match found {
            Ok(found) => found.different.first().map(|d| {
                format!(
                    "kernel `{}` is not equivalent to its {} build at {}: `{}` became `{}`",
                    d.kernel,
                    unit.standard.std.name(),
                    EQUIVALENCE_TRIPLE,
                    d.original,
                    d.migrated
                )
            }),
            Err(message) => Some(format!("cannot compare kernels with the {} build: {message}", unit.standard.std.name())),
        }
    }

    /// What every check of unit `u` shares, as its stored verdicts' keys read it.
    fn unit_checks(&self, u: UnitId) -> super::stored::UnitChecks<'_> {
        super::stored::UnitChecks {
            unit: &self.units[u],
            target_args: &self.target_args[u],
            result_args: &self.result_args[u],
            repairs: apply(self.plan, &self.plan.required[u], &self.files[u]).map_err(|e| e.to_string()),
            kernels: &self.kernels[u],
            left_out: self.left_out(u),
            shared_functions: &self.shared_functions[u],
        }
    }

    /// The definitions unit `u`'s equivalence compiles leave out of code
    /// generation (`left_out.rs`), or `None` to compile it whole. Found when
    /// a check needs them, not kept: a unit of big headers leaves out hundreds.
    fn left_out(&self, u: UnitId) -> Option<Arc<BTreeSet<String>>> {
        super::left_out::left_out(&self.units[u], self.plan, u)
    }

    /// The kernels of unit `u` that set `id` can change.
    pub(super) fn kernels_of_set(&self, u: UnitId, id: SetId) -> BTreeSet<String> {
        kernels_changed(&self.units[u], self.plan, [id].iter())
    }

    /// Recompiles unit `u` with `sets` applied and compares its kernels with the original's.
    /// Checks are remembered by the unit's resulting texts (and the kernels compared), so
    /// planning again (a merge withdrawn) re-verifies only the units whose result changed.
    pub(super) fn check(
        &self,
        context: &Context,
        u: UnitId,
        original: &mut Original,
        sets: &BTreeSet<SetId>,
    ) -> Result<Passed, Failure> {
        let replaced = apply(self.plan, sets, &self.files[u])
            .map_err(|error| Failure::from(Withdrawal { reason: Code::OverlappingEdits, detail: error.to_string() }))?;
        if !self.options.verify {
            return Ok(Passed::default());
        }
        let baseline_key = (u, self.kernels[u].clone());
        if original.is_none() {
            *original = self.memo.baselines.lock().ok().and_then(|b| b.get(&baseline_key).cloned()).flatten();
        }
        let key = (u, crate::support::ids::hash_of(&(&self.kernels[u], &replaced)));
        if let Some(known) = self.memo.results.lock().ok().and_then(|r| r.get(&key).cloned()) {
            return known;
        }
        let scope = self.proof_scope(u, sets);
        let stored = self.stored.check_key(self.options, u, || self.unit_checks(u), &replaced, &scope);
        let found: Option<Result<Passed, Failure>> =
            stored.as_ref().and_then(|(key, store)| store.get(key)).and_then(|bytes| super::stored::decode(&bytes));
        if let Some(found) = found {
            if let Ok(mut results) = self.memo.results.lock() {
                results.insert(key, found.clone());
            }
            return found;
        }
        crate::support::reads::begin();
        let result = self.check_replaced(context, u, original, &replaced, &scope);
        let read_only_its_files = self.reads_only_its_files(u, &crate::support::reads::end());
        // The compiler's messages name a program's or an embedded kernel's virtual file: people read the real ones.
        let result = result.map_err(|mut failure| {
            failure.why.detail = self.units[u].diagnostics(&failure.why.detail);
            failure
        });
        // A baseline is kept for the next rounds only while it may be needed
        // again (`Baseline::still_needed`); one is a compile away.
        if let (Some(baseline), Ok(mut baselines)) = (original.as_ref(), self.memo.baselines.lock()) {
            if Baseline::still_needed(baseline, &result) {
                baselines.entry(baseline_key).or_insert_with(|| Some(baseline.clone()));
            }
        }
        if let Ok(mut results) = self.memo.results.lock() {
            results.insert(key, result.clone());
        }
        if let Some((key, store)) = stored.filter(|_| read_only_its_files) {
            store.put(&key, &super::stored::encode(&result));
        }
        result
    }

    /// Whether the compiles of a check of unit `u` read only its files (and what
    /// clasp lays for them): a header only the target's build includes (under
    /// `#if __OPENCL_C_VERSION__ >= 200`) is in no key, so such a check is not kept.
    fn reads_only_its_files(&self, u: UnitId, read: &BTreeSet<PathBuf>) -> bool {
        let its = |path: &PathBuf| {
            crate::front::lower::preamble::made_here(path) || self.files[u].contains(&crate::support::overlay::canonical(path))
        };
        read.iter().all(its)
    }

    /// For a unit keeping its required repairs: whether they are proven
    /// equivalent to the original as it was read (`None`), else why not
    /// (`prove_repairs`); `None` too when its original compiles as the target.
    pub(super) fn repairs_unproven(&self, context: &Context, u: UnitId, original: &mut Original) -> Option<String> {
        let stored = self.stored.repairs_key(self.options, u, || self.unit_checks(u));
        let found = stored.as_ref().and_then(|(key, store)| store.get(key));
        if let Some(found) = found.and_then(|bytes| super::stored::decode(&bytes)) {
            return found;
        }
        crate::support::reads::begin();
        let why = match original.get_or_insert_with(|| self.baseline(u)) {
            Ok(baseline) if baseline.repaired => self.prove_repairs(context, u, &baseline.clone()),
            _ => None,
        };
        let read = crate::support::reads::end();
        if let Some((key, store)) = stored.filter(|_| self.reads_only_its_files(u, &read)) {
            store.put(&key, &super::stored::encode(&why));
        }
        why
    }

    /// Which changed functions of unit `u` checked with `sets` may be proven
    /// on their own: those other units share, and for the merges among
    /// `sets` that it sees, each member's link name -> the survivor's after
    /// the merge (a mangled name left out: its new mangling is clang's to say).
    fn proof_scope(&self, u: UnitId, sets: &BTreeSet<SetId>) -> crate::verify::ProofScope {
        let mut merged = BTreeMap::new();
        for (merge, set) in &self.plan.merges {
            let survivor = merge.members.first().map(|m| m.link_name.as_str()).unwrap_or("_Z");
            if sets.contains(set) && merge.units.contains(&u) && !survivor.starts_with("_Z") {
                for member in &merge.members {
                    merged.insert(member.link_name.clone(), merge.name.clone());
                }
            }
        }
        let shared = self.shared_functions[u].clone();
        crate::verify::ProofScope { merged, shared, limit: self.options.proof_limit, every_function: false }
    }

    pub(super) fn check_replaced(
        &self,
        context: &Context,
        u: UnitId,
        original: &mut Original,
        replaced: &BTreeMap<PathBuf, Vec<u8>>,
        scope: &crate::verify::ProofScope,
    ) -> Result<Passed, Failure> {
        let unit = &self.units[u];
        let target = self.options.target.name();
        let verify_failed = |message: crate::verify::VerifyError| {
            Failure::from(Withdrawal {
                reason: Code::VerifyFailed,
                detail: format!("the result does not compile as {target}: {message}"),
            })
        };
        let only = Some(&self.kernels[u]);
        let original = original.get_or_insert_with(|| self.baseline(u)).clone();
        if let Ok(Baseline { uncompilable: Some(message), .. }) = &original {
            let detail = format!("it does not compile as {target}, and clasp found no repair that makes it: {message}");
            return Err(Failure::from(Withdrawal { reason: Code::UnrepairableUnit, detail }));
        }
        let compared = match original {
            // Compiling the result as the target for the equivalence triple is the recompile too:
            // clang rejects it there as it would for spir64 (the same language rules).
            Ok(before) => {
                let name = unit.input.to_string_lossy();
                let compare = |(before, after): (Arc<Vec<u8>>, Vec<u8>)| {
                    crate::verify::compare_compiled(context, &before, &after, &name, only, scope).map_err(Uncompared::from)
                };
                let left_out = before.left_out.is_some();
                let found = compare(self.compiled_alike(u, before, replaced).map_err(verify_failed)?);
                // A difference is looked at again with every helper there: the fallbacks of
                // `compare_compiled` inline the helpers a comparison kept as calls.
                let different = found.as_ref().map_or(true, |equivalence| !equivalence.different.is_empty());
                if left_out && different {
                    compare(self.compiled_whole(u, replaced).map_err(verify_failed)?)
                } else {
                    found
                }
            }
            // Nothing to compare with (the original does not compile for the equivalence
            // triple): the recompile as the target (spir64) is all the proof there is.
            Err(message) => {
                crate::verify::compiles(&unit.input, &self.target_args[u], replaced).map_err(verify_failed)?;
                Err(Uncompared::Other(message.to_string()))
            }
        };
        self.verdict(compared)
    }

    /// The result of unit `u` with `replaced` compiled leaving out what its
    /// baseline left out, and the two bitcodes to compare: the baseline's,
    /// or, when the result's compile left out other definitions or the same
    /// ones unlike (clang's ODR hashes differ), both compiled whole. Leaving
    /// out serves the common case, a result found equivalent: a check that
    /// finds a difference compiles both whole and compares again, so its
    /// verdict is the one every helper there gives.
    fn compiled_alike(
        &self,
        u: UnitId,
        before: Baseline,
        replaced: &BTreeMap<PathBuf, Vec<u8>>,
    ) -> Result<(Arc<Vec<u8>>, Vec<u8>), crate::verify::VerifyError> {
        let (input, args) = (&self.units[u].input, &self.result_args[u]);
        let left_out = before.left_out.as_ref().and_then(|_| self.left_out(u));
        let after = crate::verify::compile_for_equivalence_leaving_out(input, args, replaced, left_out.as_deref())?;
        if after.left_out == before.left_out {
            return Ok((before.bitcode, after.bitcode));
        }
        self.compiled_whole(u, replaced)
    }

    /// Unit `u`'s original and its result with `replaced`, compiled whole.
    fn compiled_whole(
        &self,
        u: UnitId,
        replaced: &BTreeMap<PathBuf, Vec<u8>>,
    ) -> Result<(Arc<Vec<u8>>, Vec<u8>), crate::verify::VerifyError> {
        let (input, args) = (&self.units[u].input, &self.result_args[u]);
        let whole = crate::verify::compile_for_equivalence(input, args, &BTreeMap::new())?;
        Ok((Arc::new(whole), crate::verify::compile_for_equivalence(input, args, replaced)?))
    }

    /// A check's outcome from its comparison: passed, passed unverified
    /// (`--allow-unverified`), or withdrawn with the kernels that differ.
    fn verdict(&self, compared: Result<crate::verify::Equivalence, Uncompared>) -> Result<Passed, Failure> {
        let (difference, reason, differing, passed, proven_alone) = match compared {
            Ok(found) => {
                let difference = found.different.first().map(|d| {
                    format!(
                        "kernel `{}` is not equivalent at {}: `{}` became `{}`",
                        d.kernel, EQUIVALENCE_TRIPLE, d.original, d.migrated
                    )
                });
                let proof = Some(crate::migrate::report::ProofMethod::of(&found));
                let differing = found.different.into_iter().map(|d| d.kernel).collect();
                let passed = (found.flat_regressions, proof, found.proven_functions);
                (difference, Code::NotEquivalent, differing, passed, found.proven_alone.into_iter().collect())
            }
            Err(Uncompared::TooCostly { kernel, message, proven_alone }) => {
                let difference = Some(format!("not compared: {message}"));
                (difference, Code::ProofTooLarge, BTreeSet::from([kernel]), Default::default(), proven_alone)
            }
            Err(Uncompared::Other(message)) => {
                let difference = format!("cannot compare kernels at {EQUIVALENCE_TRIPLE} -O2: {message}");
                (Some(difference), Code::NotEquivalent, BTreeSet::new(), Default::default(), BTreeSet::new())
            }
        };
        let (flat_regressions, proof, proven_functions) = passed;
        let passed = |unverified| Passed { flat_regressions, unverified, proof, proven_functions };
        match difference {
            None => Ok(passed(None)),
            Some(detail) if self.options.allow_unverified => Ok(passed(Some(detail))),
            Some(detail) => Err(Failure { why: Withdrawal { reason, detail }, differing, proven_alone }),
        }
    }
}

/// Why a check's kernels were not compared.
enum Uncompared {
    /// A kernel over `--proof-limit` (`proof-too-large`).
    TooCostly { kernel: String, message: String, proven_alone: BTreeSet<String> },
    /// Anything else: the original does not compile for the triple, LLVM failed.
    Other(String),
}

impl From<crate::verify::VerifyError> for Uncompared {
    fn from(error: crate::verify::VerifyError) -> Uncompared {
        match &error {
            crate::verify::VerifyError::TooCostly { kernel, proven_alone, .. } => Uncompared::TooCostly {
                kernel: kernel.clone(),
                message: error.to_string(),
                proven_alone: proven_alone.iter().cloned().collect(),
            },
            _ => Uncompared::Other(error.to_string()),
        }
    }
}
