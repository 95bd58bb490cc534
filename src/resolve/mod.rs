//! Arguments become a [`Target`]: which project, which ref and path (or which candidate splits
//! of a URL's "ref/path"), which lines. Pure: no I/O, so every rule has a table test.
//!
//! The rules follow GitLab's own tool: `url`, or `project_id` + `file_path` + `ref`, and with a
//! `url` any of the three must agree with it; a path is cleaned as [`clean_file_path`] says.
//! [`for_gitlab`] needs a project and a ref; [`for_local`] (the local repository) needs
//! neither: the ref defaults to `HEAD` and a project is checked, then ignored.
//!
//! The steps of a URL's "ref/path", in order: [`file_url`] parses the URL, [`candidates`]
//! enumerates its ref/path cuts and narrows them by `file_path`, `ref` and valid ref names, a
//! source gathers evidence about each (a repository question), and [`choice`] picks one.
//!
//! Beside them: the arguments as the agent sent them ([`args`]: JSON in, `ToolArgs` out, and
//! `ArgName`, the one list of their names) and git's ref-name rules ([`ref_name`]). May import
//! [`crate::window`] (a window's lines) and `base`; the sources, the view and the reader above
//! import it.

mod arg_name;
pub(crate) mod args;
pub(crate) mod candidates;
pub(crate) mod choice;
mod error;
pub(crate) mod file_url;
mod given;
pub(crate) mod ref_name;
pub(crate) mod split_error;

use crate::resolve::args::{ArgName, ToolArgs};
use crate::resolve::ref_name::RefType;
use crate::window::{DEFAULT_LIMIT, LineRequest};
pub(crate) use candidates::Candidate;
use candidates::Candidates;
pub(crate) use error::{PathError, ResolveError};
use file_url::{FileUrl, parse_file_url, parse_file_url_any_host};
pub(crate) use given::clean_file_path;
use given::{given_project, given_ref, given_url, trimmed};

/// How the project was named.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ProjectRef {
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
pub(crate) enum Lookup {
    /// Exactly this ref and path.
    Exact {
        git_ref: String,
        path: String,
        ref_type: Option<RefType>,
    },
    /// A URL whose "ref/path" splits several ways; the source picks one by GitLab's precedence.
    /// Candidates are in order of increasing ref length (at least two).
    Candidates {
        candidates: Vec<Candidate>,
        ref_type: Option<RefType>,
    },
}

/// A file of a GitLab project: what the GitLab source needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProjectFile {
    /// `project_id` + `file_path` + `ref`: one ref and path.
    Named {
        project: ProjectRef,
        git_ref: String,
        path: String,
    },
    /// A file URL: the project by full path, its ref/path as one or several candidate splits.
    Url {
        project_path: String,
        /// A numeric `project_id` given beside the URL: the URL's project must have this id.
        expect_project_id: Option<u64>,
        file: Lookup,
    },
}

/// Which vocabulary the next-window hint should use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HintStyle {
    OffsetLimit,
    StartEnd,
}

/// Everything a source (through `lookup`, its own kind of lookup) and the window step need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target<L> {
    pub lookup: L,
    pub lines: LineRequest,
    /// Whether the call named its lines (a line range, `offset`/`limit`, a URL's `#L` anchor);
    /// without, `lines` is the first [`DEFAULT_LIMIT`] lines of a call that asked for the file.
    pub lines_named: bool,
    pub hint_style: HintStyle,
    /// The caller's own `max_chars`, if sent (0 included): hints repeat it. The server's
    /// default budget is not the resolver's business.
    pub max_chars: Option<u64>,
    /// Whether each line is prefixed with its number.
    pub line_numbers: bool,
    /// The characters of the window's first line to skip (`column`; 0 when not sent).
    pub column: u64,
    /// With a `pattern`: the call finds lines instead of returning a window.
    pub search: Option<SearchArgs>,
    /// With `outline: true`: the call lists the file's definitions (those starting in the
    /// lines the call names, every one by default).
    pub outline: Option<OutlineArgs>,
    /// With a `symbol`: the call reads that definition's lines.
    pub symbol: Option<SymbolArgs>,
    /// With `history: true`: the call lists the commits that changed the file.
    pub history: Option<HistoryArgs>,
    /// With `blame: true`: the window's lines and who last changed each.
    pub blame: bool,
    /// With `diff_from`: the changes to the file from that ref (trimmed, not empty).
    pub diff_from: Option<String>,
    /// The blob id the caller holds (`if_none_match`), if sent: when the file is still that
    /// blob, no content. Past the arguments, the idea of a re-read is called `held`.
    pub held: Option<String>,
}

/// An outline's arguments, as sent (hints repeat them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutlineArgs {
    /// The lines whose definitions are listed, as for a search; `None` = the whole file.
    pub lines: Option<LineRequest>,
}

/// A history's page: `limit` commits after the newest `offset` (`offset`/`limit` as sent,
/// [`HISTORY_LIMIT`] and at most [`MAX_HISTORY_LIMIT`] by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HistoryArgs {
    pub offset: u64,
    pub limit: u64,
}

/// Commits a history page lists when the call does not say.
pub(crate) const HISTORY_LIMIT: u64 = 20;
/// The most commits a history page lists (GitLab's largest page).
pub(crate) const MAX_HISTORY_LIMIT: u64 = 100;

/// A symbol's arguments, as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SymbolArgs {
    /// The name, trimmed, not empty.
    pub name: String,
    /// The lines the call names: the window is the definition's lines within them (so a
    /// window's hint, followed with `symbol` kept, reads on); `None` = all of them.
    pub lines: Option<LineRequest>,
}

/// A search's arguments, as sent (hints repeat them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SearchArgs {
    pub pattern: String,
    pub ignore_case: Option<bool>,
    pub context_lines: Option<u64>,
    /// The lines searched: the call's window (its own arguments, else a URL's `#L` anchor),
    /// uncapped; `None` = the whole file.
    pub lines: Option<LineRequest>,
}

/// Resolves arguments for the GitLab instance at `base`: URLs must be on it; a project, a path
/// and a ref are required.
pub(crate) fn for_gitlab(
    args: &ToolArgs,
    base: &::url::Url,
) -> Result<Target<ProjectFile>, ResolveError> {
    if let Some(url) = given_url(args) {
        let parsed = parsed_url(url, Some(base))?;
        let expect_project_id = url_project_check(args, &parsed.project_path, true)?;
        let file = url_lookup(args, &parsed, url)?;
        let lookup = ProjectFile::Url {
            project_path: parsed.project_path,
            expect_project_id,
            file,
        };
        return Ok(target(args, &parsed.lines, lookup));
    }
    let project = match given_project(args)? {
        Some(p) => project_ref(p)?,
        None => return Err(ResolveError::Missing(ArgName::ProjectId)),
    };
    let (git_ref, path) = exact_ref_and_path(args, None)?;
    let lookup = ProjectFile::Named {
        project,
        git_ref,
        path,
    };
    Ok(target(args, &None, lookup))
}

/// Resolves arguments for the local repository: a URL on any host; the ref defaults to `HEAD`;
/// a `project_id` must be well-formed but is otherwise ignored.
pub(crate) fn for_local(args: &ToolArgs) -> Result<Target<Lookup>, ResolveError> {
    if let Some(url) = given_url(args) {
        let parsed = parsed_url(url, None)?;
        url_project_check(args, &parsed.project_path, false)?;
        let file = url_lookup(args, &parsed, url)?;
        return Ok(target(args, &parsed.lines, file));
    }
    if let Some(p) = given_project(args)? {
        project_ref(p)?;
    }
    let (git_ref, path) = exact_ref_and_path(args, Some("HEAD"))?;
    let lookup = Lookup::Exact {
        git_ref,
        path,
        ref_type: None,
    };
    Ok(target(args, &None, lookup))
}

fn target<L>(args: &ToolArgs, anchor: &Option<file_url::LineAnchor>, lookup: L) -> Target<L> {
    let anchor = anchor.map(|a| (a.start, a.end));
    let (lines, hint_style) = line_request(args, anchor);
    let search = args.pattern.as_ref().map(|pattern| SearchArgs {
        pattern: pattern.clone(),
        ignore_case: args.ignore_case,
        context_lines: args.context_lines,
        lines: given_lines(args, anchor).map(|(req, _)| req),
    });
    let outline = (args.outline == Some(true)).then(|| OutlineArgs {
        lines: given_lines(args, anchor).map(|(req, _)| req),
    });
    Target {
        lookup,
        lines,
        lines_named: given_lines(args, anchor).is_some(),
        hint_style,
        max_chars: args.max_chars,
        line_numbers: args.line_numbers.unwrap_or(false),
        column: args.column.unwrap_or(0),
        search,
        outline,
        symbol: trimmed(args.symbol.as_deref()).map(|name| SymbolArgs {
            name: name.to_string(),
            lines: given_lines(args, anchor).map(|(req, _)| req),
        }),
        held: trimmed(args.if_none_match.as_deref()).map(str::to_string),
        blame: args.blame == Some(true),
        diff_from: trimmed(args.diff_from.as_deref()).map(str::to_string),
        history: (args.history == Some(true)).then(|| HistoryArgs {
            offset: args.offset.unwrap_or(0),
            limit: args.limit.unwrap_or(HISTORY_LIMIT).min(MAX_HISTORY_LIMIT),
        }),
    }
}

/// The file URL `url`, on the instance `base` when there is one (else on any host).
///
/// A URL whose path holds a `.` or `..` segment (raw or percent-encoded) is refused before
/// parsing: the URL parser would resolve it silently, and `a/../../other/proj` would read
/// another project than the one the URL seems to name.
fn parsed_url(url: &str, base: Option<&::url::Url>) -> Result<FileUrl, ResolveError> {
    if let Some(path) = file_url::dot_segment_path(url) {
        return Err(ResolveError::UrlPath {
            url: url.to_string(),
            error: PathError::Traversal { path },
        });
    }
    Ok(match base {
        Some(base) => parse_file_url(url, base)?,
        None => parse_file_url_any_host(url)?,
    })
}

/// `ref` and `file_path` of a call without a URL; `default_ref` stands in for a missing ref.
fn exact_ref_and_path(
    args: &ToolArgs,
    default_ref: Option<&str>,
) -> Result<(String, String), ResolveError> {
    let path = match &args.file_path {
        Some(p) => clean_file_path(p)?,
        None => return Err(ResolveError::Missing(ArgName::FilePath)),
    };
    // `given_ref` has checked the ref as sent; the default is a constant.
    let git_ref = match given_ref(args)?.or(default_ref) {
        Some(r) => r.to_string(),
        None => return Err(ResolveError::Missing(ArgName::Ref)),
    };
    Ok((git_ref, path))
}

/// A `project_id` given beside a URL: a numeric id is returned, to be checked against the id
/// of the project the URL names once it is known; a full path must name the URL's project
/// (case-insensitively) when `paths_must_agree`.
fn url_project_check(
    args: &ToolArgs,
    url_project: &str,
    paths_must_agree: bool,
) -> Result<Option<u64>, ResolveError> {
    let Some(given) = given_project(args)? else {
        return Ok(None);
    };
    match project_ref(given)? {
        ProjectRef::Id(id) => Ok(Some(id)),
        ProjectRef::Path(p) if paths_must_agree && !p.eq_ignore_ascii_case(url_project) => {
            Err(ResolveError::ProjectMismatch {
                given: given.to_string(),
                in_url: url_project.to_string(),
            })
        }
        ProjectRef::Path(_) => Ok(None),
    }
}

/// The ref/path a URL names: its candidate splits, narrowed by `file_path` and `ref` when the
/// call gives them; one left (or a SHA) is exact.
fn url_lookup(args: &ToolArgs, parsed: &FileUrl, url: &str) -> Result<Lookup, ResolveError> {
    // A SHA is one candidate, and a valid ref name.
    let candidates = match candidates::enumerate(&parsed.ref_and_path)? {
        Candidates::Sha(s) => vec![s],
        Candidates::Segments(c) => c,
    };
    let mut kept = candidates::narrow(candidates, args, url)?;
    let ref_type = parsed.ref_type;
    Ok(if kept.len() == 1 {
        let s = kept.swap_remove(0);
        Lookup::Exact {
            git_ref: s.git_ref,
            path: s.path,
            ref_type,
        }
    } else {
        Lookup::Candidates {
            candidates: kept,
            ref_type,
        }
    })
}

/// The requested lines: a line range by forgejo-mcp's rules ([`LineRequest::from_line_args`]:
/// below 1 clamps, `0`/`0` is none), else offset/limit, else a URL's `#L` anchor, else the first
/// [`DEFAULT_LIMIT`] lines.
fn line_request(args: &ToolArgs, anchor: Option<(u64, Option<u64>)>) -> (LineRequest, HintStyle) {
    given_lines(args, anchor).unwrap_or((
        LineRequest::OffsetLimit {
            offset: 0,
            limit: DEFAULT_LIMIT,
        },
        HintStyle::OffsetLimit,
    ))
}

/// The lines the call names: its `start_line`/`end_line`, else its `offset`/`limit` (either
/// one), else the URL's anchor; `None` when it names none.
fn given_lines(
    args: &ToolArgs,
    anchor: Option<(u64, Option<u64>)>,
) -> Option<(LineRequest, HintStyle)> {
    if let Some(req) = LineRequest::from_line_args(args.start_line, args.end_line) {
        return Some((req, HintStyle::StartEnd));
    }
    if args.offset.is_some() || args.limit.is_some() {
        let req = LineRequest::OffsetLimit {
            offset: args.offset.unwrap_or(0),
            limit: args.limit.unwrap_or(DEFAULT_LIMIT),
        };
        return Some((req, HintStyle::OffsetLimit));
    }
    anchor.map(|(start, end)| {
        let req = LineRequest::StartEnd {
            start: Some(start),
            end: Some(end.unwrap_or(start)),
        };
        (req, HintStyle::OffsetLimit)
    })
}

/// `"42"`, `"0042"` → `Id(42)`; anything with a non-digit → `Path` (trimmed of `/`).
pub(crate) fn project_ref(raw: &str) -> Result<ProjectRef, ResolveError> {
    let raw = raw.trim();
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
        return raw
            .parse()
            .map(ProjectRef::Id)
            .map_err(|_| ResolveError::ProjectIdTooLarge {
                raw: raw.to_string(),
            });
    }
    let path = raw.trim_matches('/');
    if path.is_empty() || path.chars().any(char::is_control) {
        return Err(ResolveError::NotAProject {
            raw: raw.to_string(),
        });
    }
    Ok(ProjectRef::Path(path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> ::url::Url {
        ::url::Url::parse("https://gitlab.example.com").unwrap()
    }

    /// Which resolver a test calls.
    #[derive(Clone, Copy)]
    enum Mode<'a> {
        Gitlab { base: &'a ::url::Url },
        Local,
    }

    /// Either resolver's answer, flattened for assertions.
    #[derive(Debug)]
    struct Resolved {
        project: Option<ProjectRef>,
        expect_project_id: Option<u64>,
        lookup: Lookup,
        lines: LineRequest,
        hint_style: HintStyle,
    }

    fn resolve(args: &ToolArgs, mode: Mode<'_>) -> Result<Resolved, ResolveError> {
        Ok(match mode {
            Mode::Gitlab { base } => {
                let t = for_gitlab(args, base)?;
                let (project, expect_project_id, lookup) = match t.lookup {
                    ProjectFile::Named {
                        project,
                        git_ref,
                        path,
                    } => (
                        project,
                        None,
                        Lookup::Exact {
                            git_ref,
                            path,
                            ref_type: None,
                        },
                    ),
                    ProjectFile::Url {
                        project_path,
                        expect_project_id,
                        file,
                    } => (ProjectRef::Path(project_path), expect_project_id, file),
                };
                Resolved {
                    project: Some(project),
                    expect_project_id,
                    lookup,
                    lines: t.lines,
                    hint_style: t.hint_style,
                }
            }
            Mode::Local => {
                let t = for_local(args)?;
                Resolved {
                    project: None,
                    expect_project_id: None,
                    lookup: t.lookup,
                    lines: t.lines,
                    hint_style: t.hint_style,
                }
            }
        })
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
    fn clean_file_path_table() {
        let ok = [
            ("a.txt", "a.txt"),
            ("/a/b.rs", "a/b.rs"),
            ("  src/x  ", "src/x"),
            ("a..b/c", "a..b/c"),
            ("...", "..."),
            ("dir/.hidden", "dir/.hidden"),
        ];
        for (input, want) in ok {
            assert_eq!(clean_file_path(input).unwrap(), want, "{input:?}");
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
            // Trailing control characters are refused, not trimmed away.
            ("README.md\n", "control"),
            ("README.md\r", "control"),
            ("README.md\r\n", "control"),
            ("\tREADME.md", "control"),
        ];
        for (input, want) in bad {
            let e = ResolveError::from(clean_file_path(input).unwrap_err()).to_string();
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
            let e = resolve(&args, m).unwrap_err().to_string();
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
    fn seed_line_rules() {
        let m = Mode::Gitlab { base: &base() };
        let lines = |start: Option<i64>, end: Option<i64>, offset: Option<u64>| {
            let a = ToolArgs {
                start_line: start,
                end_line: end,
                offset,
                ..ids("p/q", "f", "main")
            };
            let t = resolve(&a, m).unwrap();
            (t.lines, t.hint_style)
        };
        let start_end = |start, end| (LineRequest::StartEnd { start, end }, HintStyle::StartEnd);
        let offset_limit = |offset| {
            let req = LineRequest::OffsetLimit { offset, limit: 500 };
            (req, HintStyle::OffsetLimit)
        };
        assert_eq!(lines(Some(-5), Some(3), None), start_end(None, Some(3)));
        assert_eq!(lines(Some(4), Some(0), None), start_end(Some(4), None));
        assert_eq!(lines(Some(0), Some(-1), None), start_end(None, None));
        // Both 0: no line range, so the default window, or offset/limit.
        assert_eq!(lines(Some(0), Some(0), None), offset_limit(0));
        assert_eq!(lines(Some(0), Some(0), Some(7)), offset_limit(7));
        // ... and a URL's anchor.
        let u = "https://gitlab.example.com/grp/proj/-/blob/main/a.rs#L10-20";
        let t = resolve(
            &ToolArgs {
                start_line: Some(0),
                end_line: Some(0),
                ..url(u)
            },
            m,
        )
        .unwrap();
        assert_eq!(t.lines, start_end(Some(10), Some(20)).0);
    }

    #[test]
    fn the_callers_budget_and_numbers_are_carried() {
        let a = ToolArgs {
            max_chars: Some(0),
            line_numbers: Some(true),
            ..ids("p/q", "f", "main")
        };
        let t = for_gitlab(&a, &base()).unwrap();
        assert_eq!((t.max_chars, t.line_numbers), (Some(0), true));
        let t = for_local(&ids("p/q", "f", "main")).unwrap();
        assert_eq!((t.max_chars, t.line_numbers), (None, false));
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
            Lookup::Candidates { candidates, .. } => {
                assert_eq!(
                    candidates[0],
                    Candidate {
                        git_ref: "main".into(),
                        path: "src/lib.rs".into()
                    }
                );
                assert_eq!(
                    candidates[1],
                    Candidate {
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
        .to_string();
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
        .to_string();
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
        .to_string();
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
            .to_string();
        assert!(e.contains("gitlab.example.com"), "{e}");
        let e = resolve(&url("https://gitlab.example.com/g/p/-/blob/main"), m)
            .unwrap_err()
            .to_string();
        assert!(!e.is_empty());
        let e = resolve(&url("https://gitlab.example.com/g/p/-/blob/main/..%2Fx"), m)
            .unwrap_err()
            .to_string();
        assert!(e.contains("traversal"), "{e}");
    }

    #[test]
    fn control_characters_in_ref_and_project_are_refused_not_trimmed() {
        let m = Mode::Gitlab { base: &base() };
        for args in [
            ids("g/p", "README.md", "main\n"),
            ids("g/p", "README.md", "main\r"),
        ] {
            let e = resolve(&args, m).unwrap_err().to_string();
            assert!(e.contains("control characters"), "{e}");
        }
        let e = resolve(&ids("g/p\n", "README.md", "main"), m)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a project id"), "{e}");
        // Spaces around are still dropped.
        let t = resolve(&ids(" g/p ", " README.md ", " main "), m).unwrap();
        assert_eq!(
            t.lookup,
            Lookup::Exact {
                git_ref: "main".into(),
                path: "README.md".into(),
                ref_type: None
            }
        );
    }

    #[test]
    fn dot_segments_in_urls_are_traversal_before_parsing() {
        for u in [
            "https://gitlab.example.com/pub/proj/-/blob/main/../../../../../other/secret/-/blob/main/README.md",
            "https://gitlab.example.com/pub/proj/-/blob/main/%2e%2e/%2E%2e/x/y/-/blob/main/README.md",
            "https://gitlab.example.com/g/p/-/blob/main/./README.md",
        ] {
            for mode in [Mode::Gitlab { base: &base() }, Mode::Local] {
                let e = resolve(&url(u), mode).unwrap_err();
                assert!(
                    matches!(
                        e,
                        ResolveError::UrlPath {
                            error: PathError::Traversal { .. },
                            ..
                        }
                    ),
                    "{u}: {e:?}"
                );
                assert!(e.to_string().contains("path traversal"), "{e}");
            }
        }
    }

    #[test]
    fn candidates_whose_ref_is_no_ref_name_are_dropped() {
        let m = Mode::Gitlab { base: &base() };
        // `main/dir with space` cannot be a ref: only `main` is left, so the lookup is exact.
        let u = "https://gitlab.example.com/grp/proj/-/blob/main/dir%20with%20space/file%20name.md";
        assert_eq!(
            resolve(&url(u), m).unwrap().lookup,
            Lookup::Exact {
                git_ref: "main".into(),
                path: "dir with space/file name.md".into(),
                ref_type: None
            }
        );
        let u = "https://gitlab.example.com/g/p/-/blob/v1.0/a.lock/b..c/x.rs";
        match resolve(&url(u), m).unwrap().lookup {
            Lookup::Candidates { candidates, .. } => {
                let refs: Vec<&str> = candidates.iter().map(|c| c.git_ref.as_str()).collect();
                assert_eq!(refs, ["v1.0"], "{candidates:?}");
            }
            Lookup::Exact { git_ref, .. } => assert_eq!(git_ref, "v1.0"),
        }
        // None can be a ref: GitLab's own first-segment split is kept, for GitLab to judge.
        let u = "https://gitlab.example.com/g/p/-/blob/ma%20in/x/y";
        assert_eq!(
            resolve(&url(u), m).unwrap().lookup,
            Lookup::Exact {
                git_ref: "ma in".into(),
                path: "x/y".into(),
                ref_type: None
            }
        );
        // Valid splits stay candidates.
        let u = "https://gitlab.example.com/g/p/-/blob/release/2026/x.rs";
        assert!(matches!(
            resolve(&url(u), m).unwrap().lookup,
            Lookup::Candidates { .. }
        ));
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
