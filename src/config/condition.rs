//! The value of a preprocessor condition (`#if`, `#elif`, `#ifdef`,
//! `#ifndef`) read from its tokens, under what the build options say of each
//! macro: what configuration discovery uses to choose a `-D` that enables
//! code `#if` skips. Three-valued: a name the options do not settle (a macro
//! the source defines, a predefined one, a function-like macro) makes the
//! result unknown unless the rest decides it (`0 && X`). The compiler, not
//! this, has the last word: a discovered configuration is kept only if its
//! build compiles the skipped code.

/// What the options say of a macro: defined with a value, or not defined.
/// `None` from a lookup: they do not say (the source or clang may define it).
pub type Known = Option<Option<i64>>;

/// The condition a directive tests, as tokens (`ifdef X` reads `defined X`);
/// `None` for `#else` and anything that is not a conditional directive.
pub fn condition(directive: &[String]) -> Option<Vec<String>> {
    let rest = directive.strip_prefix(&["#".to_string()])?;
    let (kind, rest) = rest.split_first()?;
    match kind.as_str() {
        "if" | "elif" => Some(rest.to_vec()),
        "ifdef" => Some(vec!["defined".into(), rest.first()?.clone()]),
        "ifndef" => Some(vec!["!".into(), "defined".into(), rest.first()?.clone()]),
        _ => None,
    }
}

/// The macros a condition tests that a `-D`/`-U` could set: object-like
/// names, not function-like macro calls, not reserved (`__OPENCL_VERSION__`).
pub fn tested_macros(tokens: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let is_name = t.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        let called = tokens.get(i + 1).is_some_and(|n| n == "(") && tokens.get(i.wrapping_sub(1)).is_none_or(|p| p != "defined");
        if is_name && t != "defined" && !t.starts_with("__") && !called && !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

/// The integer literals a condition compares with.
pub fn literals(tokens: &[String]) -> Vec<i64> {
    tokens.iter().filter_map(|t| integer(t)).collect()
}

/// The condition's value (`Some(0)` false, other `Some` true), or `None` when unknown.
pub fn evaluate(tokens: &[String], lookup: &dyn Fn(&str) -> Known) -> Option<i64> {
    let mut parser = Parser { tokens, at: 0, lookup };
    let value = parser.ternary();
    if parser.at != tokens.len() {
        return None;
    }
    value
}

/// An integer literal as the preprocessor reads it (`10`, `0x1F`, `010`, `1u`, `2UL`).
fn integer(token: &str) -> Option<i64> {
    let digits = token.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok();
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return i64::from_str_radix(&digits[1..], 8).ok();
    }
    digits.parse().ok()
}

struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
    lookup: &'a dyn Fn(&str) -> Known,
}

/// Binary operators by precedence, loosest first.
const LEVELS: [&[&str]; 9] =
    [&["||"], &["&&"], &["|"], &["^"], &["&"], &["==", "!="], &["<", ">", "<=", ">="], &["<<", ">>"], &["+", "-"]];

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn eat(&mut self, token: &str) -> bool {
        let found = self.peek() == Some(token);
        self.at += usize::from(found);
        found
    }

    fn ternary(&mut self) -> Option<i64> {
        let test = self.binary(0);
        if !self.eat("?") {
            return test;
        }
        let yes = self.ternary();
        if !self.eat(":") {
            self.at = self.tokens.len() + 1;
            return None;
        }
        let no = self.ternary();
        match test {
            Some(0) => no,
            Some(_) => yes,
            None => yes.filter(|y| Some(*y) == no),
        }
    }

    fn binary(&mut self, level: usize) -> Option<i64> {
        if level == LEVELS.len() {
            return self.product();
        }
        let mut left = self.binary(level + 1);
        while let Some(op) = self.peek().filter(|t| LEVELS[level].contains(t)).map(str::to_string) {
            self.at += 1;
            let right = self.binary(level + 1);
            left = combine(&op, left, right);
        }
        left
    }

    fn product(&mut self) -> Option<i64> {
        let mut left = self.unary();
        while let Some(op) = self.peek().filter(|t| ["*", "/", "%"].contains(t)).map(str::to_string) {
            self.at += 1;
            let right = self.unary();
            left = match (left, right) {
                (Some(a), Some(b)) if op == "*" => Some(a.wrapping_mul(b)),
                (Some(a), Some(b)) if b != 0 && op == "/" => Some(a.wrapping_div(b)),
                (Some(a), Some(b)) if b != 0 => Some(a.wrapping_rem(b)),
                _ => None,
            };
        }
        left
    }

    fn unary(&mut self) -> Option<i64> {
        match self.peek() {
            Some("!") => {
                self.at += 1;
                self.unary().map(|v| i64::from(v == 0))
            }
            Some("~") => {
                self.at += 1;
                self.unary().map(|v| !v)
            }
            Some("-") => {
                self.at += 1;
                self.unary().map(i64::wrapping_neg)
            }
            Some("+") => {
                self.at += 1;
                self.unary()
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Option<i64> {
        let token = self.peek()?.to_string();
        self.at += 1;
        if token == "(" {
            let value = self.ternary();
            return if self.eat(")") { value } else { None };
        }
        if token == "defined" {
            let parenthesised = self.eat("(");
            let name = self.peek()?.to_string();
            self.at += 1;
            if parenthesised && !self.eat(")") {
                return None;
            }
            return (self.lookup)(&name).map(|value| i64::from(value.is_some()));
        }
        if let Some(value) = integer(&token) {
            return Some(value);
        }
        if self.peek() == Some("(") {
            // A function-like macro's call: its value is unknown; skip its arguments.
            let mut depth = 0;
            while let Some(t) = self.tokens.get(self.at) {
                self.at += 1;
                depth += match t.as_str() {
                    "(" => 1,
                    ")" => -1,
                    _ => 0,
                };
                if depth == 0 {
                    break;
                }
            }
            return None;
        }
        // An identifier: its value, 0 when not defined (as the preprocessor reads it).
        (self.lookup)(&token).map(|value| value.unwrap_or(0))
    }
}

/// A binary operator over possibly unknown operands (`&&`/`||` decide alone
/// when one side does).
fn combine(op: &str, left: Option<i64>, right: Option<i64>) -> Option<i64> {
    match (op, left, right) {
        ("&&", Some(0), _) | ("&&", _, Some(0)) => return Some(0),
        ("||", Some(a), _) | ("||", _, Some(a)) if a != 0 => return Some(1),
        _ => {}
    }
    let (a, b) = (left?, right?);
    Some(match op {
        "&&" => i64::from(a != 0 && b != 0),
        "||" => i64::from(a != 0 || b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        ">" => i64::from(a > b),
        "<=" => i64::from(a <= b),
        ">=" => i64::from(a >= b),
        "<<" => a.wrapping_shl(b as u32),
        ">>" => a.wrapping_shr(b as u32),
        "+" => a.wrapping_add(b),
        _ => a.wrapping_sub(b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    fn value(text: &str, known: &[(&str, Option<i64>)]) -> Option<i64> {
        let known: Vec<(String, Option<i64>)> = known.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        evaluate(&tokens(text), &|name| known.iter().find(|(n, _)| n == name).map(|(_, v)| *v))
    }

    #[test]
    fn conditions_evaluate_as_the_preprocessor_reads_them() {
        assert_eq!(value("defined ( FAST )", &[("FAST", Some(1))]), Some(1));
        assert_eq!(value("defined FAST", &[("FAST", None)]), Some(0));
        assert_eq!(value("MODE == 2 && defined ( X )", &[("MODE", Some(2)), ("X", Some(1))]), Some(1));
        assert_eq!(value("( G != 1 ) && ( G != 2 ) && ( G != 0x4 )", &[("G", Some(3))]), Some(1));
        assert_eq!(value("( G != 1 ) && ( G != 2 )", &[("G", Some(2))]), Some(0));
        assert_eq!(value("N > 2 ? 1 : 0", &[("N", Some(3))]), Some(1));
        assert_eq!(value("- 1 < 0 && 010 == 8 && 3u * 2 == 6", &[]), Some(1));
        // An undefined name is 0; an unknown one leaves the value unknown unless `&&`/`||` decide.
        assert_eq!(value("UNSET", &[("UNSET", None)]), Some(0));
        assert_eq!(value("SOURCE_DEFINED > 1", &[]), None);
        assert_eq!(value("0 && SOURCE_DEFINED", &[]), Some(0));
        assert_eq!(value("ONE || SOURCE_DEFINED", &[("ONE", Some(1))]), Some(1));
        assert_eq!(value("family ( DEV ) && X", &[("X", Some(1))]), None);
        assert_eq!(value("( 1", &[]), None);
        assert_eq!(value("1 / 0", &[]), None);
    }

    #[test]
    fn directives_give_their_condition_and_tested_macros() {
        assert_eq!(condition(&tokens("# ifdef FAST")), Some(tokens("defined FAST")));
        assert_eq!(condition(&tokens("# ifndef SLOW")), Some(tokens("! defined SLOW")));
        assert_eq!(condition(&tokens("# elif X == 1")), Some(tokens("X == 1")));
        assert_eq!(condition(&tokens("# else")), None);
        let tested = tested_macros(&tokens("defined ( A ) && family ( B ) && __OPENCL_VERSION__ >= 200 && C > 2"));
        assert_eq!(tested, ["A", "B", "C"]);
        assert_eq!(literals(&tokens("C > 2 && D == 0x10")), [2, 16]);
    }
}
