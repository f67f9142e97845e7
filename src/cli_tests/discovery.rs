//! Which files a directory argument brings in: git's ignore rules, hidden
//! files, extensions, globs, exclusions and symbolic links.

use crate::support::{clasp, HELPER_UNIT};

#[test]
fn directories_are_walked_as_git_would_see_them() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    for sub in ["a", "gen", "b", ".hidden"] {
        std::fs::create_dir_all(tree.join(sub)).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(tree.join(".gitignore"), "gen/\nskip.cl\n").unwrap();
    std::fs::write(tree.join(".ignore"), "a/old.cl\n").unwrap();
    for file in ["a/k.cl", "a/old.cl", "gen/g.cl", "skip.cl", "b/x.ocl", "b/h.clh", ".hidden/h.cl", "b/t.cl", ".dot.cl"] {
        std::fs::write(tree.join(file), HELPER_UNIT).unwrap();
    }
    std::fs::write(dir.path().join("outside/o.cl"), HELPER_UNIT).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), tree.join("link")).unwrap();
    let taken = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["analyze", "--json"];
        args.extend_from_slice(extra);
        let tree = tree.to_str().unwrap().to_string();
        let args: Vec<&str> = args.into_iter().chain([tree.as_str()]).collect();
        let (code, stdout, stderr) = clasp(&args);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let prefix = format!("{tree}/");
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().trim_start_matches(&prefix).to_string())
            .collect()
    };
    assert_eq!(taken(&[]), ["a/k.cl", "b/t.cl", "b/x.ocl"]);
    assert_eq!(taken(&["--ext", "clh", "--exclude", "b/t.cl"]), ["a/k.cl", "b/h.clh", "b/x.ocl"]);
    assert_eq!(taken(&["--glob", "b/*"]), ["b/t.cl", "b/x.ocl"]);
    // --glob narrows the walk: ignored and hidden files stay out (ripgrep's -g would bring them back).
    assert_eq!(taken(&["--glob", "*.cl"]), ["a/k.cl", "b/t.cl"]);
    assert_eq!(taken(&["--glob", "*"]), ["a/k.cl", "b/t.cl", "b/x.ocl"]);
    // A directory's glob covers the files under it; `!GLOB` takes matches out, alone or after others.
    assert_eq!(taken(&["--glob", "b", "--glob", "!x.ocl"]), ["b/t.cl"]);
    assert_eq!(taken(&["--glob", "!b/**"]), ["a/k.cl"]);
    assert_eq!(taken(&["--exclude", "a", "--exclude", "*.ocl"]), ["b/t.cl"]);
    assert_eq!(taken(&["--follow-links"]), ["a/k.cl", "b/t.cl", "b/x.ocl", "link/o.cl"]);
    // Named on the command line: taken whatever the ignore rules.
    let (code, stdout, _) = clasp(&["analyze", tree.join("skip.cl").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("skip.cl"));
    // A bad glob is an error, not a glob that matches nothing.
    let (code, _, stderr) = clasp(&["analyze", "--glob", "k[1.cl", tree.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad --glob `k[1.cl`"), "{stderr}");
    // migrate walks the same way.
    let (code, stdout, stderr) = clasp(&["migrate", "-q", "--exclude", "b/t.cl", tree.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let changed: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("+++ b/")).collect();
    // Outside the current directory: named from the edit root (the tree), as `git apply` there takes them.
    assert_eq!(changed, ["a/k.cl", "b/x.ocl"], "{stdout}");
}
