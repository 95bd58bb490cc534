//! The two request forms (`offset`/`limit` and `start`/`end`) and how a
//! `start`/`end` pair becomes a zero-indexed window, with the one way it can
//! fail ([`WindowError::InvertedRange`]).

use std::fmt;

use super::MAX_LIMIT;

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
pub(super) fn start_end_to_offset_limit(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
