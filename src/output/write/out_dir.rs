//! `--out-dir DIR`: where each migrated copy goes.
//!
//! One rule, whatever the current directory: a file's path relative to the
//! edit root, mirrored under DIR. Only files under the root are ever written,
//! so every copy has such a path, and two different files never share one.
//! The path is the file's canonical one: a file reached through a symbolic
//! link (a linked folder, a `-I` that names one) is mirrored where the file
//! it points to lies under the root, as the root itself is canonical.
//!
//! A copy is refused, with an error naming it, when its place is not one of
//! its own: a file not under the root (which planning never lets change),
//! two files at one place, or the place of a file the run migrates (an
//! `--out-dir` inside the root, laid so that a copy would replace an
//! original). No copy is ever written over another file of the batch.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Where `--out-dir` puts the file at `canonical` (its canonical path):
/// its path relative to the edit root `root` (canonical), under `out`. None
/// when the file is not under the root.
pub fn mirrored(out: &Path, root: &Path, canonical: &Path) -> Option<PathBuf> {
    let relative = canonical.strip_prefix(root).ok()?;
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && !relative.as_os_str().is_empty()).then(|| out.join(relative))
}

/// Each of `files` (canonical paths)'s place under `out`, or the error
/// saying why it gets none (see the module doc).
pub fn destinations(out: &Path, root: &Path, files: &[&Path]) -> Vec<Result<PathBuf, String>> {
    let places: Vec<Option<PathBuf>> = files.iter().map(|file| mirrored(out, root, file)).collect();
    let resolved_out = resolved(out);
    // Where a place really is: under the resolved `out`, links followed.
    let real = |place: &Path| resolved_out.join(place.strip_prefix(out).expect("mirrored under out"));
    let clash = clashes(places.iter().map(|place| place.as_deref().map(real)));
    let originals: BTreeMap<&Path, usize> = files.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    let shown = |index: usize| crate::settings::paths::shown_path(files[index]);
    (places.into_iter().enumerate())
        .map(|(index, place)| {
            let Some(place) = place else { return Err(not_under_root(out, root, files[index])) };
            let at = place.display();
            if let Some(other) = clash.get(&index) {
                return Err(format!(
                    "{at}: error: --out-dir: {} and {} would both be copied here; neither is written",
                    shown(index),
                    shown(*other)
                ));
            }
            match originals.get(real(&place).as_path()) {
                Some(other) => Err(format!(
                    "{at}: error: --out-dir: the copy of {} would replace {}, which this run migrates; not written \
                     (choose an --out-dir that holds none of the files)",
                    shown(index),
                    shown(*other)
                )),
                None => Ok(place),
            }
        })
        .collect()
}

/// The places (real paths) that more than one file would take: each such
/// file's index with another file's at its place.
fn clashes(places: impl Iterator<Item = Option<PathBuf>>) -> BTreeMap<usize, usize> {
    let mut first_at: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut clash: BTreeMap<usize, usize> = BTreeMap::new();
    for (index, place) in places.enumerate() {
        let Some(place) = place else { continue };
        match first_at.get(&place) {
            Some(&other) => {
                clash.insert(index, other);
                clash.entry(other).or_insert(index);
            }
            None => {
                first_at.insert(place, index);
            }
        }
    }
    clash
}

/// The error for a file with no place under `out`: not under the root.
fn not_under_root(out: &Path, root: &Path, file: &Path) -> String {
    format!(
        "{}: error: --out-dir {}: not under the edit root {}, so it has no place there; not written",
        crate::settings::paths::shown_path(file),
        out.display(),
        root.display()
    )
}

/// `out` as an absolute path with every folder that exists resolved (links
/// followed): the folder the copies really go to, before it is made.
fn resolved(out: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = cwd.join(out);
    for existing in absolute.ancestors() {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let rest = absolute.strip_prefix(existing).expect("an ancestor");
            return real.join(rest);
        }
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_mirrored_by_its_path_from_the_root() {
        let (out, root) = (Path::new("/o"), Path::new("/p"));
        assert_eq!(mirrored(out, root, Path::new("/p/kernels/k.cl")), Some(PathBuf::from("/o/kernels/k.cl")));
        assert_eq!(mirrored(out, root, Path::new("/p/include/h.h")), Some(PathBuf::from("/o/include/h.h")));
        assert_eq!(mirrored(out, root, Path::new("/q/k.cl")), None, "not under the root");
        assert_eq!(mirrored(out, root, Path::new("/p")), None, "the root itself is no file");
        assert_eq!(mirrored(out, root, Path::new("/pk/k.cl")), None, "a sibling sharing a prefix is not under it");
    }

    #[test]
    fn two_files_of_one_name_in_different_folders_get_different_places() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let files = [Path::new("/p/a/k.cl"), Path::new("/p/b/k.cl"), Path::new("/p/k.cl")];
        let places: Vec<PathBuf> = destinations(&out, Path::new("/p"), &files).into_iter().map(Result::unwrap).collect();
        assert_eq!(places, [out.join("a/k.cl"), out.join("b/k.cl"), out.join("k.cl")]);
    }

    #[test]
    fn one_place_for_two_files_is_an_error_for_both() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        // The same canonical path twice (cannot come from one batch, but must never overwrite).
        let files = [Path::new("/p/k.cl"), Path::new("/p/k.cl"), Path::new("/p/h.h")];
        let places = destinations(&out, Path::new("/p"), &files);
        for place in &places[..2] {
            let error = place.as_ref().unwrap_err();
            assert!(error.ends_with("would both be copied here; neither is written"), "{error}");
        }
        assert_eq!(places[2].as_ref().unwrap(), &out.join("h.h"));
    }

    #[test]
    fn a_copy_that_would_replace_a_migrated_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        // --out-dir sub: the root's k.cl would be copied over sub/k.cl, which also changes.
        let (top, below) = (root.join("k.cl"), root.join("sub/k.cl"));
        let places = destinations(&dir.path().join("sub"), &root, &[&top, &below]);
        let error = places[0].as_ref().unwrap_err();
        assert!(error.contains("would replace") && error.contains("which this run migrates"), "{error}");
        assert_eq!(places[1].as_ref().unwrap(), &dir.path().join("sub/sub/k.cl"));
        // --out-dir naming the root: every copy would replace its own original.
        for place in destinations(&root, &root, &[&top]) {
            assert!(place.unwrap_err().contains("would replace"));
        }
    }

    #[test]
    fn an_out_dir_reached_through_a_link_is_compared_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(&root, root.join("link")).unwrap();
        let file = root.join("k.cl");
        let place = destinations(&root.join("link"), &root, &[&file]).remove(0);
        assert!(place.unwrap_err().contains("would replace"), "link/k.cl is k.cl itself");
    }

    #[test]
    fn a_file_outside_the_root_has_no_place() {
        let places = destinations(Path::new("out"), Path::new("/p"), &[Path::new("/q/k.cl")]);
        let error = places[0].as_ref().unwrap_err();
        assert_eq!(error, "/q/k.cl: error: --out-dir out: not under the edit root /p, so it has no place there; not written");
    }
}
