//! `glob`: the one glob matcher of file selection: `--exclude`, `--glob`,
//! clasp.toml's `exclude` and `[[file]] path` all match through `Globs`.
//!
//! The semantics are gitignore's (as ruff and ripgrep read theirs), relative
//! to a base folder (the walked directory for the command line, the
//! clasp.toml's folder for its globs):
//! - a pattern without `/` (`b.cl`, `*.cl`, `deep`) matches a file or folder
//!   name at any depth;
//! - a pattern with a `/` (`kernels/deep`, `kernels/*.cl`, `/a.cl`) is
//!   anchored at the base folder;
//! - a pattern matching a folder covers every file under it;
//! - `*`, `?` and `[...]` never cross a `/`; `**` does (`kernels/**/x.cl`);
//! - a trailing `/` (`deep/`) matches folders only, and `!PATTERN` takes
//!   matches of earlier patterns out again.
//!
//! A path outside the base folder matches nothing. The matching itself is
//! the `ignore` crate's gitignore matcher (ripgrep's), so nothing here
//! re-implements glob syntax; this module only fixes how it is applied.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Patterns read together, relative to one base folder.
#[derive(Debug, Clone)]
pub struct Globs {
    /// The base folder, absolute (as `std::path::absolute` makes it).
    base: PathBuf,
    matcher: Gitignore,
}

/// A pattern that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("bad glob `{pattern}`: {source}")]
pub struct BadGlob {
    pub pattern: String,
    pub source: ignore::Error,
}

impl Globs {
    /// The patterns, in order (a later `!PATTERN` overrides an earlier match), relative to `base`.
    pub fn new<'p>(base: &Path, patterns: impl IntoIterator<Item = &'p str>) -> Result<Globs, BadGlob> {
        let base = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
        let mut builder = GitignoreBuilder::new(&base);
        // A typo such as `k[12.cl` is an error, not a glob that matches nothing.
        builder.allow_unclosed_class(false);
        for pattern in patterns {
            let bad = |source| BadGlob { pattern: pattern.to_string(), source };
            builder.add_line(None, pattern).map_err(bad)?;
        }
        let matcher = builder.build().map_err(|source| BadGlob { pattern: String::new(), source })?;
        Ok(Globs { base, matcher })
    }

    /// Whether a file (or a folder, `is_dir`) is matched: by a pattern
    /// matching it, or one of the folders it is in below the base.
    pub fn matches(&self, path: &Path, is_dir: bool) -> bool {
        let Some(relative) = self.relative(path) else { return false };
        if relative.as_os_str().is_empty() {
            return false;
        }
        self.matcher.matched_path_or_any_parents(&relative, is_dir).is_ignore()
    }

    /// `path` relative to the base folder, if it is under it.
    fn relative(&self, path: &Path) -> Option<PathBuf> {
        let absolute = std::path::absolute(path).ok()?;
        absolute.strip_prefix(&self.base).ok().map(Path::to_path_buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(patterns: &[&str], path: &str) -> bool {
        let base = Path::new("/project");
        Globs::new(base, patterns.iter().copied()).unwrap().matches(&base.join(path), false)
    }

    #[test]
    fn a_name_matches_at_any_depth_and_a_slash_anchors() {
        assert!(matched(&["b.cl"], "b.cl"));
        assert!(matched(&["b.cl"], "kernels/deep/b.cl"));
        assert!(!matched(&["deep/b.cl"], "kernels/deep/b.cl"));
        assert!(matched(&["kernels/deep/b.cl"], "kernels/deep/b.cl"));
        assert!(matched(&["/b.cl"], "b.cl"));
        assert!(!matched(&["/b.cl"], "kernels/b.cl"));
    }

    #[test]
    fn a_folder_covers_its_files() {
        assert!(matched(&["kernels/deep"], "kernels/deep/b.cl"));
        assert!(matched(&["kernels/deep"], "kernels/deep/more/c.cl"));
        assert!(matched(&["deep"], "kernels/deep/b.cl"));
        assert!(matched(&["deep/"], "kernels/deep/b.cl"));
        assert!(!matched(&["kernels/dee"], "kernels/deep/b.cl"));
    }

    #[test]
    fn a_star_stays_in_its_folder_and_two_cross() {
        assert!(matched(&["*.cl"], "kernels/deep/b.cl"));
        assert!(matched(&["kernels/*.cl"], "kernels/a.cl"));
        assert!(!matched(&["kernels/*.cl"], "kernels/deep/b.cl"));
        assert!(matched(&["kernels/**/*.cl"], "kernels/deep/b.cl"));
        assert!(matched(&["kernels/**"], "kernels/deep/b.cl"));
        assert!(!matched(&["*a.cl"], "kernels/deep/b.cl"));
    }

    #[test]
    fn negation_outside_paths_and_bad_patterns() {
        assert!(!matched(&["*.cl", "!b.cl"], "kernels/b.cl"));
        assert!(matched(&["*.cl", "!b.cl"], "kernels/a.cl"));
        let globs = Globs::new(Path::new("/project"), ["*.cl"]).unwrap();
        assert!(!globs.matches(Path::new("/elsewhere/a.cl"), false));
        let bad = Globs::new(Path::new("/project"), ["k[1.cl"]).unwrap_err();
        assert_eq!(bad.pattern, "k[1.cl");
    }
}
