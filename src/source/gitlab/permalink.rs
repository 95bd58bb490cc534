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

/// The commit and the permalink of one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Permalink {
    /// The commit the ref resolved to: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
    pub commit_sha: String,
    /// `<origin><permalinkPath>`, without a line anchor.
    pub web_url: String,
}

/// The marker GitLab's blob routes put between the project and "ref/path".
const BLOB_MARKER: &str = "/-/blob/";

/// The permalink of `permalink_path` on the instance whose origin is `origin`
/// (`https://host:8443`, no trailing `/`); `None` when the path names no commit.
pub(crate) fn read(origin: &str, permalink_path: &str) -> Option<Permalink> {
    let commit_sha = commit_of(permalink_path)?.to_string();
    Some(Permalink {
        commit_sha,
        web_url: format!("{origin}{permalink_path}"),
    })
}

/// The commit in a permalink path: the segment after the first `/-/blob/` (a GitLab project
/// or group path cannot start with `-`, so the first marker is the route's, even when the file
/// path holds one too), when it is a full SHA-1 or SHA-256 in hex. GitLab writes it in lower
/// case; upper case is refused rather than guessed at.
fn commit_of(permalink_path: &str) -> Option<&str> {
    if !permalink_path.starts_with('/') {
        return None;
    }
    let (_, rest) = permalink_path.split_once(BLOB_MARKER)?;
    let (sha, path) = rest.split_once('/')?;
    let hex = sha
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex && matches!(sha.len(), 40 | 64) && !path.is_empty()).then_some(sha)
}

/// The origin of the instance at `base` (`https://host/gitlab` → `https://host`), as the
/// permalink's prefix: GitLab's paths carry the relative root themselves.
pub(crate) fn origin(base: &url::Url) -> String {
    base.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA1: &str = "9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b";

    #[test]
    fn the_commit_and_url_of_a_permalink() {
        let p = read(
            "https://gitlab.example.com",
            &format!("/grp/sub/proj/-/blob/{SHA1}/src/lib.rs"),
        )
        .unwrap();
        assert_eq!(p.commit_sha, SHA1);
        assert_eq!(
            p.web_url,
            format!("https://gitlab.example.com/grp/sub/proj/-/blob/{SHA1}/src/lib.rs")
        );
        let sha256 = "ab".repeat(32);
        let p = read("http://h", &format!("/p/-/blob/{sha256}/a")).unwrap();
        assert_eq!(p.commit_sha, sha256);
    }

    #[test]
    fn a_relative_root_is_in_the_path_once() {
        let base = url::Url::parse("https://host:8443/gitlab").unwrap();
        assert_eq!(origin(&base), "https://host:8443");
        let base = url::Url::parse("https://host/gitlab/").unwrap();
        let p = read(&origin(&base), &format!("/gitlab/g/p/-/blob/{SHA1}/a b.md")).unwrap();
        assert_eq!(
            p.web_url,
            format!("https://host/gitlab/g/p/-/blob/{SHA1}/a b.md")
        );
    }

    #[test]
    fn a_file_path_holding_the_marker_does_not_move_the_commit() {
        let p = read("http://h", &format!("/g/p/-/blob/{SHA1}/docs/-/blob/x")).unwrap();
        assert_eq!(p.commit_sha, SHA1);
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
            assert_eq!(read("http://h", &path), None, "{path}");
        }
    }
}
