//! One glob dialect: `--exclude`, clasp.toml's `exclude` and `[[file]] path`
//! match the same files for the same pattern (gitignore-style: a name
//! matches at any depth, a `/` anchors, a folder covers its files, `*`
//! stays in its folder and `**` crosses), and a `[[file]]` matching nothing
//! is a warning.

use std::path::Path;

use crate::support::{clasp_in, HELPER_UNIT};

const FILES: [&str; 2] = ["kernels/a.cl", "kernels/deep/b.cl"];

/// `kernels/a.cl` and `kernels/deep/b.cl`: units that compile unless `MARK` is defined.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels/deep")).unwrap();
    for file in FILES {
        std::fs::write(dir.path().join(file), format!("#ifdef MARK\n#error marked\n#endif\n{HELPER_UNIT}")).unwrap();
    }
    dir
}

/// `clasp analyze --json` in `dir`: each file taken, with whether it compiled.
fn analysed(dir: &Path, args: &[&str]) -> Vec<(String, bool)> {
    let (code, stdout, stderr) = clasp_in(dir, &[&["analyze", "--json"][..], args, &["."]].concat());
    // Every unit excluded: nothing to analyse is a warning, exit 2, and no report.
    if code == 2 && stdout.is_empty() && stderr.contains("warning: no OpenCL C unit found in .") {
        return Vec::new();
    }
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let files = report["files"].as_array().unwrap_or_else(|| panic!("{report}"));
    let name = |f: &serde_json::Value| f["path"].as_str().unwrap().trim_start_matches("./").to_string();
    files.iter().map(|f| (name(f), f["status"] != "error")).collect()
}

/// The files a pattern matches, as each of the three places reads it.
fn matched_by_each_place(pattern: &str) -> [Vec<String>; 3] {
    let dir = tree();
    let left_out = |taken: Vec<(String, bool)>| {
        FILES.iter().filter(|f| !taken.iter().any(|(t, _)| t == *f)).map(|f| f.to_string()).collect::<Vec<_>>()
    };
    let cli = left_out(analysed(dir.path(), &["--no-config", "--exclude", pattern]));
    std::fs::write(dir.path().join("clasp.toml"), format!("exclude = [\"{pattern}\"]\n")).unwrap();
    let toml_exclude = left_out(analysed(dir.path(), &[]));
    let entry = format!("[[file]]\npath = \"{pattern}\"\noptions = [\"-DMARK\"]\n");
    std::fs::write(dir.path().join("clasp.toml"), entry).unwrap();
    let file_entry = analysed(dir.path(), &[]).into_iter().filter(|(_, compiled)| !compiled).map(|(f, _)| f).collect();
    [cli, toml_exclude, file_entry]
}

fn expect(pattern: &str, files: &[&str]) {
    let files: Vec<String> = files.iter().map(|f| f.to_string()).collect();
    let [cli, toml_exclude, file_entry] = matched_by_each_place(pattern);
    assert_eq!(cli, files, "--exclude `{pattern}`");
    assert_eq!(toml_exclude, files, "clasp.toml exclude `{pattern}`");
    assert_eq!(file_entry, files, "[[file]] path `{pattern}`");
}

#[test]
fn a_name_matches_a_file_at_any_depth_in_all_three_places() {
    expect("b.cl", &["kernels/deep/b.cl"]);
}

#[test]
fn a_folder_covers_its_files_in_all_three_places() {
    expect("kernels/deep", &["kernels/deep/b.cl"]);
    expect("deep", &["kernels/deep/b.cl"]);
}

#[test]
fn a_star_matches_at_any_depth_without_a_slash_and_stays_in_its_folder_with_one() {
    expect("*.cl", &FILES);
    expect("kernels/*.cl", &["kernels/a.cl"]);
    expect("kernels/**/*.cl", &FILES);
}

#[test]
fn a_slash_anchors_the_pattern_at_the_base_folder() {
    expect("deep/b.cl", &[]);
    expect("kernels/deep/b.cl", &["kernels/deep/b.cl"]);
}

#[test]
fn a_file_entry_matching_nothing_is_a_warning_when_the_batch_covers_its_folder() {
    let dir = tree();
    let config =
        "options = []\n\n[[file]]\npath = \"kernels/a.cl\"\n\n[[file]]\n  path = \"deep/b.cl\"\noptions = [\"-DMARK\"]\n";
    std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
    let warning = "clasp.toml:7:11: warning: [[file]] `deep/b.cl` matches no file of the batch";
    for command in [&["analyze", "."][..], &["migrate", "--no-cache", "."]] {
        let (_, _, stderr) = clasp_in(dir.path(), command);
        assert!(stderr.contains(warning), "{command:?}: {stderr}");
        assert_eq!(stderr.matches("warning: [[file]]").count(), 1, "{stderr}");
    }
    // One file, or a folder below clasp.toml's: the batch is not the project, no warning.
    for path in ["kernels/a.cl", "kernels"] {
        let (_, _, stderr) = clasp_in(dir.path(), &["analyze", path]);
        assert!(!stderr.contains("warning: [[file]]"), "{path}: {stderr}");
    }
}
