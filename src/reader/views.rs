//! What a view needs of its source beyond the blob, asked once the file was read (so a
//! missing ref, path or project is the read's own error): a history's commits, the blame of
//! a window's lines past what the read's own request blamed, a diff's other side when the
//! read did not bring it, all at the commit the read resolved; and a diff's miss explained
//! (deleted since `diff_from`).

use std::sync::Arc;

use super::error::ReadError;
use super::steps::{Planned, Steps};
use crate::source::views::{Blamed, CommitWindow, DiffBase, FileCommit};
use crate::source::{BlobKind, Fetched, Source, SourceError};
use crate::view::{View, ViewError};
use crate::window::{Extent, LineRequest, lines_covered};

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
            let found = self.blame_rest(blamed.take(), covered, fetched).await?;
            *blamed = Some(Arc::new(found));
        }
        if let View::Diff { from, base, .. } = view
            && base.is_none()
        {
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

    /// The blame of the lines `first..=last`: `early`, what the read's own request blamed of
    /// them, and the rest asked of the source (nothing when `early` covers them all).
    async fn blame_rest(
        &self,
        early: Option<Arc<Blamed>>,
        (first, last): (u64, u64),
        fetched: &Fetched,
    ) -> Result<Blamed, SourceError> {
        let mut blamed = early.map(|b| b.within(first, last)).unwrap_or_default();
        if blamed.covers(first, last) {
            return Ok(blamed);
        }
        // What `early` gave is a run of lines from `first` on (GitLab blames one field of
        // them): the rest follows it. Anything else is asked again whole.
        let from = match blamed.ranges.last() {
            Some(r) if blamed.covers(first, r.end_line) => r.end_line + 1,
            _ => {
                blamed = Blamed::default();
                first
            }
        };
        let rest = self
            .source
            .blame(&file_at(fetched), (from, last), self.who.credential)
            .await?;
        blamed.extend(rest);
        Ok(blamed)
    }

    /// The read's own error `e`, unless the read is a diff whose file is missing at the ref
    /// read while its `diff_from` ref has it: then it was deleted since, and said so.
    pub(crate) async fn diff_miss(
        &self,
        planned: &Planned<S::Lookup>,
        e: SourceError,
    ) -> ReadError {
        let (target, View::Diff { from, .. }) = planned else {
            return ReadError::Source(e);
        };
        let (SourceError::FileNotFound { path, git_ref }
        | SourceError::FileNotFoundNear { path, git_ref, .. }) = &e
        else {
            return ReadError::Source(e);
        };
        let Some(there) = self.source.at_ref(&target.lookup, from) else {
            return ReadError::Source(e);
        };
        let first_line = Extent::Lines(LineRequest::OffsetLimit {
            offset: 0,
            limit: 1,
        });
        match self
            .source
            .fetch(&there, first_line, None, self.who.credential)
            .await
        {
            Ok(_) => ReadError::View(ViewError::DeletedSince {
                path: path.clone(),
                git_ref: git_ref.clone(),
                from: from.clone(),
            }),
            Err(_) => ReadError::Source(e),
        }
    }
}

/// The lines of the read's text `lines` covers (1-indexed, inclusive), when it is text and
/// they are some (else the view says why there is nothing to blame).
fn blamed_lines(lines: LineRequest, fetched: &Fetched) -> Option<(u64, u64)> {
    let BlobKind::Text { content, .. } = &fetched.blob.kind else {
        return None;
    };
    let total = content.line_index().total();
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
