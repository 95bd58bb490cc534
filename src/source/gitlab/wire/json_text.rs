//! Decoding a JSON string literal (`"a\nb"`, quotes included) into a `String` in one pass and
//! one exactly-sized allocation.
//!
//! GitLab sends a file's content as one JSON string of up to 10 MiB. serde_json would decode
//! it through a growing scratch buffer and then copy it, holding up to three copies at once;
//! taking the literal raw and decoding it here holds two (raw + decoded) and frees the raw one
//! right after.

use memchr::memchr;
use std::fmt::{self, Display, Formatter};

/// Why a literal could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum JsonTextError {
    /// Not a string literal in quotes, or not valid UTF-8 once decoded.
    NotAString,
    /// A backslash not followed by a valid escape, at this byte of the literal's inside.
    BadEscape(usize),
    /// A `\u` escape of a lone surrogate, at this byte.
    BadSurrogate(usize),
}

impl Display for JsonTextError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            JsonTextError::NotAString => f.write_str("not a JSON string literal"),
            JsonTextError::BadEscape(at) => write!(f, "invalid escape at byte {at}"),
            JsonTextError::BadSurrogate(at) => write!(f, "unpaired surrogate at byte {at}"),
        }
    }
}

/// Decodes the JSON string literal `raw` (with its surrounding quotes).
///
/// - `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` decode to their characters;
/// - `\uXXXX` decodes to that code point; a high surrogate must be followed by `\u` and a low
///   surrogate (together one character); a lone surrogate is an error (serde_json rejects it
///   too), and so is any other escape;
/// - everything else is copied as is (`raw` is already valid UTF-8 because it is a `&str`; a
///   raw control character is accepted, as the literal came from a JSON parser that already
///   validated the document);
/// - the result's capacity is the number of bytes between the quotes, an upper bound of the
///   decoded length, so it never reallocates.
pub(crate) fn decode(raw: &str) -> Result<String, JsonTextError> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or(JsonTextError::NotAString)?;
    let bytes = inner.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // Copy the run up to the next backslash.
        let Some(k) = memchr(b'\\', &bytes[i..]) else {
            out.extend_from_slice(&bytes[i..]);
            break;
        };
        out.extend_from_slice(&bytes[i..i + k]);
        i += k;
        let escape = *bytes.get(i + 1).ok_or(JsonTextError::BadEscape(i))?;
        let simple = match escape {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return Err(JsonTextError::BadEscape(i)),
        };
        if let Some(b) = simple {
            out.push(b);
            i += 2;
            continue;
        }
        let first = hex4(bytes, i + 2).ok_or(JsonTextError::BadEscape(i))?;
        let (code, used) = match first {
            0xD800..=0xDBFF => {
                let low = (bytes.get(i + 6) == Some(&b'\\') && bytes.get(i + 7) == Some(&b'u'))
                    .then(|| hex4(bytes, i + 8))
                    .flatten()
                    .filter(|low| (0xDC00..=0xDFFF).contains(low))
                    .ok_or(JsonTextError::BadSurrogate(i))?;
                (0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00), 12)
            }
            0xDC00..=0xDFFF => return Err(JsonTextError::BadSurrogate(i)),
            _ => (first, 6),
        };
        let c = char::from_u32(code).ok_or(JsonTextError::BadSurrogate(i))?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        i += used;
    }
    // `out` holds copied runs of a `&str` split only at ASCII backslashes, plus whole encoded
    // characters, so it is valid UTF-8; the check costs one fast pass and no allocation.
    String::from_utf8(out).map_err(|_| JsonTextError::NotAString)
}

/// The length in bytes of what [`decode`] makes of `raw`, without decoding it: each simple
/// escape is one byte, a `\uXXXX` escape the UTF-8 length of its code point (a surrogate pair,
/// twelve bytes of escapes, is four). For a literal [`decode`] rejects the result is an upper
/// bound; for a string that is not a literal in quotes it is 0.
pub(crate) fn decoded_len(raw: &str) -> usize {
    let Some(inner) = raw.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return 0;
    };
    let bytes = inner.as_bytes();
    let mut len = bytes.len();
    let mut i = 0;
    while let Some(k) = memchr(b'\\', &bytes[i..]) {
        i += k;
        // (bytes of the escape, bytes it decodes to)
        let (escaped, decoded) = match bytes.get(i + 1) {
            Some(b'u') => match hex4(bytes, i + 2) {
                Some(0xD800..=0xDBFF) if bytes.get(i + 6..i + 8) == Some(b"\\u") => (12, 4),
                Some(code) => (6, char::from_u32(code).map_or(3, char::len_utf8)),
                None => (2, 1),
            },
            Some(_) => (2, 1),
            None => (1, 1),
        };
        len -= escaped - decoded;
        i = (i + escaped).min(bytes.len());
    }
    len
}

/// The four hex digits at `at` as a number, if there are four.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_and_escaped() {
        assert_eq!(decode(r#""""#).unwrap(), "");
        assert_eq!(decode(r#""abc""#).unwrap(), "abc");
        assert_eq!(decode(r#""a\r\nb\r\n""#).unwrap(), "a\r\nb\r\n");
        assert_eq!(
            decode(r#""\"\\\/\b\f\n\r\t""#).unwrap(),
            "\"\\/\u{8}\u{c}\n\r\t"
        );
        assert_eq!(decode(r#""\u00e9\u20AC""#).unwrap(), "é€");
        assert_eq!(decode(r#""\ud83d\ude00!""#).unwrap(), "😀!");
        assert_eq!(decode("\"é€😀\"").unwrap(), "é€😀");
        assert_eq!(decode(r#""\u0000""#).unwrap(), "\0");
    }

    #[test]
    fn capacity_is_exact_upper_bound() {
        let s = decode(r#""line\nline\n""#).unwrap();
        assert_eq!(s.capacity(), "line\\nline\\n".len());
    }

    #[test]
    fn errors() {
        assert_eq!(decode("abc"), Err(JsonTextError::NotAString));
        assert_eq!(decode("\""), Err(JsonTextError::NotAString));
        assert_eq!(decode(r#""a\""#), Err(JsonTextError::BadEscape(1)));
        assert_eq!(decode(r#""\x""#), Err(JsonTextError::BadEscape(0)));
        assert_eq!(decode(r#""\u12""#), Err(JsonTextError::BadEscape(0)));
        assert_eq!(decode(r#""\ud83d""#), Err(JsonTextError::BadSurrogate(0)));
        assert_eq!(decode(r#""\ud83dx""#), Err(JsonTextError::BadSurrogate(0)));
        assert_eq!(decode(r#""\ude00""#), Err(JsonTextError::BadSurrogate(0)));
        assert_eq!(
            decode(r#""\ud83d\u0041""#),
            Err(JsonTextError::BadSurrogate(0))
        );
    }

    proptest! {
        #[test]
        fn agrees_with_serde_json(s in "\\PC*|[\\x00-\\x1f\"\\\\/€😀a\\n\\r]*") {
            let literal = serde_json::to_string(&s).unwrap();
            prop_assert_eq!(decode(&literal).unwrap(), s);
        }

        #[test]
        fn never_panics(s in ".*") {
            let _ = decode(&format!("\"{s}\""));
            let _ = decoded_len(&format!("\"{s}\""));
        }

        #[test]
        fn decoded_len_is_the_decoded_length(s in "\\PC*|[\\x00-\\x1f\"\\\\/€😀a\\n\\r]*") {
            let literal = serde_json::to_string(&s).unwrap();
            prop_assert_eq!(decoded_len(&literal), s.len());
        }
    }
}
