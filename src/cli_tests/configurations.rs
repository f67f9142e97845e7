//! Configurations from `clasp.toml` and `compile_commands.json`: each unit
//! built as each, changes named by configuration, bad ones reported; the
//! skipped code of a precompiled header seen by every unit including it.

use crate::support::clasp;

#[test]
fn configurations_are_checked_and_named() {
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "fixtures/migrate/configurations"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let change = &report["changes"][0];
    assert!(change["path"].as_str().unwrap().ends_with("common.h"));
    assert_eq!(change["configurations"], serde_json::json!(["atomics", "plain"]));
    let refusal = &report["refusals"][0];
    assert_eq!((refusal["function"].as_str(), refusal["reason"].as_str()), (Some("bump"), Some("configuration")));
    assert!(refusal["detail"].as_str().unwrap().contains("[atomics]"), "{refusal}");
    // Without the configurations, clasp derives the atomics build from the #if and comes to the same refusal.
    let (_, stdout, _) = clasp(&["migrate", "--json", "--no-config", "fixtures/migrate/configurations"]);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let refusal = &report["refusals"][0];
    assert_eq!((refusal["function"].as_str(), refusal["reason"].as_str()), (Some("bump"), Some("configuration")));
    assert!(refusal["detail"].as_str().unwrap().contains("[discovered -DUSE_ATOMICS=1]"), "{refusal}");
    assert_eq!(report["discovered"][0]["options"], serde_json::json!(["-DUSE_ATOMICS=1"]));
    assert_eq!(report["discovered"][0]["analysed"], true);
    // With neither, the atomics branch is code no unit compiles: skipped-if.
    let args = ["migrate", "--json", "--no-config", "--discover-configurations", "0", "fixtures/migrate/configurations"];
    let (_, stdout, _) = clasp(&args);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(report["refusals"][0]["reason"], "skipped-if");
}

#[test]
fn a_bad_config_is_an_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("clasp.toml"),
        "options = [\"-DA=1\"]\n[[configuration]]\nname = \"x\"\noptions = [\"-shiny\"]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("k.cl"), "__kernel void k(__global int *p) { p[0] = A; }\n").unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", dir.path().to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(stderr.contains("clasp.toml:4:") && stderr.contains("-shiny"), "{stderr}");
}

#[test]
fn compile_commands_build_each_entry_as_a_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/configurations");
    for name in ["common.h", "histogram.cl", "scale.cl"] {
        std::fs::copy(fixture.join(name), dir.path().join(name)).unwrap();
    }
    // Relative to the list's directory; options as words or as one host string.
    let list = r#"[
        {"file": "histogram.cl", "options": ["-D", "USE_ATOMICS=0"], "configuration": "plain"},
        {"file": "histogram.cl", "options": "-DUSE_ATOMICS=1 -cl-mad-enable"},
        {"file": "scale.cl"}
    ]"#;
    std::fs::write(dir.path().join("commands.json"), list).unwrap();
    let commands = dir.path().join("commands.json");
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(report["files_seen"], 2);
    assert_eq!(report["changes"][0]["configurations"], serde_json::json!(["#2", "plain"]));
    assert_eq!(report["refusals"][0]["reason"], "configuration");
    assert!(report["refusals"][0]["detail"].as_str().unwrap().contains("histogram.cl [#2]"));
    std::fs::write(&commands, r#"[{"file": "scale.cl", "options": ["-fshiny"]}]"#).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("commands.json:1:1: error: entry 1") && stderr.contains("-fshiny"), "{stderr}");
}

#[test]
fn compile_commands_reads_clangs_compile_commands_json() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/configurations");
    std::fs::create_dir_all(dir.path().join("src/kernels")).unwrap();
    for name in ["common.h", "histogram.cl", "scale.cl"] {
        std::fs::copy(fixture.join(name), dir.path().join("src/kernels").join(name)).unwrap();
    }
    std::fs::write(dir.path().join("src/host.cpp"), "int main() { return 0; }\n").unwrap();
    // As CMake writes it, in the build directory: `directory` absolute, `arguments` or `command`,
    // a host file that is no unit, and compiler options that are not the kernel's (-O2, -c, -o, -target).
    let source = dir.path().join("src");
    let list = serde_json::json!([
        { "directory": source, "file": "kernels/histogram.cl",
          "arguments": ["clang-19", "-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-O2", "-DUSE_ATOMICS=0",
                        "-c", "-o", "histogram.o", "kernels/histogram.cl"] },
        { "directory": source, "file": "kernels/histogram.cl",
          "command": "clang-19 -x cl -DUSE_ATOMICS=1 -Wall -c kernels/histogram.cl -o histogram1.o" },
        { "directory": source, "file": "kernels/scale.cl", "command": "clang-19 -c kernels/scale.cl", "output": "scale.o" },
        { "directory": source, "file": "host.cpp", "command": "c++ -O2 -c host.cpp -o host.o" }
    ]);
    std::fs::create_dir_all(dir.path().join("build")).unwrap();
    let commands = dir.path().join("build/compile_commands.json");
    std::fs::write(&commands, serde_json::to_string_pretty(&list).unwrap()).unwrap();
    let (code, stdout, stderr) = clasp(&["migrate", "--json", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(report["files_seen"], 2, "the host file is no unit");
    assert_eq!(report["changes"][0]["configurations"], serde_json::json!(["#1", "#2"]));
    assert!(report["refusals"][0]["detail"].as_str().unwrap().contains("histogram.cl [#2]"), "{}", report["refusals"]);
    // Without `arguments` or `command`, an entry of clang's form is an error.
    std::fs::write(&commands, format!(r#"[{{"directory": "{}", "file": "kernels/scale.cl"}}]"#, source.display())).unwrap();
    let (code, _, stderr) = clasp(&["migrate", "--compile-commands", commands.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("compile_commands.json:1:1: error: entry 1: it has neither `arguments` nor `command`"), "{stderr}");
}

#[test]
fn compile_commands_with_paths_is_an_error() {
    let (code, stdout, stderr) = clasp(&["migrate", "--compile-commands", "commands.json", "fixtures/migrate/chain.cl"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.starts_with("clasp: error: --compile-commands commands.json lists the units: give no PATH beside it"),
        "{stderr}"
    );
}

#[test]
fn analyze_reads_the_project_configurations() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/migrate/configurations");
    let (code, stdout, stderr) = clasp(&["analyze", "--json", fixture.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    let units: Vec<(String, String)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = f["path"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
            (name, f["configuration"].as_str().unwrap_or("-").to_string())
        })
        .collect();
    let expected = [("histogram.cl", "plain"), ("histogram.cl", "atomics"), ("scale.cl", "plain"), ("scale.cl", "atomics")];
    assert_eq!(units, expected.map(|(f, c)| (f.to_string(), c.to_string())));
    assert!(stderr.contains("clasp: 4 units analysed (2 files), 0 errors"), "{stderr}");
    // The configurations differ where clasp.toml says: `bump` only uses an atomic with USE_ATOMICS=1.
    let builtins = |i: usize| report["files"][i]["functions"].to_string().contains("atomic_inc");
    assert!(!builtins(0) && builtins(1), "{}", report["files"]);
    // The text names the configuration; --no-config reads each file once, with no options.
    let (code, stdout, _) = clasp(&["analyze", fixture.join("scale.cl").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("scale.cl [atomics]"), "{stdout}");
    let (code, stdout, stderr) = clasp(&["analyze", "--no-config", fixture.join("scale.cl").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("scale.cl [") && stderr.contains("clasp: 1 file analysed"), "{stdout}{stderr}");
}

/// A header heavy enough to be precompiled once for the units including it
/// (its `#if`-skipped text then comes from the precompiled preamble, named
/// by the path it was built with) keeps its skipped uses in every unit:
/// found through a relative `-I`, for the first unit and those parsed against it.
#[test]
fn skipped_code_in_a_precompiled_header_is_seen_by_every_unit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Over the 64 KiB from which a preamble is precompiled.
    let padding = format!("/*{}*/\n", " ".repeat(70_000));
    let header = "#ifndef H_H\n#define H_H\n\
        void copy_global(__global const uchar *from, uchar *to, int n) { for (int i = 0; i < n; ++i) to[i] = from[i]; }\n\
        void copy_in(__global const uchar *src, uchar *dst, int n)\n{\n#if defined(MODE_A)\n\
        for (int i = 0; i < n; ++i) dst[i] = src[i];\n#elif defined(MODE_B)\n copy_global(src, dst, n);\n#else\n\
        copy_global(src + 1, dst, n);\n#endif\n}\n#endif\n";
    std::fs::create_dir_all(root.join("include")).unwrap();
    std::fs::create_dir_all(root.join("k")).unwrap();
    std::fs::write(root.join("include/h.h"), format!("{padding}{header}")).unwrap();
    let units = ["u0", "u1", "u2"];
    for unit in units {
        let text = format!(
            "#include \"h.h\"\n__kernel void {unit}(__global const uchar *in, __global uchar *out) {{ uchar t[4]; copy_in(in, t, 4); out[0] = t[0]; }}\n"
        );
        std::fs::write(root.join(format!("k/{unit}.cl")), text).unwrap();
    }
    let args = ["migrate", "--explain", "--no-cache", "-j1", "--root", ".", "-I", "include", "k", "--", "-DMODE_A"];
    let (code, stdout, stderr) = crate::support::clasp_in(root, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("refused skipped-if: `src` of `copy_in`"), "{stderr}");
    for unit in units {
        let discovered = format!("configuration `discovered -DMODE_B=1` of k/{unit}.cl discovered");
        assert!(stderr.contains(&discovered), "{unit}: {stderr}");
    }
    assert!(!String::from_utf8_lossy(&stdout).contains("copy_in(const uchar"), "{stderr}");
}

/// A clasp.toml `options` element as a user gets it wrong: the error is at
/// the element, names it as clasp.toml's (not `--build-options`), and for a
/// value a space split, says how to quote it.
#[test]
fn an_options_error_is_said_of_its_clasp_toml_element() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), "__kernel void k(__global int *p) { p[0] = 1; }\n").unwrap();
    let cases = [
        (
            "options = [\"-D\", \"MSG=hello world\"]\n",
            "clasp.toml:1:19: error: `world` is not a build option clasp knows (-D, -I, -include, -cl-*, -w, -Werror, -g): \
             it is the word after `MSG=hello` in the element `MSG=hello world`, which is split as a shell would; to keep \
             them one word, quote them: `\"'MSG=hello world'\"` or `\"-D 'MSG=hello world'\"`",
        ),
        (
            "[[configuration]]\r\nname = \"a\"\r\noptions = ['-DX', \"-D 'x\"]\r\n",
            "clasp.toml:3:20: error: clasp.toml `options` element `-D 'x`: unbalanced quotes or a trailing backslash",
        ),
    ];
    for (text, error) in cases {
        std::fs::write(dir.path().join("clasp.toml"), text).unwrap();
        let (code, stdout, stderr) = clasp(&["migrate", dir.path().to_str().unwrap()]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
        assert!(stderr.contains(error) && !stderr.contains("--build-options"), "{stderr}");
    }
}
