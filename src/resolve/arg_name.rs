//! The one list of the tool's argument names ([`ArgName`]) that the schema, the CLI and the
//! messages use, in schema order, and the longest string each takes.

use std::fmt::{self, Display, Formatter};

use crate::window::search::MAX_PATTERN_BYTES;

/// Every argument the tool accepts, in the order the schema lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgName {
    Url,
    ProjectId,
    FilePath,
    Ref,
    Offset,
    Limit,
    StartLine,
    EndLine,
    Column,
    MaxChars,
    LineNumbers,
    Pattern,
    IgnoreCase,
    ContextLines,
    IfNoneMatch,
    Outline,
    Symbol,
    History,
    Blame,
    DiffFrom,
}

impl Display for ArgName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ArgName {
    /// All of them, in schema order.
    pub(crate) const ALL: [ArgName; 20] = [
        ArgName::Url,
        ArgName::ProjectId,
        ArgName::FilePath,
        ArgName::Ref,
        ArgName::Offset,
        ArgName::Limit,
        ArgName::StartLine,
        ArgName::EndLine,
        ArgName::Column,
        ArgName::MaxChars,
        ArgName::LineNumbers,
        ArgName::Pattern,
        ArgName::IgnoreCase,
        ArgName::ContextLines,
        ArgName::IfNoneMatch,
        ArgName::Outline,
        ArgName::Symbol,
        ArgName::History,
        ArgName::Blame,
        ArgName::DiffFrom,
    ];

    /// The name on the wire.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ArgName::Url => "url",
            ArgName::ProjectId => "project_id",
            ArgName::FilePath => "file_path",
            ArgName::Ref => "ref",
            ArgName::Offset => "offset",
            ArgName::Limit => "limit",
            ArgName::StartLine => "start_line",
            ArgName::EndLine => "end_line",
            ArgName::Column => "column",
            ArgName::MaxChars => "max_chars",
            ArgName::LineNumbers => "line_numbers",
            ArgName::Pattern => "pattern",
            ArgName::IgnoreCase => "ignore_case",
            ArgName::ContextLines => "context_lines",
            ArgName::IfNoneMatch => "if_none_match",
            ArgName::Outline => "outline",
            ArgName::Symbol => "symbol",
            ArgName::History => "history",
            ArgName::Blame => "blame",
            ArgName::DiffFrom => "diff_from",
        }
    }

    pub(crate) fn from_wire(name: &str) -> Option<ArgName> {
        ArgName::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// The longest string accepted for this argument, in bytes (`None`: not a string argument).
    /// A longer value is refused before anything is sent: nothing that long can name a file on
    /// GitLab.
    pub(crate) const fn max_bytes(self) -> Option<usize> {
        match self {
            ArgName::Url => Some(MAX_URL_BYTES),
            ArgName::ProjectId => Some(MAX_PROJECT_ID_BYTES),
            ArgName::FilePath => Some(MAX_FILE_PATH_BYTES),
            ArgName::Ref | ArgName::DiffFrom => Some(MAX_REF_BYTES),
            ArgName::Pattern => Some(MAX_PATTERN_BYTES),
            ArgName::IfNoneMatch => Some(MAX_BLOB_ID_BYTES),
            ArgName::Symbol => Some(MAX_SYMBOL_BYTES),
            ArgName::Offset
            | ArgName::Limit
            | ArgName::StartLine
            | ArgName::EndLine
            | ArgName::Column
            | ArgName::MaxChars
            | ArgName::LineNumbers
            | ArgName::IgnoreCase
            | ArgName::ContextLines
            | ArgName::Outline
            | ArgName::History
            | ArgName::Blame => None,
        }
    }
}

/// Longest `file_path`: Linux's `PATH_MAX`, the longest path Gitaly can hand to git on disk.
pub(super) const MAX_FILE_PATH_BYTES: usize = 4096;
/// Longest `ref`: loose refs are files under `refs/`, so a ref name is bounded by `PATH_MAX`
/// like a path (each `/`-separated part by the 255-byte file name limit).
pub(super) const MAX_REF_BYTES: usize = 4096;
/// Longest `project_id`: GitLab allows 20 levels of groups above a project and 255 characters
/// per path segment, so a full path has at most 21 × 255 characters and 20 slashes.
pub(super) const MAX_PROJECT_ID_BYTES: usize = 21 * 255 + 20;
/// Longest `url`: GitLab's web server (Puma) refuses request URIs over 12 KiB; 16 KiB leaves
/// room for the scheme, host and fragment.
pub(super) const MAX_URL_BYTES: usize = 16 * 1024;

/// Longest `if_none_match`: a blob id is 40 (SHA-1) or 64 (SHA-256) hex digits.
pub(crate) const MAX_BLOB_ID_BYTES: usize = 64;

/// Longest `symbol`: a qualified name is a line's worth of identifiers.
pub(crate) const MAX_SYMBOL_BYTES: usize = 1024;
