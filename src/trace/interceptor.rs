//! The interceptor library, built from `src/native/intercept.c` by the build script and carried
//! inside clasp's binary, so that `run-check` needs no file beside the executable: it is written
//! to the run's scratch folder and preloaded from there.

use std::path::{Path, PathBuf};

const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libclasp_intercept.so"));

/// The environment variable naming the folder a run's trace goes to (the interceptor does nothing
/// without it).
pub const LOG_VAR: &str = "CLASP_RUNCHECK_LOG";
/// The environment variable naming the folder of migrated sources (`substitute`), migrated run only.
pub const MAP_VAR: &str = "CLASP_RUNCHECK_MAP";

/// Writes the library into `dir` and returns its path.
pub fn install(dir: &Path) -> std::io::Result<PathBuf> {
    let path = dir.join("libclasp_intercept.so");
    std::fs::write(&path, LIBRARY)?;
    Ok(path)
}

/// `LD_PRELOAD` with the library first, keeping what the user preloads already.
pub fn preload_value(library: &Path, existing: Option<&std::ffi::OsStr>) -> std::ffi::OsString {
    let mut value = library.as_os_str().to_os_string();
    if let Some(existing) = existing.filter(|e| !e.is_empty()) {
        value.push(":");
        value.push(existing);
    }
    value
}
