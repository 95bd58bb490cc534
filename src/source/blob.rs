//! The types every blob source returns: a [`Blob`] or a [`SourceError`].
//!
//! A source turns a resolved target (project, ref, path) into one of these. Everything after
//! that (windowing, the byte cap, hint and error wording) is shared, so both sources give the
//! agent one contract.

/// A file as a source found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    /// Path of the file inside the repository, as resolved (no leading `/`).
    pub path: String,
    /// The ref the file was read at, as the caller named it (or as a URL split resolved it).
    pub git_ref: String,
    /// Size of the file in bytes: GitLab's `rawSize` (for LFS files the LFS object's size);
    /// for a local repository the blob's size (for an LFS pointer, the size the pointer names).
    pub size_bytes: u64,
    /// What the bytes are.
    pub kind: BlobKind,
}

/// The three kinds of file the tool tells apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobKind {
    /// Text, returned byte-for-byte. `cut_by_read_limit` is true when the source
    /// delivered fewer bytes than `size_bytes` (GitLab's 10 MiB read limit).
    Text {
        content: String,
        cut_by_read_limit: bool,
    },
    /// Not text (GitLab: `rawTextBlob` is null; local: NUL in the first 8,000 bytes, or not UTF-8).
    Binary,
    /// Stored in LFS (`storage` is GitLab's `externalStorage`, e.g. `"lfs"`). The pointer text
    /// is never kept.
    Lfs { storage: String },
}

/// Why a source could not produce a blob. Each variant maps to one agent-facing message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// The project does not exist or the token cannot read it (same words for both).
    #[error("project '{project}' not found or inaccessible")]
    ProjectNotFound { project: String },
    /// The ref does not exist.
    #[error("ref '{git_ref}' not found")]
    RefNotFound { git_ref: String },
    /// The ref exists but has no file at the path.
    #[error("file '{path}' does not exist at ref '{git_ref}'")]
    FileNotFound { path: String, git_ref: String },
    /// The path names a directory (tree) at that ref.
    #[error("'{path}' is a directory at ref '{git_ref}'")]
    IsDirectory { path: String, git_ref: String },
    /// The project's Duo context exclusion rules exclude the file.
    #[error("file '{path}' is excluded from AI context")]
    Excluded { path: String },
    /// The ref string is not a valid git ref name (GitLab: "Ref is not valid").
    #[error("ref '{git_ref}' is not valid: {reason}")]
    InvalidRef { git_ref: String, reason: String },
    /// The local repository could not be opened or read.
    #[error("local repository error: {0}")]
    Local(String),
    /// Talking to GitLab failed (message already worded for the agent).
    #[error("{0}")]
    Upstream(String),
}
