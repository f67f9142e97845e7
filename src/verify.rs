//! `verify`: does the rewritten text compile under the target, and do its
//! kernels still do what they did?
//!
//! The migrated files are written to a temporary directory and laid over
//! the originals with a clang VFS overlay, so the unit compiles exactly as
//! it would in place (same paths, same `#include` resolution, diagnostics
//! naming the original files) without touching the user's tree.
//!
//! Equivalence: the original (as its input standard) and the result (as the
//! target) are compiled for `amdgcn-amd-amdhsa -O2`, where helpers are
//! inlined and InferAddressSpaces turns generic pointers back into the named
//! spaces they come from; every kernel's canonical body (read with inkwell
//! through `lower`) must then be the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::lower::{canonical_kernels, run_clang, Context, KernelBody};

/// The GPU target whose optimiser resolves generic pointers.
pub const EQUIVALENCE_TRIPLE: &str = "amdgcn-amd-amdhsa";

/// A temporary VFS overlay putting `replaced` (absolute path -> new bytes) over the files on disk.
struct Overlay {
    _dir: Option<tempfile::TempDir>,
    args: Vec<String>,
}

impl Overlay {
    fn new(replaced: &BTreeMap<PathBuf, Vec<u8>>) -> Result<Overlay, String> {
        if replaced.is_empty() {
            return Ok(Overlay { _dir: None, args: Vec::new() });
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
        let yaml = serde_json::json!({ "version": 0, "case-sensitive": "true", "use-external-names": false, "roots": roots });
        std::fs::write(&overlay, yaml.to_string()).map_err(|e| e.to_string())?;
        let args = vec!["-ivfsoverlay".to_string(), overlay.display().to_string()];
        Ok(Overlay { _dir: Some(dir), args })
    }
}

/// Compiles `main` with `language_args`, with `replaced` in place of the
/// files on disk. Returns clang's first error.
pub fn compiles(main: &Path, language_args: &[String], replaced: &BTreeMap<PathBuf, Vec<u8>>) -> Result<(), String> {
    let overlay = Overlay::new(replaced)?;
    let mut args = language_args.to_vec();
    args.extend(overlay.args.iter().cloned());
    args.push("-fsyntax-only".into());
    // The path as given, so clang's messages name it as the user did.
    run_clang(main, &args).map(|_| ())
}

/// What the equivalence check found for one unit.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Equivalence {
    /// Kernels whose optimised bodies are the same.
    pub equal: Vec<String>,
    /// Kernels that differ, with the first differing lines (original, result).
    pub different: Vec<KernelDifference>,
    /// Kernels whose result has more flat (generic) memory accesses than the original.
    pub flat_regressions: Vec<FlatRegression>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KernelDifference {
    pub kernel: String,
    pub original: String,
    pub migrated: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlatRegression {
    pub kernel: String,
    pub before: usize,
    pub after: usize,
}

/// Compiles `main` as it was (`original_args`) and with `replaced` laid
/// over (`target_args`), both for the equivalence triple at -O2, and
/// compares every kernel. Both argument lists come from `CompileOptions::clang_args_for`.
pub fn equivalence(
    context: &Context,
    main: &Path,
    original_args: &[String],
    target_args: &[String],
    replaced: &BTreeMap<PathBuf, Vec<u8>>,
) -> Result<Equivalence, String> {
    let optimised = |language_args: &[String], overlay: &Overlay| -> Result<Vec<KernelBody>, String> {
        let mut args = language_args.to_vec();
        args.extend(overlay.args.iter().cloned());
        args.extend(["-nogpulib", "-O2", "-emit-llvm", "-c", "-o", "-", "-Wno-everything"].map(String::from));
        let bitcode = run_clang(main, &args)?;
        canonical_kernels(context, &bitcode, &main.to_string_lossy())
    };
    let before = optimised(original_args, &Overlay::new(&BTreeMap::new())?)?;
    let after = optimised(target_args, &Overlay::new(replaced)?)?;
    Ok(compare(&before, &after))
}

/// Kernel by kernel, by name; a kernel missing on either side differs.
pub fn compare(before: &[KernelBody], after: &[KernelBody]) -> Equivalence {
    let mut result = Equivalence::default();
    let after_by_name: BTreeMap<&str, &KernelBody> = after.iter().map(|k| (k.name.as_str(), k)).collect();
    for original in before {
        let Some(migrated) = after_by_name.get(original.name.as_str()) else {
            result.different.push(KernelDifference {
                kernel: original.name.clone(),
                original: "(defined)".into(),
                migrated: "(missing)".into(),
            });
            continue;
        };
        if migrated.flat_accesses > original.flat_accesses {
            result.flat_regressions.push(FlatRegression {
                kernel: original.name.clone(),
                before: original.flat_accesses,
                after: migrated.flat_accesses,
            });
        }
        if original.lines == migrated.lines {
            result.equal.push(original.name.clone());
            continue;
        }
        let (a, b) = original
            .lines
            .iter()
            .map(Some)
            .chain(std::iter::repeat(None))
            .zip(migrated.lines.iter().map(Some).chain(std::iter::repeat(None)))
            .find(|(a, b)| a != b)
            .unwrap_or((None, None));
        let show = |line: Option<&String>| line.cloned().unwrap_or_else(|| "(end)".into());
        result.different.push(KernelDifference { kernel: original.name.clone(), original: show(a), migrated: show(b) });
    }
    result
}
