//! Why a `search_repository` call has no answer ([`FindError`]), worded beside its type.

use std::fmt::{self, Display, Formatter};

use super::args::FindArgError;
use super::glob::GlobError;
use super::scope::ScopeError;
use crate::base::quote::shown;
use crate::source::SourceError;
use crate::window::search::PatternError;

/// A `search_repository` call's failure.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum FindError {
    Args(#[source] FindArgError),
    Scope(#[source] ScopeError),
    Glob(#[source] GlobError),
    Pattern(#[source] PatternError),
    /// An empty `pattern`.
    EmptyPattern,
    /// What the source said (project, ref, access).
    Source(#[source] SourceError),
    /// `path` names a file.
    IsAFile {
        path: String,
        git_ref: String,
    },
    /// `path` names nothing at the ref.
    NoSuchDirectory {
        path: String,
        git_ref: String,
    },
    /// Contents: no candidates from GitLab's search and too many files to scan.
    TooManyToScan {
        why: String,
        files: usize,
        limit: usize,
    },
}

impl Display for FindError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            FindError::Args(e) => e.fmt(f),
            FindError::Scope(e) => e.fmt(f),
            FindError::Glob(e) => e.fmt(f),
            FindError::Pattern(e) => e.fmt(f),
            FindError::EmptyPattern => f.write_str(
                "Argument 'pattern' is empty: give a regular expression, or leave it out to list paths.",
            ),
            FindError::Source(e) => e.fmt(f),
            FindError::IsAFile { path, git_ref } => write!(
                f,
                "'{}' is a file at ref '{}', not a directory. Read it with get_repository_file, or search its directory (path without the file name).",
                shown(path),
                shown(git_ref)
            ),
            FindError::NoSuchDirectory { path, git_ref } => write!(
                f,
                "Directory '{}' does not exist at ref '{}'. Leave path out to search the whole repository, or use glob to find it.",
                shown(path),
                shown(git_ref)
            ),
            FindError::TooManyToScan { why, files, limit } => write!(
                f,
                "Cannot search contents here: {why}, so every file would have to be read, and the scope holds {files} files (a search reads at most {limit}). Narrow it: a path (a directory), a glob (e.g. '*.py'), or a pattern holding a literal of 3 or more characters."
            ),
        }
    }
}

impl From<SourceError> for FindError {
    fn from(e: SourceError) -> Self {
        FindError::Source(e)
    }
}
