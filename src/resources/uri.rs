//! The resources' URIs (pure): the templates a picker shows, and what a URI names.
//!
//! On GitLab a file's resource URI is its blob page's URL, `<instance>/<project>/-/blob/<ref>/<path>`:
//! a URL pasted from the browser is a resource URI as it is, and is read as the tool reads a
//! `url` (refs with `/` split the same way, a `#L10-20` anchor selects lines). A local
//! repository's files are `repo:///<path>?ref=<ref>` (no `ref`: `HEAD`); a blob URL is read
//! there too, on any host, as the tool reads it.

use std::fmt::{self, Display, Formatter};

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

use crate::base::quote::shown;

/// The scheme and authority of a local repository's resource URIs.
pub(crate) const LOCAL_PREFIX: &str = "repo:///";

/// The local template.
pub(crate) const LOCAL_TEMPLATE: &str = "repo:///{+path}{?ref}";

/// What a path keeps encoded in a URI: controls, space and what would end the path.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// What a query value keeps encoded, besides the path's.
const QUERY: &AsciiSet = &PATH.add(b'&').add(b'=').add(b'+');

/// The GitLab template: the instance's blob URLs, `base` without its trailing `/`.
pub(crate) fn gitlab_template(base: &str) -> String {
    format!(
        "{}/{{+project}}/-/blob/{{+ref}}/{{+path}}",
        base.trim_end_matches('/')
    )
}

/// A local file's URI (`git_ref` `None`: `HEAD`).
pub(crate) fn local_uri(path: &str, git_ref: Option<&str>) -> String {
    let mut uri = format!("{LOCAL_PREFIX}{}", utf8_percent_encode(path, PATH));
    if let Some(r) = git_ref {
        uri.push_str("?ref=");
        uri.extend(utf8_percent_encode(r, QUERY));
    }
    uri
}

/// What a resource URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileUri {
    /// A blob URL, read as the tool's `url`.
    Url(String),
    /// A file of the local repository.
    Local {
        path: String,
        git_ref: Option<String>,
    },
}

/// Why a URI names no file of this server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UriError {
    /// Neither a blob URL nor a `repo:///` URI.
    Unknown { uri: String },
    /// A `repo:///` URI on a server reading GitLab.
    LocalOnGitlab { uri: String },
    /// A `repo:///` URI without a path, or not UTF-8 once decoded.
    BadLocal { uri: String },
}

impl Display for UriError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            UriError::Unknown { uri } => write!(
                f,
                "Resource URI '{}' names no file: use a file's GitLab URL (.../-/blob/<ref>/<path>) or a repo:///<path> URI.",
                shown(uri)
            ),
            UriError::LocalOnGitlab { uri } => write!(
                f,
                "Resource URI '{}' names a local repository's file, and this server reads GitLab: use the file's GitLab URL.",
                shown(uri)
            ),
            UriError::BadLocal { uri } => write!(
                f,
                "Resource URI '{}' is not repo:///<path>[?ref=<ref>] with a UTF-8 path.",
                shown(uri)
            ),
        }
    }
}

/// What `uri` names; `local` says whether this server reads a local repository.
pub(crate) fn parse(uri: &str, local: bool) -> Result<FileUri, UriError> {
    let uri = uri.trim();
    if let Some(rest) = uri.strip_prefix(LOCAL_PREFIX) {
        if !local {
            return Err(UriError::LocalOnGitlab { uri: uri.into() });
        }
        return parse_local(rest).ok_or_else(|| UriError::BadLocal { uri: uri.into() });
    }
    let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return Ok(FileUri::Url(uri.to_string()));
    }
    Err(UriError::Unknown { uri: uri.into() })
}

/// `<path>[?ref=<ref>]`, percent-decoded.
fn parse_local(rest: &str) -> Option<FileUri> {
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let path = percent_decode_str(path).decode_utf8().ok()?.into_owned();
    if path.is_empty() {
        return None;
    }
    let git_ref = query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("ref="))
        .next_back()
        .map(|r| percent_decode_str(r).decode_utf8().map(|r| r.into_owned()))
        .transpose()
        .ok()?
        .filter(|r| !r.is_empty());
    Some(FileUri::Local { path, git_ref })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gitlab_template_is_the_blob_url() {
        assert_eq!(
            gitlab_template("https://gitlab.example.com/gitlab/"),
            "https://gitlab.example.com/gitlab/{+project}/-/blob/{+ref}/{+path}"
        );
    }

    #[test]
    fn a_blob_url_is_read_as_a_url() {
        let url = "https://gitlab.com/g/p/-/blob/release/2026/src/a.rs#L3-4";
        assert_eq!(parse(url, false), Ok(FileUri::Url(url.into())));
        assert_eq!(parse(url, true), Ok(FileUri::Url(url.into())));
    }

    #[test]
    fn local_uris_round_trip() {
        for (path, git_ref) in [
            ("src/main.rs", None),
            ("docs/a b#c?.md", Some("release/1.0")),
            ("ü/%.txt", Some("a&b=c+d")),
        ] {
            let uri = local_uri(path, git_ref);
            assert_eq!(
                parse(&uri, true),
                Ok(FileUri::Local {
                    path: path.into(),
                    git_ref: git_ref.map(Into::into)
                }),
                "{uri}"
            );
        }
        assert_eq!(local_uri("a b.rs", None), "repo:///a%20b.rs");
    }

    #[test]
    fn other_uris_are_refused_with_a_sentence() {
        assert!(matches!(
            parse("repo:///a.rs", false),
            Err(UriError::LocalOnGitlab { .. })
        ));
        assert!(matches!(
            parse("repo:///", true),
            Err(UriError::BadLocal { .. })
        ));
        let e = parse("file:///etc/passwd", true).unwrap_err().to_string();
        assert!(e.contains("names no file"), "{e}");
    }
}
