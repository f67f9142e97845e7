//! Build script: compiles the in-process clang shim (`clang_compile.cpp`,
//! `preamble.cpp`, which finds a file's preamble with clang's lexer, and
//! `function_print.cpp`, which prints many functions with one slot tracker)
//! against LLVM/Clang 19's headers and links it to `libclang-cpp`, the
//! library the `clang-19` executable itself is made of.
//!
//! `llvm-config` is found as llvm-sys finds it: `$LLVM_SYS_191_PREFIX/bin`,
//! then `llvm-config-19` on PATH, then Debian's `/usr/lib/llvm-19/bin`.
//!
//! It also names this build of clasp by its source (`CLASP_SOURCE_DIGEST`:
//! the SHA-256 of every file under `src/`, `Cargo.toml` and `Cargo.lock`),
//! which keys what the store keeps (`support::store`): two machines building
//! one commit share entries, and any change to the source starts afresh.
//! As the script runs again on any change under `src/`, the shim is compiled
//! again only when its own sources or flags changed.

use std::path::PathBuf;
use std::process::Command;

fn llvm_config() -> PathBuf {
    if let Some(prefix) = std::env::var_os("LLVM_SYS_191_PREFIX") {
        return PathBuf::from(prefix).join("bin/llvm-config");
    }
    if Command::new("llvm-config-19").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return PathBuf::from("llvm-config-19");
    }
    PathBuf::from("/usr/lib/llvm-19/bin/llvm-config")
}

fn query(config: &PathBuf, flag: &str) -> String {
    let output = Command::new(config)
        .arg(flag)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} (install llvm-19-dev: scripts/setup): {e}", config.display()));
    assert!(output.status.success(), "{} {flag} failed", config.display());
    String::from_utf8(output.stdout).expect("llvm-config prints UTF-8").trim().to_string()
}

/// Builds `intercept/*.c`, run-check's preloaded library, into `$OUT_DIR/libclasp_intercept.so`
/// (the binary embeds it: `trace::interceptor`). It needs the OpenCL headers only (CL/cl.h), and
/// links no OpenCL library: it finds the loader at run time.
fn build_interceptor() {
    let folder = "src/native/intercept";
    println!("cargo:rerun-if-changed={folder}");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{folder}: {e}"))
        .map(|entry| entry.expect("a readable folder").path())
        .filter(|path| path.extension().is_some_and(|e| e == "c" || e == "h"))
        .collect();
    sources.sort();
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("libclasp_intercept.so");
    let Some(stale) = stale("clasp_intercept", &sources, "", &out) else { return };
    let compiler = cc::Build::new().get_compiler();
    let status = compiler
        .to_command()
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-o"])
        .arg(&out)
        .args(sources.iter().filter(|path| path.extension().is_some_and(|e| e == "c")))
        .args(["-ldl", "-lpthread"])
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler for {folder}: {e}"));
    assert!(status.success(), "{folder} did not compile (CL/cl.h comes with opencl-c-headers: scripts/setup)");
    built(stale);
}

/// Every file under `dir`, sorted, into `files`.
fn files_under(dir: &std::path::Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable folder").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// The SHA-256 of `files`, each as its path and its bytes, length-prefixed.
fn digest(files: &[PathBuf], extra: &str) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for path in files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for part in [path.to_string_lossy().as_bytes(), &bytes[..]] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    hasher.update(extra.as_bytes());
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Names the build by its source: `CLASP_SOURCE_DIGEST`.
fn source_digest() {
    let mut files = vec![PathBuf::from("Cargo.toml"), PathBuf::from("Cargo.lock")];
    files_under(std::path::Path::new("src"), &mut files);
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!("cargo:rustc-env=CLASP_SOURCE_DIGEST={}", digest(&files, &version));
}

/// What `name` must be built from when its inputs (their digest then
/// `flags`) changed since it was last built into `output`; `None` when they
/// did not (the script runs on every source change, the C++ only needs
/// compiling when its own inputs change). `built` records it once built.
fn stale(name: &str, inputs: &[PathBuf], flags: &str, output: &std::path::Path) -> Option<(PathBuf, String)> {
    let stamp = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join(format!("{name}.inputs"));
    let now = digest(inputs, flags);
    let same = output.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|before| before == now);
    (!same).then_some((stamp, now))
}

fn built((stamp, digest): (PathBuf, String)) {
    std::fs::write(&stamp, digest).unwrap_or_else(|e| panic!("{}: {e}", stamp.display()));
}

fn main() {
    source_digest();
    build_interceptor();
    let sources = ["src/native/clang_compile.cpp", "src/native/preamble.cpp", "src/native/function_print.cpp"];
    for source in sources {
        println!("cargo:rerun-if-changed={source}");
    }
    println!("cargo:rerun-if-changed=src/native/build.rs");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
    let config = llvm_config();
    let include_dir = query(&config, "--includedir");
    let lib_dir = query(&config, "--libdir");
    let header = PathBuf::from(&include_dir).join("clang/Frontend/CompilerInstance.h");
    assert!(header.is_file(), "{} missing: install libclang-19-dev (scripts/setup)", header.display());

    let mut build = cc::Build::new();
    build.cpp(true).files(sources).include(&include_dir).warnings(false);
    // LLVM's own flags (C++ standard, the macros its headers need), but with
    // exceptions on: the shim's entries catch any exception (the standard
    // library's, such as std::bad_alloc) so that none unwinds into Rust.
    let cxxflags = query(&config, "--cxxflags");
    for flag in cxxflags.split_whitespace().filter(|f| !f.starts_with("-I") && *f != "-fno-exceptions") {
        build.flag(flag);
    }
    build.flag("-fexceptions");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let inputs: Vec<PathBuf> = sources.iter().map(PathBuf::from).collect();
    let archive = out.join("libclasp_clang_compile.a");
    match stale("clasp_clang_compile", &inputs, &format!("{include_dir} {cxxflags}"), &archive) {
        Some(stale) => {
            build.compile("clasp_clang_compile");
            built(stale);
        }
        None => {
            // What `compile` would have said: the archive it built last time is current.
            println!("cargo:rustc-link-search=native={}", out.display());
            println!("cargo:rustc-link-lib=static=clasp_clang_compile");
        }
    }

    println!("cargo:rustc-link-search=native={lib_dir}");
    println!("cargo:rustc-link-lib=dylib=clang-cpp");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
