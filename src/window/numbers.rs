//! Line numbers, `cat -n` style: what a line's prefix is, what it costs,
//! and the owned text a numbered window returns.
//!
//! The prefix of line `n` (1-indexed) is `n` right-aligned in a field of
//! [`LINE_NUMBER_WIDTH`] characters, wider when `n` has more digits, then a
//! tab: `format!("{n:>6}\t")`, which is `cat -n`'s `%6d\t`. Each prefix
//! depends only on its own line's number, so the budget can price a line
//! before it knows where the window ends; numbers up to 999,999 line up, and
//! from line 1,000,000 on the field is 7 characters wide (8 from
//! 10,000,000...). The prefix is all ASCII and holds no other tab, so a
//! line's text is everything after the first tab of its numbered line.

use memchr::memchr_iter;

/// The narrowest field a line number is right-aligned in, `cat -n`'s 6.
pub const LINE_NUMBER_WIDTH: usize = 6;

/// Returns the number of decimal digits of `n`: 1 for 0 to 9, 20 for
/// `u64::MAX`.
fn digits(n: u64) -> usize {
    // `ilog10` is at most 19, so the cast is lossless.
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// The longest prefix, [`prefix_len`] of the largest line number: 20 digits and a tab.
pub const LONGEST_PREFIX: usize = 21;

/// Returns the length of line `number`'s prefix, in bytes and so in
/// characters (it is ASCII): the field, at least [`LINE_NUMBER_WIDTH`]
/// wide, plus the tab.
///
/// - `prefix_len(1) == 7`, `prefix_len(999_999) == 7`,
///   `prefix_len(1_000_000) == 8`, `prefix_len(u64::MAX) == 21`.
pub(super) fn prefix_len(number: u64) -> usize {
    digits(number).max(LINE_NUMBER_WIDTH) + 1
}

/// Appends line `number`'s prefix to `out`: spaces up to the field width,
/// the digits, a tab.
fn push_prefix(out: &mut String, number: u64) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    let mut n = number;
    loop {
        i -= 1;
        // `n % 10` is a single digit, so the cast is lossless.
        buf[i] += (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = &buf[i..];
    for _ in digits.len()..LINE_NUMBER_WIDTH {
        out.push(' ');
    }
    out.extend(digits.iter().map(|&d| char::from(d)));
    out.push('\t');
}

/// Returns `lines` with each of its lines prefixed with its number, the
/// first line being number `first`.
///
/// - A line is as in the module doc: a run ending in `\n`, or a non-empty
///   run after the last `\n` (a cut line is such a run); `""` gives `""`.
/// - `number_lines("a\nb", 9)` is `"     9\ta\n    10\tb"`.
/// - Removing everything up to and including the first tab of each line of
///   the result gives `lines` back.
/// - The result's length is `lines.len()` plus the prefixes' lengths
///   ([`prefix_len`]), allocated once.
pub(super) fn number_lines(lines: &str, first: u64) -> String {
    // `line_ends` goes first in each `zip`, so the number range is never
    // advanced past the last line.
    let prefixes: usize = line_ends(lines.as_bytes())
        .zip(first..)
        .map(|(_, number)| prefix_len(number))
        .sum();
    let mut out = String::with_capacity(lines.len() + prefixes);
    let mut start = 0;
    for (end, number) in line_ends(lines.as_bytes()).zip(first..) {
        push_prefix(&mut out, number);
        // `start` and `end` are 0, just after a `\n`, or the end: char
        // boundaries of `lines`.
        out.push_str(&lines[start..end]);
        start = end;
    }
    out
}

/// Returns the end (exclusive) of each line of `bytes`: just after each
/// `\n`, then `bytes.len()` when a non-empty run follows the last `\n`.
fn line_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let tail = bytes.last().is_some_and(|&b| b != b'\n');
    memchr_iter(b'\n', bytes)
        .map(|i| i + 1)
        .chain(tail.then_some(bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_lengths() {
        let cases = [
            (1, 7),
            (9, 7),
            (10, 7),
            (99_999, 7),
            (100_000, 7),
            (999_999, 7),
            (1_000_000, 8),
            (9_999_999, 8),
            (10_000_000, 9),
            (u64::MAX, LONGEST_PREFIX),
        ];
        for (n, want) in cases {
            assert_eq!(prefix_len(n), want, "line {n}");
            let mut s = String::new();
            push_prefix(&mut s, n);
            assert_eq!(s, format!("{n:>6}\t"));
            assert_eq!(s.len(), want);
        }
    }

    #[test]
    fn numbered_lines() {
        let cases: &[(&str, u64, &str)] = &[
            ("", 1, ""),
            ("a", 1, "     1\ta"),
            ("\n", 1, "     1\t\n"),
            ("a\nb", 9, "     9\ta\n    10\tb"),
            ("a\r\nb\r\n", 99_999, " 99999\ta\r\n100000\tb\r\n"),
            ("x\n\n", 999_999, "999999\tx\n1000000\t\n"),
            ("\tlead\n", 3, "     3\t\tlead\n"),
        ];
        for &(lines, first, want) in cases {
            let out = number_lines(lines, first);
            assert_eq!(out, want, "{lines:?} from {first}");
            let stripped: String = out
                .split_inclusive('\n')
                .map(|l| l.split_once('\t').map_or("", |(_, rest)| rest))
                .collect();
            assert_eq!(stripped, lines);
        }
    }
}
