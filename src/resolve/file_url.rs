//! Parsing GitLab file URLs (pure).
//!
//! An agent may name a file by its GitLab web URL, for example
//! `https://gitlab.example.com/group/sub/proj/-/blob/release/2026/q4/src/main.rs#L10-20`.
//! [`parse_file_url`] checks the URL against the configured instance and cuts it into the
//! project path, the percent-decoded "ref/path" string, the `?ref_type=` hint and the `#L…`
//! line anchor ([`FileUrl`]). The "ref/path" string's candidate cuts are
//! [`super::candidates`]'s.
//!
//! The rules follow GitLab's MCP URL parser (`Mcp::Tools::Concerns::UrlParser`). Where this module differs from them on
//! purpose, the function's documentation says so.

use crate::base::quote::shown;
use crate::resolve::ref_name::RefType;
use ::url::Url;
use percent_encoding::percent_decode_str;
use std::fmt::{self, Display, Formatter};

/// A line range from a URL fragment such as `#L10` or `#L10-20`.
///
/// Lines are 1-indexed and the range is inclusive. `start` is at least 1.
/// `end`, when present, is at least 1 but is NOT checked against `start`:
/// `#L20-10` gives `start: 20, end: Some(10)` and the caller reports the
/// inversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineAnchor {
    /// First line, 1-indexed.
    pub start: u64,
    /// Last line, 1-indexed and inclusive; `None` for a single-line anchor
    /// (`#L10`).
    pub end: Option<u64>,
}

impl LineAnchor {
    /// Parses a URL fragment (without the `#`) as a GitLab line anchor.
    ///
    /// Accepted forms, exactly: `L<n>`, `L<n>-<m>` and `L<n>-L<m>`, where
    /// `<n>` and `<m>` are ASCII decimal numbers (leading zeros allowed) that
    /// fit in a `u64` and are not zero. The `L` is upper case only, as
    /// GitLab's UI writes it.
    ///
    /// Anything else returns `None`, so the anchor is ignored rather than
    /// failing the whole URL: `#foo`, `#L`, `#L0`, `#L10-`, `#L10-0`,
    /// `#L-5`, `#l10`, `#L10,20`, `#L+5`, `#L 5`, and numbers too large for
    /// a `u64`.
    fn from_fragment(fragment: &str) -> Option<LineAnchor> {
        let body = fragment.strip_prefix('L')?;
        let (start, end) = match body.split_once('-') {
            None => (body, None),
            Some((start, end)) => (start, Some(end.strip_prefix('L').unwrap_or(end))),
        };
        let start = parse_line_number(start)?;
        let end = match end {
            None => None,
            Some(end) => Some(parse_line_number(end)?),
        };
        Some(LineAnchor { start, end })
    }
}

/// Parses a 1-indexed line number: one or more ASCII digits, value in
/// `1..=u64::MAX`. Signs, spaces, the empty string and zero give `None`.
fn parse_line_number(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok().filter(|&n| n > 0)
}

/// The parts of a GitLab file URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileUrl {
    /// Full path of the project, percent-decoded, without leading or
    /// trailing `/`, e.g. `group/sub/proj`. Never empty.
    pub project_path: String,
    /// Everything after the `/-/blob/` (or other) marker, percent-decoded,
    /// e.g. `release/2026/q4/src/main.rs`. May be empty, may lack a `/` and
    /// may end in `/`: [`super::candidates::enumerate`] reports those cases.
    pub ref_and_path: String,
    /// From `?ref_type=heads|tags`; `None` when absent or another value.
    pub ref_type: Option<RefType>,
    /// From a `#L10`, `#L10-20` or `#L10-L20` fragment; `None` otherwise.
    pub lines: Option<LineAnchor>,
}

/// Why a URL could not be used to name a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UrlError {
    /// The URL's scheme, host or port differ from the configured GitLab base
    /// URL. Nothing else about the URL was looked at.
    ForeignHost {
        /// The configured instance, e.g. `https://gitlab.example.com/gitlab`.
        configured: String,
        /// The URL's origin, e.g. `https://gitlab.other.com:8443`.
        got: String,
    },
    /// Anything else that makes the URL unusable.
    Invalid {
        /// The URL as the caller gave it.
        url: String,
        /// What is wrong with it.
        #[source]
        problem: UrlProblem,
    },
}

/// What a file URL looks like, for a URL that is not one.
const URL_FORM: &str = "Expected .../-/blob/<ref>/<file_path> (/-/raw/ and /-/blame/ also work), \
for example https://gitlab.example.com/group/project/-/blob/main/README.md; or pass project_id, \
file_path and ref instead of url.";

impl Display for UrlError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::ForeignHost { configured, got } => write!(
                f,
                "URL host '{}' is not the configured GitLab instance '{configured}'; \
                 this server only reads from {configured}. Pass a URL on {configured}, \
                 or project_id/file_path/ref.",
                shown(got)
            ),
            UrlError::Invalid { url, problem } => write!(
                f,
                "Invalid file URL '{}': {} {URL_FORM}",
                shown(url),
                problem
            ),
        }
    }
}

/// What makes a URL on the right host unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UrlProblem {
    /// Empty or all spaces.
    Empty,
    /// No `scheme://`.
    NoScheme,
    /// No host name.
    NoHost,
    /// A port that is not a number from 0 to 65535.
    BadPort,
    /// The URL parser's other refusals.
    NotAUrl {
        #[source]
        cause: ::url::ParseError,
    },
    /// Not http or https.
    Scheme { scheme: String },
    /// Not under the instance's relative URL root.
    NotUnderRoot { root: String, configured: String },
    /// Nothing before the file marker.
    NoProject,
    /// `/-/<marker>/` with nothing before it.
    NoProjectBefore { marker: String },
    /// A `/-/tree/` URL (a directory).
    Tree,
    /// An old-style `…/tree/…` URL (a directory).
    LegacyTree,
    /// `/-/<page>/` for a page that is not a file.
    OtherPage { page: String },
    /// No `/-/blob/`, `/-/raw/` or `/-/blame/` part.
    NoMarker,
}

/// The sentence saying what is wrong with a URL (the middle of an "Invalid file URL" message).
impl Display for UrlProblem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let open_a_file = "not a file; open a file in that directory and pass its /-/blob/ URL.";
        let text: String = match self {
            UrlProblem::Empty => "The URL is empty.".into(),
            UrlProblem::NoScheme => {
                "It has no scheme; a file URL starts with https:// or http://.".into()
            }
            UrlProblem::NoHost => "It has no host name.".into(),
            UrlProblem::BadPort => "Its port is not a number from 0 to 65535.".into(),
            UrlProblem::NotAUrl { cause } => format!("It is not a valid URL ({cause})."),
            UrlProblem::Scheme { scheme } => {
                format!("Only http and https URLs are supported, not '{scheme}:'.")
            }
            UrlProblem::NotUnderRoot { root, configured } => format!(
                "Its path is not under the GitLab instance's relative URL root '{root}' (configured as {configured})."
            ),
            UrlProblem::NoProject => "It has no project path before the file marker.".into(),
            UrlProblem::NoProjectBefore { marker } => {
                format!("It has no project path before /-/{marker}/.")
            }
            UrlProblem::LegacyTree => format!("It points at a directory (tree), {open_a_file}"),
            UrlProblem::Tree => format!("It points at a directory (/-/tree/), {open_a_file}"),
            UrlProblem::OtherPage { page } => format!(
                "'/-/{}/' URLs do not name a file; only /-/blob/, /-/raw/ and /-/blame/ URLs do.",
                shown(page)
            ),
            UrlProblem::NoMarker => {
                "It does not point at a file: its path has no /-/blob/, /-/raw/ or /-/blame/ part."
                    .into()
            }
        };
        f.write_str(&text)
    }
}

impl UrlError {
    /// Builds an [`UrlError::Invalid`] for `input`.
    fn invalid(input: &str, problem: UrlProblem) -> UrlError {
        UrlError::Invalid {
            url: input.to_string(),
            problem,
        }
    }
}

/// Parses a GitLab file URL on the instance configured as `base`.
///
/// `base` is the instance URL, possibly with a relative URL root
/// (`https://host/gitlab`, with or without a trailing `/`); its query and
/// fragment are ignored. Steps, in order:
///
/// 1. `input` must parse as an absolute `http` or `https` URL, else
///    [`UrlError::Invalid`]. Parsing follows the WHATWG URL standard, as a
///    browser would: surrounding spaces are trimmed, `\` counts as `/`, and
///    `.`/`..` path segments (also `%2e`) are resolved before anything else
///    (callers refuse such URLs first, with [`dot_segment_path`]).
/// 2. Scheme, host and port must equal those of `base`, else
///    [`UrlError::ForeignHost`] and nothing else is looked at. Hosts are
///    compared after the URL parser normalises them (lower case, IPv6
///    literals in canonical form, IDNA to punycode); ports are compared
///    with default ports filled in, so `https://h` and `https://h:443` are
///    the same. A trailing dot makes a different host (`h.` is not `h`).
///    User name and password in `input` are ignored.
/// 3. The path must start with the base's relative root followed by `/` or
///    the end of the path: root `/gitlab` accepts `/gitlab/g/p/…` but not
///    `/gitlab-org/p/…` (that is [`UrlError::Invalid`]). The comparison is
///    on the still-encoded path and is case-sensitive.
/// 4. The rest is cut at its file marker. The first `-` segment decides:
///    `/-/blob/`, `/-/raw/` or `/-/blame/` is the marker, while `/-/tree/`
///    (a directory) or any other `/-/<page>/` is [`UrlError::Invalid`].
///    Only when the path has no `-` segment, the older `/blob/`, `/raw/` or
///    `/blame/` is looked for, after at least two project segments. The
///    project path and the remainder are percent-decoded: `%20` is a space,
///    `+` stays `+`, `%2F` is `/`, invalid UTF-8 becomes U+FFFD and NUL
///    characters are removed.
/// 5. The last `ref_type` query parameter gives [`FileUrl::ref_type`]
///    (`heads` or `tags`, any ASCII case); other values and other query
///    parameters are ignored. A `#L…` fragment gives [`FileUrl::lines`]
///    (see [`LineAnchor`]); other fragments are ignored.
pub(crate) fn parse_file_url(input: &str, base: &Url) -> Result<FileUrl, UrlError> {
    let url = parse_http_url(input)?;
    if !same_origin(&url, base) {
        return Err(UrlError::ForeignHost {
            configured: base_display(base),
            got: origin_display(&url),
        });
    }
    let root = relative_root(base);
    let Some(path) = strip_relative_root(url.path(), root) else {
        return Err(UrlError::invalid(
            input,
            UrlProblem::NotUnderRoot {
                root: root.to_string(),
                configured: base_display(base),
            },
        ));
    };
    file_url_from_parts(input, &url, path)
}

/// Parses a GitLab file URL on any host.
///
/// Used for a local repository, where the URL's host does not matter. The
/// same as [`parse_file_url`] without steps 2 and 3: no host check and no
/// relative root, so the project path is everything before the marker
/// (`https://h/gitlab/g/p/-/blob/main/x` gives project `gitlab/g/p`). The
/// URL must still be `http` or `https`.
pub(crate) fn parse_file_url_any_host(input: &str) -> Result<FileUrl, UrlError> {
    let url = parse_http_url(input)?;
    file_url_from_parts(input, &url, url.path())
}

/// The raw path of `input` (before the URL parser touches it) when one of its segments is a
/// dot segment: `.` or `..`, also percent-encoded (`%2e`, `.%2E`, `%2e%2e`, any case), with
/// `\` counting as `/` as it does in http(s) URLs. `None` when there is none.
///
/// The URL parser resolves dot segments at parse time (`g/p/-/blob/main/../../x` becomes
/// `g/x`), silently switching project or path, so they must be found on the raw input. As the
/// parser does, ASCII tabs and newlines anywhere and surrounding spaces and control characters
/// are ignored first. GitLab never names a file with such a segment, so none is lost.
pub(crate) fn dot_segment_path(input: &str) -> Option<String> {
    let cleaned: String = input
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let path = raw_path(&cleaned);
    let is_dot = |segment: &str| {
        let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
        decoded == "." || decoded == ".."
    };
    path.split(['/', '\\'])
        .any(is_dot)
        .then(|| path.to_string())
}

/// The path part of a raw URL string: after `scheme:` and the authority, before `?` or `#`.
/// Without a scheme, the whole string up to `?` or `#` (such input is refused later anyway).
fn raw_path(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..end];
    let scheme_end = url.find(':').filter(|&i| {
        i > 0
            && url[..i]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    });
    let Some(colon) = scheme_end else {
        return url;
    };
    let after = url[colon + 1..].trim_start_matches(['/', '\\']);
    let authority_end = after.find(['/', '\\']).unwrap_or(after.len());
    &after[authority_end..]
}

/// Parses `input` as an absolute URL whose scheme is `http` or `https`.
///
/// Empty or all-space input, input without a scheme (`gitlab.com/g/p`),
/// input the URL parser rejects, and any other scheme (`ftp:`, `file:`,
/// `ssh:`, `git@host:g/p.git`) are [`UrlError::Invalid`] with a reason that
/// says which.
fn parse_http_url(input: &str) -> Result<Url, UrlError> {
    if input.trim().is_empty() {
        return Err(UrlError::invalid(input, UrlProblem::Empty));
    }
    let url = Url::parse(input).map_err(|err| {
        let problem = match err {
            ::url::ParseError::RelativeUrlWithoutBase => UrlProblem::NoScheme,
            ::url::ParseError::EmptyHost => UrlProblem::NoHost,
            ::url::ParseError::InvalidPort => UrlProblem::BadPort,
            other => UrlProblem::NotAUrl { cause: other },
        };
        UrlError::invalid(input, problem)
    })?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(UrlError::invalid(
            input,
            UrlProblem::Scheme {
                scheme: other.to_string(),
            },
        )),
    }
}

/// Whether `a` and `b` have the same scheme, host and port, with default
/// ports filled in. Hosts compare as the URL parser normalised them.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host() == b.host()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// `scheme://host[:port]` of `url`, without user info; the port is shown only
/// when it is not the scheme's default. IPv6 hosts keep their brackets.
fn origin_display(url: &Url) -> String {
    let mut out = format!("{}://{}", url.scheme(), url.host_str().unwrap_or(""));
    if let Some(port) = url.port() {
        out.push_str(&format!(":{port}"));
    }
    out
}

/// The configured instance for messages: its origin followed by its
/// relative root, e.g. `https://h/gitlab` (no trailing `/`).
fn base_display(base: &Url) -> String {
    format!("{}{}", origin_display(base), relative_root(base))
}

/// The relative URL root of `base`: its path without trailing `/`s, so `""`
/// for `https://h` and `https://h/`, and `/gitlab` for `https://h/gitlab` and
/// `https://h/gitlab/`. Still percent-encoded.
fn relative_root(base: &Url) -> &str {
    base.path().trim_end_matches('/')
}

/// Removes the relative root `root` from the start of `path`.
///
/// `root` is `""` (no root: `path` is returned as is) or starts with `/` and
/// does not end with `/`. The root must be followed in `path` by `/` or the
/// end of `path`: with root `/gitlab`, `/gitlab/g/p` gives `/g/p`, `/gitlab`
/// gives `""`, and `/gitlab-org/p` and `/other` give `None`. Case-sensitive.
fn strip_relative_root<'p>(path: &'p str, root: &str) -> Option<&'p str> {
    if root.is_empty() {
        return Some(path);
    }
    let rest = path.strip_prefix(root)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// Builds the [`FileUrl`] from the parsed `url` and its `path` with any
/// relative root already removed.
fn file_url_from_parts(input: &str, url: &Url, path: &str) -> Result<FileUrl, UrlError> {
    let parts = split_at_marker(path).map_err(|problem| UrlError::invalid(input, problem))?;
    let project_path = decode_component(parts.project);
    let project_path = project_path.trim_matches('/');
    if project_path.is_empty() {
        return Err(UrlError::invalid(input, UrlProblem::NoProject));
    }
    Ok(FileUrl {
        project_path: project_path.to_string(),
        ref_and_path: decode_component(parts.rest),
        ref_type: ref_type_of(url),
        lines: url.fragment().and_then(LineAnchor::from_fragment),
    })
}

/// A URL path cut at its file marker; both parts still percent-encoded.
#[derive(Debug, PartialEq, Eq)]
struct MarkerSplit<'a> {
    /// The path before the marker, without leading or trailing `/`.
    project: &'a str,
    /// The path after the marker and its following `/`; may be empty.
    rest: &'a str,
}

/// The path segments that mark a file URL: `blob`, `raw` and `blame`.
const FILE_MARKERS: [&str; 3] = ["blob", "raw", "blame"];

/// Cuts a still-encoded URL path (relative root removed) at its file marker.
///
/// Leading `/`s are ignored. Segments are compared still encoded and
/// case-sensitively, as GitLab's router does (`%2D` is not `-`, `BLOB` is
/// not `blob`).
///
/// The current form, `<project>/-/blob|raw|blame/<rest>`: the first segment
/// that is exactly `-` decides. GitLab reserves `-` as a path name, so no
/// group or project is called `-` and the project path is exactly the
/// segments before it. If the segment after `-` is `blob`, `raw` or `blame`,
/// the project is what precedes the `-` and the rest is what follows the
/// marker's `/` (empty when the path ends at the marker, e.g. `g/p/-/blob` or
/// `g/p/-/blob/`). Any other segment after `-` is an error: `tree` (a
/// directory), `commits`, `merge_requests`, … . A `-` as the first segment
/// (no project) is an error too. Unlike GitLab's regex, a later
/// `/-/blob/` is never searched for past an earlier `/-/<other>/`.
///
/// The older form without `/-/`, `<project>/blob|raw|blame/<rest>`, still
/// served by GitLab, is tried only when the path has no `-` segment. It is
/// ambiguous, because groups and projects may be called `blob`, `raw` or
/// `blame`. The project must have at least two non-empty segments
/// (namespace and project), so the marker is the first `blob`, `raw` or
/// `blame` segment after at least two non-empty segments, and it must be
/// followed by a non-empty rest: `blob/proj/blob/main/x` is project
/// `blob/proj`, and `g/p/blob/main/raw/x` is project `g/p` with rest
/// `main/raw/x`. Taking the first marker keeps directories named `blob` or
/// `raw` inside the file path working; the cost is that a subgroup named
/// `blob`, `raw` or `blame` at depth three or more (`g/sub/raw/p/blob/…`)
/// is cut too early. The `/-/` form has no such ambiguity.
///
/// The error is the [`UrlProblem`] of an [`UrlError::Invalid`].
fn split_at_marker(path: &str) -> Result<MarkerSplit<'_>, UrlProblem> {
    let path = path.trim_start_matches('/');
    let segments = segment_spans(path);
    if let Some(dash) = segments.iter().position(|&(_, seg)| seg == "-") {
        return split_at_dash(path, &segments, dash);
    }
    let mut named = 0usize;
    for (i, &(start, seg)) in segments.iter().enumerate() {
        let rest = segments
            .get(i + 1)
            .map_or("", |&(rest_start, _)| &path[rest_start..]);
        if named >= 2 && FILE_MARKERS.contains(&seg) && !rest.is_empty() {
            return Ok(MarkerSplit {
                project: path[..start].trim_end_matches('/'),
                rest,
            });
        }
        if !seg.is_empty() {
            named += 1;
        }
    }
    let legacy_tree = segments.iter().skip(2).any(|&(_, seg)| seg == "tree");
    Err(if legacy_tree {
        UrlProblem::LegacyTree
    } else {
        UrlProblem::NoMarker
    })
}

/// The `/-/` half of `split_at_marker`: `segments[dash]` is the first `-`
/// segment of `path`.
fn split_at_dash<'p>(
    path: &'p str,
    segments: &[(usize, &'p str)],
    dash: usize,
) -> Result<MarkerSplit<'p>, UrlProblem> {
    // `dash` is an index into `segments` (the caller found it there), so
    // this cannot panic.
    let (dash_start, _) = segments[dash];
    let project = path[..dash_start].trim_end_matches('/');
    match segments.get(dash + 1).map(|&(_, seg)| seg) {
        Some(marker) if FILE_MARKERS.contains(&marker) => {
            if project.is_empty() {
                return Err(UrlProblem::NoProjectBefore {
                    marker: marker.to_string(),
                });
            }
            let rest = segments
                .get(dash + 2)
                .map_or("", |&(start, _)| &path[start..]);
            Ok(MarkerSplit { project, rest })
        }
        Some("tree") => Err(UrlProblem::Tree),
        Some(other) if !other.is_empty() => Err(UrlProblem::OtherPage {
            page: other.to_string(),
        }),
        _ => Err(UrlProblem::NoMarker),
    }
}

/// The `/`-separated segments of `path` with their byte offsets: `"a//b"`
/// gives `[(0, "a"), (2, ""), (3, "b")]`, `""` gives `[(0, "")]`, and
/// `"a/"` gives `[(0, "a"), (2, "")]`.
fn segment_spans(path: &str) -> Vec<(usize, &str)> {
    let mut start = 0;
    path.split('/')
        .map(|seg| {
            let span = (start, seg);
            start += seg.len() + 1;
            span
        })
        .collect()
}

/// Percent-decodes one still-encoded URL component the way GitLab does
/// (`Addressable::URI.unescape(s).scrub.delete("\0")`).
///
/// `%XX` becomes byte `XX` (`%20` is a space, `%2F` a `/`, `%C3%A9` is
/// `é`); `+` stays `+`; a `%` not followed by two hex digits stays as is.
/// Byte sequences that are not UTF-8 after decoding become U+FFFD, and NUL
/// characters (`%00`) are removed.
fn decode_component(raw: &str) -> String {
    let decoded = percent_decode_str(raw).decode_utf8_lossy();
    if decoded.contains('\0') {
        decoded.chars().filter(|&c| c != '\0').collect()
    } else {
        decoded.into_owned()
    }
}

/// Reads a `ref_type` query value as GitLab does
/// (`ExtractsRef::RefExtractor.ref_type`): `heads` or `tags`, compared
/// ASCII case-insensitively (`HEADS`, `Tags` are accepted). Any other
/// value, including the empty string and values with surrounding spaces,
/// is `None`.
fn ref_type_from_query_value(value: &str) -> Option<RefType> {
    if value.eq_ignore_ascii_case("heads") {
        Some(RefType::Heads)
    } else if value.eq_ignore_ascii_case("tags") {
        Some(RefType::Tags)
    } else {
        None
    }
}

/// The `ref_type` query parameter of `url`, read as GitLab does.
///
/// The query is form-decoded (`+` is a space, `%XX` decoded). The key must
/// be exactly `ref_type` (`ref_type[]` and `REF_TYPE` do not count); when it
/// appears more than once the last one wins, as in Rack. The value is read
/// by [`ref_type_from_query_value`].
fn ref_type_of(url: &Url) -> Option<RefType> {
    url.query_pairs()
        .filter(|(key, _)| key == "ref_type")
        .last()
        .and_then(|(_, value)| ref_type_from_query_value(&value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::candidates::enumerate;
    use proptest::prelude::*;

    const GITLAB: &str = "https://gitlab.example.com";

    fn base(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    /// Expected successful parse: (project_path, ref_and_path, ref_type, lines).
    type Expect = (
        &'static str,
        &'static str,
        Option<RefType>,
        Option<LineAnchor>,
    );

    fn expect(e: Expect) -> FileUrl {
        FileUrl {
            project_path: e.0.to_string(),
            ref_and_path: e.1.to_string(),
            ref_type: e.2,
            lines: e.3,
        }
    }

    fn lines(start: u64, end: Option<u64>) -> Option<LineAnchor> {
        Some(LineAnchor { start, end })
    }

    fn check_ok(base_url: &str, cases: &[(&str, Expect)]) {
        let b = base(base_url);
        for &(input, e) in cases {
            assert_eq!(
                parse_file_url(input, &b),
                Ok(expect(e)),
                "input {input:?}, base {base_url:?}"
            );
        }
    }

    /// Asserts `Invalid` whose reason contains `needle`.
    fn check_invalid(base_url: &str, cases: &[(&str, &str)]) {
        let b = base(base_url);
        for &(input, needle) in cases {
            match parse_file_url(input, &b) {
                Err(UrlError::Invalid { url, problem }) => {
                    let reason = problem.to_string();
                    assert_eq!(url, input);
                    assert!(
                        reason.contains(needle),
                        "input {input:?}: reason {reason:?} lacks {needle:?}"
                    );
                }
                other => panic!("input {input:?}, base {base_url:?}: got {other:?}"),
            }
        }
    }

    // ---- parse_file_url: markers and project paths ----

    #[test]
    fn markers() {
        check_ok(
            GITLAB,
            &[
                (
                    "https://gitlab.example.com/g/p/-/blob/main/README.md",
                    ("g/p", "main/README.md", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/raw/main/README.md",
                    ("g/p", "main/README.md", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blame/main/README.md",
                    ("g/p", "main/README.md", None, None),
                ),
                (
                    "https://gitlab.example.com/a/b/c/proj/-/blob/v1.0/src/lib.rs",
                    ("a/b/c/proj", "v1.0/src/lib.rs", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/release/2026/q4/src/main.rs",
                    ("g/p", "release/2026/q4/src/main.rs", None, None),
                ),
                // One-segment project: accepted like GitLab's regex; lookup fails later.
                (
                    "https://gitlab.example.com/p/-/blob/main/x",
                    ("p", "main/x", None, None),
                ),
                // Only the first /-/ counts; later markers belong to the path.
                (
                    "https://gitlab.example.com/g/p/-/blob/main/-/raw/x",
                    ("g/p", "main/-/raw/x", None, None),
                ),
                // Groups named like markers in the /-/ form.
                (
                    "https://gitlab.example.com/blob/raw/-/blob/main/x",
                    ("blob/raw", "main/x", None, None),
                ),
                // Empty rest and no path after the ref: splits() reports them.
                (
                    "https://gitlab.example.com/g/p/-/blob/",
                    ("g/p", "", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob",
                    ("g/p", "", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main",
                    ("g/p", "main", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/",
                    ("g/p", "main/", None, None),
                ),
                // Trailing slashes kept.
                (
                    "https://gitlab.example.com/g/p/-/blob/main/dir/",
                    ("g/p", "main/dir/", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/dir//",
                    ("g/p", "main/dir//", None, None),
                ),
                // Extra slashes around the project are dropped.
                (
                    "https://gitlab.example.com//g/p/-/blob/main/x",
                    ("g/p", "main/x", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p//-/blob/main/x",
                    ("g/p", "main/x", None, None),
                ),
                // Dot segments are resolved as a browser would (`resolve` refuses such URLs
                // before parsing them: see `dot_segment_path`).
                (
                    "https://gitlab.example.com/g/p/-/blob/main/a/../b",
                    ("g/p", "main/b", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/./b",
                    ("g/p", "main/b", None, None),
                ),
                // Backslashes count as slashes in http(s) URLs.
                (
                    "https://gitlab.example.com\\g\\p\\-\\blob\\main\\x",
                    ("g/p", "main/x", None, None),
                ),
                // Surrounding spaces trimmed.
                (
                    "  https://gitlab.example.com/g/p/-/blob/main/x \n",
                    ("g/p", "main/x", None, None),
                ),
                // User info ignored.
                (
                    "https://user:tok@gitlab.example.com/g/p/-/blob/main/x",
                    ("g/p", "main/x", None, None),
                ),
            ],
        );
    }

    #[test]
    fn legacy_markers() {
        check_ok(
            GITLAB,
            &[
                (
                    "https://gitlab.example.com/g/p/blob/main/README.md",
                    ("g/p", "main/README.md", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/raw/main/README.md",
                    ("g/p", "main/README.md", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/blame/main/README.md",
                    ("g/p", "main/README.md", None, None),
                ),
                (
                    "https://gitlab.example.com/a/b/c/proj/blob/main/x",
                    ("a/b/c/proj", "main/x", None, None),
                ),
                // A group called blob: the project needs two segments.
                (
                    "https://gitlab.example.com/blob/proj/blob/main/x",
                    ("blob/proj", "main/x", None, None),
                ),
                (
                    "https://gitlab.example.com/g/blob/blob/main/x",
                    ("g/blob", "main/x", None, None),
                ),
                (
                    "https://gitlab.example.com/raw/blame/raw/main/x",
                    ("raw/blame", "main/x", None, None),
                ),
                // The first marker wins: directories named raw/blob stay in the path.
                (
                    "https://gitlab.example.com/g/p/blob/main/raw/blob/x",
                    ("g/p", "main/raw/blob/x", None, None),
                ),
                // Empty segments do not count as project segments.
                (
                    "https://gitlab.example.com/g//blob/p/blob/main/x",
                    ("g//blob/p", "main/x", None, None),
                ),
                // An encoded '-' is not the /-/ marker; the legacy cut then gives a
                // project path no project has, and the project lookup fails.
                (
                    "https://gitlab.example.com/g/p/%2D/blob/main/x",
                    ("g/p/-", "main/x", None, None),
                ),
                // Legacy form with a ref but no path: splits() reports it.
                (
                    "https://gitlab.example.com/g/p/blob/main",
                    ("g/p", "main", None, None),
                ),
            ],
        );
        check_invalid(
            GITLAB,
            &[
                ("https://gitlab.example.com/g/blob", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/blob", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/blob/", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/tree/main/dir", "directory"),
            ],
        );
    }

    #[test]
    fn not_file_urls() {
        check_invalid(
            GITLAB,
            &[
                (
                    "https://gitlab.example.com/g/p/-/tree/main/src",
                    "directory (/-/tree/)",
                ),
                (
                    "https://gitlab.example.com/g/p/-/tree/main",
                    "directory (/-/tree/)",
                ),
                (
                    "https://gitlab.example.com/g/p/-/commits/main",
                    "'/-/commits/' URLs do not name a file",
                ),
                (
                    "https://gitlab.example.com/g/p/-/merge_requests/1",
                    "'/-/merge_requests/'",
                ),
                // A /-/blob/ after another /-/ kind does not count.
                (
                    "https://gitlab.example.com/g/p/-/tree/main/-/blob/x",
                    "/-/tree/",
                ),
                ("https://gitlab.example.com/g/p", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/", "no /-/blob/"),
                ("https://gitlab.example.com/", "no /-/blob/"),
                ("https://gitlab.example.com", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/-/", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/-", "no /-/blob/"),
                ("https://gitlab.example.com/g/p/-/BLOB/main/x", "'/-/BLOB/'"),
                (
                    "https://gitlab.example.com/-/blob/main/x",
                    "no project path",
                ),
                (
                    "https://gitlab.example.com//-/raw/main/x",
                    "no project path",
                ),
                // Only NUL before the marker: nothing left after decoding.
                (
                    "https://gitlab.example.com/%00/-/blob/main/x",
                    "no project path",
                ),
            ],
        );
    }

    #[test]
    fn bad_urls() {
        check_invalid(
            GITLAB,
            &[
                ("", "empty"),
                ("   ", "empty"),
                ("gitlab.example.com/g/p/-/blob/main/x", "no scheme"),
                ("/g/p/-/blob/main/x", "no scheme"),
                ("ftp://gitlab.example.com/g/p/-/blob/main/x", "not 'ftp:'"),
                ("file:///g/p/-/blob/main/x", "not 'file:'"),
                ("ssh://git@gitlab.example.com/g/p.git", "not 'ssh:'"),
                ("git@gitlab.example.com:g/p.git", "no scheme"),
                ("mailto:a@b", "not 'mailto:'"),
                ("https://", "no host"),
                ("https://gitlab.example.com:99999/g/p/-/blob/main/x", "port"),
                ("http://[::1/g/p/-/blob/main/x", "not a valid URL"),
            ],
        );
    }

    // ---- parse_file_url: host check ----

    #[test]
    fn foreign_hosts() {
        let cases: &[(&str, &str, &str, &str)] = &[
            // (base, input, configured, got)
            (
                GITLAB,
                "https://gitlab.other.com/g/p/-/blob/main/x",
                GITLAB,
                "https://gitlab.other.com",
            ),
            (
                GITLAB,
                "http://gitlab.example.com/g/p/-/blob/main/x",
                GITLAB,
                "http://gitlab.example.com",
            ),
            (
                GITLAB,
                "https://gitlab.example.com:8443/g/p/-/blob/main/x",
                GITLAB,
                "https://gitlab.example.com:8443",
            ),
            (
                GITLAB,
                "https://gitlab.example.com./g/p/-/blob/main/x",
                GITLAB,
                "https://gitlab.example.com.",
            ),
            (
                GITLAB,
                "https://sub.gitlab.example.com/g/p/-/blob/main/x",
                GITLAB,
                "https://sub.gitlab.example.com",
            ),
            (
                "https://gitlab.example.com:8443",
                "https://gitlab.example.com/g/p/-/blob/main/x",
                "https://gitlab.example.com:8443",
                GITLAB,
            ),
            (
                "https://gitlab.example.com/gitlab/",
                "https://evil.example/gitlab/g/p/-/blob/main/x",
                "https://gitlab.example.com/gitlab",
                "https://evil.example",
            ),
            (
                "http://[::1]:8080",
                "http://[::2]:8080/g/p/-/blob/main/x",
                "http://[::1]:8080",
                "http://[::2]:8080",
            ),
            (
                "http://[::1]:8080",
                "http://[::1]/g/p/-/blob/main/x",
                "http://[::1]:8080",
                "http://[::1]",
            ),
            // Host check comes before anything else: a tree URL elsewhere is foreign.
            (
                GITLAB,
                "https://gitlab.com/g/p/-/tree/main",
                GITLAB,
                "https://gitlab.com",
            ),
            // Credentials are not echoed.
            (
                GITLAB,
                "https://u:secret@gitlab.com/g/p/-/blob/main/x",
                GITLAB,
                "https://gitlab.com",
            ),
        ];
        for &(b, input, configured, got) in cases {
            assert_eq!(
                parse_file_url(input, &base(b)),
                Err(UrlError::ForeignHost {
                    configured: configured.to_string(),
                    got: got.to_string(),
                }),
                "input {input:?}, base {b:?}"
            );
        }
    }

    #[test]
    fn same_hosts() {
        let cases: &[(&str, &str)] = &[
            // (base, input)
            (GITLAB, "https://GitLab.Example.COM/g/p/-/blob/main/x"),
            (GITLAB, "https://gitlab.example.com:443/g/p/-/blob/main/x"),
            (
                "https://gitlab.example.com:443/",
                "https://gitlab.example.com/g/p/-/blob/main/x",
            ),
            (
                "http://gitlab.example.com",
                "http://gitlab.example.com:80/g/p/-/blob/main/x",
            ),
            (
                "http://[::1]:8080",
                "http://[0:0:0:0:0:0:0:1]:8080/g/p/-/blob/main/x",
            ),
            ("http://[::1]:8080/", "http://[::1]:8080/g/p/-/blob/main/x"),
            (
                "http://127.0.0.1:3000",
                "http://127.0.0.1:3000/g/p/-/blob/main/x",
            ),
            (
                "http://localhost:3000",
                "http://LOCALHOST:3000/g/p/-/blob/main/x",
            ),
            // Base query and fragment ignored.
            (
                "https://gitlab.example.com/?x=1#y",
                "https://gitlab.example.com/g/p/-/blob/main/x",
            ),
        ];
        for &(b, input) in cases {
            assert_eq!(
                parse_file_url(input, &base(b)),
                Ok(expect(("g/p", "main/x", None, None))),
                "input {input:?}, base {b:?}"
            );
        }
    }

    // ---- parse_file_url: relative roots ----

    #[test]
    fn relative_roots() {
        for b in [
            "https://h.example/gitlab",
            "https://h.example/gitlab/",
            "https://h.example/gitlab//",
        ] {
            check_ok(
                b,
                &[
                    (
                        "https://h.example/gitlab/g/p/-/blob/main/x",
                        ("g/p", "main/x", None, None),
                    ),
                    (
                        "https://h.example/gitlab/gitlab-org/p/-/raw/main/x",
                        ("gitlab-org/p", "main/x", None, None),
                    ),
                    (
                        "https://h.example/gitlab/gitlab/p/-/blob/main/x",
                        ("gitlab/p", "main/x", None, None),
                    ),
                    (
                        "https://h.example/gitlab/g/p/blob/main/x",
                        ("g/p", "main/x", None, None),
                    ),
                ],
            );
            check_invalid(
                b,
                &[
                    (
                        "https://h.example/gitlab-org/p/-/blob/main/x",
                        "not under the GitLab instance's relative URL root '/gitlab'",
                    ),
                    ("https://h.example/g/p/-/blob/main/x", "relative URL root"),
                    (
                        "https://h.example/GITLAB/g/p/-/blob/main/x",
                        "relative URL root",
                    ),
                    ("https://h.example/", "relative URL root"),
                    ("https://h.example/gitlab", "no /-/blob/"),
                    ("https://h.example/gitlab/", "no /-/blob/"),
                ],
            );
        }
        // No root: a group called gitlab-org is just a group.
        check_ok(
            "https://h.example",
            &[(
                "https://h.example/gitlab-org/p/-/blob/main/x",
                ("gitlab-org/p", "main/x", None, None),
            )],
        );
        // Nested root.
        check_ok(
            "https://h.example/a/b",
            &[(
                "https://h.example/a/b/g/p/-/blob/main/x",
                ("g/p", "main/x", None, None),
            )],
        );
        check_invalid(
            "https://h.example/a/b",
            &[("https://h.example/a/bc/g/p/-/blob/main/x", "'/a/b'")],
        );
    }

    // ---- parse_file_url: decoding ----

    #[test]
    fn decoding() {
        check_ok(
            GITLAB,
            &[
                (
                    "https://gitlab.example.com/g/p/-/blob/main/my%20file.txt",
                    ("g/p", "main/my file.txt", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/my file.txt",
                    ("g/p", "main/my file.txt", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/a+b.txt",
                    ("g/p", "main/a+b.txt", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/a%2Bb.txt",
                    ("g/p", "main/a+b.txt", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/release%2F2026/x",
                    ("g/p", "release/2026/x", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/a%2fb",
                    ("g/p", "main/a/b", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/caf%C3%A9.md",
                    ("g/p", "main/café.md", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/café.md",
                    ("g/p", "main/café.md", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/%E6%97%A5%E6%9C%AC.txt",
                    ("g/p", "main/日本.txt", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/a%00b",
                    ("g/p", "main/ab", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/a%FFb",
                    ("g/p", "main/a\u{FFFD}b", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/%C3",
                    ("g/p", "main/\u{FFFD}", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/100%",
                    ("g/p", "main/100%", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/%zz",
                    ("g/p", "main/%zz", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/%23x",
                    ("g/p", "main/#x", None, None),
                ),
                (
                    "https://gitlab.example.com/g/p/-/blob/main/%3Fx",
                    ("g/p", "main/?x", None, None),
                ),
                (
                    "https://gitlab.example.com/g/my%20proj/-/blob/main/x",
                    ("g/my proj", "main/x", None, None),
                ),
                (
                    "https://gitlab.example.com/gr%C3%BCn/p/-/blob/main/x",
                    ("grün/p", "main/x", None, None),
                ),
            ],
        );
    }

    // ---- parse_file_url: query and fragment ----

    #[test]
    fn query_and_fragment() {
        let u = "https://gitlab.example.com/g/p/-/blob/v1/x";
        let cases: &[(&str, Option<RefType>, Option<LineAnchor>)] = &[
            ("?ref_type=heads", Some(RefType::Heads), None),
            ("?ref_type=tags", Some(RefType::Tags), None),
            ("?ref_type=TAGS", Some(RefType::Tags), None),
            ("?ref_type=Heads", Some(RefType::Heads), None),
            ("?ref_type=bogus", None, None),
            ("?ref_type=", None, None),
            ("?ref_type", None, None),
            ("?ref_type=+heads", None, None),
            ("?ref_type[]=heads", None, None),
            ("?REF_TYPE=heads", None, None),
            ("?ref_type=heads&ref_type=tags", Some(RefType::Tags), None),
            ("?plain=1&ref_type=tags&x=y", Some(RefType::Tags), None),
            ("?plain=1", None, None),
            ("?", None, None),
            ("?ref_type=%68eads", Some(RefType::Heads), None),
            ("#L10", None, lines(10, None)),
            ("#L10-20", None, lines(10, Some(20))),
            ("#L10-L20", None, lines(10, Some(20))),
            ("#L20-10", None, lines(20, Some(10))),
            ("#L7-7", None, lines(7, Some(7))),
            ("#L007", None, lines(7, None)),
            ("#L18446744073709551615", None, lines(u64::MAX, None)),
            ("#L18446744073709551616", None, None),
            ("#L0", None, None),
            ("#L0-5", None, None),
            ("#L5-0", None, None),
            ("#L", None, None),
            ("#L-5", None, None),
            ("#L10-", None, None),
            ("#L10-L", None, None),
            ("#L10-20-30", None, None),
            ("#l10", None, None),
            ("#L+5", None, None),
            ("#L%205", None, None),
            ("#foo", None, None),
            ("#", None, None),
            (
                "?ref_type=tags#L3-4",
                Some(RefType::Tags),
                lines(3, Some(4)),
            ),
            // A '#' inside the query belongs to the fragment.
            ("?x=1#L2", None, lines(2, None)),
        ];
        let b = base(GITLAB);
        for &(suffix, ref_type, anchor) in cases {
            let input = format!("{u}{suffix}");
            assert_eq!(
                parse_file_url(&input, &b),
                Ok(expect(("g/p", "v1/x", ref_type, anchor))),
                "input {input:?}"
            );
        }
    }

    // ---- parse_file_url_any_host ----

    #[test]
    fn any_host() {
        let cases: &[(&str, Expect)] = &[
            (
                "https://gitlab.other.com/g/p/-/blob/main/x",
                ("g/p", "main/x", None, None),
            ),
            (
                "http://[::1]:8080/g/p/-/raw/main/x#L3",
                ("g/p", "main/x", None, lines(3, None)),
            ),
            (
                "http://localhost:3000/g/p/blob/main/x?ref_type=heads",
                ("g/p", "main/x", Some(RefType::Heads), None),
            ),
            // No relative root is stripped.
            (
                "https://h.example/gitlab/g/p/-/blob/main/x",
                ("gitlab/g/p", "main/x", None, None),
            ),
        ];
        for &(input, e) in cases {
            assert_eq!(
                parse_file_url_any_host(input),
                Ok(expect(e)),
                "input {input:?}"
            );
        }
        for input in [
            "",
            "ftp://h/g/p/-/blob/main/x",
            "https://h/g/p/-/tree/main",
            "h/g/p/-/blob/main/x",
        ] {
            assert!(
                matches!(
                    parse_file_url_any_host(input),
                    Err(UrlError::Invalid { .. })
                ),
                "input {input:?}"
            );
        }
    }

    // ---- UrlError display ----

    #[test]
    fn url_error_display() {
        let b = base("https://gitlab.example.com/gitlab");
        let err = parse_file_url("https://gitlab.com/g/p/-/blob/main/x", &b).unwrap_err();
        assert_eq!(
            err.to_string(),
            "URL host 'https://gitlab.com' is not the configured GitLab instance \
             'https://gitlab.example.com/gitlab'; this server only reads from \
             https://gitlab.example.com/gitlab. Pass a URL on \
             https://gitlab.example.com/gitlab, or project_id/file_path/ref."
        );
        let err = parse_file_url("https://gitlab.example.com/gitlab/g/p/-/tree/main", &b)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(
            "Invalid file URL 'https://gitlab.example.com/gitlab/g/p/-/tree/main': It points at a directory"
        ));
        assert!(err.contains(".../-/blob/<ref>/<file_path>"), "{err}");
        // Long URLs are shortened in the message.
        let long = format!("https://gitlab.example.com/{}", "é".repeat(1000));
        let err = parse_file_url_any_host(&long).unwrap_err().to_string();
        assert!(err.starts_with("Invalid file URL"));
        assert!(err.len() < 1000, "{err}");
        assert!(err.contains('…'));
    }

    // ---- never panic ----

    proptest! {
        #[test]
        fn never_panics_on_any_string(s in "\\PC*") {
            let b = base("https://gitlab.example.com/gitlab");
            let _ = parse_file_url(&s, &b);
            let _ = parse_file_url_any_host(&s);
            let _ = enumerate(&s);
        }

        #[test]
        fn never_panics_after_host(s in ".*", t in "[-/a-z%0-9#?=LF. +\\\\]{0,40}") {
            for base_url in [GITLAB, "https://gitlab.example.com/gitlab/"] {
                let b = base(base_url);
                for tail in [&s, &t] {
                    let input = format!("https://gitlab.example.com/{tail}");
                    let _ = parse_file_url(&input, &b).map(|f| enumerate(&f.ref_and_path));
                    let _ = parse_file_url_any_host(&input);
                    let _ = UrlError::invalid(&input, UrlProblem::NoMarker).to_string();
                }
            }
        }
    }

    #[test]
    fn dot_segments_are_found_on_the_raw_input() {
        let found = [
            "https://h/pub/proj/-/blob/main/../../../../../other/secret/-/blob/main/README.md",
            "https://h/g/p/-/blob/main/./README.md",
            "https://h/g/p/-/blob/main/%2e%2e/x",
            "https://h/g/p/-/blob/main/%2E./x",
            "https://h/g/p/-/blob/main/.%2E/x",
            "https://h/g/p/-/blob/main/%2e/x",
            "https://h/g/p/-/blob/main/..",
            "https://h/g/p/-/blob/main/x/.",
            "https://h/g/p\\..\\-/blob/main/x",
            "https://h/g/p/-/blob/main/.\n./x",
            "  https://h/g/p/-/blob/main/../x  ",
            "http:h/g/../p/-/blob/main/x",
            "https://user:pw@h/../g/p/-/blob/main/x",
        ];
        for url in found {
            assert!(dot_segment_path(url).is_some(), "{url:?}");
        }
        assert_eq!(
            dot_segment_path("https://h/g/p/-/blob/main/../x?a=b#L1").as_deref(),
            Some("/g/p/-/blob/main/../x")
        );
        let clean = [
            "https://h/g/p/-/blob/main/README.md",
            "https://h/g/p/-/blob/main/a..b/.hidden/x...y",
            "https://h/g/p/-/blob/main/%2e%2e%2e/x",
            "https://h/g/p/-/blob/main/x?path=../..#../..",
            "https://h.example.com./g/p/-/blob/v1.0/x",
            "https://h/g/p/-/blob/main/..%2Fx",
            "not a url",
            "",
        ];
        for url in clean {
            assert_eq!(dot_segment_path(url), None, "{url:?}");
        }
    }
}
