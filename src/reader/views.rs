//! What a view needs of its source beyond the blob, asked once the file was read (so a
//! missing ref, path or project is the read's own error): a history's commits, at the
//! commit the read resolved.

use std::sync::Arc;

use super::steps::Steps;
use crate::source::views::{CommitWindow, FileCommit};
use crate::source::{Fetched, Source, SourceError};
use crate::view::View;

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
        Ok(())
    }
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
