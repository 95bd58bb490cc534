//! The matching lines of a searched range, in order: candidates from one
//! pass over the range, block by block, each checked on its line alone.
//!
//! # Work
//!
//! The range is searched in blocks of whole lines of about
//! [`BLOCK_BYTES`] (a longer line is a block by itself); before each
//! block, the caller's `go_on` says whether to go on, so a search can be
//! stopped within a block's time. In a block, the engine looks for the
//! leftmost candidate from a line start to the block's end; the next search
//! starts after the candidate's line. [`Hits::work`] counts the bytes this
//! costs: for a search that finds a candidate, from its start to the farther
//! of the candidate's end and its line's end (what the engine must have
//! read); for one that finds none, the rest of the block; and each checked
//! line. No candidate holds a `\n` (see [`Pattern`]), so each search ends
//! in the line of its candidate and the next starts after it: the work is
//! at most twice the range's bytes, whatever the pattern (the property test
//! checks it on random patterns and texts).

use memchr::{memchr, memrchr};

use super::super::lines::count_newlines;
use super::pattern::Pattern;
use super::span::Range;

/// About how many bytes of whole lines a block holds: small enough that a
/// block takes a few milliseconds even where the engine falls back to its
/// slowest automaton (a stopped search ends within one), large enough that
/// the engine's literal prefilters run on long stretches.
pub(super) const BLOCK_BYTES: usize = 64 * 1024;

/// A matching line: its 1-indexed number and its bytes, `start..end`, the
/// terminator included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hit {
    pub(super) number: u64,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The matching lines of a range, found lazily; asks `go_on` before each
/// block, and ends when it answers an error (kept in `stopped`).
#[derive(Debug)]
pub(super) struct Hits<'a, G, E> {
    text: &'a [u8],
    pattern: &'a Pattern,
    /// Where the next search starts: a line start, or `end`.
    pos: usize,
    end: usize,
    /// The number of the line starting at `pos`.
    number: u64,
    /// The end of the current block: a line end, or `end`.
    block_end: usize,
    /// The bytes a block aims at ([`BLOCK_BYTES`] but in tests).
    block_bytes: usize,
    /// The work so far (module doc).
    work: u64,
    go_on: G,
    stopped: Option<E>,
}

impl<'a, G: FnMut() -> Result<(), E>, E> Hits<'a, G, E> {
    pub(super) fn new(text: &'a [u8], pattern: &'a Pattern, range: &Range, go_on: G) -> Self {
        Hits {
            text,
            pattern,
            pos: range.start,
            end: range.end,
            number: range.first,
            block_end: range.start,
            block_bytes: BLOCK_BYTES,
            work: 0,
            go_on,
            stopped: None,
        }
    }

    /// The work done so far, in bytes (module doc).
    #[cfg(test)]
    pub(super) fn work(&self) -> u64 {
        self.work
    }

    /// Why the search stopped early, if `go_on` stopped it.
    pub(super) fn stopped(&mut self) -> Option<E> {
        self.stopped.take()
    }

    /// The end of the block starting at `pos`: after the last `\n` within
    /// `block_bytes` of it, else after the first one, else the range's end.
    fn block_end(&self) -> usize {
        let limit = self.pos.saturating_add(self.block_bytes);
        if limit >= self.end {
            return self.end;
        }
        match memrchr(b'\n', &self.text[self.pos..limit]) {
            Some(i) => self.pos + i + 1,
            None => memchr(b'\n', &self.text[limit..self.end]).map_or(self.end, |i| limit + i + 1),
        }
    }

    /// Passes the rest of the block, which holds no candidate (or only an
    /// empty one at its end, the next block's).
    fn skip_block(&mut self) {
        let rest = &self.text[self.pos..self.block_end];
        self.work += rest.len() as u64;
        self.number += count_newlines(rest);
        self.pos = self.block_end;
    }
}

/// A line's text: without its `\n`, and without a `\r` before that `\n`.
pub(super) fn line_text(line: &[u8]) -> &[u8] {
    match line {
        [rest @ .., b'\r', b'\n'] | [rest @ .., b'\n'] => rest,
        whole => whole,
    }
}

impl<G: FnMut() -> Result<(), E>, E> Iterator for Hits<'_, G, E> {
    type Item = Hit;

    /// 1. At a block's end, ask `go_on`, and take the next block.
    /// 2. Find the leftmost candidate at or after `pos` (a line start) and
    ///    before the block's end; none: pass the block.
    /// 3. Its line starts after the last `\n` before it (or at `pos`), and
    ///    is numbered by counting the `\n`s from `pos` there. A candidate
    ///    at the block's end just after a `\n` (an empty match) is in the
    ///    next block's first line, or in no line: pass the block.
    /// 4. The line ends after the first `\n` at or after the candidate (or
    ///    at the block's end, which is the range's).
    /// 5. Go on from the next line; return this one if its text matches,
    ///    else repeat.
    fn next(&mut self) -> Option<Hit> {
        while self.pos < self.end {
            if self.pos >= self.block_end {
                if let Err(e) = (self.go_on)() {
                    self.stopped = Some(e);
                    return None;
                }
                self.block_end = self.block_end();
            }
            let Some(found) = self.pattern.candidate(self.text, self.pos, self.block_end) else {
                self.skip_block();
                continue;
            };
            let before = &self.text[self.pos..found.start];
            let start = memrchr(b'\n', before).map_or(self.pos, |i| self.pos + i + 1);
            if start == self.block_end {
                self.skip_block();
                continue;
            }
            self.number += count_newlines(&self.text[self.pos..start]);
            let end = memchr(b'\n', &self.text[found.start..self.block_end])
                .map_or(self.block_end, |i| found.start + i + 1);
            self.work += (end.max(found.end) - self.pos + (end - start)) as u64;
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

    /// The matching lines of `text`, searched in blocks of `block` bytes,
    /// and the work it cost.
    fn hits_in_blocks<'t>(
        text: &'t str,
        pattern: &str,
        block: usize,
    ) -> (Vec<(u64, &'t str)>, u64) {
        let p = Pattern::new(pattern, false).unwrap();
        let total = text.split_inclusive('\n').count() as u64;
        let Some(range) = searched(text.as_bytes(), None, total).unwrap() else {
            return (Vec::new(), 0);
        };
        let mut hits = Hits::new(text.as_bytes(), &p, &range, || Ok::<(), ()>(()));
        hits.block_bytes = block;
        let found = hits
            .by_ref()
            .map(|h| (h.number, &text[h.start..h.end]))
            .collect();
        (found, hits.work())
    }

    fn hits<'t>(text: &'t str, pattern: &str) -> Vec<(u64, &'t str)> {
        hits_in_blocks(text, pattern, BLOCK_BYTES).0
    }

    /// The line-by-line reference: the lines whose text matches alone.
    fn naive<'t>(text: &'t str, pattern: &str) -> Vec<(u64, &'t str)> {
        let p = Pattern::new(pattern, false).unwrap();
        (1..)
            .zip(text.split_inclusive('\n'))
            .filter(|(_, l)| p.is_match(line_text(l.as_bytes())))
            .collect()
    }

    #[test]
    fn blocks_of_any_size_find_the_same_lines() {
        let text = "fn a\n\nlet b\r\n  fn c\r\nx\ry\nfn\n\n";
        for pattern in ["fn", "^", "$", "^$", "", r"\bc$", "(?:.|\n)*fn", "y"] {
            for block in 1..=text.len() + 1 {
                assert_eq!(
                    hits_in_blocks(text, pattern, block).0,
                    naive(text, pattern),
                    "{pattern:?} in blocks of {block}"
                );
            }
        }
    }

    #[test]
    fn a_stopped_search_ends_at_a_block_and_says_why() {
        let text = "fn\n".repeat(100);
        let p = Pattern::new("fn", false).unwrap();
        let range = searched(text.as_bytes(), None, 100).unwrap().unwrap();
        let mut blocks = 0;
        let mut hits = Hits::new(text.as_bytes(), &p, &range, || {
            blocks += 1;
            if blocks > 3 { Err("stop") } else { Ok(()) }
        });
        hits.block_bytes = 30;
        // Three blocks of ten lines, then the fourth is refused.
        assert_eq!(hits.by_ref().count(), 30);
        assert_eq!(hits.stopped(), Some("stop"));
        assert!(hits.work() <= 2 * 90);
    }

    #[test]
    fn the_work_of_cross_line_patterns_is_linear() {
        // The issue's patterns, once quadratic: each candidate ran to the
        // text's end from every line.
        let text: String = (0..2000)
            .map(|i| format!("    def handler_{i}(self):\n"))
            .collect();
        for pattern in ["(?:.|\n)*$", "(?:.|\n)+handler_1999", "(?s).*\\z", "a\nb|x"] {
            let (found, work) = hits_in_blocks(&text, pattern, BLOCK_BYTES);
            assert_eq!(found, naive(&text, pattern), "{pattern}");
            assert!(
                work <= 2 * text.len() as u64,
                "{pattern}: {work} for {}",
                text.len()
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Random patterns (line breaks, anchors, `(?s)`, alternations) over
        /// random texts, in random blocks: the reference's lines, for at
        /// most twice the text's bytes of work.
        #[test]
        fn random_searches_cost_at_most_twice_the_text(
            tokens in proptest::collection::vec(proptest::sample::select(PATTERN_TOKENS), 0..8),
            lines in proptest::collection::vec(("[ab\r\n]{0,6}", proptest::sample::select(&["\n", "\r\n", ""][..])), 0..60),
            repeat in 1usize..20,
            block in 1usize..64,
        ) {
            let pattern = tokens.concat();
            proptest::prop_assume!(Pattern::new(&pattern, false).is_ok());
            let text: String = lines.into_iter().map(|(l, e)| l + e).collect::<String>().repeat(repeat);
            let (found, work) = hits_in_blocks(&text, &pattern, block);
            proptest::prop_assert_eq!(found, naive(&text, &pattern));
            proptest::prop_assert!(work <= 2 * text.len() as u64, "{} for {}", work, text.len());
        }
    }

    const PATTERN_TOKENS: &[&str] = &[
        "a", "b", "\\n", "\\r", "\\r\\n", ".", "(?s).", "[^a]", "\\s", "*", "+", "?", "^", "$",
        "\\A", "\\z", "(?m)", "(?s)", "(?:", ")", "|", "[\\n]",
    ];

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
