//! The lines a search covers: a window's request, uncapped, or the whole
//! text, as 1-indexed line numbers and the bytes they fill.

use super::super::lines::line_start;
use super::super::request::lines_covered;
use super::super::request::{LineRequest, WindowError};

/// Searched lines `first..=last` (1-indexed), filling `bytes[start..end]`:
/// `start` is the first line's first byte, `end` just after the last
/// line's terminator (or the text's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Range {
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Returns the lines `lines` covers in `bytes`, a text of `total` lines
/// ([`lines_covered`]), or `None` when it covers none.
pub(super) fn searched(
    bytes: &[u8],
    lines: Option<LineRequest>,
    total: u64,
) -> Result<Option<Range>, WindowError> {
    let lines = lines_covered(lines, total)?;
    Ok(lines.map(|(first, last)| range(bytes, first, last)))
}

/// The bytes of lines `first..=last`, which the text has.
fn range(bytes: &[u8], first: u64, last: u64) -> Range {
    // Lines `first` and `last` exist, so line `first - 1` (zero-indexed)
    // starts somewhere; the line after `last` may not exist.
    let start = line_start(bytes, first - 1).unwrap_or(bytes.len());
    let end = line_start(&bytes[start..], last - first + 1).map_or(bytes.len(), |i| start + i);
    Range {
        first,
        last,
        start,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str, req: Option<LineRequest>) -> Option<(u64, u64, &str)> {
        let total = text.split_inclusive('\n').count() as u64;
        searched(text.as_bytes(), req, total)
            .unwrap()
            .map(|r| (r.first, r.last, &text[r.start..r.end]))
    }

    fn off(offset: u64, limit: u64) -> Option<LineRequest> {
        Some(LineRequest::OffsetLimit { offset, limit })
    }

    fn se(start: Option<u64>, end: Option<u64>) -> Option<LineRequest> {
        Some(LineRequest::StartEnd { start, end })
    }

    #[test]
    fn searched_lines_and_bytes() {
        let t = "a\nb\r\nc\nd";
        assert_eq!(lines(t, None), Some((1, 4, t)));
        assert_eq!(lines("", None), None);
        assert_eq!(lines(t, off(1, 2)), Some((2, 3, "b\r\nc\n")));
        assert_eq!(lines(t, off(3, 500)), Some((4, 4, "d")));
        assert_eq!(lines(t, off(4, 5)), None);
        assert_eq!(lines(t, off(u64::MAX, 5)), None);
        assert_eq!(lines(t, off(2, u64::MAX)), Some((3, 4, "c\nd")));
        assert_eq!(lines(t, se(Some(2), None)), Some((2, 4, "b\r\nc\nd")));
        assert_eq!(lines(t, se(None, Some(1))), Some((1, 1, "a\n")));
        assert_eq!(lines(t, se(Some(4), Some(99))), Some((4, 4, "d")));
        // A start past the end covers no line, as an offset past the end.
        assert_eq!(lines(t, se(Some(5), Some(99))), None);
        assert_eq!(lines(t, se(Some(9), None)), None);
        assert_eq!(lines("a\n", se(Some(1), Some(1))), Some((1, 1, "a\n")));
        // Not capped at MAX_LIMIT lines.
        let long = "x\n".repeat(5000);
        assert_eq!(
            lines(&long, se(Some(10), None)).map(|(f, l, _)| (f, l)),
            Some((10, 5000))
        );
        // The window's one error.
        let e = searched(t.as_bytes(), se(Some(3), Some(2)), 4).unwrap_err();
        assert!(matches!(
            e,
            WindowError::InvertedRange {
                start: 3,
                end: 2,
                ..
            }
        ));
    }
}
