//! Test support: which GitLab requests are the token check the server makes before it opens a
//! session (`query CurrentUser { currentUser { id } }`), and the token a request carried, as
//! the GitLab stand-in ([`crate::support::gitlab`]) reads them.
#![allow(dead_code)]

pub use gitlab_standin::gitlab::is_token_check;
use wiremock::Request;

/// The bearer token of a GitLab request.
pub fn bearer(request: &Request) -> Option<String> {
    gitlab_standin::gitlab::bearer(request).map(str::to_string)
}
