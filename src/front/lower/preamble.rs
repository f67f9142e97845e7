//! Precompiled preambles shared by the units of a batch.
//!
//! A big codebase's kernel files open with the same `#include`s of the
//! same large headers, and those headers are most of every compile clasp
//! makes of a unit (its facts, then the original and the result for the
//! equivalence check). A unit's preamble is its leading run of comments and
//! directives (`in_process::preamble`, clang's own lexer); units whose
//! preambles are the same text once comments are set aside, in the same
//! directory, compiled with the same arguments over the same replaced
//! files, share one precompiled header of it, built once per batch when a
//! second compile asks for it and the first found the headers heavy enough
//! (`precompiled::WORTH_PRECOMPILING`: for light ones it costs more than it saves). Each
//! unit then compiles against it, skipping its own preamble bytes (cc1's
//! `-preamble-bytes`): what follows sees exactly the declarations and
//! macros it saw before, and its own lines and offsets are unchanged.
//!
//! The precompiled header's text is compiled as if it sat in the unit's
//! directory (`in_process::compile`'s `main_as`), so its quoted includes
//! find the same files. Headers included after the preamble are compiled
//! in each unit as before. A preamble with no `#include`, arguments that
//! put anything before the main file (`-include`, `-imacros`), a preamble
//! including a file only an overlay provides (an embedded kernel's text,
//! which has no stamp to go stale by), a failed build, and `$CLASP_CLANG`
//! (a clang process cannot compile a file under another name) all mean no
//! precompiled header: the unit compiles whole.
//!
//! The files live in a directory of the process's temporary directory (the
//! supervisor's, for a worker), removed when the run ends (`crate::support::session`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::in_process;
use crate::front::precompiled::{self, Precompiled, Ready};
use crate::support::ids::{hash_of, Stamp};
use sha2::Digest;

/// What makes two units' precompiled preambles the same.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    /// The compile's arguments (the file list and the output aside).
    args: Vec<String>,
    /// The directory the preamble's quoted includes are looked up in first.
    dir: PathBuf,
    /// The preamble's text, comments normalised.
    text: Vec<u8>,
    /// Files laid over the disk for the compile (the unit's own main file
    /// aside), each by a digest of its text: a batch's result compiles lay
    /// whole headers, and a key is kept for the run.
    replaced: Vec<(PathBuf, [u8; 32])>,
    /// Built for `lower`'s facts (`Request::facts`): declarations only.
    facts: bool,
}

/// A precompiled preamble, and what building it also produced.
pub(super) struct Built {
    /// The precompiled header.
    pub(super) pch: PathBuf,
    /// The VFS overlay laying the preamble's text over its paths in the unit's directory.
    overlay: PathBuf,
    /// The preamble's text compiled as a file of its own with the same
    /// arguments (`Request::facts`): every function the headers define, for
    /// their facts (a unit's compile only declares them). Taken by the first
    /// unit reading its facts: a big preamble's bitcode is about a megabyte,
    /// and a batch of many include sets builds one preamble per set.
    pub(super) alone: std::sync::Mutex<Option<Vec<u8>>>,
    /// The facts of `alone`, read by the first unit that needs them.
    pub(super) facts: OnceLock<Option<Arc<super::Parts>>>,
    /// Every file the precompiling read, as it was then: a file changed
    /// since (a run after `--interactive` wrote its answers, a test's second
    /// run in the same process) makes the preamble stale, and it is built again.
    read: Vec<(PathBuf, Option<Stamp>)>,
}

impl precompiled::Built for Built {
    fn read(&self) -> &[(PathBuf, Option<Stamp>)] {
        &self.read
    }
}

/// Every preamble built in this process for clang's compiles.
static STORE: Precompiled<Key, Built> = Precompiled::new("clasp-preambles-", "preamble: precompile");

/// Whether a compile read `path` because this module laid it there: a
/// precompiled preamble, or a preamble's text laid in its unit's directory
/// (no file of the unit's: what it holds, the unit's files hold).
pub fn made_here(path: &Path) -> bool {
    let named = path.file_name().is_some_and(|name| name == ".clasp-preamble.h" || name == ".clasp-preamble.cl");
    named || STORE.holds(path)
}

/// One compile that may use a precompiled preamble.
pub(super) struct Request<'a> {
    /// The executable whose resource directory the driver uses.
    pub(super) clang: &'a Path,
    /// The unit's main file as clang is given it.
    pub(super) main: &'a Path,
    /// Its text, as the compile sees it (laid over, for a result).
    pub(super) text: &'a [u8],
    /// The compile's arguments, the overlay's among them.
    pub(super) args: &'a [String],
    /// The files an overlay in `args` lays over the disk (the main file's
    /// own entry is ignored): the key, since the overlay's path changes.
    pub(super) replaced: &'a BTreeMap<PathBuf, Vec<u8>>,
    /// For `lower`'s facts: the precompiled header declares the headers'
    /// functions without their bodies, so a unit's compile defines its own
    /// functions only, and the preamble is also compiled as a file of its
    /// own, defining every header function (their facts, read once per batch).
    pub(super) facts: bool,
}

/// How a compile stands with its preamble.
pub(super) enum Use {
    /// Against the shared precompiled preamble: the arguments, and what was built.
    Shared(Vec<String>, Arc<Built>),
    /// Whole, reporting what it read (`weigh`): the first compile of a preamble.
    Weigh(u64),
}

/// How `request`'s compile uses its shared preamble, building it first if no
/// unit has and it is heavy enough; `None`: compile whole.
pub(super) fn arguments(request: &Request) -> Option<Use> {
    if std::env::var_os("CLASP_CLANG").is_some() || !plain_compile(request.args) {
        return None;
    }
    let found = including_preamble(request.text)?;
    // The directory as the main file's path gives it: the header paths clang
    // records (debug info, diagnostics) are spelled from it, as for the unit.
    let main = request.main;
    let dir = main.parent()?.to_path_buf();
    let canonical_main = Some(crate::support::overlay::canonical(main));
    let key = Key {
        args: key_args(request.args),
        dir,
        text: found.normalized,
        replaced: request
            .replaced
            .iter()
            .filter(|(path, _)| Some(*path) != canonical_main.as_ref() && path.as_path() != main)
            .map(|(path, text)| (path.clone(), sha2::Sha256::digest(text).into()))
            .collect(),
        facts: request.facts,
    };
    let built = match STORE.ready(&key, |path| build(request, &key, path))? {
        Ready::Built(built) => built,
        Ready::Weigh(hash) => return Some(Use::Weigh(hash)),
    };
    let mut args = vec!["-include-pch".to_string(), built.pch.display().to_string()];
    args.extend(["-Xclang", &format!("-preamble-bytes={},1", found.size), "-Xclang", "-fno-validate-pch"].map(String::from));
    // The header names its text by the path it was compiled under, which the overlay provides.
    args.extend(["-ivfsoverlay".to_string(), built.overlay.display().to_string()]);
    Some(Use::Shared(args, built))
}

/// What the first compile of a preamble (`Use::Weigh`) read: every file but
/// `main`, in bytes, decides whether later compiles share a precompiled one.
/// Lets go of the preambles built for facts (`Request::facts`): the headers'
/// functions read alone (`Built::facts`), per include set and options, are
/// needed only while units load; each unit holds its own share of them.
pub fn forget_fact_preambles() {
    STORE.forget(|key| key.facts);
}

pub(super) fn weigh(hash: u64, main: &Path, read: &[PathBuf]) {
    STORE.weigh(hash, main, read);
}

/// A unit's preamble as `parse` shares it (`parse::Preamble`).
pub struct Identity {
    /// Its size in bytes.
    pub size: u32,
    /// A hash of its normalised text, the directory it is read in and the arguments.
    pub identity: u64,
    /// Its text, comments normalised (`in_process::Preamble`).
    pub normalized: Vec<u8>,
    /// Each comment's byte range in the file.
    pub comments: Vec<std::ops::Range<usize>>,
}

/// A unit's preamble, for sharing its parse and the walks of its headers'
/// functions (`parse::Preamble`); `None` when it includes nothing, or when
/// `args` lay files over the disk (their contents are not the key).
pub fn identity(main: &Path, text: &[u8], args: &[String]) -> Option<Identity> {
    if args.iter().any(|a| a == "-ivfsoverlay") {
        return None;
    }
    let found = including_preamble(text)?;
    let identity = hash_of(&(&found.normalized, main.parent(), args));
    Some(Identity { size: u32::try_from(found.size).ok()?, identity, normalized: found.normalized, comments: found.comments })
}

/// The preamble of `text` when it includes anything (else there is nothing to share).
fn including_preamble(text: &[u8]) -> Option<in_process::Preamble> {
    in_process::preamble(text).filter(|found| found.includes > 0 && found.size > 0)
}

/// Arguments a precompiled preamble can stand for: one OpenCL C file,
/// nothing included before it, IR out.
fn plain_compile(args: &[String]) -> bool {
    let language = args.windows(2).filter(|w| w[0] == "-x").map(|w| w[1].as_str()).collect::<Vec<_>>();
    language == ["cl"]
        && args.iter().any(|a| a == "-emit-llvm")
        && !args.iter().any(|a| a == "-fsyntax-only" || a == "-E")
        && !precompiled::text_before_main(args)
}

/// `args` without the overlay's path (its contents are the key's `replaced`).
fn key_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut skip = false;
    for arg in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if arg == "-ivfsoverlay" {
            skip = true;
            continue;
        }
        out.push(arg.clone());
    }
    out
}

/// Compiles the preamble's text, as if in the unit's directory, to a
/// precompiled header (and alone, for facts: `Request::facts`). A VFS overlay lays
/// the text over paths in that directory; no file is written there.
fn build(request: &Request, key: &Key, dir: &Path) -> Option<Built> {
    std::fs::create_dir_all(dir).ok()?;
    let text = dir.join("preamble.h");
    std::fs::write(&text, &key.text).ok()?;
    let as_header = key.dir.join(".clasp-preamble.h");
    let as_unit = key.dir.join(".clasp-preamble.cl");
    let overlay = dir.join("overlay.yaml");
    let root = |name: &Path| serde_json::json!({ "type": "file", "name": name.display().to_string(), "external-contents": text.display().to_string() });
    let yaml = serde_json::json!({ "version": 0, "case-sensitive": "true", "use-external-names": false, "roots": [root(&as_header), root(&as_unit)] });
    std::fs::write(&overlay, yaml.to_string()).ok()?;
    let with_overlay = |args: Vec<String>| [args, vec!["-ivfsoverlay".to_string(), overlay.display().to_string()]].concat();

    let pch = dir.join("preamble.pch");
    let header_args = with_overlay(header_arguments(request.args, &pch));
    let bodies = if request.facts { in_process::Bodies::Skipped } else { in_process::Bodies::Kept };
    let compiled = in_process::compile_with(request.clang, &header_args, &text, Some(&as_header), bodies).ok()?;
    if !compiled.success {
        return None;
    }
    // The store's own files (the preamble's text, the header being written) are not the user's;
    // a file only an overlay provides (an embedded kernel's text) has no stamp to go stale by.
    let read = precompiled::stamped(compiled.read.into_iter().filter(|path| !path.starts_with(dir) && *path != as_header))?;
    let alone = if request.facts {
        let compiled = in_process::compile(request.clang, &with_overlay(request.args.to_vec()), &text, Some(&as_unit)).ok()?;
        Some(compiled.output).filter(|_| compiled.success)
    } else {
        None
    };
    Some(Built { pch, overlay, alone: alone.into(), facts: OnceLock::new(), read })
}

/// The arguments that precompile the preamble: the unit's, as a header,
/// written to `pch` instead of IR to standard output.
fn header_arguments(args: &[String], pch: &Path) -> Vec<String> {
    let mut kept = Vec::with_capacity(args.len());
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        match arg.as_str() {
            "-emit-llvm" | "-c" => {}
            "-o" => {
                words.next();
            }
            _ => kept.push(arg.clone()),
        }
    }
    let mut out = precompiled::as_header(&kept);
    out.extend(["-o".to_string(), pch.display().to_string()]);
    out
}

#[cfg(test)]
mod tests {
    use super::in_process::preamble;

    fn found(text: &str) -> (String, usize, String) {
        let p = preamble(text.as_bytes()).expect("the shim lexes any text");
        (text[..p.size].to_string(), p.includes, String::from_utf8(p.normalized).unwrap())
    }

    #[test]
    fn the_preamble_is_the_leading_directives_and_comments_up_to_a_line_start() {
        let text = "// unit 7: a comment of its own\n#include \"a.h\"\n/* two\n   lines */ #define N 4\n#include \"b.h\" // trailing\n\nkernel void k() {}\n";
        let (preamble, includes, normalized) = found(text);
        assert_eq!(preamble, "// unit 7: a comment of its own\n#include \"a.h\"\n/* two\n   lines */ #define N 4\n#include \"b.h\" // trailing\n\n");
        assert_eq!(includes, 2);
        // Comments become one space each, keeping their newlines: lines keep their numbers.
        assert_eq!(normalized, " \n#include \"a.h\"\n \n #define N 4\n#include \"b.h\"  \n\n");
        let (_, _, other) = found("// unit 8: says something else\n#include \"a.h\"\n/* two\n   lines */ #define N 4\n#include \"b.h\" // other\n\nkernel void j() {}\n");
        assert_eq!(other, normalized, "preambles differing in comments only normalise alike");
    }

    #[test]
    fn a_conditional_holding_code_is_left_out_whole() {
        let text = "#include \"a.h\"\n#ifdef WIDE\n#include \"b.h\"\n#endif\n#if N > 2\nint x;\n#endif\nkernel void k() {}\n";
        let (preamble, includes, _) = found(text);
        assert_eq!(preamble, "#include \"a.h\"\n#ifdef WIDE\n#include \"b.h\"\n#endif\n");
        assert_eq!(includes, 2);
    }

    #[test]
    fn directives_whose_meaning_depends_on_the_file_end_it() {
        let (preamble, includes, _) = found("#include \"a.h\"\n#include_next <b.h>\nkernel void k() {}\n");
        assert_eq!((preamble.as_str(), includes), ("#include \"a.h\"\n", 1));
        let (preamble, includes, _) = found("#define A 1\n#include \"a.h\"\n");
        assert_eq!(
            (preamble.as_str(), includes),
            ("#define A 1\n#include \"a.h\"\n", 1),
            "a file of directives only is all preamble"
        );
        let (preamble, includes, _) = found("kernel void k() {}\n");
        assert_eq!((preamble.as_str(), includes), ("", 0));
    }

    #[test]
    fn precompiling_takes_the_units_arguments_as_a_header() {
        let args: Vec<String> =
            ["-x", "cl", "-cl-std=CL1.2", "-DN=4", "-O0", "-emit-llvm", "-c", "-o", "-"].map(String::from).to_vec();
        assert!(super::plain_compile(&args));
        let header = super::header_arguments(&args, std::path::Path::new("/t/p.pch"));
        assert_eq!(header, ["-x", "cl-header", "-cl-std=CL1.2", "-DN=4", "-O0", "-o", "/t/p.pch"]);
        for before_main in ["-include", "-imacros", "-includeprelude.h"] {
            let with = [args.clone(), vec![before_main.to_string()]].concat();
            assert!(!super::plain_compile(&with), "{before_main} puts text before the preamble");
        }
        let overlay = [args.clone(), vec!["-ivfsoverlay".into(), "/tmp/x/overlay.yaml".into()]].concat();
        assert_eq!(super::key_args(&overlay), args, "the overlay's path is not the key: the files it lays over are");
    }
}
