//! The cursor inside a line: where a window that starts part way through its first line
//! starts, and where in that line a window's content starts and ends.
//!
//! A column counts characters (Unicode scalar values) from the start of a line, 0-based, the
//! line's `\n` included as its last character. So `"aé€\n"` has 4 characters and columns
//! 0 to 3 start inside it; column 3 is its `\n`. A window starting at column `c` returns the
//! line from its `c`-th character on, then the lines after it as usual; since a column always
//! falls on a character boundary, no window splits a UTF-8 character. Columns count
//! characters, not what the budget charges (a control character counts 1 here), because that
//! is what a caller can count in the content it got.

use memchr::memchr;

use super::chars::is_continuation;

/// Returns the number of characters in `bytes`, a run of whole characters.
pub(crate) fn char_count(bytes: &[u8]) -> u64 {
    // Counted per byte so the loop vectorises; `usize` to `u64` is lossless.
    bytes.iter().filter(|&&b| !is_continuation(b)).count() as u64
}

/// The line starting at `bytes[0]`: up to and including its `\n`, or to the end.
pub(super) fn first_line(bytes: &[u8]) -> &[u8] {
    memchr(b'\n', bytes).map_or(bytes, |i| &bytes[..=i])
}

/// Returns the byte index of character `column` of the line that starts at `bytes[0]`, or
/// `Err(chars)` with the line's characters (its `\n` included) when the line has no
/// character `column`.
///
/// - `column` 0 is `Ok(0)`, even for an empty `bytes` (an empty window is not this module's
///   business).
/// - `"aé€\n"`: column 1 is byte 1, column 2 byte 3, column 3 (the `\n`) byte 6, column 4
///   `Err(4)`.
/// - A line without `\n` (the last one): `"ab"` column 2 is `Err(2)`.
pub(super) fn column_start(bytes: &[u8], column: u64) -> Result<usize, u64> {
    if column == 0 {
        return Ok(0);
    }
    let line = first_line(bytes);
    let mut seen = 0u64;
    for (i, &b) in line.iter().enumerate() {
        if is_continuation(b) {
            continue;
        }
        if seen == column {
            return Ok(i);
        }
        seen += 1;
    }
    Err(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_count_counts_scalars() {
        assert_eq!(char_count(b""), 0);
        assert_eq!(char_count("aé€😀\n".as_bytes()), 5);
        assert_eq!(char_count(b"\x00\x1b\r\n"), 4);
    }

    #[test]
    fn first_line_keeps_its_newline() {
        assert_eq!(first_line(b"ab\ncd"), b"ab\n");
        assert_eq!(first_line(b"ab"), b"ab");
        assert_eq!(first_line(b"\n\n"), b"\n");
        assert_eq!(first_line(b""), b"");
    }

    #[test]
    fn column_start_edges() {
        let line = "aé€\nzz".as_bytes();
        let cases: &[(u64, Result<usize, u64>)] = &[
            (0, Ok(0)),
            (1, Ok(1)),
            (2, Ok(3)),
            (3, Ok(6)),
            (4, Err(4)),
            (u64::MAX, Err(4)),
        ];
        for &(column, want) in cases {
            assert_eq!(column_start(line, column), want, "column {column}");
        }
        // The last line has no `\n`; the empty text has no characters.
        assert_eq!(column_start(b"ab", 1), Ok(1));
        assert_eq!(column_start(b"ab", 2), Err(2));
        assert_eq!(column_start(b"", 0), Ok(0));
        assert_eq!(column_start(b"", 1), Err(0));
        // A 4-byte character, then CRLF.
        assert_eq!(column_start("😀\r\n".as_bytes(), 1), Ok(4));
        assert_eq!(column_start("😀\r\n".as_bytes(), 2), Ok(5));
        assert_eq!(column_start("😀\r\n".as_bytes(), 3), Err(3));
    }

    use super::super::{Fit, LineRequest, fit_capped};
    use proptest::prelude::*;

    /// Follows each window's own next position from line 0, column 0 — inside the line when a
    /// cap cut it ([`super::super::Window::next_column`]), else the next line's start — and
    /// returns the contents joined, checking that each window starts where asked and moves
    /// on.
    fn tile(text: &str, fit: Fit, limit: u64, max_bytes: usize) -> Result<String, TestCaseError> {
        let (mut offset, mut column) = (0u64, 0u64);
        let mut joined = String::new();
        for _ in 0..=text.len() {
            let req = LineRequest::OffsetLimit { offset, limit };
            let f = fit_capped(text, req, Fit { column, ..fit }, max_bytes)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let w = f.window;
            if w.returned == 0 {
                prop_assert_eq!(joined.as_str(), text);
                return Ok(joined);
            }
            prop_assert!(!w.content.is_empty());
            let first = first_line(w.content.as_bytes());
            let shown = (column, column + char_count(first));
            prop_assert_eq!(w.columns().unwrap_or(shown), shown);
            joined.push_str(w.content);
            (offset, column) = match w.next_column() {
                Some(next) => (offset, next),
                None => (w.next_offset(), 0),
            };
        }
        Err(TestCaseError::fail("the windows did not reach the end"))
    }

    proptest! {
        #[test]
        fn following_each_window_tiles_the_text(
            text in "([ab\r\t\x1b]{0,3}[é€😀]{0,2}\n?){0,12}[a€😀]{0,40}",
            max_chars in 0u64..=12,
            limit in 1u64..=4,
            line_numbers in any::<bool>(),
            max_bytes in 25usize..=40,
        ) {
            let fit = Fit { max_chars, line_numbers, column: 0 };
            tile(&text, fit, limit, max_bytes)?;
        }
    }

    #[test]
    fn a_column_past_the_line_is_an_error_naming_its_length() {
        let e = fit_capped(
            "ab\ncd\n",
            LineRequest::OffsetLimit {
                offset: 1,
                limit: 1,
            },
            Fit {
                column: 3,
                ..Fit::RAW
            },
            40,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "column 3 is past the end of line 2, which has 3 characters (a line break counts as one); columns of that line run from 0 to 2"
        );
        // Its `\n` is the line's last column; an offset past the end is no error.
        let ok = |offset, column| {
            fit_capped(
                "ab\ncd\n",
                LineRequest::OffsetLimit { offset, limit: 1 },
                Fit { column, ..Fit::RAW },
                40,
            )
        };
        assert_eq!(ok(1, 2).unwrap().window.content, "\n");
        assert_eq!(ok(5, 9).unwrap().window.returned, 0);
    }
}
