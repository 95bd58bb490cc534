//! The matching lines of a searched range, in order: candidates from one
//! search of the whole range, each checked on its line alone.

use memchr::{memchr, memrchr};

use super::super::lines::count_newlines;
use super::pattern::Pattern;
use super::span::Range;

/// A matching line: its 1-indexed number and its bytes, `start..end`, the
/// terminator included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hit {
    pub(super) number: u64,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The matching lines of a range, found lazily.
#[derive(Debug)]
pub(super) struct Hits<'a> {
    text: &'a [u8],
    pattern: &'a Pattern,
    /// Where the next search starts: a line start, or `end`.
    pos: usize,
    end: usize,
    /// The number of the line starting at `pos`.
    number: u64,
}

impl<'a> Hits<'a> {
    pub(super) fn new(text: &'a [u8], pattern: &'a Pattern, range: &Range) -> Self {
        Hits {
            text,
            pattern,
            pos: range.start,
            end: range.end,
            number: range.first,
        }
    }
}

/// A line's text: without its `\n`, and without a `\r` before that `\n`.
pub(super) fn line_text(line: &[u8]) -> &[u8] {
    match line {
        [rest @ .., b'\r', b'\n'] | [rest @ .., b'\n'] => rest,
        whole => whole,
    }
}

impl Iterator for Hits<'_> {
    type Item = Hit;

    /// 1. Find the leftmost candidate at or after `pos` (a line start) and
    ///    before `end`; none: done.
    /// 2. Its line starts after the last `\n` before it (or at `pos`), and
    ///    is numbered by counting the `\n`s from `pos` there. A candidate
    ///    at `end` just after a `\n` (an empty match) is in no line: done.
    /// 3. The line ends after the first `\n` at or after the candidate (or
    ///    at `end`).
    /// 4. Go on from the next line; return this one if its text matches,
    ///    else repeat.
    fn next(&mut self) -> Option<Hit> {
        while self.pos < self.end {
            let at = self.pattern.candidate(self.text, self.pos, self.end)?;
            let before = &self.text[self.pos..at];
            let start = memrchr(b'\n', before).map_or(self.pos, |i| self.pos + i + 1);
            self.number += count_newlines(&self.text[self.pos..start]);
            if start == self.end {
                return None;
            }
            let end = memchr(b'\n', &self.text[at..self.end]).map_or(self.end, |i| at + i + 1);
            let hit = Hit {
                number: self.number,
                start,
                end,
            };
            self.pos = end;
            self.number += 1;
            if self.pattern.is_match(line_text(&self.text[start..end])) {
                return Some(hit);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::span::searched;
    use super::*;

    fn hits<'t>(text: &'t str, pattern: &str) -> Vec<(u64, &'t str)> {
        let p = Pattern::new(pattern, false).unwrap();
        let total = text.split_inclusive('\n').count() as u64;
        let Some(range) = searched(text.as_bytes(), None, total).unwrap() else {
            return Vec::new();
        };
        Hits::new(text.as_bytes(), &p, &range)
            .map(|h| (h.number, &text[h.start..h.end]))
            .collect()
    }

    #[test]
    fn line_texts() {
        assert_eq!(line_text(b"a\r\n"), b"a");
        assert_eq!(line_text(b"a\n"), b"a");
        assert_eq!(line_text(b"a\r"), b"a\r");
        assert_eq!(line_text(b"\r\r\n"), b"\r");
        assert_eq!(line_text(b""), b"");
    }

    #[test]
    fn matching_lines_in_order() {
        let t = "fn a\nlet b\n  fn c\r\nfn";
        assert_eq!(
            hits(t, "fn"),
            vec![(1, "fn a\n"), (3, "  fn c\r\n"), (4, "fn")]
        );
        assert_eq!(hits(t, "^fn"), vec![(1, "fn a\n"), (4, "fn")]);
        // `$` before `\r\n`; `\r` is not in a CRLF line's text.
        assert_eq!(hits(t, "c$"), vec![(3, "  fn c\r\n")]);
        assert_eq!(hits(t, r"\r"), vec![]);
        // Empty matches: every line, and no line after a final `\n`.
        assert_eq!(hits("a\n\nb\n", "").len(), 3);
        assert_eq!(hits("a\n\nb\n", "^$"), vec![(2, "\n")]);
        assert_eq!(hits("a\n\nb", "$").len(), 3);
        // A candidate whose line does not match alone is skipped, and the
        // search goes on from the next line.
        assert_eq!(hits("x\ry\nxy\n", "^y"), vec![]);
        assert_eq!(hits("x\ry\ny\n", "^y"), vec![(2, "y\n")]);
        // Nothing: no match, no lines.
        assert_eq!(hits(t, "zzz"), vec![]);
        assert_eq!(hits("", ""), vec![]);
    }
}
