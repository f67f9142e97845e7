//! `-`: one unit's text read from standard input, standing for a file
//! (`--stdin-filename PATH`, else `stdin.cl` in the current directory), as
//! black and ruff take it from editors. The text is laid over PATH for
//! every reader (`support::overlay`), so the project resolves, loads,
//! verifies and caches it as PATH; the command prints the result instead of
//! writing it.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::Stop;
use crate::cli::args::STDIN_PATH;

/// The name the text stands for without `--stdin-filename` (in the current directory).
pub const PLACEHOLDER: &str = "stdin.cl";

/// The text read from standard input, laid over `path` while this lives.
pub struct Stdin {
    /// The file it stands for, as given.
    pub path: PathBuf,
    _laid: crate::support::overlay::Guard,
}

impl Stdin {
    /// The paths the project resolves: the file the text stands for.
    pub fn paths(&self) -> Vec<PathBuf> {
        vec![self.path.clone()]
    }

    /// The canonical path of the file it stands for (as the batch compares files).
    pub fn canonical(&self) -> PathBuf {
        crate::settings::root::canonical(&self.path)
    }
}

/// What else the command line asks for, that `-` cannot do (`--out-dir`, `--interactive`).
pub type Unsupported<'a> = &'a [(&'a str, bool)];

/// Reads standard input when the paths are `-` and lays it over its file:
/// `None` for paths of files. `-` beside another path, or
/// `--stdin-filename` without `-`, is an error.
pub fn take(paths: &[PathBuf], filename: Option<&Path>, unsupported: Unsupported) -> Result<Option<Stdin>, Stop> {
    let dash = Path::new(STDIN_PATH);
    if !paths.iter().any(|p| p == dash) {
        return match filename {
            Some(name) => Err(Stop::clasp(format!(
                "--stdin-filename {} names the text read from standard input: give `-` as the PATH (or no PATH)",
                name.display()
            ))),
            None => Ok(None),
        };
    }
    if let Some(other) = paths.iter().find(|p| *p != dash) {
        return Err(Stop::clasp(format!(
            "`-` reads one unit from standard input: give no other PATH beside it (`{}` was given)",
            other.display()
        )));
    }
    if let Some((flag, _)) = unsupported.iter().find(|(_, given)| *given) {
        return Err(Stop::clasp(format!(
            "{flag} writes files: it cannot take `-` (standard input); --write prints the new text"
        )));
    }
    let path = filename.map_or_else(|| PathBuf::from(PLACEHOLDER), Path::to_path_buf);
    if path.as_os_str().is_empty() || path.file_name().is_none() || path.is_dir() {
        return Err(Stop::clasp(format!("--stdin-filename `{}` must name a file", path.display())));
    }
    let mut text = Vec::new();
    std::io::stdin().read_to_end(&mut text).map_err(|e| Stop::clasp(format!("cannot read standard input: {e}")))?;
    let laid = crate::support::overlay::install(vec![(path.clone(), text)])
        .map_err(|e| Stop::clasp(format!("{}: cannot lay standard input over it: {e}", path.display())))?;
    Ok(Some(Stdin { path, _laid: laid }))
}
