//! Tests of whole windows: line semantics, `StartEnd`, the 1 MiB cap, and
//! properties against a reference model.

use super::*;
use proptest::prelude::*;

const MIB: usize = MAX_WINDOW_BYTES;

fn offset_limit(offset: u64, limit: u64) -> LineRequest {
    LineRequest::OffsetLimit { offset, limit }
}

fn start_end(start: Option<u64>, end: Option<u64>) -> LineRequest {
    LineRequest::StartEnd { start, end }
}

/// [`window`] with the byte cap as a parameter.
fn window_capped(
    text: &str,
    req: LineRequest,
    max_bytes: usize,
) -> Result<Window<'_>, WindowError> {
    fit_capped(text, req, Fit::RAW, max_bytes).map(|fitted| fitted.window)
}

/// `window` for requests that cannot fail.
fn win(text: &str, req: LineRequest) -> Window<'_> {
    match window(text, req) {
        Ok(w) => w,
        Err(e) => panic!("{req:?} failed: {e}"),
    }
}

/// Asserts the content, `returned` and cap of a window.
#[track_caller]
fn assert_window(w: &Window<'_>, content: &str, returned: u64, cap: Cap) {
    assert_eq!(
        (w.content, w.returned, w.cap),
        (content, returned, cap),
        "{w:?}"
    );
}

// ---- window: line semantics --------------------------------------------

#[test]
fn crlf_lines_keep_their_terminators() {
    let text = "a\r\nb\r\n\r\n\r\n";
    let w = win(text, offset_limit(0, 500));
    assert_window(&w, text, 4, Cap::None);
    assert_eq!(w.total_lines, 4);
    assert_window(&win(text, offset_limit(1, 2)), "b\r\n\r\n", 2, Cap::None);
    assert_window(&win(text, offset_limit(3, 1)), "\r\n", 1, Cap::None);
    assert_window(
        &win(text, start_end(Some(2), Some(2))),
        "b\r\n",
        1,
        Cap::None,
    );
}

#[test]
fn no_final_newline() {
    let text = "a\nb";
    let w = win(text, offset_limit(0, 500));
    assert_window(&w, "a\nb", 2, Cap::None);
    assert_eq!(w.total_lines, 2);
    let w = win(text, offset_limit(1, 1));
    assert_window(&w, "b", 1, Cap::None);
    assert_eq!((w.next_offset(), w.remaining()), (2, 0));
    assert_window(&win(text, offset_limit(2, 1)), "", 0, Cap::None);
}

#[test]
fn blank_trailing_lines() {
    let text = "a\n\n\n";
    let w = win(text, offset_limit(0, 500));
    assert_window(&w, text, 3, Cap::None);
    assert_eq!(w.total_lines, 3);
    assert_window(&win(text, offset_limit(1, 500)), "\n\n", 2, Cap::None);
    assert_window(&win(text, offset_limit(2, 500)), "\n", 1, Cap::None);
    assert_window(&win(text, offset_limit(3, 500)), "", 0, Cap::None);
    assert_window(&win(text, start_end(Some(3), None)), "\n", 1, Cap::None);
}

#[test]
fn lone_cr_is_content() {
    let text = "a\rb\rc";
    let w = win(text, offset_limit(0, 1));
    assert_window(&w, text, 1, Cap::None);
    assert_eq!(w.total_lines, 1);
    let text = "a\r\rb\nc\r";
    let w = win(text, offset_limit(1, 1));
    assert_window(&w, "c\r", 1, Cap::None);
    assert_eq!(w.total_lines, 2);
    let w = win("\r", offset_limit(0, 5));
    assert_window(&w, "\r", 1, Cap::None);
    assert_eq!(w.total_lines, 1);
}

#[test]
fn empty_file() {
    for req in [
        offset_limit(0, 1),
        offset_limit(0, 500),
        offset_limit(7, 500),
        start_end(None, None),
        start_end(Some(1), Some(1)),
        start_end(Some(0), Some(0)),
        start_end(Some(5), Some(2)),
        start_end(Some(5), None),
        start_end(None, Some(5)),
    ] {
        let w = win("", req);
        assert_window(&w, "", 0, Cap::None);
        assert_eq!(w.total_lines, 0, "{req:?}");
        assert_eq!(w.returned_lines(), None);
        assert_eq!((w.next_offset(), w.remaining()), (w.offset, 0));
        assert!(!w.is_partial(), "{req:?}");
    }
    let w = win("", start_end(None, None));
    assert_eq!((w.offset, w.limit), (0, 0));
}

#[test]
fn offset_at_total() {
    let w = win("a\nb\nc\n", offset_limit(3, 500));
    assert_window(&w, "", 0, Cap::None);
    assert_eq!((w.total_lines, w.offset, w.limit), (3, 3, 500));
    assert_eq!(
        (w.returned_lines(), w.next_offset(), w.remaining()),
        (None, 3, 0)
    );
    assert!(w.is_partial());
    // Without the final newline too.
    let w = win("a\nb\nc", offset_limit(3, 500));
    assert_window(&w, "", 0, Cap::None);
    assert_eq!(w.total_lines, 3);
}

#[test]
fn offset_past_end() {
    for offset in [4, 5, 1000, u64::MAX] {
        let w = win("a\nb\nc", offset_limit(offset, 500));
        assert_window(&w, "", 0, Cap::None);
        assert_eq!((w.total_lines, w.offset), (3, offset));
        assert_eq!(w.returned_lines(), None);
        assert_eq!((w.next_offset(), w.remaining()), (offset, 0));
    }
}

#[test]
fn limit_one() {
    let text = "a\nbb\nccc";
    for (offset, line) in [(0, "a\n"), (1, "bb\n"), (2, "ccc")] {
        let w = win(text, offset_limit(offset, 1));
        assert_window(&w, line, 1, Cap::None);
        assert_eq!(w.returned_lines(), Some((offset + 1, offset + 1)));
        assert_eq!(w.next_offset(), offset + 1);
        assert_eq!(w.remaining(), 2 - offset);
        assert!(w.is_partial());
    }
    let w = win("only\n", offset_limit(0, 1));
    assert_window(&w, "only\n", 1, Cap::None);
    assert!(!w.is_partial());
}

#[test]
fn limit_zero_takes_nothing() {
    // The caller never sends it; it must still behave.
    let w = win("a\nb\n", offset_limit(1, 0));
    assert_window(&w, "", 0, Cap::None);
    assert_eq!((w.total_lines, w.next_offset(), w.remaining()), (2, 1, 1));
}

#[test]
fn window_accessors() {
    let w = win("1\n2\n3\n4\n5\n", offset_limit(1, 2));
    assert_window(&w, "2\n3\n", 2, Cap::None);
    assert_eq!((w.total_lines, w.offset, w.limit), (5, 1, 2));
    assert_eq!(w.returned_lines(), Some((2, 3)));
    assert_eq!((w.next_offset(), w.remaining()), (3, 2));
    assert!(w.is_partial());
    let w = win("1\n2\n", offset_limit(0, 500));
    assert_eq!(w.returned_lines(), Some((1, 2)));
    assert_eq!((w.next_offset(), w.remaining()), (2, 0));
    assert!(!w.is_partial());
}

// ---- window: StartEnd --------------------------------------------------

#[test]
fn start_end_clamping() {
    let text = "1\n2\n3\n4\n5\n";
    /// (start, end, content, offset, limit)
    type Case = (Option<u64>, Option<u64>, &'static str, u64, u64);
    let cases: &[Case] = &[
        (None, None, text, 0, 5),
        (Some(0), Some(2), "1\n2\n", 0, 2),
        (Some(0), None, text, 0, 5),
        (None, Some(0), "1\n", 0, 1),
        (Some(4), None, "4\n5\n", 3, 2),
        (None, Some(2), "1\n2\n", 0, 2),
        (Some(4), Some(99), "4\n5\n", 3, 2),
        (Some(5), None, "5\n", 4, 1),
        (Some(5), Some(100), "5\n", 4, 1),
        // A start past the end is a window past the end: no line (the hint names the count).
        (Some(6), None, "", 5, 1),
        (Some(99), Some(100), "", 98, 1),
        (Some(2), Some(2), "2\n", 1, 1),
    ];
    for &(start, end, content, offset, limit) in cases {
        let w = win(text, start_end(start, end));
        assert_eq!(
            (w.content, w.offset, w.limit, w.total_lines, w.cap),
            (content, offset, limit, 5, Cap::None),
            "{start:?}..{end:?}"
        );
        assert_eq!(w.returned, if content.is_empty() { 0 } else { limit });
    }
}

#[test]
fn start_end_inverted_is_an_error() {
    let text = "1\n2\n3\n4\n5\n";
    assert_eq!(
        window(text, start_end(Some(4), Some(2))),
        Err(WindowError::InvertedRange {
            start: 4,
            end: 2,
            requested_start: 4,
            requested_end: 2,
            total_lines: 5,
        })
    );
    // Only an end can be clamped now: a start past the end is past the end, not inverted.
    assert_eq!(
        window(text, start_end(Some(4), Some(0))),
        Err(WindowError::InvertedRange {
            start: 4,
            end: 1,
            requested_start: 4,
            requested_end: 0,
            total_lines: 5,
        })
    );
    assert_eq!(
        window(text, start_end(Some(9), Some(3))).map(|w| w.returned),
        Ok(0)
    );
}

#[test]
fn start_end_longer_than_max_limit() {
    let text = "x\n".repeat(5000);
    let w = win(&text, start_end(Some(10), Some(4000)));
    assert_eq!((w.offset, w.limit, w.returned), (9, MAX_LIMIT, MAX_LIMIT));
    assert_eq!(w.content, &text[18..18 + 2 * MAX_LIMIT as usize]);
    assert_eq!(w.returned_lines(), Some((10, 2009)));
    assert_eq!(
        (w.next_offset(), w.remaining(), w.cap),
        (2009, 2991, Cap::None)
    );
    let w = win(&text, start_end(None, None));
    assert_eq!((w.offset, w.limit, w.returned), (0, MAX_LIMIT, MAX_LIMIT));
    // Exactly MAX_LIMIT lines are not shortened.
    let w = win(&text, start_end(Some(1), Some(MAX_LIMIT)));
    assert_eq!((w.limit, w.returned), (MAX_LIMIT, MAX_LIMIT));
}

// ---- window: the 1 MiB cap ---------------------------------------------

#[test]
fn line_of_exactly_one_mib_is_not_cut() {
    let line = format!("{}\n", "a".repeat(MIB - 1));
    let w = win(&line, offset_limit(0, 500));
    assert_window(&w, &line, 1, Cap::None);
    // Alone, it fills the window; more lines requested are dropped.
    let text = format!("{line}b\n");
    let w = win(&text, offset_limit(0, 500));
    assert_window(&w, &line, 1, Cap::DroppedLines);
    assert_eq!((w.next_offset(), w.remaining()), (1, 1));
    assert!(w.is_partial());
    // Unterminated, exactly 1 MiB of bytes is still one whole line.
    let line = "a".repeat(MIB);
    assert_window(&win(&line, offset_limit(0, 500)), &line, 1, Cap::None);
}

#[test]
fn window_summing_to_exactly_one_mib() {
    // 1024 lines of 1024 bytes.
    let line = format!("{}\n", "a".repeat(1023));
    let full = line.repeat(1024);
    assert_eq!(full.len(), MIB);
    let w = win(&full, offset_limit(0, MAX_LIMIT));
    assert_window(&w, &full, 1024, Cap::None);
    assert!(!w.is_partial());
    // The same window with lines after it that the request does not
    // cover: not capped.
    let text = format!("{full}tail\n");
    let w = win(&text, offset_limit(0, 1024));
    assert_window(&w, &full, 1024, Cap::None);
    assert!(w.is_partial());
    // ... and with more lines requested: they are dropped.
    let w = win(&text, offset_limit(0, 1025));
    assert_window(&w, &full, 1024, Cap::DroppedLines);
    assert_eq!((w.next_offset(), w.remaining()), (1024, 1));
    // One byte more and the last whole line no longer fits.
    let text = format!("{full}x");
    let w = win(&text, offset_limit(1, MAX_LIMIT));
    assert_window(&w, &text[1024..MIB + 1], 1024, Cap::None);
    let text = format!("x{full}");
    let w = win(&text, offset_limit(0, MAX_LIMIT));
    assert_window(&w, &text[..1024 * 1023 + 1], 1023, Cap::DroppedLines);
}

#[test]
fn over_long_single_line_is_cut() {
    let text = format!("{}\nnext\n", "a".repeat(3 * MIB));
    let w = win(&text, offset_limit(0, 500));
    assert_window(&w, &text[..MIB], 1, Cap::LineCut);
    assert_eq!((w.total_lines, w.next_offset(), w.remaining()), (2, 1, 1));
    assert_eq!(w.returned_lines(), Some((1, 1)));
    assert!(w.is_partial());
    // The next window goes on with the next line.
    assert_window(&win(&text, offset_limit(1, 500)), "next\n", 1, Cap::None);
    // A line 1 byte over the cap (its `\n`) is cut too.
    let text = format!("{}\n", "a".repeat(MIB));
    assert_window(
        &win(&text, offset_limit(0, 1)),
        &text[..MIB],
        1,
        Cap::LineCut,
    );
    // An over-long line after a short one is dropped, not cut.
    let text = format!("short\n{}\n", "a".repeat(2 * MIB));
    let w = win(&text, offset_limit(0, 500));
    assert_window(&w, "short\n", 1, Cap::DroppedLines);
    assert_eq!(w.remaining(), 1);
}

#[test]
fn cut_never_splits_a_multibyte_character() {
    for ch in ['é', '€', '😀'] {
        let width = ch.len_utf8();
        // `before` bytes of `ch` fall at or before the 1 MiB boundary.
        for before in 0..=width {
            let prefix = "a".repeat(MIB - before);
            let text = format!("{prefix}{ch}tail\nnext\n");
            let w = win(&text, offset_limit(0, 500));
            let want = if before == width {
                &text[..MIB]
            } else {
                prefix.as_str()
            };
            assert_window(&w, want, 1, Cap::LineCut);
            assert!(w.content.len() <= MIB && w.content.len() > MIB - width);
            assert_eq!(w.total_lines, 2);
        }
    }
    // A line made only of 4-byte characters: 1 MiB is a multiple of 4,
    // so the cut takes exactly 1 MiB; shift by one byte and it takes less.
    let text = "😀".repeat(MIB / 4 + 10);
    assert_eq!(win(&text, offset_limit(0, 1)).content.len(), MIB);
    let text = format!("a{}", "😀".repeat(MIB / 4 + 10));
    assert_eq!(win(&text, offset_limit(0, 1)).content.len(), MIB - 3);
}

// ---- properties --------------------------------------------------------

/// GitLab's algorithm over a `Vec` of lines, the reference for `window`.
fn naive_window(text: &str, offset: u64, limit: u64, max: usize) -> (String, u64, Cap, u64) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len() as u64;
    let covered: Vec<&str> = lines
        .iter()
        .skip(offset.min(total) as usize)
        .take(limit as usize)
        .copied()
        .collect();
    let mut taken: Vec<&str> = Vec::new();
    let mut size = 0;
    for line in &covered {
        if !taken.is_empty() && size + line.len() > max {
            break;
        }
        taken.push(line);
        size += line.len();
        if size >= max {
            break;
        }
    }
    let returned = taken.len() as u64;
    if taken.len() == 1 && size > max {
        let line = taken[0];
        let cut = (0..=max)
            .rev()
            .find(|&i| line.is_char_boundary(i))
            .unwrap_or(0);
        return (line[..cut].to_string(), 1, Cap::LineCut, total);
    }
    let cap = if taken.len() < covered.len() {
        Cap::DroppedLines
    } else {
        Cap::None
    };
    (taken.concat(), returned, cap, total)
}

/// Small texts of `\n`, `\r`, ASCII and 2-, 3- and 4-byte characters.
fn text_strategy() -> impl Strategy<Value = String> {
    "[ab\\n\\ré€😀]{0,48}"
}

proptest! {
    #[test]
    fn windows_rebuild_the_input(text in text_strategy(), limit in 1u64..=20) {
        let total = text.split_inclusive('\n').count() as u64;
        let mut rebuilt = String::new();
        let mut offset = 0;
        let mut expected_first = 1;
        loop {
            let w = win(&text, offset_limit(offset, limit));
            prop_assert_eq!(w.total_lines, total);
            prop_assert_eq!(w.cap, Cap::None);
            match w.returned_lines() {
                Some((first, last)) => {
                    prop_assert_eq!(first, expected_first);
                    prop_assert_eq!(last - first + 1, w.returned);
                    expected_first = last + 1;
                }
                None => {
                    prop_assert!(offset >= total);
                    break;
                }
            }
            rebuilt.push_str(w.content);
            offset = w.next_offset();
        }
        prop_assert_eq!(rebuilt, text);
        prop_assert_eq!(offset, total);
    }

    #[test]
    fn capped_windows_match_the_reference(
        text in text_strategy(),
        offset in 0u64..24,
        limit in 0u64..=20,
        max in 4usize..=24,
    ) {
        let w = match window_capped(&text, offset_limit(offset, limit), max) {
            Ok(w) => w,
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        let (content, returned, cap, total) = naive_window(&text, offset, limit, max);
        prop_assert_eq!(w.content, content.as_str());
        prop_assert_eq!((w.returned, w.cap, w.total_lines), (returned, cap, total));
        prop_assert_eq!((w.offset, w.limit), (offset, limit));
    }

    #[test]
    fn capped_windows_rebuild_the_input_unless_cut(
        text in text_strategy(),
        limit in 1u64..=20,
        max in 4usize..=24,
    ) {
        let total = text.split_inclusive('\n').count() as u64;
        let mut rebuilt = String::new();
        let mut offset = 0;
        let mut cut = false;
        while offset < total {
            let w = match window_capped(&text, offset_limit(offset, limit), max) {
                Ok(w) => w,
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            prop_assert!(w.returned > 0);
            prop_assert!(w.content.len() <= max || w.returned == 1);
            cut |= w.cap == Cap::LineCut;
            rebuilt.push_str(w.content);
            offset = w.next_offset();
        }
        prop_assert_eq!(offset, total);
        if !cut {
            prop_assert_eq!(rebuilt, text);
        }
    }

    #[test]
    fn start_end_matches_offset_limit(
        text in text_strategy(),
        start in proptest::option::of(0u64..24),
        end in proptest::option::of(0u64..24),
    ) {
        let total = text.split_inclusive('\n').count() as u64;
        match window(&text, start_end(start, end)) {
            Ok(w) => {
                prop_assert_eq!(w.total_lines, total);
                if start.is_some_and(|s| s > total) {
                    // Past the end: no line, as an offset past the end.
                    prop_assert_eq!(w.returned, 0);
                } else if total > 0 {
                    let first = start.unwrap_or(1).clamp(1, total);
                    let last = end.unwrap_or(total).clamp(1, total);
                    prop_assert!(first <= last);
                    prop_assert_eq!((w.offset, w.limit), (first - 1, last - first + 1));
                    prop_assert_eq!(w.returned_lines(), Some((first, last)));
                    prop_assert_eq!(w, win(&text, offset_limit(first - 1, last - first + 1)));
                } else {
                    prop_assert_eq!(w.returned, 0);
                }
            }
            Err(WindowError::InvertedRange { start: first, end: last, .. }) => {
                prop_assert!(total > 0 && first > last);
                prop_assert!(start.unwrap_or(1) <= total);
                prop_assert_eq!(first, start.unwrap_or(1).clamp(1, total));
                prop_assert_eq!(last, end.unwrap_or(total).clamp(1, total));
            }
            Err(e @ WindowError::ColumnPastEnd { .. }) => prop_assert!(false, "no column: {e}"),
        }
    }
}

#[test]
fn a_window_holds_all_of_what_it_asked_or_not() {
    let text = "a\nb\nc\nd\ne\n";
    // Lines 2-3 returned whole: all that was asked, though the file goes on.
    let w = win(text, start_end(Some(2), Some(3)));
    assert!(w.holds_all_of(Some(start_end(Some(2), Some(3)))));
    // The same window does not hold the whole file.
    assert!(!w.holds_all_of(None));
    // An end past the file is the file's end.
    let w = win(text, start_end(Some(4), Some(90)));
    assert!(w.holds_all_of(Some(start_end(Some(4), Some(90)))));
    let w = win(text, offset_limit(3, 500));
    assert!(w.holds_all_of(Some(offset_limit(3, 500))));
    // A range of more lines than one window returns is not all returned.
    let long = "x\n".repeat(2100);
    let w = win(&long, start_end(Some(1), Some(2100)));
    assert!(!w.holds_all_of(Some(start_end(Some(1), Some(2100)))));
    // A cap that dropped lines leaves some out.
    let w = window_capped(text, offset_limit(0, 5), 4).unwrap();
    assert!(!w.holds_all_of(Some(offset_limit(0, 5))));
    // Past the end: nothing left to ask.
    let w = win(text, offset_limit(9, 5));
    assert!(w.holds_all_of(Some(offset_limit(9, 5))));
}
