//! A progress bar on stderr for long runs: the stage, units done of all,
//! changes so far and the current file. Drawn only when stderr is a
//! terminal (indicatif draws nothing otherwise) and not with `--quiet`;
//! it never touches stdout, so diffs and reports stay byte-identical.

use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A handle every worker can tick; cloning shares the bar.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::hidden()
    }
}

impl Progress {
    /// A bar on stderr (drawn only if stderr is a terminal).
    pub fn on_stderr() -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Progress { bar }
    }

    /// No bar (`--quiet`, tests).
    pub fn hidden() -> Progress {
        Progress { bar: ProgressBar::hidden() }
    }

    /// A new stage over `len` units: `loading`, `verifying`.
    pub fn stage(&self, name: &str, len: usize) {
        self.bar.set_prefix(name.to_string());
        self.bar.set_length(len as u64);
        self.bar.set_position(0);
    }

    /// One unit done; `note` says what (the file, changes so far).
    pub fn done(&self, file: &Path, note: &str) {
        self.bar.inc(1);
        self.bar.set_message(format!("{note}{}", file.display()));
    }

    /// Clears the bar before the report is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
