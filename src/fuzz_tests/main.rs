//! Fuzzing the whole pipeline in process: the fixture kernels, mutated at
//! the token level (`mutate`), each migrated by `clasp::run` as the CLI
//! would (`migrate --json --out-dir`), with these invariants:
//!
//! - no panic, and an exit code of 0 or 2; 2 only where the input does not
//!   compile as the target as it is (and then nothing is written);
//! - no two edits of a file overlap; a report of changes comes with a file;
//! - a changed file compiles as the target (clang 19) and its kernels are
//!   equivalent to the original's (clasp's own equivalence check, run again
//!   from outside the pipeline), except a kernel clasp itself says it kept
//!   unverified; an equivalence build that fails is excused only where the
//!   original's fails alone;
//! - a second run over the result changes nothing;
//! - in CI, at least `MIN_CHECKED` cases were changed and fully compared.
//!
//! proptest generates and shrinks the mutation lists (a failure is reported
//! with the fewest mutations that still fail, and its text is saved under
//! `target/fuzz-failures/`). In CI a fixed seed runs `CASES` cases; with
//! `CLASP_FUZZ_SECONDS` set (`scripts/fuzz SECONDS`) it runs for that long,
//! batch after batch from fresh seeds, and prints the figures.

mod mutate;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

use mutate::{mutation, Mutation, Tokens};

/// Cases in one CI run (a fixed seed: the same cases every time).
const CASES: u32 = 160;
/// The fewest of the CI run's cases that must be changed by clasp and have
/// every kernel compared with the original's. Measured (`cargo test --test
/// fuzz`, seed 0x5eed, 65 seed fixtures): 42 changed, all 42 fully compared,
/// 114 exiting 2 over inputs the mutations broke. About 70% of that: room
/// for fixtures added or edited (they shift which mutation lands where),
/// far above a run that changes or compares nothing.
const MIN_CHECKED: u64 = 30;
/// Cases per batch when running for a time.
const BATCH: u32 = 32;

/// Cases whose kernel clasp changed, those of them whose every kernel was
/// compared with the original's, and cases it reported errors for.
static CHANGED: AtomicU64 = AtomicU64::new(0);
static FULLY_CHECKED: AtomicU64 = AtomicU64::new(0);
static ERRORS: AtomicU64 = AtomicU64::new(0);

/// A fixture kernel and its tokens.
struct Seed {
    name: String,
    tokens: Tokens,
}

fn main() {
    if let Some(path) = std::env::var_os("CLASP_FUZZ_REPLAY") {
        return replay(Path::new(&path));
    }
    replay_found();
    let seeds = seeds();
    let budget = std::env::var("CLASP_FUZZ_SECONDS").ok().and_then(|s| s.parse::<u64>().ok());
    let started = Instant::now();
    let (mut batches, mut executions, mut failures) = (0u64, 0u64, 0u64);
    loop {
        let seed = match budget {
            None => 0x5eed,
            Some(_) => started.elapsed().as_nanos() as u64 ^ batches.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        };
        match budget {
            // In CI the first failure fails the test.
            None => executions += run_batch(&seeds, seed, CASES),
            // For a time: a failure is counted (its kernel saved, its message printed) and the run goes on.
            Some(_) => match std::panic::catch_unwind(|| run_batch(&seeds, seed, BATCH)) {
                Ok(done) => executions += done,
                Err(_) => {
                    failures += 1;
                    executions += u64::from(BATCH);
                }
            },
        }
        batches += 1;
        if budget.is_some() && batches.is_multiple_of(10) {
            eprintln!("fuzz: {executions} executions, {:.0} s, {failures} failures", started.elapsed().as_secs_f64());
        }
        if budget.is_none_or(|b| started.elapsed() >= Duration::from_secs(b)) {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "fuzz: {executions} executions in {seconds:.0} s ({:.1}/s) over {} fixtures: {} changed ({} with every kernel compared), {} with errors (exit 2), {failures} failures",
        executions as f64 / seconds,
        seeds.len(),
        CHANGED.load(Ordering::Relaxed),
        FULLY_CHECKED.load(Ordering::Relaxed),
        ERRORS.load(Ordering::Relaxed),
    );
    if failures > 0 {
        std::process::exit(1);
    }
    if budget.is_none() {
        let (changed, fully) = (CHANGED.load(Ordering::Relaxed), FULLY_CHECKED.load(Ordering::Relaxed));
        assert!(
            changed >= MIN_CHECKED && fully >= MIN_CHECKED,
            "fuzz: only {changed} cases changed and {fully} fully checked, under the floor of {MIN_CHECKED}: the run checked too little"
        );
    }
}

/// Every case the fuzzer found, kept under `fixtures/fuzz/`, checked again first.
fn replay_found() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    found.sort();
    assert!(!found.is_empty(), "{} holds the cases the fuzzer found", dir.display());
    for path in &found {
        replay(path);
    }
}

/// Checks one kernel again (`scripts/fuzz --replay FILE`); a saved failure's
/// name (`HASH-fixture.cl`) loses its hash.
fn replay(path: &Path) {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file_name = path.file_name().unwrap().to_string_lossy();
    let hashed = file_name.split_once('-').filter(|(hash, _)| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
    let name = hashed.map_or(&*file_name, |(_, fixture)| fixture).to_string();
    let seed = Seed { name, tokens: Tokens::new(&text, &[]) };
    match check_text(&seed, &text) {
        Ok(()) => println!("fuzz: {} passes every invariant", path.display()),
        Err(e) => panic!("fuzz: {}: {e}", path.display()),
    }
}

/// Runs `cases` cases from `seed`; panics (failing the test) on the first
/// invariant broken, after shrinking it. Returns the number of executions.
fn run_batch(seeds: &[Seed], seed: u64, cases: u32) -> u64 {
    let config = Config { cases, failure_persistence: None, max_shrink_iters: 64, ..Config::default() };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..4));
    let executions = std::cell::Cell::new(0u64);
    let result = runner.run(&strategy, |(which, mutations)| {
        executions.set(executions.get() + 1);
        check(&seeds[which], &mutations)
    });
    if let Err(failure) = result {
        panic!("fuzz: an invariant broke (seed {seed:#x}): {failure}");
    }
    executions.get()
}

/// Every single-file kernel of `fixtures/migrate` and `fixtures/demo`, tokenised by libclang.
fn seeds() -> Vec<Seed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let parser = clasp::front::parse::Parser::new().expect("libclang 19 (scripts/setup)");
    let args: Vec<String> = ["-x", "cl", "-cl-std=CL1.2"].iter().map(|s| s.to_string()).collect();
    let mut seeds = Vec::new();
    for dir in ["migrate", "demo"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "cl")) {
            let text = std::fs::read(&path).unwrap();
            let ranges = parser.token_ranges(&path, &text, &args).unwrap();
            let tokens = Tokens::new(&text, &ranges);
            assert_eq!(tokens.text(), text, "{}: tokens and gaps must give the file back", path.display());
            seeds.push(Seed { name: path.file_name().unwrap().to_string_lossy().into_owned(), tokens });
        }
    }
    assert!(seeds.len() > 20, "the fixtures are the fuzzer's seeds");
    seeds
}

/// One case: mutate, migrate, check the invariants.
fn check(seed: &Seed, mutations: &[Mutation]) -> Result<(), TestCaseError> {
    let mut tokens = seed.tokens.clone();
    for m in mutations {
        tokens.apply(m);
    }
    let text = tokens.text();
    // Kept if the case crashes the process (a crash in clang or LLVM that no unwinding catches).
    let in_flight = failures_dir().join(format!("in-flight-{}", seed.name));
    std::fs::write(&in_flight, &text).unwrap();
    let outcome = check_text(seed, &text);
    let _ = std::fs::remove_file(&in_flight);
    outcome
}

fn check_text(seed: &Seed, text: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join(&seed.name);
    std::fs::write(&kernel, text).unwrap();
    let failed = |what: String| {
        let saved = save_failure(&seed.name, text);
        TestCaseError::fail(format!("{}: {what}\n(the mutated kernel is saved as {})", seed.name, saved.display()))
    };
    let out = dir.path().join("out");
    let (code, report, said) =
        migrate(&["--json", "--out-dir", out.to_str().unwrap(), kernel.to_str().unwrap()]).map_err(&failed)?;
    let report: serde_json::Value =
        serde_json::from_slice(&report).map_err(|e| failed(format!("the JSON report does not parse: {e}")))?;
    no_overlapping_edits(&report).map_err(&failed)?;
    // The edit root is the kernel's folder: its copy is at its name under `out`.
    let written = std::fs::read(out.join(&seed.name)).ok();
    match code {
        0 => {}
        2 => {
            ERRORS.fetch_add(1, Ordering::Relaxed);
            error_is_the_input_s(&kernel, written.is_some(), &said).map_err(&failed)?;
            return Ok(());
        }
        _ => return Err(failed(format!("exit code {code}"))),
    }
    let Some(migrated) = written else {
        // Nothing written: then nothing was to change, and the report says so.
        let changes = report["changes"].as_array().map_or(0, Vec::len);
        return if changes == 0 { Ok(()) } else { Err(failed(format!("{changes} changes reported, no file written"))) };
    };
    CHANGED.fetch_add(1, Ordering::Relaxed);
    let excused = unverified_kernels(&report);
    if compiles_as_target_and_equivalent(&kernel, &migrated, &excused).map_err(&failed)? {
        FULLY_CHECKED.fetch_add(1, Ordering::Relaxed);
    }
    let again = dir.path().join("again.cl");
    std::fs::write(&again, &migrated).unwrap();
    let (code, _, said) = migrate(&["--check", again.to_str().unwrap()]).map_err(&failed)?;
    if code != 0 {
        let said = String::from_utf8_lossy(&said);
        return Err(failed(format!("a second run over the result exits {code}, not 0:\n{said}")));
    }
    Ok(())
}

/// `clasp migrate ARGS` in process (no result cache: every case is new): the exit code, stdout and stderr, or the panic.
fn migrate(args: &[&str]) -> Result<(i32, Vec<u8>, Vec<u8>), String> {
    let argv: Vec<String> = ["clasp", "migrate", "-j1", "-q", "--no-cache"].iter().chain(args).map(|s| s.to_string()).collect();
    std::panic::catch_unwind(|| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = clasp::run(argv, &mut out, &mut err);
        (code, out, err)
    })
    .map_err(|panic| {
        let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        format!("clasp panicked: {}", message.unwrap_or_default())
    })
}

/// Per changed file, its fixes' edits are disjoint.
fn no_overlapping_edits(report: &serde_json::Value) -> Result<(), String> {
    for change in report["changes"].as_array().into_iter().flatten() {
        let mut edits: Vec<(u64, u64)> = (change["fixes"].as_array().into_iter().flatten())
            .flat_map(|fix| fix["edits"].as_array().cloned().unwrap_or_default())
            .map(|e| (e["start"].as_u64().unwrap_or(0), e["end"].as_u64().unwrap_or(0)))
            .collect();
        edits.sort();
        if let Some(pair) = edits.windows(2).find(|w| w[1].0 < w[0].1) {
            return Err(format!("edits {:?} and {:?} overlap in {}", pair[0], pair[1], change["path"]));
        }
    }
    Ok(())
}

/// Exit 2 is right only where the input gave clasp no way out: it does not
/// compile as the target as it is (so a change was required: either the
/// input is broken in every standard clasp reads, or a required repair was
/// refused). An input that already compiles as 2.0 needs nothing, so an
/// error there is clasp's own. And a batch with an error writes nothing.
fn error_is_the_input_s(kernel: &Path, written: bool, said: &[u8]) -> Result<(), String> {
    let said = String::from_utf8_lossy(said);
    if written {
        return Err(format!("exit 2, yet the file was written:\n{said}"));
    }
    let target = clasp::settings::options::Target::Cl20.std_flags();
    let args = clasp::settings::options::CompileOptions::default().clang_args(Some(&target));
    match clasp::verify::compiles(kernel, &args, &BTreeMap::new()) {
        Err(_) => Ok(()),
        Ok(()) => Err(format!("exit 2 over an input that compiles as the target as it is:\n{said}")),
    }
}

/// The kernels clasp itself says it kept unverified (a required repair it
/// could not prove, in a warning `repairs kept unverified: kernel `K` ...`):
/// only their differences are excused, each kernel on its own.
fn unverified_kernels(report: &serde_json::Value) -> BTreeSet<String> {
    let messages = report["warnings"].as_array().into_iter().flatten().filter_map(|w| w["message"].as_str());
    let named =
        messages.filter_map(|m| m.strip_prefix("repairs kept unverified: kernel `")?.split_once('`').map(|(k, _)| k.to_string()));
    named.collect()
}

/// The result compiles as OpenCL C 2.0, and its kernels other than
/// `excused` are equivalent to the original's, read as 1.2 when it compiles
/// so (clasp's `--std auto`), else as 2.0. Returns whether every kernel was
/// compared (nothing excused, and the original compiled for the triple).
fn compiles_as_target_and_equivalent(original: &Path, migrated: &[u8], excused: &BTreeSet<String>) -> Result<bool, String> {
    use clasp::settings::options::{CompileOptions, Target};
    let target = Target::Cl20.std_flags();
    let options = CompileOptions::default();
    let replaced = BTreeMap::from([(original.to_path_buf(), migrated.to_vec())]);
    clasp::verify::compiles(original, &options.clang_args(Some(&target)), &replaced)
        .map_err(|e| format!("the result does not compile as the target: {e}"))?;
    let cl12 = vec!["-cl-std=CL1.2".to_string()];
    let read_as = match clasp::verify::compiles(original, &options.clang_args(Some(&cl12)), &BTreeMap::new()) {
        Ok(()) => cl12,
        Err(_) => target.clone(),
    };
    let triple = clasp::verify::EQUIVALENCE_TRIPLE;
    let (before_args, after_args) =
        (options.clang_args_for(Some(&read_as), triple), options.clang_args_for(Some(&target), triple));
    let context = clasp::front::lower::Context::create();
    match clasp::verify::equivalence(&context, original, &before_args, &after_args, &replaced) {
        Ok(e) => {
            let different: Vec<_> = e.different.iter().filter(|d| !excused.contains(&d.kernel)).collect();
            if let Some(d) = different.first() {
                return Err(format!(
                    "kernel {} differs after migration: `{}` became `{}`",
                    d.kernel,
                    d.original.trim(),
                    d.migrated.trim()
                ));
            }
            Ok(excused.is_empty())
        }
        // Excused only where the original alone fails the same way: clasp then relies on the recompile, as here.
        Err(error) => match clasp::verify::compile_for_equivalence(original, &before_args, &BTreeMap::new()) {
            Err(_) => Ok(false),
            Ok(_) => Err(format!("the original compiles for {triple}, the result does not: {error}")),
        },
    }
}

/// Saves a failing case's text under target/fuzz-failures/, named by its content.
fn save_failure(name: &str, text: &[u8]) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let path = failures_dir().join(format!("{:016x}-{name}", hasher.finish()));
    let _ = std::fs::write(&path, text);
    path
}

/// target/fuzz-failures/, created.
fn failures_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
