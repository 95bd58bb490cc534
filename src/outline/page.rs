//! A page of an outline (pure): the definitions starting in the lines asked for, one line each
//! (`START-END KIND QUALIFIED_NAME`, two spaces per nesting level), as many as the caps allow.
//! A page ends before the definitions starting on one line rather than split them, so the
//! next page, starting at the next definition's first line, visits every definition exactly
//! once; only when the definitions of the page's first line are more than the caps allow
//! alone (a minified file: thousands on line 1) are they split: the first of them are shown,
//! the others are left out ([`SplitLine`]), and the next page starts at the next line.

use super::definition::{Definition, Outline};
use crate::window::{MAX_LIMIT, MAX_WINDOW_BYTES, charged_chars};

/// Which cap ended a page of an outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutlinePageCap {
    /// [`MAX_LIMIT`] definitions.
    Lines,
    /// [`MAX_WINDOW_BYTES`].
    Bytes,
    /// The character budget.
    Chars,
}

/// A page of definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutlinePage {
    pub content: String,
    /// Definitions starting in the lines asked for.
    pub total: usize,
    pub returned: usize,
    /// The first line of the first definition not shown.
    pub next_start: Option<u64>,
    /// The lines the shown definitions span, 1-indexed inclusive.
    pub spanned: Option<(u64, u64)>,
    /// What cut the page short, when something did.
    pub cut_by: Option<OutlinePageCap>,
    /// Characters charged against the budget.
    pub charged: usize,
    /// The page's first line, when its definitions were more than the page holds.
    pub split: Option<SplitLine>,
    /// Shown definitions whose names are shortened.
    pub shortened: usize,
}

/// The definitions of one line that a page could not hold: `shown` of `total` are on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitLine {
    pub line: u64,
    pub shown: usize,
    pub total: usize,
}

/// The page of `outline` for definitions starting in `lines` (inclusive), within `max_chars`
/// (0 = no budget) and the byte and line caps. The first line-group is shown whatever its size.
pub(crate) fn page(outline: &Outline, lines: Option<(u64, u64)>, max_chars: u64) -> OutlinePage {
    let wanted: Vec<&Definition> = match lines {
        Some((first, last)) => outline
            .definitions
            .iter()
            .filter(|d| (first..=last).contains(&d.start_line))
            .collect(),
        None => Vec::new(),
    };
    let mut page = OutlinePage {
        content: String::new(),
        total: wanted.len(),
        returned: 0,
        next_start: None,
        spanned: None,
        cut_by: None,
        charged: 0,
        split: None,
        shortened: 0,
    };
    let mut groups = wanted.chunk_by(|a, b| a.start_line == b.start_line);
    while let Some(group) = groups.next() {
        // Written in place, taken back if a cap refuses it.
        let shown = page.content.len();
        group.iter().for_each(|d| write_entry(&mut page.content, d));
        let bytes = page.content.len() - shown;
        let charged = charged_chars(&page.content.as_bytes()[shown..]);
        page.cut_by = cap(&page, shown, group.len(), bytes, charged, max_chars);
        if page.cut_by.is_some() {
            page.content.truncate(shown);
            if page.returned == 0 {
                split_first(&mut page, group, max_chars);
                page.next_start = groups.next().map(|g| g[0].start_line);
            } else {
                page.next_start = Some(group[0].start_line);
            }
            break;
        }
        add(&mut page, group, charged);
    }
    page
}

/// Shows the first definitions of `group`, the page's first line, that the caps allow (at
/// least one, whatever its size: a line's name is bounded).
fn split_first(page: &mut OutlinePage, group: &[&Definition], max_chars: u64) {
    for (i, d) in group.iter().enumerate() {
        let shown = page.content.len();
        write_entry(&mut page.content, d);
        let bytes = page.content.len() - shown;
        let charged = charged_chars(&page.content.as_bytes()[shown..]);
        let by = cap(page, shown, 1, bytes, charged, max_chars);
        if i > 0 && by.is_some() {
            page.content.truncate(shown);
            page.cut_by = by;
            break;
        }
        add(page, std::slice::from_ref(d), charged);
    }
    page.split = Some(SplitLine {
        line: group[0].start_line,
        shown: page.returned,
        total: group.len(),
    });
}

/// Counts `group`, written on the page and charged `charged`.
fn add(page: &mut OutlinePage, group: &[&Definition], charged: usize) {
    page.charged += charged;
    page.returned += group.len();
    page.shortened += group.iter().filter(|d| d.shortened).count();
    let end = group.iter().map(|d| d.end_line).max().unwrap_or_default();
    page.spanned = Some(match page.spanned {
        Some((s, e)) => (s, e.max(end)),
        None => (group[0].start_line, end),
    });
}

/// The cap a group of `count` definitions (`bytes` long, charged `charged`) would pass after
/// the `shown` bytes of the page so far.
fn cap(
    page: &OutlinePage,
    shown: usize,
    count: usize,
    bytes: usize,
    charged: usize,
    max_chars: u64,
) -> Option<OutlinePageCap> {
    if (page.returned + count) as u64 > MAX_LIMIT {
        Some(OutlinePageCap::Lines)
    } else if shown + bytes > MAX_WINDOW_BYTES {
        Some(OutlinePageCap::Bytes)
    } else if max_chars > 0 && (page.charged + charged) as u64 > max_chars {
        Some(OutlinePageCap::Chars)
    } else {
        None
    }
}

/// Appends a definition's line, indented by its depth.
fn write_entry(out: &mut String, d: &Definition) {
    for _ in 0..d.depth {
        out.push_str("  ");
    }
    d.write_line(out);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::super::{Kind, Language};
    use super::*;

    fn outline(n: u64) -> Outline {
        let mut definitions = Vec::new();
        for i in 0..n {
            let start = 10 * i + 1;
            definitions.push(Definition {
                start_line: start,
                end_line: start + 8,
                depth: 0,
                kind: Kind::Class,
                name: format!("C{i}"),
                shortened: false,
            });
            // A method on the class's first line (a one-line class body).
            definitions.push(Definition {
                start_line: start,
                end_line: start,
                depth: 1,
                kind: Kind::Method,
                name: format!("C{i}.m"),
                shortened: false,
            });
        }
        Outline {
            language: Language::Python,
            definitions,
            partial: false,
            too_deep: 0,
        }
    }

    #[test]
    fn lines_are_indented_by_depth() {
        let p = page(&outline(1), Some((1, 100)), 0);
        assert_eq!(p.content, "1-9 class C0\n  1-1 method C0.m\n");
        assert_eq!((p.total, p.returned, p.next_start), (2, 2, None));
        assert_eq!(p.spanned, Some((1, 9)));
    }

    #[test]
    fn following_the_pages_visits_every_definition_once() {
        let o = outline(50);
        let mut seen = Vec::new();
        let mut start = 1;
        loop {
            let p = page(&o, Some((start, 10_000)), 45);
            assert!(p.returned > 0);
            seen.extend(p.content.lines().map(str::to_string));
            match p.next_start {
                Some(next) => {
                    assert_eq!(p.cut_by, Some(OutlinePageCap::Chars));
                    start = next;
                }
                None => break,
            }
        }
        let all: Vec<String> = page(&o, Some((1, 10_000)), 0)
            .content
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(seen, all);
        assert_eq!(all.len(), 100);
    }

    #[test]
    fn a_first_group_past_the_budget_is_split_and_the_next_page_starts_at_the_next_line() {
        // "1-9 class C0\n" is 13 characters, "  1-1 method C0.m\n" 18.
        let p = page(&outline(3), Some((1, 100)), 20);
        assert_eq!(p.content, "1-9 class C0\n");
        assert_eq!((p.returned, p.next_start), (1, Some(11)));
        let split = SplitLine {
            line: 1,
            shown: 1,
            total: 2,
        };
        assert_eq!(p.split, Some(split));
        assert_eq!(p.cut_by, Some(OutlinePageCap::Chars));
        // At least one is shown, whatever the budget.
        let p = page(&outline(3), Some((1, 100)), 1);
        assert_eq!((p.returned, p.content.as_str()), (1, "1-9 class C0\n"));
        // Both fit: no split.
        let p = page(&outline(3), Some((1, 100)), 31);
        assert_eq!((p.returned, p.split, p.next_start), (2, None, Some(11)));
        // The last line split: no next page.
        let p = page(&outline(3), Some((21, 100)), 20);
        assert_eq!((p.returned, p.next_start), (1, None));
        assert_eq!(p.split.map(|s| s.line), Some(21));
    }

    #[test]
    fn one_line_of_many_definitions_is_cut_to_the_byte_cap() {
        let definitions = (0..200_000)
            .map(|i| Definition {
                start_line: 1,
                end_line: 1,
                depth: 0,
                kind: Kind::Function,
                name: format!("function_number_{i}"),
                shortened: i % 2 == 0,
            })
            .collect();
        let o = Outline {
            language: Language::JavaScript,
            definitions,
            partial: false,
            too_deep: 0,
        };
        let p = page(&o, Some((1, 1)), 0);
        assert!(p.content.len() <= MAX_WINDOW_BYTES, "{}", p.content.len());
        assert_eq!(p.cut_by, Some(OutlinePageCap::Lines));
        assert_eq!(p.returned as u64, MAX_LIMIT);
        assert_eq!(p.shortened as u64, MAX_LIMIT / 2);
        let p = page(&o, Some((1, 1)), 1000);
        assert!(p.charged <= 1000, "{}", p.charged);
        assert_eq!(
            p.split.map(|s| (s.shown, s.total)),
            Some((p.returned, 200_000))
        );
    }

    #[test]
    fn the_line_cap_counts_definitions() {
        let p = page(&outline(1500), Some((1, u64::MAX)), 0);
        assert_eq!(p.returned, 2000);
        assert_eq!(p.cut_by, Some(OutlinePageCap::Lines));
        assert_eq!(p.next_start, Some(10_001));
    }

    #[test]
    fn a_range_keeps_definitions_starting_in_it() {
        let p = page(&outline(5), Some((5, 21)), 0);
        assert_eq!(
            p.content,
            "11-19 class C1\n  11-11 method C1.m\n21-29 class C2\n  21-21 method C2.m\n"
        );
        let p = page(&outline(5), None, 0);
        assert_eq!((p.total, p.content.as_str()), (0, ""));
    }
}
