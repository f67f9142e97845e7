//! Decoding each literal form, mapping decoded ranges back to the file, and
//! encode round trips (edit through `to_file` + `encode`, re-scan, compare).

use std::path::Path;

use super::literal::declares_kernel;
use super::*;

pub(super) fn scan_str(name: &str, src: &str) -> HostFacts {
    let path = Path::new(name);
    scan(path, src.as_bytes(), HostLanguage::of(path).expect("a host extension"))
}

fn only_literal(name: &str, src: &str) -> Literal {
    let facts = scan_str(name, src);
    assert_eq!(facts.literals.len(), 1, "one reported literal in {src}: {:?}", facts.literals);
    facts.literals.into_iter().next().unwrap()
}

/// The file bytes a decoded substring maps to.
fn mapped<'a>(src: &'a str, literal: &Literal, needle: &str) -> Option<&'a str> {
    let at = literal.text.find(needle).expect("the needle is in the decoded text") as u32;
    let range = literal.to_file(at..at + needle.len() as u32)?;
    Some(&src[range.start as usize..range.end as usize])
}

/// Replaces `needle` in the decoded text through `to_file` + `encode`, and
/// checks that the re-scanned literal reads as the edited text.
fn round_trip(name: &str, src: &str, needle: &str, replacement: &str) -> String {
    let literal = only_literal(name, src);
    let at = literal.text.find(needle).unwrap() as u32;
    let range = literal.to_file(at..at + needle.len() as u32).expect("the range maps");
    let mut edited = src.to_string();
    edited.replace_range(range.start as usize..range.end as usize, &literal.encode(at, replacement));
    let expected = literal.text.replacen(needle, replacement, 1);
    assert_eq!(only_literal(name, &edited).text, expected, "after the edit:\n{edited}");
    edited
}

#[test]
fn adjacent_c_literals_are_one_string_mapped_piece_by_piece() {
    let src = "const char *src =\n  \"__kernel void k(__global int *p)\\n\"\n  \"{\\n\"\n  \"\\t*p = 1;\\n\"\n  \"}\\n\";\n";
    let literal = only_literal("k.c", src);
    assert_eq!(literal.text, "__kernel void k(__global int *p)\n{\n\t*p = 1;\n}\n");
    assert!(literal.declares_kernel);
    assert_eq!(literal.variable.as_deref(), Some("src"));
    assert_eq!((literal.start.line, literal.start.col), (2, 3));
    assert_eq!(mapped(src, &literal, "__global int"), Some("__global int"));
    // An escape maps only whole; `\t*p` spans an escape and the text after it.
    assert_eq!(mapped(src, &literal, "\t*p"), Some("\\t*p"));
    let tab = literal.text.find('\t').unwrap() as u32;
    assert_eq!(literal.to_file(tab..tab + 1).map(|r| &src[r.start as usize..r.end as usize]), Some("\\t"));
    // Across two literals: the quotes and the line break between them come along.
    assert_eq!(mapped(src, &literal, "p)\n{"), Some("p)\\n\"\n  \"{"));
    assert!(literal.pieces.iter().all(|p| p.form == PieceForm::CEscaped));
}

#[test]
fn escapes_decode_and_a_line_continuation_reads_as_nothing() {
    let src = "const char *s = \"kernel void f() { char c = '\\101\\x42'; }\\\n// \\\"q\\\\\";\n";
    let literal = only_literal("k.c", src);
    assert_eq!(literal.text, "kernel void f() { char c = 'AB'; }// \"q\\");
    // The continuation is an empty piece; an edit may run across it.
    assert_eq!(mapped(src, &literal, "}// "), Some("}\\\n// "));
}

#[test]
fn a_printf_format_piece_or_a_macro_piece_is_undecodable() {
    let src = "void f(const char *body) {\n  char buf[4096];\n  snprintf(buf, sizeof buf, \"kernel void k(global int *p) {%s}\", body);\n  \
               cl_program p = clCreateProgramWithSource(ctx, 1, (const char **)&buf, NULL, &err);\n}\n";
    let literal = only_literal("k.c", src);
    assert!(literal.undecodable.as_deref().is_some_and(|w| w.contains("snprintf")), "{literal:?}");
    assert_eq!(literal.passed_to.as_deref(), Some("clCreateProgramWithSource"));
    assert!(literal.pieces.is_empty() && literal.to_file(0..1).is_none());

    let src = "const char *src = \"kernel void k(global ulong *p) { printf(\\\"%\" PRIu64 \"\\\", *p); }\";\n";
    let literal = only_literal("k.c", src);
    assert_eq!(literal.undecodable.as_deref(), Some("`PRIu64` is a macro: its text is not in this file"));
    assert!(literal.declares_kernel, "the decodable part still tells what it is");
}

#[test]
fn raw_strings_with_a_custom_delimiter_are_verbatim() {
    let src = "static const char *src = R\"CLC(kernel void k(global int *p) {\n  *p = sizeof(\")\");\n})CLC\";\n";
    let literal = only_literal("k.cpp", src);
    assert_eq!(literal.text, "kernel void k(global int *p) {\n  *p = sizeof(\")\");\n}");
    assert_eq!(literal.pieces.len(), 1);
    assert_eq!(literal.pieces[0].form, PieceForm::Verbatim);
    assert_eq!(mapped(src, &literal, "p) {\n  *p"), Some("p) {\n  *p"));
    assert_eq!(literal.encode(0, "a\"b\n"), "a\"b\n");
    round_trip("k.cpp", src, "global int", "int");
}

#[test]
fn adjacent_raw_strings_join_only_with_the_same_delimiter() {
    let src = "const char *s = R\"(kernel void )\" R\"x(k() {})x\";\n";
    let literal = only_literal("k.cpp", src);
    assert_eq!(literal.text, "kernel void k() {}");
    assert_eq!(mapped(src, &literal, "void k"), None, "merging would break the delimiters");
    assert!(mapped(src, &literal, "void").is_some());
}

#[test]
fn python_triple_quoted_raw_and_concatenated_strings() {
    let src = "import pyopencl as cl\nSRC = '''\nkernel void k(global int *p) {\n\t*p = 1;\n}\n'''\n";
    let literal = only_literal("k.py", src);
    assert_eq!(literal.text, "\nkernel void k(global int *p) {\n\t*p = 1;\n}\n");
    assert_eq!(literal.variable.as_deref(), Some("SRC"));
    assert_eq!(literal.pieces[0].form, PieceForm::PythonEscaped { quote: b'\'', triple: true });
    assert_eq!(literal.encode(1, "a\n'\\"), "a\n\\'\\\\");

    let src = "SRC = (r\"kernel void k() { /* \\n stays */ }\"\n       \"\\n\" 'x')\n";
    let literal = only_literal("k.py", src);
    assert_eq!(literal.text, "kernel void k() { /* \\n stays */ }\nx");
    assert_eq!(literal.pieces[0].form, PieceForm::Verbatim);
    assert_eq!(mapped(src, &literal, "\\n stays"), Some("\\n stays"));
    assert_eq!(mapped(src, &literal, "}\n"), None, "a raw and an escaped literal do not merge");
}

#[test]
fn an_f_string_or_percent_format_is_undecodable() {
    let literal = only_literal("k.py", "SRC = f\"kernel void k(global {T} *p) {{}}\"\n");
    assert!(literal.undecodable.as_deref().is_some_and(|w| w.contains("f-string")));
    let literal = only_literal("k.py", "SRC = \"kernel void k(global %s *p) {}\" % ty\n");
    assert!(literal.undecodable.as_deref().is_some_and(|w| w.contains("`%` format")));
}

#[test]
fn a_stringify_macro_argument_is_the_collapsed_source_text() {
    let src =
        "#define STR(A) #A\nconst char *src = STR(\n  kernel void k(global int *p)   /* c */ {\n    *p = \"a  b\"[0];\n  });\n";
    let literal = only_literal("k.c", src);
    assert_eq!(literal.text, "kernel void k(global int *p) { *p = \"a  b\"[0]; }");
    assert_eq!(literal.variable.as_deref(), Some("src"));
    // Kept runs map byte for byte; a collapsed run maps only whole.
    assert_eq!(mapped(src, &literal, "void k(global"), Some("void k(global"));
    assert_eq!(mapped(src, &literal, ") {"), Some(")   /* c */ {"));
    let space = literal.text.find(") {").unwrap() as u32 + 1;
    assert_eq!(literal.to_file(space..space), Some(space_file_start(src)));
    assert_eq!(literal.to_file(space..space + 1).map(|r| r.len()), Some("   /* c */ ".len()));
    round_trip("k.c", src, "global int *p", "int *p");
}

fn space_file_start(src: &str) -> std::ops::Range<u32> {
    let at = src.find(")   /*").unwrap() as u32 + 1;
    at..at
}

#[test]
fn a_variadic_stringify_macro_counts_too() {
    let literal = only_literal("k.c", "#define CL(...) # __VA_ARGS__\nconst char *s = CL(kernel void k(int a, int b) {});\n");
    assert_eq!(literal.text, "kernel void k(int a, int b) {}");
}

#[test]
fn encode_round_trips_through_escaped_literals() {
    let src = "const char *src = \"kernel void k(global int *p)\\n\"\n                  \"{ *p = 1; }\\n\";\n";
    let edited = round_trip("k.c", src, "global int *p", "global char *q, char \"c\"\t\\");
    assert!(edited.contains("char \\\"c\\\"\\t\\\\"), "{edited}");
    // An edit across the two literals merges them.
    round_trip("k.c", src, "p)\n{", "q)\n\n{");
    let py = "SRC = \"kernel void k(global int *p) {}\"\n";
    let edited = round_trip("k.py", py, "global int", "line\none \"quoted\"");
    assert!(edited.contains("line\\none \\\"quoted\\\""), "{edited}");
    round_trip("k.py", "SRC = \"\"\"kernel void k(global int *p) {}\"\"\"\n", "global int", "a\nb\tc");
}

#[test]
fn crlf_line_ends_read_as_newlines() {
    let src = "SRC = \"\"\"kernel void k()\r\n{}\"\"\"\r\n";
    let literal = only_literal("k.py", src);
    assert_eq!(literal.text, "kernel void k()\n{}");
    assert_eq!(mapped(src, &literal, "()\n{"), Some("()\r\n{"));
}

#[test]
fn literals_that_neither_declare_a_kernel_nor_feed_a_program_are_left_out() {
    let facts = scan_str("k.c", "#include \"CL/cl.h\"\nvoid f(void) { puts(\"hello kernel\"); }\n");
    assert!(facts.literals.is_empty(), "{:?}", facts.literals);
}

#[test]
fn the_kernel_test_walks_tokens() {
    assert!(declares_kernel("__kernel void k()"));
    assert!(declares_kernel("x;kernel\n\tvoid k()"));
    assert!(!declares_kernel("my_kernel void"));
    assert!(!declares_kernel("kernel_void k"));
    assert!(!declares_kernel("kernel, void"));
    assert!(!declares_kernel("void kernel()"));
}

#[test]
fn language_by_extension() {
    assert_eq!(HostLanguage::of(Path::new("a/host.c")), Some(HostLanguage::C));
    assert_eq!(HostLanguage::of(Path::new("kernels.H")), Some(HostLanguage::Cpp));
    assert_eq!(HostLanguage::of(Path::new("run.py")), Some(HostLanguage::Python));
    assert_eq!(HostLanguage::of(Path::new("k.cl")), None);
}

#[test]
fn files_with_no_word_a_fact_needs_are_not_parsed_and_give_nothing() {
    use super::scan::may_have_facts;
    assert!(!may_have_facts(b"int main(void) { cl_kernel k = make(); return run(k); }\n"));
    assert!(may_have_facts(b"const char *s = \"kernel  void f(global int *p) {}\";"));
    assert!(may_have_facts(b"err = clBuildProgram(p, 0, NULL, NULL, NULL, NULL);"));
    assert!(may_have_facts(b"prg.build(options=['-DN=4'])"));
    assert!(may_have_facts(b"auto p = make(ctx, src); p->build(\"-DN=4\");"));
    assert!(!may_have_facts(b"int kernelvoid; int kernel_void;"));
}

#[test]
fn a_deletion_emptying_whole_literal_lines_takes_the_lines() {
    let text = b"x =\n    \"a\\n\"\n    \"b\\n\"\n    \"c\\n\";\n";
    let text = text.as_slice();
    // Deleting `b\n` (the content of the middle literal) removes its whole line.
    let b = text.iter().position(|c| *c == b'b').unwrap() as u32;
    let range = crate::host::whole_literal_lines(text, b..b + 3);
    let mut edited = text.to_vec();
    edited.drain(range.start as usize..range.end as usize);
    assert_eq!(String::from_utf8(edited).unwrap(), "x =\n    \"a\\n\"\n    \"c\\n\";\n");
    // Part of a literal is not a line.
    assert_eq!(crate::host::whole_literal_lines(text, b..b + 1), b..b + 1);
}
