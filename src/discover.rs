//! `discover`: command-line paths -> the sorted list of OpenCL source files.
//!
//! A file named on the command line is taken whatever its extension; a
//! directory is walked for `*.cl`. A path that does not exist is an error
//! for that path only.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// Source files found, and paths that could not be used.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    pub errors: Vec<(PathBuf, String)>,
}

pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut found = Discovered::default();
    for path in paths {
        if path.is_dir() {
            for entry in WalkDir::new(path).sort_by_file_name() {
                match entry {
                    Ok(e) if e.file_type().is_file() && is_kernel_source(e.path()) => found.files.push(e.path().to_path_buf()),
                    Ok(_) => {}
                    Err(e) => found.errors.push((path.clone(), e.to_string())),
                }
            }
        } else if path.exists() {
            found.files.push(path.clone());
        } else {
            found.errors.push((path.clone(), "no such file or directory".into()));
        }
    }
    found.files.sort();
    found.files.dedup();
    found
}

fn is_kernel_source(path: &Path) -> bool {
    path.extension().map(|e| e == "cl").unwrap_or(false)
}
