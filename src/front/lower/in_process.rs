//! `in_process`: clang 19 compiling in this process (FFI boundary).
//!
//! A `clang-19` process costs ~28 ms of dynamic loading before it compiles a
//! ~3 ms kernel file, and clasp compiles a changed unit three times; as
//! processes, clang's start-up was most of a batch's time. The C++ shim
//! (`src/native/clang_compile.cpp`, linked to `libclang-cpp`) takes the same
//! driver arguments, builds the one cc1 invocation the driver would run and
//! executes it here, returning what `-o -` would have written. Each call has
//! its own compiler instance and LLVM context, so workers compile in
//! parallel. A crash inside clang is caught (LLVM's CrashRecoveryContext,
//! as libclang does for parsing), but clang's state after a crash is not
//! guaranteed (a deliberate crash left a test process's heap corrupted): so
//! under clasp's supervisor (`crate::isolation`) the worker process ends at
//! once and the batch runs again without the unit. The shim's entries are
//! `noexcept` and catch every C++ exception; `-mllvm` is refused
//! (`check_in_process`), since LLVM's options are the whole process's.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, c_int, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::ClangError;

extern "C" {
    fn clasp_clang_compile(
        argv: *const *const c_char,
        argc: usize,
        main_as: *const c_char,
        declarations_only: c_int,
        drop: *const c_char,
        drop_len: usize,
        output: *mut *mut c_char,
        output_len: *mut usize,
        messages: *mut *mut c_char,
        messages_len: *mut usize,
        read: *mut *mut c_char,
        read_len: *mut usize,
        dropped: *mut *mut c_char,
        dropped_len: *mut usize,
    ) -> c_int;
    fn clasp_clang_free(buffer: *mut c_char);
    fn clasp_preamble(
        text: *const c_char,
        len: usize,
        size: *mut usize,
        includes: *mut usize,
        normalized: *mut *mut c_char,
        normalized_len: *mut usize,
        comments: *mut *mut usize,
        comments_len: *mut usize,
    ) -> c_int;
}

/// Hands the pages freed since back to the system. A unit's check (its
/// compiles, modules and pass pipeline: LLVM's and clang's allocations) is
/// freed when it ends, but an allocator keeps freed pages for reuse, so the
/// resident memory grew with every unit checked (400-unit shared-headers
/// bench, with glibc's allocator: peak 401 MB, 358 MB trimming after each
/// check). mimalloc (see `main.rs`) is the process's allocator: its
/// collection, forced, on the calling thread's heap.
pub fn release_freed_memory() {
    // SAFETY: mi_collect only releases free memory; no pointer is involved.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// What one compilation produced.
pub struct Compiled {
    /// Whether clang reported no error.
    pub success: bool,
    /// What clang would have written to `-o -`.
    pub output: Vec<u8>,
    /// clang's diagnostics, as it prints them.
    pub messages: String,
    /// Every file the compile found (the input, headers, the resource directory's).
    pub read: Vec<std::path::PathBuf>,
    /// With `Bodies::Dropped`: what was left out.
    pub left_out: Option<LeftOut>,
}

/// What a compile with `Bodies::Dropped` left out of code generation: two
/// compiles that left out the same definitions alike, in the same context,
/// compiled them alike (hashes compare within one process).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// Each definition left out, with clang's ODR hash of it: its
    /// declaration and body as parsed, macros expanded.
    pub helpers: BTreeMap<String, u32>,
    /// One hash of every top-level declaration that is not a function
    /// definition (types, enumerators and their values, program-scope
    /// variables, prototypes): what the ODR hashes name without its content.
    pub context: u32,
}

/// Compiles `input` with driver arguments `args`; `clang` is the executable
/// whose resource directory (OpenCL's default headers) the driver uses.
/// `Err` only when clang could not compile at all (a crash, an argument it
/// cannot be given); clang rejecting the code is a `Compiled` without `success`.
/// With `main_as`, `input` is read at that path instead (which need not
/// exist: a VFS overlay in `args` must lay `input` over it), so its quoted
/// includes are looked up in that path's directory.
pub fn compile(clang: &Path, args: &[String], input: &Path, main_as: Option<&Path>) -> Result<Compiled, ClangError> {
    compile_with(clang, args, input, main_as, Bodies::Kept)
}

/// Whether a compile parses function bodies, and which it emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bodies<'a> {
    Kept,
    /// Skipped where clang can (a precompiled header of declarations only).
    Skipped,
    /// Parsed and checked, but these definitions (C names; never a kernel's
    /// or an overloadable function's) are left out of code generation: a
    /// call to one emits a declaration.
    Dropped(&'a BTreeSet<String>),
}

/// `compile`, with function bodies kept or skipped.
pub fn compile_with(
    clang: &Path,
    args: &[String],
    input: &Path,
    main_as: Option<&Path>,
    bodies: Bodies<'_>,
) -> Result<Compiled, ClangError> {
    // Texts laid over files (`support::overlay`) are laid first, under any
    // overlay in `args` (a result being verified, a preamble's text), for
    // every compile: the unit's, its preamble's, the checks'.
    let laid = crate::support::overlay::clang_args();
    let mut words = Vec::with_capacity(laid.len() + args.len() + 2);
    words.push(c_string(clang.as_os_str().as_bytes())?);
    for arg in laid.iter().chain(args) {
        words.push(c_string(arg.as_bytes())?);
    }
    words.push(c_string(input.as_os_str().as_bytes())?);
    let argv: Vec<*const c_char> = words.iter().map(|w| w.as_ptr()).collect();
    let main_as = main_as.map(|p| c_string(p.as_os_str().as_bytes())).transpose()?;
    let main_as_ptr = main_as.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());

    let (mut output, mut output_len) = (std::ptr::null_mut(), 0usize);
    let (mut messages, mut messages_len) = (std::ptr::null_mut(), 0usize);
    let (mut read, mut read_len) = (std::ptr::null_mut(), 0usize);
    let (mut dropped, mut dropped_len) = (std::ptr::null_mut(), 0usize);
    let drop: Option<Vec<u8>> = match bodies {
        Bodies::Dropped(names) => Some(names.iter().flat_map(|name| name.bytes().chain([0])).collect()),
        _ => None,
    };
    let (drop_ptr, drop_len) = drop.as_ref().map_or((std::ptr::null(), 0), |d| (d.as_ptr() as *const c_char, d.len()));
    super::targets::ensure_registered();
    // SAFETY: `argv` points to `argc` NUL-terminated strings that outlive the
    // call, as do `main_as_ptr` (or null) and the `drop_len` bytes at
    // `drop_ptr` (or null); the shim writes four malloc'd buffers (or null
    // with length 0) and their lengths, which are copied and freed below, once each.
    let status = unsafe {
        clasp_clang_compile(
            argv.as_ptr(),
            argv.len(),
            main_as_ptr,
            c_int::from(bodies == Bodies::Skipped),
            drop_ptr,
            drop_len,
            &mut output,
            &mut output_len,
            &mut messages,
            &mut messages_len,
            &mut read,
            &mut read_len,
            &mut dropped,
            &mut dropped_len,
        )
    };
    let output_bytes = take(output, output_len);
    let message_bytes = take(messages, messages_len);
    let messages = String::from_utf8_lossy(&message_bytes).into_owned();
    let read: Vec<std::path::PathBuf> = take(read, read_len)
        .split(|b| *b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| std::path::PathBuf::from(std::ffi::OsStr::from_bytes(name)))
        .collect();
    crate::support::reads::note(&read);
    let record = take(dropped, dropped_len);
    let left_out = drop.as_ref().and_then(|_| left_out(&record));
    match status {
        0 | 1 => Ok(Compiled { success: status == 0, output: output_bytes, messages, read, left_out }),
        3 => Err(ClangError::Failed { input: input.to_path_buf(), messages }),
        _ => {
            // Caught by clang's crash recovery; under a supervisor the worker ends here.
            crate::isolation::crashed("clang crashed while compiling it");
            Err(ClangError::Crashed { input: input.to_path_buf(), messages })
        }
    }
}

/// The shim's record of a compile leaving definitions out: name and ODR
/// hash, NUL-terminated, for each one left out, then the context's hash
/// under an empty name (`None` without it).
fn left_out(bytes: &[u8]) -> Option<LeftOut> {
    let fields: Vec<String> = bytes.split(|b| *b == 0).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    let mut helpers = BTreeMap::new();
    let mut context = None;
    for pair in fields.chunks_exact(2) {
        let hash = pair[1].parse().ok()?;
        if pair[0].is_empty() {
            context = Some(hash);
        } else {
            helpers.insert(pair[0].clone(), hash);
        }
    }
    Some(LeftOut { helpers, context: context? })
}

/// A kernel file's preamble: its leading comments and preprocessor directives,
/// ended at a line start with every conditional closed (`src/native/preamble.cpp`).
pub struct Preamble {
    /// Its length in bytes: the file's first `size` bytes.
    pub size: usize,
    /// How many `#include` directives it holds.
    pub includes: usize,
    /// Its text with each comment replaced by one space and the newlines it spanned.
    pub normalized: Vec<u8>,
    /// Each comment's byte range in the file, in order: where `normalized`
    /// differs from the file's text.
    pub comments: Vec<std::ops::Range<usize>>,
}

/// The preamble of `text`, found with clang's raw lexer; `None` if the shim failed.
pub fn preamble(text: &[u8]) -> Option<Preamble> {
    let (mut size, mut includes) = (0usize, 0usize);
    let (mut normalized, mut normalized_len) = (std::ptr::null_mut(), 0usize);
    let (mut comments, mut comments_len) = (std::ptr::null_mut(), 0usize);
    // SAFETY: `text` is valid for `len` bytes during the call (the shim copies
    // it); the shim writes the sizes and two malloc'd buffers (or null), each
    // copied and freed once below.
    let status = unsafe {
        clasp_preamble(
            text.as_ptr() as *const c_char,
            text.len(),
            &mut size,
            &mut includes,
            &mut normalized,
            &mut normalized_len,
            &mut comments,
            &mut comments_len,
        )
    };
    let normalized = take(normalized, normalized_len);
    let comments = if comments.is_null() {
        Vec::new()
    } else {
        // SAFETY: the shim allocated `comments_len` offsets at `comments` with malloc and hands them over.
        let bounds = unsafe { std::slice::from_raw_parts(comments, comments_len).to_vec() };
        // SAFETY: the buffer is freed once, here, after the copy.
        unsafe { clasp_clang_free(comments as *mut c_char) };
        bounds.chunks_exact(2).map(|pair| pair[0]..pair[1]).collect()
    };
    (status == 0).then_some(Preamble { size, includes, normalized, comments })
}

fn c_string(bytes: &[u8]) -> Result<CString, ClangError> {
    CString::new(bytes).map_err(|_| ClangError::BadArgument { argument: String::from_utf8_lossy(bytes).into_owned() })
}

/// Copies and frees one buffer the shim allocated.
fn take(buffer: *mut c_char, len: usize) -> Vec<u8> {
    if buffer.is_null() {
        return Vec::new();
    }
    // SAFETY: the shim allocated `len` bytes at `buffer` with malloc and
    // hands them over; they are read once and freed once, here.
    unsafe {
        let bytes = std::slice::from_raw_parts(buffer as *const u8, len).to_vec();
        clasp_clang_free(buffer);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clang() -> std::path::PathBuf {
        std::fs::canonicalize(crate::front::lower::clang_path().expect("clang-19")).unwrap()
    }

    fn args(extra: &[&str]) -> Vec<String> {
        ["-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-Wno-everything"].iter().chain(extra).map(|s| s.to_string()).collect()
    }

    #[test]
    fn compiles_what_the_clang_executable_compiles() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.cl");
        std::fs::write(
            &path,
            "float twice(__global float *p) { return 2.0f * p[0]; }\nkernel void k(global float *p) { p[1] = twice(p); }\n",
        )
        .unwrap();
        let output = same_as_the_clang_executable(&crate::front::lower::ir_args(&args(&[])), &path);
        assert_eq!(&output[..4], b"BC\xc0\xde");
    }

    /// Compiles `path` in process and with the `clang-19` executable; asserts both
    /// succeed and write the same bytes to `-o -`, and returns them.
    fn same_as_the_clang_executable(args: &[String], path: &std::path::Path) -> Vec<u8> {
        let here = compile(&clang(), args, path, None).unwrap();
        assert!(here.success, "{}", here.messages);
        let process = std::process::Command::new(clang()).args(args).arg(path).output().unwrap();
        assert!(process.status.success(), "{}", String::from_utf8_lossy(&process.stderr));
        assert!(here.output == process.stdout, "in-process output differs from clang-19's with {args:?}");
        here.output
    }

    #[test]
    fn compiles_for_amdgcn_what_the_clang_executable_compiles() {
        // The equivalence triple: code generation runs AMDGPU's own passes, so the targets must be registered as clang does.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.cl");
        std::fs::write(
            &path,
            "float twice(float *p) { return 2.0f * p[0]; }\nkernel void k(global float *p, local float *l) { l[0] = p[0]; p[1] = twice(p) + twice(l); }\n",
        )
        .unwrap();
        let language: Vec<String> =
            ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"].iter().map(|s| s.to_string()).collect();
        // What verification compiles, and clang's whole -O2 pipeline (AMDGPU's passes run only with the target registered).
        let optimised: Vec<String> = ["-nogpulib", "-O2", "-emit-llvm", "-c", "-o", "-"].iter().map(|s| s.to_string()).collect();
        for args in [crate::verify::equivalence_args(&language), [language.clone(), optimised].concat()] {
            same_as_the_clang_executable(&args, &path);
        }
    }

    #[test]
    fn errors_carry_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.cl");
        std::fs::write(&path, "kernel void k(global float *p)\n{ p[0] = undeclared; }\n").unwrap();
        let compiled = compile(&clang(), &args(&["-fsyntax-only"]), &path, None).unwrap();
        assert!(!compiled.success);
        let expected = format!("{}:2:10: error: use of undeclared identifier 'undeclared'", path.display());
        assert!(compiled.messages.contains(&expected), "{}", compiled.messages);
        // clang's own summary line is part of the messages (not written to this process's stderr).
        assert!(compiled.messages.contains("1 error generated."), "{}", compiled.messages);
    }

    #[test]
    fn driver_errors_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.cl");
        std::fs::write(&path, "kernel void k(global float *p) { p[0] = 1.0f; }\n").unwrap();
        let compiled = compile(&clang(), &args(&["-fsyntax-only", "-cl-nv-verbose"]), &path, None).unwrap();
        assert!(!compiled.success);
        assert!(compiled.messages.contains("unknown argument: '-cl-nv-verbose'"), "{}", compiled.messages);
        let missing = compile(&clang(), &args(&["-fsyntax-only"]), &dir.path().join("absent.cl"), None).unwrap();
        assert!(!missing.success && missing.messages.contains("no such file"), "{}", missing.messages);
    }

    #[test]
    fn parallel_compilations_are_independent() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<_> = (0..8)
            .map(|i| {
                let path = dir.path().join(format!("k{i}.cl"));
                std::fs::write(&path, format!("kernel void k{i}(global int *p) {{ p[0] = {i}; }}\n")).unwrap();
                path
            })
            .collect();
        let args = crate::front::lower::ir_args(&args(&[]));
        let serial: Vec<Vec<u8>> = paths.iter().map(|p| compile(&clang(), &args, p, None).unwrap().output).collect();
        let parallel: Vec<Vec<u8>> = std::thread::scope(|s| {
            let handles: Vec<_> = paths.iter().map(|p| s.spawn(|| compile(&clang(), &args, p, None).unwrap().output)).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(serial, parallel);
        assert!(serial.windows(2).all(|w| w[0] != w[1]));
    }
}
