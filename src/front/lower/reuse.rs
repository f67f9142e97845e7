//! Header functions' facts read once per batch, whatever the units that
//! include them.
//!
//! Why: on big-header code most units include a combination of headers no
//! other unit has, so no preamble is shared, and every unit's facts compile
//! emitted, with debug information, every function of every header it
//! includes, to read the same facts again. Here a unit compiled whole
//! leaves out of code generation each header function whose facts the
//! batch already read for the same arguments (`in_process::Bodies::Dropped`,
//! by place: clang's ODR hash of the definition as parsed, macros expanded;
//! a hash of the declarations its body refers to, which the ODR hash names
//! without their content: an enumerator's value, a global's type and
//! initialiser, the declaration of a callee and the overload a call chose;
//! and its file and line), then completes its facts with those
//! (`Parts::completed_with`), as the unit compiled whole would have them:
//! the functions left out are defined functions to the ones it emits
//! (`Parts::read`'s `defined_elsewhere`). A kept function that calls, as a
//! declared function, one this unit defines, or as a defined one, one this
//! unit does not define, reads differently here: the unit is compiled
//! whole instead. Functions of the unit's own file are never left out.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use super::facts::{FunctionFacts, Parts};
use super::in_process::{Bodies, Definition};
use super::{compile_emitting, preamble, Context, LowerError};
use crate::facts::ir::IrFacts;
use crate::support::ids::hash_of;
use crate::support::session::Shared;

/// Facts read, by the compile's arguments, then by (name, place).
type Known = HashMap<u64, HashMap<(String, String), Arc<FunctionFacts>>>;

static KNOWN: Shared<Known> = Shared::new();

/// The facts of `path` compiled whole with `args` (the IR arguments),
/// reusing the batch's; `weigh`: the unit is the first of its preamble,
/// whose files the compile weighs (`preamble::weigh`).
pub(super) fn facts_reusing(context: &Context, path: &Path, args: &[String], weigh: Option<u64>) -> Result<IrFacts, LowerError> {
    let key = hash_of(&args);
    let placed: BTreeSet<(String, String)> =
        KNOWN.lock().and_then(|known| known.get(&key).map(|by_place| by_place.keys().cloned().collect())).unwrap_or_default();
    let names = BTreeSet::new();
    let compile = |bodies| crate::isolation::phase(crate::isolation::Phase::Compiling, || compile_emitting(path, args, bodies));
    let (bitcode, read, definitions) = compile(Bodies::Dropped { names: &names, placed: &placed })?;
    if let Some(hash) = weigh {
        preamble::weigh(hash, path, &read);
    }
    let name = path.to_string_lossy();
    let dropped: Vec<&Definition> = definitions.iter().filter(|d| d.dropped).collect();
    let elsewhere: HashSet<String> = dropped.iter().map(|d| d.name.clone()).collect();
    let own = Parts::read(context, &bitcode, &name, &elsewhere)?;
    let reused: Option<Vec<Arc<FunctionFacts>>> = KNOWN.lock().and_then(|known| {
        let by_place = known.get(&key);
        dropped.iter().map(|d| by_place?.get(&(d.name.clone(), d.place.clone())).cloned()).collect()
    });
    let parts = match reused.and_then(|reused| own.completed_with(&reused)) {
        Some(parts) => parts,
        None => {
            let (bitcode, _, _) = compile(Bodies::Kept)?;
            Parts::read(context, &bitcode, &name, &HashSet::new())?
        }
    };
    remember(key, &definitions, &parts);
    Ok(parts.into_facts())
}

/// Keeps the facts of the header functions `parts` define (`definitions`
/// says where each is) for the next units compiled with the same arguments.
fn remember(key: u64, definitions: &[Definition], parts: &Parts) {
    let Some(mut known) = KNOWN.lock() else { return };
    let by_place = known.entry(key).or_default();
    for definition in definitions.iter().filter(|d| !d.dropped && !d.in_main_file && !d.name.is_empty()) {
        if let Some(facts) = parts.definition(&definition.name) {
            by_place.entry((definition.name.clone(), definition.place.clone())).or_insert_with(|| facts.clone());
        }
    }
}
