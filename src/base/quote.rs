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

#[cfg(test)]
mod tests {
    use super::*;

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
