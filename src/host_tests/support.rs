//! The harness: copying a fixture, building its host program against the
//! stub OpenCL (C with `cc`, C++ with `c++`, Python with `python3` and the
//! stub `pyopencl` on `PYTHONPATH`), running it with `CLASP_STUB_RECORD`
//! set, reading back what it recorded, and compiling recorded sources with
//! clang-19 as a driver would build them with the recorded options (in the
//! standard they name, else 1.2).
//!
//! A fixture directory holds one host program, `host.c`, `host.cpp` or
//! `host.py`, which reads any file relative to the current directory: the
//! harness runs it in a copy of the directory.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The clang that checks recorded sources (the one `scripts/setup` installs).
pub const CLANG: &str = "/usr/lib/llvm-19/bin/clang";

/// One program as the driver received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The source, concatenated from the strings the host passed.
    pub source: String,
    /// The options of every build or compile call, in order; `None` for NULL.
    pub builds: Vec<Option<String>>,
}

/// `fixtures/host/`.
pub fn host_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/host")
}

/// The stub OpenCL: `CL/cl.h`, `CL/opencl.hpp`, `stub_opencl.c`, `pyopencl/`.
pub fn stub_dir() -> PathBuf {
    host_fixtures().join("stub")
}

/// The fixture `name` under `fixtures/host/`.
pub fn fixture_dir(name: &str) -> PathBuf {
    host_fixtures().join(name)
}

/// The names of every fixture (each directory of `fixtures/host/` but the stub), sorted.
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(host_fixtures())
        .expect("read fixtures/host")
        .map(|entry| entry.expect("read fixtures/host").path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "stub")
        .collect();
    names.sort();
    names
}

/// Copies the tree at `from` to `to` (created), files and directories only.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap_or_else(|e| panic!("walk {}: {e}", from.display()));
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap_or_else(|e| panic!("create {}: {e}", target.display()));
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("copy {}: {e}", entry.path().display()));
        }
    }
}

/// Builds and runs the host program of the fixture at `dir` (left as it
/// is: the host runs in a copy) and returns the programs it created, in
/// creation order. Panics, with the tool's output, when the host does not
/// build, does not run to a zero exit, or records something malformed.
pub fn run_host(dir: &Path) -> Vec<Recorded> {
    let work = tempfile::tempdir().expect("temporary directory");
    let copy = work.path().join(dir.file_name().expect("fixture directory name"));
    copy_tree(dir, &copy);
    let record = work.path().join("record.jsonl");
    let mut command = host_command(&copy, work.path());
    let output = command.current_dir(&copy).env("CLASP_STUB_RECORD", &record).output();
    expect_success(&format!("running the host of {}", dir.display()), output);
    match std::fs::read_to_string(&record) {
        Ok(text) => parse_record(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("read {}: {e}", record.display()),
    }
}

/// The command that runs the host in `copy`, built first into `work` for C and C++.
fn host_command(copy: &Path, work: &Path) -> Command {
    let stub = stub_dir();
    let binary = work.join("host");
    if copy.join("host.c").is_file() {
        let mut sources = vec![copy.join("host.c")];
        sources.extend(other_sources(copy, "c", "host.c"));
        sources.push(stub.join("stub_opencl.c"));
        compile_c(&sources, &binary, false);
        Command::new(binary)
    } else if copy.join("host.cpp").is_file() {
        let object = work.join("stub_opencl.o");
        compile_c(&[stub.join("stub_opencl.c")], &object, true);
        require("c++");
        let mut cxx = Command::new("c++");
        cxx.args(["-std=c++17", "-Wall", "-Werror", "-I"]).arg(&stub).arg("-o").arg(&binary);
        cxx.arg(copy.join("host.cpp")).args(other_sources(copy, "cpp", "host.cpp")).arg(&object).current_dir(copy);
        expect_success(&format!("c++ {}", copy.join("host.cpp").display()), cxx.output());
        Command::new(binary)
    } else if copy.join("host.py").is_file() {
        require("python3");
        let mut python = Command::new("python3");
        // No bytecode: the stub package is used in place, in the source tree.
        python.arg("host.py").env("PYTHONPATH", &stub).env("PYTHONDONTWRITEBYTECODE", "1");
        python
    } else {
        panic!("{}: no host.c, host.cpp or host.py", copy.display())
    }
}

/// The host's other source files (`*.EXT` beside `main`, a helper's file), sorted.
fn other_sources(copy: &Path, ext: &str, main: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(copy).unwrap_or_else(|e| panic!("read {}: {e}", copy.display()));
    let mut found: Vec<PathBuf> = entries
        .map(|entry| entry.expect("read the fixture copy").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext) && p.file_name().is_some_and(|n| n != main))
        .collect();
    found.sort();
    found
}

/// Compiles C `sources` against the stub headers into `output` (an object with `object`).
fn compile_c(sources: &[PathBuf], output: &Path, object: bool) {
    require("cc");
    let mut cc = Command::new("cc");
    cc.args(["-std=c11", "-Wall", "-Werror", "-I"]).arg(stub_dir()).arg("-o").arg(output);
    if object {
        cc.arg("-c");
    }
    cc.args(sources);
    if let Some(dir) = sources[0].parent() {
        cc.current_dir(dir);
    }
    expect_success(&format!("cc {}", sources[0].display()), cc.output());
}

/// Panics unless `program` runs (`--version`): tests never skip a missing tool.
pub fn require(program: &str) {
    let found = Command::new(program).arg("--version").output();
    match found {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!("{program} --version failed: {}", String::from_utf8_lossy(&output.stderr)),
        Err(e) => panic!("{program} is needed by the host tests but cannot be run ({e}): run scripts/setup"),
    }
}

fn expect_success(what: &str, output: std::io::Result<Output>) {
    let output = output.unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        output.status.success(),
        "{what}: {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One line of the stub's record.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Event {
    event: String,
    program: usize,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    options: Option<String>,
}

/// The programs in the stub's JSON lines (numbered from 1 in creation order).
pub fn parse_record(text: &str) -> Vec<Recorded> {
    let mut programs: Vec<Recorded> = Vec::new();
    for line in text.lines() {
        let event: Event = serde_json::from_str(line).unwrap_or_else(|e| panic!("bad record line {line:?}: {e}"));
        match event.event.as_str() {
            "source" => {
                assert_eq!(event.program, programs.len() + 1, "programs out of order: {line}");
                let source = event.source.unwrap_or_else(|| panic!("no source: {line}"));
                programs.push(Recorded { source, builds: Vec::new() });
            }
            "build" | "compile" => {
                let program = event.program.checked_sub(1).and_then(|i| programs.get_mut(i));
                program.unwrap_or_else(|| panic!("unknown program: {line}")).builds.push(event.options);
            }
            other => panic!("unknown event {other:?}: {line}"),
        }
    }
    programs
}

/// Splits option strings as a shell would, each in turn, into one argument list.
pub fn split_options(options: &[String]) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    for option in options {
        args.extend(shlex::split(option).ok_or_else(|| format!("options {option:?} do not split as a shell would"))?);
    }
    Ok(args)
}

/// The standard a driver builds with `args` in: the last `-cl-std=`, else
/// OpenCL C 1.2 (what a driver builds a program in when no option names one,
/// whatever it supports).
pub fn driver_standard(args: &[String]) -> &str {
    args.iter().filter_map(|arg| arg.strip_prefix("-cl-std=")).next_back().unwrap_or("CL1.2")
}

/// Compiles `source` for spir64 with clang-19, syntax only, as a driver
/// would build it with `options` (option strings split like a shell, e.g. a
/// recorded build's `builds[i].as_slice()`): in the standard they name, or
/// 1.2 when they name none. Returns that standard.
pub fn compiles_as_built(source: &str, options: &[String]) -> Result<String, String> {
    compiles_as_built_in(source, options, None)
}

/// As `compiles_as_built`, with clang run in `working_dir` (where the host
/// ran: a relative `-I` among the options is relative to it), else in a
/// temporary directory.
pub fn compiles_as_built_in(source: &str, options: &[String], working_dir: Option<&Path>) -> Result<String, String> {
    let args = split_options(options)?;
    let std = driver_standard(&args).to_string();
    require(CLANG);
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let file = dir.path().join("program.cl");
    std::fs::write(&file, source).map_err(|e| format!("write {}: {e}", file.display()))?;
    // The standard first: an `-cl-std=` among the options comes later and is the same one.
    let output = Command::new(CLANG)
        .args(["-x", "cl", &format!("-cl-std={std}"), "-target", "spir64", "-fsyntax-only"])
        .args(&args)
        .arg(&file)
        .current_dir(working_dir.unwrap_or(dir.path()))
        .output()
        .map_err(|e| format!("run {CLANG}: {e}"))?;
    if output.status.success() {
        Ok(std)
    } else {
        Err(format!("clang -cl-std={std} {args:?}: {}\n{}", output.status, String::from_utf8_lossy(&output.stderr)))
    }
}

/// Checks every recorded program compiles as a driver builds it with each
/// of its builds' options (with none when it was never built); all failures
/// in one error. A program built with options that name no standard is
/// built as 1.2, so a migrated (generic) program whose build does not ask
/// for 2.0 fails here.
pub fn compile_all(programs: &[Recorded]) -> Result<(), String> {
    compile_all_in(programs, None)
}

/// As `compile_all`, with clang run in `working_dir` (see `compiles_as_built_in`).
pub fn compile_all_in(programs: &[Recorded], working_dir: Option<&Path>) -> Result<(), String> {
    let mut failures = Vec::new();
    for (index, program) in programs.iter().enumerate() {
        let unbuilt = [None];
        let builds = if program.builds.is_empty() { &unbuilt[..] } else { &program.builds[..] };
        for build in builds {
            if let Err(e) = compiles_as_built_in(&program.source, build.as_slice(), working_dir) {
                failures.push(format!("program {} with options {build:?}: {e}", index + 1));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}
