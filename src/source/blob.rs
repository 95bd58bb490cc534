//! The source contract's types: what a source found ([`Fetched`], a [`Blob`]) and why it found
//! nothing ([`SourceError`]). Both sources return these, so windowing and wording do not care
//! where a file came from.

use std::sync::Arc;

use super::gitlab::error::GitlabError;
use super::listing::DirEntries;
use super::local::error::{LocalError, LocalRefError};
use super::suggest::Suggestion;

/// Bytes at the start of a file searched for a NUL (git's and GitLab's binary heuristic).
pub(crate) const BINARY_SNIFF_LEN: usize = 8_000;

/// True when a NUL byte occurs in the first [`BINARY_SNIFF_LEN`] bytes: git's and GitLab's
/// test for a binary file.
pub(crate) fn looks_binary(data: &[u8]) -> bool {
    data[..data.len().min(BINARY_SNIFF_LEN)].contains(&0)
}

/// A file as a source found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blob {
    /// Path of the file inside the repository, as resolved (no leading `/`).
    pub path: String,
    /// The ref the file was read at, as the caller named it (or as a URL split resolved it).
    pub git_ref: String,
    /// Size of the file in bytes: GitLab's `rawSize` (for LFS files the LFS object's size);
    /// for a local repository the blob's size (for an LFS pointer, the size the pointer names).
    pub size_bytes: u64,
    /// What the bytes are.
    pub kind: BlobKind,
    /// The git blob id (the content address), when the source knows it.
    pub id: Option<String>,
    /// The commit the ref resolved to (40 or 64 hex digits), when the source knows it: GitLab's
    /// `permalinkPath` names it, the local source resolves it.
    pub commit_sha: Option<String>,
}

/// The three kinds of file the tool tells apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlobKind {
    /// Text, returned byte-for-byte, shared (a cached blob is not copied per call).
    /// `cut_by_read_limit` is true when this is only the first part of the file (GitLab's
    /// 10 MiB read limit) and the window asked for lies inside it.
    Text {
        content: Arc<String>,
        cut_by_read_limit: bool,
    },
    /// Not text (GitLab: `rawTextBlob` is null; local: NUL in the first 8,000 bytes, or not UTF-8).
    Binary,
    /// Stored in LFS (`storage` is GitLab's `externalStorage`, e.g. `"lfs"`). The pointer text
    /// is never kept.
    Lfs { storage: String },
    /// Not read: the caller holds this blob already (`if_none_match`) and its content is not
    /// at hand without another request.
    NotRead,
}

/// A blob plus how the source got to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fetched {
    pub blob: Blob,
    /// The project's full path, for a source of many projects (GitLab).
    pub project: Option<String>,
    /// For a URL whose ref/path GitLab would have split differently: the ref GitLab would
    /// have used (and found no such file at).
    pub split_fallback_from: Option<String>,
    /// The file's permalink at the commit read, as a full URL without a line anchor (GitLab).
    pub web_url: Option<String>,
}

/// Why a source could not produce a blob. `response` words each variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SourceError {
    /// The project does not exist or the token cannot read it (same words for both).
    ProjectNotFound { project: String },
    /// A URL named project `url_project` (id `url_project_id`) but `project_id` said `given`.
    ProjectMismatch {
        given: u64,
        url_project: String,
        url_project_id: u64,
    },
    /// The ref does not exist.
    RefNotFound { git_ref: String },
    /// The ref exists but has no file at the path.
    FileNotFound { path: String, git_ref: String },
    /// The ref exists but has no file at the path; `near` (never empty) are the existing paths
    /// most like it ("Did you mean").
    FileNotFoundNear {
        path: String,
        git_ref: String,
        near: Vec<Suggestion>,
    },
    /// The path names a directory (tree) at that ref; `entries` are what it holds, as far as
    /// the caller may see.
    IsDirectory {
        path: String,
        git_ref: String,
        entries: DirEntries,
    },
    /// The project's Duo context exclusion rules exclude the file.
    Excluded { path: String },
    /// The ref string is not a valid ref.
    InvalidRef { git_ref: String, reason: RefProblem },
    /// The file is larger than the server's maximum file size.
    FileTooLarge {
        path: String,
        size_bytes: u64,
        limit: u64,
    },
    /// The file changed between two requests of one call (an LFS object whose bytes are not
    /// the object the blob named).
    ChangedWhileReading { path: String },
    /// Talking to GitLab failed, or GitLab's answer could not be used.
    Gitlab(GitlabError),
    /// The local repository could not be opened or read.
    Local(LocalError),
}

/// Why a ref is not valid, as the source that refused it knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefProblem {
    /// GitLab's own words ("Ref is not valid").
    Gitlab { messages: String },
    /// The local source's reason.
    Local(LocalRefError),
}

impl From<GitlabError> for SourceError {
    /// GitLab's "Ref is not valid" is an invalid ref like any other (named by the caller with
    /// [`SourceError::naming_ref`] where the ref is known); the rest is a GitLab failure.
    fn from(e: GitlabError) -> Self {
        match e {
            GitlabError::InvalidRef { messages } => SourceError::InvalidRef {
                git_ref: String::new(),
                reason: RefProblem::Gitlab { messages },
            },
            other => SourceError::Gitlab(other),
        }
    }
}

impl From<LocalError> for SourceError {
    fn from(e: LocalError) -> Self {
        SourceError::Local(e)
    }
}

impl SourceError {
    /// The same error, naming `given` as the ref (the caller's spelling, not the qualified
    /// `refs/tags/v1.0` a lookup used).
    pub(crate) fn naming_ref(self, given: &str) -> SourceError {
        let git_ref = given.to_string();
        match self {
            SourceError::RefNotFound { .. } => SourceError::RefNotFound { git_ref },
            SourceError::FileNotFound { path, .. } => SourceError::FileNotFound { path, git_ref },
            SourceError::FileNotFoundNear { path, near, .. } => SourceError::FileNotFoundNear {
                path,
                git_ref,
                near,
            },
            SourceError::IsDirectory { path, entries, .. } => SourceError::IsDirectory {
                path,
                git_ref,
                entries,
            },
            SourceError::InvalidRef { reason, .. } => SourceError::InvalidRef { git_ref, reason },
            other => other,
        }
    }
}

/// A missing file's error: with the suggestions when there are any.
pub(crate) fn file_not_found(path: &str, git_ref: &str, near: Vec<Suggestion>) -> SourceError {
    let (path, git_ref) = (path.to_string(), git_ref.to_string());
    if near.is_empty() {
        SourceError::FileNotFound { path, git_ref }
    } else {
        SourceError::FileNotFoundNear {
            path,
            git_ref,
            near,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_sniffing_looks_at_the_first_8000_bytes() {
        assert!(!looks_binary(b"text"));
        assert!(!looks_binary(b""));
        assert!(looks_binary(b"a\0b"));
        let mut late = vec![b'x'; BINARY_SNIFF_LEN];
        late.push(0);
        assert!(!looks_binary(&late));
        late[BINARY_SNIFF_LEN - 1] = 0;
        assert!(looks_binary(&late));
    }
}
