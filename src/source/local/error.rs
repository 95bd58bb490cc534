//! Why the local repository source fails: the repository itself ([`LocalError`]) or a ref it
//! refuses ([`LocalRefError`]). `response` words both.

use std::path::PathBuf;

use crate::ref_name::RefNameError;

/// Why the local repository could not be opened or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LocalError {
    /// Nothing exists at the path given.
    Missing { path: PathBuf },
    /// No repository at or above the path.
    NoRepository { path: PathBuf, cause: String },
    /// A repository was found but cannot be opened.
    CannotOpen { found: PathBuf, cause: String },
    /// Reading the repository failed.
    Read { cause: String },
    /// The blocking read task failed.
    Task { cause: String },
}

/// Why the local repository refuses a ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LocalRefError {
    /// Not a ref name with ancestry steps.
    Syntax(RefNameError),
    /// An abbreviated SHA that matches several objects.
    Ambiguous,
    /// It names a tree or blob, not a commit.
    NotACommit { kind: &'static str },
    /// More than `max` tags in a row.
    TagChain { max: usize },
}
