//! `clasp server` and the files around the open one: an open header's
//! unsaved text is what every stage of the analysis reads (the parse, the
//! facts, the edits and their check), as `clasp migrate` reads the same
//! text saved; and a session leaves no file behind in the temporary directory.

use std::path::Path;

use serde_json::{json, Value};

use super::lsp_client::{apply_edits, initialize_params, uri, Client};

const MAIN: &str = "#include \"util.h\"\nfloat twice(__global const float *p) { return 2.0f * get0(p); }\n__kernel void k(__global const float *in, __global float *out) { out[0] = twice(in); }\n";
const PLAIN_HEADER: &str = "float get0(__global const float *p) { return p[0]; }\n";
/// `sizeof(p)` observes the pointer's own size: `p` must stay named, and so must `twice`'s.
const SIZEOF_HEADER: &str = "float get0(__global const float *p) { return p[0] + (float)sizeof(p); }\n";

fn open_document(client: &mut Client, file: &Path, text: &str) -> String {
    let uri = uri(file);
    let item = json!({ "uri": uri, "languageId": "opencl", "version": 1, "text": text });
    client.notify("textDocument/didOpen", json!({ "textDocument": item }));
    uri
}

/// `(line, code)` of each of `main.cl`'s diagnostics, 1-based as the command line says them.
fn server_findings(diagnostics: &[Value]) -> Vec<(u64, String)> {
    let mut found: Vec<(u64, String)> = diagnostics
        .iter()
        .filter_map(|d| Some((d["range"]["start"]["line"].as_u64()? + 1, d["code"].as_str()?.to_string())))
        .collect();
    found.sort();
    found
}

/// `(line, code)` of each of `main.cl`'s findings that `clasp migrate --explain` prints for `dir`.
fn cli_findings(dir: &Path) -> Vec<(u64, String)> {
    let (_, _, stderr) = super::support::clasp_env(dir, &["migrate", "--no-cache", "--explain", "main.cl"], &[("NO_COLOR", "1")]);
    let mut found: Vec<(u64, String)> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("main.cl:"))
        .filter_map(|rest| {
            let (line, rest) = rest.split_once(':')?;
            let words = rest.split_once(": ")?.1;
            let code = words.split_whitespace().nth(1)?.trim_end_matches(':');
            Some((line.parse().ok()?, code.to_string()))
        })
        .collect();
    found.sort();
    found
}

/// A project of `main.cl` and `util.h` (`header` on disk), a server on it
/// with `util.h` open as `unsaved` and `main.cl` open: `main.cl`'s diagnostics.
fn serve_with_header(dir: &Path, header: &str, unsaved: &str) -> (Client, String, Vec<Value>) {
    std::fs::write(dir.join("main.cl"), MAIN).unwrap();
    std::fs::write(dir.join("util.h"), header).unwrap();
    let mut client = Client::start(dir);
    client.call("initialize", initialize_params(dir, json!({ "debounceMs": 50 })));
    client.notify("initialized", json!({}));
    open_document(&mut client, &dir.join("util.h"), unsaved);
    let main_uri = open_document(&mut client, &dir.join("main.cl"), MAIN);
    let diagnostics = client.diagnostics(&main_uri, 1);
    (client, main_uri, diagnostics)
}

#[test]
fn an_open_header_s_unsaved_text_refuses_as_the_command_line_does_on_it_saved() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    // Saved: a plain helper (both would become generic); unsaved: a line above and `sizeof(p)`.
    let unsaved = format!("// edited\n{SIZEOF_HEADER}");
    let (mut client, main_uri, diagnostics) = serve_with_header(&dir, PLAIN_HEADER, &unsaved);
    let range = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 3, "character": 0 } });
    let params = json!({ "textDocument": { "uri": main_uri }, "range": range, "context": { "diagnostics": [] } });
    let actions = client.call("textDocument/codeAction", params);
    assert_eq!(client.stop(), 0);
    let sets: Vec<&Value> =
        actions.as_array().into_iter().flatten().filter(|a| a["title"].as_str().unwrap().contains("change set")).collect();
    assert!(sets.is_empty(), "nothing to apply: {sets:#?}");

    let saved = tempfile::tempdir().unwrap();
    std::fs::write(saved.path().join("main.cl"), MAIN).unwrap();
    std::fs::write(saved.path().join("util.h"), &unsaved).unwrap();
    let cli = cli_findings(saved.path());
    assert!(cli.iter().any(|(_, code)| code == "flows-to-pinned"), "{cli:?}");
    assert_eq!(server_findings(&diagnostics), cli, "{diagnostics:#?}");
}

#[test]
fn an_open_header_s_unsaved_text_is_edited_as_the_command_line_edits_it_saved() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    // Saved: `sizeof(p)` (nothing would change); unsaved: a line above, and no `sizeof`.
    let unsaved = format!("// edited\n{PLAIN_HEADER}");
    let (mut client, main_uri, diagnostics) = serve_with_header(&dir, SIZEOF_HEADER, &unsaved);
    let line = diagnostics.iter().find(|d| d["code"] == "generic-param").unwrap_or_else(|| panic!("{diagnostics:#?}"))["range"]
        ["start"]["line"]
        .clone();
    let range = json!({ "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } });
    let params = json!({ "textDocument": { "uri": main_uri }, "range": range, "context": { "diagnostics": [] } });
    let actions = client.call("textDocument/codeAction", params);
    assert_eq!(client.stop(), 0);
    let all = actions
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["title"].as_str().unwrap().contains("apply all") && a["title"].as_str().unwrap().contains("verified"))
        .unwrap_or_else(|| panic!("a verified action applying every set: {actions:#?}"));
    let edited = |name: &str, text: &str| {
        let changes = all["edit"]["documentChanges"].as_array().unwrap();
        let change = changes.iter().find(|c| c["textDocument"]["uri"] == uri(&dir.join(name)));
        change.map_or(text.to_string(), |c| apply_edits(text, c["edits"].as_array().unwrap()))
    };

    // `clasp migrate --write` on the same texts saved.
    let saved = tempfile::tempdir().unwrap();
    std::fs::write(saved.path().join("main.cl"), MAIN).unwrap();
    std::fs::write(saved.path().join("util.h"), &unsaved).unwrap();
    let (code, _, stderr) = super::support::clasp_in(saved.path(), &["migrate", "--no-cache", "--write", "main.cl"]);
    assert_eq!(code, 0, "{stderr}");
    let written_header = std::fs::read_to_string(saved.path().join("util.h")).unwrap();
    assert_ne!(written_header, unsaved, "the header changes");
    assert_eq!(edited("util.h", &unsaved), written_header);
    assert_eq!(edited("main.cl", MAIN), std::fs::read_to_string(saved.path().join("main.cl")).unwrap());
}

#[test]
fn sessions_leave_nothing_in_the_temporary_directory() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    let temporary = dir.join("tmp");
    std::fs::create_dir(&temporary).unwrap();
    let file = dir.join("k.cl");
    std::fs::write(&file, MAIN.replace("#include \"util.h\"\n", PLAIN_HEADER)).unwrap();
    for _ in 0..5 {
        let mut client = Client::start_with(&dir, &[("TMPDIR", &temporary)]);
        client.call("initialize", initialize_params(&dir, json!({ "debounceMs": 50 })));
        client.notify("initialized", json!({}));
        let text = std::fs::read_to_string(&file).unwrap();
        let file_uri = open_document(&mut client, &file, &text);
        let diagnostics = client.diagnostics(&file_uri, 1);
        assert!(
            diagnostics.iter().any(|d| d["codeDescription"]["href"].is_string()),
            "a rule's page is written: {diagnostics:#?}"
        );
        assert_eq!(client.stop(), 0);
        let left: Vec<_> = std::fs::read_dir(&temporary).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}
