//! Host build options -> clasp's canonical options, before clap sees argv.
//!
//! Real projects hand clBuildProgram strings such as `-include defs.h -D N=4
//! -cl-std=CL1.2 -cl-mad-enable -w`. clap cannot read `-include` (it would
//! take it for `-i nclude`) nor `-cl-mad-enable`, so argv is rewritten first:
//!
//! | host spelling | canonical |
//! | --- | --- |
//! | `-include FILE` | `--include=FILE` |
//! | `-D X`, `-DX`, `-I DIR`, `-IDIR` | `-DX`, `-IDIR` (attached, so a value may start with `-`) |
//! | `-U X`, `-UX` | `--clang-arg=-UX` |
//! | `-cl-std=CL1.2` | `--std=CL1.2` |
//! | other `-cl-*` clang accepts, `-w`, `-Werror`, `-g` | `--clang-arg=OPTION` |
//! | other `-cl-*` (vendor options) | dropped, with a note |
//! | `--build-options "STRING"` | the string split as a shell would, each word as above |
//! | `-- ARGS...` | `--clang-arg=ARG` each, verbatim |
//!
//! Any other single-dash option is an error (clasp's own are `-I`, `-D`,
//! `-h` and `-V`), naming `--` as the way to pass clang options.

/// argv rewritten for clap, and notes for stderr (ignored options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Canonical {
    pub args: Vec<String>,
    pub notes: Vec<String>,
}

/// Why argv (or a host's option string) cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildOptionsError {
    /// `--build-options` ends argv.
    #[error("`--build-options` needs a string (the host's options, quoted)")]
    MissingBuildString,
    /// A host option string that does not split as a shell would; `from`
    /// says where it is written (`--build-options`, a clasp.toml `options` element).
    #[error("{from} `{text}`: unbalanced quotes or a trailing backslash")]
    Unbalanced { from: &'static str, text: String },
    /// A word of a `--build-options` string that is no host option.
    #[error(
        "unknown build option `{word}` in --build-options `{text}` (accepted: -include FILE, -D, -U, -I, -cl-*, -w, -Werror, -g)"
    )]
    UnknownBuildOption { word: String, text: String },
    /// A single-dash option neither clasp nor the host spellings know.
    #[error("unknown option `{word}`; other clang options go after `--`, after the paths (`clasp migrate PATHS -- {word}`)")]
    UnknownOption { word: String },
    /// A host option without its value (`-include` last).
    #[error("`{option}` needs {what}")]
    MissingValue { option: String, what: &'static str },
}

/// How messages name a `--build-options` string.
pub const BUILD_OPTIONS: &str = "--build-options";

/// The `-cl-*` options clang 19's driver accepts for OpenCL C (besides
/// `-cl-std=`, which sets the input standard, and `-cl-ext=`, a prefix).
/// `clang_accepts_every_listed_option` checks this list against clang-19.
pub const CLANG_CL_OPTIONS: [&str; 13] = [
    "-cl-opt-disable",
    "-cl-strict-aliasing",
    "-cl-single-precision-constant",
    "-cl-finite-math-only",
    "-cl-kernel-arg-info",
    "-cl-unsafe-math-optimizations",
    "-cl-fast-relaxed-math",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-uniform-work-group-size",
    "-cl-no-stdinc",
];

/// Other host options that clang takes as they are.
const PLAIN_OPTIONS: [&str; 3] = ["-w", "-Werror", "-g"];

/// clasp's own short options, which clap reads (`-j` takes a value, `-j 2` or `-j2`).
const CLAP_SHORTS: [&str; 4] = ["-h", "-V", "-j", "-q"];

fn is_clap_short(word: &str) -> bool {
    CLAP_SHORTS.contains(&word) || word.strip_prefix("-j").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Rewrites `argv` (program name first). `takes_value` says whether a long
/// option of clasp's (`--target`) consumes the next word, which is then
/// left alone whatever it looks like.
pub fn canonicalize(argv: &[String], takes_value: &dyn Fn(&str) -> bool) -> Result<Canonical, BuildOptionsError> {
    let mut reader = Reader::new(takes_value);
    let mut words = argv.iter().cloned();
    reader.out.args.extend(words.next());
    for word in words {
        reader.push(word)?;
    }
    reader.finish()
}

/// What the word read next is, after the words before it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Next {
    /// An option, a path or a value of its own.
    Word,
    /// The value of a host option written apart (`-D` then `X=1`).
    ValueOf { option: String, what: &'static str },
    /// The value of a long option of clasp's (`--target` then `cl3.0`), left alone.
    ClaspValue { option: String },
    /// The string of `--build-options`.
    BuildString,
    /// After `--`: for clang, verbatim (and so is every word after it).
    Clang,
}

/// Reads argv, or a list of host option words, one word at a time, as
/// `canonicalize` does: a caller that must say which word an error is at
/// (clasp.toml's `options`) pushes them one by one, each read once.
pub struct Reader<'t> {
    out: Canonical,
    next: Next,
    takes_value: &'t dyn Fn(&str) -> bool,
}

impl<'t> Reader<'t> {
    /// `takes_value` as for `canonicalize`.
    pub fn new(takes_value: &'t dyn Fn(&str) -> bool) -> Reader<'t> {
        Reader { out: Canonical::default(), next: Next::Word, takes_value }
    }

    /// Takes the canonical words and notes read so far (for a caller that
    /// checks them word by word).
    pub fn take(&mut self) -> Canonical {
        std::mem::take(&mut self.out)
    }

    /// The option whose value the next word is (`-I`, read without its directory), if any.
    pub fn awaiting(&self) -> Option<&str> {
        match &self.next {
            Next::ValueOf { option, .. } | Next::ClaspValue { option } => Some(option),
            Next::BuildString => Some(BUILD_OPTIONS),
            Next::Word | Next::Clang => None,
        }
    }

    /// Reads one more word (the value of the one before, if it takes one).
    pub fn push(&mut self, word: String) -> Result<(), BuildOptionsError> {
        match std::mem::replace(&mut self.next, Next::Word) {
            Next::Word => self.word(word),
            Next::ValueOf { option, .. } => {
                self.out.args.push(joined(&option, &word));
                Ok(())
            }
            Next::ClaspValue { .. } => {
                self.out.args.push(word);
                Ok(())
            }
            Next::BuildString => self.build_string(word),
            Next::Clang => {
                self.next = Next::Clang;
                self.out.args.push(format!("--clang-arg={word}"));
                Ok(())
            }
        }
    }

    /// The words read, or why the last one lacks its value.
    pub fn finish(self) -> Result<Canonical, BuildOptionsError> {
        match self.next {
            Next::ValueOf { option, what } => Err(BuildOptionsError::MissingValue { option, what }),
            Next::BuildString => Err(BuildOptionsError::MissingBuildString),
            Next::Word | Next::ClaspValue { .. } | Next::Clang => Ok(self.out),
        }
    }

    /// A word that is no option's value.
    fn word(&mut self, word: String) -> Result<(), BuildOptionsError> {
        if word == "--" {
            self.next = Next::Clang;
        } else if word == BUILD_OPTIONS {
            self.next = Next::BuildString;
        } else if let Some(text) = word.strip_prefix("--build-options=") {
            return self.build_string(text.to_string());
        } else if word.starts_with("--") {
            if !word.contains('=') && (self.takes_value)(&word) {
                self.next = Next::ClaspValue { option: word.clone() };
            }
            self.out.args.push(word);
        } else if let Some(what) = separate_value(&word) {
            self.next = Next::ValueOf { option: word, what };
        } else if !host_option(&word, &mut std::iter::empty(), &mut self.out)? {
            if word.len() > 1 && word.starts_with('-') && !is_clap_short(&word) {
                return Err(BuildOptionsError::UnknownOption { word });
            }
            self.out.args.push(word);
        }
        Ok(())
    }

    /// A `--build-options` string: each of its words a host option.
    fn build_string(&mut self, text: String) -> Result<(), BuildOptionsError> {
        let mut host_words = split_build_string(&text, BUILD_OPTIONS)?.into_iter();
        while let Some(host_word) = host_words.next() {
            if !host_option(&host_word, &mut host_words, &mut self.out)? {
                return Err(BuildOptionsError::UnknownBuildOption { word: host_word, text });
            }
        }
        Ok(())
    }
}

/// Splits a host's option string as a shell would (quotes, backslashes);
/// `from` names where it is written, for the error (`BUILD_OPTIONS`).
pub fn split_build_string(text: &str, from: &'static str) -> Result<Vec<String>, BuildOptionsError> {
    shlex::split(text).ok_or_else(|| BuildOptionsError::Unbalanced { from, text: text.to_string() })
}

/// What a host option written alone takes as its next word (`-D`: NAME[=VALUE]), if it is one that does.
pub fn separate_value(word: &str) -> Option<&'static str> {
    match word {
        "-include" => Some("a file"),
        "-D" => Some("NAME[=VALUE]"),
        "-I" => Some("a directory"),
        "-U" => Some("a macro name"),
        _ => None,
    }
}

/// The canonical form of a host option written apart from its value (`-D`, `X=1`: `-DX=1`).
fn joined(option: &str, value: &str) -> String {
    match option {
        "-include" => format!("--include={value}"),
        "-U" => format!("--clang-arg=-U{value}"),
        _ => format!("{option}{value}"),
    }
}

/// If `word` is a host option, appends its canonical form (taking its
/// value from `rest` when separate) and returns true.
fn host_option(word: &str, rest: &mut dyn Iterator<Item = String>, out: &mut Canonical) -> Result<bool, BuildOptionsError> {
    if let Some(what) = separate_value(word) {
        let value = rest.next().ok_or_else(|| BuildOptionsError::MissingValue { option: word.to_string(), what })?;
        out.args.push(joined(word, &value));
    } else if word.starts_with("-D") || word.starts_with("-I") {
        out.args.push(word.to_string());
    } else if word.starts_with("-U") {
        out.args.push(format!("--clang-arg={word}"));
    } else if let Some(std) = word.strip_prefix("-cl-std=") {
        out.args.push(format!("--std={std}"));
    } else if word.starts_with("-cl-") {
        if CLANG_CL_OPTIONS.contains(&word) || word.starts_with("-cl-ext=") {
            out.args.push(format!("--clang-arg={word}"));
        } else {
            out.notes.push(format!("ignoring build option `{word}`: clang does not accept it"));
        }
    } else if PLAIN_OPTIONS.contains(&word) {
        out.args.push(format!("--clang-arg={word}"));
    } else {
        return Ok(false);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    /// `--target` and `--out-dir` take a value, as in clasp's CLI.
    fn run(text: &str) -> Result<Canonical, String> {
        canonicalize(&words(text), &|long| ["--target", "--out-dir", "--std"].contains(&long)).map_err(|e| e.to_string())
    }

    fn args(text: &str) -> String {
        run(text).unwrap().args.join(" ")
    }

    #[test]
    fn host_spellings_become_canonical() {
        assert_eq!(
            args("clasp migrate -include defs.h -D N=4 -DM -I inc -Iinc2 -UOLD -U SLOW -cl-std=CL1.2 -cl-mad-enable -w -Werror a.cl"),
            "clasp migrate --include=defs.h -DN=4 -DM -Iinc -Iinc2 --clang-arg=-UOLD --clang-arg=-USLOW --std=CL1.2 --clang-arg=-cl-mad-enable --clang-arg=-w --clang-arg=-Werror a.cl"
        );
    }

    #[test]
    fn values_of_clasp_options_are_left_alone() {
        assert_eq!(
            args("clasp migrate --out-dir -w --target cl3.0 --json a.cl"),
            "clasp migrate --out-dir -w --target cl3.0 --json a.cl"
        );
        assert_eq!(args("clasp migrate --out-dir=o -w a.cl"), "clasp migrate --out-dir=o --clang-arg=-w a.cl");
        // clasp's own `-j N` / `-jN` go to clap as they are.
        assert_eq!(args("clasp migrate -j 2 -j1 a.cl"), "clasp migrate -j 2 -j1 a.cl");
        assert!(run("clasp migrate -jx a.cl").is_err());
    }

    #[test]
    fn a_separate_value_may_start_with_a_dash() {
        assert_eq!(args("clasp analyze -D -x -include -f.h a.cl"), "clasp analyze -D-x --include=-f.h a.cl");
    }

    #[test]
    fn vendor_options_are_ignored_with_a_note() {
        let c = run("clasp analyze -cl-nv-verbose -cl-denorms-are-zero -cl-ext=+cl_khr_fp64 a.cl").unwrap();
        assert_eq!(c.args.join(" "), "clasp analyze --clang-arg=-cl-denorms-are-zero --clang-arg=-cl-ext=+cl_khr_fp64 a.cl");
        assert_eq!(c.notes, vec!["ignoring build option `-cl-nv-verbose`: clang does not accept it".to_string()]);
    }

    #[test]
    fn build_options_string_is_split_like_a_shell() {
        let argv: Vec<String> =
            ["clasp", "migrate", "--build-options", "-D MSG='a b' -I \"my dir\" -include x.h -cl-fast-relaxed-math", "a.cl"]
                .map(String::from)
                .to_vec();
        let c = canonicalize(&argv, &|_| false).unwrap();
        assert_eq!(
            c.args,
            ["clasp", "migrate", "-DMSG=a b", "-Imy dir", "--include=x.h", "--clang-arg=-cl-fast-relaxed-math", "a.cl"]
        );
        assert_eq!(args("clasp migrate --build-options=-w a.cl"), "clasp migrate --clang-arg=-w a.cl");
    }

    #[test]
    fn build_options_string_errors() {
        let err = |s: &str| {
            canonicalize(&["clasp", "migrate", "--build-options", s, "a.cl"].map(String::from), &|_| false)
                .unwrap_err()
                .to_string()
        };
        assert!(err("-w -O3").contains("unknown build option `-O3` in --build-options `-w -O3`"), "{}", err("-w -O3"));
        assert!(err("a.cl").contains("unknown build option `a.cl`"));
        assert!(err("-D 'x").contains("unbalanced quotes"));
        assert!(err("-include").contains("`-include` needs a file"));
        assert!(run("clasp migrate --build-options").unwrap_err().contains("needs a string"));
    }

    /// An unbalanced string is named after where it is written.
    #[test]
    fn an_unbalanced_string_names_where_it_is_written() {
        assert_eq!(
            run("clasp migrate --build-options=-D'x a.cl").unwrap_err(),
            "--build-options `-D'x`: unbalanced quotes or a trailing backslash"
        );
        let element = split_build_string("-D 'x", "clasp.toml `options` element").unwrap_err().to_string();
        assert_eq!(element, "clasp.toml `options` element `-D 'x`: unbalanced quotes or a trailing backslash");
    }

    /// Pushed one word at a time, argv reads as `canonicalize` reads it whole,
    /// and the reader says which option waits for its value.
    #[test]
    fn a_reader_reads_word_by_word_as_canonicalize_does() {
        let takes_value = |long: &str| long == "--target";
        let text = "clasp migrate -D X=1 -include defs.h --target -w -cl-nv-verbose --build-options=-UY a.cl -- -fno-builtin -D";
        let whole = canonicalize(&words(text), &takes_value).unwrap();
        let mut reader = Reader::new(&takes_value);
        let mut read = Canonical::default();
        for word in words(text) {
            reader.push(word).unwrap();
            let Canonical { args, notes } = reader.take();
            read.args.extend(args);
            read.notes.extend(notes);
        }
        assert!(reader.finish().unwrap() == Canonical::default());
        assert_eq!((&read.args[..], &read.notes), (&whole.args[..], &whole.notes));
        let mut reader = Reader::new(&takes_value);
        let mut awaiting = Vec::new();
        for word in words("-I inc --target x --build-options") {
            reader.push(word).unwrap();
            awaiting.push(reader.awaiting().map(str::to_string));
        }
        let some = |s: &str| Some(s.to_string());
        assert_eq!(awaiting, [some("-I"), None, some("--target"), None, some("--build-options")]);
        assert_eq!(reader.finish(), Err(BuildOptionsError::MissingBuildString));
    }

    #[test]
    fn everything_after_double_dash_goes_to_clang() {
        assert_eq!(
            args("clasp migrate a.cl -- -fno-builtin -include x.h"),
            "clasp migrate a.cl --clang-arg=-fno-builtin --clang-arg=-include --clang-arg=x.h"
        );
    }

    #[test]
    fn unknown_options_are_errors_naming_double_dash() {
        let e = run("clasp migrate -fno-builtin a.cl").unwrap_err();
        assert!(e.contains("unknown option `-fno-builtin`") && e.contains("-- -fno-builtin"), "{e}");
        assert!(run("clasp migrate a.cl -D").unwrap_err().contains("`-D` needs NAME[=VALUE]"));
        // clasp's own short options and a lone `-` are left to clap.
        assert_eq!(args("clasp -h"), "clasp -h");
        assert_eq!(args("clasp analyze -"), "clasp analyze -");
    }

    #[test]
    fn clang_accepts_every_listed_option() {
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe.cl");
        std::fs::write(&probe, "kernel void k(global int *p) { p[0] = 1; }\n").unwrap();
        let compile = |option: &str| {
            let args = ["-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-fsyntax-only", option].map(String::from);
            crate::front::lower::run_clang(&probe, &args)
        };
        for option in CLANG_CL_OPTIONS.iter().chain(&PLAIN_OPTIONS) {
            compile(option).unwrap_or_else(|e| panic!("clang-19 rejects {option}: {e}"));
        }
        // What the list leaves out is really rejected (and a missing clang fails here too).
        let rejected = compile("-cl-nv-verbose").unwrap_err();
        assert!(rejected.is_rejection() && rejected.to_string().contains("unknown argument"), "{rejected}");
    }
}
