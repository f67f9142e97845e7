//! What every CLI test uses: running the built binary, fixture copies,
//! a host project that needs its build options, and git repositories.

use std::path::Path;
use std::process::Command;

pub fn clasp(args: &[&str]) -> (i32, String, String) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_clasp")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run clasp");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub fn copy_fixture(dir: &Path, name: &str) -> std::path::PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate").join(name);
    let copy = dir.join(name);
    std::fs::copy(&source, &copy).unwrap();
    copy
}

/// Runs clasp in `dir`; stdout as raw bytes (a diff keeps a file's own encoding).
pub fn clasp_in(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_clasp")).args(args).current_dir(dir).output().expect("run clasp");
    (output.status.code().unwrap_or(-1), output.stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A kernel that compiles only with the host's options: `defs.h` included
/// first (relative to the current directory, as clang does), `N` defined,
/// and, with `strict`, `-cl-fast-relaxed-math` (its macro) and `-w` (a
/// `#warning` that `-Werror` would turn into an error).
pub fn host_project(strict: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut defs = String::from("#define GMEM __global\ntypedef float real;\n");
    if strict {
        defs.push_str("#ifndef __FAST_RELAXED_MATH__\n#error needs -cl-fast-relaxed-math\n#endif\n#warning host header\n");
    }
    std::fs::write(dir.path().join("defs.h"), defs).unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "void scale(GMEM real *p, real s) { for (int i = 0; i < N; i++) p[i] *= s; }\n\
         __kernel void run(__global real *a) { scale(a, 2.0f); }\n",
    )
    .unwrap();
    dir
}

/// A kernel file with one helper clasp makes generic.
pub const HELPER_UNIT: &str = "float first(__global const float *v) { return v[0]; }\n__kernel void k(__global const float *in, __global float *out) { out[0] = first(in); }\n";

pub fn git(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("git").arg("-C").arg(dir).args(args).status().expect("git");
    assert!(status.success(), "git {args:?}");
}

/// A repository in `dir` with `files` committed, each holding `HELPER_UNIT`.
pub fn repository(dir: &Path, files: &[&str]) {
    let files: Vec<(&str, &str)> = files.iter().map(|file| (*file, HELPER_UNIT)).collect();
    repository_of(dir, &files);
}

/// A repository in `dir` with each `(name, text)` of `files` committed.
pub fn repository_of(dir: &Path, files: &[(&str, &str)]) {
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.email", "ci@example.invalid"]);
    git(dir, &["config", "user.name", "ci"]);
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "kernels"]);
}

/// Runs clasp in `dir` with `env` set: (exit code, stdout, stderr).
pub fn clasp_env<V: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[&str], env: &[(&str, V)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clasp"));
    command.args(args).current_dir(dir);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run clasp");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A path with symbolic links resolved (a temporary directory may sit behind one).
pub fn canonical(path: &Path) -> std::path::PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|e| panic!("canonicalize {}: {e}", path.display()))
}

/// Copies the files and directories under `from` into `to` (`.git` included).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs clasp in `dir` with `input` on its standard input and `env` set:
/// (exit code, stdout as raw bytes, stderr).
pub fn clasp_stdin<V: AsRef<std::ffi::OsStr>>(
    dir: &Path,
    args: &[&str],
    input: &[u8],
    env: &[(&str, V)],
) -> (i32, Vec<u8>, String) {
    use std::io::Write;
    let mut command = Command::new(env!("CARGO_BIN_EXE_clasp"));
    command.args(args).current_dir(dir).stdin(std::process::Stdio::piped());
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("run clasp");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written beside the reads: a big input must not wait on a full output pipe.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("run clasp");
    // clasp may stop before it reads (a bad command line): a closed pipe is no failure of the test.
    if let Err(e) = writer.join().unwrap() {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write clasp's standard input: {e}");
    }
    (output.status.code().unwrap_or(-1), output.stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}
