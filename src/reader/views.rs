//! What a view needs of its source beyond the blob, asked once the file was read (so a
//! missing ref, path or project is the read's own error): a history's commits, the blame of
//! a window's lines, at the commit the read resolved.

use std::sync::Arc;

use super::steps::Steps;
use crate::source::views::{CommitWindow, DiffBase, FileCommit};
use crate::source::{BlobKind, Fetched, Source, SourceError};
use crate::view::View;
use crate::window::{LineRequest, count_lines, lines_covered};

impl<S: Source> Steps<'_, S> {
    /// Fills in what `view` needs of the source beyond `fetched` (nothing for most views).
    pub(crate) async fn complete(
        &self,
        view: &mut View,
        fetched: &Fetched,
    ) -> Result<(), SourceError> {
        if let View::History { args, page } = view {
            let window = CommitWindow {
                offset: args.offset,
                limit: args.limit,
            };
            let found = self
                .source
                .history(&file_at(fetched), window, self.who.credential)
                .await?;
            *page = Some(Arc::new(found));
        }
        if let View::Blame { lines, blamed } = view
            && let Some(covered) = blamed_lines(*lines, fetched)
        {
            let found = self
                .source
                .blame(&file_at(fetched), covered, self.who.credential)
                .await?;
            *blamed = Some(Arc::new(found));
        }
        if let View::Diff { from, base, .. } = view {
            let file = self
                .source
                .fetch_at(&file_at(fetched), from, self.who.credential)
                .await?;
            *base = Some(Arc::new(DiffBase {
                git_ref: from.clone(),
                file,
            }));
        }
        Ok(())
    }
}

/// The lines of the read's text `lines` covers (1-indexed, inclusive), when it is text and
/// they are some (else the view says why there is nothing to blame).
fn blamed_lines(lines: LineRequest, fetched: &Fetched) -> Option<(u64, u64)> {
    let BlobKind::Text { content, .. } = &fetched.blob.kind else {
        return None;
    };
    let total = count_lines(content.as_bytes());
    lines_covered(Some(lines), total).ok().flatten()
}

/// The file a read found, at the commit its ref resolved to (the ref itself when the source
/// did not say).
fn file_at(fetched: &Fetched) -> FileCommit {
    let blob = &fetched.blob;
    FileCommit {
        project: fetched.project.clone(),
        path: blob.path.clone(),
        commit_sha: blob
            .commit_sha
            .clone()
            .unwrap_or_else(|| blob.git_ref.clone()),
    }
}
