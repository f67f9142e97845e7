//! What the syntax boundary can fail with.
//!
//! Callers print these as they are (and tests compare the messages), so each
//! variant's text is the message the boundary has always given.

use std::ffi::NulError;
use std::os::raw::c_int;

/// Why libclang could not be used, or could not parse a unit.
/// `Clone`: a failed load is remembered and handed to every later caller.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ParseError {
    /// No libclang could be found or opened (the loader's reason).
    #[error("libclang 19 not found ({0}); install it with `apt-get install libclang-19-dev` or set LIBCLANG_PATH")]
    NotFound(String),
    /// The loader reported success but left no library behind.
    #[error("libclang did not load")]
    NotLoaded,
    #[error("libclang could not create an index")]
    NoIndex,
    /// libclang refused the parse outright (not diagnostics: no unit at all).
    #[error("libclang could not parse (error code {0})")]
    Refused(c_int),
    /// A path or argument holds a NUL byte, which C strings cannot carry.
    #[error(transparent)]
    NulByte(#[from] NulError),
}

#[cfg(test)]
mod tests {
    use super::ParseError;

    /// The messages the boundary gave as plain strings before it had a type.
    #[test]
    fn messages_are_the_boundarys_own() {
        let nul = std::ffi::CString::new("a\0b").unwrap_err();
        let cases = [
            (
                ParseError::NotFound("no such file".into()),
                "libclang 19 not found (no such file); install it with `apt-get install libclang-19-dev` or set LIBCLANG_PATH",
            ),
            (ParseError::NotLoaded, "libclang did not load"),
            (ParseError::NoIndex, "libclang could not create an index"),
            (ParseError::Refused(2), "libclang could not parse (error code 2)"),
            (ParseError::NulByte(nul.clone()), &nul.to_string()),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }
}
