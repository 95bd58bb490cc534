//! Tests of fitted windows: the character budget, both caps at once, line
//! numbers, forgejo-mcp's line-range rules, and properties that following the
//! hints rebuilds the file.

use super::*;
use proptest::prelude::*;

const MIB: usize = MAX_WINDOW_BYTES;

fn offset_limit(offset: u64, limit: u64) -> LineRequest {
    LineRequest::OffsetLimit { offset, limit }
}

fn budget(max_chars: u64) -> Fit {
    Fit {
        max_chars,
        line_numbers: false,
        column: 0,
    }
}

fn numbered(max_chars: u64) -> Fit {
    Fit {
        max_chars,
        line_numbers: true,
        column: 0,
    }
}

/// `fit_capped` for requests that cannot fail.
fn fit_at(text: &str, req: LineRequest, fit: Fit, max_bytes: usize) -> Fitted<'_> {
    match fit_capped(text, req, fit, max_bytes) {
        Ok(f) => f,
        Err(e) => panic!("{req:?} failed: {e}"),
    }
}

/// `fit_window` for requests that cannot fail.
fn fit(text: &str, req: LineRequest, fit: Fit) -> Fitted<'_> {
    fit_at(text, req, fit, MIB)
}

/// Asserts the content, `returned` and outcome of a fitted window.
#[track_caller]
fn assert_fitted(f: &Fitted<'_>, content: &str, returned: u64, shortened: Shortened) {
    assert_eq!(
        (f.content.as_ref(), f.window.returned, f.shortened),
        (content, returned, shortened),
        "{f:?}"
    );
    assert_eq!(f.window.cap, f.shortened.cap());
}

fn dropped(by: CapKind) -> Shortened {
    Shortened::DroppedLines { by }
}

/// Asserts that a fitted window is its single line cut by `by` to
/// `content`, which holds `returned` (bytes, characters) of the line's text.
#[track_caller]
fn assert_cut(
    f: &Fitted<'_>,
    content: &str,
    by: CapKind,
    line_bytes: usize,
    returned: (usize, usize),
    without: usize,
) {
    let want = Shortened::LineCut(LineCut {
        by,
        line_bytes,
        returned_bytes: returned.0,
        bytes_without_budget: without,
        // Checked by `a_cut_lines_characters_are_counted_for_the_budget_only`.
        line_chars: match f.shortened {
            Shortened::LineCut(c) => c.line_chars,
            _ => None,
        },
        chars: match f.shortened {
            Shortened::LineCut(c) => c.chars,
            _ => 0,
        },
    });
    assert_fitted(f, content, 1, want);
    assert_eq!(f.text_chars(), returned.1, "{f:?}");
}

use CapKind::{Bytes, Chars};

// ---- the budget ---------------------------------------------------------

#[test]
fn budget_drops_whole_lines() {
    let text = "ab\ncd\nef\n";
    let f = fit(text, offset_limit(0, 500), budget(7));
    assert_fitted(&f, "ab\ncd\n", 2, dropped(Chars));
    assert_eq!((f.window.next_offset(), f.window.remaining()), (2, 1));
    assert!(f.window.is_partial());
    // The next window goes on after the last returned line.
    let f = fit(text, offset_limit(2, 500), budget(7));
    assert_fitted(&f, "ef\n", 1, Shortened::None);
    // No budget: the whole file.
    assert_fitted(
        &fit(text, offset_limit(0, 500), budget(0)),
        text,
        3,
        Shortened::None,
    );
}

#[test]
fn line_exactly_at_the_budget() {
    // Alone, a line of exactly the budget is whole and not capped.
    let f = fit("abcd\n", offset_limit(0, 500), budget(5));
    assert_fitted(&f, "abcd\n", 1, Shortened::None);
    assert!(!f.window.is_partial());
    // With lines after it, they are dropped.
    let f = fit("abcd\nx\n", offset_limit(0, 500), budget(5));
    assert_fitted(&f, "abcd\n", 1, dropped(Chars));
    // ... unless the request does not cover them.
    let f = fit("abcd\nx\n", offset_limit(0, 1), budget(5));
    assert_fitted(&f, "abcd\n", 1, Shortened::None);
    // Lines summing to exactly the budget are all returned.
    let f = fit("ab\nc\nd\n", offset_limit(0, 500), budget(5));
    assert_fitted(&f, "ab\nc\n", 2, dropped(Chars));
    let f = fit("ab\nc\n", offset_limit(0, 500), budget(5));
    assert_fitted(&f, "ab\nc\n", 2, Shortened::None);
}

#[test]
fn budget_smaller_than_the_first_line() {
    let text = "abcdefghij\nnext\n";
    let f = fit(text, offset_limit(0, 500), budget(4));
    assert_cut(&f, "abcd", Chars, 11, (4, 4), 11);
    assert_eq!(f.window.returned_lines(), Some((1, 1)));
    assert_eq!((f.window.next_offset(), f.window.remaining()), (1, 1));
    let Shortened::LineCut(c) = f.shortened else {
        panic!("{f:?}")
    };
    assert!(c.whole_without_budget());
    // The same request without a budget returns the whole line.
    let f = fit(text, offset_limit(0, 1), budget(0));
    assert_fitted(&f, "abcdefghij\n", 1, Shortened::None);
    // A line one character over the budget (its `\n`) is cut too.
    let f = fit("abcd\n", offset_limit(0, 500), budget(4));
    assert_cut(&f, "abcd", Chars, 5, (4, 4), 5);
    // A budget of 1 returns one character.
    let f = fit("😀x\n", offset_limit(0, 500), budget(1));
    assert_cut(&f, "😀", Chars, 6, (4, 1), 6);
    // An over-long line after a short one is dropped, not cut.
    let f = fit("ab\nabcdefgh\n", offset_limit(0, 500), budget(4));
    assert_fitted(&f, "ab\n", 1, dropped(Chars));
}

#[test]
fn a_cut_lines_characters_are_counted_for_the_budget_only() {
    let line_chars = |f: &Fitted<'_>| match f.shortened {
        Shortened::LineCut(c) => c.line_chars,
        _ => panic!("{f:?}"),
    };
    // 11 bytes: "é" is 2 bytes and 1 character, ESC 1 byte charged 6, "\n" 1.
    let f = fit("\u{1b}éabcdefg\n", offset_limit(0, 500), budget(4));
    assert_eq!(line_chars(&f), Some(6 + 1 + 7 + 1));
    // Line numbers do not count: the line's own text is weighed.
    let f = fit("abcdefghij\n", offset_limit(0, 1), numbered(9));
    assert_eq!(line_chars(&f), Some(11));
    // The byte cap's cut is named in bytes and not counted.
    let f = fit_at("éééééé\n", offset_limit(0, 1), budget(4), 8);
    assert_eq!(line_chars(&f), None);
}

#[test]
fn multibyte_character_at_the_budgets_edge() {
    for ch in ['é', '€', '😀'] {
        let width = ch.len_utf8();
        // The budget ends just before, exactly after, and just after `ch`.
        let line = format!("abc{ch}def\n");
        let cases = [
            (3, "abc".to_string()),
            (4, format!("abc{ch}")),
            (5, format!("abc{ch}d")),
        ];
        for (max_chars, want) in cases {
            let f = fit(&line, offset_limit(0, 5), budget(max_chars));
            let bytes = want.len();
            let chars = max_chars as usize;
            assert_cut(&f, &want, Chars, 7 + width, (bytes, chars), 7 + width);
        }
        // A line of exactly the budget ending in `ch`, then another line.
        let text = format!("ab{ch}\nnext\n");
        let f = fit(&text, offset_limit(0, 5), budget(4));
        assert_fitted(&f, &text[..2 + width + 1], 1, dropped(Chars));
        // A line of only wide characters: the budget counts characters.
        let text = ch.to_string().repeat(10);
        let f = fit(&text, offset_limit(0, 1), budget(3));
        assert_cut(
            &f,
            &text[..3 * width],
            Chars,
            10 * width,
            (3 * width, 3),
            10 * width,
        );
    }
}

#[test]
fn crlf_under_a_budget() {
    let text = "ab\r\ncd\r\n";
    // "ab\r\n" is 4 characters: exactly a budget of 4.
    let f = fit(text, offset_limit(0, 500), budget(4));
    assert_fitted(&f, "ab\r\n", 1, dropped(Chars));
    assert_fitted(
        &fit(text, offset_limit(0, 500), budget(8)),
        text,
        2,
        Shortened::None,
    );
    // A cut can fall between `\r` and `\n`: the `\r` is content.
    let f = fit(text, offset_limit(0, 500), budget(3));
    assert_cut(&f, "ab\r", Chars, 4, (3, 3), 4);
    assert_eq!(f.window.next_offset(), 1);
}

// ---- both caps -------------------------------------------------------------

#[test]
fn budget_and_byte_cap_both_binding() {
    // Each "éé\n" is 5 bytes and 3 characters.
    let text = "éé\néé\néé\n";
    // The byte cap (12) and the budget (6) both allow 2 lines: a tie names
    // bytes.
    let f = fit_at(text, offset_limit(0, 500), budget(6), 12);
    assert_fitted(&f, "éé\néé\n", 2, dropped(Bytes));
    // The budget is tighter: 1 line.
    let f = fit_at(text, offset_limit(0, 500), budget(5), 12);
    assert_fitted(&f, "éé\n", 1, dropped(Chars));
    // The byte cap is tighter: 1 line.
    let f = fit_at(text, offset_limit(0, 500), budget(8), 9);
    assert_fitted(&f, "éé\n", 1, dropped(Bytes));
    // A single line over both: the shorter cut wins, a tie names bytes.
    let line = "éééééé\n"; // 13 bytes, 7 characters
    let f = fit_at(line, offset_limit(0, 1), budget(3), 8);
    assert_cut(&f, "ééé", Chars, 13, (6, 3), 8);
    let f = fit_at(line, offset_limit(0, 1), budget(4), 8);
    assert_cut(&f, "éééé", Bytes, 13, (8, 4), 8);
    let f = fit_at(line, offset_limit(0, 1), budget(5), 9);
    assert_cut(&f, "éééé", Bytes, 13, (8, 4), 8);
}

#[test]
fn budget_and_one_mib_both_binding() {
    // A 2 MiB line of 2-byte characters: the byte cap keeps 524,288 of them.
    let text = format!("{}\nnext\n", "é".repeat(MIB));
    let line_bytes = 2 * MIB + 1;
    let f = fit(&text, offset_limit(0, 500), budget(400_000));
    assert_cut(
        &f,
        &text[..800_000],
        Chars,
        line_bytes,
        (800_000, 400_000),
        MIB,
    );
    let Shortened::LineCut(c) = f.shortened else {
        panic!("not cut")
    };
    assert!(!c.whole_without_budget());
    let f = fit(&text, offset_limit(0, 500), budget(MIB as u64 / 2));
    assert_cut(&f, &text[..MIB], Bytes, line_bytes, (MIB, MIB / 2), MIB);
    let f = fit(&text, offset_limit(0, 500), budget(600_000));
    assert_cut(&f, &text[..MIB], Bytes, line_bytes, (MIB, MIB / 2), MIB);
    // A budget of the byte cap or more never binds on text without control
    // characters, nor one of 6 times the byte cap on any.
    let free = fit(&text, offset_limit(0, 500), budget(0));
    for max_chars in [MIB as u64, 6 * MIB as u64, u64::MAX] {
        let f = fit(&text, offset_limit(0, 500), budget(max_chars));
        assert_eq!((f.window, f.shortened), (free.window, free.shortened));
        assert_eq!(f.window, window(&text, offset_limit(0, 500)).unwrap());
    }
}

#[test]
fn control_characters_cost_six() {
    // ESC (an ANSI colour code) is sent as `\u001b`: charged 6; `\t` 1.
    let text = "\x1b[1mA\x1b[0m\n\tb\n";
    // Line 1: 10 characters, two of them ESC: charged 20.
    let f = fit(text, offset_limit(0, 500), budget(20));
    assert_fitted(&f, "\x1b[1mA\x1b[0m\n", 1, dropped(Chars));
    assert_eq!((f.charged_chars(), f.content.chars().count()), (20, 10));
    let f = fit(text, offset_limit(0, 500), budget(23));
    assert_fitted(&f, text, 2, Shortened::None);
    // A cut never splits the charge of an escape: 8 keeps `\x1b[1`, 10 to
    // 15 keep up to the `A`, 16 the second ESC.
    let f = fit(text, offset_limit(0, 1), budget(8));
    assert_cut(&f, "\x1b[1", Chars, 10, (3, 3), 10);
    for max_chars in 10..=15 {
        let f = fit(text, offset_limit(0, 1), budget(max_chars));
        assert_cut(&f, "\x1b[1mA", Chars, 10, (5, 5), 10);
    }
    let f = fit(text, offset_limit(0, 1), budget(16));
    assert_cut(&f, "\x1b[1mA\x1b", Chars, 10, (6, 6), 10);
    // A budget below the first character's charge still returns it.
    let f = fit(text, offset_limit(0, 1), budget(3));
    assert_cut(&f, "\x1b", Chars, 10, (1, 1), 10);
    assert_eq!(f.charged_chars(), 6);
    // The other short escapes and NUL.
    let f = fit("\x08\x0c\r\0x\n", offset_limit(0, 1), budget(9));
    assert_cut(&f, "\x08\x0c\r\0", Chars, 6, (4, 4), 6);
    // With numbers, the prefix is charged its length (its tab 1).
    let f = fit("\x1bx\n", offset_limit(0, 1), numbered(13));
    assert_cut(&f, "     1\t\x1b", Chars, 3, (1, 1), 3);
}

#[test]
fn control_characters_make_a_budget_past_the_byte_cap_bind() {
    // 2 MiB of ESC: the byte cap keeps 1 MiB of it, charged 6 MiB; a budget
    // of 2 MiB keeps a third of that.
    let text = format!("{}\n", "\x1b".repeat(2 * MIB));
    let f = fit(&text, offset_limit(0, 1), budget(2 * MIB as u64));
    let kept = 2 * MIB / 6;
    assert_cut(&f, &text[..kept], Chars, 2 * MIB + 1, (kept, kept), MIB);
    let f = fit(&text, offset_limit(0, 1), budget(6 * MIB as u64));
    assert_cut(&f, &text[..MIB], Bytes, 2 * MIB + 1, (MIB, MIB), MIB);
}

#[test]
fn default_budget_on_one_kib_lines() {
    // The default window of 1 KiB lines: 500 lines are 512,000 characters.
    let text = format!("{}\n", "x".repeat(1023)).repeat(600);
    let f = fit(
        &text,
        offset_limit(0, 500),
        budget(crate::limits::DEFAULT_MAX_CHARS),
    );
    assert_eq!(f.window.returned, 97);
    assert_eq!(f.content.len(), 97 * 1024);
    assert_eq!(f.shortened, dropped(Chars));
    assert_eq!(f.window.next_offset(), 97);
}

// ---- line numbers ------------------------------------------------------------

#[test]
fn numbers_prefix_each_line() {
    let text = "a\nb\r\n\n\tc";
    let f = fit(text, offset_limit(0, 500), numbered(0));
    assert_fitted(
        &f,
        "     1\ta\n     2\tb\r\n     3\t\n     4\t\tc",
        4,
        Shortened::None,
    );
    assert_eq!(f.window.content, text);
    assert!(matches!(f.content, Cow::Owned(_)));
    // Without numbers the content is borrowed, byte for byte.
    let f = fit(text, offset_limit(1, 2), budget(0));
    assert!(matches!(f.content, Cow::Borrowed("b\r\n\n")));
    // The first number is the window's first line.
    let f = fit(text, offset_limit(2, 500), numbered(0));
    assert_fitted(&f, "     3\t\n     4\t\tc", 2, Shortened::None);
}

#[test]
fn line_number_widths() {
    let text = "x\n".repeat(12);
    let f = fit(&text, offset_limit(8, 2), numbered(0));
    assert_fitted(&f, "     9\tx\n    10\tx\n", 2, Shortened::None);
    let text = "x\n".repeat(100_001);
    let f = fit(&text, offset_limit(99_998, 500), numbered(0));
    assert_fitted(&f, " 99999\tx\n100000\tx\n100001\tx\n", 3, Shortened::None);
    // From line 1,000,000 the field widens to 7.
    let text = "x\n".repeat(1_000_001);
    let f = fit(&text, offset_limit(999_998, 500), numbered(0));
    assert_fitted(
        &f,
        "999999\tx\n1000000\tx\n1000001\tx\n",
        3,
        Shortened::None,
    );
    // ... and the budget pays for the wider prefix: 9 + 10 + 10.
    let f = fit(&text, offset_limit(999_998, 500), numbered(28));
    assert_fitted(&f, "999999\tx\n1000000\tx\n", 2, dropped(Chars));
}

#[test]
fn budget_counts_the_prefixes() {
    // Each numbered "a\n" is 9 characters.
    let text = "a\nb\nc\n";
    let f = fit(text, offset_limit(0, 500), numbered(18));
    assert_fitted(&f, "     1\ta\n     2\tb\n", 2, dropped(Chars));
    let f = fit(text, offset_limit(0, 500), numbered(17));
    assert_fitted(&f, "     1\ta\n", 1, dropped(Chars));
    // The byte cap counts them too.
    let f = fit_at(text, offset_limit(0, 500), numbered(0), 26);
    assert_fitted(&f, "     1\ta\n     2\tb\n", 2, dropped(Bytes));
}

#[test]
fn cut_line_with_numbers() {
    // The prefix is kept whole; the line's text is cut to what it leaves.
    let text = "abcdefghij\nnext\n";
    let f = fit(text, offset_limit(0, 500), numbered(10));
    assert_cut(&f, "     1\tabc", Chars, 11, (3, 3), 11);
    assert_eq!(f.window.content, "abc");
    assert_eq!((f.content.chars().count(), f.text_chars()), (10, 3));
    // Under the byte cap, the prefix's bytes count.
    let f = fit_at(text, offset_limit(0, 500), numbered(0), 29);
    assert_fitted(&f, "     1\tabcdefghij\n", 1, dropped(Bytes));
    let long = "abcdefghijklmnopqrstuvwxyz\n";
    let f = fit_at(long, offset_limit(0, 500), numbered(0), 25);
    assert_cut(&f, "     1\tabcdefghijklmnopqr", Bytes, 27, (18, 18), 18);
    // A budget the prefix fills still returns one character of the line.
    let f = fit(text, offset_limit(0, 500), numbered(3));
    assert_cut(&f, "     1\ta", Chars, 11, (1, 1), 11);
    // A one-character line is then whole, and the lines after it dropped.
    let f = fit("\nx\n", offset_limit(0, 500), numbered(3));
    assert_fitted(&f, "     1\t\n", 1, dropped(Chars));
    // ... by the byte cap when it alone would drop them too.
    let text = format!("\n{}\n", "x".repeat(20));
    let f = fit_at(&text, offset_limit(0, 500), numbered(3), 25);
    assert_fitted(&f, "     1\t\n", 1, dropped(Bytes));
}

#[test]
fn numbered_windows_at_the_end() {
    // An unterminated last line, and a cut one, keep no `\n` of their own.
    let f = fit("a\nlast", offset_limit(1, 500), numbered(0));
    assert_fitted(&f, "     2\tlast", 1, Shortened::None);
    let f = fit("a\nlastline", offset_limit(1, 500), numbered(10));
    assert_cut(&f, "     2\tlas", Chars, 8, (3, 3), 8);
}

// ---- empty windows ----------------------------------------------------------

#[test]
fn empty_file_and_offset_past_end() {
    for f in [budget(0), budget(1), numbered(0), numbered(5)] {
        let w = fit("", offset_limit(0, 500), f);
        assert_fitted(&w, "", 0, Shortened::None);
        assert_eq!((w.window.total_lines, w.window.remaining()), (0, 0));
        assert!(!w.window.is_partial());
        let w = fit(
            "",
            LineRequest::StartEnd {
                start: None,
                end: None,
            },
            f,
        );
        assert_fitted(&w, "", 0, Shortened::None);
        for offset in [3, 4, u64::MAX] {
            let w = fit("a\nb\nc\n", offset_limit(offset, 500), f);
            assert_fitted(&w, "", 0, Shortened::None);
            assert_eq!((w.window.total_lines, w.window.offset), (3, offset));
            assert_eq!(w.window.returned_lines(), None);
        }
        assert_eq!(w.fit, f);
    }
}

// ---- forgejo-mcp's line-range rules -------------------------------------------

/// The window `start_line`/`end_line` give, as the tool will ask for it: no
/// line range falls back to the default window.
fn seed_window(
    text: &str,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Window<'_>, WindowError> {
    let req = LineRequest::from_line_args(start, end).unwrap_or(offset_limit(0, DEFAULT_LIMIT));
    window(text, req)
}

#[test]
fn forgejo_scenarios() {
    let text: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let lines = |w: Result<Window<'_>, WindowError>| w.map(|w| w.returned_lines());
    // In range; start omitted; end omitted; end beyond the file.
    assert_eq!(
        lines(seed_window(&text, Some(2), Some(4))),
        Ok(Some((2, 4)))
    );
    assert_eq!(lines(seed_window(&text, None, Some(3))), Ok(Some((1, 3))));
    assert_eq!(lines(seed_window(&text, Some(8), None)), Ok(Some((8, 10))));
    assert_eq!(
        lines(seed_window(&text, Some(8), Some(99))),
        Ok(Some((8, 10)))
    );
    // Start below 1 clamps to 1.
    assert_eq!(
        lines(seed_window(&text, Some(-5), Some(3))),
        Ok(Some((1, 3)))
    );
    assert_eq!(
        lines(seed_window(&text, Some(0), Some(3))),
        Ok(Some((1, 3)))
    );
    // End 0 alone is to the end.
    assert_eq!(
        lines(seed_window(&text, Some(4), Some(0))),
        Ok(Some((4, 10)))
    );
    assert_eq!(lines(seed_window(&text, None, Some(0))), Ok(Some((1, 10))));
    // Both zero: no line range, the default window.
    let w = seed_window(&text, Some(0), Some(0)).unwrap();
    assert_eq!((w.offset, w.limit, w.returned), (0, DEFAULT_LIMIT, 10));
    // Inverted after clamping: an error naming both numbers as sent.
    let e = seed_window(&text, Some(7), Some(3)).unwrap_err();
    assert_eq!(e.to_string(), "start line 7 is after end line 3");
    // A start past the end is past the end (no line), before it is inverted.
    let w = seed_window(&text, Some(40), Some(3)).unwrap();
    assert_eq!((w.offset, w.returned), (39, 0));
    // At most MAX_LIMIT lines.
    let long = "x\n".repeat(3000);
    let w = seed_window(&long, Some(-1), Some(0)).unwrap();
    assert_eq!(w.returned_lines(), Some((1, MAX_LIMIT)));
}

// ---- properties -------------------------------------------------------------

/// Small texts of `\n`, `\r`, `\t`, ESC (charged 6), ASCII and 2-, 3- and
/// 4-byte characters.
fn text_strategy() -> impl Strategy<Value = String> {
    "[ab\\n\\r\\t\\x1bé€😀]{0,48}"
}

/// What the budget charges for `ch`, the reference way: the width of its
/// JSON escape for a control character that has no short one, else 1.
fn charge_of(ch: char) -> usize {
    let json = serde_json::Value::from(ch.to_string()).to_string();
    match json.chars().count() - 2 {
        6 => 6,
        _ => 1,
    }
}

fn charge_of_str(s: &str) -> usize {
    s.chars().map(charge_of).sum()
}

/// The reference for `fit_capped`, over a `Vec` of lines: returns
/// (text returned, lines returned, shortened without sizes, total lines).
fn naive_fit(
    text: &str,
    offset: u64,
    limit: u64,
    fit: Fit,
    max_bytes: usize,
) -> (String, u64, Cap, u64) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len() as u64;
    let first = offset.min(total) as usize;
    let covered: Vec<&str> = lines
        .iter()
        .skip(first)
        .take(limit as usize)
        .copied()
        .collect();
    let prefix = |i: usize| {
        if fit.line_numbers {
            format!("{:>6}\t", first + i + 1).len()
        } else {
            0
        }
    };
    let max_chars = usize::try_from(fit.max_chars).unwrap_or(usize::MAX);
    let budget = fit.max_chars > 0;
    let (mut bytes, mut chars, mut taken) = (0, 0, 0);
    for (i, line) in covered.iter().enumerate() {
        let (b, c) = (prefix(i) + line.len(), prefix(i) + charge_of_str(line));
        if taken > 0 && (bytes + b > max_bytes || (budget && chars + c > max_chars)) {
            break;
        }
        (bytes, chars, taken) = (bytes + b, chars + c, taken + 1);
        if bytes >= max_bytes || (budget && chars >= max_chars) {
            break;
        }
    }
    if taken == 1 && (bytes > max_bytes || (budget && chars > max_chars)) {
        let line = covered[0];
        let byte_room = max_bytes - prefix(0);
        let char_room = if budget {
            max_chars.saturating_sub(prefix(0))
        } else {
            usize::MAX
        };
        let mut charged = 0;
        let keep: String = line
            .char_indices()
            .take_while(|&(i, ch)| i + ch.len_utf8() <= byte_room)
            .take_while(|&(_, ch)| {
                charged += charge_of(ch);
                charged <= char_room
            })
            .map(|(_, ch)| ch)
            .collect();
        let keep = if keep.is_empty() {
            line.chars().take(1).collect()
        } else {
            keep
        };
        if keep.len() < line.len() {
            return (keep, 1, Cap::LineCut, total);
        }
    }
    let cap = if taken < covered.len() {
        Cap::DroppedLines
    } else {
        Cap::None
    };
    (covered[..taken].concat(), taken as u64, cap, total)
}

/// Strips the prefix (up to and including the first tab) of every line of a
/// numbered content, checking the numbers run from `first`.
fn strip_numbers(content: &str, first: u64) -> Result<String, TestCaseError> {
    let mut out = String::new();
    for (i, line) in content.split_inclusive('\n').enumerate() {
        let Some((number, rest)) = line.split_once('\t') else {
            return Err(TestCaseError::fail(format!("no tab in {line:?}")));
        };
        prop_assert_eq!(number, format!("{:>6}", first + i as u64));
        out.push_str(rest);
    }
    Ok(out)
}

/// Follows the hints from offset 0 with `fit` and `limit`, rebuilding the
/// text: a window whose line was cut by the budget is asked again with
/// `max_chars: 0`, as its hint says; numbered windows are stripped.
fn follow_hints(text: &str, fit: Fit, limit: u64) -> Result<String, TestCaseError> {
    let total = text.split_inclusive('\n').count() as u64;
    let mut rebuilt = String::new();
    let mut offset = 0;
    while offset < total {
        let mut w = super::fit_window(text, offset_limit(offset, limit), fit)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(w.window.returned > 0);
        prop_assert_eq!(w.window.offset, offset);
        if let Shortened::LineCut(c) = w.shortened {
            prop_assert_eq!(c.by, CapKind::Chars);
            prop_assert!(c.whole_without_budget());
            let again = Fit {
                max_chars: 0,
                ..fit
            };
            w = super::fit_window(text, offset_limit(offset, 1), again)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(w.shortened, Shortened::None);
        }
        let content = if fit.line_numbers {
            strip_numbers(&w.content, offset + 1)?
        } else {
            w.content.to_string()
        };
        prop_assert_eq!(content.as_str(), w.window.content);
        rebuilt.push_str(&content);
        offset = w.window.next_offset();
    }
    prop_assert_eq!(offset, total);
    Ok(rebuilt)
}

proptest! {
    #[test]
    fn following_the_hints_rebuilds_the_file(
        text in text_strategy(),
        max_chars in 1u64..=30,
        limit in 1u64..=20,
    ) {
        prop_assert_eq!(follow_hints(&text, budget(max_chars), limit)?, text);
    }

    #[test]
    fn stripping_line_numbers_rebuilds_the_file(
        text in text_strategy(),
        max_chars in prop_oneof![Just(0u64), 1u64..=60],
        limit in 1u64..=20,
    ) {
        prop_assert_eq!(follow_hints(&text, numbered(max_chars), limit)?, text);
    }

    #[test]
    fn fitted_windows_match_the_reference(
        text in text_strategy(),
        offset in 0u64..24,
        limit in 0u64..=20,
        max_chars in prop_oneof![Just(0u64), 1u64..=40],
        line_numbers: bool,
        max_bytes in 25usize..=60,
    ) {
        let fit = Fit { max_chars, line_numbers, column: 0 };
        let f = fit_capped(&text, offset_limit(offset, limit), fit, max_bytes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (content, returned, cap, total) = naive_fit(&text, offset, limit, fit, max_bytes);
        prop_assert_eq!(f.window.content, content.as_str());
        prop_assert_eq!((f.window.returned, f.window.cap, f.window.total_lines), (returned, cap, total));
        prop_assert_eq!(f.shortened.cap(), cap);
        if line_numbers {
            let stripped = strip_numbers(&f.content, offset + 1)?;
            prop_assert_eq!(stripped.as_str(), f.window.content);
        } else {
            prop_assert_eq!(f.content.as_ref(), f.window.content);
        }
    }

    #[test]
    fn the_named_cap_is_the_one_that_matters(
        text in text_strategy(),
        offset in 0u64..24,
        limit in 1u64..=20,
        max_chars in 1u64..=40,
        line_numbers: bool,
        max_bytes in 25usize..=60,
    ) {
        // `Chars` means the same request without a budget returns more;
        // `Bytes` means it returns the same.
        let fit = Fit { max_chars, line_numbers, column: 0 };
        let req = offset_limit(offset, limit);
        let f = fit_capped(&text, req, fit, max_bytes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let free = fit_capped(&text, req, Fit { max_chars: 0, line_numbers, column: 0 }, max_bytes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let by = match f.shortened {
            Shortened::None => None,
            Shortened::DroppedLines { by } => Some(by),
            Shortened::LineCut(c) => {
                prop_assert_eq!(c.returned_bytes, f.window.content.len());
                prop_assert_eq!(f.text_chars(), f.window.content.chars().count());
                let free_line = free.window.content.split_inclusive('\n').next();
                prop_assert_eq!(c.bytes_without_budget, free_line.map_or(0, str::len));
                Some(c.by)
            }
        };
        match by {
            Some(CapKind::Chars) => prop_assert!(free.window.content.len() > f.window.content.len()),
            Some(CapKind::Bytes) | None => {
                prop_assert_eq!(&free, &Fitted { fit: free.fit, ..f.clone() });
            }
        }
        // The caps hold, but for the first line's prefix and one character.
        let first_prefix = if line_numbers { format!("{:>6}\t", offset + 1).len() } else { 0 };
        let first_char = f.window.content.chars().next().map_or(0, charge_of);
        let floor = if f.window.returned > 0 { first_prefix + first_char } else { 0 };
        prop_assert!(f.content.len() <= max_bytes);
        prop_assert_eq!(f.charged_chars(), charge_of_str(&f.content));
        prop_assert!(f.charged_chars() <= (max_chars as usize).max(floor));
    }

    #[test]
    fn line_args_clamp_or_name_both_numbers(
        text in text_strategy(),
        start in proptest::option::of(-3i64..24),
        end in proptest::option::of(-3i64..24),
    ) {
        let total = text.split_inclusive('\n').count() as u64;
        let Some(req) = LineRequest::from_line_args(start, end) else {
            prop_assert!(matches!((start, end), (None, None) | (Some(0), Some(0))));
            return Ok(());
        };
        let first = start.filter(|&s| s >= 1).map_or(1, |s| s as u64);
        let last = end.filter(|&e| e >= 1).map_or(total, |e| e as u64);
        match window(&text, req) {
            Ok(w) if first > total => prop_assert_eq!(w.returned, 0),
            Ok(w) if total > 0 => {
                let (first, last) = (first.min(total), last.min(total));
                prop_assert_eq!(w.returned_lines(), Some((first, last)));
            }
            Ok(w) => prop_assert_eq!(w.returned, 0),
            Err(WindowError::InvertedRange { requested_start, requested_end, .. }) => {
                prop_assert!(first <= total && first > last.min(total));
                prop_assert_eq!((Some(requested_start as i64), Some(requested_end as i64)), (start, end));
            }
            Err(e @ WindowError::ColumnPastEnd { .. }) => prop_assert!(false, "no column: {e}"),
        }
    }
}

/// Texts of a few 16 KiB blocks: many short lines, some long ones, with or without a last `\n`.
fn long_text_strategy() -> impl Strategy<Value = String> {
    let line = prop_oneof![0usize..3, 0usize..120, 9_000usize..30_000];
    (prop::collection::vec(line, 0..60), any::<bool>()).prop_map(|(lengths, last)| {
        let mut text: String = lengths
            .iter()
            .enumerate()
            .map(|(i, len)| format!("{}\n", "é-x".repeat(len / 4 + i % 3)))
            .collect();
        if !last {
            text.pop();
        }
        text
    })
}

proptest! {
    #[test]
    fn a_window_with_the_line_index_is_the_window_without(
        text in long_text_strategy(),
        offset in 0u64..80,
        limit in 1u64..=30,
        start in prop::option::of(0i64..80),
        end in prop::option::of(0i64..80),
        max_chars in prop_oneof![Just(0u64), 1u64..=5_000],
        line_numbers: bool,
    ) {
        let index = LineIndex::of(text.as_bytes());
        let fit = Fit { max_chars, line_numbers, column: 0 };
        let by_offset = offset_limit(offset, limit);
        let by_lines = LineRequest::from_line_args(start, end).unwrap_or(by_offset);
        for req in [by_offset, by_lines] {
            let plain = fit_capped(&text, req, fit, MIB).map(|f| format!("{f:?}"));
            let indexed = fit_indexed(&text, Some(&index), req, fit, MIB).map(|f| format!("{f:?}"));
            prop_assert_eq!(indexed, plain);
        }
    }
}
