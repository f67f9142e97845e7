//! Token-level mutations of a kernel file: what a fuzz case is made of.
//!
//! A file is its tokens (libclang's, as written: macros unexpanded,
//! directives included) and the bytes between them. A mutation drops,
//! duplicates or swaps tokens, changes an address-space qualifier, wraps
//! tokens in an `#if`, or routes a qualifier or a name through a macro.
//! Indices are taken modulo the number of tokens, so any number is a valid
//! mutation of any file, and proptest can shrink a failing list freely.

use std::ops::Range;

use proptest::prelude::*;

/// The address-space qualifiers, both spellings.
const QUALIFIERS: [&str; 8] = ["__global", "global", "__local", "local", "__constant", "constant", "__private", "private"];

/// The `#if` lines a wrapped range may get.
const CONDITIONS: [&str; 4] = ["#if 0", "#if 1", "#ifdef CLASP_FUZZ", "#ifndef CLASP_FUZZ"];

#[derive(Debug, Clone)]
pub enum Mutation {
    Drop(usize),
    Duplicate(usize),
    Swap(usize, usize),
    /// The first qualifier at or after the token becomes `QUALIFIERS[n]`.
    Qualifier(usize, usize),
    /// Tokens between the two, inclusive, under `CONDITIONS[n]`.
    IfAround(usize, usize, usize),
    /// The first qualifier at or after the token, spelled through an object-like macro.
    MacroQualifier(usize),
    /// The token passed through a function-like identity macro.
    MacroCall(usize),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let index = any::<usize>();
    // Weighted towards mutations that keep the file compiling, so that most
    // cases reach planning and verification rather than a parse error.
    prop_oneof![
        1 => index.prop_map(Mutation::Drop),
        1 => index.prop_map(Mutation::Duplicate),
        1 => (index, index).prop_map(|(a, b)| Mutation::Swap(a, b)),
        4 => (index, 0..QUALIFIERS.len()).prop_map(|(a, n)| Mutation::Qualifier(a, n)),
        2 => (index, index, 0..CONDITIONS.len()).prop_map(|(a, b, n)| Mutation::IfAround(a, b, n)),
        3 => index.prop_map(Mutation::MacroQualifier),
        1 => index.prop_map(Mutation::MacroCall),
    ]
}

/// A file as tokens and the bytes before each; `tail` after the last.
#[derive(Debug, Clone)]
pub struct Tokens {
    pieces: Vec<(Vec<u8>, Vec<u8>)>,
    tail: Vec<u8>,
    /// Lines added before the file (macro definitions).
    prelude: Vec<String>,
}

impl Tokens {
    pub fn new(text: &[u8], ranges: &[Range<u32>]) -> Tokens {
        let mut pieces = Vec::with_capacity(ranges.len());
        let mut at = 0usize;
        for range in ranges {
            let (start, end) = (range.start as usize, range.end as usize);
            pieces.push((text[at..start].to_vec(), text[start..end].to_vec()));
            at = end;
        }
        Tokens { pieces, tail: text[at..].to_vec(), prelude: Vec::new() }
    }

    pub fn text(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.prelude.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect();
        for (gap, token) in &self.pieces {
            out.extend_from_slice(gap);
            out.extend_from_slice(token);
        }
        out.extend_from_slice(&self.tail);
        out
    }

    pub fn apply(&mut self, mutation: &Mutation) {
        let n = self.pieces.len();
        if n == 0 {
            return;
        }
        match *mutation {
            Mutation::Drop(i) => {
                self.pieces.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let token = self.pieces[i % n].1.clone();
                self.pieces.insert(i % n + 1, (b" ".to_vec(), token));
            }
            Mutation::Swap(a, b) => {
                let (a, b) = (a % n, b % n);
                let token = std::mem::take(&mut self.pieces[a].1);
                self.pieces[a].1 = std::mem::replace(&mut self.pieces[b].1, token);
            }
            Mutation::Qualifier(i, q) => {
                if let Some(at) = self.qualifier_from(i % n) {
                    self.pieces[at].1 = QUALIFIERS[q].as_bytes().to_vec();
                }
            }
            Mutation::IfAround(a, b, c) => {
                let (first, last) = ((a % n).min(b % n), (a % n).max(b % n));
                self.pieces[first].0.extend_from_slice(format!("\n{}\n", CONDITIONS[c]).as_bytes());
                match self.pieces.get_mut(last + 1) {
                    Some(next) => next.0.splice(0..0, b"\n#endif\n".iter().copied()).for_each(drop),
                    None => self.tail.splice(0..0, b"\n#endif\n".iter().copied()).for_each(drop),
                }
            }
            Mutation::MacroQualifier(i) => {
                if let Some(at) = self.qualifier_from(i % n) {
                    let name = format!("CLASP_Q{}", self.prelude.len());
                    self.prelude.push(format!("#define {name} {}", String::from_utf8_lossy(&self.pieces[at].1)));
                    self.pieces[at].1 = name.into_bytes();
                }
            }
            Mutation::MacroCall(i) => {
                let at = i % n;
                let name = format!("CLASP_ID{}", self.prelude.len());
                self.prelude.push(format!("#define {name}(x) x"));
                let token = std::mem::take(&mut self.pieces[at].1);
                self.pieces[at].1 = [format!("{name}(").into_bytes(), token, b")".to_vec()].concat();
            }
        }
    }

    /// The first qualifier token at or after `from`, wrapping around.
    fn qualifier_from(&self, from: usize) -> Option<usize> {
        let n = self.pieces.len();
        (0..n).map(|k| (from + k) % n).find(|&i| QUALIFIERS.iter().any(|q| q.as_bytes() == self.pieces[i].1))
    }
}
