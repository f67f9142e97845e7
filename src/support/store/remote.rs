//! A cache server speaking the Bazel HTTP remote-cache protocol: `GET` and
//! `PUT` of `<url>/ac/<key>` and `<url>/cas/<sha256>`; `404` is a miss.
//! The first request that fails (no connection, a timeout, any status but
//! a 2xx) turns the server off for the rest of the run and is said once:
//! the run goes on with its directory, as fast as it would without a
//! server. A refused `PUT` only stops the storing: a server read-only for
//! this runner still serves what others stored.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How long a request may wait for a connection, and for an answer: a server
/// that does not answer costs the run these once, not once per unit.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(15);

pub struct Remote {
    base: String,
    agent: ureq::Agent,
    off: AtomicBool,
    /// A `PUT` was refused: nothing more is stored there.
    read_only: AtomicBool,
    failure: Mutex<Option<String>>,
}

impl Remote {
    /// A server at `url` (`http://` or `https://`; a path is the prefix of its entries).
    pub fn new(url: &str) -> Result<Remote, String> {
        let base = url.trim_end_matches('/').to_string();
        let host = ["http://", "https://"].iter().find_map(|scheme| base.strip_prefix(scheme)).unwrap_or("");
        if host.is_empty() || host.starts_with('/') || base.contains(['?', '#']) {
            return Err(format!("--remote-cache: `{url}` is not an http:// or https:// URL (with no query or fragment)"));
        }
        let agent = ureq::AgentBuilder::new().timeout_connect(CONNECT_TIMEOUT).timeout(ANSWER_TIMEOUT).build();
        Ok(Remote { base, agent, off: AtomicBool::new(false), read_only: AtomicBool::new(false), failure: Mutex::new(None) })
    }

    /// The object at `path` (`ac/<key>`, `cas/<digest>`); `None` when the server has none or is off.
    pub fn get(&self, path: &str) -> Option<Vec<u8>> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        match self.agent.get(&self.url(path)).call() {
            Ok(answer) if answer.status() / 100 == 2 => {
                let mut body = Vec::new();
                match std::io::Read::read_to_end(&mut answer.into_reader(), &mut body) {
                    Ok(_) => Some(body),
                    Err(e) => self.fail(&format!("reading GET {path}: {e}")),
                }
            }
            Ok(answer) => self.fail(&format!("GET {path}: status {}", answer.status())),
            Err(ureq::Error::Status(404, _)) => None,
            Err(e) => self.fail(&format!("GET {path}: {}", said(&e))),
        }
    }

    /// Puts `bytes` at `path`; whether the server took it.
    pub fn put(&self, path: &str, bytes: &[u8]) -> bool {
        if self.off.load(Ordering::Relaxed) || self.read_only.load(Ordering::Relaxed) {
            return false;
        }
        let refused = match self.agent.put(&self.url(path)).send_bytes(bytes) {
            Ok(answer) if answer.status() / 100 == 2 => return true,
            Ok(answer) => format!("status {}", answer.status()),
            Err(ureq::Error::Status(status, _)) => format!("status {status}"),
            // No answer at all: the server is as good as down, for reading too.
            Err(e) => return self.fail::<()>(&format!("PUT {path}: {}", said(&e))).is_some(),
        };
        self.read_only.store(true, Ordering::Relaxed);
        self.say(format!(
            "the remote cache {} refused PUT {path} ({refused}): reading it still, storing nothing there",
            self.base
        ));
        false
    }

    /// Why the server was turned off, once it was.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok()?.clone()
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base)
    }

    /// Turns the server off: `what` failed.
    fn fail<T>(&self, what: &str) -> Option<T> {
        self.off.store(true, Ordering::Relaxed);
        self.say(format!("the remote cache {} failed ({what}); working without it", self.base));
        None
    }

    /// Keeps `message` to say, unless something was said before.
    fn say(&self, message: String) {
        if let Ok(mut failure) = self.failure.lock() {
            failure.get_or_insert(message);
        }
    }
}

/// What went wrong with a request, once: ureq's own text repeats its kind.
fn said(error: &ureq::Error) -> String {
    match error {
        ureq::Error::Transport(transport) => match transport.message() {
            Some(message) => format!("{}: {message}", transport.kind()),
            None => transport.kind().to_string(),
        },
        ureq::Error::Status(status, _) => format!("status {status}"),
    }
}
