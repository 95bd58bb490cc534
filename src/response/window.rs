//! What a window answers: the tool's output for a fitted window (or for a blob the caller
//! still holds) and its hints — where the next window starts, what a cap did, how to read more
//! of a cut line.

use super::notes::{
    ONE_MESSAGE, READ_LIMIT_NOTE, past_the_end, read_notes, short_id, whole_in_one_message,
};
use super::output::{FileOutput, LineRange, Metadata, ReadFacts, WindowMetadata, metadata_of};
use crate::resolve::HintStyle;
use crate::window::{CapKind, Fitted, LineCut, MAX_WINDOW_BYTES, Shortened};

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
            facts.git_ref
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
    });
    metadata_of(facts, window, unchanged)
}

/// The hint sentences, joined by a space; `None` when there is nothing to say.
pub(crate) fn system_instruction(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Option<String> {
    let mut notes = read_notes(facts);
    notes.extend(next_window_note(facts, fitted));
    notes.extend(shortened_note(facts, fitted));
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

/// What a cap did to the window, and how to read more of a cut line when that is possible.
fn shortened_note(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Option<String> {
    let budget = fitted.fit.max_chars;
    match fitted.shortened {
        Shortened::None => None,
        Shortened::DroppedLines { by: CapKind::Bytes } => Some(format!(
            "The window was shortened to stay within the {MAX_WINDOW_BYTES} byte response limit."
        )),
        Shortened::DroppedLines { by: CapKind::Chars } if facts.fitted_to_message => Some(format!(
            "The window was shortened to stay within {ONE_MESSAGE}; the next window starts after the last line shown."
        )),
        Shortened::DroppedLines { by: CapKind::Chars } => Some(format!(
            "The window was shortened to stay within the {budget} character budget (max_chars); the next window starts after the last line shown."
        )),
        Shortened::LineCut(cut) => Some(line_cut_note(facts, fitted, &cut)),
    }
}

/// The sentence for a window whose single line was cut.
fn line_cut_note(facts: &ReadFacts<'_>, fitted: &Fitted<'_>, cut: &LineCut) -> String {
    let n = fitted.window.offset + 1;
    let line_bytes = cut.line_bytes;
    if cut.by == CapKind::Bytes {
        return format!(
            "Line {n} ({line_bytes} bytes) exceeded the {MAX_WINDOW_BYTES} byte response limit and was cut to its first {} bytes; its remainder is not retrievable due to size.",
            cut.returned_bytes
        );
    }
    // The budget's sentence weighs the line in the budget's unit (issue 18: one unit per
    // sentence); a budget cut always counts the line.
    let line_chars = cut.line_chars.unwrap_or(line_bytes);
    let shown = format!(
        "Line {n} ({line_chars} characters) is longer than the {} character budget (max_chars) and only its first {} characters are shown.",
        fitted.fit.max_chars,
        fitted.text_chars()
    );
    if facts.fitted_to_message {
        return format!(
            "Line {n} ({line_chars} characters) is longer than {ONE_MESSAGE} and only its first {} characters are shown. The rest of the line is not retrievable.",
            fitted.text_chars()
        );
    }
    let again = NextCall::line_again(facts, fitted);
    if whole_in_one_message(cut) {
        format!("{shown} To read the whole line, call again with {again}.")
    } else {
        format!(
            "{shown} Calling again with {again} shows as much of it as fits in one message; the rest of the line is not retrievable."
        )
    }
}

/// A next call's window arguments, written as the hint shows them: the window in the caller's
/// vocabulary, then `max_chars` when given, then `line_numbers` when on, e.g.
/// `{"offset": 97, "limit": 500, "max_chars": 20000, "line_numbers": true}`.
struct NextCall {
    style: HintStyle,
    /// Zero-indexed first line.
    offset: u64,
    limit: u64,
    total_lines: u64,
    max_chars: Option<u64>,
    line_numbers: bool,
}

impl NextCall {
    /// The window after this one: from the line after the last one shown, as many lines as
    /// this one covered, with the caller's own `max_chars`.
    fn next_window(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Self {
        let w = &fitted.window;
        NextCall {
            style: facts.hint_style,
            offset: w.next_offset(),
            limit: w.limit.max(1),
            total_lines: w.total_lines,
            max_chars: facts.max_chars_arg,
            line_numbers: fitted.fit.line_numbers,
        }
    }

    /// This window's first line alone, with no budget: how to read more of a line the budget
    /// cut.
    fn line_again(facts: &ReadFacts<'_>, fitted: &Fitted<'_>) -> Self {
        NextCall {
            offset: fitted.window.offset,
            limit: 1,
            max_chars: Some(0),
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
    fn dropped_by_the_byte_cap_as_before() {
        let text = "x".repeat(700_000) + "\n" + &"y".repeat(700_000) + "\n";
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, Fit::RAW, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 1. To view more, call again with {\"offset\": 1, \"limit\": 500}. The window was shortened to stay within the 1048576 byte response limit."
        );
    }

    #[test]
    fn dropped_by_the_budget_in_both_vocabularies() {
        // 1 KiB lines under the default budget keep 97 lines.
        let text = format!("{}\n", "x".repeat(1023)).repeat(500);
        let fit = budget(DEFAULT_MAX_CHARS, false);
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, fit, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 403. To view more, call again with {\"offset\": 97, \"limit\": 500}. The window was shortened to stay within the 100000 character budget (max_chars); the next window starts after the last line shown."
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
    fn line_cut_by_the_byte_cap() {
        let text = "é".repeat(600_000) + "\nnext\n";
        let s = fitted_hint(&text, off(0, 500), HintStyle::OffsetLimit, Fit::RAW, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 1. To view more, call again with {\"offset\": 1, \"limit\": 500}. Line 1 (1200001 bytes) exceeded the 1048576 byte response limit and was cut to its first 1048576 bytes; its remainder is not retrievable due to size."
        );
        let s = fitted_hint(
            &text,
            lines(1, 1),
            HintStyle::StartEnd,
            budget(0, true),
            None,
        );
        assert_eq!(
            s,
            "File truncated. Remaining lines: 1. To view more, call again with {\"start_line\": 2, \"end_line\": 2, \"line_numbers\": true}. Line 1 (1200001 bytes) exceeded the 1048576 byte response limit and was cut to its first 1048568 bytes; its remainder is not retrievable due to size."
        );
    }

    #[test]
    fn line_cut_by_the_budget_and_whole_without_it() {
        let text = "a\n".to_string() + &"x".repeat(5_000) + "\nz\n";
        let fit = budget(1_000, false);
        let s = fitted_hint(&text, off(1, 500), HintStyle::OffsetLimit, fit, None);
        assert_eq!(
            s,
            "File truncated. Remaining lines: 1. To view more, call again with {\"offset\": 2, \"limit\": 500}. Line 2 (5001 characters) is longer than the 1000 character budget (max_chars) and only its first 1000 characters are shown. To read the whole line, call again with {\"offset\": 1, \"limit\": 1, \"max_chars\": 0}."
        );
        // The caller's budget is repeated in the next window, replaced by 0 for the line.
        let fit = budget(1_000, true);
        let s = fitted_hint(&text, lines(2, 3), HintStyle::StartEnd, fit, Some(1_000));
        assert_eq!(
            s,
            "File truncated. Remaining lines: 1. To view more, call again with {\"start_line\": 3, \"end_line\": 3, \"max_chars\": 1000, \"line_numbers\": true}. Line 2 (5001 characters) is longer than the 1000 character budget (max_chars) and only its first 993 characters are shown. To read the whole line, call again with {\"start_line\": 2, \"end_line\": 2, \"max_chars\": 0, \"line_numbers\": true}."
        );
        // The file's last line: no next window.
        let s = fitted_hint(
            &text[..5_003],
            off(1, 5),
            HintStyle::OffsetLimit,
            budget(10, false),
            None,
        );
        assert!(
            s.starts_with("Line 2 (5001 characters) is longer than the 10 character budget"),
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
            "Line 1 (2097153 characters) is longer than the 100000 character budget (max_chars) and only its first 100000 characters are shown. Calling again with {\"offset\": 0, \"limit\": 1, \"max_chars\": 0} shows as much of it as fits in one message; the rest of the line is not retrievable."
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
            "Line 1 (2097153 characters) is longer than the 5 character budget (max_chars) and only its first 5 characters are shown. Calling again with {\"start_line\": 1, \"end_line\": 1, \"max_chars\": 0} shows as much of it as fits in one message; the rest of the line is not retrievable."
        );
    }
}
