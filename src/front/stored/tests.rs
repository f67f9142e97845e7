//! Units loaded by the real workbench, written and read back: the unit read
//! back is the unit loaded, field by field (private ones included), for a
//! plain file, headers, `#if`-skipped code, qualifier macros, program-scope
//! variables, an embedded kernel and a `[[program]]`; what does not read
//! back whole is `None`; interning shares a header's facts across units.

use std::path::Path;
use std::sync::Arc;

use super::{decode, encode, Interner, HEADER};
use crate::front::unit::{Unit, Workbench};
use crate::input::source::{Embedded, Form, Part, Program, SourceMap};
use crate::settings::options::{CompileOptions, Target};

/// A header of helpers per address space, spelled by keywords, qualifier
/// macros and a macro whose body holds the qualifier.
pub(super) const HELPERS: &str = "#ifndef HELPERS_H\n#define HELPERS_H\n\
    #define GMEM __global\n#define LMEM __local\n#define GPTR(T) __global T *\n\
    typedef __global float *gptr;\n\
    __constant float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n\
    float first(GMEM const float *p) { return p[0]; }\n\
    float sum_local(LMEM float *l, int n) { float s = 0; for (int i = 0; i < n; i++) s += l[i]; return s; }\n\
    float from_constant(__constant float *c) { return c[1]; }\n\
    float scaled(__private float *q, gptr g) { return q[0] * g[0]; }\n\
    void put(GPTR(float) out, float v) { out[0] = v; }\n\
    float via(__global float *p) { __global float *q = p + 1; return first(q); }\n\
    #endif\n";

/// A unit including `HELPERS`, with code `#if` skips under condition macros.
const KERNEL: &str = "#include \"helpers.h\"\n\
    #define MODE 2\n#define LEVEL(x) ((x) + MODE)\n\
    __constant int table[2] = {3, 4};\n\
    #if LEVEL(1) > 5\n\
    float unused(__global float *p) { return p[1] + table[0]; }\n\
    #elif defined(EXTRA)\n\
    #define MORE 1\n\
    float extra(__local float *l) { return l[0]; }\n\
    #endif\n\
    kernel void k(__global float *out, __local float *tmp, __constant float *c) {\n\
    \x20 float x = 1.0f;\n\
    \x20 tmp[0] = out[0];\n\
    \x20 put(out, first(out) + sum_local(tmp, 1) + from_constant(c) + scaled(&x, out) + weights[table[1]]);\n\
    }\n";

fn bench() -> Workbench {
    Workbench::new().expect("clang-19 must be installed (scripts/setup)")
}

/// A run in progress, held by a test whose units share walks or reads: the
/// session's stores live while it does, whatever other tests in the process
/// end their runs meanwhile (which empties them when none is left running).
pub(super) fn run() -> crate::support::session::Session {
    crate::support::session::Session::begin()
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The unit with every file's text read (a decoded unit reads its texts when
/// first needed; a loaded one has its main file's already).
fn with_texts(unit: &Unit) -> String {
    for file in 0..unit.syntax.files.len() {
        unit.text(file);
    }
    format!("{unit:?}")
}

/// `decoded` is `loaded`: the whole unit, and explicitly what the JSON report leaves out.
pub(super) fn assert_same(decoded: &Unit, loaded: &Unit) {
    let (d, l) = (&decoded.syntax, &loaded.syntax);
    let tokens = |u: &Unit| u.syntax.functions.iter().map(|f| f.tokens.to_vec()).collect::<Vec<_>>();
    assert_eq!(tokens(decoded), tokens(loaded));
    assert_eq!(d.identifiers.parts(), l.identifiers.parts());
    assert_eq!(d.references.runs(), l.references.runs());
    assert_eq!(d.macro_bodies, l.macro_bodies);
    assert_eq!(d.condition_macros, l.condition_macros);
    assert_eq!(decoded.ir.generic_stores_in_target, loaded.ir.generic_stores_in_target);
    assert_eq!(with_texts(decoded), with_texts(loaded));
}

fn round_trip(unit: &Unit) -> Unit {
    let bytes = encode(unit).expect("a unit of UTF-8 paths encodes");
    decode(&bytes, unit.embedded.clone(), unit.program.clone()).expect("what encode writes decodes")
}

/// A unit with headers, helpers per space, macros, skipped code and program-scope variables.
#[test]
fn a_unit_read_back_is_the_unit_loaded() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "helpers.h", HELPERS);
    let path = write(dir.path(), "k.cl", KERNEL);
    let mut loaded = bench().load(&path, &CompileOptions::default(), Target::Cl20).unwrap();
    // What the batch sets after loading reads back too.
    (loaded.configuration, loaded.discovery_bound, loaded.unbuildable) = (Some("fast".into()), Some(4), vec![(0, 3, 9)]);
    let s = &loaded.syntax;
    // The unit has every part this test means to cover.
    assert!(s.functions.iter().any(|f| f.name == "first" && !f.tokens.is_empty() && s.files[f.pos.file].ends_with("helpers.h")));
    assert!(s.program_vars.iter().any(|v| v.name == "weights") && s.program_vars.iter().any(|v| v.name == "table"));
    assert!(!s.skipped.is_empty() && s.condition_macros.contains_key("LEVEL") && s.condition_macros.contains_key("MODE"));
    assert!(s.macro_bodies.values().any(|m| m == "GPTR") && !s.qualifier_macros.is_empty());
    assert!(!s.macro_sites.is_empty(), "GPTR's body spells a qualifier");
    assert!(!s.references.is_empty() && s.identifiers.contains("sum_local"));
    assert!(loaded.ir.flows.len() > 3 && !loaded.ir.globals.is_empty());
    assert_same(&round_trip(&loaded), &loaded);
}

/// A unit read as 2.0 (`--std auto`), whose helpers were walked in another
/// unit first (shared walks, sealed reference runs, shared words).
#[test]
fn a_unit_sharing_header_walks_reads_back_with_its_runs() {
    let _run = run();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "helpers.h", HELPERS);
    let bench = bench();
    let options = CompileOptions { defines: vec!["EXTRA".into()], ..CompileOptions::default() };
    let a = bench.load(&write(dir.path(), "a.cl", KERNEL), &options, Target::Cl20).unwrap();
    let b_text = format!("{KERNEL}generic float *pick(generic float *p) {{ return p; }}\n");
    let b = bench.load(&write(dir.path(), "b.cl", &b_text), &options, Target::Cl20).unwrap();
    assert_eq!(b.standard.std, crate::settings::options::ClStd::Cl20, "b is 2.0 code");
    assert!(!b.syntax.references.runs().0.is_empty(), "b replays header walks: sealed runs");
    assert!(!b.syntax.identifiers.parts().1.is_empty(), "b shares the header walks' words");
    for unit in [&a, &b] {
        assert_same(&round_trip(unit), unit);
    }
}

/// Two scratch folders' copies of one embedded kernel: a unit stored from
/// the first, read back with the second's job, is the second's unit.
#[test]
fn an_embedded_kernel_reads_back_with_its_jobs_scratch_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "helpers.h", HELPERS);
    let kernel = "#include \"helpers.h\"\nkernel void k(__global float *o) { o[0] = first(o); }\n";
    let host_text = format!("const char *src = \"{}\";\n", kernel.replace('\n', " "));
    let host = write(dir.path(), "host.c", &host_text);
    let start = host_text.find("#include").unwrap() as u32;
    let text = kernel.replace('\n', " ");
    let embedded = |scratch: &Path, line: u32| {
        let part = Part {
            file: host.clone(),
            text: host_text.as_bytes().into(),
            range: start..start + text.len() as u32,
            form: Form::Verbatim,
        };
        let map = SourceMap::concatenated([part]);
        Arc::new(Embedded::prepare(scratch, &host, (line, 20, false), vec![(0, 0)], (text.clone(), map)).unwrap())
    };
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (old, new) = (embedded(first.path(), 1), embedded(second.path(), 1));
    let bench = bench();
    let stored = bench.load_embedded(&old, &CompileOptions::default(), Target::Cl20).unwrap();
    let loaded = bench.load_embedded(&new, &CompileOptions::default(), Target::Cl20).unwrap();
    let bytes = encode(&stored).unwrap();
    let decoded = decode(&bytes, Some(new.clone()), None).unwrap();
    assert_same(&decoded, &loaded);
    assert!(!format!("{decoded:?}").contains(&*first.path().to_string_lossy()), "no path of the old scratch folder is left");
    assert_eq!(decoded.text(decoded.syntax.files.iter().position(|f| *f == new.virtual_path).unwrap()), text.as_bytes());
    // A unit of an embedded kernel is not a kernel file's, nor another embedded kernel's.
    assert!(decode(&bytes, None, None).is_none());
    assert!(decode(&bytes, Some(embedded(second.path(), 2)), None).is_none());
}

/// A `[[program]]` of two sources, prepared in two scratch folders.
#[test]
fn a_program_reads_back_with_its_jobs_scratch_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "helpers.h", HELPERS);
    let sources = [
        write(dir.path(), "part1.cl", "#include \"helpers.h\"\nfloat twice(__global float *p) { return 2 * first(p); }\n"),
        write(dir.path(), "part2.cl", "kernel void k(__global float *o) { o[0] = twice(o); }\n"),
    ];
    let program =
        |scratch: &Path| Arc::new(Program::prepare(scratch, &dir.path().join("both.program"), "both", &sources).unwrap());
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (old, new) = (program(first.path()), program(second.path()));
    let bench = bench();
    let stored = bench.load_program(&old, &CompileOptions::default(), Target::Cl20).unwrap();
    let loaded = bench.load_program(&new, &CompileOptions::default(), Target::Cl20).unwrap();
    let decoded = decode(&encode(&stored).unwrap(), None, Some(new.clone())).unwrap();
    assert_same(&decoded, &loaded);
    assert!(!format!("{decoded:?}").contains(&*first.path().to_string_lossy()), "no path of the old scratch folder is left");
}

/// Garbage, every truncation, another version and a kernel file's unit read
/// as an embedded kernel's are `None`.
#[test]
fn what_does_not_read_back_whole_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "k.cl", "kernel void k(__global float *o) { o[0] = 1.0f; }\n");
    let unit = bench().load(&path, &CompileOptions::default(), Target::Cl20).unwrap();
    let bytes = encode(&unit).unwrap();
    assert!(decode(&bytes, None, None).is_some());
    let wrong_bodies = ["{}", "[1,2", "null", "{\"path\":1}"].map(|body| format!("{HEADER}{body}").into_bytes());
    for garbage in [&b""[..], b"\0\xff garbage"].into_iter().chain(wrong_bodies.iter().map(Vec::as_slice)) {
        assert!(decode(garbage, None, None).is_none(), "{}", String::from_utf8_lossy(garbage));
    }
    for cut in (0..bytes.len() - 1).step_by(7) {
        assert!(decode(&bytes[..cut], None, None).is_none(), "cut at {cut}");
    }
    let other_version = [b"clasp-unit 0\n", &bytes[HEADER.len()..]].concat();
    assert!(decode(&other_version, None, None).is_none());
    // A stored value out of its range (a standard clasp does not know) is not a unit either.
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(decode(text.replacen("\"CL1.2\"", "\"CL9.9\"", 1).as_bytes(), None, None).is_none());
}

/// Two units including one header, read back: the header's functions are
/// read once for both (`lazy`); its other facts are each unit's own copy
/// until interned, then one allocation for both.
#[test]
fn interning_shares_a_headers_facts_across_decoded_units() {
    let _run = run();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "helpers.h", HELPERS);
    let bench = bench();
    let kernel = |space: &str| format!("#include \"helpers.h\"\nkernel void k({space} float *o) {{ put(0, first(0)); }}\n");
    let a = bench.load(&write(dir.path(), "a.cl", &kernel("__global")), &CompileOptions::default(), Target::Cl20).unwrap();
    let b = bench.load(&write(dir.path(), "b.cl", &kernel("__local")), &CompileOptions::default(), Target::Cl20).unwrap();
    let (mut a, mut b) = (round_trip(&a), round_trip(&b));
    let function = |u: &Unit, name: &str| u.syntax.functions.iter().find(|f| f.name == name).unwrap().clone();
    let flow_of = |u: &Unit, func: &str| u.ir.flows.iter().find(|f| f.func == func).unwrap().clone();
    assert!(Arc::ptr_eq(&function(&a, "first"), &function(&b, "first")), "a header function is read once");
    assert!(!Arc::ptr_eq(&flow_of(&a, "via"), &flow_of(&b, "via")), "decoded units hold their own flows");
    let mut interner = Interner::default();
    interner.intern(&mut a);
    interner.intern(&mut b);
    for helper in ["first", "sum_local", "from_constant", "scaled", "put"] {
        assert!(Arc::ptr_eq(&function(&a, helper), &function(&b, helper)), "{helper}: one value");
    }
    assert!(Arc::ptr_eq(&flow_of(&a, "via"), &flow_of(&b, "via")));
    assert!(!Arc::ptr_eq(&function(&a, "k"), &function(&b, "k")), "the kernels differ");
    // Interning changes what is held where, not what is held.
    let (a_again, b_again) = (round_trip(&a), round_trip(&b));
    assert_same(&a_again, &a);
    assert_same(&b_again, &b);
}
