//! The hints' shared words: the notes about the read itself (window, search or outline), the
//! read limit's note, lines asked past the end, what fits in one message, and a blob id as git abbreviates it.

use super::output::ReadFacts;
use crate::base::quote::in_hint;
use crate::resolve::HintStyle;
use crate::window::LineRequest;

/// The sentence for lines asked past the end of a text of `total` lines, in the vocabulary
/// of the call (`offset`, zero-indexed, or `start_line`, one-indexed); `what` ends the first
/// clause (": no line was searched").
pub(super) fn past_the_end(style: HintStyle, offset: u64, total: u64, what: &str) -> String {
    match style {
        HintStyle::OffsetLimit => format!(
            "Offset {offset} is past the end of the file ({total} lines){what}. Call again with an offset below {total}."
        ),
        HintStyle::StartEnd => format!(
            "Start line {} is past the end of the file ({total} lines){what}. Call again with a start_line of at most {total}.",
            offset.saturating_add(1)
        ),
    }
}

/// Why a search or an outline covered no line of a text of `total` lines: the text is empty
/// (`there is no {thing}`), or `lines` start past its end; `done` is what was not done to any
/// line ("searched", "listed").
pub(super) fn nothing_covered(
    lines: Option<LineRequest>,
    total: u64,
    thing: &str,
    done: &str,
) -> String {
    let what = format!(": no line was {done}");
    match lines {
        _ if total == 0 => format!("The file is empty: there is no {thing}."),
        Some(LineRequest::OffsetLimit { offset, .. }) => {
            past_the_end(HintStyle::OffsetLimit, offset, total, &what)
        }
        Some(LineRequest::StartEnd { start: Some(s), .. }) if s > total => {
            past_the_end(HintStyle::StartEnd, s - 1, total, &what)
        }
        _ => format!("No line was {done} (the file has {total} lines)."),
    }
}

/// What GitLab's read limit did to a file read only in part.
pub(super) const READ_LIMIT_NOTE: &str = "This file is larger than the read limit, so total_lines counts only the portion that was retrieved. size_bytes is the full size.";

/// The notes about the read itself, window or search: the file changed since the caller's
/// previous read, a URL read with another split than GitLab's.
pub(super) fn read_notes(facts: &ReadFacts<'_>) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    if let (Some(before), Some(now)) = (facts.changed_from, facts.blob_id) {
        notes.push(format!(
            "The file changed at ref '{}' since your previous window of it (blob {} is now {}): windows read before may not line up with this one; read again from the start if they must.",
            in_hint(facts.git_ref),
            short_id(before),
            short_id(now)
        ));
    }
    if let Some(gitlab_ref) = facts.split_fallback_from {
        notes.push(format!(
            "The URL was read as ref '{}' and path '{}': GitLab's own split (ref '{}') has no such file.",
            in_hint(facts.git_ref),
            in_hint(facts.path),
            in_hint(gitlab_ref)
        ));
    }
    notes
}

/// A blob id as git abbreviates it: its first 12 hex digits.
pub(super) fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_end_speaks_the_calls_vocabulary() {
        assert_eq!(
            past_the_end(HintStyle::OffsetLimit, 6, 3, ""),
            "Offset 6 is past the end of the file (3 lines). Call again with an offset below 3."
        );
        // `offset` is zero-indexed, so line 7 is offset 6.
        assert_eq!(
            past_the_end(HintStyle::StartEnd, 6, 3, ": no line was searched"),
            "Start line 7 is past the end of the file (3 lines): no line was searched. Call again with a start_line of at most 3."
        );
        // The largest start a call can send does not overflow.
        assert!(
            past_the_end(HintStyle::StartEnd, u64::MAX, 1, "")
                .starts_with("Start line 18446744073709551615 ")
        );
    }
}
