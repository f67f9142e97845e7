//! `verify`: does the rewritten text compile under the target?
//!
//! The migrated files are written to a temporary directory and laid over
//! the originals with a clang VFS overlay, so the unit compiles exactly as
//! it would in place (same paths, same `#include` resolution) without
//! touching the user's tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::lower::run_clang;

/// Compiles `main` with `language_args`, with `replaced` (absolute path ->
/// new text) in place of the files on disk. Returns clang's first error.
pub fn compiles(main: &Path, language_args: &[String], replaced: &BTreeMap<PathBuf, String>) -> Result<(), String> {
    if replaced.is_empty() {
        let mut args = language_args.to_vec();
        args.push("-fsyntax-only".into());
        return run_clang(main, &args).map(|_| ());
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut roots = Vec::new();
    for (i, (original, text)) in replaced.iter().enumerate() {
        let copy = dir.path().join(format!("{i}.cl"));
        std::fs::write(&copy, text).map_err(|e| e.to_string())?;
        roots.push(serde_json::json!({
            "type": "file",
            "name": original.display().to_string(),
            "external-contents": copy.display().to_string(),
        }));
    }
    let overlay = dir.path().join("overlay.yaml");
    // Diagnostics name the original paths, not the temporary copies.
    let yaml = serde_json::json!({ "version": 0, "case-sensitive": "true", "use-external-names": false, "roots": roots });
    std::fs::write(&overlay, yaml.to_string()).map_err(|e| e.to_string())?;
    let mut args = language_args.to_vec();
    args.extend(["-ivfsoverlay".to_string(), overlay.display().to_string(), "-fsyntax-only".to_string()]);
    let main = std::fs::canonicalize(main).map_err(|e| e.to_string())?;
    run_clang(&main, &args).map(|_| ())
}
