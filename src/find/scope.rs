//! Where a search looks, from its arguments (pure): the project (`project_id`, or a project,
//! tree or blob page's `url`), the ref (`HEAD`, the default branch, when none is given) and the
//! directory (`path`, default the root).
//!
//! A URL's "ref/path" is split at the ref given beside it when the URL starts with it, else at
//! a leading commit SHA, else at the first `/` (so a branch whose name holds a `/` is passed as
//! `ref`). A URL on GitLab must be on the configured instance; locally its host and project are
//! not checked.

use std::fmt::{self, Display, Formatter};

use percent_encoding::percent_decode_str;

use super::args::FindArgs;
use crate::base::quote::shown;
use crate::resolve::ProjectRef;
use crate::resolve::ref_name::check_rev;
use crate::source::tree::Scope;

/// The ref searched when none is given.
const DEFAULT_REF: &str = "HEAD";

/// Why the arguments name no place to search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScopeError {
    NoProject,
    ProjectMismatch { given: String, in_url: String },
    NotOnInstance { url: String, base: String },
    NotAUrl { url: String },
    BadRef { git_ref: String, reason: String },
    BadPath { path: String },
}

impl Display for ScopeError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ScopeError::NoProject => f.write_str(
                "Provide project_id (numeric id or full path) or url (a project, tree or file URL).",
            ),
            ScopeError::ProjectMismatch { given, in_url } => write!(
                f,
                "Project mismatch: project_id is '{}' but url names '{}'. Pass one of them, or make them agree.",
                shown(given),
                shown(in_url)
            ),
            ScopeError::NotOnInstance { url, base } => write!(
                f,
                "URL '{}' is not on this server's GitLab ({base}). Pass a URL of that instance, or project_id.",
                shown(url)
            ),
            ScopeError::NotAUrl { url } => write!(
                f,
                "Argument 'url' is not a project, tree or file URL: '{}'.",
                shown(url)
            ),
            ScopeError::BadRef { git_ref, reason } => write!(
                f,
                "Ref '{}' is not valid ({reason}). Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch.",
                shown(git_ref)
            ),
            ScopeError::BadPath { path } => write!(
                f,
                "Path '{}' is not a directory path: give it from the repository root, without '..' or control characters (empty = the root).",
                shown(path)
            ),
        }
    }
}

/// The scope of `args`; `base` is the GitLab instance (`None`: the local repository, where a
/// project is optional).
pub(crate) fn of(args: &FindArgs, base: Option<&url::Url>) -> Result<Scope, ScopeError> {
    let from_url = match args.url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        Some(url) => Some(split_url(url, base, args.git_ref.as_deref())?),
        None => None,
    };
    let project = project(args, from_url.as_ref(), base.is_some())?;
    let git_ref = args
        .git_ref
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .or(from_url.as_ref().and_then(|u| u.git_ref.as_deref()))
        .unwrap_or(DEFAULT_REF)
        .to_string();
    check_rev(&git_ref).map_err(|e| ScopeError::BadRef {
        git_ref: git_ref.clone(),
        reason: e.to_string(),
    })?;
    let raw_path = args
        .path
        .as_deref()
        .or(from_url.as_ref().map(|u| u.path.as_str()))
        .unwrap_or("");
    Ok(Scope {
        project,
        git_ref,
        path: clean_dir(raw_path)?,
    })
}

/// The project: `project_id`, else the URL's; both must agree (by full path).
fn project(
    args: &FindArgs,
    url: Option<&UrlParts>,
    required: bool,
) -> Result<Option<ProjectRef>, ScopeError> {
    let given = args
        .project_id
        .as_deref()
        .map(|p| p.trim().trim_matches('/'))
        .filter(|p| !p.is_empty());
    let given = given.map(|p| match p.parse::<u64>() {
        Ok(id) => ProjectRef::Id(id),
        Err(_) => ProjectRef::Path(p.to_string()),
    });
    match (given, url) {
        (Some(ProjectRef::Path(p)), Some(u)) if required && p != u.project => {
            Err(ScopeError::ProjectMismatch {
                given: p,
                in_url: u.project.clone(),
            })
        }
        (Some(p), _) => Ok(Some(p)),
        (None, Some(u)) => Ok(Some(ProjectRef::Path(u.project.clone()))),
        (None, None) if required => Err(ScopeError::NoProject),
        (None, None) => Ok(None),
    }
}

/// A directory path: trimmed, without surrounding `/`; no `..`, `.` or control characters.
fn clean_dir(raw: &str) -> Result<String, ScopeError> {
    let bad = || ScopeError::BadPath {
        path: raw.to_string(),
    };
    if raw.chars().any(char::is_control) {
        return Err(bad());
    }
    let path = raw.trim().trim_matches('/');
    if path.is_empty() || path == "." {
        return Ok(String::new());
    }
    if path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(bad());
    }
    Ok(path.to_string())
}

/// What a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UrlParts {
    project: String,
    git_ref: Option<String>,
    path: String,
}

fn split_url(
    url: &str,
    base: Option<&url::Url>,
    given_ref: Option<&str>,
) -> Result<UrlParts, ScopeError> {
    let not_a_url = || ScopeError::NotAUrl {
        url: url.to_string(),
    };
    let parsed = url::Url::parse(url).map_err(|_| not_a_url())?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(not_a_url());
    }
    let mut rest = parsed.path().to_string();
    if let Some(base) = base {
        let root = base.path().trim_end_matches('/');
        let same_host = base.host_str() == parsed.host_str() && base.port() == parsed.port();
        match rest.strip_prefix(root) {
            Some(r) if same_host && (r.is_empty() || r.starts_with('/')) => rest = r.to_string(),
            _ => {
                return Err(ScopeError::NotOnInstance {
                    url: url.to_string(),
                    base: base.to_string(),
                });
            }
        }
    }
    let (project, tail) = match rest.split_once("/-/") {
        Some((p, t)) => (p, Some(t)),
        None => (rest.as_str(), None),
    };
    let project = decode(project.trim_matches('/'));
    if project.is_empty() {
        return Err(not_a_url());
    }
    let (git_ref, path) = match tail {
        None => (None, String::new()),
        Some(t) => ref_and_path(t, given_ref).ok_or_else(not_a_url)?,
    };
    Ok(UrlParts {
        project,
        git_ref,
        path,
    })
}

/// `tree/<ref>/<path>` or `blob/<ref>/<path>` (decoded), split as the module says.
fn ref_and_path(tail: &str, given_ref: Option<&str>) -> Option<(Option<String>, String)> {
    let (kind, rest) = tail.split_once('/').unwrap_or((tail, ""));
    if !matches!(kind, "tree" | "blob" | "raw" | "blame") {
        return None;
    }
    let rest = decode(rest.trim_end_matches('/'));
    if rest.is_empty() {
        return Some((None, String::new()));
    }
    if let Some(r) = given_ref.map(str::trim).filter(|r| !r.is_empty()) {
        if rest == r {
            return Some((Some(r.to_string()), String::new()));
        }
        if let Some(path) = rest.strip_prefix(r).and_then(|p| p.strip_prefix('/')) {
            return Some((Some(r.to_string()), path.to_string()));
        }
    }
    let (first, path) = rest.split_once('/').unwrap_or((rest.as_str(), ""));
    Some((Some(first.to_string()), path.to_string()))
}

fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: Option<&str>, project: Option<&str>, git_ref: Option<&str>) -> FindArgs {
        FindArgs {
            url: url.map(String::from),
            project_id: project.map(String::from),
            git_ref: git_ref.map(String::from),
            ..FindArgs::default()
        }
    }

    fn base() -> url::Url {
        url::Url::parse("https://gitlab.example.com/gitlab").unwrap()
    }

    #[test]
    fn urls_name_project_ref_and_directory() {
        let b = base();
        let s = of(
            &args(
                Some("https://gitlab.example.com/gitlab/g/p/-/tree/main/src/app"),
                None,
                None,
            ),
            Some(&b),
        )
        .unwrap();
        assert_eq!(s.project, Some(ProjectRef::Path("g/p".into())));
        assert_eq!((s.git_ref.as_str(), s.path.as_str()), ("main", "src/app"));
        let s = of(
            &args(Some("https://gitlab.example.com/gitlab/g/p"), None, None),
            Some(&b),
        )
        .unwrap();
        assert_eq!((s.git_ref.as_str(), s.path.as_str()), ("HEAD", ""));
        let s = of(
            &args(
                Some("https://gitlab.example.com/gitlab/g/p/-/tree/feature/x/lib"),
                None,
                Some("feature/x"),
            ),
            Some(&b),
        )
        .unwrap();
        assert_eq!((s.git_ref.as_str(), s.path.as_str()), ("feature/x", "lib"));
    }

    #[test]
    fn mistakes_are_refused() {
        let b = base();
        let other = args(Some("https://evil.example.com/g/p"), None, None);
        assert!(matches!(
            of(&other, Some(&b)),
            Err(ScopeError::NotOnInstance { .. })
        ));
        assert_eq!(
            of(&FindArgs::default(), Some(&b)),
            Err(ScopeError::NoProject)
        );
        let mut a = args(None, Some("g/p"), Some("a..b"));
        assert!(matches!(of(&a, Some(&b)), Err(ScopeError::BadRef { .. })));
        a.git_ref = None;
        a.path = Some("src/../etc".into());
        assert!(matches!(of(&a, Some(&b)), Err(ScopeError::BadPath { .. })));
        a.path = Some("/src/".into());
        assert_eq!(of(&a, Some(&b)).unwrap().path, "src");
        let local = of(&FindArgs::default(), None).unwrap();
        assert_eq!((local.project, local.git_ref.as_str()), (None, "HEAD"));
    }
}
