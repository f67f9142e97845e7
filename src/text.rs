//! Small wording helpers shared by the reports (render) and the rules'
//! messages, so that neither has to import the other or the CLI.

/// "1 file analysed", "2 files analysed", "0 errors".
pub fn plural(n: usize, noun: &str, participle: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    if participle.is_empty() {
        format!("{n} {noun}{s}")
    } else {
        format!("{n} {noun}{s} {participle}")
    }
}
