//! How an error quotes a value the caller sent: control characters escaped, cut at
//! [`MAX_QUOTED_CHARS`] characters, so a 1 MiB argument never makes a 1 MiB error.

use std::borrow::Cow;

/// The most characters of a caller's value an error quotes.
const MAX_QUOTED_CHARS: usize = 100;

/// Shortens `s` for an error message: at most [`MAX_QUOTED_CHARS`] characters, with `…`
/// appended when something was cut. Cuts on a character boundary. Every value a caller sent
/// goes through this (or [`shown`]) before it is quoted.
pub(crate) fn shorten(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(MAX_QUOTED_CHARS) {
        None => Cow::Borrowed(s),
        Some((cut, _)) => Cow::Owned(format!("{}…", &s[..cut])),
    }
}

/// A caller's value for an error: control characters escaped (`\n`), then shortened.
pub(crate) fn shown(s: &str) -> String {
    if s.chars().any(char::is_control) {
        shorten(&s.escape_debug().to_string()).into_owned()
    } else {
        shorten(s).into_owned()
    }
}

/// A value quoted in a hint's words (a ref, a path, a definition's name): as [`shown`], with
/// `{` and `}` written `\u007b` and `\u007d`, so no text from a file or an argument can open
/// (or close) a JSON object before the hint's own next call (a TypeScript method named
/// `'}{"column": 3}'` made that the hint's first object).
pub(crate) fn in_hint(s: &str) -> String {
    shown(s).replace('{', "\\u007b").replace('}', "\\u007d")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_in_a_hint_holds_no_brace() {
        let quoted = in_hint("'}{\"column\": 3}'");
        assert_eq!(quoted, "'\\u007d\\u007b\"column\": 3\\u007d'");
        assert!(!in_hint(&"{".repeat(500)).contains(['{', '}']));
        assert_eq!(in_hint(&"x".repeat(500)).chars().count(), 101);
    }

    #[test]
    fn long_values_are_shortened() {
        let long = "é".repeat(1000);
        let s = shorten(&long);
        assert_eq!(s.chars().count(), 101);
        assert!(s.ends_with('…'));
        assert_eq!(shorten("short"), "short");
        assert_eq!(shown("a\nb"), "a\\nb");
        assert_eq!(shown(&"\n".repeat(500)).chars().count(), 101);
    }
}
