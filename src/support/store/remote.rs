//! A cache server speaking the Bazel HTTP remote-cache protocol: `GET` and
//! `PUT` of `<url>/ac/<key>` and `<url>/cas/<sha256>`; `404` is a miss.
//! The first request that fails (no connection, a timeout, any other
//! status) turns the server off for the rest of the run and is said once:
//! the run goes on with its directory, as fast as it would without a server.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How long a request may wait for a connection, and for an answer: a server
/// that does not answer costs the run these once, not once per unit.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Remote {
    base: String,
    agent: ureq::Agent,
    off: AtomicBool,
    failure: Mutex<Option<String>>,
}

impl Remote {
    /// A server at `url` (`http://` or `https://`; a path is the prefix of its entries).
    pub fn new(url: &str) -> Result<Remote, String> {
        let base = url.trim_end_matches('/').to_string();
        let host = ["http://", "https://"].iter().find_map(|scheme| base.strip_prefix(scheme)).unwrap_or("");
        if host.is_empty() || host.starts_with('/') {
            return Err(format!("--remote-cache: `{url}` is not an http:// or https:// URL"));
        }
        let agent = ureq::AgentBuilder::new().timeout_connect(CONNECT_TIMEOUT).timeout(ANSWER_TIMEOUT).build();
        Ok(Remote { base, agent, off: AtomicBool::new(false), failure: Mutex::new(None) })
    }

    /// The object at `path` (`ac/<key>`, `cas/<digest>`); `None` when the server has none or is off.
    pub fn get(&self, path: &str) -> Option<Vec<u8>> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        match self.agent.get(&self.url(path)).call() {
            Ok(answer) => {
                let mut body = Vec::new();
                match std::io::Read::read_to_end(&mut answer.into_reader(), &mut body) {
                    Ok(_) => Some(body),
                    Err(e) => self.fail(&format!("reading GET {path}: {e}")),
                }
            }
            Err(ureq::Error::Status(404, _)) => None,
            Err(e) => self.fail(&format!("GET {path}: {e}")),
        }
    }

    /// Puts `bytes` at `path`; whether the server took it.
    pub fn put(&self, path: &str, bytes: &[u8]) -> bool {
        if self.off.load(Ordering::Relaxed) {
            return false;
        }
        match self.agent.put(&self.url(path)).send_bytes(bytes) {
            Ok(_) => true,
            Err(e) => self.fail::<()>(&format!("PUT {path}: {e}")).is_some(),
        }
    }

    /// Why the server was turned off, once it was.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok()?.clone()
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base)
    }

    fn fail<T>(&self, what: &str) -> Option<T> {
        if !self.off.swap(true, Ordering::Relaxed) {
            if let Ok(mut failure) = self.failure.lock() {
                let message = format!("the remote cache {} failed ({what}); working without it", self.base);
                *failure = Some(message);
            }
        }
        None
    }
}
