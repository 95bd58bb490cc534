//! The object-storage redirect of an LFS download: GitLab with LFS on object storage (and
//! `proxy_download: false`, the default) answers `raw?lfs=true` with `302 Found` to a
//! pre-signed URL on the storage host (S3, GCS, Azure, MinIO). This module decides whether such
//! a `Location` may be followed ([`target`]), how it is named in logs and errors ([`shown`]: no
//! query, which holds the signature) and whether a redirect on another route looks like one
//! ([`looks_like_storage`]). Pure: the request itself is the transport's.

use std::fmt::{self, Display, Formatter};

use url::Url;

/// Why a storage redirect is not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unfollowed {
    /// No `Location`, or one that is not a URL.
    NoTarget,
    /// A scheme other than `https` (or `http` when GitLab itself is on `http`).
    Scheme { shown: String },
    /// Back to GitLab's own origin (e.g. `http` → `https`): not storage, but GitLab's address
    /// (the transport words it as any redirect).
    Instance,
}

impl Display for Unfollowed {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Unfollowed::NoTarget => f.write_str("the redirect names no URL"),
            Unfollowed::Instance => f.write_str("the redirect leads back to GitLab itself"),
            Unfollowed::Scheme { shown } => write!(
                f,
                "the redirect leads to {shown}, which is neither https nor (with GitLab itself on http) http"
            ),
        }
    }
}

/// The URL to fetch the object from, resolved against the URL that redirected (`from`): only
/// on another origin than `instance` (GitLab's base URL), only `https` (or `http` when
/// `instance` is `http` itself), and without user info, so no credential of any kind goes to
/// the storage host.
pub(crate) fn target(
    instance: &Url,
    from: &Url,
    location: Option<&str>,
) -> Result<Url, Unfollowed> {
    let location = location.ok_or(Unfollowed::NoTarget)?;
    let mut url = from.join(location).map_err(|_| Unfollowed::NoTarget)?;
    if url.origin() == instance.origin() {
        return Err(Unfollowed::Instance);
    }
    let allowed = match url.scheme() {
        "https" => true,
        "http" => instance.scheme() == "http",
        _ => false,
    };
    if !allowed {
        return Err(Unfollowed::Scheme { shown: shown(&url) });
    }
    // Both only fail for URLs that cannot have user info, which `join` gave a host to.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok(url)
}

/// `url` as logs and errors name it: scheme, host, port and path; no user info, no query (the
/// signature), no fragment.
pub(crate) fn shown(url: &Url) -> String {
    let host = url.host_str().unwrap_or("?");
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    format!("{}://{host}{port}{}", url.scheme(), url.path())
}

/// Whether a redirect's `location` looks like a pre-signed object-storage URL: another host
/// than `instance`'s, with a signature in its query (S3's and GCS's `X-…-Signature`, Azure's
/// `sig`, CloudFront's `Signature`).
pub(crate) fn looks_like_storage(instance: &Url, location: &str) -> bool {
    let Ok(url) = Url::parse(location) else {
        return false;
    };
    let signed = url.query_pairs().any(|(key, _)| {
        let key = key.to_ascii_lowercase();
        key.ends_with("signature") || key == "sig"
    });
    signed && url.host_str() != instance.host_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    const S3: &str = "https://bucket.s3.amazonaws.com/lfs/ab/cd/abcd?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA&X-Amz-Signature=SECRET";

    #[test]
    fn https_is_followed_anywhere_http_only_from_an_http_gitlab() {
        let https_gitlab = url("https://gitlab.example.com/gitlab");
        let from = url(
            "https://gitlab.example.com/gitlab/api/v4/projects/1/repository/files/a/raw?lfs=true",
        );
        assert_eq!(target(&https_gitlab, &from, Some(S3)), Ok(url(S3)));
        let http_storage = "http://minio.internal:9000/lfs/abcd?X-Amz-Signature=S";
        assert!(matches!(
            target(&https_gitlab, &from, Some(http_storage)),
            Err(Unfollowed::Scheme { shown }) if shown == "http://minio.internal:9000/lfs/abcd"
        ));
        let http_gitlab = url("http://127.0.0.1:8080");
        assert_eq!(
            target(&http_gitlab, &from, Some(http_storage)),
            Ok(url(http_storage))
        );
        assert!(matches!(
            target(&http_gitlab, &from, Some("ftp://h/x")),
            Err(Unfollowed::Scheme { .. })
        ));
        assert!(matches!(
            target(&http_gitlab, &from, Some("file:///etc/passwd")),
            Err(Unfollowed::Scheme { .. })
        ));
    }

    #[test]
    fn no_location_user_info_dropped_relative_resolved() {
        let gitlab = url("https://g.example");
        let from = url("https://g.example/api/v4/projects/1/repository/files/a/raw?lfs=true");
        assert_eq!(target(&gitlab, &from, None), Err(Unfollowed::NoTarget));
        assert_eq!(
            target(&gitlab, &from, Some("https://u:pw@s3.example/o?sig=1")),
            Ok(url("https://s3.example/o?sig=1"))
        );
        // Back to GitLab itself (a relative Location, or http → https) is no storage.
        assert_eq!(
            target(&gitlab, &from, Some("/lfs/o")),
            Err(Unfollowed::Instance)
        );
        let http_gitlab = url("http://g.example");
        assert_eq!(
            target(&gitlab, &from, Some("https://g.example:443/x")),
            Err(Unfollowed::Instance)
        );
        assert_eq!(
            target(&http_gitlab, &from, Some("http://g.example:9000/o?sig=1")),
            Ok(url("http://g.example:9000/o?sig=1"))
        );
    }

    #[test]
    fn shown_has_no_query_no_user_info() {
        assert_eq!(
            shown(&url(S3)),
            "https://bucket.s3.amazonaws.com/lfs/ab/cd/abcd"
        );
        assert_eq!(
            shown(&url("http://u:p@127.0.0.1:9000/b/o?sig=x#f")),
            "http://127.0.0.1:9000/b/o"
        );
    }

    #[test]
    fn storage_is_another_host_with_a_signature() {
        let gitlab = url("https://gitlab.example.com");
        assert!(looks_like_storage(&gitlab, S3));
        assert!(looks_like_storage(
            &gitlab,
            "https://acct.blob.core.windows.net/c/o?sv=2020&se=2026&sig=abc"
        ));
        assert!(looks_like_storage(
            &gitlab,
            "https://storage.googleapis.com/b/o?X-Goog-Signature=abc"
        ));
        // GITLAB_URL's own business: the same host, or no signature.
        assert!(!looks_like_storage(
            &gitlab,
            "https://gitlab.example.com/x?X-Amz-Signature=1"
        ));
        assert!(!looks_like_storage(
            &gitlab,
            "https://gitlab.example.org/api/graphql"
        ));
        assert!(!looks_like_storage(&gitlab, "/users/sign_in"));
    }
}
