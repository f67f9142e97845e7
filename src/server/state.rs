//! The server's state and the main loop's handlers: open documents, each
//! file's latest current result, the analyses due (debounced after edits)
//! and the code-action requests waiting for a fresh result. The main loop
//! only bookkeeps and answers; the worker thread analyses.
//!
//! A result is kept only if every open document it read is still at the
//! version it read (`documents::current`); a stale one is dropped and its
//! file analysed again. A code action asked of a file whose result is stale
//! (or not yet there) waits for the fresh one, so no edit computed for an
//! older text is ever offered; each edit also names the document version it
//! was computed for, which clients check before applying it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{CodeActionRequest, Request as _};
use lsp_types::{CodeActionParams, PublishDiagnosticsParams, Uri};

use super::analysis::FileAnalysis;
use super::documents::{self, Document, Documents, Versions};
use super::settings::Settings;
use super::worker::{Done, Job, Worker};

/// Everything the main loop keeps between messages.
pub struct State {
    pub documents: Documents,
    results: BTreeMap<Uri, (Versions, FileAnalysis)>,
    /// Files to analyse, and from when.
    due: BTreeMap<Uri, Instant>,
    /// The file the worker is analysing.
    running: Option<Uri>,
    waiting: BTreeMap<Uri, Vec<(RequestId, CodeActionParams)>>,
    settings: Arc<Settings>,
    versioned: bool,
    pub worker: Worker,
}

impl State {
    pub fn new(settings: Settings, versioned: bool, worker: Worker) -> State {
        State {
            documents: Documents::new(),
            results: BTreeMap::new(),
            due: BTreeMap::new(),
            running: None,
            waiting: BTreeMap::new(),
            settings: Arc::new(settings),
            versioned,
            worker,
        }
    }

    /// When the loop must wake to start an analysis (none while one runs).
    pub fn next_wake(&self) -> Option<Instant> {
        self.running.is_none().then(|| self.due.values().min().copied()).flatten()
    }

    /// Hands the worker the analysis due first, if it is idle and one is due.
    pub fn start_due(&mut self) {
        let now = Instant::now();
        let Some(uri) = self
            .running
            .is_none()
            .then(|| self.due.iter().filter(|(_, t)| **t <= now).min_by_key(|(_, t)| **t))
            .flatten()
            .map(|(u, _)| u.clone())
        else {
            return;
        };
        self.due.remove(&uri);
        let job = Job {
            uri: uri.clone(),
            documents: self.documents.clone(),
            settings: self.settings.clone(),
            versioned: self.versioned,
        };
        if self.worker.send(job) {
            self.running = Some(uri);
        }
    }

    /// `uri` analysed at `at`, or sooner if it already was to be.
    fn schedule(&mut self, uri: &Uri, at: Instant) {
        let when = self.due.entry(uri.clone()).or_insert(at);
        *when = (*when).min(at);
    }

    /// `uri` analysed once edits have paused for the debounce time (each edit pushes it back).
    fn debounce(&mut self, uri: &Uri) {
        self.due.insert(uri.clone(), Instant::now() + self.settings.debounce);
    }

    pub fn on_notification(&mut self, connection: &Connection, notification: Notification) {
        let now = Instant::now();
        match notification.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                let Ok(params) = notification.extract::<lsp_types::DidOpenTextDocumentParams>(notif::DidOpenTextDocument::METHOD)
                else {
                    return;
                };
                let item = params.text_document;
                let Some(path) = documents::path_of(&item.uri) else { return };
                self.documents.insert(item.uri.clone(), Document { path, version: item.version, text: item.text });
                self.schedule(&item.uri, now);
            }
            notif::DidChangeTextDocument::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidChangeTextDocumentParams>(notif::DidChangeTextDocument::METHOD)
                else {
                    return;
                };
                let Some(document) = self.documents.get_mut(&params.text_document.uri) else { return };
                for change in params.content_changes {
                    documents::apply_change(&mut document.text, change);
                }
                document.version = params.text_document.version;
                self.debounce(&params.text_document.uri);
            }
            notif::DidSaveTextDocument::METHOD => {
                let Ok(params) = notification.extract::<lsp_types::DidSaveTextDocumentParams>(notif::DidSaveTextDocument::METHOD)
                else {
                    return;
                };
                // Other open files may include it (or read clasp.toml): analysed again too.
                let others: Vec<Uri> = self.documents.keys().filter(|u| **u != params.text_document.uri).cloned().collect();
                for uri in others {
                    self.debounce(&uri);
                }
                if self.documents.contains_key(&params.text_document.uri) {
                    self.schedule(&params.text_document.uri, now);
                }
            }
            notif::DidCloseTextDocument::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidCloseTextDocumentParams>(notif::DidCloseTextDocument::METHOD)
                else {
                    return;
                };
                let uri = params.text_document.uri;
                self.documents.remove(&uri);
                self.results.remove(&uri);
                self.due.remove(&uri);
                for (id, _) in self.waiting.remove(&uri).unwrap_or_default() {
                    respond(connection, Response::new_ok(id, serde_json::Value::Null));
                }
                publish(connection, uri, Vec::new(), None);
            }
            _ => {}
        }
    }

    pub fn on_request(&mut self, connection: &Connection, request: Request) {
        if request.method != CodeActionRequest::METHOD {
            let message = format!("clasp server does not handle {}", request.method);
            respond(connection, Response::new_err(request.id, lsp_server::ErrorCode::MethodNotFound as i32, message));
            return;
        }
        let request_id = request.id.clone();
        let (id, params) = match request.extract::<CodeActionParams>(CodeActionRequest::METHOD) {
            Ok(extracted) => extracted,
            Err(e) => {
                let message = format!("bad codeAction request: {e:?}");
                return respond(connection, Response::new_err(request_id, lsp_server::ErrorCode::InvalidParams as i32, message));
            }
        };
        let uri = params.text_document.uri.clone();
        match self.results.get(&uri).filter(|(versions, _)| documents::current(&self.documents, versions)) {
            Some((_, analysis)) => respond(connection, Response::new_ok(id, super::actions::code_actions(analysis, &params))),
            None if !self.documents.contains_key(&uri) => respond(connection, Response::new_ok(id, serde_json::Value::Null)),
            None => {
                // Stale or not there yet: answered with the fresh result, analysed now.
                self.waiting.entry(uri.clone()).or_default().push((id, params));
                if self.running.as_ref() != Some(&uri) {
                    self.schedule(&uri, Instant::now());
                }
            }
        }
    }

    pub fn on_done(&mut self, connection: &Connection, done: Done) {
        if self.running.as_ref() == Some(&done.uri) {
            self.running = None;
        }
        if !documents::current(&self.documents, &done.versions) {
            // Stale: dropped; the file is analysed again (at once if a request waits for it).
            if self.documents.contains_key(&done.uri) && !self.due.contains_key(&done.uri) {
                self.schedule(&done.uri, Instant::now());
            }
            return;
        }
        let version = self.documents.get(&done.uri).map(|d| d.version);
        eprintln!("clasp server: analysed {} (version {version:?}) in {} ms", done.uri.as_str(), done.took.as_millis());
        publish(connection, done.uri.clone(), done.analysis.diagnostics.clone(), version);
        for (id, params) in self.waiting.remove(&done.uri).unwrap_or_default() {
            respond(connection, Response::new_ok(id, super::actions::code_actions(&done.analysis, &params)));
        }
        self.results.insert(done.uri, (done.versions, done.analysis));
    }
}

fn respond(connection: &Connection, response: Response) {
    let _ = connection.sender.send(Message::Response(response));
}

fn publish(connection: &Connection, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
    let params = PublishDiagnosticsParams { uri, diagnostics, version };
    let notification = Notification::new(notif::PublishDiagnostics::METHOD.to_string(), params);
    let _ = connection.sender.send(Message::Notification(notification));
}
