//! [`options_edit`]: the one file edit that makes a build call's options ask
//! for an OpenCL C standard, keeping every other option.

use std::ops::Range;

use super::literal::encode;
use super::{OptionsArg, PieceForm};

/// The edit (file bytes to replace, replacement) that makes `arg` ask for
/// `std_flag` (e.g. `-cl-std=CL2.0`):
///
/// - a literal gets the flag appended, or its `-cl-std=...` token replaced;
///   one that already has the flag needs no edit (`None`);
/// - `NULL`/`nullptr`/`0`/`None` becomes the flag as a literal;
/// - an absent argument is inserted (`build()` -> `build("-cl-std=CL2.0")`,
///   `build(devices)` -> `build(devices, "-cl-std=CL2.0")`, Python
///   `build()` -> `build(options=["-cl-std=CL2.0"])`);
/// - a Python list gets the flag as a new item, or its `-cl-std=` item replaced;
/// - a traced variable has its initialiser edited;
/// - a building constructor (`cl::Program p(ctx, src, true)`) builds no
///   more, and the statement that stores the program is followed by
///   `p.build("-cl-std=CL2.0");` (`err = p.build(...)` when it reported to
///   `&err`): one edit, from the flag to the statement's end, the bytes
///   between kept; a member initializer's build goes first in the
///   constructor's body.
///
/// `None` for untraced options: clasp cannot tell what they hold.
pub fn options_edit(arg: &OptionsArg, std_flag: &str) -> Option<(Range<u32>, String)> {
    match arg {
        OptionsArg::Literal { range, value, python } => {
            let value = with_std(value, std_flag)?;
            Some((range.clone(), quoted(&value, *python)))
        }
        OptionsArg::Null { range } => Some((range.clone(), quoted(std_flag, false))),
        OptionsArg::Absent { insert_at, needs_comma, python } => {
            let comma = if *needs_comma { ", " } else { "" };
            let value = match python {
                true => format!("{comma}options=[{}]", quoted(std_flag, true)),
                false => format!("{comma}{}", quoted(std_flag, false)),
            };
            Some((*insert_at..*insert_at, value))
        }
        OptionsArg::PythonList { values, insert_at, needs_comma, .. } => {
            let existing = values.iter().find(|v| std_token(&v.value).is_some());
            if let Some(item) = existing {
                let value = with_std(&item.value, std_flag)?;
                return Some((item.range.clone(), quoted(&value, true)));
            }
            let comma = if *needs_comma { ", " } else { "" };
            Some((*insert_at..*insert_at, format!("{comma}{}", quoted(std_flag, true))))
        }
        OptionsArg::Variable { init, .. } => options_edit(init, std_flag),
        OptionsArg::BuildFlag { flag, end, rest, program, error, indent, close } => {
            // From the flag to the end of the declaration: `true, &err);` ->
            // `false, &err);\n    err = program.build("-cl-std=CL2.0");`.
            let assign = error.as_ref().map(|e| format!("{e} = ")).unwrap_or_default();
            let build = format!("\n{indent}{assign}{program}.build({});", quoted(std_flag, false));
            Some((flag.start..*end, format!("false{rest}{build}{close}")))
        }
        OptionsArg::Untraced { .. } => None,
    }
}

/// The options string asking for `std_flag`; `None` if it already does.
fn with_std(value: &str, std_flag: &str) -> Option<String> {
    match std_token(value) {
        Some(token) if &value[token.clone()] == std_flag => None,
        // A newer standard than the one asked for (`-cl-std=CL3.0` when 2.0 is asked) stays: the user chose it.
        Some(token) if version(&value[token.clone()]) > version(std_flag) => None,
        Some(token) => Some(format!("{}{std_flag}{}", &value[..token.start], &value[token.end..])),
        None if value.trim().is_empty() => Some(std_flag.to_string()),
        None if value.ends_with(char::is_whitespace) => Some(format!("{value}{std_flag}")),
        None => Some(format!("{value} {std_flag}")),
    }
}

/// The version a `-cl-std=CLx.y` option asks for, as (x, y); (0, 0) if it names none.
fn version(flag: &str) -> (u32, u32) {
    let number = flag.trim_start_matches("-cl-std=").trim_start_matches("CL").trim_start_matches("cl");
    let mut parts = number.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// The byte range of the (last) whitespace-separated `-cl-std=` token, the
/// one the compiler obeys.
fn std_token(value: &str) -> Option<Range<usize>> {
    let mut found = None;
    let mut start = None;
    for (i, c) in value.char_indices().chain([(value.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                if value[s..i].starts_with("-cl-std=") {
                    found = Some(s..i);
                }
                start = None;
            }
            _ => {}
        }
    }
    found
}

/// A fresh double-quoted literal of `value`.
fn quoted(value: &str, python: bool) -> String {
    let form = if python { PieceForm::PythonEscaped { quote: b'"', triple: false } } else { PieceForm::CEscaped };
    format!("\"{}\"", encode(form, value))
}
