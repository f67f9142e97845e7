//! Small wording helpers shared by the reports (render) and the rules'
//! messages, so that neither has to import the other or the CLI.

/// The 1-based column (in bytes) of `offset` in `text`: what editors and SARIF count.
pub fn column(text: &[u8], offset: usize) -> u32 {
    let offset = offset.min(text.len());
    let line_start = text[..offset].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    (offset - line_start + 1) as u32
}

/// "1 file analysed", "2 files analysed", "0 errors".
pub fn plural(n: usize, noun: &str, participle: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    if participle.is_empty() {
        format!("{n} {noun}{s}")
    } else {
        format!("{n} {noun}{s} {participle}")
    }
}

/// How much of a file is read to tell source text from a binary file.
pub const TEXT_SAMPLE: usize = 8192;

/// Why `bytes` are not source text, if they are not: more than 1 in 32 of
/// their first 8 KiB are control bytes (NUL and the other C0 controls but
/// tab, line feed, vertical tab, form feed, carriage return and escape; DEL).
/// Text in UTF-8 or any 8-bit encoding (Latin-1 comments, kept byte for
/// byte) has none, or a stray one (a NUL in a comment is kept); an object
/// file, an image, an archive or UTF-16 text has many.
pub fn not_text(bytes: &[u8]) -> Option<String> {
    let sample = &bytes[..bytes.len().min(TEXT_SAMPLE)];
    let is_control = |b: &u8| matches!(b, 0x00..=0x08 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f);
    let count = sample.iter().filter(|b| is_control(b)).count();
    if count * 32 <= sample.len() {
        return None;
    }
    let first = sample.iter().position(is_control)?;
    let byte = match sample[first] {
        0 => "NUL byte".to_string(),
        b => format!("control byte 0x{b:02x}"),
    };
    Some(format!("not a text file ({byte} at offset {first}; {count} of its first {} bytes are control bytes)", sample.len()))
}

#[cfg(test)]
mod tests {
    use super::not_text;

    #[test]
    fn binary_is_told_from_text_in_any_encoding() {
        let kernel = b"__kernel void k(__global float *p) { p[0] = 1.0f; }\n";
        assert_eq!(not_text(kernel), None);
        // A Latin-1 comment, a stray NUL in a comment, tabs, CRLF, form feed, escape: text.
        let latin1 = b"/* \xe9chelle \xe0 garder */\r\n\tfloat r\xe9sultat;\x0c\n/* \x1b[1m */\n";
        assert_eq!(not_text(latin1), None);
        let stray_nul = [&b"/* \0 */\n"[..], &kernel[..], &kernel[..]].concat();
        assert_eq!(not_text(&stray_nul), None);
        assert_eq!(not_text(b""), None);
        // An ELF header, UTF-16, and control bytes with no NUL.
        let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0>\0\x01\0\0\0";
        assert_eq!(
            not_text(elf).as_deref(),
            Some("not a text file (control byte 0x7f at offset 0; 20 of its first 24 bytes are control bytes)")
        );
        let utf16: Vec<u8> = "__kernel void k() {}".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        assert!(not_text(&utf16).unwrap().starts_with("not a text file (NUL byte at offset 1;"));
        assert!(not_text(&[b'a', 1, 2, 3, b'b', b'c']).unwrap().contains("control byte 0x01 at offset 1"));
        // Only the first 8 KiB count: binary after them is clang's to report.
        let late = [vec![b' '; super::TEXT_SAMPLE], vec![0u8; 100]].concat();
        assert_eq!(not_text(&late), None);
    }
}
