//! What the agent reads: the tool's output object and its `system_instruction` hints (here),
//! the sentence for every way a call can fail ([`errors`]), and what the HTTP layer says
//! ([`http`]). The only place those sentences live.
//!
//! Output and hints follow GitLab's own `get_repository_file` tool word for word where it has
//! words; the `start_line`/`end_line` hints and the URL-split note are ours.

mod errors;
pub(crate) mod http;

use serde::Serialize;

pub(crate) use errors::shown;
#[cfg(test)]
pub(crate) use errors::url_problem;

use crate::resolve::HintStyle;
use crate::window::{Cap, MAX_WINDOW_BYTES, Window};

/// `{start, end}`: 1-indexed, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct LineRange {
    pub start: u64,
    pub end: u64,
}

/// `metadata` of the output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Metadata<'a> {
    pub total_lines: u64,
    pub returned_lines: Option<LineRange>,
    /// The window is not the whole file, or the byte cap shortened it, or GitLab's read limit
    /// cut the file.
    pub truncated: bool,
    pub size_bytes: u64,
    /// The git blob id of the file's content at the ref (the same id means the same bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_id: Option<&'a str>,
}

/// The tool's output, borrowing the content from the blob (no copy until serialisation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FileOutput<'a> {
    pub path: &'a str,
    #[serde(rename = "ref")]
    pub git_ref: &'a str,
    pub metadata: Metadata<'a>,
    pub content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<String>,
}

/// Facts about the read that are not in the window itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadFacts<'a> {
    pub path: &'a str,
    pub git_ref: &'a str,
    pub size_bytes: u64,
    /// The source delivered fewer bytes than the file has (GitLab's 10 MiB read limit).
    pub cut_by_read_limit: bool,
    pub hint_style: HintStyle,
    /// A URL resolved to another split than GitLab's: the ref GitLab would have used.
    pub split_fallback_from: Option<&'a str>,
    /// The blob the content came from.
    pub blob_id: Option<&'a str>,
    /// The blob the caller's previous window of this file came from, when it was another one.
    pub changed_from: Option<&'a str>,
}

/// Builds the output for a window of a text file.
pub(crate) fn file_output<'a>(facts: ReadFacts<'a>, window: &Window<'a>) -> FileOutput<'a> {
    FileOutput {
        path: facts.path,
        git_ref: facts.git_ref,
        metadata: Metadata {
            total_lines: window.total_lines,
            returned_lines: window
                .returned_lines()
                .map(|(start, end)| LineRange { start, end }),
            truncated: window.is_partial() || facts.cut_by_read_limit,
            size_bytes: facts.size_bytes,
            blob_id: facts.blob_id,
        },
        content: window.content,
        system_instruction: system_instruction(&facts, window),
    }
}

/// The hint sentences, joined by a space; `None` when there is nothing to say.
pub(crate) fn system_instruction(facts: &ReadFacts<'_>, w: &Window<'_>) -> Option<String> {
    let mut notes: Vec<String> = Vec::new();
    if let (Some(before), Some(now)) = (facts.changed_from, facts.blob_id) {
        notes.push(format!(
            "The file changed at ref '{}' since your previous window of it (blob {} is now {}): windows read before may not line up with this one; read again from the start if they must.",
            facts.git_ref,
            short_id(before),
            short_id(now)
        ));
    }
    if let Some(gitlab_ref) = facts.split_fallback_from {
        notes.push(format!(
            "The URL was read as ref '{}' and path '{}': GitLab's own split (ref '{gitlab_ref}') has no such file.",
            facts.git_ref, facts.path
        ));
    }
    let remaining = w.remaining();
    if w.returned == 0 && w.total_lines > 0 {
        notes.push(format!(
            "Offset {} is past the end of the file ({} lines). Call again with an offset below {}.",
            w.offset, w.total_lines, w.total_lines
        ));
    } else if remaining > 0 {
        let next = w.next_offset();
        let call = match facts.hint_style {
            HintStyle::OffsetLimit => {
                format!("{{\"offset\": {next}, \"limit\": {}}}", w.limit.max(1))
            }
            HintStyle::StartEnd => format!(
                "{{\"start_line\": {}, \"end_line\": {}}}",
                next + 1,
                (next + w.limit.max(1)).min(w.total_lines)
            ),
        };
        notes.push(format!(
            "File truncated. Remaining lines: {remaining}. To view more, call again with {call}."
        ));
    }
    match w.cap {
        Cap::LineCut => notes.push(format!(
            "A line exceeded the {MAX_WINDOW_BYTES} byte response limit and was cut; its remainder is not retrievable due to size."
        )),
        Cap::DroppedLines => notes.push(format!(
            "The window was shortened to stay within the {MAX_WINDOW_BYTES} byte response limit."
        )),
        Cap::None => {}
    }
    if facts.cut_by_read_limit {
        notes.push(
            "This file is larger than the read limit, so total_lines counts only the portion that was retrieved. size_bytes is the full size."
                .to_string(),
        );
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// A blob id as git abbreviates it: its first 12 hex digits.
fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{LineRequest, window};

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
        }
    }

    fn hint(text: &str, req: LineRequest, style: HintStyle) -> Option<String> {
        let w = window(text, req).unwrap();
        system_instruction(&facts(style), &w)
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
    fn output_shape_and_read_limit() {
        let text = "x\ny\n";
        let w = window(
            text,
            LineRequest::OffsetLimit {
                offset: 0,
                limit: 1,
            },
        )
        .unwrap();
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
        let w = window(
            text,
            LineRequest::OffsetLimit {
                offset: 5,
                limit: 1,
            },
        )
        .unwrap();
        let out = serde_json::to_value(file_output(facts(HintStyle::OffsetLimit), &w)).unwrap();
        assert_eq!(out["metadata"]["returned_lines"], serde_json::Value::Null);
        assert_eq!(out["content"], "");
    }

    #[test]
    fn split_fallback_is_named() {
        let w = window(
            "a\n",
            LineRequest::OffsetLimit {
                offset: 0,
                limit: 5,
            },
        )
        .unwrap();
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
}
