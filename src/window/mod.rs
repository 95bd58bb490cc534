//! Line windows over a file's text: GitLab's `get_repository_file` cut,
//! fitted to what the agent can hold.
//!
//! This module owns everything between "here is the whole blob as `&str`" and
//! "here is the content to return": what a line is, how the request forms
//! become one zero-indexed window ([`LineRequest`]; forgejo-mcp's rules for raw
//! `start_line`/`end_line` are [`LineRequest::from_line_args`]), the two caps
//! on a window's size — GitLab's 1 MiB byte cap and the agent's character
//! budget — and what each did ([`Shortened`]), `cat -n` line numbers, and the
//! line totals a caller needs for its hint about the next window.
//!
//! [`window`] is GitLab's window, byte for byte; [`fit_window`] adds the
//! budget and line numbers ([`Fit`]), and `window(t, r)` is
//! `fit_window(t, r, Fit::RAW)`'s [`Fitted::window`]. [`fit_window_in`] is
//! `fit_window` given the text's [`LineIndex`] (a cached blob keeps one): the
//! same window, found without walking the text before it or counting the
//! lines after it.
//!
//! It does not parse arguments, validate `limit` (the caller keeps it in
//! `1..=MAX_LIMIT`) or write the hint. A source told how much of a file a call
//! needs ([`Extent`]) asks it whether the first part of a large blob is enough;
//! a caller that read only part of a blob ORs its own flag into
//! [`Window::is_partial`].
//!
//! # Lines
//!
//! A line is a run of bytes ending in `\n` (which it keeps), or the run after
//! the last `\n` when that run is not empty. So `"a\r\nb\r\n\r\n\r\n"` has 4
//! lines, `"a\nb"` has 2, a final `\n` does not start an extra line, the empty
//! text has 0 lines, and a lone `\r` is ordinary content.
//!
//! # Caps
//!
//! Two caps bound the returned content: [`MAX_WINDOW_BYTES`] bytes, always,
//! and [`Fit::max_chars`] characters when it is not 0. The budget counts
//! characters as the agent sees them in the JSON text block, where a
//! control character costs 6: a C0 control other than `\b`, `\t`, `\n`,
//! `\f` and `\r` (JSON's `\u00XX`) is charged 6, every other Unicode scalar
//! value 1. So however the file is made, its window's JSON string is at
//! most about twice the budget. Both caps measure the content as returned,
//! line-number prefixes included,
//! and both cut as GitLab's byte cap does: whole lines are dropped from the
//! window's end ([`Shortened::DroppedLines`]), and a single first line over a
//! cap is cut at a character boundary ([`Shortened::LineCut`]). The first
//! line is always returned, at least its first character, so following
//! [`Window::next_offset`] always moves on.
//!
//! When both caps bind, the tighter one decides what is returned, and the
//! byte cap is the one reported unless the budget is strictly tighter: a
//! report of [`CapKind::Chars`] means the same request with `max_chars: 0`
//! returns more (more lines, or more of the cut line). So a window's content
//! has at most [`MAX_WINDOW_BYTES`] bytes and is charged at most `max_chars`,
//! with one exception: a first line keeps its prefix (with line numbers)
//! and one character even when that passes a budget smaller than them.
//!
//! # Line numbers
//!
//! With [`Fit::line_numbers`], each returned line is prefixed with its
//! 1-indexed number `cat -n` style: the number right-aligned in
//! [`LINE_NUMBER_WIDTH`] characters (wider from line 1,000,000 on), then a
//! tab. [`Fitted::content`] is then an owned `String`; without numbers it
//! borrows [`Window::content`], the input byte for byte. A cut line's prefix
//! is kept whole and counts against the caps; only the line's text is cut.
//!
//! # Performance
//!
//! No table of line offsets is built, and the only allocation is the
//! numbered `String`. The lines before the window are skipped by counting
//! `\n`s a block at a time with memchr's vectorised count
//! (`memchr_iter(..).count()`) and then walking `\n`s one by one with
//! `memchr` within the last block; the window's lines (at most
//! [`MAX_LIMIT`]) are walked the same way; the lines after it are counted.
//! So per-line work is bounded by the window plus one block. Characters are
//! charged only under a budget, from UTF-8 lead bytes and control bytes a
//! chunk at a time, and
//! only for lines within the byte cap: at most the window plus the line
//! after it.
//!
//! Line numbers are `u64` and byte positions `usize`; a count of bytes or
//! lines is converted with `as u64`, which is lossless on every target Rust
//! supports (pointers are at most 64 bits wide).

use std::borrow::Cow;

mod budget;
mod cap;
mod chars;
mod column;
mod extent;
#[cfg(test)]
mod fit_tests;
mod lines;
mod numbers;
mod request;
pub mod search;
#[cfg(test)]
mod tests;

pub use cap::{Cap, CapKind, LineCut, MAX_WINDOW_BYTES, Shortened};
pub use chars::CONTROL_CHARGE;
pub(crate) use chars::charged_chars;
pub(crate) use column::char_count;
pub use extent::Extent;
pub use numbers::{LINE_NUMBER_WIDTH, LONGEST_PREFIX};
pub use request::{DEFAULT_LIMIT, LineRequest, MAX_LIMIT, WindowError, lines_covered};

use budget::{ContentCaps, Taken, cut_line, is_over, take_lines};
use column::{column_start, first_line};
pub use lines::LineIndex;
pub(crate) use lines::count_lines;
use lines::line_start_in;
use numbers::number_lines;

/// How to fit a window to the agent, beside the lines it asks for: its budget, its line numbers,
/// and where in its first line it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// The most characters of content, line-number prefixes included, a
    /// control character counting 6 (see the module doc); 0 for no budget
    /// (the byte cap still applies). A budget of 6 × [`MAX_WINDOW_BYTES`]
    /// or more never binds: no byte is charged more than 6.
    pub max_chars: u64,
    /// Whether each returned line is prefixed with its number (see the
    /// module doc).
    pub line_numbers: bool,
    /// The characters of the window's first line to skip: the window starts part way
    /// through that line (see [`column`]); 0 starts it at the line's start.
    pub column: u64,
}

impl Fit {
    /// GitLab's window: no budget, no line numbers. What [`window`] uses.
    pub const RAW: Fit = Fit {
        max_chars: 0,
        line_numbers: false,
        column: 0,
    };
}

/// One window of a file's lines, borrowed from the file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window<'a> {
    /// The returned lines as the input holds them, a slice of it (a cut
    /// line's kept start; no line numbers).
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
    /// The characters of the first line before `content` starts ([`Fit::column`]).
    pub column: u64,
    /// Whether a cap shortened the window ([`window`] has only the byte
    /// cap; [`Fitted::shortened`] says which).
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
    /// in it, or a cap shortened it. This is GitLab's `truncated`
    /// minus the read-limit flag, which the caller adds.
    pub fn is_partial(&self) -> bool {
        self.returned < self.total_lines || self.cap != Cap::None || self.column > 0
    }

    /// Whether the window holds every line `asked` names, each whole from where the window
    /// starts in its first (no cap shortened it, and it reaches the last line asked, or the
    /// file's end); `None` asks for the whole file.
    pub fn holds_all_of(&self, asked: Option<LineRequest>) -> bool {
        let total = self.total_lines;
        let end = match asked {
            None => total,
            Some(LineRequest::OffsetLimit { offset, limit }) => offset.saturating_add(limit),
            Some(LineRequest::StartEnd { end, .. }) => end.unwrap_or(total),
        };
        self.cap == Cap::None && self.next_offset() >= end.min(total)
    }

    /// The characters of the first returned line that `content` holds, `(start, end)`,
    /// 0-based, `end` exclusive (a line's `\n` is its last character), when that is not the
    /// whole line: the window starts inside it, or a cap cut it. `None` otherwise.
    ///
    /// Counted on each call, in time linear in the first line's returned part.
    pub fn columns(&self) -> Option<(u64, u64)> {
        (self.returned > 0 && (self.column > 0 || self.cap == Cap::LineCut)).then(|| {
            let shown = column::char_count(first_line(self.content.as_bytes()));
            (self.column, self.column + shown)
        })
    }

    /// Where the content continues inside the window's first line, when a cap cut it: the
    /// column of the first character not returned (the call that continues is this window's
    /// offset with that column). `None` when the window ends at a line's end.
    pub fn next_column(&self) -> Option<u64> {
        if self.cap != Cap::LineCut {
            return None;
        }
        self.columns().map(|(_, end)| end)
    }

    /// A window holding no line.
    fn empty(total_lines: u64, offset: u64, limit: u64) -> Self {
        Window {
            content: "",
            total_lines,
            offset,
            limit,
            returned: 0,
            column: 0,
            cap: Cap::None,
        }
    }
}

/// A window fitted to the agent: the lines as the file holds them, and the
/// content to return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted<'a> {
    /// The window. Its `content` is the returned slice of the input (a cut
    /// line's kept start, no line numbers) and its `cap` is
    /// `shortened.cap()`.
    pub window: Window<'a>,
    /// The content to return: `window.content` itself (borrowed) without
    /// line numbers or without lines; otherwise an owned copy with each line
    /// prefixed.
    pub content: Cow<'a, str>,
    /// Whether a cap shortened the window, and which.
    pub shortened: Shortened,
    /// The fit the window was made with, for hints that repeat it.
    pub fit: Fit,
}

/// Cuts the window `req` asks for out of `text`: GitLab's window, byte for
/// byte, capped at [`MAX_WINDOW_BYTES`] only.
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
/// covered and lines remain, the window is [`Cap::DroppedLines`]. Lines
/// summing to exactly the cap are not capped.
///
/// Following [`Window::next_offset`] from offset 0 and concatenating the
/// contents rebuilds `text` exactly, unless some window is a `LineCut`, whose
/// line goes on from [`Window::next_column`] (see [`fit_window`]).
///
/// This is [`fit_window`] with [`Fit::RAW`].
pub fn window(text: &str, req: LineRequest) -> Result<Window<'_>, WindowError> {
    fit_window(text, req, Fit::RAW).map(|fitted| fitted.window)
}

/// Cuts the window `req` asks for out of `text` as [`window`] does, under
/// both caps and with line numbers as `fit` asks.
///
/// - The request becomes lines `[offset, offset + limit)` exactly as in
///   [`window`], with the same one error.
/// - The covered lines are walked under both caps at once: before a line
///   (after the first), stop if it would take the content's bytes past
///   [`MAX_WINDOW_BYTES`] or, under a budget, its characters (a control
///   character counting 6) past `max_chars` (prefixes included); stop after
///   a line that reaches either.
///   Content exactly at a cap is not capped.
/// - If that took a single line over a cap, its text is cut to what both
///   caps leave after its prefix: at most `MAX_WINDOW_BYTES - prefix` bytes,
///   moved back to a character boundary, and charged at most
///   `max_chars - prefix`, but at least one character ([`Shortened::LineCut`]; a
///   one-character line is then whole). Otherwise, if fewer lines were taken
///   than the request covered and lines remain,
///   [`Shortened::DroppedLines`].
/// - Which cap is named: see [`CapKind`] (the byte cap on a tie).
///
/// - A non-zero [`Fit::column`] starts the window at that character of its
///   first line ([`column`]); a line without it is
///   [`WindowError::ColumnPastEnd`].
///
/// With `max_chars` 0, no line numbers and no column the result's `window` is
/// exactly [`window`]'s. With any caps, following each window's next
/// position from line 0, column 0 — [`Window::next_column`] in the same line
/// after a `LineCut`, else [`Window::next_offset`] at column 0 — visits every
/// character once, and concatenating the contents rebuilds `text` byte for
/// byte (with line numbers on, after removing each line's prefix, everything
/// up to its first tab).
pub fn fit_window(text: &str, req: LineRequest, fit: Fit) -> Result<Fitted<'_>, WindowError> {
    fit_capped(text, req, fit, MAX_WINDOW_BYTES)
}

/// [`fit_window`] of a text whose [`LineIndex`] may be known (a cached blob's): the same
/// window, found without walking the text to the window's first line or counting the lines
/// after it. An index of another text is not used.
pub fn fit_window_in<'a>(
    text: &'a str,
    index: Option<&LineIndex>,
    req: LineRequest,
    fit: Fit,
) -> Result<Fitted<'a>, WindowError> {
    fit_indexed(text, index, req, fit, MAX_WINDOW_BYTES)
}

/// [`fit_window`] with the byte cap as a parameter, so tests can reach it
/// with small inputs. `max_bytes` must be at least 4 (one character of any
/// width) plus, with line numbers, the longest prefix (21), or a cut line
/// could pass it.
fn fit_capped<'a>(
    text: &'a str,
    req: LineRequest,
    fit: Fit,
    max_bytes: usize,
) -> Result<Fitted<'a>, WindowError> {
    fit_indexed(text, None, req, fit, max_bytes)
}

/// [`fit_capped`], with the text's [`LineIndex`] when known.
fn fit_indexed<'a>(
    text: &'a str,
    index: Option<&LineIndex>,
    req: LineRequest,
    fit: Fit,
    max_bytes: usize,
) -> Result<Fitted<'a>, WindowError> {
    debug_assert!(
        max_bytes >= 4 + if fit.line_numbers { LONGEST_PREFIX } else { 0 },
        "a cap this small can be passed by a cut line"
    );
    let bytes = text.as_bytes();
    let index = index.filter(|i| i.fits(bytes));
    let span = req.span(bytes, index.map(LineIndex::total))?;
    let (offset, limit) = (span.offset, span.limit);
    let line = match line_start_in(bytes, offset, index) {
        Ok(line) => line,
        Err(total_lines) => return Ok(Fitted::empty(total_lines, offset, limit, fit)),
    };
    let start = line
        + column_start(&bytes[line..], fit.column).map_err(|line_chars| {
            WindowError::ColumnPastEnd {
                line: offset + 1,
                column: fit.column,
                line_chars,
            }
        })?;
    let limits = ContentCaps::new(max_bytes, fit.max_chars, fit.line_numbers, offset);
    let taken = take_lines(&bytes[start..], limit, &limits);
    let lines_end = start + taken.len;
    let total_lines = span
        .total_lines
        .or(index.map(LineIndex::total))
        .unwrap_or_else(|| offset + taken.count + count_lines(&bytes[lines_end..]));
    // `start` follows a `\n` (or is 0) or is the start of a character of its line, and
    // `lines_end` follows a `\n` (or is the end), so both are char boundaries of `text`.
    let lines = &text[start..lines_end];
    let (returned, shortened) = shorten(lines, &taken, &limits, limit, lines_end < bytes.len());
    let content = if fit.line_numbers && !returned.is_empty() {
        Cow::Owned(number_lines(returned, offset + 1))
    } else {
        Cow::Borrowed(returned)
    };
    Ok(Fitted {
        window: Window {
            content: returned,
            total_lines,
            offset,
            limit,
            returned: taken.count,
            column: fit.column,
            cap: shortened.cap(),
        },
        content,
        shortened,
        fit,
    })
}

/// Returns what a window returns of `lines`, the lines [`take_lines`] took,
/// and whether a cap shortened it:
///
/// - A single line over a cap ([`is_over`]) is cut as [`cut_line`] says:
///   [`Shortened::LineCut`], unless that keeps it whole.
/// - Otherwise, if the walk stopped on a cap before `limit` lines while
///   lines remain after them (`more`): [`Shortened::DroppedLines`] by that
///   cap.
/// - Otherwise all of `lines`, [`Shortened::None`].
fn shorten<'a>(
    lines: &'a str,
    taken: &Taken,
    limits: &ContentCaps,
    limit: u64,
    more: bool,
) -> (&'a str, Shortened) {
    if is_over(taken, limits)
        && let Some(cut) = cut_line(lines, limits.prefix_len(0), limits)
    {
        // `cut_line` keeps a char boundary of the line.
        let kept = &lines[..cut.kept];
        let line_cut = LineCut {
            by: cut.by,
            line_bytes: lines.len(),
            returned_bytes: cut.kept,
            bytes_without_budget: cut.kept_by_bytes,
            line_chars: (cut.by == CapKind::Chars).then(|| charged_chars(lines.as_bytes())),
            chars: char_count(lines.as_bytes()),
        };
        return (kept, Shortened::LineCut(line_cut));
    }
    match taken.stop {
        Some(by) if taken.count < limit && more => (lines, Shortened::DroppedLines { by }),
        _ => (lines, Shortened::None),
    }
}

impl Fitted<'_> {
    /// Returns the number of characters of the file's text returned,
    /// [`Window::content`] (no prefixes): for a [`Shortened::LineCut`], how
    /// much of the line the agent got. Counted on each call, in time linear
    /// in the content (and so not paid by callers that do not ask).
    pub fn text_chars(&self) -> usize {
        self.window.content.chars().count()
    }

    /// Returns what the budget charges for [`Fitted::content`], prefixes
    /// included: its characters plus 5 for each escaped control
    /// character. Counted on each call.
    pub fn charged_chars(&self) -> usize {
        charged_chars(self.content.as_bytes())
    }

    /// A fitted window holding no line.
    fn empty(total_lines: u64, offset: u64, limit: u64, fit: Fit) -> Self {
        Fitted {
            window: Window::empty(total_lines, offset, limit),
            content: Cow::Borrowed(""),
            shortened: Shortened::None,
            fit,
        }
    }
}
