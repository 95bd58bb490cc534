//! Characters at the byte level: counting them and finding their
//! boundaries in UTF-8 without decoding.
//!
//! A character (a Unicode scalar value, what the character budget counts)
//! is one byte outside `0x80..=0xBF` followed by its continuation bytes,
//! those inside it. So counting characters is counting the bytes that do not
//! continue one, and character `n` starts at the `n`th (zero-indexed) such
//! byte. Nothing here allocates or decodes a `char`.

/// The chunk [`count_chars`] sums into a `u8`: the most bytes whose count
/// cannot overflow one.
const CHUNK: usize = 255;

/// Whether `b` continues a character rather than starting one.
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Returns the number of characters in `bytes`: the bytes that do not
/// continue a character.
///
/// - `bytes` is meant to be UTF-8 cut at character boundaries; then this is
///   `str::chars().count()`. Cut inside a character, the cut character
///   counts where its first byte is (a leading run of continuation bytes
///   counts 0).
/// - `b""` has 0; `"aé€😀"` (10 bytes) has 4; `"\r\n"` has 2.
///
/// Each 255-byte chunk is counted into a `u8` by a loop the compiler
/// vectorises, several times faster than `std`'s `chars().count()`.
pub(super) fn count_chars(bytes: &[u8]) -> usize {
    bytes
        .chunks(CHUNK)
        .map(|chunk| {
            let starts = chunk
                .iter()
                .fold(0u8, |n, &b| n + u8::from(!is_continuation(b)));
            usize::from(starts)
        })
        .sum()
}

/// Returns the byte index just past the first `n` characters of `s`: where
/// character `n` (zero-indexed) starts, or `s.len()` when `s` has at most `n`
/// characters. The result is always a char boundary of `s`.
///
/// - `n == 0` gives 0, also for `""`.
/// - `char_boundary_after("aé€😀", k)` is 0, 1, 3, 6, 10 for `k` = 0..=4,
///   and 10 for any larger `k`.
///
/// Whole chunks are skipped with [`count_chars`]; only the chunk holding
/// character `n` is walked byte by byte.
pub(super) fn char_boundary_after(s: &str, n: usize) -> usize {
    let bytes = s.as_bytes();
    // Characters still to pass before character `n` starts.
    let mut left = n;
    let mut pos = 0;
    for chunk in bytes.chunks(CHUNK) {
        let in_chunk = count_chars(chunk);
        if in_chunk > left {
            // Character `n` starts in this chunk, at its `left`th start. The
            // `unwrap_or` is never taken: the chunk has more than `left`.
            let at = chunk
                .iter()
                .enumerate()
                .filter(|&(_, &b)| !is_continuation(b))
                .nth(left)
                .map_or(chunk.len(), |(i, _)| i);
            return pos + at;
        }
        left -= in_chunk;
        pos += chunk.len();
    }
    bytes.len()
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

/// Returns the byte length of the first character of `s`, 0 for `""`.
pub(super) fn first_char_len(s: &str) -> usize {
    s.chars().next().map_or(0, char::len_utf8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn count_chars_edges() {
        let cases: &[(&str, usize)] = &[
            ("", 0),
            ("a", 1),
            ("\n", 1),
            ("\r\n", 2),
            ("é", 1),
            ("€", 1),
            ("😀", 1),
            ("aé€😀", 4),
            ("\t1\ta", 4),
        ];
        for &(s, want) in cases {
            assert_eq!(count_chars(s.as_bytes()), want, "{s:?}");
        }
        // Across chunk edges: characters of every width straddling byte 255.
        for ch in ['é', '€', '😀'] {
            for pad in 250..260 {
                let s = format!("{}{ch}{}", "a".repeat(pad), "b".repeat(300));
                assert_eq!(count_chars(s.as_bytes()), s.chars().count(), "{ch} {pad}");
            }
        }
        // A chunk of 255 characters does not overflow the `u8`.
        assert_eq!(count_chars("a".repeat(255 * 4 + 1).as_bytes()), 1021);
        // A slice cut inside a character counts it where it starts.
        assert_eq!(count_chars(&"😀".as_bytes()[1..]), 0);
        assert_eq!(count_chars(&"😀".as_bytes()[..1]), 1);
    }

    #[test]
    fn char_boundary_after_edges() {
        let s = "aé€😀";
        for (n, want) in [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 10), (99, 10)] {
            assert_eq!(char_boundary_after(s, n), want, "n {n}");
        }
        assert_eq!(char_boundary_after("", 0), 0);
        assert_eq!(char_boundary_after("", 3), 0);
        // The character starting a chunk, and one straddling a chunk edge.
        let s = format!("{}😀x", "a".repeat(253));
        assert_eq!(char_boundary_after(&s, 253), 253);
        assert_eq!(char_boundary_after(&s, 254), 257);
        assert_eq!(char_boundary_after(&s, 255), 258);
        let s = "a".repeat(600);
        for n in [254, 255, 256, 509, 510, 511, 599, 600, 601] {
            assert_eq!(char_boundary_after(&s, n), n.min(600), "n {n}");
        }
    }

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

    #[test]
    fn first_char_len_edges() {
        let cases = [
            ("", 0),
            ("a", 1),
            ("\n", 1),
            ("é!", 2),
            ("€", 3),
            ("😀a", 4),
        ];
        for (s, want) in cases {
            assert_eq!(first_char_len(s), want, "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn counts_and_boundaries_match_std(s in "[a\\né€😀]{0,600}", n in 0usize..700) {
            prop_assert_eq!(count_chars(s.as_bytes()), s.chars().count());
            let want = s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
            prop_assert_eq!(char_boundary_after(&s, n), want);
        }
    }
}
