//! The tool's output object as it is sent: the path, the ref, the hint, `metadata` (the
//! window's part, the blob, the permalink, and a search's, an outline's or a symbol's part) and
//! the content; and `metadata` built from the read's facts.

use serde::Serialize;

use crate::resolve::HintStyle;

/// `{start, end}`: 1-indexed, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct LineRange {
    pub start: u64,
    pub end: u64,
}

/// `{start, end}`: the characters of a line returned, 0-indexed columns, `end` excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct ColumnRange {
    pub start: u64,
    pub end: u64,
}

/// The window's part of `metadata`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct WindowMetadata {
    pub total_lines: u64,
    pub returned_lines: Option<LineRange>,
    /// The window is not the whole file, or a cap (bytes or the character budget) shortened
    /// it, or GitLab's read limit cut the file.
    pub truncated: bool,
    /// The characters of the first returned line that the content holds, when not all of
    /// them: the window started inside the line (`column`) or a cap cut it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns: Option<ColumnRange>,
}

/// `metadata` of the output, in the order it is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Metadata<'a> {
    /// Absent only from an unchanged answer whose content was not at hand without a request.
    #[serde(flatten)]
    pub window: Option<WindowMetadata>,
    pub size_bytes: u64,
    /// The git blob id of the file's content at the ref (the same id means the same bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_id: Option<&'a str>,
    /// The commit the ref resolved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_sha: Option<&'a str>,
    /// The permalink of the lines returned (GitLab): `…/-/blob/<sha>/<path>#L10-20`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_url: Option<String>,
    /// True when the file is still the blob the caller holds (`if_none_match`); then there is
    /// no content. Absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// With a pattern: the matching lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches: Option<Matches<'a>>,
    /// With `outline`: the definitions listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outline: Option<OutlineMeta>,
    /// With `symbol`: the definition read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolMeta<'a>>,
}

/// `metadata.matches`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Matches<'a> {
    /// Every matching line of the lines searched.
    pub total: u64,
    /// The matching lines in `content`.
    pub returned: u64,
    /// Their numbers, 1-indexed, ascending.
    pub lines: &'a [u64],
}

/// `metadata.outline`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct OutlineMeta {
    pub language: &'static str,
    /// Definitions starting in the lines listed.
    pub total: u64,
    /// Those in `content`.
    pub returned: u64,
    /// Present (true) when the syntax tree had errors.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// `metadata.symbol`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SymbolMeta<'a> {
    pub name: &'a str,
    pub kind: &'static str,
    pub start_line: u64,
    pub end_line: u64,
}

/// The tool's output, borrowing the content from the blob (no copy until serialisation). The
/// fields are sent in this order, the hint before the metadata (whose `matches.lines` can be
/// 2,000 numbers long) and the content: a client that keeps only the head of a long result
/// (Claude Code's 2,000-character preview, a cut) keeps the path, the ref and the hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FileOutput<'a> {
    pub path: &'a str,
    #[serde(rename = "ref")]
    pub git_ref: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<String>,
    pub metadata: Metadata<'a>,
    /// Absent from an unchanged answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<&'a str>,
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
    /// The caller's own `max_chars`, if sent: the next call repeats it.
    pub max_chars_arg: Option<u64>,
    /// The budget the content was fitted to is what fits in one message
    /// ([`crate::limits::MAX_MESSAGE_BYTES`]), smaller than the caller's: the hints say so.
    pub fitted_to_message: bool,
    /// In a batch: the budget the entries share, of which this entry had what was left.
    pub shared: Option<super::limit::SharedLimit>,
    /// The commit the ref resolved to, when the source knows it.
    pub commit_sha: Option<&'a str>,
    /// The file's permalink without a line anchor (GitLab).
    pub web_url: Option<&'a str>,
}

/// `metadata` with the window's part `window` (a window's or a search's): the permalink is
/// anchored to the lines it returned.
pub(super) fn metadata_of<'a>(
    facts: &ReadFacts<'a>,
    window: Option<WindowMetadata>,
    unchanged: bool,
) -> Metadata<'a> {
    let lines = window.as_ref().and_then(|w| w.returned_lines);
    Metadata {
        window,
        size_bytes: facts.size_bytes,
        blob_id: facts.blob_id,
        commit_sha: facts.commit_sha,
        web_url: facts.web_url.map(|url| anchored(url, lines)),
        unchanged,
        matches: None,
        outline: None,
        symbol: None,
    }
}

/// `url` with GitLab's line anchor for `lines`: `#L7` for one line, `#L10-20` for several,
/// none for an empty window.
fn anchored(url: &str, lines: Option<LineRange>) -> String {
    match lines {
        None => url.to_string(),
        Some(LineRange { start, end }) if start == end => format!("{url}#L{start}"),
        Some(LineRange { start, end }) => format!("{url}#L{start}-{end}"),
    }
}
