use super::*;

pub(super) fn config(text: &str) -> Result<Config, String> {
    config_with(text, &[]).1
}

/// A clasp.toml of `text` in a folder holding `files` (empty), loaded.
fn config_with(text: &str, files: &[&str]) -> (tempfile::TempDir, Result<Config, String>) {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        std::fs::write(dir.path().join(file), "").unwrap();
    }
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, text).unwrap();
    let loaded = Config::load(&path).map_err(|e| e.to_string());
    (dir, loaded)
}

/// Where an error message is (`2:8`), and what it says.
fn placed(e: &str) -> (String, String) {
    let located = e.split_once("clasp.toml:").unwrap_or_else(|| panic!("{e}")).1;
    let (place, message) = located.split_once(": error: ").unwrap_or_else(|| panic!("{e}"));
    (place.to_string(), message.to_string())
}

/// Where the error of a clasp.toml of `text` is, and what it says.
pub(super) fn error_at(text: &str) -> (String, String) {
    placed(&config(text).map(|_| ()).unwrap_err())
}

#[test]
fn errors_name_the_line() {
    let e = config("target = \"cl2.0\"\nstd = \"CL9\"\n").unwrap_err();
    assert!(e.contains("clasp.toml:2:8: error:") && e.contains("CL9"), "{e}");
    let e = config("[[configuration]]\nname = \"a\"\nopts = []\n").unwrap_err();
    assert!(e.contains("clasp.toml:3:1: error:") && e.contains("unknown field"), "{e}");
    let e = config("[[file]]\npath = \"*.cl\"\nconfigurations = [\"nope\"]\n").unwrap_err();
    assert!(e.contains("configuration `nope`"), "{e}");
    let e = config("options = [\"-fancy\"]\n").unwrap_err();
    assert!(e.contains("clasp.toml:1:") && e.contains("-fancy"), "{e}");
}

/// An `options` array reads as one command line: a value may be the next
/// element, as hosts list them; an option left without one is an error there.
#[test]
fn an_options_array_is_one_command_line() {
    let options = |text: &str| {
        let c = config(text)?;
        let jobs = c.jobs(&[c.dir.join("k.cl")], &CompileOptions::default()).map_err(|e| e.to_string())?;
        let compile = &jobs[0].compile;
        let dirs: Vec<PathBuf> = compile.include_dirs.iter().map(|d| d.strip_prefix(&c.dir).unwrap().to_path_buf()).collect();
        Ok::<_, String>((dirs, compile.defines.clone(), compile.clang_extra.clone()))
    };
    let split = options("options = [\"-I\", \"inc\", \"-D\", \"X=1\", \"-cl-mad-enable\"]\n").unwrap();
    let joined = options("options = [\"-Iinc\", \"-D X=1\", \"-cl-mad-enable\"]\n").unwrap();
    assert_eq!(split, joined);
    assert!(split.0 == [Path::new("inc")] && split.1 == ["X=1"], "{split:?}");
    // Per file and per configuration too, each array on its own.
    let per_file =
        "[[configuration]]\nname = \"a\"\noptions = [\"-D\", \"A\"]\n\n[[file]]\npath = \"k.cl\"\noptions = [\"-I\", \"inc\"]\n";
    let (dirs, defines, _) = options(per_file).unwrap();
    assert!(dirs == [Path::new("inc")] && defines == ["A"], "{dirs:?} {defines:?}");
    let e = options("options = [\"-DX\",\n  \"-I\"]\n").unwrap_err();
    assert!(e.contains("clasp.toml:2:4: error:") && e.contains("`-I` needs a directory"), "{e}");
    let e = options("[[file]]\npath = \"k.cl\"\noptions = [\"-D\"]\n").unwrap_err();
    assert!(e.contains("clasp.toml:3:") && e.contains("-D"), "{e}");
    // Said of the element that is wrong, not of every option before it.
    let e = options("options = [\"-DX\", \"-fancy\"]\n").unwrap_err();
    assert!(e.contains("unknown option `-fancy`") && !e.contains("-DX"), "{e}");
}

#[test]
fn jobs_follow_configurations_and_file_entries() {
    let c = config(
        "options = [\"-DTILE=16\"]\n\
         [[configuration]]\nname = \"fp32\"\noptions = [\"-DREAL=float\"]\n\
         [[configuration]]\nname = \"fp64\"\noptions = [\"-D REAL=double\", \"-cl-mad-enable\"]\n\
         [[file]]\npath = \"k/m*.cl\"\noptions = [\"-DKERN=1\"]\nconfigurations = [\"fp32\"]\n",
    )
    .unwrap();
    let files = [c.dir.join("k/a.cl"), c.dir.join("k/m1.cl")];
    let cli = CompileOptions { defines: vec!["TILE=8".into()], ..CompileOptions::default() };
    let jobs = c.jobs(&files, &cli).unwrap();
    let summary: Vec<(String, Option<String>, Vec<String>)> = jobs
        .iter()
        .map(|j| (j.path.file_name().unwrap().to_string_lossy().into_owned(), j.configuration.clone(), j.compile.defines.clone()))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        summary,
        vec![
            ("a.cl".into(), Some("fp32".into()), s(&["TILE=16", "REAL=float", "TILE=8"])),
            ("a.cl".into(), Some("fp64".into()), s(&["TILE=16", "REAL=double", "TILE=8"])),
            ("m1.cl".into(), Some("fp32".into()), s(&["TILE=16", "REAL=float", "KERN=1", "TILE=8"])),
        ]
    );
    assert_eq!(jobs[1].compile.clang_extra, ["-cl-mad-enable"]);
}

/// Every error is at the value it is about (inside its quotes), not at its key.
#[test]
fn errors_are_at_the_value_they_are_about() {
    let place = |text: &str| error_at(text).0;
    assert_eq!(place("target = 'cl9'\n"), "1:11");
    assert_eq!(place("host = true\ntimeout = 0\n"), "2:11");
    assert_eq!(place("exclude = [\"a\", \"k[12.cl\"]\n"), "1:18");
    assert_eq!(place("select = [\"generic-local\", \"nope\"]\n"), "1:29");
    let (place, message) = error_at("ignore = [\n  \"generic-local\",\n  \"builtin-pin\",\n]\n");
    assert_eq!(place, "3:4");
    assert!(message.starts_with("`ignore`: `builtin-pin` cannot be selected or ignored; these rules can:"), "{message}");
    let twice = "[[configuration]]\nname = \"a\"\n[[configuration]]\nname = \"a\"\n";
    assert_eq!(error_at(twice), ("4:9".to_string(), "configuration `a` is defined twice".to_string()));
    // The configuration a [[file]] names, not the entry's path.
    let undefined = "[[file]]\npath = \"*.cl\"\nconfigurations = [\"nope\"]\n";
    assert_eq!(error_at(undefined), ("3:20".to_string(), "`*.cl` names configuration `nope`, which is not defined".to_string()));
}

/// A value written twice is placed where it is wrong, not at its first occurrence.
#[test]
fn a_repeated_value_is_placed_where_it_is_wrong() {
    let place = |text: &str| error_at(text).0;
    // `-fancy` is -D's value in the first array, an unknown option in the second.
    let text = "options = [\"-D\", \"-fancy\"]\n[[configuration]]\nname = \"a\"\noptions = [\"-fancy\"]\n";
    assert_eq!(place(text), "4:13");
    // A dangling -I in the second array only.
    let text = "options = [\"-I\", \"inc\"]\n[[configuration]]\nname = \"a\"\noptions = [\"-DX\", \"-I\"]\n";
    assert_eq!(error_at(text), ("4:20".to_string(), "`-I` needs a directory".to_string()));
    // The same glob twice: the second entry's undefined configuration.
    let text = "[[configuration]]\nname = \"a\"\n[[file]]\npath = \"k.cl\"\nconfigurations = [\"a\"]\n\
                [[file]]\npath = \"k.cl\"\nconfigurations = [\"a\", \"b\"]\n";
    assert_eq!(place(text), "8:25");
    // A rule the batch may ignore but a [[file]] may not.
    let text = "ignore = [\"merge-duplicates\"]\n[[file]]\npath = \"k.cl\"\nignore = [\"merge-duplicates\"]\n";
    assert_eq!(place(text), "4:12");
    // A program named twice: the second name.
    let text = "[[program]]\nname = \"p\"\nsources = [\"a.cl\"]\n[[program]]\nname = \"p\"\nsources = [\"a.cl\"]\n";
    let (_dir, loaded) = config_with(text, &["a.cl"]);
    assert_eq!(placed(&loaded.unwrap_err()), ("5:9".to_string(), "program `p` is defined twice".to_string()));
}

/// Strings as TOML writes them: literal, with escapes, multi-line; arrays
/// over several lines; inline tables; CRLF line ends; a non-ASCII text
/// before the value (columns count bytes, as clang's do).
#[test]
fn values_are_placed_whatever_their_toml_form() {
    let place = |text: &str| error_at(text).0;
    assert_eq!(place("options = ['-DX', '-fancy']\n"), "1:20");
    // Escaped quotes in the element that is wrong (and in one before it).
    assert_eq!(place(r#"options = ["-DX=\"a\"", "-cl-std=\"CL9\""]"#), "1:26");
    assert_eq!(place("options = [\n  \"-DX\",\n\n    \"-fancy\",\n]\n"), "4:6");
    assert_eq!(place("options = ['''\n-fancy''']\n"), "2:1");
    assert_eq!(place("options = [\"\"\"-DX -fancy\"\"\"]\n"), "1:15");
    assert_eq!(place("file = [{ path = \"k.cl\", options = [\"-I\"] }]\n"), "1:38");
    assert_eq!(place("configuration = [{ name = \"a\" }, { name = \"b\", options = [\"-fancy\"] }]\n"), "1:60");
    assert_eq!(place("options = [\"-DX\"]\r\nstd = \"CL9\"\r\n"), "2:8");
    assert_eq!(place("[[file]]\r\npath = \"k.cl\"\r\noptions = [\r\n  \"-DX\",\r\n  \"-fancy\",\r\n]\r\n"), "5:4");
    // `é` is two bytes: -fancy's `-` is the 20th character, the 21st byte.
    assert_eq!(place("# é\noptions = [\"-Dé\", \"-fancy\"]\n"), "2:21");
    assert_eq!(place("[[configuration]]\nname = \"é\"\n[[configuration]]\nname = \"é\"\n"), "4:9");
}

/// A [[program]]'s errors: each at its value (an empty `sources` at its brackets).
#[test]
fn program_errors_are_at_their_values() {
    let program = |rest: &str| {
        let text = format!("[[configuration]]\nname = \"a\"\n[[program]]\nname = \"p\"\n{rest}");
        let (_dir, loaded) = config_with(&text, &["a.cl"]);
        placed(&loaded.map(|_| ()).unwrap_err())
    };
    assert_eq!(program("sources = []\n"), ("5:11".to_string(), "program `p` has no sources".to_string()));
    assert_eq!(program("sources = [\"a.cl\", 'gone.cl']\n").0, "5:21");
    let undefined = ("6:25".to_string(), "program `p` names configuration `b`, which is not defined".to_string());
    assert_eq!(program("sources = [\"a.cl\"]\nconfigurations = [\"a\", \"b\"]\n"), undefined);
    assert_eq!(program("sources = [\"a.cl\"]\noptions = [\"-I\", \"x\", \"-I\"]\n").0, "6:24");
}

/// A [[file]] matching nothing is a warning at its `path`, each entry at its own.
#[test]
fn unmatched_file_entries_are_placed_at_their_paths() {
    let (dir, loaded) = config_with("[[file]]\npath = 'none.cl'\n\n[[file]]\npath  =  \"none.cl\"\nselect = []\n", &[]);
    let c = loaded.unwrap();
    let warnings = c.unmatched_file_entries(&[dir.path().to_path_buf()], &[]);
    let places: Vec<&str> = warnings.iter().map(|w| w.split_once("clasp.toml:").unwrap().1.split_once(": ").unwrap().0).collect();
    assert_eq!(places, ["2:9", "5:11"], "{warnings:?}");
}

/// A vendor option (`-cl-nv-verbose`) is ignored with a note at its element, as on the command line.
#[test]
fn a_vendor_option_is_a_note_at_its_element() {
    let (_dir, loaded) = config_with(
        "options = [\"-DX\", \"-cl-nv-verbose\"]\n[[configuration]]\nname = \"a\"\noptions = ['-cl-amd-fast -DY']\n\
         [[program]]\nname = \"p\"\nsources = [\"a.cl\"]\noptions = [\"-cl-mad-enable\", \"-cl-nv-maxrregcount=32\"]\n",
        &["a.cl"],
    );
    let c = loaded.unwrap();
    let notes: Vec<&str> = c.notes.iter().map(|n| n.split_once("clasp.toml:").unwrap().1).collect();
    assert_eq!(
        notes,
        [
            "1:20: note: ignoring build option `-cl-nv-verbose`: clang does not accept it",
            "4:13: note: ignoring build option `-cl-amd-fast`: clang does not accept it",
            "8:31: note: ignoring build option `-cl-nv-maxrregcount=32`: clang does not accept it",
        ]
    );
    // Left out of the jobs, the rest kept.
    let jobs = c.jobs(&[c.dir.join("k.cl")], &CompileOptions::default()).unwrap();
    assert_eq!(jobs[0].compile.defines, ["X", "Y"]);
    assert!(jobs[0].compile.clang_extra.is_empty(), "{:?}", jobs[0].compile.clang_extra);
}
