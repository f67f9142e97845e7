//! Precompiled preambles for libclang, shared by the units of a batch.
//!
//! Units of a big codebase open with the same `#include`s of the same large
//! headers, and parsing those headers was most of each unit's parse. As
//! `lower::preamble` does for clang's compiles, units whose preambles are
//! the same text once comments are set aside, in the same directory, parsed
//! with the same arguments, share one precompiled header of it: libclang
//! parses the preamble once, preprocessing record included, and saves it;
//! each unit is then parsed against it, skipping its own preamble bytes
//! (cc1's `-preamble-bytes`). The walk sees the same cursors in the same
//! order (the header's declarations and macros are read back from the
//! precompiled header), so the syntax is the same as the unit's parsed whole.
//!
//! The one difference is where the preamble's own text is: the precompiled
//! header holds it, comments one space each, under another name. `libclang::Alias`
//! reads every place there back into the unit's main file, offsets and
//! columns included.
//!
//! The first unit of a preamble is parsed whole and weighs it (the bytes of
//! the files it included): only a heavy preamble is precompiled, by the
//! second unit. A preamble clang says anything about (a warning, an error)
//! is not precompiled: the units' diagnostics stay their own. A unit whose
//! parse against the preamble has an error is parsed whole again, so the
//! error reads as it does for the unit alone.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::libclang::{Alias, Index};
use crate::front::precompiled::{self, Precompiled, Ready};
use crate::support::ids::Stamp;

/// What a unit brings to share its preamble: the preamble itself
/// (`lower::preamble::identity`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preamble {
    /// The main file's first `size` bytes.
    pub size: u32,
    /// Its normalised text, the unit's directory and arguments, hashed.
    pub identity: u64,
    /// Its text with each comment replaced by one space and the newlines it spanned.
    pub normalized: Arc<[u8]>,
    /// Each comment's byte range in the main file, in order.
    pub comments: Arc<[Range<usize>]>,
}

impl Preamble {
    /// The preamble of the unit at `main` (its text `contents`) parsed with
    /// `args`; `None` when it includes nothing, or when `args` lay files over
    /// the disk.
    pub fn of(main: &Path, contents: &[u8], args: &[String]) -> Option<Preamble> {
        let found = crate::front::lower::preamble::identity(main, contents, args)?;
        Some(Preamble {
            size: found.size,
            identity: found.identity,
            normalized: found.normalized.into(),
            comments: found.comments.into(),
        })
    }
}

/// What makes two units' precompiled preambles the same.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    args: Vec<String>,
    /// The directory its quoted includes are looked up in first.
    dir: PathBuf,
    normalized: Arc<[u8]>,
}

/// A precompiled preamble.
struct Built {
    pch: PathBuf,
    /// The preamble's text as the precompiled header names it.
    name: String,
    /// Every file the parse included, as it was then (a file changed since makes it stale).
    read: Vec<(PathBuf, Option<Stamp>)>,
}

impl precompiled::Built for Built {
    fn read(&self) -> &[(PathBuf, Option<Stamp>)] {
        &self.read
    }
}

static STORE: Precompiled<Key, Built> = Precompiled::new("clasp-parse-preambles-", "preamble: precompile for libclang");

/// How a unit's parse uses its shared preamble.
pub(super) enum Use {
    /// Against it: the arguments that name it, and where its text is the unit's.
    Against(Vec<String>, Alias),
    /// Whole, the first unit of its preamble: it weighs it (`weigh`).
    Weigh(Weighing),
}

/// The first unit of a preamble, weighing it (its key's hash).
pub(super) struct Weighing(u64);

/// How the unit at `main` (its text `contents`) parsed with `args` uses the
/// preamble it shares, precompiling it first if it is heavy and no unit has;
/// `None`: parse whole.
pub(super) fn arguments(index: &Index, main: &Path, contents: &[u8], args: &[String], preamble: &Preamble) -> Option<Use> {
    if precompiled::text_before_main(args) {
        return None;
    }
    let dir = main.parent()?.to_path_buf();
    let key = Key { args: args.to_vec(), dir, normalized: preamble.normalized.clone() };
    let built = match STORE.ready(&key, |path| build(index, &key, &path.with_extension("pch")))? {
        Ready::Built(built) => built,
        Ready::Weigh(hash) => return Some(Use::Weigh(Weighing(hash))),
    };
    let mut extra = vec!["-include-pch".to_string(), built.pch.display().to_string()];
    extra.extend(["-Xclang", &format!("-preamble-bytes={},1", preamble.size), "-Xclang", "-fno-validate-pch"].map(String::from));
    Some(Use::Against(extra, Alias::new(built.name.clone(), main, contents, preamble.size, &preamble.comments)))
}

/// What the first unit of a preamble included (every file but its own) decides whether later units share one.
pub(super) fn weigh(weighing: Weighing, main: &Path, included: &[PathBuf]) {
    STORE.weigh(weighing.0, main, included);
}

/// Parses the preamble's text as a header in the unit's directory and saves it at `pch`.
fn build(index: &Index, key: &Key, pch: &Path) -> Option<Built> {
    // Absolute: the precompiled header names its file so, whatever it is given.
    let header = std::path::absolute(key.dir.join(".clasp-preamble.h")).ok()?;
    let args = precompiled::as_header(&key.args);
    let included = index.precompile(&header, &key.normalized, &args, pch).ok()??;
    // A file only an overlay provides has no stamp to go stale by.
    let read = precompiled::stamped(included.into_iter().filter(|path| *path != header))?;
    Some(Built { pch: pch.to_path_buf(), name: header.to_string_lossy().into_owned(), read })
}

/// Units this thread parsed against a precompiled preamble (tests parse on their own thread).
#[cfg(test)]
pub(super) mod counted {
    thread_local! {
        pub(in crate::front::parse) static AGAINST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
}

#[cfg(test)]
mod tests {
    use super::counted::AGAINST;
    use crate::front::parse::{Parser, Preamble};
    use crate::support::session::Session;

    const HEADER: &str = "#ifndef H_H\n#define H_H\n\
        #define GLOBAL_AS __global\n\
        #define TABLE_AS __constant\n\
        #ifndef NOINLINE\n\
        #define NOINLINE\n\
        #endif\n\
        TABLE_AS float table[2] = {1.0f, 2.0f};\n\
        NOINLINE float first(GLOBAL_AS const float *p) { return p[0] * (float)sizeof(p); }\n\
        #ifdef NOINLINE\n\
        float plain(GLOBAL_AS float *p) { return p[1]; }\n\
        #endif\n\
        #if WIDTH > 2\n\
        float wide(GLOBAL_AS float *p) { return p[2]; }\n\
        #endif\n\
        #endif\n";

    /// A session, a directory holding `h.h` (`HEADER`, heavy enough to
    /// precompile), the default arguments and a parser.
    fn with_header() -> (Session, tempfile::TempDir, Vec<String>, Parser) {
        let session = Session::begin();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("h.h"), crate::front::lower::heavy(HEADER)).unwrap();
        let args = crate::settings::options::CompileOptions::default().clang_args(None);
        (session, dir, args, Parser::new().unwrap())
    }

    /// A unit parsed against its batch's precompiled preamble has the syntax
    /// it has parsed whole: its own preamble's places (directives among
    /// comments of every length, a macro it defines there, text `#if` left
    /// out there) read back into its own text, offsets and columns included.
    #[test]
    fn a_unit_parsed_against_the_shared_preamble_has_its_syntax_parsed_whole() {
        let (_session, dir, args, parser) = with_header();
        let body = "\nNOINLINE LOCAL_AS float *keep(LOCAL_AS float *l) { return l; }\n\
            kernel void k(GLOBAL_AS float *o, LOCAL_AS float *l) { o[0] = first(o) + table[1] + keep(l)[0]; }\n";
        let rest = "#include \"h.h\"\n#ifdef NOT_SET\n#define WIDTH 4\n#endif\n";
        // Preambles alike once each comment is one space (keeping its newlines), three by three.
        let units = [
            ("a.cl", format!("// a\n#define LOCAL_AS __local\n{rest}")),
            ("b.cl", format!("// b: a longer comment\n#define LOCAL_AS __local\n{rest}")),
            ("c.cl", format!("/**/\n#define LOCAL_AS __local\n{rest}")),
            ("d.cl", format!("/* d */ #define LOCAL_AS __local /* x */\n{rest}")),
            ("e.cl", format!("/* e: longer */ #define LOCAL_AS __local /* yyy */\n{rest}")),
            ("f.cl", format!("/* f */ #define LOCAL_AS __local /* */\n{rest}")),
            ("g.cl", format!("/* g\n */#define LOCAL_AS __local\n/* three\n\n lines */ {rest}")),
            ("h.cl", format!("/* h, also\n on two lines */#define LOCAL_AS __local\n/*\n\n*/ {rest}")),
            ("i.cl", format!("/*\n*/#define LOCAL_AS __local\n/* 3\n\n*/ {rest}")),
        ];
        let before = AGAINST.with(|n| n.get());
        for (name, preamble) in units {
            let path = dir.path().join(name);
            let text = format!("{preamble}{body}");
            let text = text.as_str();
            std::fs::write(&path, text).unwrap();
            let shared_preamble = Preamble::of(&path, text.as_bytes(), &args).unwrap();
            let shared = parser.parse_sharing(&path, text.as_bytes(), &args, Some(shared_preamble)).unwrap();
            let whole = parser.parse(&path, text.as_bytes(), &args).unwrap();
            assert!(shared.errors().next().is_none(), "{name}: {:?}", shared.diagnostics);
            let json = |s: &crate::facts::syntax::KernelSyntax| {
                (serde_json::to_string_pretty(s).unwrap(), format!("{:?}", s.identifiers))
            };
            assert_eq!(json(&shared), json(&whole), "{name}");
            assert!(!whole.skipped.is_empty() && whole.qualifier_macros.contains_key("LOCAL_AS"), "{name}");
            // The empty `NOINLINE` before a function is the function's, not the `#ifndef` that tests it.
            for (function, header, start) in
                [("first", true, "NOINLINE "), ("keep", false, "NOINLINE "), ("plain", true, "float ")]
            {
                let f = whole.function(function).unwrap();
                let file = if header { std::fs::read(dir.path().join("h.h")).unwrap() } else { text.as_bytes().to_vec() };
                assert!(file[f.extent.start as usize..].starts_with(start.as_bytes()), "{name}: {function}");
            }
        }
        // The first unit of each preamble weighs it, the other two are parsed against it.
        assert_eq!(AGAINST.with(|n| n.get()) - before, 6);
    }

    /// A unit with an error, parsed against its preamble, is parsed whole
    /// again: its error reads as it does for the unit alone.
    #[test]
    fn an_error_against_the_shared_preamble_reads_as_the_whole_units() {
        let (_session, dir, args, parser) = with_header();
        let parse = |name: &str, body: &str| {
            let path = dir.path().join(name);
            let text = format!("// {name}\n#include \"h.h\"\n{body}");
            std::fs::write(&path, &text).unwrap();
            let preamble = Preamble::of(&path, text.as_bytes(), &args);
            let shared = parser.parse_sharing(&path, text.as_bytes(), &args, preamble).unwrap();
            let whole = parser.parse(&path, text.as_bytes(), &args).unwrap();
            let errors = |s: &crate::facts::syntax::KernelSyntax| s.errors().map(|d| d.to_string()).collect::<Vec<_>>();
            (errors(&shared), errors(&whole))
        };
        parse("a.cl", "kernel void k(__global float *o) { o[0] = first(o); }\n");
        let before = AGAINST.with(|n| n.get());
        let (shared, whole) = parse("b.cl", "kernel void k(__global float *o) {\n  o[0] = missing(o);\n}\n");
        assert_eq!(AGAINST.with(|n| n.get()), before, "not kept from the parse against the preamble");
        assert!(!whole.is_empty());
        assert_eq!(shared, whole);
        assert!(shared[0].contains("b.cl:4:10"), "{shared:?}");
    }

    /// A header changed since its preamble was precompiled (a second run in
    /// the same process) is parsed again.
    #[test]
    fn a_header_changed_since_precompiling_is_parsed_again() {
        let (_session, dir, args, parser) = with_header();
        let header = dir.path().join("h.h");
        let names = |name: &str| {
            let path = dir.path().join(name);
            let text = "#include \"h.h\"\nkernel void k(__global float *o) { o[0] = first(o); }\n";
            std::fs::write(&path, text).unwrap();
            let preamble = Preamble::of(&path, text.as_bytes(), &args);
            let syntax = parser.parse_sharing(&path, text.as_bytes(), &args, preamble).unwrap();
            syntax.functions.iter().map(|f| f.name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names("a.cl"), ["first", "plain", "k"]);
        assert_eq!(names("b.cl"), ["first", "plain", "k"]);
        std::fs::write(&header, crate::front::lower::heavy(&HEADER.replace("first", "second"))).unwrap();
        assert_eq!(names("b.cl"), ["second", "plain", "k"], "parse errors would read `first` as undeclared");
    }
}
