//! `--select` and `--ignore` (and clasp.toml's `select` and `ignore`): the
//! rules left out of a migration, each with why, for the planner to pin
//! their declarations as `suppressed`. The command line's lists win over
//! clasp.toml's `select`; ignored rules add up. Which rules can be chosen is
//! the code table's (`Code::selectable`: the rules of scope `Declaration`
//! or `Batch`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Stop;
use crate::codes::Code;

/// Where a list of codes comes from, for reasons and errors.
enum Origin<'a> {
    /// `--select` or `--ignore`.
    Flag(&'static str),
    /// `select` or `ignore` in a clasp.toml.
    Config(&'a Path, &'static str),
}

impl Origin<'_> {
    /// How a reason names it: `--select generic-param`, `` `select` in clasp.toml: generic-param ``.
    fn with(&self, codes: &str) -> String {
        match self {
            Origin::Flag(flag) => format!("{flag} {codes}"),
            Origin::Config(path, key) => format!("`{key}` in {}: {codes}", path.display()),
        }
    }

    /// An error in the list: clasp's own for a flag, at the file for clasp.toml.
    fn error(&self, message: String) -> Stop {
        match self {
            Origin::Flag(flag) => Stop::clasp(format!("{flag}: {message}")),
            Origin::Config(path, key) => Stop(format!("{}:1:1: error: `{key}`: {message}", path.display())),
        }
    }
}

/// The rules left out, each with why (`--ignore generic-local`, `not selected (--select ...)`).
pub fn left_out(
    select: &[String],
    ignore: &[String],
    config: Option<&(PathBuf, Vec<String>, Vec<String>)>,
) -> Result<BTreeMap<Code, String>, Stop> {
    let mut out = BTreeMap::new();
    let (origin, selected) = match config {
        Some((path, from_config, _)) if select.is_empty() && !from_config.is_empty() => {
            (Origin::Config(path, "select"), from_config.as_slice())
        }
        _ => (Origin::Flag("--select"), select),
    };
    if !selected.is_empty() {
        let chosen = codes(selected, &origin)?;
        let shown = chosen.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(",");
        for rule in Code::selectable().filter(|r| !chosen.contains(r)) {
            out.insert(rule, format!("{rule} is not selected ({})", origin.with(&shown)));
        }
    }
    for rule in codes(ignore, &Origin::Flag("--ignore"))? {
        out.insert(rule, format!("{rule} is ignored (--ignore {rule})"));
    }
    if let Some((path, _, ignored)) = config {
        for rule in codes(ignored, &Origin::Config(path, "ignore"))? {
            out.insert(rule, format!("{rule} is ignored (`ignore` in {})", path.display()));
        }
    }
    Ok(out)
}

/// The rule codes of a list, or the error naming the one that is not selectable.
fn codes(list: &[String], origin: &Origin) -> Result<Vec<Code>, Stop> {
    list.iter().map(|text| Code::parse_selectable(text).map_err(|message| origin.error(message))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn select_leaves_the_other_rules_out_and_ignore_adds_up() {
        let out = left_out(&strings(&["generic-param"]), &strings(&["generic-param"]), None).unwrap();
        let rules: Vec<Code> = out.keys().copied().collect();
        assert_eq!(rules, Code::selectable().collect::<Vec<_>>());
        assert_eq!(out[&Code::GenericParam], "generic-param is ignored (--ignore generic-param)");
        assert_eq!(out[&Code::GenericLocal], "generic-local is not selected (--select generic-param)");
        let config = (PathBuf::from("clasp.toml"), strings(&["generic-local"]), strings(&["merge-duplicates"]));
        let out = left_out(&[], &[], Some(&config)).unwrap();
        assert!(!out.contains_key(&Code::GenericLocal) && out.contains_key(&Code::GenericParam));
        assert_eq!(out[&Code::MergeDuplicates], "merge-duplicates is ignored (`ignore` in clasp.toml)");
        // The command line's --select wins over clasp.toml's.
        assert!(!left_out(&strings(&["generic-param"]), &[], Some(&config)).unwrap().contains_key(&Code::GenericParam));
    }

    #[test]
    fn only_selectable_rules_are_taken() {
        let config = (PathBuf::from("clasp.toml"), Vec::new(), strings(&["builtin-pin"]));
        let Err(Stop(message)) = left_out(&[], &[], Some(&config)) else { panic!("builtin-pin is no rule") };
        assert!(message.starts_with("clasp.toml:1:1: error: `ignore`: `builtin-pin` cannot be selected"), "{message}");
        assert!(left_out(&strings(&["builtin-pin"]), &[], None).is_err());
        assert!(left_out(&[], &strings(&["constant-to-global"]), None).is_err());
        assert!(left_out(&[], &strings(&["no-such-rule"]), None).is_err());
    }
}
