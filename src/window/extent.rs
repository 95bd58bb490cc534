//! How much of a file a call needs from its source ([`Extent`]), and whether the first part of
//! a file that a read limit cut holds all of it ([`Extent::covered_by`]).

use super::budget::{ContentCaps, take_lines};
use super::cap::MAX_WINDOW_BYTES;
use super::lines::{LineIndex, line_start_in};
use super::request::LineRequest;

/// How much of a file a call needs: what a source is told, instead of the whole call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// The lines a window request covers, as [`super::window`] cuts them (byte cap included).
    Lines(LineRequest),
    /// Every line (a search through the whole file).
    Whole,
    /// Every line, to be parsed (an outline or a symbol): a source that knows the language a
    /// repository declares for the file (GitLab's `language`, the `gitlab-language` attribute
    /// of `.gitattributes`) says it, since only a parse needs it.
    Parsed,
}

impl Extent {
    /// Whether `part`, the first part of a file cut by a read limit (so its last line may be
    /// incomplete), holds everything this extent needs, so the rest need not be read:
    ///
    /// 1. [`Extent::Whole`] and [`Extent::Parsed`] never: the part is not the whole file.
    /// 2. A request whose clamped range is inverted over the part: no (it may not be over the
    ///    whole file).
    /// 3. A window that starts past the part, or is empty: no.
    /// 4. Otherwise the lines [`super::window`] would take from the part (under the byte cap,
    ///    counted without building the window) must end before the part's last complete line
    ///    does: a `\n` must follow them.
    pub fn covered_by(self, part: &str) -> bool {
        self.covered_by_in(part, None)
    }

    /// [`Extent::covered_by`], given the part's [`LineIndex`] when known (a cached part keeps
    /// one): the window's first line found from its block, not by walking the part to it.
    pub fn covered_by_in(self, part: &str, index: Option<&LineIndex>) -> bool {
        let Extent::Lines(req) = self else {
            return false;
        };
        let bytes = part.as_bytes();
        let index = index.filter(|i| i.fits(bytes));
        let Ok(span) = req.span(bytes, index.map(LineIndex::total)) else {
            return false;
        };
        let Ok(start) = line_start_in(bytes, span.offset, index) else {
            return false;
        };
        let limits = ContentCaps::new(MAX_WINDOW_BYTES, 0, false, span.offset);
        let taken = take_lines(&bytes[start..], span.limit, &limits);
        taken.count > 0 && memchr::memchr(b'\n', &bytes[start + taken.len..]).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `part` covers `lines`, the same with the part's line index as without.
    fn covers(part: &str, lines: LineRequest) -> bool {
        let plain = Extent::Lines(lines).covered_by(part);
        let index = LineIndex::of(part.as_bytes());
        assert_eq!(
            Extent::Lines(lines).covered_by_in(part, Some(&index)),
            plain
        );
        plain
    }

    fn lines(offset: u64, limit: u64) -> LineRequest {
        LineRequest::OffsetLimit { offset, limit }
    }

    #[test]
    fn a_part_covers_windows_that_end_before_its_last_complete_line() {
        // Three complete lines and a cut fourth.
        let part = "a\nb\nc\nd-cut";
        assert!(covers(part, lines(0, 1)));
        assert!(covers(part, lines(0, 2)));
        assert!(covers(part, lines(1, 1)));
        // Reaching line 3 (the last complete one) or beyond needs the rest.
        assert!(!covers(part, lines(0, 3)));
        assert!(!covers(part, lines(2, 1)));
        assert!(!covers(part, lines(3, 1)));
        assert!(!covers(part, lines(9, 1)));
        let start_end = |start, end| LineRequest::StartEnd {
            start: Some(start),
            end,
        };
        assert!(covers(part, start_end(1, Some(2))));
        assert!(!covers(part, start_end(1, None)));
        assert!(!covers(part, start_end(3, Some(99))));
        assert!(!covers("", lines(0, 5)));
    }

    #[test]
    fn the_whole_file_is_never_covered_by_a_part() {
        assert!(!Extent::Whole.covered_by("a\nb\n"));
        assert!(!Extent::Whole.covered_by(""));
    }

    #[test]
    fn the_byte_cap_counts_as_in_the_window() {
        // Two lines of 600 KiB: the byte cap stops a window of both after the first, which
        // ends before the last complete line.
        let line = format!("{}\n", "x".repeat(600 * 1024));
        let part = format!("{line}{line}{line}cut");
        assert!(covers(&part, lines(0, 2)));
        assert!(!covers(&part, lines(2, 1)));
    }

    proptest! {
        /// The rule as it was stated over a built window: it returned lines, and the next
        /// offset is before the part's last complete line.
        #[test]
        fn counting_agrees_with_building_the_window(
            part in "[ab\n]{0,24}",
            offset in 0u64..12,
            limit in 0u64..12,
            start in proptest::option::of(0u64..12),
            end in proptest::option::of(0u64..12),
            start_end in any::<bool>(),
        ) {
            let req = if start_end {
                LineRequest::StartEnd { start, end }
            } else {
                LineRequest::OffsetLimit { offset, limit }
            };
            let built = match super::super::window(&part, req) {
                Ok(w) => {
                    let complete = w.total_lines - u64::from(!part.is_empty() && !part.ends_with('\n'));
                    w.returned > 0 && w.next_offset() < complete
                }
                Err(_) => false,
            };
            prop_assert_eq!(covers(&part, req), built);
        }
    }
}
