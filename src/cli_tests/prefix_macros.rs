//! A macro before or after a declaration that expands to nothing in the
//! analysed build but not in every build (`-DNOINLINE=__attribute__((noinline))`):
//! a merge deleting the declaration, a program-scope move and a signature
//! rewrite come out the same whichever build clasp analyses (so nothing is
//! left behind, lost or written twice), and the result compiles in both.

use std::path::Path;

use crate::support::{clasp_in, copy_fixture};

/// The fixtures, the macro each uses, the value a host may give it, and the
/// fixture's own options.
const CASES: [(&str, &str, &str, &[&str]); 3] = [
    ("merge_prefix_macro.cl", "NOINLINE", "__attribute__((noinline))", &[]),
    ("globals_prefix_macro.cl", "TABLE_ATTR", "__attribute__((aligned(16)))", &["--globals", "prefer-global"]),
    ("signature_prefix_macro.cl", "NOINLINE", "__attribute__((noinline))", &[]),
];

/// The fixture migrated (`--write`) in a directory of its own, with
/// `options` and, when given, `clasp.toml`; the file as written.
fn migrated(fixture: &str, own: &[&str], options: &[&str], config: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_fixture(dir.path(), fixture);
    if let Some(config) = config {
        std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
    }
    let mut args = vec!["migrate", "--write", "--no-cache"];
    args.extend(own);
    args.extend(options);
    args.push(fixture);
    let (code, _, stderr) = clasp_in(dir.path(), &args);
    assert_eq!(code, 0, "{fixture} {options:?} {config:?}: {stderr}");
    std::fs::read_to_string(path).unwrap()
}

/// Whether `text` compiles as OpenCL C 2.0 with `defines`.
fn compiles(dir: &Path, text: &str, defines: &[String]) -> Result<(), String> {
    let path = dir.join("result.cl");
    std::fs::write(&path, text).unwrap();
    let mut args =
        clasp::settings::options::CompileOptions::default().clang_args(Some(&clasp::settings::options::Target::Cl20.std_flags()));
    args.extend(defines.iter().cloned());
    clasp::verify::compiles(&path, &args, &Default::default()).map_err(|e| e.to_string())
}

#[test]
fn declarations_take_the_empty_macros_around_them_in_every_build() {
    let scratch = tempfile::tempdir().unwrap();
    for (fixture, name, value, own) in CASES {
        let define = format!("-D{name}={value}");
        let configurations = |first: &str, second: &str| {
            format!("[[configuration]]\nname = \"{first}\"\noptions = [{}]\n\n[[configuration]]\nname = \"{second}\"\noptions = [{}]\n",
                if first == "defined" { format!("{define:?}") } else { String::new() },
                if second == "defined" { format!("{define:?}") } else { String::new() })
        };
        let plain = migrated(fixture, own, &[], None);
        let original =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate").join(fixture)).unwrap();
        assert_ne!(plain, original, "{fixture}: nothing changed");
        // The same edits whichever build is analysed, alone or with the other, in either order.
        assert_eq!(migrated(fixture, own, &[&define], None), plain, "{fixture} analysed with {define}");
        assert_eq!(migrated(fixture, own, &[], Some(&configurations("plain", "defined"))), plain, "{fixture}: both builds");
        assert_eq!(migrated(fixture, own, &[], Some(&configurations("defined", "plain"))), plain, "{fixture}: both, reversed");
        for defines in [vec![], vec![define.clone()]] {
            compiles(scratch.path(), &plain, &defines).unwrap_or_else(|e| panic!("{fixture} {defines:?}:\n{plain}\n{e}"));
        }
    }
}
