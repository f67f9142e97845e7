//! The value of a preprocessor condition (`#if`, `#elif`, `#ifdef`,
//! `#ifndef`) read from its tokens, under what the build options say of each
//! macro: what configuration discovery uses to choose a `-D` that enables
//! code `#if` skips. Three-valued: a name the options do not settle (a macro
//! the source defines, a predefined one, a function-like macro) makes the
//! result unknown unless the rest decides it (`0 && X`). The compiler, not
//! this, has the last word: a discovered configuration is kept only if its
//! build compiles the skipped code.

use crate::facts::syntax::ConditionMacro;

/// What the options say of a macro: defined with a value, or not defined.
/// `None` from a lookup: they do not say (the source or clang may define it).
pub type Known = Option<Option<i64>>;

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
    let mut parser = Parser { tokens, at: 0, lookup, seen: Vec::new() };
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

/// `tokens` with the source's macros expanded (`family(DEV)` reads
/// `((DEV & 16) && ...)`), as the preprocessor does before it evaluates a
/// condition: function-like macros given their arguments, then rescanned,
/// a macro never inside its own expansion, a `defined` operand never
/// expanded. `macros` holds the source's definitions (those the options
/// set are left to the lookup). `None` where the expansion runs away.
pub fn expanded(tokens: &[String], macros: &dyn Fn(&str) -> Option<ConditionMacro>) -> Option<Vec<String>> {
    expand_within(tokens, macros, &mut Vec::new())
}

/// How deep macros may expand within each other before a condition is given up.
const EXPANSION_DEPTH: usize = 32;

fn expand_within(
    tokens: &[String],
    macros: &dyn Fn(&str) -> Option<ConditionMacro>,
    active: &mut Vec<String>,
) -> Option<Vec<String>> {
    if active.len() > EXPANSION_DEPTH {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        i += 1;
        if token == "defined" {
            // `defined X` or `defined ( X )`, copied as written.
            let operand = if tokens.get(i).is_some_and(|t| t == "(") { 3 } else { 1 };
            out.push(token.clone());
            out.extend(tokens[i..(i + operand).min(tokens.len())].iter().cloned());
            i += operand;
            continue;
        }
        let Some(definition) = macros(token).filter(|_| !active.contains(token)) else {
            out.push(token.clone());
            continue;
        };
        let body = match &definition.params {
            None => definition.body.clone(),
            Some(params) => {
                if tokens.get(i).is_none_or(|t| t != "(") {
                    out.push(token.clone());
                    continue;
                }
                let (arguments, after) = call_arguments(tokens, i)?;
                i = after;
                if arguments.len() != params.len() && !(params.is_empty() && arguments == [Vec::<String>::new()]) {
                    return None;
                }
                let mut expanded_arguments = Vec::new();
                for argument in &arguments {
                    expanded_arguments.push(expand_within(argument, macros, active)?);
                }
                let substitute = |t: &String| match params.iter().position(|p| p == t) {
                    Some(k) => expanded_arguments[k].clone(),
                    None => vec![t.clone()],
                };
                definition.body.iter().flat_map(substitute).collect()
            }
        };
        active.push(token.clone());
        let rescanned = expand_within(&body, macros, active);
        active.pop();
        out.extend(rescanned?);
    }
    Some(out)
}

/// A function-like macro call's arguments (split at top-level commas),
/// its `(` at `open`; and the index after its `)`.
fn call_arguments(tokens: &[String], open: usize) -> Option<(Vec<Vec<String>>, usize)> {
    let mut arguments = vec![Vec::new()];
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return Some((arguments, k + 1));
        }
        if k == open || (depth == 1 && t == ",") {
            if t == "," {
                arguments.push(Vec::new());
            }
            continue;
        }
        arguments.last_mut()?.push(t.clone());
    }
    None
}

/// The values of the condition's parts that the options settle on their
/// own (`(1 << 19)` reads 524288): the masks and bounds a macro the
/// condition tests is compared with, from which discovery picks its values.
pub fn constants(tokens: &[String], lookup: &dyn Fn(&str) -> Known) -> Vec<i64> {
    let mut parser = Parser { tokens, at: 0, lookup, seen: Vec::new() };
    parser.ternary();
    let mut seen = parser.seen;
    seen.sort_unstable();
    seen.dedup();
    seen
}

struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
    lookup: &'a dyn Fn(&str) -> Known,
    /// Every value a part of the condition took.
    seen: Vec<i64>,
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
            self.seen.extend(left);
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
            self.seen.push(value);
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

    fn macro_named(name: &str) -> Option<ConditionMacro> {
        let (params, body) = match name {
            "BIT" => (None, "( 1 << 4 )"),
            "has" => (Some(vec!["f", "b"]), "( ( f ) & ( b ) )"),
            "wide" => (Some(vec!["f"]), "( has ( f , BIT ) && f > 2 )"),
            "LOOP" => (None, "LOOP + 1"),
            "bare" => (Some(vec![]), "7"),
            _ => return None,
        };
        let params = params.map(|p| p.into_iter().map(String::from).collect());
        Some(ConditionMacro { params, body: tokens(body) })
    }

    #[test]
    fn conditions_expand_the_sources_macros_as_the_preprocessor_does() {
        let expand = |text: &str| expanded(&tokens(text), &macro_named).map(|t| t.join(" "));
        assert_eq!(expand("wide ( DEV )").unwrap(), "( ( ( DEV ) & ( ( 1 << 4 ) ) ) && DEV > 2 )");
        // A `defined` operand stays as written; a macro never expands inside itself.
        assert_eq!(expand("defined ( BIT ) && defined BIT").unwrap(), "defined ( BIT ) && defined BIT");
        assert_eq!(expand("LOOP").unwrap(), "LOOP + 1");
        assert_eq!(expand("bare ( ) + has").unwrap(), "7 + has");
        // A call with the wrong number of arguments, or never closed, is no condition clasp reads.
        assert_eq!(expand("has ( DEV )"), None);
        assert_eq!(expand("has ( DEV , 1"), None);
        let wide = expanded(&tokens("wide ( DEV ) && ! has ( DEV , 0x20 )"), &macro_named).unwrap();
        let at = |dev: i64| evaluate(&wide, &|n| (n == "DEV").then_some(Some(dev)));
        assert_eq!((at(16), at(2), at(18), at(48)), (Some(1), Some(0), Some(1), Some(0)));
        // The masks discovery combines: every part the options settle, the tested macro left open.
        assert_eq!(constants(&wide, &|_| None), [1, 2, 4, 16, 32]);
    }

    #[test]
    fn conditions_give_their_tested_macros_and_literals() {
        let tested = tested_macros(&tokens("defined ( A ) && family ( B ) && __OPENCL_VERSION__ >= 200 && C > 2"));
        assert_eq!(tested, ["A", "B", "C"]);
        assert_eq!(literals(&tokens("C > 2 && D == 0x10")), [2, 16]);
    }
}
