//! `clasp server`: the language server over stdio (`lsp-server`'s
//! connection, `lsp-types`' messages). Takes every stage before it (it runs
//! `commands::migrate::dry_run`); gives `run`, the command's exit code.
//!
//! The main loop (`state`) answers the client and never analyses: the
//! worker thread (`worker`) runs one dry run at a time with every open
//! buffer laid over its file, and the loop publishes each result that is
//! still current (`analysis` -> `diagnostics`, with the edits `actions`
//! offers). Analyses start at once on `didOpen`, `didSave` and a code-action
//! request, and 300 ms (`debounceMs`) after the last `didChange`.
//!
//! A clang crash inside an analysis ends the server (no supervisor runs
//! it, unlike `clasp migrate`): the editor starts it again.

// Documents are keyed by `lsp_types::Uri`, whose order, equality and hash
// are its text's (`as_str`); its one `Cell` caches a parsed authority and
// never changes the text, so a key never moves.
#![allow(clippy::mutable_key_type)]

mod actions;
mod analysis;
mod diagnostics;
mod documents;
mod edits;
mod settings;
mod state;
mod worker;

use std::io::Write;

use crossbeam_channel::select;
use lsp_server::{Connection, Message};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, InitializeParams, SaveOptions, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};

use crate::cli::args::ServerArgs;
use crate::support::exit::{EXIT_ERROR, EXIT_OK};

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Runs the server on stdin and stdout until the client says `exit`.
pub fn run(_args: &ServerArgs, stderr: &mut dyn Write) -> i32 {
    let (connection, io_threads) = Connection::stdio();
    let served = serve(&connection);
    drop(connection);
    let joined = io_threads.join();
    match served.and_then(|code| joined.map(|()| code).map_err(Failure::from)) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(stderr, "clasp: error: server: {e}");
            EXIT_ERROR
        }
    }
}

/// The handshake, then the main loop; the exit code (1 for `exit` without `shutdown`).
fn serve(connection: &Connection) -> Result<i32, Failure> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params)?;
    let settings = match settings::Settings::from_options(params.initialization_options.as_ref()) {
        Ok(settings) => settings,
        Err(e) => {
            let message = format!("clasp server: initializationOptions: {e}");
            let refused = lsp_server::Response::new_err(id, lsp_server::ErrorCode::InvalidParams as i32, message.clone());
            connection.sender.send(Message::Response(refused))?;
            return Err(message.into());
        }
    };
    let versioned =
        params.capabilities.workspace.and_then(|w| w.workspace_edit).and_then(|e| e.document_changes).unwrap_or(false);
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "clasp", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, result)?;
    let worker = worker::spawn(diagnostics::RuleDocs::new()?);
    main_loop(connection, state::State::new(settings, versioned, worker))
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
            ..Default::default()
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::SOURCE_FIX_ALL]),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// Waits on the client, the worker and the next analysis due, whichever comes first.
fn main_loop(connection: &Connection, mut state: state::State) -> Result<i32, Failure> {
    loop {
        state.start_due();
        let wake = match state.next_wake() {
            Some(at) => crossbeam_channel::at(at),
            None => crossbeam_channel::never(),
        };
        select! {
            recv(connection.receiver) -> message => match message? {
                Message::Request(request) => {
                    if connection.handle_shutdown(&request)? {
                        return Ok(EXIT_OK);
                    }
                    state.on_request(connection, request);
                }
                // `exit` before `shutdown`: the protocol says exit code 1.
                Message::Notification(n) if n.method == "exit" => return Ok(1),
                Message::Notification(notification) => state.on_notification(connection, notification),
                Message::Response(_) => {}
            },
            recv(state.worker.done) -> done => state.on_done(connection, done?),
            recv(wake) -> _ => {}
        }
    }
}
