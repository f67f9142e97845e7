//! Parts of a stored unit that most units repeat (a header's functions with
//! their tokens, the runs of references its walks met) are read back as
//! their JSON text and decoded once per run for each distinct text: a warm
//! run reading a batch of units back parsed every header function of every
//! unit, most of its time.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::tokens::StoredTokens;
use crate::facts::syntax::{Function, FunctionRef};
use crate::support::session::Shared;

/// A part written as `T`, read back as its JSON text.
pub(super) enum Lazy<'a, T> {
    Value(T),
    Text(&'a RawValue),
}

impl<T: Serialize> Serialize for Lazy<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Lazy::Value(value) => value.serialize(serializer),
            Lazy::Text(text) => text.serialize(serializer),
        }
    }
}

impl<'de: 'a, 'a, T> Deserialize<'de> for Lazy<'a, T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(deserializer).map(Lazy::Text)
    }
}

impl<T> Lazy<'_, T> {
    fn text(&self) -> Option<&str> {
        match self {
            Lazy::Text(text) => Some(text.get()),
            Lazy::Value(_) => None,
        }
    }
}

/// (function's JSON, its tokens' JSON) -> the function read from them, for this run.
type Read = foldhash::HashMap<(Box<str>, Box<str>), Arc<Function>>;

static READ: Shared<Read> = Shared::new();

/// Run text -> the run read from it, for this run.
static READ_RUNS: Shared<foldhash::HashMap<Box<str>, Arc<[FunctionRef]>>> = Shared::new();

/// The function stored as `function` with `tokens`, the one read before from
/// the same texts in this run if any; `None` when they do not read back.
pub(super) fn function(function: &Lazy<&Arc<Function>>, tokens: &Lazy<StoredTokens>) -> Option<Arc<Function>> {
    let (function, tokens) = (function.text()?, tokens.text()?);
    let owned = || (Box::from(function), Box::from(tokens));
    READ.get_or_read(&(function, tokens) as &dyn Texts, owned, || {
        let mut read: Function = serde_json::from_str(function).ok()?;
        let stored: StoredTokens = serde_json::from_str(tokens).ok()?;
        read.tokens = stored.into_tokens()?.into();
        Some(Arc::new(read))
    })
}

/// The run of references stored as `run`, the one read before from the same
/// text in this run if any; `None` when it does not read back.
pub(super) fn references(run: &Lazy<&[FunctionRef]>) -> Option<Arc<[FunctionRef]>> {
    let text = run.text()?;
    READ_RUNS.get_or_read(text, || text.into(), || serde_json::from_str::<Vec<FunctionRef>>(text).ok().map(Arc::from))
}

/// Drops the texts read so far (the units hold what was read from them):
/// the batch is loaded.
pub(super) fn forget() {
    if let Some(mut read) = READ.lock_if_alone() {
        read.clear();
    }
    if let Some(mut runs) = READ_RUNS.lock_if_alone() {
        runs.clear();
    }
}

/// Looks the memo up by borrowed texts (a key of two boxed strings).
trait Texts {
    fn texts(&self) -> (&str, &str);
}

impl Texts for (Box<str>, Box<str>) {
    fn texts(&self) -> (&str, &str) {
        (&self.0, &self.1)
    }
}

impl Texts for (&str, &str) {
    fn texts(&self) -> (&str, &str) {
        (self.0, self.1)
    }
}

impl<'a> std::borrow::Borrow<dyn Texts + 'a> for (Box<str>, Box<str>) {
    fn borrow(&self) -> &(dyn Texts + 'a) {
        self
    }
}

impl PartialEq for dyn Texts + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.texts() == other.texts()
    }
}

impl Eq for dyn Texts + '_ {}

impl std::hash::Hash for dyn Texts + '_ {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.texts().hash(state);
    }
}
