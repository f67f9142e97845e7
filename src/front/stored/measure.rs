//! A batch written and read back: its units are those loaded, and interning
//! holds their shared facts as few times as loading did. The same harness
//! measures a tree when `CLASP_MEASURE_STORED` says how (testing only, so
//! that peak memory is one process's, under `/usr/bin/time -f %M`):
//!
//! ```text
//! CLASP_MEASURE_STORED=load:TREE      load TREE's units (its clasp.toml's kernels) and hold them
//! CLASP_MEASURE_STORED=store:TREE:OUT load them, encode each into OUT: sizes, load and encode times
//! CLASP_MEASURE_STORED=read:TREE:OUT  decode OUT's units with an Interner and hold them: decode times
//! cargo test --release --lib front::stored::measure -- --nocapture
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{decode, encode, Interner};
use crate::front::unit::{Unit, Workbench};
use crate::input::config::{Config, Job};
use crate::settings::options::{CompileOptions, Target};

/// The jobs of a tree: its `kernels/` files with its `clasp.toml`'s options.
fn jobs(tree: &Path) -> Vec<Job> {
    let config = Config::load(&tree.join("clasp.toml")).unwrap();
    let mut files: Vec<PathBuf> = ignore::Walk::new(tree.join("kernels"))
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|e| e == "cl"))
        .collect();
    files.sort();
    config.jobs(&files, &CompileOptions::default()).unwrap()
}

/// Each job's unit, and the time each took.
fn load(jobs: &[Job]) -> (Vec<Unit>, Vec<Duration>) {
    let bench = Workbench::new().expect("clang-19 must be installed (scripts/setup)");
    let mut times = Vec::new();
    let units = jobs
        .iter()
        .map(|job| {
            let start = Instant::now();
            let mut unit = bench.load(&job.path, &job.compile, Target::Cl20).unwrap();
            unit.configuration = job.configuration.clone();
            times.push(start.elapsed());
            unit
        })
        .collect();
    (units, times)
}

/// The units read back from their encodings, each interned with the batch
/// as it is read (so that no two copies of a header are held at once): the
/// time each took to decode, and to intern all.
fn read_back(encoded: &[Vec<u8>]) -> (Vec<Unit>, Vec<Duration>, Duration) {
    let (mut times, mut interning) = (Vec::new(), Duration::ZERO);
    let mut interner = Interner::default();
    let units = encoded
        .iter()
        .map(|bytes| {
            let start = Instant::now();
            let mut unit = decode(bytes, None, None).expect("what encode wrote decodes");
            times.push(start.elapsed());
            let start = Instant::now();
            interner.intern(&mut unit);
            interning += start.elapsed();
            unit
        })
        .collect();
    (units, times, interning)
}

/// The process's resident memory now (kB), as Linux counts it.
fn resident_kb() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap_or("?").trim().to_string()
}

/// How many distinct allocations hold the batch's functions, IR functions and flows.
fn allocations(units: &[Unit]) -> [usize; 3] {
    fn distinct<'u, T: 'u>(arcs: impl Iterator<Item = &'u std::sync::Arc<T>>) -> usize {
        arcs.map(|arc| std::sync::Arc::as_ptr(arc) as usize).collect::<HashSet<_>>().len()
    }
    [
        distinct(units.iter().flat_map(|u| &u.syntax.functions)),
        distinct(units.iter().flat_map(|u| &u.ir.functions)),
        distinct(units.iter().flat_map(|u| &u.ir.flows)),
    ]
}

/// A batch of units sharing headers, written and read back: each unit is
/// the one loaded, and the interned batch holds its functions, IR functions
/// and flows in no more allocations than the loaded batch.
#[test]
fn a_batch_read_back_and_interned_shares_as_the_loaded_batch() {
    if let Ok(how) = std::env::var("CLASP_MEASURE_STORED") {
        return measure(&how);
    }
    let _run = super::tests::run();
    let tree = tempfile::tempdir().unwrap();
    for dir in ["include", "kernels"] {
        std::fs::create_dir(tree.path().join(dir)).unwrap();
    }
    std::fs::write(tree.path().join("include/helpers.h"), super::tests::HELPERS).unwrap();
    std::fs::write(tree.path().join("clasp.toml"), "include = [\"include\"]\n").unwrap();
    for (i, space) in ["__global", "__local", "__constant", "__global"].iter().enumerate() {
        let kernel = format!("#include \"helpers.h\"\nkernel void k{i}({space} float *o) {{ put(0, first(0) + via(0)); }}\n");
        std::fs::write(tree.path().join(format!("kernels/k{i}.cl")), kernel).unwrap();
    }
    let (loaded, _) = load(&jobs(tree.path()));
    let encoded: Vec<Vec<u8>> = loaded.iter().map(|u| encode(u).unwrap()).collect();
    let (decoded, _, _) = read_back(&encoded);
    for (decoded, loaded) in decoded.iter().zip(&loaded) {
        super::tests::assert_same(decoded, loaded);
    }
    let (shared, alone) = (allocations(&decoded), allocations(&loaded));
    assert!(shared.iter().zip(alone).all(|(d, l)| *d <= l), "decoded {shared:?}, loaded {alone:?}");
    // Without interning too, each header function is read once (`lazy`).
    let unshared = allocations(&encoded.iter().map(|b| decode(b, None, None).unwrap()).collect::<Vec<_>>());
    assert!(unshared[0] <= alone[0], "decoded apart {unshared:?}, loaded {alone:?}");
}

/// What `CLASP_MEASURE_STORED` asks for (see the module's documentation).
fn measure(how: &str) {
    let parts: Vec<&str> = how.split(':').collect();
    let jobs = jobs(Path::new(parts[1]));
    match parts[0] {
        "load" => {
            let (units, times) = load(&jobs);
            eprintln!("loaded {} units: {}; allocations {:?}", units.len(), summary(&times), allocations(&units));
            eprintln!("resident with the units held: {}", resident_kb());
        }
        "store" => {
            let (units, load_times) = load(&jobs);
            let out = Path::new(parts[2]);
            std::fs::create_dir_all(out).unwrap();
            let mut times = Vec::new();
            let mut sizes = Vec::new();
            for (i, unit) in units.iter().enumerate() {
                let start = Instant::now();
                let bytes = encode(unit).unwrap();
                times.push(start.elapsed());
                sizes.push(bytes.len());
                std::fs::write(out.join(format!("{i:05}.unit")), bytes).unwrap();
            }
            sizes.sort();
            let (min, median, max) = (sizes[0], sizes[sizes.len() / 2], sizes[sizes.len() - 1]);
            eprintln!("load: {}; encode: {}", summary(&load_times), summary(&times));
            eprintln!("encoded bytes per unit: min {min}, median {median}, max {max}, total {}", sizes.iter().sum::<usize>());
        }
        "read" => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(parts[2]).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            let encoded: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
            let (units, times, interning) = read_back(&encoded);
            drop(encoded);
            eprintln!("decoded {} units: {}; interned in {interning:?}", units.len(), summary(&times));
            eprintln!("allocations {:?}; resident with the units held: {}", allocations(&units), resident_kb());
        }
        other => panic!("CLASP_MEASURE_STORED: `{other}` is none of load, store, read"),
    }
}

/// Min, median and max of `times`, per unit.
fn summary(times: &[Duration]) -> String {
    let mut sorted = times.to_vec();
    sorted.sort();
    let total: Duration = sorted.iter().sum();
    format!(
        "per unit min {:?}, median {:?}, max {:?} (total {total:?})",
        sorted[0],
        sorted[sorted.len() / 2],
        sorted[sorted.len() - 1]
    )
}
