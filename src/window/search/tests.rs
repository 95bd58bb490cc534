//! `search` end to end on small texts: grep's format, context, ranges, the
//! caps and the pages they make. The model-based property test (against a
//! naive line-by-line reference) is `tests/it/models/search_model.rs`, which shares the
//! fuzz target's reference.

use super::*;
use crate::window::CapKind;

fn find(
    text: &str,
    pattern: &str,
    lines: Option<LineRequest>,
    context: u64,
    max_chars: u64,
) -> SearchPage {
    let pattern = Pattern::new(pattern, false).unwrap();
    search(
        text,
        &Search {
            pattern: &pattern,
            lines,
            context_lines: context,
            max_chars,
        },
    )
    .unwrap()
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

fn from(start: u64) -> Option<LineRequest> {
    Some(LineRequest::StartEnd {
        start: Some(start),
        end: None,
    })
}

#[test]
fn one_match_with_and_without_context() {
    let t = numbered(10);
    let f = find(&t, "^line 5$", None, 0, 0);
    assert_eq!(f.content, "5:line 5\n");
    assert_eq!(
        (f.total_matches, f.shown.clone(), f.next_start),
        (1, vec![5], None)
    );
    assert_eq!((f.total_lines, f.searched), (10, Some((1, 10))));
    assert_eq!(f.shortened, PageShortened::None);
    assert!(!f.is_partial());
    let f = find(&t, "^line 5$", None, 2, 0);
    assert_eq!(
        f.content,
        "3-line 3\n4-line 4\n5:line 5\n6-line 6\n7-line 7\n"
    );
    // Context stops at the file's edges.
    let f = find(&t, "^line (1|10)$", None, 2, 0);
    assert_eq!(
        f.content,
        "1:line 1\n2-line 2\n3-line 3\n--\n8-line 8\n9-line 9\n10:line 10\n"
    );
}

#[test]
fn grep_rules_merge_separate_and_never_repeat() {
    let t = numbered(12);
    // 3 and 5 with context 1: 2-4 and 4-6 overlap and merge; 9's 8-10
    // leaves line 7 out, so a separator.
    let f = find(&t, "^line (3|5|9)$", None, 1, 0);
    assert_eq!(
        f.content,
        "2-line 2\n3:line 3\n4-line 4\n5:line 5\n6-line 6\n--\n8-line 8\n9:line 9\n10-line 10\n"
    );
    // A match inside another's context is shown as a match, once.
    let f = find(&t, "^line (4|5)$", None, 3, 0);
    assert_eq!(f.content.matches("line 5").count(), 1);
    assert!(f.content.contains("5:line 5\n") && f.content.contains("4:line 4\n"));
    // Touching groups (7 ends one, 8 starts the next) join without `--`.
    let f = find(&t, "^line (5|10)$", None, 2, 0);
    assert!(!f.content.contains("--"), "{}", f.content);
}

#[test]
fn crlf_lines_match_without_their_cr_and_are_shown_as_they_are() {
    let t = "alpha\r\nbeta\r\ngamma";
    let f = find(t, "a$", None, 0, 0);
    assert_eq!(f.content, "1:alpha\r\n2:beta\r\n3:gamma\n");
    assert_eq!(find(t, r"\r", None, 0, 0).total_matches, 0);
    // A lone `\r` is content.
    assert_eq!(find("a\rb\n", "a.b", None, 0, 0).total_matches, 1);
}

#[test]
fn ignore_case_and_anchors() {
    let p = Pattern::new("^DEF ", true).unwrap();
    let s = Search {
        pattern: &p,
        lines: None,
        context_lines: 0,
        max_chars: 0,
    };
    let f = search("def a():\n  def b():\nDef c\n", &s).unwrap();
    assert_eq!(f.shown, vec![1, 3]);
}

#[test]
fn no_match_and_nothing_searched() {
    let t = numbered(5);
    let f = find(&t, "zzz", None, 2, 0);
    assert_eq!(
        (f.content.as_str(), f.total_matches, f.next_start),
        ("", 0, None)
    );
    assert_eq!(f.searched, Some((1, 5)));
    let f = find("", "", None, 2, 0);
    assert_eq!((f.searched, f.total_lines, f.total_matches), (None, 0, 0));
    let past = Some(LineRequest::OffsetLimit {
        offset: 5,
        limit: 10,
    });
    let f = find(&t, "line", past, 0, 0);
    assert_eq!((f.searched, f.total_matches), (None, 0));
}

#[test]
fn a_range_limits_the_search_and_its_context() {
    let t = numbered(20);
    let range = Some(LineRequest::StartEnd {
        start: Some(5),
        end: Some(8),
    });
    let f = find(&t, "^line [0-9]$", range, 3, 0);
    assert_eq!(f.searched, Some((5, 8)));
    assert_eq!(f.shown, vec![5, 6, 7, 8]);
    let f = find(&t, "^line 6$", range, 3, 0);
    assert_eq!(f.content, "5-line 5\n6:line 6\n7-line 7\n8-line 8\n");
    let range = Some(LineRequest::OffsetLimit {
        offset: 10,
        limit: 2,
    });
    assert_eq!(find(&t, "line", range, 0, 0).shown, vec![11, 12]);
    // Inverted: the window's error.
    let p = Pattern::new("x", false).unwrap();
    let s = Search {
        pattern: &p,
        lines: Some(LineRequest::StartEnd {
            start: Some(9),
            end: Some(3),
        }),
        context_lines: 0,
        max_chars: 0,
    };
    assert!(matches!(
        search(&t, &s),
        Err(WindowError::InvertedRange { .. })
    ));
}

#[test]
fn the_budget_drops_whole_groups_and_the_next_page_starts_after_them() {
    let t = numbered(30);
    // Groups of 3 lines: 27 characters for 4-6, 3 for a separator, 33 for
    // 14-16: 63 fit, 62 do not.
    let f = find(&t, "^line (5|15|25)$", None, 1, 63);
    assert_eq!(
        f.content,
        "4-line 4\n5:line 5\n6-line 6\n--\n14-line 14\n15:line 15\n16-line 16\n"
    );
    assert_eq!(
        f.shortened,
        PageShortened::DroppedGroups { by: PageCap::Chars }
    );
    assert_eq!(
        (f.total_matches, f.shown.clone(), f.next_start),
        (3, vec![5, 15], Some(17))
    );
    let f = find(&t, "^line (5|15|25)$", None, 1, 62);
    assert_eq!((f.shown.clone(), f.next_start), (vec![5], Some(7)));
    // The next page finds the rest.
    let f = find(&t, "^line (5|15|25)$", from(17), 1, 63);
    assert_eq!(
        (f.total_matches, f.shown.clone(), f.next_start),
        (1, vec![25], None)
    );
    assert_eq!(f.content, "24-line 24\n25:line 25\n26-line 26\n");
}

#[test]
fn a_group_too_large_is_shown_from_its_first_match() {
    let t = numbered(30);
    // Lines 10-20 all match; context 2 makes a group of 8-22. 40 characters
    // hold 3 lines from line 10 on.
    let f = find(&t, "^line (1[0-9]|20)$", None, 2, 40);
    assert_eq!(f.content, "10:line 10\n11:line 11\n12:line 12\n");
    assert_eq!(f.shortened, PageShortened::GroupCut { by: PageCap::Chars });
    assert_eq!(f.next_start, Some(13));
    assert_eq!(f.total_matches, 11);
}

#[test]
fn a_match_too_long_for_the_budget_is_cut_and_says_how() {
    let t = format!("short\n{}\nend\n", "x".repeat(500));
    let f = find(&t, "^x", None, 1, 100);
    assert_eq!(f.content, format!("2:{}", "x".repeat(98)));
    let PageShortened::LineCut { number, cut } = f.shortened else {
        panic!("{:?}", f.shortened);
    };
    assert_eq!(
        (number, cut.by, cut.line_bytes, cut.returned_bytes),
        (2, CapKind::Chars, 501, 98)
    );
    assert!(cut.whole_without_budget());
    assert_eq!((f.shown.clone(), f.next_start), (vec![2], None));
    // A last line without a terminator leaves room for the `\n` it gets.
    let f = find("\néé\raa\r", "a", None, 0, 8);
    assert_eq!(f.content, "2:éé\raa");
    let f = find("\néé\raa\r", "a", None, 0, 9);
    assert_eq!(f.content, "2:éé\raa\r\n");
    // With a match after it, the next page starts after the cut line.
    let t = format!("{}\nx\n", "x".repeat(500));
    let f = find(&t, "^x", None, 0, 100);
    assert_eq!(
        (f.shown.clone(), f.next_start, f.total_matches),
        (vec![1], Some(2), 2)
    );
}

#[test]
fn the_line_cap_ends_a_page_at_max_limit_lines() {
    let t = "m\n".repeat(MAX_LIMIT as usize + 5);
    let f = find(&t, "m", None, 0, 0);
    assert_eq!(f.shown.len() as u64, MAX_LIMIT);
    assert_eq!(f.shortened, PageShortened::GroupCut { by: PageCap::Lines });
    assert_eq!(f.next_start, Some(MAX_LIMIT + 1));
    assert_eq!(f.total_matches, MAX_LIMIT + 5);
    // Sparse matches: groups of one line, the cap counts lines, not groups.
    let t = "m\nx\n".repeat(MAX_LIMIT as usize + 5);
    let f = find(&t, "m", None, 0, 0);
    assert_eq!(f.shown.len() as u64, MAX_LIMIT);
    assert_eq!(
        f.shortened,
        PageShortened::DroppedGroups { by: PageCap::Lines }
    );
    assert_eq!(f.content.matches("--\n").count() as u64, MAX_LIMIT - 1);
}

#[test]
fn the_byte_cap_ends_a_page_at_one_mebibyte() {
    let line = format!("{}\n", "y".repeat(999));
    let t = line.repeat(1100);
    let f = find(&t, "y", None, 0, 0);
    assert!(f.content.len() <= MAX_WINDOW_BYTES);
    assert_eq!(f.shortened, PageShortened::GroupCut { by: PageCap::Bytes });
    let shown = f.shown.len() as u64;
    assert_eq!(f.next_start, Some(shown + 1));
    assert!(shown > 1000, "{shown}");
}

#[test]
fn a_pathological_pattern_is_linear() {
    // `(a*)*b` and `(x+x+)+y` take exponential time in a backtracker on a
    // long line without the final letter; here they are a pass.
    let t = format!("{}\n{}\n", "a".repeat(100_000), "x".repeat(100_000));
    assert_eq!(find(&t, "(a*)*b", None, 0, 0).total_matches, 0);
    assert_eq!(find(&t, "(x+x+)+y", None, 0, 0).total_matches, 0);
    assert_eq!(find(&t, "(x+x+)+$", None, 0, 100).total_matches, 1);
}
