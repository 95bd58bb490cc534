//! The caps on a window's size: which of the covered lines a window takes,
//! and where an over-long single line is cut.

use memchr::memchr;

/// The whole lines a window takes from its first line on: `count` lines
/// filling the first `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Taken {
    pub(super) len: usize,
    pub(super) count: u64,
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
pub(super) fn take_lines(bytes: &[u8], limit: u64, max_bytes: usize) -> Taken {
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
pub(super) fn floor_char_boundary(s: &str, index: usize) -> usize {
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
}
