//! Verdicts kept in the store: a run after an unchanged or a one-file edit
//! verifies only what changed, prints what a cold run prints, reads past
//! corrupt entries, and `--shard K/N` runs plus a final run print what one
//! unsharded run prints. `--timings` shows the work done: its line
//! `verify: clang amdgcn: ... in N calls` counts the equivalence compiles
//! (a run with `--timings` is never replayed whole by the result cache).

use std::path::Path;

use crate::support::clasp_in;

/// Four kernel files whose helpers become generic (one merge, one refusal), and a host file.
pub fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::support::copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo"), dir.path());
    dir
}

/// How many equivalence compiles a `--timings` run made (0 when none).
pub fn compiles(stderr: &str) -> usize {
    let line = stderr.lines().find(|line| line.contains("time: verify: clang amdgcn:"));
    line.map_or(0, |line| {
        let calls = line.rsplit(" in ").next().and_then(|rest| rest.split(' ').next());
        calls.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no count in {line}"))
    })
}

/// A run's stdout as text; a JSON report without its `timings` (which only `--timings` adds).
fn printed(stdout: Vec<u8>) -> String {
    match serde_json::from_slice::<serde_json::Value>(&stdout) {
        Ok(serde_json::Value::Object(mut report)) => {
            report.remove("timings");
            serde_json::to_string_pretty(&report).unwrap()
        }
        _ => String::from_utf8_lossy(&stdout).into_owned(),
    }
}

/// The run's exit code and stdout, and its compiles.
pub fn run(dir: &Path, args: &[&str]) -> ((i32, String), usize) {
    let (code, stdout, stderr) = clasp_in(dir, &[&["migrate", "--timings"][..], args].concat());
    assert!(code != 2 || args.iter().any(|a| a.starts_with("--shard")), "{stderr}");
    ((code, printed(stdout)), compiles(&stderr))
}

/// The exit code and stdout of a run with no store at all.
pub fn uncached(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, stdout, _) = clasp_in(dir, &[&["migrate", "--no-cache"][..], args].concat());
    (code, printed(stdout))
}

#[test]
fn a_warm_run_verifies_nothing_and_prints_the_same() {
    let dir = demo();
    for (i, args) in [&["--check", "."][..], &["--json", "."], &["--format", "sarif", "--explain", "."]].iter().enumerate() {
        let expected = uncached(dir.path(), args);
        let (cold, cold_compiles) = run(dir.path(), args);
        let (warm, warm_compiles) = run(dir.path(), args);
        // The verdicts are the checks', whatever is printed: the first run stores them all.
        assert_eq!(cold_compiles > 0, i == 0, "{args:?}");
        assert_eq!(warm_compiles, 0, "{args:?}: every verdict was stored");
        assert_eq!(cold, expected, "{args:?}");
        assert_eq!(warm, expected, "{args:?}");
    }
    assert!(dir.path().join(".clasp_cache/ac").is_dir() && dir.path().join(".clasp_cache/cas").is_dir());
}

#[test]
fn an_edit_verifies_again_only_the_unit_that_reads_it() {
    let dir = demo();
    let (_, all) = run(dir.path(), &["--check", "."]);
    let blur = dir.path().join("blur.cl");
    let edited = std::fs::read_to_string(&blur).unwrap().replacen("{", "{ /* reviewed */", 1);
    std::fs::write(&blur, edited).unwrap();
    let (warm, again) = run(dir.path(), &["--check", "."]);
    assert!(again > 0 && again < all, "{again} of {all} compiles: only blur.cl's");
    assert_eq!(warm, uncached(dir.path(), &["--check", "."]));
    // Options are part of every key: another proof limit is verified afresh.
    let (_, other) = run(dir.path(), &["--check", "--proof-limit", "123456", "."]);
    assert_eq!(other, all);
}

/// Every object of the store's `sub` folder (`ac`: records, `cas`: payloads), cut short or altered.
fn damage(dir: &Path, sub: &str) {
    let objects: Vec<_> = std::fs::read_dir(dir.join(".clasp_cache").join(sub)).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(!objects.is_empty());
    for (i, object) in objects.iter().enumerate() {
        let bytes = std::fs::read(object).unwrap();
        // Half cut short, half altered in place (the same size).
        let bad = if i % 2 == 0 { bytes[..bytes.len() / 2].to_vec() } else { bytes.iter().map(|b| b ^ 1).collect() };
        std::fs::write(object, bad).unwrap();
    }
}

#[test]
fn corrupt_or_truncated_entries_are_verified_again() {
    let dir = demo();
    let expected = uncached(dir.path(), &["--check", "."]);
    let (_, all) = run(dir.path(), &["--check", "."]);
    damage(dir.path(), "ac");
    let (result, again) = run(dir.path(), &["--check", "."]);
    assert_eq!(again, all, "no damaged record was trusted");
    assert_eq!(result, expected);
    // Payloads are shared by equal verdicts: the first verified again stores a whole one for all.
    damage(dir.path(), "cas");
    let (result, again) = run(dir.path(), &["--check", "."]);
    assert!(again > 0, "no damaged payload was trusted");
    assert_eq!(result, expected);
    assert_eq!(run(dir.path(), &["--check", "."]).1, 0, "stored again whole");
}

#[test]
fn four_shards_then_a_final_run_print_what_one_run_prints() {
    let dir = demo();
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().join("shared");
    let cache_arg = cache_dir.to_str().unwrap();
    let mut sharded = 0;
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let ((code, stdout), compiles) = run(dir.path(), &["--check", "--cache-dir", cache_arg, "--shard", &shard, "."]);
        assert_eq!((code, stdout.is_empty()), (0, true), "a shard prints no diff and exits 0");
        sharded += compiles;
    }
    let (one_run, all) = run(dir.path(), &["--check", "--no-cache", "."]);
    assert_eq!(sharded, all, "the shards made the compiles one run makes, each once");
    let (fin, final_compiles) = run(dir.path(), &["--check", "--cache-dir", cache_arg, "."]);
    assert_eq!(final_compiles, 0, "the final run verified nothing");
    assert_eq!(fin, one_run);
    assert!(!dir.path().join(".clasp_cache").exists(), "--cache-dir is the only store");
}

#[test]
fn shard_and_cache_arguments_are_checked() {
    let dir = demo();
    for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--shard", bad, "."]);
        assert_eq!(code, 2, "{bad}");
        assert!(stderr.contains("K/N"), "{stderr}");
    }
    // What a shard cannot do, and cache options with no cache, are refused, not ignored.
    let refused = [
        ("--shard", "--no-cache"),
        ("--shard", "--write"),
        ("--shard", "--no-verify"),
        ("--remote-cache", "--no-cache"),
        ("--cache-dir", "--no-cache"),
    ];
    for (option, other) in refused {
        let value = match option {
            "--shard" => "1/2",
            "--remote-cache" => "http://127.0.0.1:9",
            _ => "c",
        };
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", option, value, other, "."]);
        assert_eq!(code, 2, "{option} {other}: {stderr}");
        assert!(stderr.contains(other) && stderr.contains(option), "{stderr}");
    }
    for url in ["http://host/p?x=1", "host:8080", "ftp://host"] {
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--remote-cache", url, "."]);
        assert_eq!(code, 2, "{url}");
        assert!(stderr.contains("--remote-cache"), "{stderr}");
    }
}

#[test]
fn an_unusable_cache_directory_is_a_warning_and_the_run_goes_on() {
    let dir = demo();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "a file\n").unwrap();
    let (code, stdout, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--cache-dir", "not-a-dir", "."]);
    assert_eq!((code, String::from_utf8(stdout).unwrap()), uncached(dir.path(), &["--check", "."]));
    assert!(stderr.contains("warning: cannot use the cache directory") && stderr.contains("not caching"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file\n");
}

#[test]
fn cache_clean_removes_the_store_and_says_what_it_held() {
    let dir = demo();
    run(dir.path(), &["--check", "."]);
    let (code, stdout, stderr) = clasp_in(dir.path(), &["cache", "clean"]);
    assert_eq!(code, 0, "{stderr}");
    let said = String::from_utf8(stdout).unwrap();
    assert!(said.starts_with("removed the cache ") && said.contains(".clasp_cache") && !said.contains("(0 files"), "{said}");
    assert!(!dir.path().join(".clasp_cache").exists());
    let (_, again) = run(dir.path(), &["--check", "."]);
    assert!(again > 0, "verified afresh");
    let (code, stdout, _) = clasp_in(dir.path(), &["cache", "clean", "--root", "."]);
    assert_eq!(code, 0);
    assert!(String::from_utf8(stdout).unwrap().starts_with("removed the cache "));
    let (code, stdout, _) = clasp_in(dir.path(), &["cache", "clean"]);
    assert_eq!((code, String::from_utf8(stdout).unwrap().starts_with("no cache at ")), (0, true));
    let (code, _, stderr) = clasp_in(dir.path(), &["cache", "clean", "no/such/path"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no/such/path"), "{stderr}");
}

#[test]
fn the_store_writes_and_cleans_only_a_directory_of_its_own() {
    let dir = demo();
    let other = tempfile::tempdir().unwrap();
    // A directory the user keeps other things in is refused as a cache, and left alone.
    let theirs = other.path().join("theirs");
    std::fs::create_dir_all(theirs.join("notes")).unwrap();
    std::fs::write(theirs.join("notes/keep.txt"), "mine\n").unwrap();
    let theirs_arg = theirs.to_str().unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--cache-dir", theirs_arg, "."]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("holds other files and is no clasp cache"), "{stderr}");
    assert!(!theirs.join("ac").exists());
    for named in [dir.path().to_path_buf(), theirs.clone()] {
        let (code, _, stderr) = clasp_in(dir.path(), &["cache", "clean", "--cache-dir", named.to_str().unwrap()]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("is not a clasp cache"), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(theirs.join("notes/keep.txt")).unwrap(), "mine\n");
    assert!(dir.path().join("reduce.cl").is_file());
    // A cache someone later put a file in: cleaning takes what the store put there only.
    let ours = other.path().join("ours");
    run(dir.path(), &["--check", "--cache-dir", ours.to_str().unwrap(), "."]);
    assert!(ours.join("ac").is_dir() && ours.join("CACHEDIR.TAG").is_file());
    std::fs::write(ours.join("README"), "mine\n").unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["cache", "clean", "--cache-dir", ours.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!ours.join("ac").exists() && !ours.join("cas").exists() && !ours.join("CACHEDIR.TAG").exists());
    assert_eq!(std::fs::read_to_string(ours.join("README")).unwrap(), "mine\n");
}

/// In a git work tree, the cache is never a change (and the tree's own top is no cache).
#[test]
fn git_never_sees_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    crate::support::repository(dir.path(), &["k.cl"]);
    for cache in [".clasp_cache", "kernels-cache", "."] {
        let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--check", "--cache-dir", cache, "."]);
        assert_eq!(code, 1, "{stderr}");
        assert_eq!(cache == ".", stderr.contains("not caching"), "{stderr}");
        let status =
            std::process::Command::new("git").arg("-C").arg(dir.path()).args(["status", "--porcelain"]).output().unwrap();
        assert_eq!(String::from_utf8(status.stdout).unwrap(), "", "--cache-dir {cache}");
    }
}
