//! The call's arguments as given: trimmed, and refused when they hold control characters;
//! a file path cleaned as GitLab cleans it ([`clean_file_path`]).

use super::error::{PathError, ResolveError};
use crate::resolve::args::ToolArgs;

pub(super) fn given_url(args: &ToolArgs) -> Option<&str> {
    trimmed(args.url.as_deref())
}

/// `Some` for a value that is not empty after trimming.
pub(super) fn trimmed(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// `ref` as given, trimmed; control characters anywhere in it (a trailing newline included)
/// are refused rather than trimmed away.
pub(super) fn given_ref(args: &ToolArgs) -> Result<Option<&str>, ResolveError> {
    if let Some(raw) = args.git_ref.as_deref() {
        check_ref(raw)?;
    }
    Ok(trimmed(args.git_ref.as_deref()))
}

/// `project_id` as given, trimmed; control characters anywhere in it are refused.
pub(super) fn given_project(args: &ToolArgs) -> Result<Option<&str>, ResolveError> {
    match args.project_id.as_deref() {
        Some(raw) if raw.chars().any(char::is_control) => Err(ResolveError::NotAProject {
            raw: raw.to_string(),
        }),
        other => Ok(trimmed(other)),
    }
}

/// A ref must not hold control characters (GitLab rejects other bad refs itself).
pub(super) fn check_ref(git_ref: &str) -> Result<&str, ResolveError> {
    if git_ref.chars().any(char::is_control) {
        return Err(ResolveError::RefControlCharacters {
            git_ref: git_ref.to_string(),
        });
    }
    Ok(git_ref)
}

/// GitLab's file-path normalisation plus our own safety checks.
///
/// - NUL or any other control character, anywhere (a trailing `\n` or `\r` included) →
///   [`PathError::ControlCharacters`];
/// - surrounding whitespace is removed, then one leading `/`;
/// - empty → [`PathError::Empty`]; ending in `/` → [`PathError::Directory`];
/// - a `..` component (split on `/` or `\`, also `%2e%2e`) → [`PathError::Traversal`].
pub(crate) fn clean_file_path(raw: &str) -> Result<String, PathError> {
    if raw.chars().any(char::is_control) {
        return Err(PathError::ControlCharacters {
            path: raw.to_string(),
        });
    }
    let path = raw.trim();
    let path = path.strip_prefix('/').unwrap_or(path);
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    let owned = || path.to_string();
    if path.ends_with('/') {
        return Err(PathError::Directory { path: owned() });
    }
    if path
        .split(['/', '\\'])
        .any(|c| c == ".." || c.eq_ignore_ascii_case("%2e%2e"))
    {
        return Err(PathError::Traversal { path: owned() });
    }
    Ok(path.to_string())
}
