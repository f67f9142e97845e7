//! Fuzzing the whole pipeline in process: the fixture kernels, mutated at
//! the token level (`mutate`), each migrated by `clasp::run` as the CLI
//! would (`migrate --json --out-dir`), with these invariants:
//!
//! - no panic, and an exit code of 0 or 2;
//! - no two edits of a file overlap;
//! - a changed file compiles as the target (clang 19) and its kernels are
//!   equivalent to the original's (clasp's own equivalence check, run again
//!   from outside the pipeline);
//! - a second run over the result changes nothing.
//!
//! proptest generates and shrinks the mutation lists (a failure is reported
//! with the fewest mutations that still fail, and its text is saved under
//! `target/fuzz-failures/`). In CI a fixed seed runs `CASES` cases; with
//! `CLASP_FUZZ_SECONDS` set (`scripts/fuzz SECONDS`) it runs for that long,
//! batch after batch from fresh seeds, and prints the figures.

mod mutate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

use mutate::{mutation, Mutation, Tokens};

/// Cases in one CI run (a fixed seed: the same cases every time).
const CASES: u32 = 160;
/// Cases per batch when running for a time.
const BATCH: u32 = 32;

/// Cases whose kernel clasp changed (every invariant checked), and cases it reported errors for.
static CHANGED: AtomicU64 = AtomicU64::new(0);
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
        "fuzz: {executions} executions in {seconds:.0} s ({:.1}/s) over {} fixtures: {} changed and checked, {} with errors (exit 2), {failures} failures",
        executions as f64 / seconds,
        seeds.len(),
        CHANGED.load(Ordering::Relaxed),
        ERRORS.load(Ordering::Relaxed),
    );
    if failures > 0 {
        std::process::exit(1);
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
    let parser = clasp::parse::Parser::new().expect("libclang 19 (scripts/setup)");
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
    let (code, report, _) =
        migrate(&["--json", "--out-dir", out.to_str().unwrap(), kernel.to_str().unwrap()]).map_err(&failed)?;
    if code != 0 && code != 2 {
        return Err(failed(format!("exit code {code}")));
    }
    if code == 2 {
        ERRORS.fetch_add(1, Ordering::Relaxed);
    }
    let report: serde_json::Value =
        serde_json::from_slice(&report).map_err(|e| failed(format!("the JSON report does not parse: {e}")))?;
    no_overlapping_edits(&report).map_err(&failed)?;
    let Some(migrated) = std::fs::read(clasp::write::mirrored(&out, &kernel)).ok() else { return Ok(()) };
    CHANGED.fetch_add(1, Ordering::Relaxed);
    // A required repair clasp could not prove is kept and said to be unverified:
    // the result then differs from the original by design, and only compiles.
    let unverified = report["functions"].as_array().into_iter().flatten().any(|f| f["verified"] == false);
    compiles_as_target_and_equivalent(&kernel, &migrated, !unverified).map_err(&failed)?;
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

/// The result compiles as OpenCL C 2.0 and, when `equivalent`, its kernels are
/// equivalent to the original's, read as 1.2 when it compiles so (clasp's
/// `--std auto`), else as 2.0.
fn compiles_as_target_and_equivalent(original: &Path, migrated: &[u8], equivalent: bool) -> Result<(), String> {
    use clasp::options::{CompileOptions, Target};
    let target = Target::Cl20.std_flags();
    let options = CompileOptions::default();
    let replaced = BTreeMap::from([(original.to_path_buf(), migrated.to_vec())]);
    clasp::verify::compiles(original, &options.clang_args(Some(&target)), &replaced)
        .map_err(|e| format!("the result does not compile as the target: {e}"))?;
    if !equivalent {
        return Ok(());
    }
    let cl12 = vec!["-cl-std=CL1.2".to_string()];
    let read_as = match clasp::verify::compiles(original, &options.clang_args(Some(&cl12)), &BTreeMap::new()) {
        Ok(()) => cl12,
        Err(_) => target.clone(),
    };
    let triple = clasp::verify::EQUIVALENCE_TRIPLE;
    let context = clasp::lower::Context::create();
    let found = clasp::verify::equivalence(
        &context,
        original,
        &options.clang_args_for(Some(&read_as), triple),
        &options.clang_args_for(Some(&target), triple),
        &replaced,
    );
    match found {
        Ok(e) if e.different.is_empty() => Ok(()),
        Ok(e) => {
            let first =
                e.different.iter().map(|d| format!("{}: `{}` became `{}`", d.kernel, d.original.trim(), d.migrated.trim()));
            Err(format!("kernels differ after migration: {}", first.collect::<Vec<_>>().join("; ")))
        }
        // The original does not compile for the equivalence triple: clasp then relies on the recompile, as here.
        Err(_) => Ok(()),
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
