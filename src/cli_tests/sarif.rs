//! `--format sarif` against the SARIF 2.1.0 structure: every object clasp
//! emits with its required properties and only names the standard defines
//! (`fixtures/sarif/sarif-2.1.0-subset.schema.json`, written for these
//! tests from the standard: the OASIS schema file is not vendored, its
//! repository's terms being the OASIS IPR policy rather than an
//! open-source licence), plus columns, real error places and rule texts.

use serde_json::Value;

use crate::support::clasp;

fn schema() -> jsonschema::Validator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sarif/sarif-2.1.0-subset.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("a valid JSON Schema")
}

/// The SARIF log of `clasp migrate --format sarif ARGS`, checked against the schema.
fn valid_log(args: &[&str], expected_code: i32) -> Value {
    let (code, stdout, stderr) = clasp(&[&["migrate", "-q", "--format", "sarif"][..], args].concat());
    assert_eq!(code, expected_code, "{stderr}");
    let log: Value = serde_json::from_str(&stdout).expect("JSON");
    let validator = schema();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "not SARIF 2.1.0:\n{}", errors.join("\n"));
    log
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

fn region(result: &Value) -> (u64, u64) {
    let region = &result["locations"][0]["physicalLocation"]["region"];
    (region["startLine"].as_u64().unwrap(), region["startColumn"].as_u64().unwrap())
}

#[test]
fn the_schema_catches_what_it_should() {
    // The test is only as good as the schema: a misspelt property and a column of 0 fail it.
    let validator = schema();
    let good = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": { "name": "clasp" } }, "results": [] }] });
    assert!(validator.is_valid(&good));
    let mut misspelt = good.clone();
    misspelt["runs"][0]["results"] = serde_json::json!([{ "message": { "text": "m" }, "ruleid": "x" }]);
    assert!(!validator.is_valid(&misspelt));
    let mut column_zero = good;
    column_zero["runs"][0]["results"] = serde_json::json!([{ "message": { "text": "m" }, "locations": [
        { "physicalLocation": { "artifactLocation": { "uri": "a.cl" }, "region": { "startLine": 1, "startColumn": 0 } } }
    ] }]);
    assert!(!validator.is_valid(&column_zero));
}

#[test]
fn fixes_merges_host_edits_and_refusals_are_valid_sarif_with_columns() {
    let log = valid_log(&["fixtures/demo"], 0);
    let row = results(&log).iter().find(|r| r["message"]["text"].as_str().unwrap().starts_with("`row` of `row3`")).unwrap();
    assert_eq!(row["ruleId"], "generic-param");
    assert_eq!(region(row), (6, 34));
    let refused = results(&log).iter().find(|r| r["ruleId"] == "refused/builtin-pin").unwrap();
    // `void count_local(volatile __local uint *hist, ...`: `hist` at column 41.
    assert_eq!(region(refused), (11, 41));
    assert!(results(&log).iter().any(|r| r["ruleId"] == "merge-duplicates"));
    assert!(results(&log).iter().any(|r| r["ruleId"] == "host-build-options"));
}

#[test]
fn rules_carry_descriptions_and_help_from_the_registry() {
    let log = valid_log(&["fixtures/demo"], 0);
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    for rule in rules {
        for field in ["shortDescription", "fullDescription", "help"] {
            assert!(rule[field]["text"].as_str().is_some_and(|t| !t.is_empty()), "{field} of {rule}");
        }
    }
    let pin = rules.iter().find(|r| r["id"] == "refused/builtin-pin").unwrap();
    assert_eq!(pin["shortDescription"]["text"], clasp::rules::registry::doc(clasp::codes::Code::BuiltinPin).summary);
    assert!(pin["help"]["text"].as_str().unwrap().contains("`clasp rule builtin-pin`"));
}

#[test]
fn errors_are_at_their_real_place() {
    let log = valid_log(&["fixtures/migrate/syntax_error.cl", "fixtures/migrate/repair_unknown_flow.cl"], 2);
    let errors: Vec<&Value> = results(&log).iter().filter(|r| r["ruleId"] == "error").collect();
    let places: Vec<(String, (u64, u64))> = errors
        .iter()
        .map(|e| (e["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap().to_string(), region(e)))
        .collect();
    assert!(places.contains(&("fixtures/migrate/syntax_error.cl".to_string(), (8, 21))), "{places:?}");
    assert!(places.contains(&("fixtures/migrate/repair_unknown_flow.cl".to_string(), (22, 38))), "{places:?}");
    assert!(errors.iter().all(|e| !e["message"]["text"].as_str().unwrap().contains(": error: ")), "{errors:?}");
}

#[test]
fn warnings_and_withdrawals_are_valid_sarif() {
    let log = valid_log(&["--test-ignore-pin", "builtin-pin", "fixtures/migrate/verify_compile_failure.cl"], 0);
    assert!(results(&log).iter().any(|r| r["level"] == "warning"), "{log}");
    // The withdrawn function is a result of its own, at its definition.
    let withdrawn = results(&log).iter().find(|r| r["ruleId"] == "refused/verify-failed").expect("a withdrawal");
    assert!(withdrawn["message"]["text"].as_str().unwrap().contains("stays: "), "{withdrawn}");
    assert_eq!(withdrawn["level"], "note");
}

#[test]
fn a_macro_argument_several_parameters_share_is_one_replacement_and_every_parameter_a_result() {
    // `DEFINE_DOT(dot_device, __global)` writes the space of both its parameters.
    let log = valid_log(&["fixtures/migrate/macro_argument.cl"], 0);
    let dot: Vec<&Value> = results(&log)
        .iter()
        .filter(|r| r["ruleId"] == "generic-param" && r["message"]["text"].as_str().unwrap().contains("of `dot_device`"))
        .collect();
    assert_eq!(dot.len(), 2, "{dot:?}");
    let replacements: Vec<&Value> = dot
        .iter()
        .flat_map(|r| r["fixes"].as_array().into_iter().flatten())
        .flat_map(|f| f["artifactChanges"][0]["replacements"].as_array().unwrap())
        .collect();
    assert_eq!(replacements.len(), 1, "{replacements:?}");
}
