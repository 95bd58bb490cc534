//! What a search answers: the tool's output with `metadata.matches`, and its hints — the exact
//! arguments of the next page of matches, what the caps did, what was searched when nothing
//! matched.

use super::limit::ONE_MESSAGE;
use super::next::Continuation;
use super::notes::{READ_LIMIT_NOTE, nothing_covered, read_notes};
use super::output::{
    FileOutput, LineRange, Matches, Metadata, ReadFacts, WindowMetadata, metadata_of,
};
use crate::base::quote::in_hint;
use crate::resolve::SearchArgs;
use crate::resolve::args::ArgName;
use crate::window::search::{PageCap, PageShortened, SearchPage};
use crate::window::{CapKind, LineCut, LineRequest, MAX_LIMIT, MAX_WINDOW_BYTES};

/// Builds the output of a search under the character budget `budget` (the caller's or the
/// server's); `content` borrows the page's.
pub(crate) fn search_output<'a>(
    facts: ReadFacts<'a>,
    args: &SearchArgs,
    found: &'a SearchPage,
    budget: u64,
) -> FileOutput<'a> {
    let window = WindowMetadata {
        total_lines: found.total_lines,
        returned_lines: found
            .returned_lines
            .map(|(start, end)| LineRange { start, end }),
        truncated: found.is_partial() || facts.cut_by_read_limit,
        columns: None,
    };
    FileOutput {
        path: facts.path,
        git_ref: facts.git_ref,
        metadata: Metadata {
            matches: Some(Matches {
                total: found.total_matches,
                returned: found.shown.len() as u64,
                lines: &found.shown,
            }),
            ..metadata_of(&facts, Some(window), false)
        },
        system_instruction: search_instruction(&facts, args, found, budget),
        content: Some(&found.content),
    }
}

/// The hint sentences, joined by a space; `None` when every match is shown and nothing else
/// needs saying.
fn search_instruction(
    facts: &ReadFacts<'_>,
    args: &SearchArgs,
    found: &SearchPage,
    budget: u64,
) -> Option<String> {
    let mut notes = read_notes(facts);
    notes.extend(outcome_note(facts, args, found));
    notes.extend(shortened_note(found, budget, facts.fitted_to_message));
    if facts.cut_by_read_limit {
        notes.push(READ_LIMIT_NOTE.to_string());
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// Said of a pattern that can match only across lines.
const ONLY_ACROSS_LINES_NOTE: &str = " A pattern matches within one line, and this one can only match across lines (a line break in it, such as \\n, matches nothing): search for a part that lies within one line, e.g. the text before or after the line break.";

/// What was searched when nothing matched, or the next page when matches were left out.
fn outcome_note(facts: &ReadFacts<'_>, args: &SearchArgs, found: &SearchPage) -> Option<String> {
    let total = found.total_lines;
    let Some((first, last)) = found.searched else {
        return Some(nothing_covered(
            args.lines,
            total,
            "line to search",
            "searched",
        ));
    };
    if found.total_matches == 0 {
        return Some(format!(
            "No line matches the pattern {} ({}) in lines {first}-{last} of {total}.{}",
            in_hint(&json(&args.pattern)),
            if args.ignore_case == Some(true) {
                "ignoring case"
            } else {
                "case-sensitive"
            },
            if found.only_across_lines {
                ONLY_ACROSS_LINES_NOTE
            } else {
                ""
            }
        ));
    }
    let next = found.next_start?;
    let call = Continuation::default()
        .with(ArgName::Pattern, args.pattern.as_str())
        .with_some(ArgName::IgnoreCase, args.ignore_case)
        .with_some(ArgName::ContextLines, args.context_lines)
        .lines(args.lines, next, ends_by_caller(args.lines).then_some(last))
        .with_some(ArgName::MaxChars, facts.max_chars_arg);
    Some(format!(
        "Matches truncated: {} of {} matching lines shown (lines {first}-{last} searched). To see the next matches, call again with {call}.",
        found.shown.len(),
        found.total_matches
    ))
}

/// Whether the caller's lines end where the caller said (an `end_line`, an `offset`/`limit`,
/// a URL's anchor) rather than at the file's end: the next page keeps that end.
pub(super) fn ends_by_caller(lines: Option<LineRequest>) -> bool {
    match lines {
        None | Some(LineRequest::StartEnd { end: None, .. }) => false,
        Some(LineRequest::StartEnd { end: Some(_), .. } | LineRequest::OffsetLimit { .. }) => true,
    }
}

/// What the caps did to the page, and how to read a cut line.
fn shortened_note(found: &SearchPage, budget: u64, message: bool) -> Option<String> {
    match found.shortened {
        PageShortened::None => None,
        PageShortened::DroppedGroups { by } => Some(format!(
            "The page was shortened to stay within {}; the next page starts after the last group shown.",
            cap_words(by, budget, message)
        )),
        PageShortened::GroupCut { by } => Some(format!(
            "The first group of lines did not fit within {} and is shown from its first match, as many lines as fit.",
            cap_words(by, budget, message)
        )),
        PageShortened::LineCut { number, cut } => {
            Some(line_cut_note(found, (budget, message), number, &cut))
        }
    }
}

/// A cap as the hints name it, `budget` being the call's character budget, `message` whether
/// that budget is what fits in one message rather than the caller's.
fn cap_words(cap: PageCap, budget: u64, message: bool) -> String {
    match cap {
        PageCap::Lines => format!("the {MAX_LIMIT} lines a page holds"),
        PageCap::Bytes => format!("the {MAX_WINDOW_BYTES} byte response limit"),
        PageCap::Chars if message => ONE_MESSAGE.to_string(),
        PageCap::Chars => format!("the {budget} character budget (max_chars)"),
    }
}

/// The sentences for a page whose one line, a match, was cut: how much of it is shown, and the
/// window that reads the line on from the first match (or from where the page stopped, when
/// the match is in what is shown).
fn line_cut_note(
    found: &SearchPage,
    (budget, message): (u64, bool),
    number: u64,
    cut: &LineCut,
) -> String {
    // The page is the line's prefix, then the kept start of the line.
    let prefix_len = found.content.len().saturating_sub(cut.returned_bytes);
    let kept = found.content.get(prefix_len..).unwrap_or_default();
    let shown_chars = kept.chars().count() as u64;
    let cap = match cut.by {
        CapKind::Bytes => cap_words(PageCap::Bytes, budget, message),
        CapKind::Chars => cap_words(PageCap::Chars, budget, message),
    };
    let mut note = format!(
        "Line {number} ({} characters) is longer than {cap} and only its first {shown_chars} characters are shown.",
        cut.chars
    );
    let from = match found.match_column {
        Some(at) if at >= shown_chars => {
            note.push_str(&format!(" Its first match starts at column {at}."));
            at
        }
        _ => shown_chars,
    };
    // In words, not as a JSON object: merged into the search's arguments (the hints' rule for
    // their first object), a window would be refused beside `pattern` (issue 46).
    note.push_str(&format!(
        " To read the line from column {from}, call again with only the window arguments offset {}, limit 1 and column {from} (without pattern, context_lines, ignore_case, start_line or end_line).",
        number - 1
    ));
    note
}

/// `s` as a JSON string literal.
fn json(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::HintStyle;
    use crate::window::search::{Pattern, Search, search};

    fn facts(max_chars_arg: Option<u64>) -> ReadFacts<'static> {
        ReadFacts {
            path: "a.py",
            git_ref: "main",
            size_bytes: 0,
            cut_by_read_limit: false,
            hint_style: HintStyle::OffsetLimit,
            split_fallback_from: None,
            blob_id: None,
            commit_sha: None,
            web_url: None,
            changed_from: None,
            max_chars_arg,
            fitted_to_message: false,
            shared: None,
        }
    }

    fn args(pattern: &str, lines: Option<LineRequest>) -> SearchArgs {
        SearchArgs {
            pattern: pattern.to_string(),
            ignore_case: None,
            context_lines: None,
            lines,
        }
    }

    /// The output of searching `text` as `args` say, with `max_chars`.
    fn output(text: &str, args: &SearchArgs, max_chars: Option<u64>) -> serde_json::Value {
        let pattern = Pattern::new(&args.pattern, args.ignore_case == Some(true)).unwrap();
        let how = Search {
            pattern: &pattern,
            lines: args.lines,
            context_lines: args.context_lines.unwrap_or(2),
            max_chars: max_chars.unwrap_or(100_000),
        };
        let found = search(text, &how).unwrap();
        serde_json::to_value(search_output(facts(max_chars), args, &found, how.max_chars)).unwrap()
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn every_match_shown_needs_no_hint() {
        let out = output(&numbered(10), &args("^line 5$", None), None);
        assert_eq!(
            out["content"],
            "3-line 3\n4-line 4\n5:line 5\n6-line 6\n7-line 7\n"
        );
        assert_eq!(
            out["metadata"],
            serde_json::json!({"total_lines": 10, "returned_lines": {"start": 3, "end": 7}, "truncated": false, "size_bytes": 0, "matches": {"total": 1, "returned": 1, "lines": [5]}})
        );
        assert!(out.get("system_instruction").is_none());
    }

    #[test]
    fn no_match_says_what_was_searched() {
        let mut a = args("zz\"z", None);
        let out = output(&numbered(10), &a, None);
        assert_eq!(
            out["system_instruction"],
            "No line matches the pattern \"zz\\\"z\" (case-sensitive) in lines 1-10 of 10."
        );
        assert_eq!(
            (&out["content"], &out["metadata"]["returned_lines"]),
            (&serde_json::json!(""), &serde_json::Value::Null)
        );
        a.ignore_case = Some(true);
        a.lines = Some(LineRequest::StartEnd {
            start: Some(3),
            end: Some(4),
        });
        let out = output(&numbered(10), &a, None);
        assert_eq!(
            out["system_instruction"],
            "No line matches the pattern \"zz\\\"z\" (ignoring case) in lines 3-4 of 10."
        );
        let past = args(
            "x",
            Some(LineRequest::OffsetLimit {
                offset: 10,
                limit: 5,
            }),
        );
        assert_eq!(
            output(&numbered(10), &past, None)["system_instruction"],
            "Offset 10 is past the end of the file (10 lines): no line was searched. Call again with an offset below 10."
        );
        assert_eq!(
            output("", &args("x", None), None)["system_instruction"],
            "The file is empty: there is no line to search."
        );
    }

    #[test]
    fn the_next_page_repeats_the_search_as_sent() {
        let text = numbered(40);
        let mut a = args("^line [0-9]*0$", None);
        a.ignore_case = Some(false);
        a.context_lines = Some(1);
        let out = output(&text, &a, Some(40));
        assert_eq!(out["content"], "9-line 9\n10:line 10\n11-line 11\n");
        assert_eq!(
            out["metadata"]["matches"],
            serde_json::json!({"total": 4, "returned": 1, "lines": [10]})
        );
        assert_eq!(out["metadata"]["truncated"], true);
        assert_eq!(
            out["system_instruction"],
            "Matches truncated: 1 of 4 matching lines shown (lines 1-40 searched). To see the next matches, call again with {\"pattern\": \"^line [0-9]*0$\", \"ignore_case\": false, \"context_lines\": 1, \"start_line\": 12, \"max_chars\": 40}. The page was shortened to stay within the 40 character budget (max_chars); the next page starts after the last group shown."
        );
        // The caller's end is kept: an end_line, or offset/limit's, in offset/limit (issue 46:
        // start_line and end_line, merged into an offset/limit call, were refused).
        let a = args(
            "line",
            Some(LineRequest::OffsetLimit {
                offset: 4,
                limit: 30,
            }),
        );
        let s = output(&text, &a, Some(30))["system_instruction"].clone();
        assert!(
            s.as_str().unwrap().contains(
                "{\"pattern\": \"line\", \"offset\": 7, \"limit\": 27, \"max_chars\": 30}"
            ),
            "{s}"
        );
    }

    #[test]
    fn a_cut_line_says_where_to_read_it_from() {
        let text = format!("a\n{}\n", "x".repeat(300));
        let out = output(&text, &args("^x", None), Some(50));
        assert_eq!(
            out["system_instruction"],
            "Line 2 (301 characters) is longer than the 50 character budget (max_chars) and only its first 48 characters are shown. To read the line from column 48, call again with only the window arguments offset 1, limit 1 and column 48 (without pattern, context_lines, ignore_case, start_line or end_line)."
        );
        // A match past what is shown: the window starts at the match.
        let text = format!("a\n{}é€needle{}\n", "x".repeat(300), "y".repeat(10));
        let out = output(&text, &args("needle", None), Some(50));
        let s = out["system_instruction"].as_str().unwrap();
        assert!(
            s.contains("Its first match starts at column 302.")
                && s.contains("offset 1, limit 1 and column 302 (without pattern"),
            "{s}"
        );
        let out = output(&text, &args("^x", None), None);
        assert!(out.get("system_instruction").is_none());
    }
}
