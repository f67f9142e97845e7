//! The layering test: the pipeline runs one way, and the module tree says so.
//!
//! It reads every `crate::`, `super::` and `self::` path in `src/` (in `use`
//! lines, `use crate::a::{b, c}` groups, inline paths, and serde's
//! `"crate::..."` attribute strings), and a folder's `mod.rs` naming a
//! child (`walker::walk`). A path lands in the deepest module it names; a
//! name a module imports from one of its children (`pub use detect::Detected`)
//! lands in that child. Test code (`#[cfg(test)]` modules and files) is left
//! out: a test may use any stage, as an integration test does.
//!
//! It fails on an edge from a top-level module to one at or after it in
//! [`LAYERS`], on a top-level module missing from it, and on any cycle among
//! the files of one folder (a folder's `mod.rs` declares and re-exports its
//! files, so its own edges are not counted there). Run
//! `cargo test --lib layers -- --nocapture` to print the graph's summary.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The stages, first to last: a module may use only those before its own.
/// Mirrored in `src/lib.rs`'s documentation.
const LAYERS: &[&str] = &[
    "support",
    "isolation",
    "codes",
    "settings",
    "facts",
    "host",
    "input",
    "front",
    "verify",
    "infer",
    "rules",
    "migrate",
    "output",
    "devices",
    "trace",
    "cli",
    "commands",
    "server",
];

/// What sits in `src/` but is no module of the library: the binaries, the
/// test crates, the native shim and this test.
const NOT_LIBRARY: &[&str] =
    &["main.rs", "fixture_tests.rs", "layers_tests.rs", "bin", "cli_tests", "host_tests", "fuzz_tests", "native"];

type Module = Vec<String>;

/// A folder, its files and folders, and the edges among them.
type Folder = (Module, BTreeSet<Module>, BTreeSet<(Module, Module)>);

/// The library's source: each module (a path from the crate root) and its text.
fn read_tree(dir: &Path, prefix: &Module, out: &mut BTreeMap<Module, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if prefix.is_empty() && NOT_LIBRARY.contains(&name.as_str()) {
            continue;
        }
        let mut module = prefix.clone();
        if path.is_dir() {
            module.push(name);
            read_tree(&path, &module, out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if !(stem == "mod" || (prefix.is_empty() && stem == "lib")) {
                module.push(stem.to_string());
            }
            out.insert(module, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// Identifiers, `::` and single punctuation, with comments dropped and
/// string literals dropped unless one holds a path (`"crate::a::f"`).
fn tokens(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        let rest = &text[i..];
        let c = bytes[i];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |end| end + 2);
        } else if let Some(len) = string_literal(rest) {
            let inner = rest[..len].trim_start_matches(['b', 'r', '#']).trim_matches(['"', '#']);
            if inner.starts_with("crate::") || inner.starts_with("super::") {
                out.extend(tokens(inner));
            }
            i += len;
        } else if c == b'\'' {
            // A char literal (`'a'`, `'\n'`) or a lifetime (`'t`).
            let char_len = rest[1..].find('\'').filter(|&n| n <= 4 && !rest[1..=n].contains(' ')).map(|n| n + 2);
            i += char_len
                .filter(|_| !rest[1..].starts_with(|c: char| c.is_alphabetic()) || rest.as_bytes().get(2) == Some(&b'\''))
                .unwrap_or(1);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            out.push(rest[..len].to_string());
            i += len;
        } else if rest.starts_with("::") {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_ascii_whitespace() {
                out.push((c as char).to_string());
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// The length of the string literal `rest` starts with, if it starts with one.
fn string_literal(rest: &str) -> Option<usize> {
    let raw = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'));
    if let Some(after) = raw {
        let hashes = after.len() - after.trim_start_matches('#').len();
        if after[hashes..].starts_with('"') {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = rest.len() - after.len() + hashes + 1;
            return Some(body + rest[body..].find(&close)? + close.len());
        }
        return None;
    }
    let start = usize::from(rest.starts_with("b\""));
    if !rest[start..].starts_with('"') {
        return None;
    }
    let mut i = start + 1;
    while i < rest.len() {
        match rest.as_bytes()[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    Some(rest.len())
}

/// A path or `use` tree at `tokens[i]`: every full path it names (groups
/// expanded), and the index after it.
fn path_tree(tokens: &[String], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut segments = Vec::new();
    while i < tokens.len() {
        let token = tokens[i].as_str();
        if token == "{" {
            let mut paths = Vec::new();
            i += 1;
            while i < tokens.len() && tokens[i] != "}" {
                let (inner, next) = path_tree(tokens, i);
                paths.extend(inner.into_iter().map(|p| [segments.clone(), p].concat()));
                i = if next > i { next } else { i + 1 };
                if tokens.get(i).is_some_and(|t| t == ",") {
                    i += 1;
                }
            }
            return (if paths.is_empty() { vec![segments] } else { paths }, i + 1);
        }
        if !token.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            break;
        }
        segments.push(token.to_string());
        i += 1;
        if tokens.get(i).is_some_and(|t| t == "::") {
            i += 1;
        } else {
            break;
        }
    }
    (vec![segments], i)
}

/// What one file says: the paths it names (the module they are named in,
/// the path, whether a `use` names it), and its `#[cfg(test)] mod x;` files.
#[derive(Default)]
struct FileScan {
    paths: Vec<(Module, Vec<String>, bool)>,
    test_children: Vec<String>,
}

/// Whether `tokens[..i]` ends with `#[cfg(test)]`, visibility aside.
fn after_cfg_test(tokens: &[String], i: usize) -> bool {
    let mut j = i;
    while j > 0 && ["pub", "(", ")", "crate", "super"].contains(&tokens[j - 1].as_str()) {
        j -= 1;
    }
    j >= 7 && tokens[j - 7..j].join("") == "#[cfg(test)]"
}

/// The index after the block opening at `tokens[open]`.
fn block_end(tokens: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (k, token) in tokens.iter().enumerate().skip(open) {
        depth += i32::from(token == "{") - i32::from(token == "}");
        if depth == 0 {
            return k + 1;
        }
    }
    tokens.len()
}

fn scan_file(module: &Module, text: &str) -> FileScan {
    let tokens = tokens(text);
    let mut scan = FileScan::default();
    let (mut inline, mut depth): (Vec<(i32, String)>, i32) = (Vec::new(), 0);
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i].as_str();
        let previous = if i > 0 { tokens[i - 1].as_str() } else { "" };
        if token == "mod" && i + 2 < tokens.len() && ["{", ";"].contains(&tokens[i + 2].as_str()) {
            let (name, opens) = (tokens[i + 1].clone(), tokens[i + 2] == "{");
            match (after_cfg_test(&tokens, i), opens) {
                (true, true) => i = block_end(&tokens, i + 2),
                (true, false) => (scan.test_children.push(name), i += 3).1,
                (false, true) => (inline.push((depth, name)), depth += 1, i += 3).2,
                (false, false) => i += 3,
            }
            continue;
        }
        depth += i32::from(token == "{") - i32::from(token == "}");
        if token == "}" && inline.last().is_some_and(|(d, _)| *d == depth) {
            inline.pop();
        }
        let names_path = tokens.get(i + 1).is_some_and(|t| t == "::") && previous != "::" && previous != ".";
        if names_path && token.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
            let context: Module = module.iter().cloned().chain(inline.iter().map(|(_, n)| n.clone())).collect();
            let (paths, next) = path_tree(&tokens, i);
            let relative = !["crate", "super", "self"].contains(&token);
            for path in paths {
                let path = if relative { [vec!["self".to_string()], path].concat() } else { path };
                scan.paths.push((context.clone(), path, previous == "use"));
            }
            i = next.max(i + 1);
            continue;
        }
        i += 1;
    }
    scan
}

/// The module graph: every file's module and the files its paths land in.
struct Graph {
    files: BTreeSet<Module>,
    edges: BTreeMap<(Module, Module), Vec<String>>,
}

/// The deepest module `path` (named in `context`) reaches, a name imported
/// from a child followed into it; `None` for a relative path that names no
/// child module (a crate, a type, a local).
fn resolve(
    context: &Module,
    path: &[String],
    modules: &BTreeSet<Module>,
    imports: &BTreeMap<(Module, String), Module>,
) -> Option<Module> {
    if path.is_empty() {
        return None;
    }
    let (mut at, mut rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (context.clone(), &path[1..]),
        _ => (context.clone(), path),
    };
    if path[0] == "self"
        && path.len() > 1
        && path[1] != "super"
        && !modules.contains(&[at.clone(), vec![path[1].clone()]].concat())
    {
        return None;
    }
    while rest.first().is_some_and(|s| s == "super") {
        at.pop();
        rest = &rest[1..];
    }
    while let Some(next) = rest.first() {
        let child = [at.clone(), vec![next.clone()]].concat();
        if let Some(target) =
            modules.contains(&child).then_some(child).or_else(|| imports.get(&(at.clone(), next.clone())).cloned())
        {
            (at, rest) = (target, &rest[1..]);
        } else {
            break;
        }
    }
    Some(at)
}

fn graph(tree: &BTreeMap<Module, String>) -> Graph {
    let scans: BTreeMap<&Module, FileScan> = tree.iter().map(|(m, text)| (m, scan_file(m, text))).collect();
    let test_files: BTreeSet<Module> =
        scans.iter().flat_map(|(m, s)| s.test_children.iter().map(|c| [(*m).clone(), vec![c.clone()]].concat())).collect();
    let files: BTreeSet<Module> = tree.keys().filter(|m| !test_files.contains(*m)).cloned().collect();
    let mut modules: BTreeSet<Module> = tree.keys().cloned().collect();
    modules.extend(scans.values().flat_map(|s| s.paths.iter().map(|(context, _, _)| context.clone())));
    // Names a module imports from one of its own children (`use child::Name`).
    let mut imports = BTreeMap::new();
    for (module, scan) in &scans {
        for (context, path, is_use) in &scan.paths {
            let inside = |target: &Module| target.len() > module.len() && target.starts_with(module);
            let target = resolve(context, &path[..path.len() - 1], &modules, &BTreeMap::new());
            if let Some(target) = target.filter(|t| *is_use && context == *module && path.len() > 1 && inside(t)) {
                imports.insert(((*module).clone(), path.last().unwrap().clone()), target);
            }
        }
    }
    let file_of = |m: &Module| (0..=m.len()).rev().map(|n| m[..n].to_vec()).find(|p| tree.contains_key(p)).unwrap();
    let mut edges: BTreeMap<(Module, Module), Vec<String>> = BTreeMap::new();
    for (module, scan) in scans.iter().filter(|(m, _)| files.contains(**m)) {
        for (context, path, _) in &scan.paths {
            let Some(target) = resolve(context, path, &modules, &imports).map(|t| file_of(&t)) else { continue };
            if target != **module {
                edges.entry(((*module).clone(), target)).or_default().push(path.join("::"));
            }
        }
    }
    Graph { files, edges }
}

/// The strongly connected components of more than one node (Tarjan's).
fn cycles(nodes: &BTreeSet<Module>, edges: &BTreeSet<(Module, Module)>) -> Vec<Vec<Module>> {
    struct Search<'g> {
        edges: &'g BTreeSet<(Module, Module)>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        found: Vec<Vec<Module>>,
    }
    fn visit(s: &mut Search, v: &Module) {
        let n = s.index.len();
        s.index.insert(v.clone(), n);
        s.low.insert(v.clone(), n);
        s.stack.push(v.clone());
        let next: Vec<Module> = s.edges.iter().filter(|(a, _)| a == v).map(|(_, b)| b.clone()).collect();
        for w in next {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                s.low.insert(v.clone(), s.low[v].min(s.low[&w]));
            } else if s.stack.contains(&w) {
                s.low.insert(v.clone(), s.low[v].min(s.index[&w]));
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().position(|m| m == v).unwrap();
            let component: Vec<Module> = s.stack.split_off(at);
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut search = Search { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for node in nodes {
        if !search.index.contains_key(node) {
            visit(&mut search, node);
        }
    }
    search.found
}

/// Every breach of the layering: edges against [`LAYERS`], unknown top-level
/// modules, and cycles among the files of a folder.
fn breaches(graph: &Graph) -> Vec<String> {
    let mut found = Vec::new();
    // The crate root (`lib.rs`, `clasp::run`) comes after every layer.
    let rank = |m: &Module| match m.first() {
        None => Some(LAYERS.len()),
        Some(top) => LAYERS.iter().position(|l| l == top),
    };
    for top in graph.files.iter().filter_map(|m| m.first()).collect::<BTreeSet<_>>() {
        if !LAYERS.contains(&top.as_str()) {
            found.push(format!("`{top}` is in no layer: add it to LAYERS (src/layers_tests.rs) and src/lib.rs"));
        }
    }
    for ((from, to), paths) in &graph.edges {
        if let (Some(a), Some(b)) = (rank(from), rank(to)) {
            if a != b && b > a {
                let (from, to) = (from.join("::"), to.join("::"));
                let layer = |n: usize| LAYERS.get(n).copied().unwrap_or("the crate root");
                found.push(format!(
                    "{from} -> {to} goes against the layers ({} before {}): {}",
                    layer(a),
                    layer(b),
                    paths.join(", ")
                ));
            }
        }
    }
    for (folder, siblings, edges) in folders(graph) {
        for cycle in cycles(&siblings, &edges) {
            let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
            found.push(format!("cycle among the files of {}: {}", display(&folder), names.join(" <-> ")));
        }
    }
    found
}

fn display(module: &Module) -> String {
    if module.is_empty() {
        "crate".into()
    } else {
        module.join("::")
    }
}

/// Each folder (the crate root included): its files and folders, and the
/// edges among them (a file's edge counted for the sibling that holds it).
fn folders(graph: &Graph) -> Vec<Folder> {
    let parents: BTreeSet<Module> = graph.files.iter().filter(|m| !m.is_empty()).map(|m| m[..m.len() - 1].to_vec()).collect();
    parents
        .into_iter()
        .map(|folder| {
            let sibling = |m: &Module| (m.len() > folder.len() && m.starts_with(&folder)).then(|| m[..=folder.len()].to_vec());
            let siblings: BTreeSet<Module> = graph.files.iter().filter_map(sibling).collect();
            let edges =
                graph.edges.keys().filter_map(|(a, b)| Some((sibling(a)?, sibling(b)?))).filter(|(a, b)| a != b).collect();
            (folder, siblings, edges)
        })
        .collect()
}

fn library() -> Graph {
    let mut tree = BTreeMap::new();
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &Vec::new(), &mut tree);
    graph(&tree)
}

#[test]
fn modules_import_one_way() {
    let graph = library();
    let found = breaches(&graph);
    let tops: BTreeSet<&String> = graph.files.iter().filter_map(|m| m.first()).collect();
    let across =
        graph.edges.keys().filter_map(|(a, b)| Some((a.first()?, b.first()?))).filter(|(a, b)| a != b).collect::<BTreeSet<_>>();
    println!(
        "{} files, {} edges between files; {} top-level modules, {} edges between them",
        graph.files.len(),
        graph.edges.len(),
        tops.len(),
        across.len()
    );
    println!("layers, first to last: {}", LAYERS.join(" -> "));
    for (folder, siblings, edges) in folders(&graph) {
        println!(
            "{}: {} files, {} edges among them, cycles: {}",
            display(&folder),
            siblings.len(),
            edges.len(),
            cycles(&siblings, &edges).len()
        );
    }
    assert!(found.is_empty(), "the pipeline must run one way:\n{}", found.join("\n"));
}

#[test]
fn a_back_edge_or_a_cycle_is_found() {
    let tree: BTreeMap<Module, String> = [
        (vec![], "mod support; mod isolation; mod front; mod commands; pub use commands::run;"),
        (vec!["support".into()], "pub mod a; pub mod b;"),
        (vec!["support".into(), "a".into()], "use super::b::X; pub struct Y;"),
        (
            vec!["support".into(), "b".into()],
            "pub struct X; fn f() -> super::a::Y { todo!() }\n#[cfg(test)]\nmod tests { use crate::commands::run; }",
        ),
        (vec!["front".into()], "use crate::{support::a::Y, commands::run};\n#[serde(with = \"crate::support::b::X\")]"),
        (vec!["commands".into()], "pub fn run() { crate::front::f(); }"),
        (vec!["isolation".into()], "fn main() { crate::run(); }"),
    ]
    .into_iter()
    .map(|(m, t)| (m, t.to_string()))
    .collect();
    let found = breaches(&graph(&tree));
    assert!(found.iter().any(|b| b.starts_with("front -> commands goes against the layers")), "{found:#?}");
    assert!(found.iter().any(|b| b.starts_with("cycle among the files of support: ")), "{found:#?}");
    assert!(found.iter().any(|b| b == "cycle among the files of crate: commands <-> front"), "{found:#?}");
    assert!(found.iter().any(|b| b.starts_with("isolation -> commands goes against the layers")), "{found:#?}");
    assert_eq!(found.len(), 4, "{found:#?}");
    let edges = graph(&tree).edges;
    assert!(edges.contains_key(&(vec!["front".into()], vec!["support".into(), "b".into()])), "a path in a string: {edges:?}");
}
