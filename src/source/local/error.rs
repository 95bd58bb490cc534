//! Why the local repository source fails: the repository itself ([`LocalError`]) or a ref it
//! refuses ([`LocalRefError`]).

use crate::base::cause::{Shared, chain};
use crate::resolve::ref_name::PASS_INSTEAD;
use crate::source::SourceError;
use std::fmt::{self, Display, Formatter};
use std::path::PathBuf;

use crate::resolve::ref_name::RefNameError;

/// Why the local repository could not be opened or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LocalError {
    /// Nothing exists at the path given.
    Missing { path: PathBuf },
    /// No repository at or above the path.
    NoRepository {
        path: PathBuf,
        #[source]
        cause: Shared<gix::Error>,
    },
    /// A repository was found but cannot be opened.
    CannotOpen {
        found: PathBuf,
        #[source]
        cause: Shared<gix::Error>,
    },
    /// Reading the repository failed.
    Read {
        #[source]
        cause: Shared<dyn std::error::Error + Send + Sync>,
    },
    /// A blob read before came without its id (never expected: the local source names it).
    NoBlobId { path: String },
    /// The blocking read task failed.
    Task {
        #[source]
        cause: Shared<tokio::task::JoinError>,
    },
}

impl Display for LocalError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            LocalError::Missing { path } => write!(
                f,
                "'{}' does not exist; pass the path of a local git repository (a work tree or a bare repository)",
                path.display()
            ),
            LocalError::NoRepository { path, cause } => write!(
                f,
                "no git repository found at or above '{}' ({cause}); pass the path of a git work tree or a bare repository",
                path.display()
            ),
            LocalError::CannotOpen { found, cause } => write!(
                f,
                "the git repository at '{}' cannot be opened ({}); pass the path of a readable git work tree or bare repository",
                found.display(),
                chain(cause)
            ),
            LocalError::NoBlobId { path } => write!(
                f,
                "could not read the local repository: the blob of '{path}' has no id"
            ),
            LocalError::Read { cause } => write!(f, "could not read the local repository: {cause}"),
            LocalError::Task { cause } => write!(f, "local read failed: {cause}"),
        }
    }
}

/// Why the local repository refuses a ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LocalRefError {
    /// Not a ref name with ancestry steps.
    Syntax(#[source] RefNameError),
    /// An abbreviated SHA that matches several objects.
    Ambiguous,
    /// It names a tree or blob, not a commit.
    NotACommit { kind: &'static str },
    /// More than `max` tags in a row.
    TagChain { max: usize },
}

impl Display for LocalRefError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            LocalRefError::Syntax(e) => e.fmt(f),
            LocalRefError::Ambiguous => f.write_str(
                "it is ambiguous (an abbreviated SHA matching several objects); use more hex digits or the full SHA",
            ),
            LocalRefError::NotACommit { kind } => {
                write!(f, "it names a {kind} object, not a commit; {PASS_INSTEAD}")
            }
            LocalRefError::TagChain { max } => {
                write!(f, "it names a chain of more than {max} tags; {PASS_INSTEAD}")
            }
        }
    }
}

impl From<LocalError> for SourceError {
    fn from(e: LocalError) -> Self {
        SourceError::failed(e)
    }
}
