//! Characters at the byte level: charging them against the character
//! budget, and finding their boundaries in UTF-8 without decoding.
//!
//! A character (a Unicode scalar value) is one byte outside `0x80..=0xBF`
//! followed by its continuation bytes, those inside it. So charging
//! characters is summing over the bytes that do not continue one, and
//! character `n` starts at the `n`th (zero-indexed) such byte. Nothing here
//! allocates or decodes a `char`.
//!
//! # The budget's charge
//!
//! The character budget counts characters as the agent sees them in the
//! JSON text block, where a control character costs 6: a C0 control other
//! than `\b`, `\t`, `\n`, `\f` and `\r` is sent as `\u00XX` (six
//! characters) and is charged [`CONTROL_CHARGE`]; every other character is
//! charged 1. So the text block holds at most about twice the budget of
//! content (`"` and `\` escape to 2, and a character outside the BMP is 2
//! UTF-16 units), whatever the file holds. A C0 control is one byte, never
//! part of another character, so the charge is a sum of per-byte weights.

/// What the budget charges for a C0 control character JSON escapes as
/// `\u00XX`: the escape's width.
pub const CONTROL_CHARGE: usize = 6;

/// The chunk [`charged_chars`] sums into a `u16`: the most bytes whose
/// charge ([`CONTROL_CHARGE`] at most, per byte) cannot overflow one.
const CHARGE_CHUNK: usize = u16::MAX as usize / CONTROL_CHARGE;

/// Whether `b` continues a character rather than starting one.
pub(super) fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Whether `b` is a C0 control that JSON escapes as `\u00XX`: below `0x20`
/// and not `\b` (8), `\t` (9), `\n` (10), `\f` (12) or `\r` (13), which
/// have two-character escapes. Written as comparisons so a loop over bytes
/// vectorises.
fn is_escaped_control(b: u8) -> bool {
    b < 0x08 || b == 0x0B || b.wrapping_sub(0x0E) < 0x20 - 0x0E
}

/// The budget's charge for byte `b`: 0 for a continuation byte,
/// [`CONTROL_CHARGE`] for an escaped control, 1 for any other start of a
/// character.
fn charge(b: u8) -> u8 {
    // `CONTROL_CHARGE - 1` is 5, so the cast cannot truncate.
    u8::from(!is_continuation(b)) + u8::from(is_escaped_control(b)) * (CONTROL_CHARGE as u8 - 1)
}

/// Returns what the budget charges for `bytes` (see the module doc): its
/// characters, plus `CONTROL_CHARGE - 1` for each escaped control.
///
/// - `b""` has 0; `"aé€😀"` has 4; `"\r\n\t"` has 3; `"\x1b[0m"` has 9;
///   `"\0"` has 6.
/// - Cut inside a character, the cut character is charged where its first
///   byte is (a leading run of continuation bytes is charged 0).
///
/// Each chunk is summed into a `u16` by a loop the compiler vectorises.
pub(crate) fn charged_chars(bytes: &[u8]) -> usize {
    bytes
        .chunks(CHARGE_CHUNK)
        .map(|chunk| {
            let sum = chunk.iter().fold(0u16, |n, &b| n + u16::from(charge(b)));
            usize::from(sum)
        })
        .sum()
}

/// Returns the byte index just past the longest start of `s` the budget
/// charges at most `budget` for: where the first character that would take
/// the charge past `budget` starts, or `s.len()` when all of `s` fits. The
/// result is always a char boundary of `s`.
///
/// - `budget == 0` gives 0, also for `""`.
/// - `charged_boundary("aé€😀", k)` is 0, 1, 3, 6, 10 for `k` = 0..=4,
///   and 10 for any larger `k` (each character is charged 1).
/// - `charged_boundary("a\x1bb", k)` is 0 for `k` = 0, 1 for `k` = 1..=6,
///   2 for 7 and 3 from 8 on: the escape is charged 6, whole or not at all.
///
/// Whole chunks are skipped with [`charged_chars`]; only the chunk holding
/// the cut is walked byte by byte.
pub(super) fn charged_boundary(s: &str, budget: usize) -> usize {
    let bytes = s.as_bytes();
    // What the budget still allows before the cut.
    let mut left = budget;
    let mut pos = 0;
    for chunk in bytes.chunks(CHARGE_CHUNK) {
        let in_chunk = charged_chars(chunk);
        if in_chunk > left {
            // The cut is in this chunk: at the first byte charged more than
            // what is left. A continuation byte is charged 0, so that byte
            // starts a character. The `unwrap_or` is never taken: the chunk
            // is charged more than `left` in all.
            let at = chunk
                .iter()
                .position(|&b| {
                    let c = usize::from(charge(b));
                    if c > left {
                        return true;
                    }
                    left -= c;
                    false
                })
                .unwrap_or(chunk.len());
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

/// Returns whether `bytes` is exactly one character: a first byte and only
/// its continuation bytes. Stops at the first byte that starts another
/// character: on valid UTF-8 it reads at most 5 bytes.
pub(super) fn is_one_char(bytes: &[u8]) -> bool {
    match bytes.split_first() {
        Some((_, rest)) => rest.iter().all(|&b| is_continuation(b)),
        None => false,
    }
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
    fn escaped_controls_are_the_c0_controls_without_short_escapes() {
        for b in 0..=u8::MAX {
            let short = matches!(b, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D);
            assert_eq!(is_escaped_control(b), b < 0x20 && !short, "{b:#04x}");
            // What serde_json sends for the character: `\u00XX` exactly for these.
            if b < 0x80 {
                let json = serde_json::Value::from(char::from(b).to_string()).to_string();
                let width = json.chars().count() - 2;
                assert_eq!(width == CONTROL_CHARGE, is_escaped_control(b), "{b:#04x}");
            }
        }
    }

    #[test]
    fn charged_chars_edges() {
        let cases: &[(&str, usize)] = &[
            ("", 0),
            ("a", 1),
            ("aé€😀", 4),
            ("\r\n\t", 3),
            ("\x08\x0c", 2),
            ("\0", 6),
            ("\x0b", 6),
            ("\x1b[0m", 9),
            ("\x1f\x20", 7),
            ("\u{7f}", 1),
            ("\u{85}", 1),
        ];
        for &(s, want) in cases {
            assert_eq!(charged_chars(s.as_bytes()), want, "{s:?}");
        }
        // Across chunk edges, a chunk of nothing but controls does not
        // overflow the `u16`.
        let s = "\x1b".repeat(CHARGE_CHUNK * 2 + 3);
        assert_eq!(charged_chars(s.as_bytes()), s.len() * CONTROL_CHARGE);
        for pad in CHARGE_CHUNK - 3..CHARGE_CHUNK + 3 {
            let s = format!("{}😀\x01{}", "a".repeat(pad), "b".repeat(10));
            assert_eq!(charged_chars(s.as_bytes()), pad + 1 + 6 + 10, "pad {pad}");
        }
    }

    #[test]
    fn charged_boundary_edges() {
        let s = "aé€😀";
        for (n, want) in [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 10), (99, 10)] {
            assert_eq!(charged_boundary(s, n), want, "n {n}");
        }
        assert_eq!(charged_boundary("", 0), 0);
        assert_eq!(charged_boundary("", 3), 0);
        // An escaped control fits whole or not at all.
        let s = "a\x1bb";
        let want = [0, 1, 1, 1, 1, 1, 1, 2, 3, 3];
        for (n, &w) in want.iter().enumerate() {
            assert_eq!(charged_boundary(s, n), w, "n {n}");
        }
        // The character starting a chunk, and one straddling a chunk edge.
        let c = CHARGE_CHUNK;
        let s = format!("{}😀x", "a".repeat(c - 2));
        assert_eq!(charged_boundary(&s, c - 2), c - 2);
        assert_eq!(charged_boundary(&s, c - 1), c + 2);
        assert_eq!(charged_boundary(&s, c), c + 3);
        let s = "a".repeat(2 * c + 90);
        for n in [
            c - 1,
            c,
            c + 1,
            2 * c - 1,
            2 * c,
            2 * c + 1,
            2 * c + 90,
            9 * c,
        ] {
            assert_eq!(charged_boundary(&s, n), n.min(s.len()), "n {n}");
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
    fn one_char() {
        for (s, want) in [
            ("", false),
            ("a", true),
            ("\n", true),
            ("😀", true),
            ("a\n", false),
            ("😀\n", false),
            ("\x1b\n", false),
        ] {
            assert_eq!(is_one_char(s.as_bytes()), want, "{s:?}");
        }
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
        fn counts_and_boundaries_match_std(s in "[a\\n\\t\\x00\\x1bé€😀]{0,600}", n in 0usize..4000) {
            let width = |ch: char| if ch < ' ' && is_escaped_control(ch as u8) { CONTROL_CHARGE } else { 1 };
            prop_assert_eq!(charged_chars(s.as_bytes()), s.chars().map(width).sum::<usize>());
            // The longest start charged at most `n`.
            let mut charged = 0;
            let want = s
                .char_indices()
                .find(|&(_, ch)| {
                    charged += width(ch);
                    charged > n
                })
                .map_or(s.len(), |(i, _)| i);
            prop_assert_eq!(charged_boundary(&s, n), want);
        }
    }
}
