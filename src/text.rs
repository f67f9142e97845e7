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
