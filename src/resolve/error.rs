//! The resolve layer's errors, each worded beside its type: a bad combination of arguments
//! ([`ResolveError`]) and an unusable file path ([`PathError`]).

use std::fmt::{self, Display, Formatter};

use super::file_url::UrlError;
use super::split_error::SplitError;
use crate::base::quote::shown;
use crate::resolve::args::ArgName;
use crate::resolve::ref_name::PASS_INSTEAD;

/// A bad combination of arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ResolveError {
    /// No url, and this argument is missing.
    Missing(ArgName),
    /// `project_id` names another project than the URL.
    ProjectMismatch { given: String, in_url: String },
    /// `file_path` is not the URL's path.
    PathMismatch { given: String, in_url: String },
    /// `ref` is not the URL's ref.
    RefMismatch { given: String, in_url: String },
    /// All digits, but more than a `u64`.
    ProjectIdTooLarge { raw: String },
    /// Neither an id nor a full path.
    NotAProject { raw: String },
    /// A ref with control characters.
    RefControlCharacters { git_ref: String },
    /// `file_path` is unusable.
    Path(#[source] PathError),
    /// The path a URL names is unusable.
    UrlPath {
        url: String,
        #[source]
        error: PathError,
    },
    /// The URL is unusable.
    Url(#[source] UrlError),
    /// The URL's "ref/path" cannot be split.
    Split(#[source] SplitError),
}

/// The argument forms, for a call that has neither.
const PROVIDE: &str =
    "Provide either url, or project_id, file_path, and ref (use HEAD for the default branch).";

impl Display for ResolveError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let agree = "Pass one of them, or make them agree.";
        match self {
            ResolveError::Missing(name) => write!(f, "{name} is missing. {PROVIDE}"),
            ResolveError::ProjectMismatch { given, in_url } => write!(
                f,
                "Project mismatch: project_id is '{}' but url contains '{}'. {agree}",
                shown(given),
                shown(in_url)
            ),
            ResolveError::PathMismatch { given, in_url } => write!(
                f,
                "File path mismatch: file_path is '{}' but url contains '{}'. {agree}",
                shown(given),
                shown(in_url)
            ),
            ResolveError::RefMismatch { given, in_url } => write!(
                f,
                "Ref mismatch: ref is '{}' but url contains '{}'. {agree}",
                shown(given),
                shown(in_url)
            ),
            ResolveError::ProjectIdTooLarge { raw } => {
                write!(
                    f,
                    "project_id '{}' is too large to be a project id.",
                    shown(raw)
                )
            }
            ResolveError::NotAProject { raw } => write!(
                f,
                "project_id '{}' is not a project id or full path (e.g. \"42\" or \"group/project\").",
                shown(raw)
            ),
            ResolveError::RefControlCharacters { git_ref } => write!(
                f,
                "ref '{}' contains control characters; {PASS_INSTEAD}.",
                shown(git_ref)
            ),
            ResolveError::Path(e) => e.fmt(f),
            ResolveError::UrlPath { url, error } => {
                write!(f, "Invalid file URL: {error} (from {})", shown(url))
            }
            ResolveError::Url(e) => e.fmt(f),
            ResolveError::Split(e) => e.fmt(f),
        }
    }
}

/// Why a file path is unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PathError {
    Empty,
    ControlCharacters { path: String },
    Directory { path: String },
    Traversal { path: String },
}

impl Display for PathError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => f.write_str("file_path must not be empty."),
            PathError::ControlCharacters { path } => write!(
                f,
                "file_path '{}' contains control characters (NUL, newline, …); pass the path as it appears in the repository.",
                shown(path)
            ),
            PathError::Directory { path } => {
                write!(
                    f,
                    "file_path must be a file, not a directory: '{}'.",
                    shown(path)
                )
            }
            PathError::Traversal { path } => write!(
                f,
                "file_path must not contain a path traversal sequence: '{}'.",
                shown(path)
            ),
        }
    }
}

impl From<UrlError> for ResolveError {
    fn from(e: UrlError) -> Self {
        ResolveError::Url(e)
    }
}

impl From<SplitError> for ResolveError {
    fn from(e: SplitError) -> Self {
        ResolveError::Split(e)
    }
}

impl From<PathError> for ResolveError {
    fn from(e: PathError) -> Self {
        ResolveError::Path(e)
    }
}
