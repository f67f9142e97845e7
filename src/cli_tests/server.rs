//! `clasp server` through its whole lifecycle, spoken to over stdio as an
//! editor does (`lsp_client`): initialize, didOpen of a file with a pair of
//! per-space duplicates and an independent helper, its diagnostics, code
//! actions whose edits are what `clasp migrate --write` (all sets) and
//! `--interactive` (one set) write, didChange, a code action asked of a
//! stale result (answered from a fresh one), shutdown and exit.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::lsp_client::{apply_edits, initialize_params, uri, Client};

/// `fixtures/server/pair.cl` copied into a fresh folder.
pub fn pair_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = std::fs::canonicalize(dir.path()).unwrap();
    let file = dir_path.join("pair.cl");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/pair.cl"), &file).unwrap();
    (dir, file)
}

/// What `clasp migrate` writes for `file` (under `--out-dir`, the original
/// kept), with `args` added and `answers` on stdin (for `--interactive`).
pub fn migrated_by_cli(file: &Path, args: &[&str], answers: &str) -> String {
    use std::io::Write;
    let out = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_clasp"))
        .args(["migrate", "--out-dir"])
        .arg(out.path())
        .args(args)
        .arg(file.file_name().unwrap())
        .current_dir(file.parent().unwrap())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(answers.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(out.path().join(file.file_name().unwrap())).unwrap()
}

/// The text edits of a workspace edit for `uri`, and the version they name.
fn edits_for(edit: &Value, uri: &str) -> (Vec<Value>, Value) {
    let changes = edit["documentChanges"].as_array().expect("versioned documentChanges");
    let change = changes.iter().find(|c| c["textDocument"]["uri"] == uri).expect("an edit of the file");
    (change["edits"].as_array().unwrap().clone(), change["textDocument"]["version"].clone())
}

fn code_actions(client: &mut Client, uri: &str, line: u64) -> Vec<Value> {
    let range = json!({ "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } });
    let params = json!({ "textDocument": { "uri": uri }, "range": range, "context": { "diagnostics": [] } });
    client.call("textDocument/codeAction", params).as_array().cloned().unwrap_or_default()
}

fn find<'a>(actions: &'a [Value], words: &[&str]) -> &'a Value {
    actions
        .iter()
        .find(|a| words.iter().all(|w| a["title"].as_str().unwrap().contains(w)))
        .unwrap_or_else(|| panic!("no action with {words:?} among {actions:#?}"))
}

fn line_of(diagnostics: &[Value], code: &str) -> u64 {
    let found = diagnostics.iter().find(|d| d["code"] == code).unwrap_or_else(|| panic!("no {code} in {diagnostics:#?}"));
    found["range"]["start"]["line"].as_u64().unwrap()
}

fn open(client: &mut Client, dir: &Path, file: &Path, text: &str, options: Value) -> String {
    client.call("initialize", initialize_params(dir, options));
    client.notify("initialized", json!({}));
    let uri = uri(file);
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "opencl", "version": 1, "text": text } }),
    );
    uri
}

#[test]
fn the_server_shows_diagnostics_and_applies_verified_change_sets() {
    let (dir, file) = pair_fixture();
    let text = std::fs::read_to_string(&file).unwrap();
    let mut client = Client::start(dir.path());
    let uri = open(&mut client, dir.path(), &file, &text, json!({ "debounceMs": 50 }));
    let diagnostics = client.diagnostics(&uri, 1);
    let merge = diagnostics.iter().find(|d| d["code"] == "merge-duplicates").expect("the merge's diagnostic");
    assert_eq!(merge["severity"], 3, "information");
    assert!(merge["message"].as_str().unwrap().contains("`total_g`"), "{merge}");
    let param = diagnostics.iter().find(|d| d["code"] == "generic-param").unwrap();
    assert!(param["message"].as_str().unwrap().contains("\n__global from kernel param"), "evidence: {param}");
    let doc = super::lsp_client::path_of(merge["codeDescription"]["href"].as_str().unwrap());
    let (_, rule_page, _) = super::support::clasp(&["rule", "merge-duplicates"]);
    assert_eq!(std::fs::read_to_string(doc).unwrap(), rule_page, "the link is `clasp rule merge-duplicates`");

    // One change set: what --interactive writes with that set alone accepted (the first set asked).
    let actions = code_actions(&mut client, &uri, line_of(&diagnostics, "merge-duplicates"));
    let set = find(&actions, &["merge-duplicates", "verified"]);
    assert_eq!(set["kind"], "quickfix");
    let (edits, version) = edits_for(&set["edit"], &uri);
    assert_eq!(version, 1);
    let one_set = apply_edits(&text, &edits);
    assert_eq!(one_set, migrated_by_cli(&file, &["--interactive", "--allow-dirty"], "y\nn\n"));
    // Every change set: what --write writes.
    let all = find(&actions, &["apply all 2 change sets", "verified"]);
    assert_eq!(all["kind"], "source.fixAll");
    assert_eq!(apply_edits(&text, &edits_for(&all["edit"], &uri).0), migrated_by_cli(&file, &[], ""));
    let keep = find(&actions, &["// clasp: keep"]);
    let kept = apply_edits(&text, &edits_for(&keep["edit"], &uri).0);
    assert!(kept.contains("\n// clasp: keep\nfloat total_g("), "{kept}");

    // The set applied in the editor: fresh diagnostics for version 2, the merge gone, the other set left.
    let change = json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": one_set }] });
    client.notify("textDocument/didChange", change);
    let fresh = client.diagnostics(&uri, 2);
    assert!(fresh.iter().all(|d| d["code"] != "merge-duplicates"), "{fresh:#?}");
    let first_line = line_of(&fresh, "generic-param");
    assert!(one_set.lines().nth(first_line as usize).unwrap().contains("float first("));
    assert_eq!(client.stop(), 0);
}

#[test]
fn a_code_action_asked_of_a_stale_result_answers_from_a_fresh_one() {
    let (dir, file) = pair_fixture();
    let text = std::fs::read_to_string(&file).unwrap();
    let mut client = Client::start(dir.path());
    // A long debounce: only the code action makes the server analyse version 2 now.
    let uri = open(&mut client, dir.path(), &file, &text, json!({ "debounceMs": 600000, "refusals": false }));
    let stale_line = line_of(&client.diagnostics(&uri, 1), "merge-duplicates");
    // A blank line at the top: every line moves down by one.
    let edit = json!({ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "\n" });
    client.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [edit] }));
    let changed = format!("\n{text}");
    let actions = code_actions(&mut client, &uri, stale_line + 1);
    let set = find(&actions, &["merge-duplicates"]);
    let (edits, version) = edits_for(&set["edit"], &uri);
    assert_eq!(version, 2, "the edit is computed for the document as it is now");
    let file_copy = file.with_file_name("moved.cl");
    std::fs::write(&file_copy, &changed).unwrap();
    assert_eq!(apply_edits(&changed, &edits), migrated_by_cli(&file_copy, &["--interactive", "--allow-dirty"], "y\nn\n"));
    assert!(client.notifications.iter().any(|n| n["params"]["version"] == 2), "fresh diagnostics are published too");
    assert_eq!(client.stop(), 0);
}

#[test]
fn an_error_is_placed_in_the_file_and_exit_without_shutdown_is_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::canonicalize(dir.path()).unwrap().join("broken.cl");
    let text = "float first(__global const float *p)\n{\n    return p[0]\n}\n";
    std::fs::write(&file, text).unwrap();
    let mut client = Client::start(dir.path());
    let uri = open(&mut client, dir.path(), &file, text, Value::Null);
    let diagnostics = client.diagnostics(&uri, 1);
    let error = diagnostics.iter().find(|d| d["severity"] == 1).unwrap_or_else(|| panic!("an error in {diagnostics:#?}"));
    assert_eq!(error["range"]["start"]["line"], 2, "{error}");
    assert!(error["message"].as_str().unwrap().contains("expected ';'"), "{error}");
    client.notify("exit", Value::Null);
    assert_eq!(client.exit_code(), 1);
}
