//! What a line is, and where a line starts: the `\n` counting every window
//! is built on.
//!
//! A line is a run of bytes ending in `\n` (which it keeps), or the run after
//! the last `\n` when that run is not empty; `\r` is ordinary content.

use memchr::memchr_iter;

/// Returns the number of `\n` bytes in `bytes`.
///
/// memchr 2.6+ specialises `Memchr::count` to a vectorised count (AVX2,
/// SSE2, NEON, simd128) rather than a walk from match to match. The
/// `bytecount` crate counts about twice as fast on a bare 10 MiB buffer,
/// but a whole window already runs at over 10 GB/s with this, so it does
/// not earn a dependency.
pub(super) fn count_newlines(bytes: &[u8]) -> u64 {
    memchr_iter(b'\n', bytes).count() as u64
}

/// Returns the number of lines in `bytes`: one per `\n`, plus one for a
/// non-empty run after the last `\n`.
///
/// - `""` has 0 lines; `"\n"` has 1; `"a"` has 1; `"a\n"` has 1; `"a\nb"`
///   has 2; `"\n\n"` has 2.
/// - `\r` is ordinary content: `"a\rb"` has 1 line, `"a\r\nb\r\n"` has 2.
pub(crate) fn count_lines(bytes: &[u8]) -> u64 {
    let unterminated = bytes.last().is_some_and(|&b| b != b'\n');
    count_newlines(bytes) + u64::from(unterminated)
}

/// The size of the blocks [`line_start`] counts whole before walking lines
/// one by one. Walking costs a `memchr` call per line; counting a block is a
/// single vectorised pass, so skipping by block is several times faster on
/// short lines. Smaller blocks mean less walking in the last block.
const SKIP_BLOCK: usize = 16 * 1024;

/// A text's line count and the `\n`s before each of its [`SKIP_BLOCK`] blocks, worked out in
/// one pass: with it, [`line_start_indexed`] walks one block, not the text up to the line, and
/// a window knows the line count without counting the rest of the text. For a text read more
/// than once (a cached blob), a window then costs its own lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// [`count_lines`] of the text.
    total: u64,
    /// `newlines[k]`: the `\n`s in the text's first `k * SKIP_BLOCK` bytes.
    newlines: Vec<u64>,
    /// The length of the text indexed.
    len: usize,
}

impl LineIndex {
    pub fn of(bytes: &[u8]) -> LineIndex {
        let mut newlines = Vec::with_capacity(bytes.len() / SKIP_BLOCK + 1);
        let mut seen = 0;
        for block in bytes.chunks(SKIP_BLOCK) {
            newlines.push(seen);
            seen += count_newlines(block);
        }
        let unterminated = bytes.last().is_some_and(|&b| b != b'\n');
        LineIndex {
            total: seen + u64::from(unterminated),
            newlines,
            len: bytes.len(),
        }
    }

    /// The text's line count, as [`count_lines`].
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether this is an index of a text of `bytes`' length (a guard against the wrong text).
    pub(super) fn fits(&self, bytes: &[u8]) -> bool {
        self.len == bytes.len()
    }
}

/// Where line `n` of `bytes` starts ([`line_start`]), by the index when there is one.
pub(super) fn line_start_in(bytes: &[u8], n: u64, index: Option<&LineIndex>) -> Result<usize, u64> {
    match index {
        Some(index) => line_start_indexed(bytes, n, index),
        None => line_start(bytes, n),
    }
}

/// [`line_start`], starting from the block of `index` in which line `n` starts.
pub(super) fn line_start_indexed(bytes: &[u8], n: u64, index: &LineIndex) -> Result<usize, u64> {
    // The last block with fewer than `n` `\n`s before it holds the `n`th one, if any.
    let k = index.newlines.partition_point(|&before| before < n);
    let Some(k) = k.checked_sub(1).filter(|_| n > 0 && index.fits(bytes)) else {
        return line_start(bytes, n);
    };
    let (pos, before) = (k * SKIP_BLOCK, index.newlines[k]);
    match line_start(&bytes[pos..], n - before) {
        Ok(at) => Ok(pos + at),
        Err(lines) => Err(before + lines),
    }
}

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
pub(super) fn line_start(bytes: &[u8], n: u64) -> Result<usize, u64> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // ---- LineIndex ---------------------------------------------------------

    /// Texts of a few blocks: runs of short and long lines, with or without a last `\n`.
    fn blocks_of_lines() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![0usize..4, 0usize..200, 9_000usize..40_000];
        (prop::collection::vec(line, 0..40), any::<bool>()).prop_map(|(lengths, last)| {
            let mut text = Vec::new();
            for (i, len) in lengths.iter().enumerate() {
                text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, *len));
                text.push(b'\n');
            }
            if !last {
                text.pop();
            }
            text
        })
    }

    proptest! {
        #[test]
        fn the_index_finds_every_line_where_the_walk_does(bytes in blocks_of_lines()) {
            let index = LineIndex::of(&bytes);
            prop_assert_eq!(index.total(), count_lines(&bytes));
            for n in 0..=index.total() + 2 {
                prop_assert_eq!(line_start_indexed(&bytes, n, &index), line_start(&bytes, n), "line {}", n);
            }
        }
    }

    #[test]
    fn the_index_of_another_text_is_not_used() {
        let index = LineIndex::of(b"a\nb\n");
        assert_eq!(line_start_indexed(b"x\ny\nz\n", 2, &index), Ok(4));
        assert_eq!(LineIndex::of(b"").total(), 0);
        assert_eq!(line_start_indexed(b"", 1, &LineIndex::of(b"")), Err(0));
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
}
