//! What a reviewer sees is what gets written, over every fixture batch
//! (`fixtures/demo`, each directory under `fixtures/migrate/` and each `.cl`
//! fixture there, each host project under `fixtures/host/`), each copied
//! into a git repository of its own:
//! - each change set's diff as `--interactive` shows it, applied with
//!   `git apply`, changes the files exactly as accepting that set alone
//!   (`n` to the sets before it, `y` to it, `q` for the rest) writes them;
//!   a file shown but left as it is must be named by an error;
//! - the dry run's diff, applied, changes them exactly as `--write` does,
//!   and as `--interactive` accepting every set does.
//!
//! Runs: one review accepting every set (it shows every set's diff), one
//! per set alone where a batch has several, a dry run and `--write`: about
//! 260 runs of clasp, four at a time.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fixture batch: its files copied into a fresh repository, their texts, and its options.
struct Case {
    /// Its path in the checkout.
    name: String,
    /// The path clasp is given, relative to the repository's top, where it runs.
    arg: String,
    repo: tempfile::TempDir,
    originals: Files,
    args: Vec<String>,
}

/// Texts by path relative to a repository's top (`.git` left out).
type Files = BTreeMap<String, Vec<u8>>;

/// The fixture's options: the first line of a `.cl` file, or the `clasp-args`
/// file of a directory, may read `// clasp-args: ...` (as `fixture_tests` reads them).
fn fixture_args(fixture: &Path) -> Vec<String> {
    let directive = if fixture.is_dir() { fixture.join("clasp-args") } else { fixture.to_path_buf() };
    let text = std::fs::read_to_string(directive).unwrap_or_default();
    let args = text.lines().next().and_then(|l| l.strip_prefix("// clasp-args:")).unwrap_or_default();
    args.split_whitespace().map(String::from).collect()
}

/// Every file under `dir` but `.git`, by path relative to `top`.
fn read_tree(top: &Path, dir: &Path, files: &mut Files) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if path.is_dir() {
            read_tree(top, &path, files);
        } else {
            let name = path.strip_prefix(top).unwrap().display().to_string();
            files.insert(name, std::fs::read(&path).unwrap());
        }
    }
}

/// The fixture (a `.cl` file, or a directory as one batch) committed in a
/// repository of its own, at its path in the checkout (`fixtures/demo/host.c`
/// reads `fixtures/demo/reduce.cl`, relative to where it runs), but a host
/// fixture, which is a project of its own, at the top (its hosts read their
/// kernels relative to it).
fn case(fixture: &Path) -> Case {
    let name = fixture.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string();
    let arg = if name.starts_with("fixtures/host/") { ".".to_string() } else { name.clone() };
    case_at(fixture, name, arg)
}

/// The batch `fixture` committed in a repository of its own at `arg`, named `name`.
fn case_at(fixture: &Path, name: String, arg: String) -> Case {
    let repo = tempfile::tempdir().unwrap();
    let copy = repo.path().join(&arg);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    if fixture.is_dir() {
        std::fs::create_dir_all(&copy).unwrap();
        // (`create_dir_all` of `.` is the top itself.)
        crate::support::copy_tree(fixture, &copy);
    } else {
        std::fs::copy(fixture, &copy).unwrap();
    }
    crate::support::git(repo.path(), &["init", "-q"]);
    crate::support::git(repo.path(), &["add", "."]);
    let author = ["-c", "user.email=ci@example.invalid", "-c", "user.name=ci"];
    crate::support::git(repo.path(), &[&author[..], &["commit", "-qm", "fixture"]].concat());
    let mut originals = Files::new();
    read_tree(repo.path(), repo.path(), &mut originals);
    Case { name, arg, repo, originals, args: fixture_args(fixture) }
}

/// Every fixture batch: `fixtures/demo`, each entry of `fixtures/migrate/`,
/// and each host project under `fixtures/host/` (but the stub OpenCL they are built with).
fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let entries = |dir: &str| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        paths
    };
    let migrate = entries("fixtures/migrate").into_iter().filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "cl"));
    let host = entries("fixtures/host").into_iter().filter(|p| p.is_dir() && !p.ends_with("stub"));
    [root.join("fixtures/demo")].into_iter().chain(migrate).chain(host).collect()
}

impl Case {
    /// Runs `clasp migrate <its options> <extra> <its path>` at the repository's top with
    /// `answers` on stdin; stdout and stderr as one stream, in the order
    /// written (a diff, then its evidence and its question).
    fn run(&self, extra: &[&str], answers: &str) -> (i32, Vec<u8>) {
        let log = tempfile::tempfile().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_clasp"))
            .args(["migrate", "--no-cache"])
            .args(&self.args)
            .args(extra)
            .arg(&self.arg)
            .current_dir(self.repo.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log.try_clone().unwrap()))
            .spawn()
            .unwrap();
        // It may stop reading before the last answer (`q`, or fewer questions).
        let _ = child.stdin.take().unwrap().write_all(answers.as_bytes());
        let code = child.wait().unwrap().code().unwrap_or(-1);
        let mut log = log;
        let mut out = Vec::new();
        std::io::Seek::rewind(&mut log).unwrap();
        std::io::Read::read_to_end(&mut log, &mut out).unwrap();
        (code, out)
    }

    /// The files that differ from the commit (new ones included, a
    /// deleted one as empty), with their texts; then the work tree is put back as committed.
    fn changes_and_reset(&self) -> Files {
        let mut now = Files::new();
        read_tree(self.repo.path(), self.repo.path(), &mut now);
        let mut changed = Files::new();
        for (name, original) in &self.originals {
            match now.remove(name) {
                Some(text) if text == *original => {}
                text => {
                    changed.insert(name.clone(), text.unwrap_or_default());
                    std::fs::write(self.repo.path().join(name), original).unwrap();
                }
            }
        }
        for (name, text) in now {
            std::fs::remove_file(self.repo.path().join(&name)).unwrap();
            changed.insert(name, text);
        }
        changed
    }

    /// The files `shown` (a diff as clasp prints it) changes, applied with `git apply`.
    fn applied(&self, shown: &[u8], what: &str) -> Files {
        self.applied_in_turn(&[shown], what)
    }

    /// The files the diffs `shown` change, each applied with `git apply` in turn.
    fn applied_in_turn(&self, shown: &[&[u8]], what: &str) -> Files {
        // `git apply` refuses an empty patch; nothing shown, nothing applied.
        for diff in shown.iter().filter(|d| !d.is_empty()) {
            let mut patch = tempfile::NamedTempFile::new().unwrap();
            patch.write_all(diff).unwrap();
            let output = Command::new("git").arg("-C").arg(self.repo.path()).arg("apply").arg(patch.path()).output().unwrap();
            let why = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{}: {what} does not apply: {why}\n{}", self.name, text(diff));
        }
        self.changes_and_reset()
    }
}

/// The files of `written` that are not as in `expected`, with their texts, for a failure's message.
fn differing(expected: &Files, written: &Files) -> String {
    let names: std::collections::BTreeSet<&String> = expected.keys().chain(written.keys()).collect();
    let shown = |text: Option<&Vec<u8>>| text.map_or("(unchanged)".to_string(), |t| self::text(t));
    names
        .into_iter()
        .filter(|name| expected.get(*name) != written.get(*name))
        .map(|name| {
            format!("{name}, as shown:\n{}\n{name}, as written:\n{}\n", shown(expected.get(name)), shown(written.get(name)))
        })
        .collect()
}

/// What an `--interactive` transcript shows: the diffs of its sets, one
/// per question, in order (the lines before each question that are a
/// diff's: evidence and questions are not), and the diff after the last
/// answer of the edits that follow from the accepted sets together.
fn shown_sets(transcript: &[u8]) -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut sets = Vec::new();
    let mut current = Vec::new();
    let mut follow_up = None;
    for line in transcript.split_inclusive(|b| *b == b'\n') {
        if line.starts_with(b"[") && line.windows(19).any(|w| w == b"apply this change? ") {
            sets.push(std::mem::take(&mut current));
        } else if line.starts_with(b"clasp: these edits follow from the sets you accepted together") {
            follow_up = Some(Vec::new());
        } else if let (true, Some(diff)) = (is_diff_line(line), follow_up.as_mut()) {
            diff.extend_from_slice(line);
        } else if is_diff_line(line) {
            current.extend_from_slice(line);
        }
    }
    (sets, follow_up.unwrap_or_default())
}

/// A diff as clasp prints it, split by file: each file's name and its section.
fn by_file(diff: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let lines: Vec<&[u8]> = diff.split_inclusive(|b| *b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).copied().unwrap_or_default();
        if let (true, Some(name)) = (line.starts_with(b"--- "), next.strip_prefix(b"+++ b/")) {
            out.push((text(name).trim_end().to_string(), Vec::new()));
        }
        out.last_mut().expect("a diff starts with its file's header").1.extend_from_slice(line);
    }
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What the check found: sets written exactly as shown, sets of which some
/// file shown was left as it was with an error naming it, and what differed.
#[derive(Default)]
struct Tally {
    compared: usize,
    refused: usize,
    failures: Vec<String>,
}

/// One set's diff, `shown`, against what a run accepting it (and no
/// other) wrote. A file shown but left as it is must be named by an error
/// (exit 2): skipping a set its unit requires leaves that unit unchanged,
/// and a skipped change that cannot be left out stops every write.
fn compare_set(
    case: &Case,
    (index, total): (usize, usize),
    shown: &[u8],
    (code, transcript): (i32, &[u8]),
    written: &Files,
    tally: &mut Tally,
) {
    let (_, follow_up) = shown_sets(transcript);
    let expected = case.applied_in_turn(&[shown, &follow_up], &format!("set {}'s diff", index + 1));
    compare_shown(case, &format!("set {} of {total}", index + 1), (&expected, shown), (code, transcript), written, tally);
}

/// What `shown` (the diffs a review showed, as applied: `expected`) changes
/// against what the review wrote; a file shown but left as it is must be named by an error.
fn compare_shown(
    case: &Case,
    what: &str,
    (expected, shown): (&Files, &[u8]),
    (code, transcript): (i32, &[u8]),
    written: &Files,
    tally: &mut Tally,
) {
    let transcript = text(transcript);
    let stopped = transcript.contains("cannot be left out on their own; nothing written");
    let refused = |name: &String| {
        let named = |line: &str| line.starts_with(&format!("{name}:")) || line.starts_with(&format!("./{name}:"));
        code == 2 && (stopped || transcript.lines().any(|line| named(line) && line.contains(": error: ")))
    };
    let left_out: Vec<&String> = expected.keys().filter(|name| !written.contains_key(*name)).collect();
    let as_shown = written.iter().all(|(name, text)| expected.get(name) == Some(text));
    match (as_shown && left_out.iter().all(|name| refused(name)), left_out.is_empty()) {
        (true, true) => tally.compared += 1,
        (true, false) => tally.refused += 1,
        (false, _) => tally.failures.push(format!(
            "{}: {what}: shown and written differ (exit {code})\n{}--- shown:\n{}--- transcript:\n{transcript}",
            case.name,
            differing(expected, written),
            text(shown),
        )),
    }
}

/// Each set alone (`n` to the sets before it, `y` to it, `q` for the rest).
fn check_each_set(case: &Case, shown: &[Vec<u8>], tally: &mut Tally) {
    for (index, set) in shown.iter().enumerate() {
        let (code, transcript) = case.run(&["--interactive"], &format!("{}y\nq\n", "n\n".repeat(index)));
        let written = case.changes_and_reset();
        compare_set(case, (index, shown.len()), set, (code, &transcript), &written, tally);
    }
}

/// Every set: the dry run's diff, what `--write` writes and what accepting
/// every set wrote (`all_accepted`) are the same changes.
fn check_all_sets(case: &Case, all_accepted: &Files, tally: &mut Tally) {
    let (_, dry) = case.run(&[], "");
    let (code, transcript) = case.run(&["--write"], "");
    let written = case.changes_and_reset();
    let shown = case.applied(&diff_lines(&dry), "the dry run's diff");
    for (what, other) in [("--write", &written), ("--interactive, every set accepted,", all_accepted)] {
        if shown != *other {
            let (differing, transcript) = (differing(&shown, other), text(&transcript));
            let message = format!("{}: the dry run's diff and what {what} wrote differ (exit {code})", case.name);
            tally.failures.push(format!("{message}\n{differing}--- transcript of --write:\n{transcript}"));
        }
    }
}

/// Sets accepted together (`accepted[i]`: the answer to set `i`): the
/// diffs the review showed for them and the one after the answers (the
/// edits that follow from them together), applied in turn, are what it wrote.
fn check_together(case: &Case, accepted: &[bool], tally: &mut Tally) -> Files {
    let answers: String = accepted.iter().map(|&a| if a { "y\n" } else { "n\n" }).collect();
    let (code, transcript) = case.run(&["--interactive"], &answers);
    let written = case.changes_and_reset();
    let (sets, follow_up) = shown_sets(&transcript);
    let mut shown: Vec<&[u8]> = sets.iter().zip(accepted).filter(|(_, a)| **a).map(|(d, _)| d.as_slice()).collect();
    shown.push(&follow_up);
    // A file shown in several diffs (two sets changing one line, each diff against the file as
    // it is) cannot be patched in turn: it must be written, and `check_all_sets` compares it
    // when every set is accepted. Each file shown once is compared exactly.
    let mut sections: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    for (name, section) in shown.iter().flat_map(|d| by_file(d)) {
        sections.entry(name).or_default().push(section);
    }
    let once: Vec<u8> = sections.values().filter(|s| s.len() == 1).flat_map(|s| s[0].clone()).collect();
    let expected = case.applied(&once, "the accepted sets' diffs and the one following from them");
    let several: Vec<&String> = sections.iter().filter(|(_, s)| s.len() > 1).map(|(name, _)| name).collect();
    let mut compared = written.clone();
    for name in &several {
        if compared.remove(*name).is_none() && code == 0 {
            tally.failures.push(format!("{}: {name} shown in several diffs, not written", case.name));
        }
    }
    let what = format!("sets accepted together ({})", answers.replace('\n', ""));
    compare_shown(case, &what, (&expected, &shown.concat()), (code, &transcript), &compared, tally);
    written
}

/// The checks on one fixture batch. The review that accepts every set
/// shows each one's diff; a batch of one set needs no run of it alone.
/// Sets accepted together: every one, and every one but the last.
fn check_fixture(fixture: &Path, tally: &mut Tally) {
    check_case(&case(fixture), tally);
}

fn check_case(case: &Case, tally: &mut Tally) {
    let (code, transcript) = case.run(&["--interactive"], &"y\n".repeat(500));
    let all_accepted = case.changes_and_reset();
    let (shown, _) = shown_sets(&transcript);
    match shown.len() {
        0 if all_accepted.is_empty() => return,
        0 => tally.failures.push(format!("{}: written with no set shown (exit {code})", case.name)),
        1 => compare_set(case, (0, 1), &shown[0], (code, &transcript), &all_accepted, tally),
        _ => check_each_set(case, &shown, tally),
    }
    if shown.len() > 1 {
        check_together(case, &vec![true; shown.len()], tally);
        let all_but_last: Vec<bool> = (0..shown.len()).map(|i| i + 1 < shown.len()).collect();
        check_together(case, &all_but_last, tally);
    }
    check_all_sets(case, &all_accepted, tally);
}

#[test]
fn each_reviewed_diff_is_what_accepting_it_writes_in_every_fixture() {
    let started = std::time::Instant::now();
    let fixtures = fixtures();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // A few fixtures at a time: each run of clasp mostly waits on its worker process and clang.
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let mut tally = Tally::default();
                    while let Some(fixture) = fixtures.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                        check_fixture(fixture, &mut tally);
                    }
                    tally
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let failures: Vec<&String> = tallies.iter().flat_map(|t| t.failures.iter()).collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.iter().map(|f| f.as_str()).collect::<Vec<_>>().join("\n")
    );
    // The property is about something: the fixtures hold about a hundred sets, merges across files among them.
    let compared: usize = tallies.iter().map(|t| t.compared).sum();
    let refused: usize = tallies.iter().map(|t| t.refused).sum();
    assert!(compared >= 80, "only {compared} change sets written as shown ({refused} refused)");
    eprintln!("{compared} change sets written as shown, {refused} refused with an error, in {:.1?}", started.elapsed());
}

/// The lines of `output` that are a diff's (not diagnostics).
fn diff_lines(output: &[u8]) -> Vec<u8> {
    let lines = output.split_inclusive(|b| *b == b'\n');
    lines.filter(|l| is_diff_line(l)).flatten().copied().collect()
}

/// A line of a unified diff; diagnostics, evidence and questions start with a path, `clasp:` or `[`.
fn is_diff_line(line: &[u8]) -> bool {
    matches!(line.first(), Some(b' ' | b'+' | b'-' | b'@' | b'\\'))
}

/// A host whose helper builds whichever kernel file its caller names: one
/// call per file of `files`, so its build call is switched to the new
/// standard only once every one of them changed (no set shows it alone).
fn helper_building(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut calls = String::new();
    for (i, file) in files.iter().enumerate() {
        let kernel = format!(
            "float get{i}(__global const float *p) {{ return p[{i}]; }}\n\
             __kernel void k{i}(__global float *o) {{ o[0] = get{i}(o); }}\n"
        );
        std::fs::write(dir.path().join(file), kernel).unwrap();
        calls.push_str(&format!("    build_file(ctx, dev, \"{file}\");\n"));
    }
    let host = format!(
        "#include <CL/cl.h>\nextern const char *slurp(const char *path);\n\n\
         cl_program build_file(cl_context ctx, cl_device_id dev, const char *path)\n{{\n    \
         const char *src = slurp(path);\n    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);\n    \
         clBuildProgram(p, 1, &dev, \"-DUNROLL=4\", NULL, NULL);\n    return p;\n}}\n\n\
         void setup(cl_context ctx, cl_device_id dev)\n{{\n{calls}}}\n"
    );
    std::fs::write(dir.path().join("host.c"), host).unwrap();
    dir
}

#[test]
fn an_edit_following_from_sets_accepted_together_is_shown_before_it_is_written() {
    let mut tally = Tally::default();
    for files in [&["a.cl", "b.cl"][..], &["a.cl", "b.cl", "c.cl"]] {
        let project = helper_building(files);
        let case = case_at(project.path(), format!("a helper building {files:?}"), ".".to_string());
        // Every set accepted: the build call's edit is shown once the answers are in, with its evidence.
        let (code, transcript) = case.run(&["--interactive"], &"y\n".repeat(files.len()));
        let written = case.changes_and_reset();
        let transcript = text(&transcript);
        assert_eq!(code, 0, "{transcript}");
        let (sets, follow_up) = shown_sets(transcript.as_bytes());
        assert_eq!(sets.len(), files.len(), "{transcript}");
        assert!(sets.iter().all(|set| !text(set).contains("host.c")), "no set shows the build call: {transcript}");
        let follow_up = text(&follow_up);
        assert!(follow_up.contains("+    clBuildProgram(p, 1, &dev, \"-DUNROLL=4 -cl-std=CL2.0\", NULL, NULL);"), "{transcript}");
        assert!(
            transcript.contains("host.c:8:5: host-build-options: ")
                && transcript.contains("(follows from the sets you accepted)")
        );
        assert!(written.contains_key("host.c"), "{transcript}");
        check_case(&case, &mut tally);
    }
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    // Each set alone (2 + 3), and every set and all but the last together (2 + 2).
    assert_eq!(tally.compared, 9, "written as shown");
}
