//! The two request forms (`offset`/`limit` and `start`/`end`): forgejo-mcp's
//! rules that turn an agent's raw `start_line`/`end_line` into one, how a
//! request becomes a zero-indexed span of lines, and the one way that can
//! fail ([`WindowError::InvertedRange`]).

use super::lines::count_lines;
use std::fmt::{self, Display, Formatter};

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
    ///
    /// Both clamp into the file's lines, 0 like any number below line 1.
    /// An agent's raw (signed) `start_line`/`end_line` come here through
    /// [`LineRequest::from_line_args`], which never passes 0.
    StartEnd {
        start: Option<u64>,
        end: Option<u64>,
    },
}

impl LineRequest {
    /// Returns the request an agent's raw `start_line` and `end_line` make
    /// under forgejo-mcp's line-range rules, or `None` when they
    /// make no line range.
    ///
    /// The bounds are signed, as sent, so 0 and negative numbers reach
    /// here. In order:
    ///
    /// 1. Both absent, or both exactly 0: `None`. The caller goes on as if
    ///    neither was sent (offset/limit, or its default window).
    /// 2. A start below 1 is line 1, the same as no start: `(-5, 3)` is
    ///    lines 1 to 3, `(0, 3)` too.
    /// 3. An end below 1 is the last line, the same as no end: `(3, 0)` is
    ///    line 3 to the end, and so are `(3, -1)` and `(3, None)`.
    /// 4. The rest is [`LineRequest::StartEnd`] as given, which [`window`]
    ///    clamps into the file's lines and caps at [`MAX_LIMIT`] lines; a
    ///    clamped start after the clamped end is
    ///    [`WindowError::InvertedRange`], naming both numbers as sent. Only
    ///    a start of 2 or more with an end of 1 or more can invert, so those
    ///    are never below 1.
    ///
    /// So `(None, 0)`, `(0, None)`, `(-1, -1)` and `(0, -1)` are a line
    /// range (line 1 to the end, at most [`MAX_LIMIT`] lines), while
    /// `(0, 0)` is none.
    ///
    /// [`window`]: super::window
    pub fn from_line_args(start_line: Option<i64>, end_line: Option<i64>) -> Option<LineRequest> {
        if matches!((start_line, end_line), (None, None) | (Some(0), Some(0))) {
            return None;
        }
        // Below 1 (where `try_from` fails, or 0) is no bound.
        let bound = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok()).filter(|&n| n >= 1);
        Some(LineRequest::StartEnd {
            start: bound(start_line),
            end: bound(end_line),
        })
    }

    /// Returns the zero-indexed span of lines this request covers in
    /// `bytes`.
    ///
    /// - `OffsetLimit`: `offset` and `limit` as given; the line count is
    ///   left for the window walk to find.
    /// - `StartEnd`: the text's lines are counted (or `total`, when its index knows it), then
    ///   converted by [`start_end_to_offset_limit`] (its only error is this one's).
    pub(super) fn span(self, bytes: &[u8], total: Option<u64>) -> Result<Span, WindowError> {
        match self {
            LineRequest::OffsetLimit { offset, limit } => Ok(Span {
                offset,
                limit,
                total_lines: None,
            }),
            LineRequest::StartEnd { start, end } => {
                let total = total.unwrap_or_else(|| count_lines(bytes));
                let (offset, limit) = start_end_to_offset_limit(start, end, total)?;
                Ok(Span {
                    offset,
                    limit,
                    total_lines: Some(total),
                })
            }
        }
    }
}

/// The lines a request covers: zero-indexed `offset`, `limit` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) offset: u64,
    pub(super) limit: u64,
    /// The text's line count when finding the span already counted it.
    pub(super) total_lines: Option<u64>,
}

/// Why a request has no window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
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
    /// The window's first line has no character `column` (see the `column` module): it has
    /// `line_chars` characters, its `\n` included. `line` is 1-indexed.
    ColumnPastEnd {
        line: u64,
        column: u64,
        line_chars: u64,
    },
}

impl Display for WindowError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
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
            WindowError::ColumnPastEnd {
                line,
                column,
                line_chars,
            } => write!(
                f,
                "column {column} is past the end of line {line}, which has {line_chars} characters (a line break counts as one); columns of that line run from 0 to {}",
                line_chars.saturating_sub(1)
            ),
        }
    }
}

/// The lines `lines` covers in a text of `total` lines, uncapped (a search's or an outline's
/// lines), 1-indexed inclusive, or `None` when it covers none:
///
/// - `None`: every line; none in an empty text.
/// - `OffsetLimit`: zero-indexed lines `offset..offset + limit`, cut at the end; none when
///   `offset` is at or past the end.
/// - `StartEnd`: clamped as a window clamps it ([`clamp_start_end`], with its inverted-range
///   error) but not capped at `MAX_LIMIT` lines; none when `start` is past the end.
pub fn lines_covered(
    lines: Option<LineRequest>,
    total: u64,
) -> Result<Option<(u64, u64)>, WindowError> {
    Ok(match lines {
        None => (total > 0).then_some((1, total)),
        Some(LineRequest::OffsetLimit { offset, limit }) => (offset < total && limit > 0)
            .then(|| (offset + 1, offset.saturating_add(limit).min(total))),
        Some(LineRequest::StartEnd { start, end }) => clamp_start_end(start, end, total)?,
    })
}

/// Clamps a 1-indexed inclusive `start`/`end` pair into a text of `total`
/// lines: the lines it covers, 1-indexed inclusive, uncapped (a search
/// covers them all), or `None` for a text with no lines.
///
/// - A missing `start` is line 1; a missing `end` is line `total`.
/// - A `start` past the end covers no line: `None`, as an offset past the end
///   does (the hint names the line count; `start_line: 7` of a 3-line file is
///   not line 3).
/// - Both clamp into `[1, total]`: 0 becomes 1, an `end` past the end becomes
///   `total`.
/// - A clamped `start` after the clamped `end` is
///   [`WindowError::InvertedRange`], which carries the clamped numbers.
/// - `total == 0` gives `None`: an empty text has no range to invert.
pub(super) fn clamp_start_end(
    start: Option<u64>,
    end: Option<u64>,
    total: u64,
) -> Result<Option<(u64, u64)>, WindowError> {
    if total == 0 || start.is_some_and(|s| s > total) {
        return Ok(None);
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
    Ok(Some((first, last)))
}

/// Converts a 1-indexed inclusive `start`/`end` pair into a zero-indexed
/// `(offset, limit)` for a text of `total` lines: [`clamp_start_end`]'s
/// lines (and its one error), then `offset = start - 1` and
/// `limit = end - start + 1`, capped at [`MAX_LIMIT`]. `total == 0` gives
/// `(0, 0)`; a `start` past the end gives `(start - 1, 1)`, a window past the end that
/// returns no line.
fn start_end_to_offset_limit(
    start: Option<u64>,
    end: Option<u64>,
    total: u64,
) -> Result<(u64, u64), WindowError> {
    Ok(match clamp_start_end(start, end, total)? {
        Some((first, last)) => (first - 1, (last - first + 1).min(MAX_LIMIT)),
        None => match start {
            // `clamp_start_end` gives no lines for a text with lines only when `start` is
            // past them, so `s >= 2` here and `s - 1` cannot underflow.
            Some(s) if total > 0 => (s - 1, 1),
            _ => (0, 0),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_args_under_the_seeds_rules() {
        let start_end = |start, end| Some(LineRequest::StartEnd { start, end });
        type Case = (Option<i64>, Option<i64>, Option<LineRequest>);
        let cases: &[Case] = &[
            // No line range.
            (None, None, None),
            (Some(0), Some(0), None),
            // In range, start or end omitted.
            (Some(2), Some(4), start_end(Some(2), Some(4))),
            (None, Some(4), start_end(None, Some(4))),
            (Some(2), None, start_end(Some(2), None)),
            // A start below 1 is line 1.
            (Some(-5), Some(3), start_end(None, Some(3))),
            (Some(0), Some(3), start_end(None, Some(3))),
            (Some(i64::MIN), Some(3), start_end(None, Some(3))),
            (Some(0), None, start_end(None, None)),
            // An end below 1 is the last line.
            (Some(3), Some(0), start_end(Some(3), None)),
            (Some(3), Some(-1), start_end(Some(3), None)),
            (None, Some(0), start_end(None, None)),
            (Some(-1), Some(-1), start_end(None, None)),
            (Some(0), Some(-1), start_end(None, None)),
            // Inverted and past-the-end numbers pass through, for `window`.
            (Some(5), Some(3), start_end(Some(5), Some(3))),
            (
                Some(i64::MAX),
                Some(1),
                start_end(Some(i64::MAX as u64), Some(1)),
            ),
        ];
        for &(start, end, want) in cases {
            assert_eq!(
                LineRequest::from_line_args(start, end),
                want,
                "{start:?}..{end:?}"
            );
        }
    }

    #[test]
    fn spans() {
        let off = LineRequest::OffsetLimit {
            offset: 7,
            limit: 3,
        };
        assert_eq!(
            off.span(b"a\n", None),
            Ok(Span {
                offset: 7,
                limit: 3,
                total_lines: None
            })
        );
        let se = LineRequest::StartEnd {
            start: Some(2),
            end: None,
        };
        assert_eq!(
            se.span(b"a\nb\nc", None),
            Ok(Span {
                offset: 1,
                limit: 2,
                total_lines: Some(3)
            })
        );
        let inverted = LineRequest::StartEnd {
            start: Some(3),
            end: Some(2),
        };
        assert!(inverted.span(b"a\nb\nc", None).is_err());
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
        // An end past the end clamps to the last line.
        assert_eq!(c(Some(8), Some(99), 10), Ok((7, 3)));
        assert_eq!(c(Some(10), None, 10), Ok((9, 1)));
        // A start past the end is a window past the end (no line), whatever the end.
        assert_eq!(c(Some(11), None, 10), Ok((10, 1)));
        assert_eq!(c(Some(99), None, 10), Ok((98, 1)));
        assert_eq!(c(Some(99), Some(u64::MAX), 10), Ok((98, 1)));
        assert_eq!(c(Some(99), Some(3), 10), Ok((98, 1)));
        assert_eq!(c(Some(u64::MAX), Some(u64::MAX), 10), Ok((u64::MAX - 1, 1)));
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
        assert_eq!(c(Some(5), Some(0), 10), inverted(5, 1, 5, 0));
        // A start past the end is past the end before it is inverted.
        assert_eq!(c(Some(20), Some(4), 10), Ok((19, 1)));
        assert_eq!(c(Some(20), Some(15), 10), Ok((19, 1)));
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
}
