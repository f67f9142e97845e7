//! Host build options in clasp.toml's `options` arrays (and in host code
//! and `--compile-commands` entries): read as `crate::settings::build_options`
//! reads the command line, then added to a job's `CompileOptions`.
//!
//! An `options` array reads as one command line: an option's value may be
//! the next element (`["-I", "include"]`, as hosts and build scripts list
//! them), and each element is split as a shell would (`"-D X=1"`). It is
//! checked word by word, each word read once, so that an error is said of
//! the element it is at (and of the word, with how to quote it when it is
//! the tail of an element that a space split).

use std::path::{Path, PathBuf};

use super::{ConfigError, Located, OptionError, Value};
use crate::settings::build_options::{split_build_string, BuildOptionsError, Canonical, Reader};
use crate::settings::options::{CompileOptions, InputStd};

/// How messages name where a clasp.toml option string is written.
const ELEMENT: &str = "clasp.toml `options` element";

/// Checks one `options` array: the notes of the options it ignores (a
/// vendor `-cl-*`), each at its element, or the error at the element that is wrong.
pub(super) fn check_options(options: &[Value], at: &Located) -> Result<Vec<String>, ConfigError> {
    let no_long_values = |_: &str| false;
    let mut reader = Reader::new(&no_long_values);
    let mut notes = Vec::new();
    // The element of the last word that was no value: an option left without one is said of it.
    let mut opened = None;
    for (i, element) in options.iter().enumerate() {
        let words = split_build_string(element.get_ref(), ELEMENT).map_err(|e| at.error(element, e.to_string()))?;
        // The option of the element before, when this element starts with its value.
        let value_of = reader.awaiting().map(str::to_string);
        for (k, word) in words.iter().enumerate() {
            if reader.awaiting().is_none() {
                opened = Some(i);
            }
            let read = reader.push(word.clone()).map_err(OptionError::from).and_then(|()| checked(reader.take()));
            let said = |e| at.error(element, said_of_word(e, (element.get_ref(), &words), k, value_of.as_deref()));
            notes.extend(read.map_err(said)?.iter().map(|note| at.note(element, note)));
        }
    }
    if let (Err(e), Some(i)) = (reader.finish(), opened) {
        return Err(at.error(&options[i], e.to_string()));
    }
    Ok(notes)
}

/// What the reader made of one word, checked as `apply_words` adds it: its notes.
fn checked(read: Canonical) -> Result<Vec<String>, OptionError> {
    let mut scratch = CompileOptions::default();
    for word in read.args {
        if !add_canonical(&mut scratch, &word, Path::new("."))? {
            return Err(OptionError::Unknown { shown: word });
        }
    }
    Ok(read.notes)
}

/// The error at the `k`th of an element's words. A word after the first
/// that is no option (`world` of `"MSG=hello world"`) was most likely meant
/// as part of the word before it: the message says so, with the element
/// quoted to keep them one word (and, when the element is the value of
/// `value_of`, the element before, both as one element).
fn said_of_word(error: OptionError, (element, words): (&str, &[String]), k: usize, value_of: Option<&str>) -> String {
    let not_an_option =
        matches!(error, OptionError::Unknown { .. } | OptionError::Words(BuildOptionsError::UnknownOption { .. }));
    if k == 0 || !not_an_option {
        return error.to_string();
    }
    let mut joined = words.to_vec();
    let word = joined.remove(k);
    joined[k - 1] = format!("{} {word}", joined[k - 1]);
    let mut suggestions: Vec<String> = quoted_element(&joined).into_iter().collect();
    if let Some(option) = value_of.filter(|_| k == 1) {
        suggestions.extend(quoted_element(&[&[option.to_string()][..], &joined].concat()));
    }
    let quote = match suggestions.is_empty() {
        true => String::new(),
        false => format!("; to keep them one word, quote them: {}", suggestions.join(" or ")),
    };
    let before = &words[k - 1];
    format!("{error}: it is the word after `{before}` in the element `{element}`, which is split as a shell would{quote}")
}

/// `words` as one clasp.toml `options` element, quoted as a shell reads them
/// back, written as a TOML string (`"-D 'MSG=hello world'"`).
fn quoted_element(words: &[String]) -> Option<String> {
    let element = shlex::try_join(words.iter().map(String::as_str)).ok()?;
    Some(format!("`{}`", toml::Value::String(element)))
}

/// Adds one `options` array (`check_options`) to `compile`.
pub(super) fn apply_options<'o>(
    compile: &mut CompileOptions,
    options: impl IntoIterator<Item = &'o Value>,
    dir: &Path,
) -> Result<(), OptionError> {
    let mut words = Vec::new();
    for option in options {
        words.extend(split_build_string(option.get_ref(), ELEMENT)?);
    }
    apply_words(compile, words, dir).map(drop)
}

/// Adds one host option string (`-DX`, `-I dir`, `-include f`, `-cl-std=CL1.2`,
/// `-cl-mad-enable`, `-w`, ...; split as a shell would, `from` naming where
/// it is written) to `compile`: the notes of the options it ignores.
pub fn apply_option(
    compile: &mut CompileOptions,
    option: &str,
    from: &'static str,
    dir: &Path,
) -> Result<Vec<String>, OptionError> {
    apply_words(compile, split_build_string(option, from)?, dir)
}

/// Adds host option words, read as `build_options` reads the command line;
/// relative paths are relative to `dir`. The notes of the options it
/// ignores (a vendor `-cl-*`: `ignoring build option ...`).
pub(crate) fn apply_words(compile: &mut CompileOptions, words: Vec<String>, dir: &Path) -> Result<Vec<String>, OptionError> {
    let shown = words.join(" ");
    let argv: Vec<String> = std::iter::once("clasp".to_string()).chain(words).collect();
    let read = crate::settings::build_options::canonicalize(&argv, &|_| false)?;
    for word in read.args.into_iter().skip(1) {
        if !add_canonical(compile, &word, dir)? {
            return Err(OptionError::Unknown { shown });
        }
    }
    Ok(read.notes)
}

/// Adds one canonical option word (`-DX`, `-Idir`, `--include=f`,
/// `--std=CL1.2`, `--clang-arg=...`) to `compile`; false for any other word.
fn add_canonical(compile: &mut CompileOptions, word: &str, dir: &Path) -> Result<bool, OptionError> {
    if let Some(define) = word.strip_prefix("-D") {
        compile.defines.push(define.to_string());
    } else if let Some(include) = word.strip_prefix("-I") {
        compile.include_dirs.push(dir.join(include));
    } else if let Some(file) = word.strip_prefix("--include=") {
        let in_dir = dir.join(file);
        compile.includes.push(if in_dir.exists() { in_dir } else { PathBuf::from(file) });
    } else if let Some(std) = word.strip_prefix("--std=") {
        compile.std = InputStd::parse(std).map_err(OptionError::Std)?;
    } else if let Some(arg) = word.strip_prefix("--clang-arg=") {
        compile.clang_extra.push(arg.to_string());
    } else {
        return Ok(false);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{config, error_at};
    use super::*;

    /// The defines and clang arguments of a clasp.toml's one job.
    fn compiled(text: &str) -> (Vec<String>, Vec<String>) {
        let c = config(text).unwrap();
        let jobs = c.jobs(&[c.dir.join("k.cl")], &CompileOptions::default()).unwrap();
        (jobs[0].compile.defines.clone(), jobs[0].compile.clang_extra.clone())
    }

    /// The suggestions of a message: the TOML strings between backticks after `quote them:`.
    fn suggestions(message: &str) -> Vec<String> {
        let Some((_, quoted)) = message.split_once("quote them: ") else { return Vec::new() };
        quoted.split(" or ").map(|s| s.trim_matches('`').to_string()).collect()
    }

    #[test]
    fn an_unbalanced_element_is_named_as_a_clasp_toml_element() {
        let (place, message) = error_at("options = [\"-DX\", \"-D 'x\"]\n");
        assert_eq!(place, "1:20");
        assert_eq!(message, "clasp.toml `options` element `-D 'x`: unbalanced quotes or a trailing backslash");
        assert!(error_at("[[configuration]]\nname = 'a'\noptions = ['-DX\\']\n").1.starts_with("clasp.toml `options` element"));
    }

    /// A word that fails after the first of its element (`world` of
    /// `MSG=hello world`): said so, with the element quoted to keep them one word.
    #[test]
    fn the_tail_of_a_split_element_is_said_with_how_to_quote_it() {
        let (place, message) = error_at("options = [\"-D\", \"MSG=hello world\"]\n");
        assert_eq!(place, "1:19");
        assert_eq!(
            message,
            "`world` is not a build option clasp knows (-D, -I, -include, -cl-*, -w, -Werror, -g): it is the word after \
             `MSG=hello` in the element `MSG=hello world`, which is split as a shell would; to keep them one word, quote \
             them: `\"'MSG=hello world'\"` or `\"-D 'MSG=hello world'\"`"
        );
        // Each suggestion, in place of the element (the second also of the `-D` before it), reads as meant.
        let fixes = suggestions(&message);
        assert_eq!(fixes.len(), 2, "{message}");
        assert_eq!(compiled(&format!("options = [\"-D\", {}]\n", fixes[0])).0, ["MSG=hello world"]);
        assert_eq!(compiled(&format!("options = [{}]\n", fixes[1])).0, ["MSG=hello world"]);
        // In one element, with its option; attached; an unknown option after a value.
        for (element, fixed) in [
            (r#""-D MSG=hello world""#, r#""-D 'MSG=hello world'""#),
            (r#"'-DMSG=a b'"#, r#""'-DMSG=a b'""#),
            (r#""-DX=\"a\" -b""#, r#""'-DX=a -b'""#),
        ] {
            let message = error_at(&format!("options = [{element}]\n")).1;
            assert_eq!(suggestions(&message), [fixed], "{message}");
            let fixed = compiled(&format!("options = [{}]\n", &suggestions(&message)[0])).0;
            assert_eq!(fixed.len(), 1, "{fixed:?}");
        }
        // The element as written, its quotes and all.
        let message = error_at(r#"options = ["-DX=\"a b\" -b"]"#).1;
        assert!(message.contains(r#"in the element `-DX="a b" -b`"#), "{message}");
        // A first word that is no option is not the tail of anything; nor is a standard clasp does not read.
        assert!(!error_at("options = [\"-DX\", \"hello world\"]\n").1.contains("quote"));
        assert!(!error_at("options = [\"-DX -cl-std=CL9\"]\n").1.contains("quote"));
    }

    /// The array is one command line, each word read once: `--` and
    /// `--build-options` take what follows, as they do on the command line.
    #[test]
    fn words_are_read_as_the_command_line_reads_them() {
        assert_eq!(compiled("options = [\"-DX\", \"--\", \"-fno-builtin\", \"-DY\"]\n").1, ["-fno-builtin", "-DY"]);
        assert_eq!(compiled("options = [\"--build-options\", \"-DX -D 'Y=a b'\"]\n").0, ["X", "Y=a b"]);
    }

    /// A long array (each element read once: re-reading every word before
    /// each element made 20,000 of them take 36 s): the error is at its last.
    #[test]
    fn an_error_after_thousands_of_elements_is_at_its_own() {
        let elements: Vec<String> = (0..20_000).map(|i| format!("\"-DM{i}\"")).collect();
        let text = format!("options = [{}, \"-fancy\"]\n", elements.join(", "));
        let (place, _) = error_at(&text);
        assert_eq!(place, format!("1:{}", text.find("\"-fancy\"").unwrap() + 2));
    }
}
