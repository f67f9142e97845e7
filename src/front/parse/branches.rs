//! The branches of `#if`-skipped text, each with the condition that would
//! enable it: what configuration discovery chooses a `-D` from.
//!
//! Clang reports one skipped range for a run of skipped branches (`#if A`
//! ... `#elif B` ... `#endif`, both false) and a range that starts at the
//! `#elif` or `#else` of a chain whose `#if` branch was taken. So a branch's
//! condition is its own test and the negation of every test before it in
//! its chain, those written before the range included: `#elif B` reads
//! `!(A) && (B)`, `#else` reads `!(A) && !(B)`. Conditions are tokens as a
//! condition reads them (`#ifdef X` is `defined X`), comments left out.

use super::libclang::{RawToken, TokenKind};
use crate::facts::syntax::SkippedBranch;

/// One conditional directive: its keyword, what it tests, where it starts.
#[derive(Debug, Clone)]
pub(super) struct Directive {
    keyword: String,
    test: Vec<String>,
    offset: u32,
    line: u32,
}

/// The conditional directives and `#define`s among `tokens` (a directive's `#` begins its line).
pub(super) fn directives(tokens: &[RawToken]) -> Vec<Directive> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let line_start = i == 0 || tokens[i - 1].start.line != t.start.line;
        if !line_start || t.text != "#" {
            continue;
        }
        let Some(keyword) = tokens.get(i + 1).map(|k| k.text.clone()) else { continue };
        if !matches!(keyword.as_str(), "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif" | "define") {
            continue;
        }
        let rest = tokens[i + 2..]
            .iter()
            .take_while(|r| r.start.line == t.start.line)
            .filter(|r| r.kind != TokenKind::Comment)
            .map(|r| r.text.clone());
        let test = match keyword.as_str() {
            "ifdef" => ["defined".to_string()].into_iter().chain(rest.take(1)).collect(),
            // The name defined.
            "define" => rest.take(1).collect(),
            "ifndef" => ["!".to_string(), "defined".to_string()].into_iter().chain(rest.take(1)).collect(),
            "if" | "elif" => rest.collect(),
            _ => Vec::new(),
        };
        out.push(Directive { keyword, test, offset: t.start.offset, line: t.start.line });
    }
    out
}

/// The tests written before the directive at `offset` in its own chain
/// (`#if A` ... `#elif B` before an `#else` at `offset`: A, B), read from
/// `before`, the file's directives up to it.
pub(super) fn earlier_tests(before: &[Directive], offset: u32) -> Vec<Vec<String>> {
    let mut tests = Vec::new();
    let mut depth = 0usize;
    for d in before.iter().rev().filter(|d| d.offset < offset) {
        match d.keyword.as_str() {
            "endif" => depth += 1,
            "if" | "ifdef" | "ifndef" if depth > 0 => depth -= 1,
            "if" | "ifdef" | "ifndef" => {
                tests.push(d.test.clone());
                break;
            }
            "elif" if depth == 0 => tests.push(d.test.clone()),
            _ => {}
        }
    }
    tests.reverse();
    tests
}

/// The branches of one skipped range (its directives, `within`, first the
/// one opening it; `earlier`, the tests before it in its chain), and the
/// macros each `#define`s outside blocks nested in it.
pub(super) fn branches(tokens: &[RawToken], within: &[Directive], earlier: Vec<Vec<String>>) -> Vec<SkippedBranch> {
    let mut out: Vec<SkippedBranch> = Vec::new();
    let mut before = earlier;
    let mut depth = 0usize;
    let open_branch = |d: &Directive, before: &mut Vec<Vec<String>>, out: &mut Vec<SkippedBranch>| {
        let mut condition = Vec::new();
        for test in before.iter() {
            condition.extend(["!".to_string(), "(".to_string()]);
            condition.extend(test.iter().cloned());
            condition.extend([")".to_string(), "&&".to_string()]);
        }
        if d.keyword == "else" {
            condition.pop();
        } else {
            condition.push("(".to_string());
            condition.extend(d.test.iter().cloned());
            condition.push(")".to_string());
            before.push(d.test.clone());
        }
        out.push(SkippedBranch { condition, defines: Vec::new() });
    };
    // The range runs to the directive that ends the skipping: an `#elif`
    // the build takes is its last line, and opens no skipped branch.
    let last_line = tokens.last().map(|t| t.start.line);
    for (k, d) in within.iter().enumerate() {
        match d.keyword.as_str() {
            _ if k == 0 => open_branch(d, &mut before, &mut out),
            _ if Some(d.line) == last_line => break,
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" if depth == 0 => break,
            "endif" => depth -= 1,
            "elif" | "else" if depth == 0 => open_branch(d, &mut before, &mut out),
            "define" if depth == 0 => {
                if let Some(branch) = out.last_mut() {
                    branch.defines.extend(d.test.iter().cloned());
                }
            }
            _ => {}
        }
    }
    out
}
