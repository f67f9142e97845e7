//! Colour for people at a terminal: the diff (headers, hunks, removed and
//! added lines), `--explain` lines and diagnostics (`error:`, `warning:`,
//! `note:`, their locations). `--color auto` (the default) colours a stream
//! only when it is a terminal, as anstream decides (`NO_COLOR` turns colour
//! off, `CLICOLOR_FORCE` on even on a pipe); `always` and `never` say so.
//! Plain output is byte for byte what it is without this module.

use anstyle::{AnsiColor, Style};

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
    /// Only on a terminal, unless `NO_COLOR` or `CLICOLOR_FORCE` say otherwise.
    #[default]
    Auto,
    Always,
    Never,
}

/// Whether one stream is coloured, and the colouring of what goes on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Palette {
    pub on: bool,
}

/// The palettes of stdout and stderr.
#[derive(Debug, Clone, Copy, Default)]
pub struct Palettes {
    pub stdout: Palette,
    pub stderr: Palette,
}

impl Palettes {
    /// What `when` means for the process's own stdout and stderr.
    pub fn new(when: ColorWhen) -> Palettes {
        let decide = |auto: anstream::ColorChoice| match when {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => auto != anstream::ColorChoice::Never,
        };
        Palettes {
            stdout: Palette { on: decide(anstream::AutoStream::choice(&std::io::stdout())) },
            stderr: Palette { on: decide(anstream::AutoStream::choice(&std::io::stderr())) },
        }
    }
}

const BOLD: Style = Style::new().bold();
const RED: Style = AnsiColor::Red.on_default();
const GREEN: Style = AnsiColor::Green.on_default();
const CYAN: Style = AnsiColor::Cyan.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();

impl Palette {
    fn paint(&self, style: Style, text: &str) -> String {
        if self.on {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }

    /// A unified diff, over its bytes (a line keeps its own encoding): headers
    /// bold, hunk headers cyan, removed lines red, added lines green.
    pub fn diff(&self, diff: Vec<u8>) -> Vec<u8> {
        if !self.on {
            return diff;
        }
        let mut out = Vec::with_capacity(diff.len() + diff.len() / 8);
        for line in diff.split_inclusive(|b| *b == b'\n') {
            let style = if line.starts_with(b"--- ") || line.starts_with(b"+++ ") {
                BOLD
            } else if line.starts_with(b"@@") {
                CYAN
            } else if line.starts_with(b"-") {
                RED
            } else if line.starts_with(b"+") {
                GREEN
            } else {
                out.extend_from_slice(line);
                continue;
            };
            let (body, end) = match line.strip_suffix(b"\n") {
                Some(body) => (body, &b"\n"[..]),
                None => (line, &b""[..]),
            };
            out.extend_from_slice(style.render().to_string().as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(style.render_reset().to_string().as_bytes());
            out.extend_from_slice(end);
        }
        out
    }

    /// A message on stderr, line by line: `place: error: ...` with the place
    /// bold and `error:` red (`warning:` yellow, `note:` cyan).
    pub fn diagnostic(&self, message: &str) -> String {
        if !self.on {
            return message.to_string();
        }
        let lines: Vec<String> = message.lines().map(|line| self.diagnostic_line(line)).collect();
        lines.join("\n")
    }

    fn diagnostic_line(&self, line: &str) -> String {
        for (word, style) in [("error:", RED.bold()), ("warning:", YELLOW.bold()), ("note:", CYAN.bold())] {
            let marker = format!(": {word} ");
            if let Some(at) = line.find(&marker) {
                let (place, rest) = (&line[..at], &line[at + marker.len()..]);
                return format!("{}: {} {rest}", self.paint(BOLD, place), self.paint(style, word));
            }
        }
        line.to_string()
    }

    /// An `--explain` line: `place: what: why`, the place bold and what it
    /// says coloured (a change green, a refusal yellow, a blocked repair red).
    pub fn explanation(&self, line: &str) -> String {
        if !self.on {
            return line.to_string();
        }
        // The place is `file:line:col`: the first `: ` after it ends it.
        let Some((place, rest)) = split_place(line) else { return line.to_string() };
        let Some((what, why)) = rest.split_once(": ") else { return line.to_string() };
        let style = if what.starts_with("cannot repair") {
            RED
        } else if ["refused", "withdrawn", "not merged"].iter().any(|v| what.starts_with(v)) || what.contains(' ') {
            YELLOW
        } else {
            GREEN
        };
        format!("{}: {}: {why}", self.paint(BOLD, place), self.paint(style, what))
    }
}

/// A writer that colours each complete line as a diagnostic, for commands
/// that write their messages as they go (`analyze`).
pub struct Diagnostics<'w> {
    inner: &'w mut dyn std::io::Write,
    palette: Palette,
    pending: Vec<u8>,
}

impl<'w> Diagnostics<'w> {
    pub fn new(inner: &'w mut dyn std::io::Write, palette: Palette) -> Diagnostics<'w> {
        Diagnostics { inner, palette, pending: Vec::new() }
    }

    fn emit(&mut self, line: &[u8]) -> std::io::Result<()> {
        match std::str::from_utf8(line) {
            Ok(text) if self.palette.on => self.inner.write_all(self.palette.diagnostic_line(text).as_bytes()),
            _ => self.inner.write_all(line),
        }
    }
}

impl std::io::Write for Diagnostics<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.emit(&line[..line.len() - 1])?;
            self.inner.write_all(b"\n")?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        if !rest.is_empty() {
            self.emit(&rest)?;
        }
        self.inner.flush()
    }
}

impl Drop for Diagnostics<'_> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

/// `a.cl:3:7: rest` -> (`a.cl:3:7`, `rest`).
fn split_place(line: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    while let Some(i) = line[from..].find(": ") {
        let end = from + i;
        let place = &line[..end];
        let mut parts = place.rsplitn(3, ':');
        let numbers =
            parts.next().is_some_and(|c| c.parse::<u32>().is_ok()) && parts.next().is_some_and(|l| l.parse::<u32>().is_ok());
        if numbers {
            return Some((place, &line[end + 2..]));
        }
        from = end + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: Palette = Palette { on: true };
    const OFF: Palette = Palette { on: false };

    #[test]
    fn plain_is_untouched() {
        let diff = b"--- a/k.cl\n+++ b/k.cl\n@@ -1 +1 @@\n-a \xe9\n+b\n".to_vec();
        assert_eq!(OFF.diff(diff.clone()), diff);
        assert_eq!(OFF.diagnostic("k.cl:1:2: error: x"), "k.cl:1:2: error: x");
        assert_eq!(OFF.explanation("k.cl:1:2: generic-param: x"), "k.cl:1:2: generic-param: x");
    }

    #[test]
    fn colours_are_where_they_belong() {
        let coloured = ON.diff(b"--- a/k.cl\n+++ b/k.cl\n@@ -1 +1 @@\n-a \xe9\n+b\n c\n".to_vec());
        let text = String::from_utf8_lossy(&coloured);
        assert!(text.contains("\x1b[31m-a \u{fffd}\x1b[0m\n") && text.contains("\x1b[32m+b\x1b[0m\n"), "{text:?}");
        assert!(text.ends_with("\n c\n"), "context lines stay plain: {text:?}");
        // Taking the escapes out (ESC [ ... m) gives the plain bytes back, a Latin-1 byte included.
        let plain = b"--- a/k.cl\n+++ b/k.cl\n@@ -1 +1 @@\n-a \xe9\n+b\n c\n".to_vec();
        let (mut stripped, mut rest) = (Vec::new(), coloured.as_slice());
        while let Some(start) = rest.windows(2).position(|w| w == b"\x1b[") {
            stripped.extend_from_slice(&rest[..start]);
            let end = start + rest[start..].iter().position(|b| *b == b'm').unwrap();
            rest = &rest[end + 1..];
        }
        stripped.extend_from_slice(rest);
        assert_eq!(stripped, plain);
        let error = ON.diagnostic("k.cl:1:2: error: expected ';'");
        assert_eq!(error, "\x1b[1mk.cl:1:2\x1b[0m: \x1b[1m\x1b[31merror:\x1b[0m expected ';'");
        let explained = ON.explanation("k.cl:6:34: refused builtin-pin: `p` of `f`: why");
        assert!(explained.contains("\x1b[33mrefused builtin-pin\x1b[0m: `p` of `f`: why"), "{explained:?}");
        let fixed = ON.explanation("k.cl:6:34: generic-param: `p` of `f` receives __global");
        assert!(fixed.contains("\x1b[32mgeneric-param\x1b[0m: `p`"), "{fixed:?}");
    }
}
