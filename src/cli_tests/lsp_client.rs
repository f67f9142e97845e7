//! A minimal LSP client for the tests: `clasp server` started as a child,
//! JSON-RPC messages framed with `Content-Length` on its stdin and stdout,
//! read on a thread so a test waits with a deadline, never forever.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long a test waits for one answer (a cold analysis loads libclang and clang).
pub const WAIT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    /// Notifications read while waiting for something else, in order.
    pub notifications: Vec<Value>,
}

impl Client {
    /// `clasp server` started in `dir`.
    pub fn start(dir: &Path) -> Client {
        Client::start_with(dir, &[])
    }

    /// `clasp server` started in `dir` with `env` set.
    pub fn start_with(dir: &Path, env: &[(&str, &Path)]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_clasp"))
            .arg("server")
            .current_dir(dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start clasp server");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            while let Some(message) = read_message(&mut stdout) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, messages, next_id: 1, notifications: Vec::new() }
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its id (the answer comes through `response`).
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// Sends a request and waits for its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.response(id)
    }

    /// The result of request `id` (panics on an error answer or after `WAIT`).
    pub fn response(&mut self, id: i64) -> Value {
        let message = self.wait_for(|m| m["id"] == json!(id) && m.get("method").is_none());
        assert!(message.get("error").is_none(), "request {id} failed: {message}");
        message["result"].clone()
    }

    /// The next `publishDiagnostics` for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri && m["params"]["version"] == version
        });
        message["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// The first message (read before or now) that `wanted` accepts.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.notifications.iter().position(&wanted) {
            return self.notifications.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.messages.recv_timeout(left).unwrap_or_else(|_| panic!("no answer from clasp server in {WAIT:?}"));
            if wanted(&message) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to clasp server");
        self.stdin.flush().unwrap();
    }

    /// `shutdown`, then `exit`: the server's exit code.
    pub fn stop(mut self) -> i32 {
        assert_eq!(self.call("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.exit_code()
    }

    /// The server's exit code, once it has exited (within `WAIT`).
    pub fn exit_code(&mut self) -> i32 {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "clasp server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A test that failed midway leaves no server behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The path of a `file://` URI with no escapes.
pub fn path_of(uri: &str) -> std::path::PathBuf {
    let path = uri.strip_prefix("file://").expect("a file URI");
    assert!(!path.contains('%'), "{uri}");
    path.into()
}

/// A `file://` URI of an absolute path (the tests' paths need no escaping).
pub fn uri(path: &Path) -> String {
    let path = path.display().to_string();
    assert!(path.bytes().all(|b| b.is_ascii_alphanumeric() || b"/-._".contains(&b)), "{path} needs escaping");
    format!("file://{path}")
}

/// `text` with the text edits of `edits` (LSP `TextEdit`s, sorted, disjoint) applied, as a client does.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let offset = |p: &Value| -> usize {
        let (line, character) = (p["line"].as_u64().unwrap() as usize, p["character"].as_u64().unwrap() as usize);
        let before: usize = lines.iter().take(line).map(|l| l.len()).sum();
        // The tests' texts are ASCII: a UTF-16 unit is a byte.
        assert!(text.is_ascii());
        before + character.min(lines.get(line).map_or(0, |l| l.len()))
    };
    let mut sorted: Vec<&Value> = edits.iter().collect();
    sorted.sort_by_key(|e| offset(&e["range"]["start"]));
    let (mut out, mut done) = (String::new(), 0);
    for edit in sorted {
        let (start, end) = (offset(&edit["range"]["start"]), offset(&edit["range"]["end"]));
        assert!(start >= done, "overlapping edits");
        out.push_str(&text[done..start]);
        out.push_str(edit["newText"].as_str().unwrap());
        done = end;
    }
    out.push_str(&text[done..]);
    out
}

/// The initialize request's parameters of a client that takes versioned document changes.
pub fn initialize_params(root: &Path, options: Value) -> Value {
    json!({
        "processId": std::process::id(),
        "rootUri": uri(root),
        "capabilities": { "workspace": { "workspaceEdit": { "documentChanges": true } } },
        "initializationOptions": options,
    })
}
