//! What makes a GitLab answer citable: the commit the ref resolved to and the blob's permalink
//! as a full URL, both read from `RepositoryBlob.permalinkPath` (GitLab's
//! `BlobPresenter#permalink_path`: `/<full path>/-/blob/<commit sha>/<path>`), which every blob
//! answer carries, content-free ones included, so citing costs no request. Pure.
//!
//! GitLab builds the path with its route helpers, so it already starts with the instance's
//! relative URL root (`/gitlab/group/proj/-/blob/…`): the URL is the instance's origin (scheme,
//! host, port) followed by the path, and the root is never joined twice. An answer without the
//! field (`null`), or with a path that does not name a commit, is not citable: no commit and no
//! URL, and the rest of the answer stands.
//!
//! The path is copied into an answer only when it is the permalink of the project the call
//! read: it starts with the instance's root and that project's full path (compared without
//! regard to case, as GitLab routes them) right before `/-/blob/`, and holds no query (`?`) or
//! fragment (`#`). Any other path (another project, a query, a fragment) cites nothing.

/// The commit and the permalink of one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Permalink {
    /// The commit the ref resolved to: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
    pub commit_sha: String,
    /// `<origin><permalinkPath>`, without a line anchor.
    pub web_url: String,
}

/// Where an instance's permalinks live: its origin (`https://host:8443`) and its relative URL
/// root (`/gitlab`, or empty), neither with a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Site {
    origin: String,
    root: String,
}

impl Site {
    /// The site of the instance at `base` (`https://host/gitlab/` → `https://host` and
    /// `/gitlab`).
    pub(crate) fn of(base: &url::Url) -> Self {
        Site {
            origin: base.origin().ascii_serialization(),
            root: base.path().trim_end_matches('/').to_string(),
        }
    }
}

/// The marker GitLab's blob routes put between the project and "ref/path".
const BLOB_MARKER: &str = "/-/blob/";

/// The permalink of `permalink_path` on `site`, for the project whose full path is `project`;
/// `None` when the path names no commit, or is not that project's plain permalink (module
/// doc).
pub(crate) fn read(site: &Site, project: &str, permalink_path: &str) -> Option<Permalink> {
    if permalink_path.contains(['?', '#']) {
        return None;
    }
    let (route, rest) = permalink_path.split_once(BLOB_MARKER)?;
    let named = route
        .strip_prefix(site.root.as_str())
        .and_then(|p| p.strip_prefix('/'))
        .is_some_and(|p| p.eq_ignore_ascii_case(project));
    if !named {
        return None;
    }
    let commit_sha = commit_of(rest)?.to_string();
    Some(Permalink {
        commit_sha,
        web_url: format!("{}{permalink_path}", site.origin),
    })
}

/// The commit in what follows a permalink path's first `/-/blob/` (a GitLab project or group
/// path cannot start with `-`, so the first marker is the route's, even when the file path
/// holds one too), when it is a full SHA-1 or SHA-256 in hex. GitLab writes it in lower case;
/// upper case is refused rather than guessed at.
fn commit_of(rest: &str) -> Option<&str> {
    let (sha, path) = rest.split_once('/')?;
    let hex = sha
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex && matches!(sha.len(), 40 | 64) && !path.is_empty()).then_some(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA1: &str = "9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b";

    fn site(base: &str) -> Site {
        Site::of(&url::Url::parse(base).unwrap())
    }

    #[test]
    fn the_commit_and_url_of_a_permalink() {
        let p = read(
            &site("https://gitlab.example.com"),
            "grp/sub/proj",
            &format!("/grp/sub/proj/-/blob/{SHA1}/src/lib.rs"),
        )
        .unwrap();
        assert_eq!(p.commit_sha, SHA1);
        assert_eq!(
            p.web_url,
            format!("https://gitlab.example.com/grp/sub/proj/-/blob/{SHA1}/src/lib.rs")
        );
        let sha256 = "ab".repeat(32);
        let p = read(&site("http://h"), "p", &format!("/p/-/blob/{sha256}/a")).unwrap();
        assert_eq!(p.commit_sha, sha256);
    }

    #[test]
    fn a_relative_root_is_in_the_path_once() {
        assert_eq!(
            site("https://host:8443/gitlab"),
            Site {
                origin: "https://host:8443".into(),
                root: "/gitlab".into()
            }
        );
        let s = site("https://host/gitlab/");
        let p = read(&s, "g/p", &format!("/gitlab/g/p/-/blob/{SHA1}/a b.md")).unwrap();
        assert_eq!(
            p.web_url,
            format!("https://host/gitlab/g/p/-/blob/{SHA1}/a b.md")
        );
        // Without the root, the path is not this instance's.
        assert_eq!(read(&s, "g/p", &format!("/g/p/-/blob/{SHA1}/a")), None);
    }

    #[test]
    fn a_file_path_holding_the_marker_does_not_move_the_commit() {
        let p = read(
            &site("http://h"),
            "g/p",
            &format!("/g/p/-/blob/{SHA1}/docs/-/blob/x"),
        )
        .unwrap();
        assert_eq!(p.commit_sha, SHA1);
    }

    #[test]
    fn only_the_project_read_is_cited_in_any_case() {
        let s = site("http://h");
        let path = format!("/Grp/Proj/-/blob/{SHA1}/a");
        assert!(read(&s, "grp/proj", &path).is_some());
        assert!(read(&s, "GRP/PROJ", &path).is_some());
        for project in [
            "grp/other",
            "proj",
            "other/grp/proj",
            "grp",
            "",
            "grp/proj/sub",
        ] {
            assert_eq!(read(&s, project, &path), None, "{project}");
        }
        // A parent group in front, or a project's path inside another's, is another project.
        for path in [
            format!("/evil/grp/proj/-/blob/{SHA1}/a"),
            format!("/grp/proj/sub/-/blob/{SHA1}/a"),
            format!("//grp/proj/-/blob/{SHA1}/a"),
        ] {
            assert_eq!(read(&s, "grp/proj", &path), None, "{path}");
        }
    }

    #[test]
    fn a_query_or_fragment_is_never_cited() {
        let s = site("http://h");
        for path in [
            format!("/g/p/-/blob/{SHA1}/a?ref_type=heads"),
            format!("/g/p/-/blob/{SHA1}/a#L1"),
            format!("/g/p?x=1/-/blob/{SHA1}/a"),
            format!("/g/p/-/blob/{SHA1}/a?"),
        ] {
            assert_eq!(read(&s, "g/p", &path), None, "{path}");
        }
    }

    #[test]
    fn paths_that_name_no_commit_are_not_citable() {
        for path in [
            String::new(),
            format!("g/p/-/blob/{SHA1}/a"),
            format!("/g/p/blob/{SHA1}/a"),
            "/g/p/-/blob/main/a".to_string(),
            format!("/g/p/-/blob/{}/a", &SHA1[..39]),
            format!("/g/p/-/blob/{}/a", SHA1.to_uppercase()),
            format!("/g/p/-/blob/{SHA1}"),
            format!("/g/p/-/blob/{SHA1}/"),
            format!("/g/p/-/blob/{SHA1}x/a"),
        ] {
            assert_eq!(read(&site("http://h"), "g/p", &path), None, "{path}");
        }
    }
}
