//! The two caps on a window's size, GitLab's byte cap and the agent's
//! character budget: which of the covered lines a window takes, which cap
//! stopped it, and where a single over-long line is cut.
//!
//! Both caps measure the returned content, line-number prefixes included
//! (without numbers that is the file's own bytes, exactly GitLab's rule).
//! The budget measures characters as the agent sees them in the JSON text
//! block, where a control character costs 6 ([`charged_chars`]).

use memchr::memchr;

use super::cap::CapKind;
use super::chars::{
    CONTROL_CHARGE, charged_boundary, charged_chars, first_char_len, floor_char_boundary,
    is_one_char,
};
use super::numbers::prefix_len;

/// What a window may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ContentCaps {
    /// The most bytes of content. At least 4 (one character of any width)
    /// plus the longest prefix, or a cut could pass it.
    pub(super) max_bytes: usize,
    /// The most characters of content, as the budget charges them; `None`
    /// for no budget, and for one that cannot bind (at or above
    /// `CONTROL_CHARGE × max_bytes`: no byte is charged more).
    pub(super) max_chars: Option<usize>,
    /// The number of the window's first line when lines are numbered, `None`
    /// when they are not.
    pub(super) first_number: Option<u64>,
}

impl ContentCaps {
    /// The limits for a window whose first line is zero-indexed `offset`.
    /// A `max_chars` of 0, or of `CONTROL_CHARGE × max_bytes` or more, is
    /// no budget.
    pub(super) fn new(max_bytes: usize, max_chars: u64, line_numbers: bool, offset: u64) -> Self {
        // A budget too big for `usize` cannot bind either.
        let chars = usize::try_from(max_chars).unwrap_or(usize::MAX);
        let binds = chars > 0 && chars < max_bytes.saturating_mul(CONTROL_CHARGE);
        ContentCaps {
            max_bytes,
            max_chars: binds.then_some(chars),
            // `offset + 1` cannot overflow: a window with lines has `offset`
            // below its text's line count.
            first_number: line_numbers.then(|| offset + 1),
        }
    }

    /// The length of the prefix of the window's zero-indexed line `index`,
    /// 0 without line numbers.
    pub(super) fn prefix_len(&self, index: u64) -> usize {
        self.first_number
            .map_or(0, |first| prefix_len(first + index))
    }
}

/// The lines a window takes from its first line on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Taken {
    /// The number of lines taken.
    pub(super) count: u64,
    /// The bytes of the input they fill (their text, no prefixes).
    pub(super) len: usize,
    /// The bytes of content they make: `len` plus their prefixes.
    pub(super) bytes: usize,
    /// The characters of content they make, prefixes included, as the
    /// budget charges them ([`charged_chars`]). Counted only
    /// under a budget (0 without), and not for a single line over
    /// `max_bytes` ([`cut_line`] counts what it keeps of that).
    pub(super) chars: usize,
    /// The cap that stopped the walk, `None` if `limit` or the input ran
    /// out first. When both caps would have stopped it at the same place it
    /// is [`CapKind::Bytes`]: `Chars` means that without the budget the walk
    /// would have gone further.
    pub(super) stop: Option<CapKind>,
}

/// Takes up to `limit` lines from the start of `bytes` under `limits`,
/// walking line by line. For each line, with `out` its length plus its
/// prefix's:
///
/// 1. Stop (`Bytes`) before the line if a line is already taken and
///    `bytes + out` exceeds `max_bytes`.
/// 2. Under a budget, stop (`Chars`) before the line if a line is already
///    taken and `chars` already reaches `max_chars` (every line has a
///    character, so it cannot fit; this spares counting it), or if `chars`
///    plus the line's charge (prefix included) exceeds `max_chars`.
///    A line whose `out` exceeds `max_bytes` is not counted (it can only be
///    the first, which step 4 stops after).
/// 3. Take the line.
/// 4. Stop (`Bytes`) if `bytes >= max_bytes`: step 1 would stop before the
///    next line anyway, as no line is empty, and stopping here spares
///    finding its end. Stop (`Chars`) if `chars > max_chars` and the line
///    has more than one character: only a first line can pass the budget,
///    and it will be cut, so no more lines matter. (A one-character line is
///    kept whole, so the walk goes on to learn which cap drops the next.)
///
/// So the first line is always taken whole, however long (`bytes` exceeds
/// `max_bytes`, or `chars` `max_chars`, only when `count == 1`); lines that
/// sum to exactly a cap are all taken; and `limit == 0` or empty `bytes`
/// take nothing. The caller cuts an over-long single line; this function
/// only measures it.
pub(super) fn take_lines(bytes: &[u8], limit: u64, limits: &ContentCaps) -> Taken {
    let mut t = Taken {
        count: 0,
        len: 0,
        bytes: 0,
        chars: 0,
        stop: None,
    };
    while t.count < limit && t.len < bytes.len() {
        let rest = &bytes[t.len..];
        let line_len = memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let prefix = limits.prefix_len(t.count);
        let out = prefix + line_len;
        if t.count > 0 && t.bytes + out > limits.max_bytes {
            t.stop = Some(CapKind::Bytes);
            break;
        }
        let mut out_chars = 0;
        if let Some(max_chars) = limits.max_chars {
            if t.count > 0 && t.chars >= max_chars {
                t.stop = Some(CapKind::Chars);
                break;
            }
            if out <= limits.max_bytes {
                out_chars = prefix + charged_chars(&rest[..line_len]);
            }
            if t.count > 0 && t.chars + out_chars > max_chars {
                t.stop = Some(CapKind::Chars);
                break;
            }
        }
        t.count += 1;
        t.len += line_len;
        t.bytes += out;
        t.chars += out_chars;
        if t.bytes >= limits.max_bytes {
            t.stop = Some(CapKind::Bytes);
            break;
        }
        if limits.max_chars.is_some_and(|max| t.chars > max) && !is_one_char(&rest[..line_len]) {
            t.stop = Some(CapKind::Chars);
            break;
        }
    }
    t
}

/// Returns whether a window that took only `taken` is over a cap: its
/// single line must be cut.
pub(super) fn is_over(taken: &Taken, limits: &ContentCaps) -> bool {
    taken.count == 1
        && (taken.bytes > limits.max_bytes || limits.max_chars.is_some_and(|m| taken.chars > m))
}

/// Where a single line over a cap is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cut {
    /// The cap that cut it: `Chars` only if the byte cap alone would keep
    /// more of the line.
    pub(super) by: CapKind,
    /// The bytes kept (prefix excluded), a char boundary of the line.
    pub(super) kept: usize,
    /// The bytes the byte cap alone keeps (prefix excluded), the same rules
    /// without a budget; equal to `kept` when `by` is `Bytes`.
    pub(super) kept_by_bytes: usize,
}

/// Cuts `line`, the window's single line (prefix excluded), whose prefix is
/// `prefix` long, to fit `limits`; `None` when the rules below keep it
/// whole.
///
/// - The byte cap keeps the line's first `max_bytes - prefix` bytes, moved
///   back to a character boundary ([`floor_char_boundary`]).
/// - The budget keeps the longest start of it charged at most
///   `max_chars - prefix` ([`charged_boundary`]).
/// - Each keeps at least the line's first character, so a window always
///   shows some of its line; only a budget below the prefix's length plus
///   that character's charge can make that pass the budget.
/// - The cut is the shorter of the two; the budget is named only when it is
///   strictly shorter.
/// - If that keeps the whole line (a one-character line under a budget
///   smaller than its prefix plus one), there is no cut.
pub(super) fn cut_line(line: &str, prefix: usize, limits: &ContentCaps) -> Option<Cut> {
    let at_least = first_char_len(line);
    let by_bytes = floor_char_boundary(line, limits.max_bytes.saturating_sub(prefix)).max(at_least);
    let by_chars = limits
        .max_chars
        .map(|max| charged_boundary(line, max.saturating_sub(prefix)).max(at_least));
    let cut = match by_chars {
        Some(kept) if kept < by_bytes => Cut {
            by: CapKind::Chars,
            kept,
            kept_by_bytes: by_bytes,
        },
        _ => Cut {
            by: CapKind::Bytes,
            kept: by_bytes,
            kept_by_bytes: by_bytes,
        },
    };
    (cut.kept < line.len()).then_some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_bytes: usize, max_chars: u64, numbers: bool) -> ContentCaps {
        ContentCaps::new(max_bytes, max_chars, numbers, 0)
    }

    #[derive(Debug, PartialEq, Eq)]
    struct T {
        count: u64,
        len: usize,
        stop: Option<CapKind>,
    }

    fn take(text: &str, limit: u64, limits: &ContentCaps) -> T {
        let t = take_lines(text.as_bytes(), limit, limits);
        T {
            count: t.count,
            len: t.len,
            stop: t.stop,
        }
    }

    fn t(count: u64, len: usize, stop: Option<CapKind>) -> T {
        T { count, len, stop }
    }

    const B: Option<CapKind> = Some(CapKind::Bytes);
    const C: Option<CapKind> = Some(CapKind::Chars);

    #[test]
    fn limits_new() {
        let l = ContentCaps::new(10, 0, false, 5);
        assert_eq!((l.max_chars, l.first_number), (None, None));
        assert_eq!(ContentCaps::new(10, 9, true, 5).max_chars, Some(9));
        assert_eq!(ContentCaps::new(10, 9, true, 5).first_number, Some(6));
        // A budget past the byte cap binds on control characters (charged
        // 6 each); one of 6 times the byte cap or more cannot bind.
        assert_eq!(ContentCaps::new(10, 59, false, 0).max_chars, Some(59));
        assert_eq!(ContentCaps::new(10, 60, false, 0).max_chars, None);
        assert_eq!(ContentCaps::new(10, u64::MAX, false, 0).max_chars, None);
        assert_eq!(ContentCaps::new(10, 9, true, 0).prefix_len(0), 7);
        assert_eq!(ContentCaps::new(10, 9, false, 0).prefix_len(0), 0);
        assert_eq!(ContentCaps::new(10, 9, true, 999_998).prefix_len(1), 8);
    }

    #[test]
    fn take_lines_byte_cap() {
        let l = limits(10, 0, false);
        // Nothing to take.
        assert_eq!(take("", 5, &l), t(0, 0, None));
        assert_eq!(take("a\n", 0, &l), t(0, 0, None));
        // Limit and end of text.
        assert_eq!(take("a\nb\nc\n", 2, &l), t(2, 4, None));
        assert_eq!(take("a\nb\nc", 9, &l), t(3, 5, None));
        // The first line is taken however long.
        assert_eq!(take("0123456789abc\nx\n", 5, &l), t(1, 14, B));
        assert_eq!(take("0123456789abc", 5, &l), t(1, 13, B));
        // Lines summing to exactly the cap are all taken, then we stop.
        assert_eq!(take("0123\n5678\n", 5, &l), t(2, 10, B));
        assert_eq!(take("0123\n5678\nx\n", 5, &l), t(2, 10, B));
        // A line that would pass the cap is not taken.
        assert_eq!(take("0123\n56789\n", 5, &l), t(1, 5, B));
        // A line of exactly the cap stops the walk.
        assert_eq!(take("012345678\nx\n", 5, &l), t(1, 10, B));
        // A later short line does not sneak in after a skipped long one.
        assert_eq!(take("01\n3456789ab\nc\n", 5, &l), t(1, 3, B));
    }

    #[test]
    fn take_lines_budget() {
        let l = limits(20, 5, false);
        // Characters, not bytes: "éé\n" is 5 bytes, 3 characters.
        assert_eq!(take("éé\néé\n", 5, &l), t(1, 5, C));
        assert_eq!(take("é\né\nx\n", 5, &l), t(2, 6, C));
        assert_eq!(take("ab\ncd\n", 5, &l), t(1, 3, C));
        assert_eq!(take("a\nb\nc\n", 5, &l), t(2, 4, C));
        // Lines summing to exactly the budget are all taken; a next line
        // stops the walk without being counted.
        assert_eq!(take("ab\ncd", 5, &l), t(2, 5, None));
        assert_eq!(take("a\nbc\nd\n", 5, &l), t(2, 5, C));
        assert_eq!(take("ab\nc\n", 2, &l), t(2, 5, None));
        assert_eq!(take("abcd\nx\n", 5, &l), t(1, 5, C));
        // CRLF counts both characters.
        assert_eq!(take("ab\r\nc\n", 5, &l), t(1, 4, C));
        // The first line is taken however long; the walk stops after it.
        assert_eq!(take("abcdefg\nx\n", 5, &l), t(1, 8, C));
        // Both caps: the byte cap is named when it alone would stop there.
        let l = limits(6, 5, false);
        assert_eq!(take("ab\ncdef\n", 5, &l), t(1, 3, B));
        assert_eq!(take("€\nabc\n", 5, &l), t(1, 4, B));
        // ... and the budget when the byte cap would take the line.
        assert_eq!(take("ab\ncd\n", 5, &l), t(1, 3, C));
        // Over both, the single line: the byte cap stops the walk.
        assert_eq!(take("abcdefgh\nx\n", 5, &l), t(1, 9, B));
    }

    #[test]
    fn take_lines_with_numbers() {
        // Prefixes are 7 characters, so "a\n" costs 9.
        let l = limits(100, 20, true);
        assert_eq!(take("a\nb\nc\n", 5, &l), t(2, 4, C));
        let l = limits(18, 0, true);
        assert_eq!(take("a\nb\nc\n", 5, &l), t(2, 4, B));
        // The prefix alone passes a tiny budget: the first line is still
        // taken.
        let l = limits(100, 3, true);
        assert_eq!(take("a\nb\n", 5, &l), t(1, 2, C));
        // A one-character line over it is kept whole, so the walk goes on
        // to learn which cap drops the next line.
        assert_eq!(take("\nb\n", 5, &l), t(1, 1, C));
        assert_eq!(take("\nb\n", 5, &limits(16, 3, true)), t(1, 1, B));
    }

    #[test]
    fn cut_line_edges() {
        let cut = |by, kept, kept_by_bytes| {
            Some(Cut {
                by,
                kept,
                kept_by_bytes,
            })
        };
        let bytes = CapKind::Bytes;
        let chars = CapKind::Chars;
        // Byte cap only.
        assert_eq!(
            cut_line("0123456789ab\n", 0, &limits(10, 0, false)),
            cut(bytes, 10, 10)
        );
        assert_eq!(
            cut_line("aaaaaaaaa€\n", 0, &limits(10, 0, false)),
            cut(bytes, 9, 9)
        );
        // Budget: characters, never splitting one.
        assert_eq!(
            cut_line("ééééé\n", 0, &limits(64, 3, false)),
            cut(chars, 6, 11)
        );
        assert_eq!(
            cut_line("a😀b\n", 0, &limits(64, 2, false)),
            cut(chars, 5, 7)
        );
        // Both: the shorter wins; a tie names the byte cap.
        assert_eq!(
            cut_line("éééééé\n", 0, &limits(8, 3, false)),
            cut(chars, 6, 8)
        );
        assert_eq!(
            cut_line("éééééé\n", 0, &limits(8, 4, false)),
            cut(bytes, 8, 8)
        );
        assert_eq!(
            cut_line("éééééé\n", 0, &limits(8, 6, false)),
            cut(bytes, 8, 8)
        );
        // With a prefix: the room is what the prefix leaves.
        assert_eq!(
            cut_line("abcdefgh\n", 7, &limits(64, 10, true)),
            cut(chars, 3, 9)
        );
        assert_eq!(
            cut_line("abcdefgh\n", 7, &limits(12, 0, true)),
            cut(bytes, 5, 5)
        );
        // At least one character, even when the prefix fills the budget.
        assert_eq!(cut_line("€bc\n", 7, &limits(64, 5, true)), cut(chars, 3, 6));
        assert_eq!(cut_line("€", 7, &limits(64, 5, true)), None);
        assert_eq!(cut_line("\n", 7, &limits(64, 5, true)), None);
    }
}
