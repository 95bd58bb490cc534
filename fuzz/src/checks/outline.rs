//! The `outline` target: arbitrary bytes (as UTF-8, invalid sequences replaced) are outlined
//! in every supported language. Checked: the parser never fails; every definition's lines lie
//! in the file (`1 <= start <= end <= lines`); definitions come in file order; and they nest:
//! a definition at depth `d > 0` lies inside the last definition before it at depth `d - 1`,
//! and depth grows by at most one from one definition to the next; and the walk's pruning
//! (`src/outline/reach.rs`) finds exactly what a walk of every node finds.
//!
//! And the same of the text nested and named long (issue 35): the input's first byte `k` wraps
//! the rest in `4k` nested functions around one named by `40k` characters. Checked besides:
//! no definition is listed deeper than `MAX_OUTLINE_DEPTH`, every name is one line (no control
//! character, U+2028 or U+2029), and no part of a name passes `MAX_OUTLINE_NAME_CHARS`
//! characters of source (10 printed for an escaped one) before its `…[+N bytes]` marker.
//!
//! And the same of the text after a run of comments above definitions named with JSON text
//! (issue 46): the input's second byte `m` puts `64m` comment lines (of the style `m % 4`
//! picks: `//`, `///`, `#` or `/** */`) above a class and a function, the class holding
//! methods named `'}{"column": 3}'` and `"{\"start_line\": 1}"` (a walk back over such a
//! run was quadratic: 17 s for 50,000 lines; the fuzzer's time limit catches a return).

use gitlab_file_mcp::fuzzing::{MAX_OUTLINE_DEPTH, MAX_OUTLINE_NAME_CHARS};

pub fn check(data: &[u8]) {
    check_text(&String::from_utf8_lossy(data));
    if let Some((&k, rest)) = data.split_first() {
        let (depth, long) = (4 * usize::from(k), 40 * usize::from(k));
        let amplified = format!(
            "{}function {}(){{\n{}\n}}\n{}",
            "function a(){\n".repeat(depth),
            "n".repeat(long.max(1)),
            String::from_utf8_lossy(rest),
            "}\n".repeat(depth)
        );
        check_text(&amplified);
    }
    if let Some(&m) = data.get(1) {
        check_text(&commented(m, &String::from_utf8_lossy(&data[2..])));
    }
}

/// `rest` after `64m` comment lines of the style `m % 4` picks above definitions whose names
/// hold JSON text.
fn commented(m: u8, rest: &str) -> String {
    let style = ["// doc", "/// doc", "# doc", "/** doc */"][usize::from(m % 4)];
    format!(
        "{}class C {{\n  '}}{{\"column\": 3}}'() {{}}\n  \"{{\\\"start_line\\\": 1}}\"() {{}}\n}}\n{}func F() {{}}\n{rest}",
        format!("{style}\n").repeat(64 * usize::from(m)),
        format!("{style}\n").repeat(usize::from(m)),
    )
}

fn check_text(text: &str) {
    let ranges = gitlab_file_mcp::fuzzing::outline_ranges(text)
        .unwrap_or_else(|e| panic!("the outline failed: {e}"));
    assert!(
        ranges.pruning_differs_in.is_empty(),
        "the pruned walk differs in {:?}",
        ranges.pruning_differs_in
    );
    for names in &ranges.names {
        for name in names {
            let breaks = |c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}';
            assert!(!name.contains(breaks), "a name breaks its line: {name:?}");
            for part in name.split('.') {
                let shown = part.split("…[+").next().unwrap_or_default();
                assert!(
                    shown.chars().count() <= 10 * MAX_OUTLINE_NAME_CHARS,
                    "a name part of {} characters",
                    shown.chars().count()
                );
            }
        }
    }
    let last_line = ranges.lines.max(1);
    for (language, definitions) in ranges.per_language.iter().enumerate() {
        let mut open: Vec<(u64, u64)> = Vec::new();
        let mut previous_start = 0;
        for &(start, end, depth) in definitions {
            assert!(
                1 <= start && start <= end && end <= last_line,
                "language {language}: {start}-{end} in {last_line} lines"
            );
            assert!(
                start >= previous_start,
                "language {language}: {start} after {previous_start}"
            );
            previous_start = start;
            assert!(
                depth < MAX_OUTLINE_DEPTH,
                "language {language}: depth {depth}"
            );
            assert!(
                depth <= open.len(),
                "language {language}: depth {depth} after {}",
                open.len()
            );
            open.truncate(depth);
            if let Some(&(outer_start, outer_end)) = open.last() {
                assert!(
                    outer_start <= start && end <= outer_end,
                    "language {language}: {start}-{end} outside {outer_start}-{outer_end}"
                );
            }
            open.push((start, end));
        }
    }
}
