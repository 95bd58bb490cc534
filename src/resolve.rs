//! Arguments become a [`Target`]: which project, which ref and path (or which candidate splits
//! of a URL's "ref/path"), which lines. Pure: no I/O, so every rule has a table test.
//!
//! The rules follow GitLab's own tool: `url`, or `project_id` + `file_path` + `ref`; paths are
//! stripped of surrounding whitespace and one leading `/`, must not be empty, end in `/`, hold a
//! `..` component or control characters; with a `url`, any `project_id`, `file_path` or `ref`
//! must agree with it.

use crate::args::ToolArgs;
use crate::url::{
    FileUrl, RefType, Split, SplitError, Splits, UrlError, parse_file_url, parse_file_url_any_host,
    splits,
};
use crate::window::{DEFAULT_LIMIT, LineRequest};

/// How the project was named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectRef {
    /// Full path, e.g. `group/sub/project`.
    Path(String),
    /// Numeric id (zero padding removed).
    Id(u64),
}

impl std::fmt::Display for ProjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProjectRef::Path(p) => f.write_str(p),
            ProjectRef::Id(id) => write!(f, "{id}"),
        }
    }
}

/// Which ref and path to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// Exactly this ref and path.
    Exact {
        git_ref: String,
        path: String,
        ref_type: Option<RefType>,
    },
    /// A URL whose "ref/path" splits several ways; the source picks one by GitLab's precedence.
    /// Candidates are in order of increasing ref length (at least two).
    Split {
        candidates: Vec<Split>,
        ref_type: Option<RefType>,
    },
}

/// Which vocabulary the next-window hint should use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintStyle {
    OffsetLimit,
    StartEnd,
}

/// Everything a source and the window step need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `None` only for a local repository called without a project.
    pub project: Option<ProjectRef>,
    pub lookup: Lookup,
    pub lines: LineRequest,
    pub hint_style: HintStyle,
    /// With a `url`, a numeric `project_id` that the resolved project's id must equal.
    pub expect_project_id: Option<u64>,
}

/// Where the file will be read from, as far as resolving is concerned.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'a> {
    /// A GitLab instance: URLs must be on `base`; project, path and ref are required.
    Gitlab { base: &'a ::url::Url },
    /// A local repository: any URL host; project optional and ignored; ref defaults to `HEAD`.
    Local,
}

/// A bad combination of arguments; `Display` is the sentence the agent sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ResolveError(pub String);

impl From<UrlError> for ResolveError {
    fn from(e: UrlError) -> Self {
        ResolveError(e.to_string())
    }
}

impl From<SplitError> for ResolveError {
    fn from(e: SplitError) -> Self {
        ResolveError(e.to_string())
    }
}

const PROVIDE: &str =
    "Provide either url, or project_id, file_path, and ref (use HEAD for the default branch).";

/// Resolves arguments into a target.
pub fn resolve(args: &ToolArgs, mode: Mode<'_>) -> Result<Target, ResolveError> {
    match &args.url {
        Some(url) if !url.trim().is_empty() => resolve_url(args, url.trim(), mode),
        _ => resolve_ids(args, mode),
    }
}

fn resolve_ids(args: &ToolArgs, mode: Mode<'_>) -> Result<Target, ResolveError> {
    let local = matches!(mode, Mode::Local);
    let project = match args.project_id.as_deref().map(str::trim) {
        Some(p) if !p.is_empty() => Some(project_ref(p)?),
        _ if local => None,
        _ => return Err(ResolveError(format!("project_id is missing. {PROVIDE}"))),
    };
    let path = match &args.file_path {
        Some(p) => normalize_path(p)?,
        None => return Err(ResolveError(format!("file_path is missing. {PROVIDE}"))),
    };
    let git_ref = match args.git_ref.as_deref().map(str::trim) {
        Some(r) if !r.is_empty() => check_ref(r)?.to_string(),
        _ if local => "HEAD".to_string(),
        _ => return Err(ResolveError(format!("ref is missing. {PROVIDE}"))),
    };
    let (lines, hint_style) = line_request(args, None);
    Ok(Target {
        project,
        lookup: Lookup::Exact {
            git_ref,
            path,
            ref_type: None,
        },
        lines,
        hint_style,
        expect_project_id: None,
    })
}

fn resolve_url(args: &ToolArgs, url: &str, mode: Mode<'_>) -> Result<Target, ResolveError> {
    let parsed: FileUrl = match mode {
        Mode::Gitlab { base } => parse_file_url(url, base)?,
        Mode::Local => parse_file_url_any_host(url)?,
    };
    let mut expect_project_id = None;
    if let Some(given) = args
        .project_id
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match project_ref(given)? {
            ProjectRef::Id(id) => expect_project_id = Some(id),
            ProjectRef::Path(p) => {
                if !matches!(mode, Mode::Local) && !p.eq_ignore_ascii_case(&parsed.project_path) {
                    return Err(ResolveError(format!(
                        "Project mismatch: project_id is '{given}' but url contains '{}'. Pass one of them, or make them agree.",
                        parsed.project_path
                    )));
                }
            }
        }
    }
    let wanted_path = args.file_path.as_deref().map(normalize_path).transpose()?;
    let wanted_ref = args
        .git_ref
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let (candidates, sha) = match splits(&parsed.ref_and_path)? {
        Splits::Sha(s) => (vec![s], true),
        Splits::Candidates(c) => (c, false),
    };
    let mut kept: Vec<Split> = Vec::with_capacity(candidates.len());
    for c in candidates {
        let path = normalize_path(&c.path)
            .map_err(|e| ResolveError(format!("Invalid file URL: {e} (from {url})")))?;
        kept.push(Split {
            git_ref: c.git_ref,
            path,
        });
    }
    if let Some(p) = &wanted_path {
        let before = kept.first().map(|s| s.path.clone()).unwrap_or_default();
        kept.retain(|s| &s.path == p);
        if kept.is_empty() {
            return Err(ResolveError(format!(
                "File path mismatch: file_path is '{p}' but url contains '{before}'. Pass one of them, or make them agree."
            )));
        }
    }
    if let Some(r) = wanted_ref {
        let before = kept.first().map(|s| s.git_ref.clone()).unwrap_or_default();
        kept.retain(|s| s.git_ref == r);
        if kept.is_empty() {
            return Err(ResolveError(format!(
                "Ref mismatch: ref is '{r}' but url contains '{before}'. Pass one of them, or make them agree."
            )));
        }
    }
    for s in &kept {
        check_ref(&s.git_ref)?;
    }
    let ref_type = parsed.ref_type;
    let lookup = if kept.len() == 1 || sha {
        let s = kept.swap_remove(0);
        Lookup::Exact {
            git_ref: s.git_ref,
            path: s.path,
            ref_type,
        }
    } else {
        Lookup::Split {
            candidates: kept,
            ref_type,
        }
    };
    let project = match mode {
        Mode::Local => None,
        Mode::Gitlab { .. } => Some(ProjectRef::Path(parsed.project_path.clone())),
    };
    let (lines, hint_style) = line_request(args, parsed.lines.map(|a| (a.start, a.end)));
    Ok(Target {
        project,
        lookup,
        lines,
        hint_style,
        expect_project_id,
    })
}

/// The requested lines: start_line/end_line, else offset/limit, else a URL's `#L` anchor,
/// else the first [`DEFAULT_LIMIT`] lines.
fn line_request(args: &ToolArgs, anchor: Option<(u64, Option<u64>)>) -> (LineRequest, HintStyle) {
    if args.start_line.is_some() || args.end_line.is_some() {
        return (
            LineRequest::StartEnd {
                start: args.start_line,
                end: args.end_line,
            },
            HintStyle::StartEnd,
        );
    }
    if args.offset.is_none()
        && args.limit.is_none()
        && let Some((start, end)) = anchor
    {
        return (
            LineRequest::StartEnd {
                start: Some(start),
                end: Some(end.unwrap_or(start)),
            },
            HintStyle::OffsetLimit,
        );
    }
    (
        LineRequest::OffsetLimit {
            offset: args.offset.unwrap_or(0),
            limit: args.limit.unwrap_or(DEFAULT_LIMIT),
        },
        HintStyle::OffsetLimit,
    )
}

/// `"42"`, `"0042"` → `Id(42)`; anything with a non-digit → `Path` (trimmed of `/`).
pub fn project_ref(raw: &str) -> Result<ProjectRef, ResolveError> {
    let raw = raw.trim();
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
        return raw.parse().map(ProjectRef::Id).map_err(|_| {
            ResolveError(format!(
                "project_id '{raw}' is too large to be a project id."
            ))
        });
    }
    let path = raw.trim_matches('/');
    if path.is_empty() || path.chars().any(char::is_control) {
        return Err(ResolveError(format!(
            "project_id '{}' is not a project id or full path (e.g. \"42\" or \"group/project\").",
            raw.escape_debug()
        )));
    }
    Ok(ProjectRef::Path(path.to_string()))
}

/// A ref must not hold control characters (GitLab rejects other bad refs itself).
fn check_ref(git_ref: &str) -> Result<&str, ResolveError> {
    if git_ref.chars().any(char::is_control) {
        return Err(ResolveError(format!(
            "ref '{}' contains control characters; pass a branch, tag or commit SHA.",
            git_ref.escape_debug()
        )));
    }
    Ok(git_ref)
}

/// GitLab's path normalisation plus our own safety checks.
///
/// - surrounding whitespace is removed, then one leading `/`;
/// - empty → error; ending in `/` → error (a directory);
/// - a `..` component (split on `/` or `\`) → error (traversal);
/// - NUL or any other control character → error.
pub fn normalize_path(raw: &str) -> Result<String, ResolveError> {
    let path = raw.trim();
    let path = path.strip_prefix('/').unwrap_or(path);
    if path.is_empty() {
        return Err(ResolveError("file_path must not be empty.".to_string()));
    }
    if path.chars().any(char::is_control) {
        return Err(ResolveError(format!(
            "file_path '{}' contains control characters (NUL, newline, …); pass the path as it appears in the repository.",
            path.escape_debug()
        )));
    }
    if path.ends_with('/') {
        return Err(ResolveError(format!(
            "file_path must be a file, not a directory: '{path}'."
        )));
    }
    if path
        .split(['/', '\\'])
        .any(|c| c == ".." || c.eq_ignore_ascii_case("%2e%2e"))
    {
        return Err(ResolveError(format!(
            "file_path must not contain a path traversal sequence: '{path}'."
        )));
    }
    Ok(path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> ::url::Url {
        ::url::Url::parse("https://gitlab.example.com").unwrap()
    }

    fn ids(project: &str, path: &str, r: &str) -> ToolArgs {
        ToolArgs {
            project_id: Some(project.into()),
            file_path: Some(path.into()),
            git_ref: Some(r.into()),
            ..ToolArgs::default()
        }
    }

    fn url(u: &str) -> ToolArgs {
        ToolArgs {
            url: Some(u.into()),
            ..ToolArgs::default()
        }
    }

    #[test]
    fn normalize_path_table() {
        let ok = [
            ("a.txt", "a.txt"),
            ("/a/b.rs", "a/b.rs"),
            ("  src/x  ", "src/x"),
            ("a..b/c", "a..b/c"),
            ("...", "..."),
            ("dir/.hidden", "dir/.hidden"),
        ];
        for (input, want) in ok {
            assert_eq!(normalize_path(input).unwrap(), want, "{input:?}");
        }
        let bad = [
            ("", "empty"),
            ("   ", "empty"),
            ("/", "empty"),
            ("src/", "directory"),
            ("../etc/passwd", "traversal"),
            ("a/../../b", "traversal"),
            ("a/..", "traversal"),
            ("..", "traversal"),
            ("a\\..\\b", "traversal"),
            ("a/%2E%2e/b", "traversal"),
            ("a\0b", "control"),
            ("a\nb", "control"),
        ];
        for (input, want) in bad {
            let e = normalize_path(input).unwrap_err().0;
            assert!(e.contains(want), "{input:?}: {e}");
        }
    }

    #[test]
    fn project_refs() {
        assert_eq!(project_ref("42").unwrap(), ProjectRef::Id(42));
        assert_eq!(project_ref("0042").unwrap(), ProjectRef::Id(42));
        assert_eq!(
            project_ref("/grp/sub/proj/").unwrap(),
            ProjectRef::Path("grp/sub/proj".into())
        );
        assert!(project_ref("99999999999999999999999").is_err());
        assert!(project_ref("/").is_err());
        assert!(project_ref("a\0b").is_err());
    }

    #[test]
    fn ids_need_all_three_on_gitlab() {
        let m = Mode::Gitlab { base: &base() };
        let t = resolve(&ids("grp/proj", "/README.md", "main"), m).unwrap();
        assert_eq!(t.project, Some(ProjectRef::Path("grp/proj".into())));
        assert_eq!(
            t.lookup,
            Lookup::Exact {
                git_ref: "main".into(),
                path: "README.md".into(),
                ref_type: None
            }
        );
        assert_eq!(
            t.lines,
            LineRequest::OffsetLimit {
                offset: 0,
                limit: 500
            }
        );
        for (args, missing) in [
            (
                ToolArgs {
                    project_id: None,
                    ..ids("p", "f", "r")
                },
                "project_id is missing",
            ),
            (
                ToolArgs {
                    file_path: None,
                    ..ids("p", "f", "r")
                },
                "file_path is missing",
            ),
            (
                ToolArgs {
                    git_ref: Some(" ".into()),
                    ..ids("p", "f", "r")
                },
                "ref is missing",
            ),
            (ToolArgs::default(), "project_id is missing"),
        ] {
            let e = resolve(&args, m).unwrap_err().0;
            assert!(
                e.contains(missing) && e.contains("Provide either url"),
                "{e}"
            );
        }
    }

    #[test]
    fn local_mode_defaults() {
        let args = ToolArgs {
            file_path: Some("README.md".into()),
            ..ToolArgs::default()
        };
        let t = resolve(&args, Mode::Local).unwrap();
        assert_eq!(t.project, None);
        assert_eq!(
            t.lookup,
            Lookup::Exact {
                git_ref: "HEAD".into(),
                path: "README.md".into(),
                ref_type: None
            }
        );
    }

    #[test]
    fn line_forms() {
        let m = Mode::Gitlab { base: &base() };
        let mut a = ids("p/q", "f", "main");
        a.start_line = Some(3);
        let t = resolve(&a, m).unwrap();
        assert_eq!(
            (t.lines, t.hint_style),
            (
                LineRequest::StartEnd {
                    start: Some(3),
                    end: None
                },
                HintStyle::StartEnd
            )
        );
        let mut a = ids("p/q", "f", "main");
        a.limit = Some(10);
        assert_eq!(
            resolve(&a, m).unwrap().lines,
            LineRequest::OffsetLimit {
                offset: 0,
                limit: 10
            }
        );
    }

    #[test]
    fn url_with_anchor_and_cross_checks() {
        let m = Mode::Gitlab { base: &base() };
        let u = "https://gitlab.example.com/grp/proj/-/blob/main/src/lib.rs#L10-20";
        let t = resolve(&url(u), m).unwrap();
        assert_eq!(t.project, Some(ProjectRef::Path("grp/proj".into())));
        assert_eq!(
            t.lines,
            LineRequest::StartEnd {
                start: Some(10),
                end: Some(20)
            }
        );
        match &t.lookup {
            Lookup::Split { candidates, .. } => {
                assert_eq!(
                    candidates[0],
                    Split {
                        git_ref: "main".into(),
                        path: "src/lib.rs".into()
                    }
                );
                assert_eq!(
                    candidates[1],
                    Split {
                        git_ref: "main/src".into(),
                        path: "lib.rs".into()
                    }
                );
            }
            other => panic!("{other:?}"),
        }
        // An explicit window beats the anchor.
        let t = resolve(
            &ToolArgs {
                offset: Some(5),
                ..url(u)
            },
            m,
        )
        .unwrap();
        assert_eq!(
            t.lines,
            LineRequest::OffsetLimit {
                offset: 5,
                limit: 500
            }
        );
        // Pins narrow the candidates.
        let t = resolve(
            &ToolArgs {
                git_ref: Some("main".into()),
                ..url(u)
            },
            m,
        )
        .unwrap();
        assert_eq!(
            t.lookup,
            Lookup::Exact {
                git_ref: "main".into(),
                path: "src/lib.rs".into(),
                ref_type: None
            }
        );
        let t = resolve(
            &ToolArgs {
                file_path: Some("lib.rs".into()),
                ..url(u)
            },
            m,
        )
        .unwrap();
        assert_eq!(
            t.lookup,
            Lookup::Exact {
                git_ref: "main/src".into(),
                path: "lib.rs".into(),
                ref_type: None
            }
        );
        // Mismatches.
        let e = resolve(
            &ToolArgs {
                project_id: Some("other/proj".into()),
                ..url(u)
            },
            m,
        )
        .unwrap_err()
        .0;
        assert!(
            e.starts_with("Project mismatch") && e.contains("other/proj") && e.contains("grp/proj"),
            "{e}"
        );
        assert!(
            resolve(
                &ToolArgs {
                    project_id: Some("GRP/Proj".into()),
                    ..url(u)
                },
                m
            )
            .is_ok()
        );
        let e = resolve(
            &ToolArgs {
                file_path: Some("x.rs".into()),
                ..url(u)
            },
            m,
        )
        .unwrap_err()
        .0;
        assert!(
            e.starts_with("File path mismatch") && e.contains("'x.rs'"),
            "{e}"
        );
        let e = resolve(
            &ToolArgs {
                git_ref: Some("dev".into()),
                ..url(u)
            },
            m,
        )
        .unwrap_err()
        .0;
        assert!(
            e.starts_with("Ref mismatch") && e.contains("'dev'") && e.contains("'main'"),
            "{e}"
        );
        let t = resolve(
            &ToolArgs {
                project_id: Some("42".into()),
                ..url(u)
            },
            m,
        )
        .unwrap();
        assert_eq!(t.expect_project_id, Some(42));
    }

    #[test]
    fn url_errors() {
        let m = Mode::Gitlab { base: &base() };
        let e = resolve(&url("https://evil.example.com/g/p/-/blob/main/a"), m)
            .unwrap_err()
            .0;
        assert!(e.contains("gitlab.example.com"), "{e}");
        let e = resolve(&url("https://gitlab.example.com/g/p/-/blob/main"), m)
            .unwrap_err()
            .0;
        assert!(!e.is_empty());
        let e = resolve(&url("https://gitlab.example.com/g/p/-/blob/main/..%2Fx"), m)
            .unwrap_err()
            .0;
        assert!(e.contains("traversal"), "{e}");
    }

    #[test]
    fn sha_urls_are_exact() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let u = format!("https://gitlab.example.com/g/p/-/raw/{sha}/a/b.rs");
        let t = resolve(&url(&u), Mode::Gitlab { base: &base() }).unwrap();
        assert_eq!(
            t.lookup,
            Lookup::Exact {
                git_ref: sha.into(),
                path: "a/b.rs".into(),
                ref_type: None
            }
        );
    }
}
