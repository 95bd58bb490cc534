//! What a call read ([`Read`]): the fetched blob and the budget its view may take, and the
//! facts of the read the renderers need (its text, its hints' facts, a window's fit).

use super::error::ViewError;
use crate::resolve::Target;
use crate::response::ReadFacts;
use crate::response::limit::SharedLimit;
use crate::source::{BlobKind, Fetched, holds};
use crate::window::Fit;
use crate::window::LineIndex;

/// What a call read, beside its target: the blob, whether the caller read another blob of the
/// file before, and the character budget the content may take (the caller's, else the
/// server's; in a batch, what is left of the call's). Owned: the blob's text is shared.
#[derive(Debug, Clone)]
pub(crate) struct Read {
    pub fetched: Fetched,
    pub changed_from: Option<String>,
    pub max_chars: u64,
    /// `max_chars` is what fits in one message ([`crate::limits::MAX_MESSAGE_BYTES`]), less
    /// than the caller's budget: the hints say so.
    pub fitted_to_message: bool,
    /// In a batch: the budget the entries share (the call's or the default), of which
    /// `max_chars` is what the entries before left. `None` for a single read.
    pub shared: Option<SharedLimit>,
}

impl Read {
    /// The bytes of the blob's text that were read (0 for none): the size of the work.
    pub(crate) fn text_bytes(&self) -> usize {
        self.fetched.text_bytes()
    }

    /// The number of lines of the text read (0 for none), from its line index.
    pub(super) fn total_lines(&self) -> u64 {
        self.line_index().map_or(0, LineIndex::total)
    }

    /// The line index of the text read, if it is text (worked out once per cached blob).
    pub(super) fn line_index(&self) -> Option<&LineIndex> {
        match &self.fetched.blob.kind {
            BlobKind::Text { content, .. } => Some(content.line_index()),
            _ => None,
        }
    }

    /// The blob's text and whether GitLab's read limit cut it, or the binary/LFS error.
    pub(super) fn text(&self) -> Result<(&str, bool), ViewError> {
        let blob = &self.fetched.blob;
        match &blob.kind {
            BlobKind::Text {
                content,
                cut_by_read_limit,
            } => Ok((content.as_str(), *cut_by_read_limit)),
            BlobKind::Binary => Err(ViewError::Binary {
                path: blob.path.clone(),
                size_bytes: blob.size_bytes,
            }),
            BlobKind::Lfs { storage } => Err(ViewError::Lfs {
                path: blob.path.clone(),
                storage: storage.clone(),
                size_bytes: blob.size_bytes,
            }),
            // Sources only leave a blob unread for a caller who holds it, answered before.
            BlobKind::NotRead => Ok(("", false)),
        }
    }

    /// The facts of the read the hints need, for `target`.
    pub(super) fn facts<'a, L>(
        &'a self,
        target: &Target<L>,
        cut_by_read_limit: bool,
    ) -> ReadFacts<'a> {
        let blob = &self.fetched.blob;
        ReadFacts {
            path: &blob.path,
            git_ref: &blob.git_ref,
            size_bytes: blob.size_bytes,
            cut_by_read_limit,
            hint_style: target.hint_style,
            split_fallback_from: self.fetched.split_fallback_from.as_deref(),
            blob_id: blob.id.as_deref(),
            changed_from: self.changed_from.as_deref(),
            max_chars_arg: target.max_chars,
            fitted_to_message: self.fitted_to_message,
            shared: self.shared,
            commit_sha: blob.commit_sha.as_deref(),
            web_url: self.fetched.web_url.as_deref(),
        }
    }

    /// The fit of a window: the budget and numbering.
    pub(super) fn fit<L>(&self, target: &Target<L>) -> Fit {
        Fit {
            max_chars: self.max_chars,
            line_numbers: target.line_numbers,
            column: target.column,
        }
    }

    /// Whether the caller holds the blob read (`if_none_match` names its id).
    pub(super) fn held<L>(&self, target: &Target<L>) -> bool {
        holds(target.held.as_deref(), self.fetched.blob.id.as_deref())
    }
}
