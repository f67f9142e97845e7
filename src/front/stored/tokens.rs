//! A helper's tokens as stored: most of a stored unit is its header
//! helpers' tokens, so they are written compactly. Each token's text in
//! order, its start as a step from the previous token's start, and its end
//! only where it is not the start plus the text's length (a token spelled
//! across a line splice): about a fifth of the size of each token as a JSON
//! object with named fields.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::facts::syntax::SourceToken;

#[derive(Serialize, Deserialize)]
pub(super) struct StoredTokens<'a> {
    text: Vec<Cow<'a, str>>,
    /// Per token: its start minus the previous token's (the first's minus 0).
    step: Vec<i64>,
    /// (index, end) of each token whose end is not its start plus its text's length, in order.
    ends: Vec<(usize, u32)>,
}

impl<'a> StoredTokens<'a> {
    pub(super) fn of(tokens: &'a [SourceToken]) -> StoredTokens<'a> {
        let mut previous = 0;
        let mut step = Vec::with_capacity(tokens.len());
        for token in tokens {
            step.push(i64::from(token.start) - i64::from(previous));
            previous = token.start;
        }
        let ends = (tokens.iter().enumerate())
            .filter(|(_, t)| u64::from(t.start) + t.text.len() as u64 != u64::from(t.end))
            .map(|(i, t)| (i, t.end))
            .collect();
        StoredTokens { text: tokens.iter().map(|t| Cow::Borrowed(t.text.as_str())).collect(), step, ends }
    }

    /// The tokens; `None` where the parts do not fit together.
    pub(super) fn into_tokens(self) -> Option<Vec<SourceToken>> {
        if self.step.len() != self.text.len() {
            return None;
        }
        let mut ends = self.ends.into_iter().peekable();
        let mut start: u32 = 0;
        let mut tokens = Vec::with_capacity(self.text.len());
        for (i, (text, step)) in self.text.into_iter().zip(self.step).enumerate() {
            start = u32::try_from(i64::from(start).checked_add(step)?).ok()?;
            let end = match ends.next_if(|(at, _)| *at == i) {
                Some((_, end)) => end,
                None => start.checked_add(u32::try_from(text.len()).ok()?)?,
            };
            tokens.push(SourceToken { text: text.into_owned(), start, end });
        }
        // Every odd end belongs to a token, in order.
        ends.next().is_none().then_some(tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(text: &str, start: u32, end: u32) -> SourceToken {
        SourceToken { text: text.to_string(), start, end }
    }

    /// Tokens out of order, a splice's longer range and offsets at the ends of u32 read back.
    #[test]
    fn tokens_read_back_whatever_their_order_and_ranges() {
        let tokens = vec![
            token("a", 10, 11),
            token("spliced", 12, 21),
            token("b", 5, 6),
            token("", 7, 7),
            token("far", u32::MAX - 3, u32::MAX),
        ];
        let json = serde_json::to_string(&StoredTokens::of(&tokens)).unwrap();
        let back: StoredTokens = serde_json::from_str(&json).unwrap();
        assert_eq!(back.into_tokens().unwrap(), tokens);
    }

    /// Parts that do not fit together are `None`, never a panic.
    #[test]
    fn tokens_that_do_not_fit_are_none() {
        for json in [
            r#"{"text":["a"],"step":[],"ends":[]}"#,
            r#"{"text":["a"],"step":[-1],"ends":[]}"#,
            r#"{"text":["a"],"step":[4294967295],"ends":[]}"#,
            r#"{"text":["a"],"step":[0],"ends":[[3,1]]}"#,
            r#"{"text":["a","b"],"step":[0,0],"ends":[[1,1],[0,1]]}"#,
            r#"{"text":["a"],"step":[9223372036854775807],"ends":[]}"#,
        ] {
            let stored: StoredTokens = serde_json::from_str(json).unwrap();
            assert!(stored.into_tokens().is_none(), "{json}");
        }
    }
}
