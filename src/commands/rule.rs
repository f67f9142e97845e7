//! `clasp rule [CODE]`: the registry's documentation of a code (what it
//! does, why, an example, when it applies, what to do), or every code with
//! its summary; as text or JSON. Also the hint for `--explain CODE`, which
//! takes a code for a path.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::Stop;
use crate::cli::args::{RuleArgs, RuleFormat};
use crate::codes::{Code, Kind};
use crate::rules::registry;
use crate::support::exit::EXIT_OK;

/// A code's documentation as JSON.
#[derive(Serialize)]
struct RuleDoc {
    code: Code,
    kind: Kind,
    summary: &'static str,
    what: &'static str,
    why: &'static str,
    example: &'static str,
    refuses: &'static str,
    safety: &'static str,
}

impl RuleDoc {
    fn of(code: Code) -> RuleDoc {
        let doc = registry::doc(code);
        RuleDoc {
            code,
            kind: code.kind(),
            summary: doc.summary,
            what: doc.what,
            why: doc.why,
            example: doc.example,
            refuses: doc.refuses,
            safety: doc.safety,
        }
    }
}

/// Runs `clasp rule` and returns its exit code.
pub fn run(args: &RuleArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    super::exit_code(print_rules(args, stdout), Default::default(), stderr)
}

fn print_rules(args: &RuleArgs, stdout: &mut dyn Write) -> Result<i32, Stop> {
    let json = args.format == Some(RuleFormat::Json);
    let text = match &args.code {
        Some(code) => {
            let code = Code::parse(code).map_err(|e| Stop::clasp(format!("{e}; `clasp rule` lists every code")))?;
            if json {
                serde_json::to_string_pretty(&RuleDoc::of(code)).unwrap() + "\n"
            } else {
                document(code)
            }
        }
        None if json => {
            serde_json::to_string_pretty(&Code::ALL.iter().map(|c| RuleDoc::of(*c)).collect::<Vec<_>>()).unwrap() + "\n"
        }
        None => listing(),
    };
    let _ = stdout.write_all(text.as_bytes());
    Ok(EXIT_OK)
}

/// Every code, a line each: the rules, the reasons, then the lints, with their summaries.
fn listing() -> String {
    let width = Code::ALL.iter().map(|c| c.as_str().len()).max().unwrap_or(0);
    let mut out = String::new();
    let kinds = [
        (Kind::Rule, "Rules (the changes clasp makes):"),
        (Kind::Reason, "Reasons (why something stays):"),
        (Kind::Lint, "Lints (notes about a kept result):"),
    ];
    for (kind, title) in kinds {
        out.push_str(title);
        out.push('\n');
        for code in Code::ALL.iter().filter(|c| c.kind() == kind) {
            out.push_str(&format!("  {:<width$}  {}\n", code.as_str(), registry::doc(*code).summary));
        }
        out.push('\n');
    }
    out.push_str("`clasp rule CODE` shows a code's documentation.\n");
    out
}

/// One code's documentation under its headings (worded for a rule, or a reason or lint).
pub fn document(code: Code) -> String {
    let doc = registry::doc(code);
    let kind = match code.kind() {
        Kind::Rule => "rule",
        Kind::Reason => "reason",
        Kind::Lint => "lint",
    };
    let mut out = format!("{code} ({kind})\n\n{}\n", doc.summary);
    for (heading, text) in doc.sections(code.kind()) {
        let text = if heading == "Example" { indented(text) } else { format!("{text}\n") };
        out.push_str(&format!("\n{heading}\n{text}"));
    }
    out
}

/// An example's lines indented as code, blank lines left empty.
fn indented(example: &str) -> String {
    example.lines().map(|l| if l.is_empty() { "\n".to_string() } else { format!("    {l}\n") }).collect()
}

/// `clasp migrate --explain builtin-pin`: `--explain` takes no value, so the
/// code was read as a PATH. When a path is exactly a known code and no such
/// file exists, say where its documentation is instead of "no such file".
pub fn code_given_as_path(paths: &[PathBuf]) -> Result<(), Stop> {
    for path in paths {
        let Some(text) = path.to_str() else { continue };
        if let (Ok(code), false) = (Code::parse(text), path.exists()) {
            return Err(Stop::clasp(format!(
                "`{code}` is a code, not a path: `clasp rule {code}` explains it (`--explain` takes no value: it explains every change of the run)"
            )));
        }
    }
    Ok(())
}
