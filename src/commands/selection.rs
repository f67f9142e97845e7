//! `--select` and `--ignore` (and clasp.toml's `select` and `ignore`): the
//! rules left out of a migration, each with why, for the planner to pin
//! their declarations as `suppressed`. The command line's lists win over
//! clasp.toml's `select`; ignored rules add up.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::Stop;
use crate::codes::Code;

/// The rules that can be selected or ignored: those that change one declaration, and merges.
const SELECTABLE: [Code; 5] =
    [Code::GenericParam, Code::GenericLocal, Code::GenericReturn, Code::ArrayParamToPointer, Code::MergeDuplicates];

/// The rules left out, each with why (`--ignore generic-local`, `not selected (--select ...)`).
pub fn left_out(
    select: &[String],
    ignore: &[String],
    config: Option<&(PathBuf, Vec<String>, Vec<String>)>,
) -> Result<BTreeMap<Code, String>, Stop> {
    let mut out = BTreeMap::new();
    let (origin, selected) = match config {
        Some((path, from_config, _)) if select.is_empty() && !from_config.is_empty() => {
            (format!("`select` in {}", path.display()), from_config.as_slice())
        }
        _ => ("--select".to_string(), select),
    };
    if !selected.is_empty() {
        let chosen = codes(selected, &origin)?;
        let shown = chosen.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(",");
        let selection =
            if config.is_some() && select.is_empty() { format!("{origin}: {shown}") } else { format!("{origin} {shown}") };
        for rule in SELECTABLE.iter().filter(|r| !chosen.contains(r)) {
            out.insert(*rule, format!("{rule} is not selected ({selection})"));
        }
    }
    for rule in codes(ignore, "--ignore")? {
        out.insert(rule, format!("{rule} is ignored (--ignore {rule})"));
    }
    if let Some((path, _, ignored)) = config {
        for rule in codes(ignored, &format!("`ignore` in {}", path.display()))? {
            out.insert(rule, format!("{rule} is ignored (`ignore` in {})", path.display()));
        }
    }
    Ok(out)
}

/// The rule codes of a list, or the error naming the one that is not selectable.
fn codes(list: &[String], origin: &str) -> Result<Vec<Code>, Stop> {
    list.iter()
        .map(|text| {
            let code =
                Code::parse(text.trim()).map_err(|e| Stop::clasp(format!("{origin}: {e}; `clasp rule` lists every code")))?;
            if SELECTABLE.contains(&code) {
                Ok(code)
            } else {
                let names = SELECTABLE.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
                Err(Stop::clasp(format!("{origin}: `{code}` cannot be selected or ignored; these rules can: {names}")))
            }
        })
        .collect()
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
        assert_eq!(rules, SELECTABLE);
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
        assert!(left_out(&strings(&["builtin-pin"]), &[], None).is_err());
        assert!(left_out(&[], &strings(&["constant-to-global"]), None).is_err());
        assert!(left_out(&[], &strings(&["no-such-rule"]), None).is_err());
    }
}
