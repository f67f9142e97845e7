//! The README is for users and points to `--help` for the rest, so it must
//! stay short, open with what a newcomer needs, and name only options that
//! exist: every `--option` it names is in some command's `--help`, and
//! every option a command defines has help text there (the full reference
//! the README points to).

use crate::support::clasp;

/// The README's limit, in lines.
const MAX_LINES: usize = 600;

/// About one screen: install, a quick start and a project's `-I`/`-D`
/// must all be in it.
const FIRST_SCREEN: usize = 60;

/// Options of other tools that the README shows in their own commands.
const OTHER_TOOLS_OPTIONS: [&str; 4] = [
    "--locked",  // cargo install --locked --path .
    "--path",    // cargo install --locked --path .
    "--no-deps", // cargo doc --no-deps --open
    "--open",    // cargo doc --no-deps --open
];

/// The commands whose `--help` holds the option reference.
const COMMANDS: [&str; 5] = ["migrate", "analyze", "devices", "rule", "run-check"];

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("read README.md")
}

fn long_help(command: &str) -> String {
    let (code, stdout, stderr) = clasp(&[command, "--help"]);
    assert_eq!(code, 0, "clasp {command} --help failed: {stderr}");
    stdout
}

/// Every `--name` in `text`: two dashes not preceded by a word character
/// or a dash, then lower-case letters, digits and dashes.
fn long_options(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 < bytes.len() {
        let starts = bytes[i] == b'-' && bytes[i + 1] == b'-' && bytes[i + 2].is_ascii_lowercase();
        let preceded = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'-' || bytes[i - 1] == b'_');
        if starts && !preceded {
            let end = (i + 2..bytes.len())
                .find(|&j| !(bytes[j].is_ascii_lowercase() || bytes[j].is_ascii_digit() || bytes[j] == b'-'))
                .unwrap_or(bytes.len());
            found.push(text[i..end].trim_end_matches('-').to_string());
            i = end;
        } else {
            i += 1;
        }
    }
    found
}

/// The option entries of a long help's `Options:` (and `Arguments:`)
/// sections, each with the first line of its help text (empty when it has
/// none). An entry starts at column 2 or 6; its help lines at column 10.
fn option_entries(help: &str) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    let mut in_section = false;
    let lines: Vec<&str> = help.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        if line == &"Options:" || line == &"Arguments:" {
            in_section = true;
            continue;
        }
        if !line.is_empty() && !line.starts_with(' ') {
            in_section = false;
        }
        let indent = line.len() - line.trim_start().len();
        if in_section && (indent == 2 || indent == 6) {
            let next = lines.get(n + 1).copied().unwrap_or("");
            let described = next.len() - next.trim_start().len() >= 8 && !next.trim().is_empty();
            entries.push((line.trim().to_string(), if described { next.trim().to_string() } else { String::new() }));
        }
    }
    entries
}

#[test]
fn readme_is_at_most_600_lines() {
    let lines = readme().lines().count();
    assert!(lines <= MAX_LINES, "README.md has {lines} lines, over {MAX_LINES}: move reference material into --help");
}

#[test]
fn readme_first_screen_has_install_quick_start_and_a_projects_options() {
    let text = readme();
    let first: Vec<&str> = text.lines().take(FIRST_SCREEN).collect();
    let first = first.join("\n");
    for needed in ["## Install", "cargo install", "## Quick start", "clasp migrate --check", " -I include", " -DTILE="] {
        assert!(first.contains(needed), "the README's first {FIRST_SCREEN} lines do not show `{needed}`");
    }
}

#[test]
fn every_option_the_readme_names_is_in_a_commands_help() {
    let helps: Vec<String> = COMMANDS.iter().map(|command| long_help(command)).collect();
    let documented: std::collections::BTreeSet<String> = helps.iter().flat_map(|help| long_options(help)).collect();
    let unknown: std::collections::BTreeSet<String> = long_options(&readme())
        .into_iter()
        .filter(|option| !OTHER_TOOLS_OPTIONS.contains(&option.as_str()) && !documented.contains(option))
        .collect();
    assert!(unknown.is_empty(), "the README names options no command's --help has: {unknown:?}");
}

#[test]
fn every_option_of_every_command_has_help_text() {
    for command in COMMANDS {
        let entries = option_entries(&long_help(command));
        assert!(entries.iter().any(|(entry, _)| entry.starts_with("-h, --help")), "no options found in clasp {command} --help");
        let bare: Vec<&String> = entries.iter().filter(|(_, help)| help.is_empty()).map(|(entry, _)| entry).collect();
        assert!(bare.is_empty(), "clasp {command} --help has options without help text: {bare:?}");
        // `-h` lists every option too: each must be in the long help.
        let (_, short, _) = clasp(&[command, "-h"]);
        let long: Vec<&String> = entries.iter().map(|(entry, _)| entry).collect();
        for (entry, _) in option_entries(&short) {
            let name = entry.split_whitespace().next().unwrap_or_default().trim_end_matches(',');
            assert!(
                long.iter().any(|long_entry| long_entry.split_whitespace().any(|word| word.trim_end_matches(',') == name)),
                "clasp {command}: `{name}` is in -h but not in --help"
            );
        }
    }
}

#[test]
fn option_parsing_finds_what_it_must() {
    // The helpers above decide what the tests check: they must see a
    // README option, skip a dash inside a word, and find an option with no help.
    assert_eq!(long_options("run `clasp migrate --check -q x` (not a--b, not --X)"), vec!["--check"]);
    let help = "Options:\n  -q, --quiet\n          No bar\n      --bare\n      --next <N>\n          Next\n\nPATHS\n  -I DIR  not an entry\n";
    let entries = option_entries(help);
    assert_eq!(entries.len(), 3, "{entries:?}");
    assert_eq!(entries[1], ("--bare".to_string(), String::new()));
}
