//! Source files wrapped so that a host can `#include` them where a string
//! is expected: the whole file is one C++ raw string literal
//! (`R"delim(` ... `)delim"`), or one run of adjacent literals: escaped C
//! string literals (C has no raw strings), or raw strings (a long kernel
//! split into several, as compilers bound one literal's length: MSVC at
//! 16 KB), or both:
//!
//! ```c
//! /* licence ... */
//! "kernel void axpy(__global float *y, __global const float *x, float a)\n"
//! "{\n"
//! "    y[get_global_id(0)] += a * x[get_global_id(0)];\n"
//! "}\n"
//! ```
//!
//! Around the wrapper only comments (line or block), blank lines and
//! preprocessor lines (a licence block, `#pragma once`, a closing note) may
//! stand; they stay as they are. The file is read with tree-sitter-cpp
//! (its literals are C's, plus raw strings), so a quote inside a comment is
//! never taken for the wrapper, and a file with code beside its literals is
//! no wrapper: it is kernel code as it is.

use std::ops::Range;

use tree_sitter::Node;

use crate::host::Literal;

/// The content of a file that is wholly one C++ raw string literal, as a
/// byte range; `None` when the file is anything else (kernel code as it is,
/// a syntax error, two literals, escaped literals).
pub fn raw_string_content(bytes: &[u8]) -> Option<Range<usize>> {
    // Most kernel files hold no raw string at all: they are not parsed.
    memchr::memmem::find(bytes, b"R\"")?;
    let tree = parse(bytes)?;
    let literal = wrapper_literal(tree.root_node()).filter(|n| n.kind() == "raw_string_literal")?;
    let text = &bytes[literal.start_byte()..literal.end_byte()];
    // `R"delim(` (any encoding prefix before the `R`) ... `)delim"`.
    let quote = text.iter().position(|b| *b == b'"')?;
    let open = quote + text[quote..].iter().position(|b| *b == b'(')?;
    let delimiter = &text[quote + 1..open];
    let close: Vec<u8> = [b")".as_slice(), delimiter, b"\""].concat();
    if !text.ends_with(&close) || text.len() < open + 1 + close.len() {
        return None;
    }
    Some(literal.start_byte() + open + 1..literal.end_byte() - close.len())
}

/// The literal of a file that is wholly one run of adjacent string
/// literals, escaped or raw (comments may stand between them, a literal may
/// end mid-line), or one escaped literal, decoded as a host that `#include`s the file receives it, with
/// the map from its text back to the file; `None` when the file is anything
/// else, or when some of the run is not known exactly (a macro among the
/// literals, an unknown escape).
pub fn escaped_string_content(bytes: &[u8]) -> Option<Literal> {
    memchr::memchr(b'"', bytes)?;
    let tree = parse(bytes)?;
    let literal = wrapper_literal(tree.root_node())?;
    // (One raw string alone is `raw_string_content`'s: its text as it is.)
    let string = |n: Node| matches!(n.kind(), "string_literal" | "raw_string_literal");
    let only_strings = match literal.kind() {
        "string_literal" => true,
        "concatenated_string" => {
            let mut cursor = literal.walk();
            let parts: Vec<Node> = literal.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect();
            parts.into_iter().all(string)
        }
        _ => false,
    };
    only_strings.then(|| crate::host::decode_wrapper(literal, bytes)).flatten()
}

fn parse(bytes: &[u8]) -> Option<tree_sitter::Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_cpp::LANGUAGE.into()).ok()?;
    parser.parse(bytes, None)
}

/// The one literal (a string, raw string, or run of adjacent ones) that the
/// file's top level holds among comments and preprocessor lines; `None` if
/// it holds anything else, or two of them.
fn wrapper_literal(root: Node) -> Option<Node> {
    let mut literal = None;
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        match node.kind() {
            "comment" => {}
            kind if kind.starts_with("preproc_") && !kind.starts_with("preproc_if") => {}
            // The wrapper: literals, with comments and no `;`. tree-sitter
            // reads it as a statement missing its `;`, or as an error node
            // holding the literal alone (a wrapper on one line): neither is
            // an error of the wrapper.
            "expression_statement" | "ERROR" if literal.is_none() => literal = Some(only_literal(node)?),
            _ => return None,
        }
    }
    literal
}

/// The one literal a statement (or an error node) is made of, comments
/// aside; `None` if it holds anything else or a syntax error.
fn only_literal(statement: Node) -> Option<Node> {
    let mut cursor = statement.walk();
    let mut found = None;
    for child in statement.children(&mut cursor) {
        match child.kind() {
            "comment" => {}
            ";" if child.is_missing() => {}
            "raw_string_literal" | "string_literal" | "concatenated_string" if found.is_none() && !child.has_error() => {
                found = Some(child)
            }
            _ => return None,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_wrapped_as_a_raw_string_gives_its_content() {
        let text = b"R\"CLC(\nfloat f(void);\n)CLC\"\n";
        let range = raw_string_content(text).expect("wrapped");
        assert_eq!(&text[range], b"\nfloat f(void);\n");
        assert_eq!(raw_string_content(b"float f(void);\n"), None);
        assert_eq!(raw_string_content(b"R\"x(a)y\""), None, "the delimiters differ");
    }

    #[test]
    fn a_wrapper_among_comments_and_preprocessor_lines_gives_its_content() {
        for (text, content) in [
            ("/* Licence.\n * Two lines. */\n// A note.\n\nR\"cl(\nkernel void k() {}\n)cl\"\n// The end.\n", "\nkernel void k() {}\n"),
            ("#pragma once\n// R\"( in a comment is no wrapper\nR\"===(\nfloat f(void); // \")\" inside\n)===\"  /* after */\n", "\nfloat f(void); // \")\" inside\n"),
            ("R\"x( )x\"", " "),
        ] {
            let range = raw_string_content(text.as_bytes()).unwrap_or_else(|| panic!("wrapped: {text:?}"));
            assert_eq!(&text[range], content);
        }
        for text in [
            "R\"(a)\"\nR\"(b)\"\n",
            "int x;\nR\"(a)\"\n",
            "R\"(a)\";\nint x;\n",
            "// R\"(a)\"\nkernel void k() {}\n",
            "\"plain\"\n",
            "#if A\nR\"(a)\"\n#endif\n",
        ] {
            assert_eq!(raw_string_content(text.as_bytes()), None, "{text:?}");
        }
    }

    /// The decoded text of an escaped wrapper, or why not.
    fn unwrapped(text: &str) -> Option<String> {
        escaped_string_content(text.as_bytes()).map(|literal| literal.text)
    }

    #[test]
    fn a_file_wrapped_as_escaped_literals_gives_their_decoded_text() {
        for (text, content) in [
            ("/* Licence.\n * Two lines. */\n\"kernel void k()\\n\"\n\"{\\n\"\n\"}\\n\"\n", "kernel void k()\n{\n}\n"),
            // Comments between the literals, and after the last.
            ("\"a\\n\" /* one */\n// two\n\n\"b\\n\"  // three\n/* End. */\n", "a\nb\n"),
            // `\t` and `\"` escapes, a literal split mid-line.
            ("\"\\tprintf(\\\"%d\\\\n\\\", x);\\n\"\n\"float f(\" \"void);\\n\"\n", "\tprintf(\"%d\\n\", x);\nfloat f(void);\n"),
            // CRLF line ends, between the literals and in the licence.
            ("// Licence.\r\n\"a\\n\"\r\n\"b\\n\"\r\n", "a\nb\n"),
            ("#pragma once\n\"kernel void k() {}\\n\"\n", "kernel void k() {}\n"),
            ("\"one line, no newline\"", "one line, no newline"),
        ] {
            assert_eq!(unwrapped(text).as_deref(), Some(content), "{text:?}");
        }
        assert_eq!(raw_string_content(b"\"a\\n\"\n\"b\\n\"\n"), None, "escaped literals are no raw string");
    }

    #[test]
    fn a_kernel_split_into_adjacent_raw_strings_gives_their_contents_joined() {
        let text =
            "// split for the compiler's limit\nR\"cl(float f(void)\n{)cl\"\n// second half\nR\"cl(\n    return 1.0f;\n})cl\"\n";
        assert_eq!(unwrapped(text).as_deref(), Some("float f(void)\n{\n    return 1.0f;\n}"));
        assert_eq!(raw_string_content(text.as_bytes()), None, "two raw strings are no single one");
        // Mixed with an escaped literal, too.
        let mixed = "R\"(float g(void) )\"\n\"{ return 2.0f; }\\n\"\n";
        assert_eq!(unwrapped(mixed).as_deref(), Some("float g(void) { return 2.0f; }\n"));
    }

    #[test]
    fn escaped_literals_with_code_beside_them_are_no_wrapper() {
        for text in [
            "int x;\n\"a\\n\"\n",
            "\"a\\n\";\nint y;\n",
            "\"a\\n\"\n\"b\\n\";\n",
            "\"a\\n\" GREETING \"b\\n\"\n",
            "f(\"a\\n\");\n",
            "x = \"a\\n\"\n",
            "\"a\\n\"\nkernel void k() {}\n",
            "\"a\\n\";\n\"b\\n\"\n",
            "#if A\n\"a\\n\"\n#endif\n",
            "\"\\q\"\n",
            "kernel void k(global float *p) { printf(\"x\\n\"); }\n",
            "// \"a\\n\"\n",
        ] {
            assert_eq!(unwrapped(text), None, "{text:?}");
        }
    }
}
