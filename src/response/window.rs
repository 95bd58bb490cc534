//! What a window answers: the tool's output for a fitted window (or for a blob the caller
//! still holds) and its hints — where the next window starts, what a cap did, how to read more
//! of a cut line.

use super::limit::ONE_MESSAGE;
use super::notes::{READ_LIMIT_NOTE, past_the_end, read_notes, short_id};
use super::output::{
    ColumnRange, FileOutput, LineRange, Metadata, ReadFacts, WindowMetadata, metadata_of,
};
use crate::base::quote::in_hint;
use crate::resolve::HintStyle;
use crate::window::{CapKind, Fitted, LONGEST_PREFIX, LineCut, MAX_WINDOW_BYTES, Shortened};

/// Builds the output for a fitted window of a text file; `content` borrows the window's.
pub(crate) fn file_output<'a>(facts: ReadFacts<'a>, fitted: &'a Fitted<'_>) -> FileOutput<'a> {
    FileOutput {
        path: facts.path,
        git_ref: facts.git_ref,
        metadata: metadata(&facts, Some(fitted), false),
        system_instruction: system_instruction(&facts, fitted),
        content: Some(fitted.content.as_ref()),
    }
}

/// Builds the output for a file that is still the blob the caller holds: no content, the
/// window's metadata when its content was at hand (`fitted`), and one sentence.
pub(crate) fn held_output<'a>(facts: ReadFacts<'a>, fitted: Option<&Fitted<'_>>) -> FileOutput<'a> {
    let commit = facts
        .commit_sha
        .map(|sha| format!(" (commit {})", short_id(sha)))
        .unwrap_or_default();
    let blob = facts.blob_id.map(short_id).unwrap_or_default();
    FileOutput {
        path: facts.path,
        git_ref: facts.git_ref,
        metadata: metadata(&facts, fitted, true),
        system_instruction: Some(format!(
            "The file at ref '{}'{commit} is unchanged since blob {blob}; the content you hold is current.",
            in_hint(facts.git_ref)
        )),
        content: None,
    }
}

/// `metadata`: the window's part when there is a window, the permalink anchored to its lines.
fn metadata<'a>(
    facts: &ReadFacts<'a>,
    fitted: Option<&Fitted<'_>>,
    unchanged: bool,
) -> Metadata<'a> {
    let window = fitted.map(|f| WindowMetadata {
        total_lines: f.window.total_lines,
        returned_lines: f
            .window
            .returned_lines()
            .map(|(start, end)| LineRange { start, end }),
        truncated: f.window.is_partial() || facts.cut_by_read_limit,
        columns: f
            .window
            .columns()
            .map(|(start, end)| ColumnRange { start, end }),
    });
    metadata_of(facts, window, unchanged)
}

/// The hint sentences, joined by a space; `None` when there is nothing to say. The first
/// argument object in them continues exactly where the content stopped: inside a cut line, or
/// at the next line.
pub(crate) fn system_instruction(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Option<String> {
    let mut notes = read_notes(facts);
    match (fitted.shortened, fitted.window.next_column()) {
        (Shortened::LineCut(cut), Some(column)) => {
            notes.push(line_cut_note(facts, fitted, &cut, column));
        }
        _ => {
            notes.extend(next_window_note(facts, fitted));
            notes.extend(dropped_lines_note(facts, fitted));
        }
    }
    if facts.cut_by_read_limit {
        notes.push(READ_LIMIT_NOTE.to_string());
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// Where the next window starts: past the end, or the lines left and the call that reads them.
fn next_window_note(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Option<String> {
    let w = &fitted.window;
    if w.returned == 0 && w.total_lines > 0 {
        return Some(past_the_end(facts.hint_style, w.offset, w.total_lines, ""));
    }
    let remaining = w.remaining();
    (remaining > 0).then(|| {
        let call = NextCall::next_window(facts, fitted);
        format!(
            "File truncated. Remaining lines: {remaining}. To view more, call again with {call}."
        )
    })
}

/// What a cap did to a window of whole lines.
fn dropped_lines_note(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Option<String> {
    let Shortened::DroppedLines { by } = fitted.shortened else {
        return None;
    };
    Some(format!(
        "The window was shortened to stay within {}; the next window starts after the last line shown.",
        cap_words(facts, fitted, by)
    ))
}

/// The cap `by` as the hints name it: the byte cap, what fits in one message, what the entries
/// before left of a batch's budget, the caller's `max_chars`, or the server's default budget.
fn cap_words(facts: &ReadFacts<'_>, fitted: &Fitted<'_>, by: CapKind) -> String {
    let budget = fitted.fit.max_chars;
    match by {
        CapKind::Bytes => format!("the {MAX_WINDOW_BYTES} byte response limit"),
        CapKind::Chars if facts.fitted_to_message => ONE_MESSAGE.to_string(),
        CapKind::Chars if let Some(shared) = facts.shared => {
            format!("what was left ({budget} characters) of {}", shared.words())
        }
        CapKind::Chars if facts.max_chars_arg.is_some() => {
            format!("the {budget} character budget (max_chars)")
        }
        CapKind::Chars => format!("the default {budget} character budget (max_chars)"),
    }
}

/// The sentences for a window whose single line a cap cut before `column`: where the content
/// stopped and the call that reads on from there; then the lines after it, and how to read the
/// rest of the line in one call when it fits.
fn line_cut_note(facts: &ReadFacts<'_>, fitted: &Fitted<'_>, cut: &LineCut, column: u64) -> String {
    let w = &fitted.window;
    let n = w.offset + 1;
    let line_chars = w.column + cut.chars;
    let from = if w.column > 0 {
        format!(" from column {}", w.column)
    } else {
        String::new()
    };
    let again = NextCall::in_line(facts, fitted, column);
    let mut note = format!(
        "Line {n} ({line_chars} characters) was cut at column {column} to stay within {}: {} characters of it are shown{from}. To read on in this line, call again with {again}.",
        cap_words(facts, fitted, cut.by),
        column - w.column,
    );
    let after = w.total_lines.saturating_sub(n);
    match after {
        0 => {}
        1 => note.push_str(" 1 more line follows it."),
        _ => note.push_str(&format!(" {after} more lines follow it.")),
    }
    if cut.by == CapKind::Chars && !facts.fitted_to_message && rest_in_one_message(cut) {
        let rest = NextCall {
            limit: 1,
            max_chars: Some(0),
            ..NextCall::in_line(facts, fitted, column)
        };
        note.push_str(&format!(
            " To read the rest of the line in one call instead, call again with {rest}."
        ));
    }
    note
}

/// Whether the rest of a line the budget cut, from where the content stopped, comes back whole
/// without the budget: within the byte cap (with room for a line-number prefix), and short
/// enough to fit in one message however it escapes (a third of
/// [`crate::limits::MAX_MESSAGE_BYTES`]: each copy of a `"` takes 2 and 4 bytes).
fn rest_in_one_message(cut: &LineCut) -> bool {
    let rest = cut.line_bytes - cut.returned_bytes;
    rest + LONGEST_PREFIX <= MAX_WINDOW_BYTES && rest <= crate::limits::MAX_MESSAGE_BYTES / 3
}

/// A next call's window arguments, written as the hint shows them: the window in the caller's
/// vocabulary, then `column` when the call starts inside a line or the previous one did, then
/// `max_chars` when given, then `line_numbers` when on, e.g.
/// `{"offset": 97, "limit": 500, "column": 0, "max_chars": 20000, "line_numbers": true}`.
struct NextCall {
    style: HintStyle,
    /// Zero-indexed first line.
    offset: u64,
    limit: u64,
    total_lines: u64,
    /// The characters of the first line to skip; `None` when neither this call nor the one
    /// it follows names a column (an agent merges the hint into its previous arguments, so a
    /// call after one with a column sets it back to 0).
    column: Option<u64>,
    max_chars: Option<u64>,
    line_numbers: bool,
}

impl NextCall {
    /// The window after this one: from the line after the last one shown, at its start, as
    /// many lines as this one covered, with the caller's own `max_chars`.
    fn next_window(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Self {
        let w = &fitted.window;
        NextCall {
            style: facts.hint_style,
            offset: w.next_offset(),
            limit: w.limit.max(1),
            total_lines: w.total_lines,
            column: (w.column > 0).then_some(0),
            max_chars: facts.max_chars_arg,
            line_numbers: fitted.fit.line_numbers,
        }
    }

    /// This window again from `column` of its first line: how to read on in a cut line.
    fn in_line(facts: &ReadFacts<'_>, fitted: &Fitted<'_>, column: u64) -> Self {
        NextCall {
            offset: fitted.window.offset,
            column: (column > 0 || fitted.window.column > 0).then_some(column),
            ..NextCall::next_window(facts, fitted)
        }
    }
}

impl std::fmt::Display for NextCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.style {
            HintStyle::OffsetLimit => {
                write!(
                    f,
                    "{{\"offset\": {}, \"limit\": {}",
                    self.offset, self.limit
                )?;
            }
            HintStyle::StartEnd => write!(
                f,
                "{{\"start_line\": {}, \"end_line\": {}",
                self.offset + 1,
                (self.offset + self.limit).min(self.total_lines)
            )?,
        }
        if let Some(column) = self.column {
            write!(f, ", \"column\": {column}")?;
        }
        if let Some(max_chars) = self.max_chars {
            write!(f, ", \"max_chars\": {max_chars}")?;
        }
        if self.line_numbers {
            f.write_str(", \"line_numbers\": true")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::DEFAULT_MAX_CHARS;
    use crate::window::{Fit, LineRequest, fit_window};

    fn facts(style: HintStyle) -> ReadFacts<'static> {
        ReadFacts {
            path: "a.txt",
            git_ref: "main",
            size_bytes: 0,
            cut_by_read_limit: false,
            hint_style: style,
            split_fallback_from: None,
            blob_id: None,
            changed_from: None,
            max_chars_arg: None,
            fitted_to_message: false,
            shared: None,
            commit_sha: None,
            web_url: None,
        }
    }

    fn hint(text: &str, req: LineRequest, style: HintStyle) -> Option<String> {
        let w = fit_window(text, req, Fit::RAW).unwrap();
        system_instruction(&facts(style), &w)
    }

    fn off(offset: u64, limit: u64) -> LineRequest {
        LineRequest::OffsetLimit { offset, limit }
    }

    fn lines(start: u64, end: u64) -> LineRequest {
        LineRequest::StartEnd {
            start: Some(start),
            end: Some(end),
        }
    }

    /// The hint for a window under `fit`, the caller having sent `max_chars_arg`.
    fn fitted_hint(
        text: &str,
        req: LineRequest,
        style: HintStyle,
        fit: Fit,
        max_chars_arg: Option<u64>,
    ) -> String {
        let w = fit_window(text, req, fit).unwrap();
        let f = ReadFacts {
            max_chars_arg,
            ..facts(style)
        };
        system_instruction(&f, &w).unwrap_or_default()
    }

    fn budget(max_chars: u64, line_numbers: bool) -> Fit {
        Fit {
            max_chars,
            line_numbers,
            column: 0,
        }
    }

    #[test]
    fn whole_file_needs_no_hint() {
        assert_eq!(
            hint(
                "a\nb\n",
                LineRequest::OffsetLimit {
                    offset: 0,
                    limit: 500
                },
                HintStyle::OffsetLimit
            ),
            None
        );
        assert_eq!(
            hint(
                "",
                LineRequest::OffsetLimit {
                    offset: 0,
                    limit: 500
                },
                HintStyle::OffsetLimit
            ),
            None
        );
        assert_eq!(
            hint(
                "",
                LineRequest::OffsetLimit {
                    offset: 9,
                    limit: 500
                },
                HintStyle::OffsetLimit
            ),
            None
        );
    }

    #[test]
    fn next_window_in_both_vocabularies() {
        let text = "1\n2\n3\n4\n5\n";
        assert_eq!(
            hint(
                text,
                LineRequest::OffsetLimit {
                    offset: 1,
                    limit: 2
                },
                HintStyle::OffsetLimit
            )
            .unwrap(),
            "File truncated. Remaining lines: 2. To view more, call again with {\"offset\": 3, \"limit\": 2}."
        );
        assert_eq!(
            hint(
                text,
                LineRequest::StartEnd {
                    start: Some(1),
                    end: Some(2)
                },
                HintStyle::StartEnd
            )
            .unwrap(),
            "File truncated. Remaining lines: 3. To view more, call again with {\"start_line\": 3, \"end_line\": 4}."
        );
        assert_eq!(
            hint(
                text,
                LineRequest::StartEnd {
                    start: Some(2),
                    end: Some(4)
                },
                HintStyle::StartEnd
            )
            .unwrap(),
            "File truncated. Remaining lines: 1. To view more, call again with {\"start_line\": 5, \"end_line\": 5}."
        );
    }

    #[test]
    fn past_the_end() {
        assert_eq!(
            hint(
                "a\nb\n",
                LineRequest::OffsetLimit {
                    offset: 2,
                    limit: 5
                },
                HintStyle::OffsetLimit
            )
            .unwrap(),
            "Offset 2 is past the end of the file (2 lines). Call again with an offset below 2."
        );
    }

    #[test]
    fn the_one_message_words_name_the_bound() {
        let bound = crate::limits::MAX_MESSAGE_BYTES.to_string();
        assert!(
            ONE_MESSAGE.contains(&format!("({bound} bytes")),
            "{ONE_MESSAGE}"
        );
    }

    #[test]
    fn output_shape_and_read_limit() {
        let text = "x\ny\n";
        let w = fit_window(text, off(0, 1), Fit::RAW).unwrap();
        let f = ReadFacts {
            size_bytes: 20_000_000,
            cut_by_read_limit: true,
            ..facts(HintStyle::OffsetLimit)
        };
        let out = serde_json::to_value(file_output(f, &w)).unwrap();
        assert_eq!(out["path"], "a.txt");
        assert_eq!(out["ref"], "main");
        assert_eq!(out["content"], "x\n");
        assert_eq!(
            out["metadata"],
            serde_json::json!({"total_lines": 2, "returned_lines": {"start": 1, "end": 1}, "truncated": true, "size_bytes": 20_000_000})
        );
        let s = out["system_instruction"].as_str().unwrap();
        assert!(
            s.contains("Remaining lines: 1") && s.ends_with("size_bytes is the full size."),
            "{s}"
        );
        let w = fit_window(text, off(5, 1), Fit::RAW).unwrap();
        let out = serde_json::to_value(file_output(facts(HintStyle::OffsetLimit), &w)).unwrap();
        assert_eq!(out["metadata"]["returned_lines"], serde_json::Value::Null);
        assert_eq!(out["content"], "");
    }

    #[test]
    fn keys_go_hint_before_metadata_and_content_and_the_permalink_is_anchored() {
        let text = "a\nb\nc\n";
        let f = ReadFacts {
            commit_sha: Some("9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b"),
            web_url: Some(
                "https://h/gitlab/g/p/-/blob/9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b/a.txt",
            ),
            blob_id: Some("1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"),
            ..facts(HintStyle::OffsetLimit)
        };
        let w = fit_window(text, off(1, 1), Fit::RAW).unwrap();
        let out = serde_json::to_string(&file_output(f, &w)).unwrap();
        let keys = [
            "\"path\"",
            "\"ref\"",
            "\"system_instruction\"",
            "\"metadata\"",
            "\"content\"",
        ];
        let at: Vec<usize> = keys.iter().map(|k| out.find(k).unwrap()).collect();
        assert!(at.windows(2).all(|p| p[0] < p[1]), "{out}");
        let meta = [
            "total_lines",
            "returned_lines",
            "truncated",
            "size_bytes",
            "blob_id",
            "commit_sha",
            "web_url",
        ];
        let at: Vec<usize> = meta
            .iter()
            .map(|k| out.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(at.windows(2).all(|p| p[0] < p[1]), "{out}");
        assert!(out.contains("/a.txt#L2\""), "{out}");
        assert!(!out.contains("unchanged"), "{out}");
        let url = |w: &Fitted<'_>| {
            serde_json::to_value(file_output(f, w)).unwrap()["metadata"]["web_url"].clone()
        };
        assert!(
            url(&fit_window(text, off(0, 3), Fit::RAW).unwrap())
                .as_str()
                .unwrap()
                .ends_with("/a.txt#L1-3")
        );
        // An empty window has no anchor.
        assert!(
            url(&fit_window(text, off(7, 3), Fit::RAW).unwrap())
                .as_str()
                .unwrap()
                .ends_with("/a.txt")
        );
        // No permalink, no web_url.
        let out = serde_json::to_value(file_output(facts(HintStyle::OffsetLimit), &w)).unwrap();
        assert!(
            out["metadata"].get("web_url").is_none() && out["metadata"].get("commit_sha").is_none()
        );
    }

    #[test]
    fn an_unchanged_answer_has_no_content_and_one_sentence() {
        let text = "a\nb\nc\n";
        let f = ReadFacts {
            commit_sha: Some("9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b"),
            web_url: Some("https://h/g/p/-/blob/9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b/a.txt"),
            blob_id: Some("1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"),
            changed_from: Some("ffffffffffffffffffffffffffffffffffffffff"),
            ..facts(HintStyle::OffsetLimit)
        };
        let w = fit_window(text, off(0, 2), Fit::RAW).unwrap();
        let out = serde_json::to_value(held_output(f, Some(&w))).unwrap();
        assert_eq!(out.get("content"), None);
        assert_eq!(out["metadata"]["unchanged"], true);
        assert_eq!(
            out["metadata"]["returned_lines"],
            serde_json::json!({"start": 1, "end": 2})
        );
        assert!(
            out["metadata"]["web_url"]
                .as_str()
                .unwrap()
                .ends_with("#L1-2")
        );
        assert_eq!(
            out["system_instruction"],
            "The file at ref 'main' (commit 9a1c8e2f0d8e) is unchanged since blob 1a2b3c4d5e6f; the content you hold is current."
        );
        // Without the content at hand: no window, no anchor.
        let out = serde_json::to_value(held_output(f, None)).unwrap();
        assert_eq!(
            out["metadata"],
            serde_json::json!({"size_bytes": 0, "blob_id": "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d",
                "commit_sha": "9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b",
                "web_url": "https://h/g/p/-/blob/9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b/a.txt",
                "unchanged": true})
        );
    }

    #[test]
    fn split_fallback_is_named() {
        let w = fit_window("a\n", off(0, 5), Fit::RAW).unwrap();
        let f = ReadFacts {
            split_fallback_from: Some("feature"),
            git_ref: "feature/x",
            ..facts(HintStyle::OffsetLimit)
        };
        let s = system_instruction(&f, &w).unwrap();
        assert!(
            s.contains("ref 'feature/x'") && s.contains("(ref 'feature')"),
            "{s}"
        );
    }

    #[test]
    fn dropped_by_the_byte_cap() {
        let text = "x".repeat(700_000) + "\n" + &"y".repeat(700_000) + "\n";
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, Fit::RAW, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 1. To view more, call again with {\"offset\": 1, \"limit\": 500}. The window was shortened to stay within the 1048576 byte response limit; the next window starts after the last line shown."
        );
    }

    #[test]
    fn dropped_by_the_budget_in_both_vocabularies() {
        // 1 KiB lines under the default budget keep 97 lines; the caller sent no max_chars.
        let text = format!("{}\n", "x".repeat(1023)).repeat(500);
        let fit = budget(DEFAULT_MAX_CHARS, false);
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, fit, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 403. To view more, call again with {\"offset\": 97, \"limit\": 500}. The window was shortened to stay within the default 100000 character budget (max_chars); the next window starts after the last line shown."
        );
        // The caller's own budget is repeated, and line numbers kept.
        let fit = budget(20_000, true);
        let s = fitted_hint(
            &text,
            off(0, 500),
            HintStyle::OffsetLimit,
            fit,
            Some(20_000),
        );
        assert!(
            s.starts_with("File truncated. Remaining lines: 481. To view more, call again with {\"offset\": 19, \"limit\": 500, \"max_chars\": 20000, \"line_numbers\": true}. The window was shortened to stay within the 20000 character budget (max_chars);"),
            "{s}"
        );
        let s = fitted_hint(&text, lines(3, 100), HintStyle::StartEnd, fit, Some(20_000));
        assert!(
            s.starts_with("File truncated. Remaining lines: 479. To view more, call again with {\"start_line\": 22, \"end_line\": 119, \"max_chars\": 20000, \"line_numbers\": true}. The window was shortened to stay within the 20000 character budget"),
            "{s}"
        );
    }

    #[test]
    fn line_cut_by_the_byte_cap_continues_at_its_column() {
        let text = "é".repeat(600_000) + "\nnext\n";
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, Fit::RAW, None);
        assert_eq!(
            s,
            "Line 1 (600001 characters) was cut at column 524288 to stay within the 1048576 byte response limit: 524288 characters of it are shown. To read on in this line, call again with {\"offset\": 0, \"limit\": 500, \"column\": 524288}. 1 more line follows it."
        );
        // The prefix takes its room; the call's own vocabulary.
        let s = fitted_hint(
            &text,
            lines(1, 1),
            HintStyle::StartEnd,
            budget(0, true),
            None,
        );
        assert_eq!(
            s,
            "Line 1 (600001 characters) was cut at column 524284 to stay within the 1048576 byte response limit: 524284 characters of it are shown. To read on in this line, call again with {\"start_line\": 1, \"end_line\": 1, \"column\": 524284, \"line_numbers\": true}. 1 more line follows it."
        );
        // From there, the rest of the line and the next one; the hint, if any, sets the
        // column back.
        let fit = Fit {
            column: 524_288,
            ..Fit::RAW
        };
        let w = fit_window(&text, off(0, 500), fit).unwrap();
        assert_eq!(w.content, "é".repeat(600_000 - 524_288) + "\nnext\n");
        assert_eq!(w.window.columns(), Some((524_288, 600_001)));
        assert_eq!(system_instruction(&facts(HintStyle::OffsetLimit), &w), None);
    }

    #[test]
    fn a_window_from_a_column_sets_it_back_for_the_next_one() {
        let text = "abcdef\n".repeat(10);
        let fit = Fit {
            column: 3,
            ..Fit::RAW
        };
        let s = fitted_hint(&text, off(2, 3), HintStyle::OffsetLimit, fit, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 5. To view more, call again with {\"offset\": 5, \"limit\": 3, \"column\": 0}."
        );
        let w = fit_window(&text, off(2, 3), fit).unwrap();
        assert_eq!(w.content, "def\nabcdef\nabcdef\n");
        assert_eq!(w.window.columns(), Some((3, 7)));
    }

    #[test]
    fn line_cut_by_the_budget_and_whole_without_it() {
        let text = "a\n".to_string() + &"x".repeat(5_000) + "\nz\n";
        let fit = budget(1_000, false);
        let s = fitted_hint(&text, off(1, 500), HintStyle::OffsetLimit, fit, None);
        assert_eq!(
            s,
            "Line 2 (5001 characters) was cut at column 1000 to stay within the default 1000 character budget (max_chars): 1000 characters of it are shown. To read on in this line, call again with {\"offset\": 1, \"limit\": 500, \"column\": 1000}. 1 more line follows it. To read the rest of the line in one call instead, call again with {\"offset\": 1, \"limit\": 1, \"column\": 1000, \"max_chars\": 0}."
        );
        // The caller's budget is repeated in the next window, replaced by 0 for the line.
        let fit = budget(1_000, true);
        let s = fitted_hint(&text, lines(2, 3), HintStyle::StartEnd, fit, Some(1_000));
        assert_eq!(
            s,
            "Line 2 (5001 characters) was cut at column 993 to stay within the 1000 character budget (max_chars): 993 characters of it are shown. To read on in this line, call again with {\"start_line\": 2, \"end_line\": 3, \"column\": 993, \"max_chars\": 1000, \"line_numbers\": true}. 1 more line follows it. To read the rest of the line in one call instead, call again with {\"start_line\": 2, \"end_line\": 2, \"column\": 993, \"max_chars\": 0, \"line_numbers\": true}."
        );
        // From a column: the rest of the line, and what is left of it.
        let fit = Fit {
            column: 1_000,
            ..budget(1_000, false)
        };
        let s = fitted_hint(&text, off(1, 500), HintStyle::OffsetLimit, fit, Some(1_000));
        assert_eq!(
            s,
            "Line 2 (5001 characters) was cut at column 2000 to stay within the 1000 character budget (max_chars): 1000 characters of it are shown from column 1000. To read on in this line, call again with {\"offset\": 1, \"limit\": 500, \"column\": 2000, \"max_chars\": 1000}. 1 more line follows it. To read the rest of the line in one call instead, call again with {\"offset\": 1, \"limit\": 1, \"column\": 2000, \"max_chars\": 0}."
        );
        // The file's last line: nothing follows it.
        let s = fitted_hint(
            &text[..5_003],
            off(1, 5),
            HintStyle::OffsetLimit,
            budget(10, false),
            None,
        );
        assert!(
            s.starts_with("Line 2 (5001 characters) was cut at column 10 to stay within the default 10 character budget")
                && !s.contains("follow"),
            "{s}"
        );
    }

    #[test]
    fn line_cut_by_the_budget_and_too_long_without_it() {
        let text = "x".repeat(2 * MAX_WINDOW_BYTES) + "\n";
        let fit = budget(DEFAULT_MAX_CHARS, false);
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, fit, None);
        assert_eq!(
            s,
            "Line 1 (2097153 characters) was cut at column 100000 to stay within the default 100000 character budget (max_chars): 100000 characters of it are shown. To read on in this line, call again with {\"offset\": 0, \"limit\": 500, \"column\": 100000}."
        );
        let s = fitted_hint(
            &text,
            lines(1, 1),
            HintStyle::StartEnd,
            budget(5, false),
            Some(5),
        );
        assert_eq!(
            s,
            "Line 1 (2097153 characters) was cut at column 5 to stay within the 5 character budget (max_chars): 5 characters of it are shown. To read on in this line, call again with {\"start_line\": 1, \"end_line\": 1, \"column\": 5, \"max_chars\": 5}."
        );
    }

    #[test]
    fn the_message_limit_is_named_when_it_cut() {
        let text = "x".repeat(900_000) + "\n";
        let f = ReadFacts {
            fitted_to_message: true,
            max_chars_arg: Some(0),
            ..facts(HintStyle::OffsetLimit)
        };
        let w = fit_window(&text, off(0, 500), budget(480_000, false)).unwrap();
        let s = system_instruction(&f, &w).unwrap();
        assert!(
            s.starts_with("Line 1 (900001 characters) was cut at column 480000 to stay within what fits in one message")
                && s.contains("{\"offset\": 0, \"limit\": 500, \"column\": 480000, \"max_chars\": 0}")
                && !s.contains("retrievable"),
            "{s}"
        );
    }
}
