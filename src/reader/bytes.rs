//! A binary file's bytes, for a resource read that serves it whole ([`Bytes`]): the target and
//! the fetch of a read, then the source's bytes of the blob it found, within a size the caller
//! states. A file that is not binary after all (it changed since) gives its text's bytes; one
//! stored in LFS the read's LFS error.

use super::error::ReadError;
use super::steps::{Call, Labelled, Steps};
use crate::resolve::args::ToolArgs;
use crate::source::{BlobKind, Source};
use crate::view::ViewError;

/// The bytes of a file, or why they were not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileBytes {
    /// The path as resolved.
    pub path: String,
    /// The ref as read.
    pub git_ref: String,
    /// The file's size.
    pub size_bytes: u64,
    /// The project (GitLab), by full path.
    pub project: Option<String>,
    /// The bytes; `None` past the size asked.
    pub bytes: Option<Vec<u8>>,
}

/// A read of a file's bytes, at most `max_bytes`.
pub(super) struct Bytes<'a> {
    pub args: &'a ToolArgs,
    pub max_bytes: u64,
}

impl Call for Bytes<'_> {
    type Output = Result<FileBytes, ReadError>;

    async fn run<S>(self, steps: Steps<'_, S>) -> Self::Output
    where
        S: Source,
        S::Lookup: Labelled + Send + 'static,
    {
        let mut planned = steps.plan(self.args)?;
        let fetched = steps.fetch(&mut planned).await.map_err(ReadError::Source)?;
        let blob = &fetched.blob;
        let within = blob.size_bytes <= self.max_bytes;
        let bytes = match &blob.kind {
            BlobKind::Text { content, .. } if within => Some(content.as_bytes().to_vec()),
            BlobKind::Binary if within => Some(
                steps
                    .source
                    .bytes(&fetched, self.max_bytes, steps.who.credential)
                    .await
                    .map_err(ReadError::Source)?,
            ),
            BlobKind::Lfs { storage } => {
                return Err(ReadError::View(ViewError::Lfs {
                    path: blob.path.clone(),
                    storage: storage.clone(),
                    size_bytes: blob.size_bytes,
                }));
            }
            BlobKind::Text { .. } | BlobKind::Binary | BlobKind::NotRead => None,
        };
        Ok(FileBytes {
            path: blob.path.clone(),
            git_ref: blob.git_ref.clone(),
            size_bytes: blob.size_bytes,
            project: fetched.project.clone(),
            bytes,
        })
    }
}
