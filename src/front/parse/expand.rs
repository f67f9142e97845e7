//! Macro expansion with provenance: the tokens a macro use stands for, each
//! knowing where it is written (the use itself, a definition's body, or an
//! argument of a use) and the outermost macro use it comes from.
//!
//! libclang gives a declaration's type but not which written token gave it
//! its address space when that token sits inside a macro; this expands the
//! definitions libclang recorded, the way the preprocessor does for the forms
//! that matter here (object-like and function-like macros, arguments
//! expanded before substitution, the result rescanned with the macro
//! hidden). Whatever it does not model (`#`, `##`, variadic macros, a macro
//! defined twice differently, a call whose arguments are not closed) makes
//! the expansion unknown (`None`), and callers keep today's refusals.

use std::collections::{HashMap, HashSet};

use crate::facts::syntax::{ByteRange, SiteKind};

/// A macro definition's parameters (function-like) and body tokens as written.
#[derive(Debug, Clone)]
pub(super) struct MacroDef {
    pub(super) params: Option<Vec<String>>,
    pub(super) body: Vec<Token>,
    /// Its body stringifies or pastes (`#`, `##`), or it is variadic: not modelled.
    pub(super) unmodelled: bool,
}

/// A token of an expansion.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) text: String,
    pub(super) identifier: bool,
    /// Where the token is written.
    pub(super) range: ByteRange,
    /// The macro whose body or argument writes it; `None` when written at the use.
    pub(super) site: Option<(String, SiteKind)>,
    /// The outermost macro use it comes from; `None` when written at the use.
    pub(super) expansion: Option<ByteRange>,
}

/// The definitions an expansion reads.
pub(super) struct Definitions<'a> {
    pub(super) defs: &'a HashMap<String, MacroDef>,
    pub(super) redefined: &'a HashSet<String>,
}

const MAX_DEPTH: u32 = 32;

/// The file of a token written in no file (a macro defined on the command line).
pub(super) const NO_FILE: crate::facts::syntax::FileIndex = crate::facts::syntax::FileIndex::MAX;

impl Definitions<'_> {
    /// The tokens `tokens` stand for once every macro use is expanded, or
    /// `None` where the expansion is not modelled.
    pub(super) fn expand(&self, tokens: &[Token]) -> Option<Vec<Token>> {
        self.rescan(tokens, &mut Vec::new(), 0)
    }

    fn rescan(&self, tokens: &[Token], hidden: &mut Vec<String>, depth: u32) -> Option<Vec<Token>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            let def = if t.identifier && !hidden.contains(&t.text) { self.defs.get(&t.text) } else { None };
            let Some(def) = def else {
                if t.identifier && self.redefined.contains(&t.text) && !hidden.contains(&t.text) {
                    return None;
                }
                out.push(t.clone());
                i += 1;
                continue;
            };
            if def.unmodelled || self.redefined.contains(&t.text) {
                return None;
            }
            let (replaced, next) = match &def.params {
                None => (self.body(def, t, t.expansion.or(Some(t.range)), &[]), i + 1),
                Some(params) => {
                    if tokens.get(i + 1).is_none_or(|open| open.text != "(") {
                        // A function-like macro's name without a call is no use of it.
                        out.push(t.clone());
                        i += 1;
                        continue;
                    }
                    let close = closing_paren(tokens, i + 1)?;
                    let whole = ByteRange { end: tokens[close].range.end, ..t.range };
                    let expansion = t.expansion.or(Some(whole));
                    let args = arguments(&tokens[i + 2..close], &t.text, expansion, params.len())?;
                    let mut expanded_args = Vec::new();
                    for arg in &args {
                        expanded_args.push(self.rescan(arg, hidden, depth + 1)?);
                    }
                    let by_name: Vec<(&str, &[Token])> =
                        params.iter().map(|p| p.as_str()).zip(expanded_args.iter().map(|a| a.as_slice())).collect();
                    (self.body(def, t, expansion, &by_name), close + 1)
                }
            };
            hidden.push(t.text.clone());
            let rescanned = self.rescan(&replaced, hidden, depth + 1);
            hidden.pop();
            let rescanned = rescanned?;
            // A function-like macro named last whose call would take tokens from after the use: not modelled.
            if let Some(last) = rescanned.last() {
                let calls_on = self.defs.get(&last.text).is_some_and(|d| d.params.is_some()) && !hidden.contains(&last.text);
                if last.identifier && calls_on && tokens.get(next).is_some_and(|n| n.text == "(") {
                    return None;
                }
            }
            out.extend(rescanned);
            i = next;
        }
        Some(out)
    }

    /// A definition's body with its parameters replaced by the expanded arguments.
    fn body(&self, def: &MacroDef, used: &Token, expansion: Option<ByteRange>, args: &[(&str, &[Token])]) -> Vec<Token> {
        let mut out = Vec::new();
        for b in &def.body {
            match args.iter().find(|(name, _)| b.identifier && *name == b.text) {
                Some((_, arg)) => out.extend(arg.iter().cloned()),
                None => out.push(Token { site: Some((used.text.clone(), SiteKind::Body)), expansion, ..b.clone() }),
            }
        }
        out
    }
}

/// The index of the `)` closing the `(` at `open`.
fn closing_paren(tokens: &[Token], open: usize) -> Option<usize> {
    super::closing_index(tokens[open..].iter().map(|t| t.text.as_str())).map(|i| i + open)
}

/// A call's arguments split at top-level commas; tokens written at the use
/// become the argument site of `macro_name`. `None` when their number is not `count`.
fn arguments(inside: &[Token], macro_name: &str, expansion: Option<ByteRange>, count: usize) -> Option<Vec<Vec<Token>>> {
    let mut args: Vec<Vec<Token>> = vec![Vec::new()];
    let mut depth = 0usize;
    for t in inside {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            "," if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        let mut t = t.clone();
        if t.site.is_none() {
            t.site = Some((macro_name.to_string(), SiteKind::Argument));
            t.expansion = expansion;
        }
        args.last_mut().expect("one argument at least").push(t);
    }
    // `M()` of a macro with no parameters passes no argument.
    if count == 0 && args.len() == 1 && args[0].is_empty() {
        return Some(Vec::new());
    }
    (args.len() == count).then_some(args)
}

/// A macro definition from its tokens after the name (`params_follow`: the
/// name is directly followed by `(`, so the macro is function-like).
pub(super) fn definition(after_name: &[Token], function_like: bool) -> MacroDef {
    let mut body_start = 0;
    let params: Option<Vec<String>> = if function_like {
        // `( a , b ) body`: the names between the parentheses.
        let close = after_name.iter().position(|t| t.text == ")").unwrap_or(after_name.len());
        body_start = close + 1;
        let names = after_name.get(1..close).unwrap_or_default();
        Some(names.iter().filter(|t| t.text != ",").map(|t| t.text.clone()).collect())
    } else {
        None
    };
    let body: Vec<Token> = after_name.get(body_start..).unwrap_or_default().to_vec();
    let variadic = params.as_ref().is_some_and(|p| p.iter().any(|n| n == "..." || n == "__VA_ARGS__"));
    let unmodelled = variadic || body.iter().any(|t| t.text == "#" || t.text == "##");
    MacroDef { params, body, unmodelled }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens of `text` split at blanks, each at its byte offset in file `file`.
    fn written(text: &str, file: usize) -> Vec<Token> {
        let mut out = Vec::new();
        let mut offset = 0u32;
        for word in text.split(' ') {
            if !word.is_empty() {
                let identifier = word.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
                let range = ByteRange { file, start: offset, end: offset + word.len() as u32 };
                out.push(Token { text: word.into(), identifier, range, site: None, expansion: None });
            }
            offset += word.len() as u32 + 1;
        }
        out
    }

    fn defs(sources: &[(&str, &str, bool)]) -> HashMap<String, MacroDef> {
        sources
            .iter()
            .enumerate()
            .map(|(i, (name, after, f))| (name.to_string(), definition(&written(after, i + 1), *f)))
            .collect()
    }

    fn expand(defs: &HashMap<String, MacroDef>, text: &str) -> Option<Vec<Token>> {
        Definitions { defs, redefined: &HashSet::new() }.expand(&written(text, 0))
    }

    #[test]
    fn a_body_token_knows_its_definition_and_an_argument_token_its_use() {
        let defs = defs(&[("ARR", "( T ) __global const T *", true), ("Q", "__local const", false)]);
        let out = expand(&defs, "ARR ( int ) p , Q float * q").unwrap();
        let texts: Vec<&str> = out.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["__global", "const", "int", "*", "p", ",", "__local", "const", "float", "*", "q"]);
        assert_eq!(out[0].site, Some(("ARR".into(), SiteKind::Body)));
        assert_eq!(out[0].range, ByteRange { file: 1, start: 6, end: 14 });
        assert_eq!(out[0].expansion, Some(ByteRange { file: 0, start: 0, end: 11 }));
        assert_eq!(out[2].site, Some(("ARR".into(), SiteKind::Argument)));
        assert_eq!(out[2].range, ByteRange { file: 0, start: 6, end: 9 });
        assert_eq!((out[4].site.clone(), out[6].site.clone()), (None, Some(("Q".into(), SiteKind::Body))));
    }

    #[test]
    fn arguments_forwarded_to_a_nested_macro_stay_the_outer_use_s() {
        let defs = defs(&[("OUTER", "( n , q ) INNER ( q ) n", true), ("INNER", "( a ) a int * x", true)]);
        let out = expand(&defs, "OUTER ( f , const local )").unwrap();
        let local = out.iter().find(|t| t.text == "local").unwrap();
        assert_eq!(local.site, Some(("OUTER".into(), SiteKind::Argument)));
        assert_eq!(local.range.start, 18);
        // An argument that becomes empty is still a call with that many arguments.
        assert!(expand(&defs, "OUTER ( f , )").is_some());
    }

    #[test]
    fn what_is_not_modelled_is_unknown() {
        let defs = defs(&[("CAT", "( a , b ) a ## b", true), ("V", "( ... ) __VA_ARGS__", true), ("F", "( a ) a", true)]);
        assert!(expand(&defs, "CAT ( x , y )").is_none());
        assert!(expand(&defs, "V ( x )").is_none());
        assert!(expand(&defs, "F ( x").is_none(), "a call not closed");
        assert!(expand(&defs, "F ( x , y )").is_none(), "too many arguments");
        let redefined: HashSet<String> = ["F".to_string()].into();
        assert!(Definitions { defs: &defs, redefined: &redefined }.expand(&written("F ( x )", 0)).is_none());
        // A function-like macro named without a call is left as it is.
        assert_eq!(expand(&defs, "F + 1").unwrap().len(), 3);
    }

    #[test]
    fn a_self_referencing_macro_stops_at_itself() {
        let defs = defs(&[("X", "X + 1", false)]);
        let texts: Vec<String> = expand(&defs, "X").unwrap().into_iter().map(|t| t.text).collect();
        assert_eq!(texts, ["X", "+", "1"]);
    }
}
