//! Matches into groups: the matches a page can reach are kept, the rest only
//! counted, and the kept ones are merged with their context lines into
//! groups, grep's way.

use memchr::{memchr, memrchr};

use super::hits::Hit;
use super::shortened::PageCap;
use super::span::Range;

/// How far into the matches a page can reach: a page shows each match as a
/// line, at most `lines` lines and `bytes` bytes (each line at least its
/// own bytes), and its matches are the first ones of the range. So the
/// `k`th match can be on a page only if `k <= lines` and the matches before
/// it fill fewer than `bytes` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reach {
    pub(super) lines: u64,
    pub(super) bytes: usize,
}

/// The matches of a range: those a page can reach, and a count of all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recorded {
    /// The matches within reach, in order.
    pub(super) hits: Vec<Hit>,
    /// Every match of the range.
    pub(super) total: u64,
    /// The first match past the reach, and which bound it passed.
    pub(super) beyond: Option<(Hit, PageCap)>,
}

/// Keeps the matches of `hits` a page can reach ([`Reach`]) and counts
/// them all.
pub(super) fn record(hits: impl Iterator<Item = Hit>, reach: Reach) -> Recorded {
    let mut recorded = Recorded {
        hits: Vec::new(),
        total: 0,
        beyond: None,
    };
    let mut bytes = 0;
    for hit in hits {
        recorded.total += 1;
        if recorded.beyond.is_some() {
            continue;
        }
        if recorded.hits.len() as u64 >= reach.lines {
            recorded.beyond = Some((hit, PageCap::Lines));
        } else if bytes >= reach.bytes {
            recorded.beyond = Some((hit, PageCap::Bytes));
        } else {
            bytes += hit.end - hit.start;
            recorded.hits.push(hit);
        }
    }
    recorded
}

/// A run of lines to show: one or more matches with their context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Group {
    /// The first and last line, 1-indexed inclusive.
    pub(super) first: u64,
    pub(super) last: u64,
    /// The first line's first byte.
    pub(super) start: usize,
    /// The matching lines, ascending (at least one).
    pub(super) matches: Vec<Hit>,
    /// Whether the group is all there: `false` for a last group that goes
    /// on past the reach (its `last` is then the line before the first
    /// match past it), which no page can show whole.
    pub(super) whole: bool,
    /// The bound of the reach a group that is not whole passes.
    pub(super) past: Option<PageCap>,
}

/// Groups the recorded matches with `context` lines before and after each,
/// within `range`:
///
/// 1. A match within `2 × context + 1` lines of the previous one joins its
///    group (their contexts overlap or touch); otherwise it starts one.
/// 2. A group runs from `context` lines before its first match (not before
///    the range) to `context` after its last (not past the range).
/// 3. If a match past the reach would join the last group, that group is
///    not whole: it ends on the line before that match.
pub(super) fn group(text: &[u8], recorded: &Recorded, range: &Range, context: u64) -> Vec<Group> {
    let joins = |last: u64, next: u64| next - last <= context.saturating_mul(2).saturating_add(1);
    let mut groups: Vec<Group> = Vec::new();
    for hit in &recorded.hits {
        match groups.last_mut() {
            Some(g) if joins(g.matches[g.matches.len() - 1].number, hit.number) => {
                g.matches.push(*hit);
            }
            _ => {
                let back = context.min(hit.number - range.first);
                groups.push(Group {
                    first: hit.number - back,
                    last: hit.number,
                    start: lines_back(text, hit.start, back, range.start),
                    matches: vec![*hit],
                    whole: true,
                    past: None,
                });
            }
        }
    }
    for g in &mut groups {
        let last_match = g.matches[g.matches.len() - 1];
        g.last = last_match.number + context.min(range.last - last_match.number);
    }
    if let (Some(g), Some((beyond, cap))) = (groups.last_mut(), recorded.beyond)
        && joins(g.matches[g.matches.len() - 1].number, beyond.number)
    {
        g.last = beyond.number - 1;
        g.whole = false;
        g.past = Some(cap);
    }
    groups
}

/// The start of the line `n` lines before the one starting at `start`, not
/// before `floor` (a line start).
fn lines_back(text: &[u8], start: usize, n: u64, floor: usize) -> usize {
    let mut at = start;
    for _ in 0..n {
        if at <= floor {
            break;
        }
        // `at - 1` is the `\n` ending the line before.
        at = memrchr(b'\n', &text[floor..at - 1]).map_or(floor, |i| floor + i + 1);
    }
    at
}

/// The end of the line starting at `start` (after its `\n`, or `end`).
pub(super) fn line_end(text: &[u8], start: usize, end: usize) -> usize {
    memchr(b'\n', &text[start..end]).map_or(end, |i| start + i + 1)
}

#[cfg(test)]
mod tests {
    use super::super::hits::Hits;
    use super::super::pattern::Pattern;
    use super::super::span::searched;
    use super::*;

    const FAR: Reach = Reach {
        lines: u64::MAX,
        bytes: usize::MAX,
    };

    /// (first, last, match numbers, whole) of each group of `pattern` in the
    /// lines `lines` of `text`.
    fn groups(
        text: &str,
        pattern: &str,
        context: u64,
        reach: Reach,
    ) -> Vec<(u64, u64, Vec<u64>, bool)> {
        let p = Pattern::new(pattern, false).unwrap();
        let total = text.split_inclusive('\n').count() as u64;
        let range = searched(text.as_bytes(), None, total).unwrap().unwrap();
        let recorded = record(
            Hits::new(text.as_bytes(), &p, &range, || Ok::<(), ()>(())),
            reach,
        );
        group(text.as_bytes(), &recorded, &range, context)
            .into_iter()
            .map(|g| {
                // The start byte is the first line's.
                let skipped = text[..g.start].matches('\n').count() as u64;
                assert_eq!(skipped + 1, g.first);
                (
                    g.first,
                    g.last,
                    g.matches.iter().map(|h| h.number).collect(),
                    g.whole,
                )
            })
            .collect()
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("l{i}\n")).collect()
    }

    #[test]
    fn context_merges_and_is_clamped_to_the_range() {
        let t = numbered(20);
        // Lines 1, 2 and 12: 1 and 2 touch; with context 2, 12's group starts
        // at 10 and ends at 14.
        let pat = r"^l(1|2|12)$";
        assert_eq!(
            groups(&t, pat, 0, FAR),
            vec![(1, 2, vec![1, 2], true), (12, 12, vec![12], true)]
        );
        assert_eq!(
            groups(&t, pat, 2, FAR),
            vec![(1, 4, vec![1, 2], true), (10, 14, vec![12], true)]
        );
        // Context 4: 2 + 4 = 6 and 12 - 4 = 8, apart by line 7; context 5:
        // 7 and 7 overlap.
        assert_eq!(groups(&t, pat, 4, FAR).len(), 2);
        assert_eq!(groups(&t, pat, 5, FAR), vec![(1, 17, vec![1, 2, 12], true)]);
        // Touching (6 ends one, 7 starts the next) merges too.
        assert_eq!(
            groups(&t, r"^l(3|10)$", 3, FAR),
            vec![(1, 13, vec![3, 10], true)]
        );
        assert_eq!(groups(&t, r"^l(3|11)$", 3, FAR).len(), 2);
        // Clamped at the end.
        assert_eq!(groups(&t, r"^l19$", 3, FAR), vec![(16, 20, vec![19], true)]);
    }

    #[test]
    fn matches_past_the_reach_are_counted_and_end_the_last_group() {
        let t = numbered(30);
        let reach = Reach {
            lines: 2,
            bytes: usize::MAX,
        };
        let pat = r"^l(2|5|12|13|25)$";
        let p = Pattern::new(pat, false).unwrap();
        let range = searched(t.as_bytes(), None, 30).unwrap().unwrap();
        let recorded = record(
            Hits::new(t.as_bytes(), &p, &range, || Ok::<(), ()>(())),
            reach,
        );
        assert_eq!(recorded.total, 5);
        assert_eq!(recorded.hits.len(), 2);
        assert_eq!(
            recorded.beyond.map(|(h, c)| (h.number, c)),
            Some((12, PageCap::Lines))
        );
        // 12 would join 5's group with context 3: the group stops at 11.
        assert_eq!(groups(&t, pat, 3, reach), vec![(1, 11, vec![2, 5], false)]);
        // Context 1 keeps it apart: the group is whole.
        assert_eq!(groups(&t, pat, 1, reach), vec![(1, 6, vec![2, 5], true)]);
        // The byte bound: lines 2 to 9 are 3 bytes each; the fourth match
        // starts with 9 bytes before it.
        let reach = Reach {
            lines: u64::MAX,
            bytes: 9,
        };
        assert_eq!(
            groups(&t, r"^l[2-6]$", 0, reach),
            vec![(2, 4, vec![2, 3, 4], false)]
        );
    }

    #[test]
    fn lines_back_stops_at_the_floor() {
        let t = b"a\nbb\nccc\n";
        assert_eq!(lines_back(t, 5, 0, 0), 5);
        assert_eq!(lines_back(t, 5, 1, 0), 2);
        assert_eq!(lines_back(t, 5, 2, 0), 0);
        assert_eq!(lines_back(t, 5, 9, 0), 0);
        assert_eq!(lines_back(t, 5, 9, 2), 2);
        assert_eq!(line_end(t, 2, t.len()), 5);
        assert_eq!(line_end(b"ab", 0, 2), 2);
    }
}
