//! `--compile-commands FILE`: the units and their options from a JSON list,
//! in either of two forms.
//!
//! - clasp's own: `[{"file", "options"?, "configuration"?}]`, `options` a
//!   list of host build options or one string; relative paths are relative
//!   to the list's directory.
//! - clang's `compile_commands.json` (what CMake and Bear write): `[{"directory",
//!   "file", "arguments" | "command", "output"?}]`. OpenCL C entries are
//!   units (a `.cl`, `.ocl` or `.opencl` file, or one compiled with `-x
//!   cl`); C, C++ and Python entries are host files of the batch. Of a
//!   unit's arguments, what a host passes to `clBuildProgram` is taken as
//!   such; every other argument reaches clang as it would after `--` on the
//!   command line (`-Xclang` pairs included), and the preflight refuses one
//!   clang rejects, naming it. Only the invocation's arguments are dropped
//!   (see `host_words`).
//!
//! A file listed twice is built in two configurations (named by
//! `configuration`, else by its position in the list).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{append_command_line, apply_words, ConfigError, Job};
use crate::settings::options::CompileOptions;

/// One entry of clasp's own form.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaspCommand {
    file: PathBuf,
    /// Host build options: a list of words, or one string split as a shell would.
    #[serde(default)]
    options: OptionWords,
    configuration: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OptionWords {
    List(Vec<String>),
    Line(String),
}

impl Default for OptionWords {
    fn default() -> Self {
        OptionWords::List(Vec::new())
    }
}

/// One entry of clang's form (other fields, such as `output`, are allowed and unused).
#[derive(Debug, Deserialize)]
struct ClangCommand {
    directory: PathBuf,
    file: PathBuf,
    arguments: Option<Vec<String>>,
    command: Option<String>,
}

/// An entry as a unit to build: the file, the host options, the directory
/// relative options are relative to, and its place in the list (1-based).
struct Entry {
    file: PathBuf,
    words: Vec<String>,
    dir: PathBuf,
    full_header: bool,
    configuration: Option<String>,
    position: usize,
}

/// What a `--compile-commands` file lists: the units, and the host files
/// (C, C++ and Python entries of clang's form) to read for build calls and
/// embedded kernels.
#[derive(Debug)]
pub struct Listed {
    pub jobs: Vec<Job>,
    pub hosts: Vec<PathBuf>,
    /// Notes for stderr: the options the entries pass that clasp ignores (a vendor `-cl-*`).
    pub notes: Vec<String>,
}

/// The jobs and host files of a `--compile-commands` file, in either form.
pub fn compile_commands(path: &Path, command_line: &CompileOptions) -> Result<Listed, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
    let at = |e: serde_json::Error| ConfigError::At {
        path: path.to_path_buf(),
        line: e.line(),
        col: e.column(),
        message: e.to_string(),
    };
    let values: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(at)?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // clang's form is told by `directory`, which every one of its entries has and clasp's never does.
    let (entries, hosts) = if values.iter().any(|v| v.get("directory").is_some()) {
        clang_entries(path, serde_json::from_str(&text).map_err(at)?, dir)?
    } else {
        (clasp_entries(path, serde_json::from_str(&text).map_err(at)?, dir)?, Vec::new())
    };
    let (jobs, notes) = jobs(path, entries, command_line)?;
    Ok(Listed { jobs, hosts, notes })
}

/// An entry's option string (its `key`) split as a shell would, or the error at the entry (`path`, 1-based index).
fn split((path, entry): (&Path, usize), key: &'static str, line: &str) -> Result<Vec<String>, ConfigError> {
    let split = crate::settings::build_options::split_build_string(line, key);
    split.map_err(|e| ConfigError::Entry { path: path.to_path_buf(), entry, source: e.into() })
}

fn clasp_entries(path: &Path, commands: Vec<ClaspCommand>, dir: &Path) -> Result<Vec<Entry>, ConfigError> {
    let mut entries = Vec::new();
    for (index, command) in commands.into_iter().enumerate() {
        let words = match command.options {
            OptionWords::List(words) => words,
            OptionWords::Line(line) => split((path, index + 1), "`options`", &line)?,
        };
        entries.push(Entry {
            file: dir.join(&command.file),
            words,
            dir: dir.to_path_buf(),
            full_header: false,
            configuration: command.configuration,
            position: index + 1,
        });
    }
    Ok(entries)
}

/// The OpenCL C entries, and the host files listed (a host file compiled twice is one).
fn clang_entries(path: &Path, commands: Vec<ClangCommand>, dir: &Path) -> Result<(Vec<Entry>, Vec<PathBuf>), ConfigError> {
    let (mut entries, mut hosts) = (Vec::new(), Vec::new());
    for (index, command) in commands.into_iter().enumerate() {
        let argv = match (command.arguments, command.command) {
            (Some(arguments), _) => arguments,
            (None, Some(line)) => split((path, index + 1), "`command`", &line)?,
            (None, None) => return Err(ConfigError::NoCommand { path: path.to_path_buf(), entry: index + 1 }),
        };
        // `directory` is absolute in files build systems write; a relative one is taken from the list's place.
        let directory = dir.join(&command.directory);
        if !is_opencl(&command.file, &argv) {
            if crate::host::HostLanguage::of(&command.file).is_some() && !hosts.contains(&directory.join(&command.file)) {
                hosts.push(directory.join(&command.file));
            }
            continue;
        }
        let (mut words, full_header, clang) = host_words(&argv, &command.file);
        if !clang.is_empty() {
            words.push("--".to_string());
            words.extend(clang);
        }
        entries.push(Entry {
            file: directory.join(&command.file),
            words,
            dir: directory,
            full_header,
            configuration: None,
            position: index + 1,
        });
    }
    Ok((entries, hosts))
}

/// An OpenCL C entry: a kernel file by its extension, or any file compiled as OpenCL C (`-x cl`).
fn is_opencl(file: &Path, argv: &[String]) -> bool {
    let extension = file.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(extension.as_deref(), Some("cl" | "ocl" | "opencl"))
        || argv.windows(2).any(|w| w[0] == "-x" && w[1] == "cl")
        || argv.iter().any(|a| a == "-xcl")
}

/// A compiler's command line as clasp takes it: the words a host would
/// pass to `clBuildProgram`, whether it asks for the full default header,
/// and every other argument, which reaches clang as it would after `--` on
/// clasp's command line (`-Xclang` pairs, `-W...`, `-f...`). Only what
/// names the invocation rather than the compile is dropped: the compiler,
/// the input (`file`), `-c`, `-o`, `-x`, the dependency-file options
/// (`-M...`), `-target` (clasp compiles for the target's triples) and `-O`
/// levels (clasp reads unoptimised IR).
fn host_words(argv: &[String], file: &Path) -> (Vec<String>, bool, Vec<String>) {
    let (mut kept, mut full_header, mut clang) = (Vec::new(), false, Vec::new());
    let mut words = argv.iter().skip(1);
    while let Some(word) = words.next() {
        match word.as_str() {
            "-D" | "-I" | "-include" => {
                kept.push(word.clone());
                kept.extend(words.next().cloned());
            }
            "-isystem" | "-iquote" => kept.extend(words.next().map(|dir| format!("-I{dir}"))),
            // The invocation's, with their value.
            "-o" | "-x" | "-target" | "-MF" | "-MT" | "-MQ" => {
                words.next();
            }
            "-c" | "-xcl" | "-M" | "-MM" | "-MD" | "-MMD" | "-MP" => {}
            w if w.starts_with("-O") || w.starts_with("--target=") || w.starts_with("-o") => {}
            w if Path::new(w) == file || Path::new(w).file_name().is_some_and(|n| Some(n) == file.file_name()) => {}
            "-Xclang" => match words.next() {
                Some(option) if option == "-finclude-default-header" => full_header = true,
                Some(option) => clang.extend([word.clone(), option.clone()]),
                None => clang.push(word.clone()),
            },
            "-w" | "-Werror" | "-g" => kept.push(word.clone()),
            w if w.starts_with("-D") || w.starts_with("-I") || w.starts_with("-cl-") => kept.push(word.clone()),
            w if w.starts_with("-std=") => kept.extend(opencl_std(&w["-std=".len()..])),
            _ => clang.push(word.clone()),
        }
    }
    (kept, full_header, clang)
}

/// clang's `-std=CL2.0` (any case) as a host's `-cl-std=CL2.0`; C or C++ standards are not OpenCL's.
fn opencl_std(value: &str) -> Option<String> {
    let upper = value.to_ascii_uppercase();
    (upper.starts_with("CL") && !upper.starts_with("CLC")).then(|| format!("-cl-std={upper}"))
}

/// One job per entry, with the command line's options after its own; the
/// notes of the options it ignores, each naming its entry.
fn jobs(path: &Path, entries: Vec<Entry>, command_line: &CompileOptions) -> Result<(Vec<Job>, Vec<String>), ConfigError> {
    let mut count: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for entry in &entries {
        *count.entry(entry.file.clone()).or_default() += 1;
    }
    let (mut jobs, mut notes) = (Vec::new(), Vec::new());
    for entry in entries {
        let mut compile = CompileOptions { std: command_line.std, full_header: entry.full_header, ..CompileOptions::default() };
        let (at, position) = (path.to_path_buf(), entry.position);
        let ignored = apply_words(&mut compile, entry.words, &entry.dir).map_err(|source| ConfigError::Entry {
            path: at,
            entry: position,
            source,
        })?;
        notes.extend(ignored.iter().map(|note| format!("{}:1:1: note: entry {position}: {note}", path.display())));
        append_command_line(&mut compile, command_line);
        let configuration = entry.configuration.or_else(|| (count[&entry.file] > 1).then(|| format!("#{}", entry.position)));
        jobs.push(Job { path: entry.file, configuration, compile, embedded: None, program: None });
    }
    Ok((jobs, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(argv: &str) -> (Vec<String>, bool) {
        let (kept, full_header, _) = all_words(argv);
        (kept, full_header)
    }

    fn all_words(argv: &str) -> (Vec<String>, bool, Vec<String>) {
        host_words(&argv.split_whitespace().map(String::from).collect::<Vec<_>>(), Path::new("kernels/k.cl"))
    }

    #[test]
    fn a_compiler_command_keeps_only_host_build_options() {
        let (kept, full) = words(
            "clang-19 -x cl -cl-std=CL1.2 -target spir64 -O2 -Wall -c -o k.o -DTILE=16 -D N=4 -I inc -Iother \
             -isystem sys -include defs.h -cl-mad-enable -w -Xclang -finclude-default-header -MD -MF k.d kernels/k.cl",
        );
        let expected = [
            "-cl-std=CL1.2",
            "-DTILE=16",
            "-D",
            "N=4",
            "-I",
            "inc",
            "-Iother",
            "-Isys",
            "-include",
            "defs.h",
            "-cl-mad-enable",
            "-w",
        ];
        assert_eq!(kept, expected);
        assert!(full);
        assert_eq!(words("clang -std=cl2.0 -c k.cl").0, ["-cl-std=CL2.0"]);
        // Every other argument reaches clang as after `--`; only the invocation's are dropped.
        let (_, _, clang) =
            all_words("clang -Wall -O2 -target spir -c -o k.o -Xclang -cl-ext=-cl_khr_fp64 -fno-builtin /abs/kernels/k.cl");
        assert_eq!(clang, ["-Wall", "-Xclang", "-cl-ext=-cl_khr_fp64", "-fno-builtin"]);
        assert!(words("clang -std=c11 -c k.cl").0.is_empty());
    }

    /// An entry's option string that does not split is named by its key
    /// (not as `--build-options`); a vendor option it passes is a note naming the entry.
    #[test]
    fn an_entrys_options_are_named_by_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("cc.json");
        let listed = |text: &str| {
            std::fs::write(&list, text).unwrap();
            compile_commands(&list, &CompileOptions::default())
        };
        let e = listed(r#"[{"file": "k.cl"}, {"file": "k.cl", "options": "-D 'x"}]"#).unwrap_err().to_string();
        assert!(e.ends_with("cc.json:1:1: error: entry 2: `options` `-D 'x`: unbalanced quotes or a trailing backslash"), "{e}");
        let clang = format!(r#"[{{"directory": "{}", "file": "k.cl", "command": "clang -c \"k.cl"}}]"#, dir.path().display());
        assert!(listed(&clang).unwrap_err().to_string().contains("entry 1: `command` `clang -c \"k.cl`: unbalanced"));
        let notes = listed(r#"[{"file": "k.cl", "options": ["-DX", "-cl-nv-verbose"]}]"#).unwrap().notes;
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].ends_with("cc.json:1:1: note: entry 1: ignoring build option `-cl-nv-verbose`: clang does not accept it"),
            "{notes:?}"
        );
    }

    #[test]
    fn only_opencl_entries_are_units() {
        let argv = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert!(is_opencl(Path::new("k.CL"), &argv("clang -c k.CL")));
        assert!(is_opencl(Path::new("k.ocl"), &[]));
        assert!(is_opencl(Path::new("gen/k.inc"), &argv("clang -x cl -c gen/k.inc")));
        assert!(!is_opencl(Path::new("host.cpp"), &argv("c++ -c host.cpp")));
    }
}
