//! Line windows over a file's text, exactly as GitLab's `get_repository_file`
//! tool cuts them.
//!
//! This module owns everything between "here is the whole blob as `&str`" and
//! "here is the slice to return": what a line is, how the two request forms
//! (`offset`/`limit` and `start`/`end`) become one zero-indexed window, the
//! 1 MiB byte cap with its two outcomes ([`Cap::DroppedLines`] and
//! [`Cap::LineCut`]), and the line totals a caller needs for its hint about
//! the next window.
//!
//! It does not validate `limit` (the caller keeps it in `1..=MAX_LIMIT`),
//! write the hint, or know about the read limit on the blob itself; a caller
//! that read only part of a blob ORs its own flag into [`Window::is_partial`].
//!
//! # Lines
//!
//! A line is a run of bytes ending in `\n` (which it keeps), or the run after
//! the last `\n` when that run is not empty. So `"a\r\nb\r\n\r\n\r\n"` has 4
//! lines, `"a\nb"` has 2, a final `\n` does not start an extra line, the empty
//! text has 0 lines, and a lone `\r` is ordinary content.
//!
//! # Performance
//!
//! Nothing here allocates, and no table of line offsets is built. The lines
//! before the window are skipped by counting `\n`s a block at a time with
//! memchr's vectorised count (`memchr_iter(..).count()`) and then walking
//! `\n`s one by one with `memchr` within the last block; the window's lines
//! (at most [`MAX_LIMIT`]) are walked the same way; the lines after it are
//! counted. So per-line work is bounded by the window plus one block.
//!
//! Line numbers are `u64` and byte positions `usize`; a count of bytes or
//! lines is converted with `as u64`, which is lossless on every target Rust
//! supports (pointers are at most 64 bits wide).

use std::fmt;

use memchr::{memchr, memchr_iter};

/// The most bytes one window returns (1 MiB), GitLab's cap.
pub const MAX_WINDOW_BYTES: usize = 1_048_576;

/// The number of lines a request covers when the agent gives no limit.
pub const DEFAULT_LIMIT: u64 = 500;

/// The most lines one window returns.
pub const MAX_LIMIT: u64 = 2000;

/// Which lines the agent asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRequest {
    /// zero-indexed first line and line count (the caller has validated 1 <= limit <= MAX_LIMIT)
    OffsetLimit { offset: u64, limit: u64 },
    /// 1-indexed inclusive; None means "from line 1" / "to the last line".
    StartEnd {
        start: Option<u64>,
        end: Option<u64>,
    },
}

/// Whether, and how, the 1 MiB byte cap shortened a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// The window holds every line the request covered.
    None,
    /// The window holds whole lines, but fewer than the request covered.
    DroppedLines,
    /// The window's single line was longer than [`MAX_WINDOW_BYTES`] and holds
    /// only its first bytes, cut at a character boundary.
    LineCut,
}

/// One window of a file's lines, borrowed from the file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window<'a> {
    /// The returned bytes, a slice of the input.
    pub content: &'a str,
    /// The number of lines in the whole input.
    pub total_lines: u64,
    /// The zero-indexed first line requested (after `StartEnd` conversion).
    pub offset: u64,
    /// The effective limit (for the next-window hint): for `OffsetLimit` the
    /// limit as given; for `StartEnd` the clamped range's length capped at
    /// [`MAX_LIMIT`], and 0 for a text with no lines.
    pub limit: u64,
    /// The number of lines in `content` (0 when empty); a cut line counts.
    pub returned: u64,
    /// Whether the byte cap shortened the window.
    pub cap: Cap,
}

impl Window<'_> {
    /// The 1-indexed inclusive range of returned lines,
    /// `(offset + 1, offset + returned)`, or `None` when no line is returned.
    pub fn returned_lines(&self) -> Option<(u64, u64)> {
        (self.returned > 0).then(|| (self.offset + 1, self.offset + self.returned))
    }

    /// The offset of the line after the window: `offset + returned`.
    ///
    /// Cannot overflow: `returned > 0` only when `offset < total_lines`.
    pub fn next_offset(&self) -> u64 {
        self.offset + self.returned
    }

    /// The number of lines after the window, 0 when the window reached (or
    /// started past) the end.
    pub fn remaining(&self) -> u64 {
        self.total_lines.saturating_sub(self.next_offset())
    }

    /// Whether the window shows less than the whole file: some line is not
    /// in it, or the byte cap shortened it. This is GitLab's `truncated`
    /// minus the read-limit flag, which the caller adds.
    pub fn is_partial(&self) -> bool {
        self.returned < self.total_lines || self.cap != Cap::None
    }

    /// A window holding no line.
    fn empty(total_lines: u64, offset: u64, limit: u64) -> Self {
        Window {
            content: "",
            total_lines,
            offset,
            limit,
            returned: 0,
            cap: Cap::None,
        }
    }
}

/// Why a request has no window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowError {
    /// After clamping into `[1, total_lines]`, `start` is after `end`.
    ///
    /// `start` and `end` are the clamped line numbers. Only a request that
    /// gave both numbers can invert (a missing start is line 1 and a missing
    /// end the last line), so the requested numbers are always known.
    InvertedRange {
        start: u64,
        end: u64,
        requested_start: u64,
        requested_end: u64,
        total_lines: u64,
    },
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WindowError::InvertedRange {
                start,
                end,
                requested_start,
                requested_end,
                total_lines,
            } => {
                write!(f, "start line {start} is after end line {end}")?;
                if (start, end) != (requested_start, requested_end) {
                    write!(
                        f,
                        " (requested lines {requested_start} to {requested_end}, \
                         clamped to the file's {total_lines} lines)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for WindowError {}

/// Cuts the window `req` asks for out of `text`.
///
/// - `OffsetLimit`: lines `[offset, offset + limit)`. An offset at or past
///   the end gives an empty window, not an error. `limit` is used as given,
///   not re-validated (0 gives an empty window).
/// - `StartEnd`: a missing start is line 1 and a missing end the last line;
///   both clamp into `[1, total_lines]`, and then `offset = start - 1`,
///   `limit = min(end - start + 1, MAX_LIMIT)`. A clamped start after the
///   clamped end is [`WindowError::InvertedRange`], the only error. A text
///   with no lines gives an empty window with offset 0 and limit 0.
///
/// The covered lines are then capped at [`MAX_WINDOW_BYTES`] as GitLab caps
/// them: walking the lines, stop before a line if one is already taken and
/// the line would take the total past the cap; take it; stop once the total
/// reaches the cap. If that took a single line longer than the cap, it is
/// cut at the last character boundary at or before the cap
/// ([`Cap::LineCut`]); otherwise, if fewer lines were taken than the request
/// covered, the window is [`Cap::DroppedLines`]. Lines summing to exactly
/// the cap are not capped.
///
/// Following [`Window::next_offset`] from offset 0 and concatenating the
/// contents rebuilds `text` exactly, unless some window is a `LineCut`.
pub fn window(text: &str, req: LineRequest) -> Result<Window<'_>, WindowError> {
    window_capped(text, req, MAX_WINDOW_BYTES)
}

/// [`window`] with the byte cap as a parameter, so tests can reach it with
/// small inputs. `max_bytes` must be at least 4 (one character of any
/// width), or a cut line could be empty.
fn window_capped(
    text: &str,
    req: LineRequest,
    max_bytes: usize,
) -> Result<Window<'_>, WindowError> {
    debug_assert!(
        max_bytes >= 4,
        "a cap under 4 bytes can cut a line to nothing"
    );
    let bytes = text.as_bytes();
    let (offset, limit, known_total) = match req {
        LineRequest::OffsetLimit { offset, limit } => (offset, limit, None),
        LineRequest::StartEnd { start, end } => {
            let total = count_lines(bytes);
            let (offset, limit) = start_end_to_offset_limit(start, end, total)?;
            (offset, limit, Some(total))
        }
    };
    let start = match line_start(bytes, offset) {
        Ok(start) => start,
        Err(total_lines) => return Ok(Window::empty(total_lines, offset, limit)),
    };
    let taken = take_lines(&bytes[start..], limit, max_bytes);
    let lines_end = start + taken.len;
    let total_lines =
        known_total.unwrap_or_else(|| offset + taken.count + count_lines(&bytes[lines_end..]));
    let (end, cap) = if taken.count == 1 && taken.len > max_bytes {
        // `start` follows a `\n` (or is 0) and `lines_end` follows a `\n` (or
        // is the end), so both are char boundaries of `text`.
        let line = &text[start..lines_end];
        (start + floor_char_boundary(line, max_bytes), Cap::LineCut)
    } else if taken.count < limit && lines_end < bytes.len() {
        // Fewer lines than `limit`, yet lines remain: the cap stopped us.
        (lines_end, Cap::DroppedLines)
    } else {
        (lines_end, Cap::None)
    };
    Ok(Window {
        // `start` and `end` are char boundaries: each is 0, the end of the
        // text, just after a `\n`, or a `floor_char_boundary`.
        content: &text[start..end],
        total_lines,
        offset,
        limit,
        returned: taken.count,
        cap,
    })
}

/// Converts a 1-indexed inclusive `start`/`end` pair into a zero-indexed
/// `(offset, limit)` for a text of `total` lines.
///
/// - A missing `start` is line 1; a missing `end` is line `total`.
/// - Both clamp into `[1, total]`: 0 becomes 1, a line past the end becomes
///   `total`.
/// - A clamped `start` after the clamped `end` is
///   [`WindowError::InvertedRange`], which carries the clamped numbers.
/// - Otherwise `offset = start - 1` and `limit = end - start + 1`, capped at
///   [`MAX_LIMIT`].
/// - `total == 0` gives `(0, 0)`: an empty text has no range to invert.
fn start_end_to_offset_limit(
    start: Option<u64>,
    end: Option<u64>,
    total: u64,
) -> Result<(u64, u64), WindowError> {
    if total == 0 {
        return Ok((0, 0));
    }
    let first = start.unwrap_or(1).clamp(1, total);
    let last = end.unwrap_or(total).clamp(1, total);
    if first > last {
        return Err(WindowError::InvertedRange {
            start: first,
            end: last,
            // Inversion needs both numbers: `None` start is 1, which no
            // clamped end is below, and `None` end is `total`, which no
            // clamped start is above. The defaults are never used here.
            requested_start: start.unwrap_or(1),
            requested_end: end.unwrap_or(total),
            total_lines: total,
        });
    }
    Ok((first - 1, (last - first + 1).min(MAX_LIMIT)))
}

/// Returns the number of `\n` bytes in `bytes`.
///
/// memchr 2.6+ specialises `Memchr::count` to a vectorised count (AVX2,
/// SSE2, NEON, simd128) rather than a walk from match to match. The
/// `bytecount` crate counts about twice as fast on a bare 10 MiB buffer,
/// but a whole window already runs at over 10 GB/s with this, so it does
/// not earn a dependency.
fn count_newlines(bytes: &[u8]) -> u64 {
    memchr_iter(b'\n', bytes).count() as u64
}

/// Returns the number of lines in `bytes`: one per `\n`, plus one for a
/// non-empty run after the last `\n`.
///
/// - `""` has 0 lines; `"\n"` has 1; `"a"` has 1; `"a\n"` has 1; `"a\nb"`
///   has 2; `"\n\n"` has 2.
/// - `\r` is ordinary content: `"a\rb"` has 1 line, `"a\r\nb\r\n"` has 2.
fn count_lines(bytes: &[u8]) -> u64 {
    let unterminated = bytes.last().is_some_and(|&b| b != b'\n');
    count_newlines(bytes) + u64::from(unterminated)
}

/// The size of the blocks [`line_start`] counts whole before walking lines
/// one by one. Walking costs a `memchr` call per line; counting a block is a
/// single vectorised pass, so skipping by block is several times faster on
/// short lines. Smaller blocks mean less walking in the last block.
const SKIP_BLOCK: usize = 16 * 1024;

/// Returns the byte index at which zero-indexed line `n` of `bytes` starts,
/// or `Err(total)` with the text's line count (as [`count_lines`]) when
/// there is no line `n`, that is when `n >= total`.
///
/// - `n == 0` gives `Ok(0)`, except for empty `bytes`: `Err(0)`.
/// - Line `n` starts just after the `n`th `\n`; if that `\n` is the last
///   byte, no line starts there: `line_start(b"a\n", 1) == Err(1)`.
/// - An unterminated last line is a line: `line_start(b"a\nb", 1) == Ok(2)`,
///   and `line_start(b"a\nb", 2) == Err(2)`.
/// - `\r` is ordinary content: `line_start(b"a\r\nb", 1) == Ok(3)`.
fn line_start(bytes: &[u8], n: u64) -> Result<usize, u64> {
    let mut pos = 0;
    // `\n`s still to pass before line `n` starts.
    let mut need = n;
    // Skip whole blocks holding fewer `\n`s than we still need.
    while need > 0 && bytes.len() - pos > SKIP_BLOCK {
        let in_block = count_newlines(&bytes[pos..pos + SKIP_BLOCK]);
        if in_block >= need {
            break;
        }
        need -= in_block;
        pos += SKIP_BLOCK;
    }
    if need > 0 {
        for i in memchr_iter(b'\n', &bytes[pos..]) {
            need -= 1;
            if need == 0 {
                pos += i + 1;
                break;
            }
        }
    }
    if need > 0 {
        // Every `\n` was passed, `n - need` of them, and line `n` is not
        // reached; the text's lines are those plus an unterminated tail.
        let unterminated = bytes.last().is_some_and(|&b| b != b'\n');
        Err(n - need + u64::from(unterminated))
    } else if pos < bytes.len() {
        Ok(pos)
    } else {
        // The `n`th `\n` (or, for `n == 0`, nothing) ends the text: it has
        // exactly `n` lines.
        Err(n)
    }
}

/// The whole lines a window takes from its first line on: `count` lines
/// filling the first `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Taken {
    len: usize,
    count: u64,
}

/// Takes up to `limit` lines from the start of `bytes` under GitLab's byte
/// cap `max_bytes`, walking line by line:
///
/// 1. Stop before a line if a line is already taken and `len` plus the
///    line's length (terminator included) exceeds `max_bytes`.
/// 2. Take the line.
/// 3. Stop if `len >= max_bytes`. (Step 1 would stop before the next line
///    anyway, as no line is empty; stopping here spares finding its end.)
///
/// So the first line is always taken whole, however long (`len` exceeds
/// `max_bytes` only when `count == 1`); lines that sum to exactly
/// `max_bytes` are all taken; and `limit == 0` or empty `bytes` take
/// nothing. The caller cuts an over-long single line; this function only
/// measures it.
fn take_lines(bytes: &[u8], limit: u64, max_bytes: usize) -> Taken {
    let mut taken = Taken { len: 0, count: 0 };
    while taken.count < limit && taken.len < bytes.len() {
        let rest = &bytes[taken.len..];
        let line_len = memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        if taken.count > 0 && taken.len + line_len > max_bytes {
            break;
        }
        taken.len += line_len;
        taken.count += 1;
        if taken.len >= max_bytes {
            break;
        }
    }
    taken
}

/// Returns the largest `i <= index` at which `s` can be split without
/// splitting a character; `s.len()` when `index >= s.len()`.
///
/// A character is at most 4 bytes long, so `i` is at least `index - 3`; for
/// `index < 4` it can be 0.
fn floor_char_boundary(s: &str, index: usize) -> usize {
    if index >= s.len() {
        return s.len();
    }
    // One of the (at most) 4 candidates is a boundary: 0 always is, and
    // otherwise a character starts within any 4 consecutive bytes. The
    // `unwrap_or` is never taken.
    (index.saturating_sub(3)..=index)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MIB: usize = MAX_WINDOW_BYTES;

    fn offset_limit(offset: u64, limit: u64) -> LineRequest {
        LineRequest::OffsetLimit { offset, limit }
    }

    fn start_end(start: Option<u64>, end: Option<u64>) -> LineRequest {
        LineRequest::StartEnd { start, end }
    }

    /// `window` for requests that cannot fail.
    fn win(text: &str, req: LineRequest) -> Window<'_> {
        match window(text, req) {
            Ok(w) => w,
            Err(e) => panic!("{req:?} failed: {e}"),
        }
    }

    /// Asserts the content, `returned` and cap of a window.
    #[track_caller]
    fn assert_window(w: &Window<'_>, content: &str, returned: u64, cap: Cap) {
        assert_eq!(
            (w.content, w.returned, w.cap),
            (content, returned, cap),
            "{w:?}"
        );
    }

    // ---- count_lines -------------------------------------------------------

    #[test]
    fn count_lines_edges() {
        let cases: &[(&str, u64)] = &[
            ("", 0),
            ("\n", 1),
            ("\n\n", 2),
            ("a", 1),
            ("a\n", 1),
            ("a\nb", 2),
            ("a\nb\n", 2),
            ("a\r\nb\r\n\r\n\r\n", 4),
            ("a\r\nb", 2),
            ("\r", 1),
            ("\r\r", 1),
            ("a\rb", 1),
            ("a\r", 1),
            ("\r\n", 1),
            ("a\n\n\n", 3),
            ("é\n😀", 2),
        ];
        for &(text, want) in cases {
            assert_eq!(count_lines(text.as_bytes()), want, "{text:?}");
            assert_eq!(text.split_inclusive('\n').count() as u64, want, "{text:?}");
        }
    }

    // ---- line_start --------------------------------------------------------

    #[test]
    fn line_start_edges() {
        let cases: &[(&str, u64, Result<usize, u64>)] = &[
            ("", 0, Err(0)),
            ("", 1, Err(0)),
            ("", u64::MAX, Err(0)),
            ("a", 0, Ok(0)),
            ("a", 1, Err(1)),
            ("\n", 0, Ok(0)),
            ("\n", 1, Err(1)),
            ("a\n", 1, Err(1)),
            ("a\n", 2, Err(1)),
            ("a\nb", 1, Ok(2)),
            ("a\nb", 2, Err(2)),
            ("a\nb", 3, Err(2)),
            ("a\nb", u64::MAX, Err(2)),
            ("a\r\nb", 1, Ok(3)),
            ("a\rb", 1, Err(1)),
            ("\n\n\n", 2, Ok(2)),
            ("\n\n\n", 3, Err(3)),
            ("a\r\nb\r\n\r\n\r\n", 3, Ok(8)),
            ("a\r\nb\r\n\r\n\r\n", 4, Err(4)),
        ];
        for &(text, n, want) in cases {
            assert_eq!(line_start(text.as_bytes(), n), want, "{text:?} line {n}");
        }
    }

    /// Naive reference for `line_start`.
    fn naive_line_start(text: &str, n: u64) -> Result<usize, u64> {
        let mut pos = 0;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            if i as u64 == n {
                return Ok(pos);
            }
            pos += line.len();
        }
        Err(text.split_inclusive('\n').count() as u64)
    }

    #[test]
    fn line_start_across_skip_blocks() {
        // Line lengths 1..=97 in a cycle, several blocks long, so line
        // starts fall on, just before and just after block edges.
        let mut text = String::new();
        let mut len = 0;
        while text.len() < 5 * SKIP_BLOCK {
            len = len % 97 + 1;
            text.extend(std::iter::repeat_n('x', len - 1));
            text.push('\n');
        }
        let total = count_lines(text.as_bytes());
        for n in (0..total + 3).chain([u64::MAX]) {
            assert_eq!(
                line_start(text.as_bytes(), n),
                naive_line_start(&text, n),
                "line {n}"
            );
        }
        // The same without the final `\n`.
        text.pop();
        for n in (total.saturating_sub(400)..total + 3).chain([0, 1, u64::MAX]) {
            assert_eq!(
                line_start(text.as_bytes(), n),
                naive_line_start(&text, n),
                "line {n}"
            );
        }
    }

    #[test]
    fn line_start_block_edges_exact() {
        // A `\n` as the last byte of the first block, then one as the first
        // byte of the second.
        let mut text = "x".repeat(SKIP_BLOCK - 1);
        text.push('\n');
        text.push('\n');
        text.push_str(&"y".repeat(SKIP_BLOCK));
        let bytes = text.as_bytes();
        assert_eq!(line_start(bytes, 1), Ok(SKIP_BLOCK));
        assert_eq!(line_start(bytes, 2), Ok(SKIP_BLOCK + 1));
        assert_eq!(line_start(bytes, 3), Err(3));
        // No `\n` at all in several blocks.
        let text = "z".repeat(3 * SKIP_BLOCK + 5);
        assert_eq!(line_start(text.as_bytes(), 0), Ok(0));
        assert_eq!(line_start(text.as_bytes(), 1), Err(1));
        assert_eq!(line_start(text.as_bytes(), 1000), Err(1));
    }

    // ---- take_lines --------------------------------------------------------

    #[test]
    fn take_lines_edges() {
        let t = |text: &str, limit, max| take_lines(text.as_bytes(), limit, max);
        let taken = |len, count| Taken { len, count };
        // Nothing to take.
        assert_eq!(t("", 5, 10), taken(0, 0));
        assert_eq!(t("a\n", 0, 10), taken(0, 0));
        // Limit and end of text.
        assert_eq!(t("a\nb\nc\n", 2, 10), taken(4, 2));
        assert_eq!(t("a\nb\nc", 9, 10), taken(5, 3));
        // The first line is taken however long.
        assert_eq!(t("0123456789abc\nx\n", 5, 10), taken(14, 1));
        assert_eq!(t("0123456789abc", 5, 10), taken(13, 1));
        // Lines summing to exactly the cap are all taken, then we stop.
        assert_eq!(t("0123\n5678\n", 5, 10), taken(10, 2));
        assert_eq!(t("0123\n5678\nx\n", 5, 10), taken(10, 2));
        // A line that would pass the cap is not taken.
        assert_eq!(t("0123\n56789\n", 5, 10), taken(5, 1));
        // A line of exactly the cap stops the walk.
        assert_eq!(t("012345678\nx\n", 5, 10), taken(10, 1));
        // A later short line does not sneak in after a skipped long one.
        assert_eq!(t("01\n3456789ab\nc\n", 5, 10), taken(3, 1));
    }

    // ---- floor_char_boundary -----------------------------------------------

    #[test]
    fn floor_char_boundary_edges() {
        let s = "aé€😀"; // byte lengths 1, 2, 3, 4; boundaries 0 1 3 6 10
        let want = [0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10, 10];
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(floor_char_boundary(s, i), w, "index {i}");
        }
        assert_eq!(floor_char_boundary("", 0), 0);
        assert_eq!(floor_char_boundary("", 5), 0);
        assert_eq!(floor_char_boundary("😀", 3), 0);
    }

    // ---- start_end_to_offset_limit -----------------------------------------

    #[test]
    fn start_end_conversion() {
        let c = start_end_to_offset_limit;
        // Neither, only start, only end, both.
        assert_eq!(c(None, None, 10), Ok((0, 10)));
        assert_eq!(c(Some(4), None, 10), Ok((3, 7)));
        assert_eq!(c(None, Some(4), 10), Ok((0, 4)));
        assert_eq!(c(Some(3), Some(5), 10), Ok((2, 3)));
        assert_eq!(c(Some(5), Some(5), 10), Ok((4, 1)));
        // 0 clamps to 1.
        assert_eq!(c(Some(0), Some(2), 10), Ok((0, 2)));
        assert_eq!(c(Some(0), Some(0), 10), Ok((0, 1)));
        assert_eq!(c(None, Some(0), 10), Ok((0, 1)));
        // Past the end clamps to the last line.
        assert_eq!(c(Some(8), Some(99), 10), Ok((7, 3)));
        assert_eq!(c(Some(99), None, 10), Ok((9, 1)));
        assert_eq!(c(Some(99), Some(u64::MAX), 10), Ok((9, 1)));
        assert_eq!(c(Some(u64::MAX), Some(u64::MAX), 10), Ok((9, 1)));
        // Longer than MAX_LIMIT is capped.
        assert_eq!(c(None, None, 5000), Ok((0, MAX_LIMIT)));
        assert_eq!(c(Some(100), Some(2099), 5000), Ok((99, MAX_LIMIT)));
        assert_eq!(c(Some(100), Some(2100), 5000), Ok((99, MAX_LIMIT)));
        // No lines: nothing to clamp into, nothing to invert.
        assert_eq!(c(None, None, 0), Ok((0, 0)));
        assert_eq!(c(Some(5), Some(2), 0), Ok((0, 0)));
    }

    #[test]
    fn start_end_inversion() {
        let c = start_end_to_offset_limit;
        let inverted = |start, end, requested_start, requested_end| {
            Err(WindowError::InvertedRange {
                start,
                end,
                requested_start,
                requested_end,
                total_lines: 10,
            })
        };
        assert_eq!(c(Some(5), Some(4), 10), inverted(5, 4, 5, 4));
        // Clamping happens before the check, and the error carries both.
        assert_eq!(c(Some(20), Some(4), 10), inverted(10, 4, 20, 4));
        assert_eq!(c(Some(5), Some(0), 10), inverted(5, 1, 5, 0));
        // A start past the end meets an end past the end: no inversion.
        assert_eq!(c(Some(20), Some(15), 10), Ok((9, 1)));
    }

    #[test]
    fn inverted_range_messages() {
        let e = WindowError::InvertedRange {
            start: 5,
            end: 4,
            requested_start: 5,
            requested_end: 4,
            total_lines: 10,
        };
        assert_eq!(e.to_string(), "start line 5 is after end line 4");
        let e = WindowError::InvertedRange {
            start: 10,
            end: 4,
            requested_start: 20,
            requested_end: 4,
            total_lines: 10,
        };
        assert_eq!(
            e.to_string(),
            "start line 10 is after end line 4 \
             (requested lines 20 to 4, clamped to the file's 10 lines)"
        );
    }

    // ---- window: line semantics --------------------------------------------

    #[test]
    fn crlf_lines_keep_their_terminators() {
        let text = "a\r\nb\r\n\r\n\r\n";
        let w = win(text, offset_limit(0, 500));
        assert_window(&w, text, 4, Cap::None);
        assert_eq!(w.total_lines, 4);
        assert_window(&win(text, offset_limit(1, 2)), "b\r\n\r\n", 2, Cap::None);
        assert_window(&win(text, offset_limit(3, 1)), "\r\n", 1, Cap::None);
        assert_window(
            &win(text, start_end(Some(2), Some(2))),
            "b\r\n",
            1,
            Cap::None,
        );
    }

    #[test]
    fn no_final_newline() {
        let text = "a\nb";
        let w = win(text, offset_limit(0, 500));
        assert_window(&w, "a\nb", 2, Cap::None);
        assert_eq!(w.total_lines, 2);
        let w = win(text, offset_limit(1, 1));
        assert_window(&w, "b", 1, Cap::None);
        assert_eq!((w.next_offset(), w.remaining()), (2, 0));
        assert_window(&win(text, offset_limit(2, 1)), "", 0, Cap::None);
    }

    #[test]
    fn blank_trailing_lines() {
        let text = "a\n\n\n";
        let w = win(text, offset_limit(0, 500));
        assert_window(&w, text, 3, Cap::None);
        assert_eq!(w.total_lines, 3);
        assert_window(&win(text, offset_limit(1, 500)), "\n\n", 2, Cap::None);
        assert_window(&win(text, offset_limit(2, 500)), "\n", 1, Cap::None);
        assert_window(&win(text, offset_limit(3, 500)), "", 0, Cap::None);
        assert_window(&win(text, start_end(Some(3), None)), "\n", 1, Cap::None);
    }

    #[test]
    fn lone_cr_is_content() {
        let text = "a\rb\rc";
        let w = win(text, offset_limit(0, 1));
        assert_window(&w, text, 1, Cap::None);
        assert_eq!(w.total_lines, 1);
        let text = "a\r\rb\nc\r";
        let w = win(text, offset_limit(1, 1));
        assert_window(&w, "c\r", 1, Cap::None);
        assert_eq!(w.total_lines, 2);
        let w = win("\r", offset_limit(0, 5));
        assert_window(&w, "\r", 1, Cap::None);
        assert_eq!(w.total_lines, 1);
    }

    #[test]
    fn empty_file() {
        for req in [
            offset_limit(0, 1),
            offset_limit(0, 500),
            offset_limit(7, 500),
            start_end(None, None),
            start_end(Some(1), Some(1)),
            start_end(Some(0), Some(0)),
            start_end(Some(5), Some(2)),
            start_end(Some(5), None),
            start_end(None, Some(5)),
        ] {
            let w = win("", req);
            assert_window(&w, "", 0, Cap::None);
            assert_eq!(w.total_lines, 0, "{req:?}");
            assert_eq!(w.returned_lines(), None);
            assert_eq!((w.next_offset(), w.remaining()), (w.offset, 0));
            assert!(!w.is_partial(), "{req:?}");
        }
        let w = win("", start_end(None, None));
        assert_eq!((w.offset, w.limit), (0, 0));
    }

    #[test]
    fn offset_at_total() {
        let w = win("a\nb\nc\n", offset_limit(3, 500));
        assert_window(&w, "", 0, Cap::None);
        assert_eq!((w.total_lines, w.offset, w.limit), (3, 3, 500));
        assert_eq!(
            (w.returned_lines(), w.next_offset(), w.remaining()),
            (None, 3, 0)
        );
        assert!(w.is_partial());
        // Without the final newline too.
        let w = win("a\nb\nc", offset_limit(3, 500));
        assert_window(&w, "", 0, Cap::None);
        assert_eq!(w.total_lines, 3);
    }

    #[test]
    fn offset_past_end() {
        for offset in [4, 5, 1000, u64::MAX] {
            let w = win("a\nb\nc", offset_limit(offset, 500));
            assert_window(&w, "", 0, Cap::None);
            assert_eq!((w.total_lines, w.offset), (3, offset));
            assert_eq!(w.returned_lines(), None);
            assert_eq!((w.next_offset(), w.remaining()), (offset, 0));
        }
    }

    #[test]
    fn limit_one() {
        let text = "a\nbb\nccc";
        for (offset, line) in [(0, "a\n"), (1, "bb\n"), (2, "ccc")] {
            let w = win(text, offset_limit(offset, 1));
            assert_window(&w, line, 1, Cap::None);
            assert_eq!(w.returned_lines(), Some((offset + 1, offset + 1)));
            assert_eq!(w.next_offset(), offset + 1);
            assert_eq!(w.remaining(), 2 - offset);
            assert!(w.is_partial());
        }
        let w = win("only\n", offset_limit(0, 1));
        assert_window(&w, "only\n", 1, Cap::None);
        assert!(!w.is_partial());
    }

    #[test]
    fn limit_zero_takes_nothing() {
        // The caller never sends it; it must still behave.
        let w = win("a\nb\n", offset_limit(1, 0));
        assert_window(&w, "", 0, Cap::None);
        assert_eq!((w.total_lines, w.next_offset(), w.remaining()), (2, 1, 1));
    }

    #[test]
    fn window_accessors() {
        let w = win("1\n2\n3\n4\n5\n", offset_limit(1, 2));
        assert_window(&w, "2\n3\n", 2, Cap::None);
        assert_eq!((w.total_lines, w.offset, w.limit), (5, 1, 2));
        assert_eq!(w.returned_lines(), Some((2, 3)));
        assert_eq!((w.next_offset(), w.remaining()), (3, 2));
        assert!(w.is_partial());
        let w = win("1\n2\n", offset_limit(0, 500));
        assert_eq!(w.returned_lines(), Some((1, 2)));
        assert_eq!((w.next_offset(), w.remaining()), (2, 0));
        assert!(!w.is_partial());
    }

    // ---- window: StartEnd --------------------------------------------------

    #[test]
    fn start_end_clamping() {
        let text = "1\n2\n3\n4\n5\n";
        /// (start, end, content, offset, limit)
        type Case = (Option<u64>, Option<u64>, &'static str, u64, u64);
        let cases: &[Case] = &[
            (None, None, text, 0, 5),
            (Some(0), Some(2), "1\n2\n", 0, 2),
            (Some(0), None, text, 0, 5),
            (None, Some(0), "1\n", 0, 1),
            (Some(4), None, "4\n5\n", 3, 2),
            (None, Some(2), "1\n2\n", 0, 2),
            (Some(4), Some(99), "4\n5\n", 3, 2),
            (Some(99), None, "5\n", 4, 1),
            (Some(99), Some(100), "5\n", 4, 1),
            (Some(2), Some(2), "2\n", 1, 1),
        ];
        for &(start, end, content, offset, limit) in cases {
            let w = win(text, start_end(start, end));
            assert_eq!(
                (w.content, w.offset, w.limit, w.total_lines, w.cap),
                (content, offset, limit, 5, Cap::None),
                "{start:?}..{end:?}"
            );
            assert_eq!(w.returned, limit);
        }
    }

    #[test]
    fn start_end_inverted_is_an_error() {
        let text = "1\n2\n3\n4\n5\n";
        assert_eq!(
            window(text, start_end(Some(4), Some(2))),
            Err(WindowError::InvertedRange {
                start: 4,
                end: 2,
                requested_start: 4,
                requested_end: 2,
                total_lines: 5,
            })
        );
        assert_eq!(
            window(text, start_end(Some(9), Some(3))),
            Err(WindowError::InvertedRange {
                start: 5,
                end: 3,
                requested_start: 9,
                requested_end: 3,
                total_lines: 5,
            })
        );
    }

    #[test]
    fn start_end_longer_than_max_limit() {
        let text = "x\n".repeat(5000);
        let w = win(&text, start_end(Some(10), Some(4000)));
        assert_eq!((w.offset, w.limit, w.returned), (9, MAX_LIMIT, MAX_LIMIT));
        assert_eq!(w.content, &text[18..18 + 2 * MAX_LIMIT as usize]);
        assert_eq!(w.returned_lines(), Some((10, 2009)));
        assert_eq!(
            (w.next_offset(), w.remaining(), w.cap),
            (2009, 2991, Cap::None)
        );
        let w = win(&text, start_end(None, None));
        assert_eq!((w.offset, w.limit, w.returned), (0, MAX_LIMIT, MAX_LIMIT));
        // Exactly MAX_LIMIT lines are not shortened.
        let w = win(&text, start_end(Some(1), Some(MAX_LIMIT)));
        assert_eq!((w.limit, w.returned), (MAX_LIMIT, MAX_LIMIT));
    }

    // ---- window: the 1 MiB cap ---------------------------------------------

    #[test]
    fn line_of_exactly_one_mib_is_not_cut() {
        let line = format!("{}\n", "a".repeat(MIB - 1));
        let w = win(&line, offset_limit(0, 500));
        assert_window(&w, &line, 1, Cap::None);
        // Alone, it fills the window; more lines requested are dropped.
        let text = format!("{line}b\n");
        let w = win(&text, offset_limit(0, 500));
        assert_window(&w, &line, 1, Cap::DroppedLines);
        assert_eq!((w.next_offset(), w.remaining()), (1, 1));
        assert!(w.is_partial());
        // Unterminated, exactly 1 MiB of bytes is still one whole line.
        let line = "a".repeat(MIB);
        assert_window(&win(&line, offset_limit(0, 500)), &line, 1, Cap::None);
    }

    #[test]
    fn window_summing_to_exactly_one_mib() {
        // 1024 lines of 1024 bytes.
        let line = format!("{}\n", "a".repeat(1023));
        let full = line.repeat(1024);
        assert_eq!(full.len(), MIB);
        let w = win(&full, offset_limit(0, MAX_LIMIT));
        assert_window(&w, &full, 1024, Cap::None);
        assert!(!w.is_partial());
        // The same window with lines after it that the request does not
        // cover: not capped.
        let text = format!("{full}tail\n");
        let w = win(&text, offset_limit(0, 1024));
        assert_window(&w, &full, 1024, Cap::None);
        assert!(w.is_partial());
        // ... and with more lines requested: they are dropped.
        let w = win(&text, offset_limit(0, 1025));
        assert_window(&w, &full, 1024, Cap::DroppedLines);
        assert_eq!((w.next_offset(), w.remaining()), (1024, 1));
        // One byte more and the last whole line no longer fits.
        let text = format!("{full}x");
        let w = win(&text, offset_limit(1, MAX_LIMIT));
        assert_window(&w, &text[1024..MIB + 1], 1024, Cap::None);
        let text = format!("x{full}");
        let w = win(&text, offset_limit(0, MAX_LIMIT));
        assert_window(&w, &text[..1024 * 1023 + 1], 1023, Cap::DroppedLines);
    }

    #[test]
    fn over_long_single_line_is_cut() {
        let text = format!("{}\nnext\n", "a".repeat(3 * MIB));
        let w = win(&text, offset_limit(0, 500));
        assert_window(&w, &text[..MIB], 1, Cap::LineCut);
        assert_eq!((w.total_lines, w.next_offset(), w.remaining()), (2, 1, 1));
        assert_eq!(w.returned_lines(), Some((1, 1)));
        assert!(w.is_partial());
        // The next window goes on with the next line.
        assert_window(&win(&text, offset_limit(1, 500)), "next\n", 1, Cap::None);
        // A line 1 byte over the cap (its `\n`) is cut too.
        let text = format!("{}\n", "a".repeat(MIB));
        assert_window(
            &win(&text, offset_limit(0, 1)),
            &text[..MIB],
            1,
            Cap::LineCut,
        );
        // An over-long line after a short one is dropped, not cut.
        let text = format!("short\n{}\n", "a".repeat(2 * MIB));
        let w = win(&text, offset_limit(0, 500));
        assert_window(&w, "short\n", 1, Cap::DroppedLines);
        assert_eq!(w.remaining(), 1);
    }

    #[test]
    fn cut_never_splits_a_multibyte_character() {
        for ch in ['é', '€', '😀'] {
            let width = ch.len_utf8();
            // `before` bytes of `ch` fall at or before the 1 MiB boundary.
            for before in 0..=width {
                let prefix = "a".repeat(MIB - before);
                let text = format!("{prefix}{ch}tail\nnext\n");
                let w = win(&text, offset_limit(0, 500));
                let want = if before == width {
                    &text[..MIB]
                } else {
                    prefix.as_str()
                };
                assert_window(&w, want, 1, Cap::LineCut);
                assert!(w.content.len() <= MIB && w.content.len() > MIB - width);
                assert_eq!(w.total_lines, 2);
            }
        }
        // A line made only of 4-byte characters: 1 MiB is a multiple of 4,
        // so the cut takes exactly 1 MiB; shift by one byte and it takes less.
        let text = "😀".repeat(MIB / 4 + 10);
        assert_eq!(win(&text, offset_limit(0, 1)).content.len(), MIB);
        let text = format!("a{}", "😀".repeat(MIB / 4 + 10));
        assert_eq!(win(&text, offset_limit(0, 1)).content.len(), MIB - 3);
    }

    // ---- properties --------------------------------------------------------

    /// GitLab's algorithm over a `Vec` of lines, the reference for `window`.
    fn naive_window(text: &str, offset: u64, limit: u64, max: usize) -> (String, u64, Cap, u64) {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let total = lines.len() as u64;
        let covered: Vec<&str> = lines
            .iter()
            .skip(offset.min(total) as usize)
            .take(limit as usize)
            .copied()
            .collect();
        let mut taken: Vec<&str> = Vec::new();
        let mut size = 0;
        for line in &covered {
            if !taken.is_empty() && size + line.len() > max {
                break;
            }
            taken.push(line);
            size += line.len();
            if size >= max {
                break;
            }
        }
        let returned = taken.len() as u64;
        if taken.len() == 1 && size > max {
            let line = taken[0];
            let cut = (0..=max)
                .rev()
                .find(|&i| line.is_char_boundary(i))
                .unwrap_or(0);
            return (line[..cut].to_string(), 1, Cap::LineCut, total);
        }
        let cap = if taken.len() < covered.len() {
            Cap::DroppedLines
        } else {
            Cap::None
        };
        (taken.concat(), returned, cap, total)
    }

    /// Small texts of `\n`, `\r`, ASCII and 2-, 3- and 4-byte characters.
    fn text_strategy() -> impl Strategy<Value = String> {
        "[ab\\n\\ré€😀]{0,48}"
    }

    proptest! {
        #[test]
        fn windows_rebuild_the_input(text in text_strategy(), limit in 1u64..=20) {
            let total = text.split_inclusive('\n').count() as u64;
            let mut rebuilt = String::new();
            let mut offset = 0;
            let mut expected_first = 1;
            loop {
                let w = win(&text, offset_limit(offset, limit));
                prop_assert_eq!(w.total_lines, total);
                prop_assert_eq!(w.cap, Cap::None);
                match w.returned_lines() {
                    Some((first, last)) => {
                        prop_assert_eq!(first, expected_first);
                        prop_assert_eq!(last - first + 1, w.returned);
                        expected_first = last + 1;
                    }
                    None => {
                        prop_assert!(offset >= total);
                        break;
                    }
                }
                rebuilt.push_str(w.content);
                offset = w.next_offset();
            }
            prop_assert_eq!(rebuilt, text);
            prop_assert_eq!(offset, total);
        }

        #[test]
        fn capped_windows_match_the_reference(
            text in text_strategy(),
            offset in 0u64..24,
            limit in 0u64..=20,
            max in 4usize..=24,
        ) {
            let w = match window_capped(&text, offset_limit(offset, limit), max) {
                Ok(w) => w,
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            let (content, returned, cap, total) = naive_window(&text, offset, limit, max);
            prop_assert_eq!(w.content, content.as_str());
            prop_assert_eq!((w.returned, w.cap, w.total_lines), (returned, cap, total));
            prop_assert_eq!((w.offset, w.limit), (offset, limit));
        }

        #[test]
        fn capped_windows_rebuild_the_input_unless_cut(
            text in text_strategy(),
            limit in 1u64..=20,
            max in 4usize..=24,
        ) {
            let total = text.split_inclusive('\n').count() as u64;
            let mut rebuilt = String::new();
            let mut offset = 0;
            let mut cut = false;
            while offset < total {
                let w = match window_capped(&text, offset_limit(offset, limit), max) {
                    Ok(w) => w,
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                };
                prop_assert!(w.returned > 0);
                prop_assert!(w.content.len() <= max || w.returned == 1);
                cut |= w.cap == Cap::LineCut;
                rebuilt.push_str(w.content);
                offset = w.next_offset();
            }
            prop_assert_eq!(offset, total);
            if !cut {
                prop_assert_eq!(rebuilt, text);
            }
        }

        #[test]
        fn start_end_matches_offset_limit(
            text in text_strategy(),
            start in proptest::option::of(0u64..24),
            end in proptest::option::of(0u64..24),
        ) {
            let total = text.split_inclusive('\n').count() as u64;
            match window(&text, start_end(start, end)) {
                Ok(w) => {
                    prop_assert_eq!(w.total_lines, total);
                    if total > 0 {
                        let first = start.unwrap_or(1).clamp(1, total);
                        let last = end.unwrap_or(total).clamp(1, total);
                        prop_assert!(first <= last);
                        prop_assert_eq!((w.offset, w.limit), (first - 1, last - first + 1));
                        prop_assert_eq!(w.returned_lines(), Some((first, last)));
                        prop_assert_eq!(w, win(&text, offset_limit(first - 1, last - first + 1)));
                    } else {
                        prop_assert_eq!(w.returned, 0);
                    }
                }
                Err(WindowError::InvertedRange { start: first, end: last, .. }) => {
                    prop_assert!(total > 0 && first > last);
                    prop_assert_eq!(first, start.unwrap_or(1).clamp(1, total));
                    prop_assert_eq!(last, end.unwrap_or(total).clamp(1, total));
                }
            }
        }
    }
}
