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

mod budget;
mod lines;
mod request;
#[cfg(test)]
mod tests;

pub use request::{LineRequest, WindowError};

use budget::{floor_char_boundary, take_lines};
use lines::{count_lines, line_start};
use request::start_end_to_offset_limit;

/// The most bytes one window returns (1 MiB), GitLab's cap.
pub const MAX_WINDOW_BYTES: usize = 1_048_576;

/// The number of lines a request covers when the agent gives no limit.
pub const DEFAULT_LIMIT: u64 = 500;

/// The most lines one window returns.
pub const MAX_LIMIT: u64 = 2000;

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
