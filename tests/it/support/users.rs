//! Test support: GitLab's answer to the token check the server makes before it opens a session
//! (`query CurrentUser { currentUser { id } }`), from the stand-in's [`crate::support::gitlab`],
//! for the tests that script their own GitLab.
#![allow(dead_code)]

pub use gitlab_standin::gitlab::{current_user, is_token_check};
use wiremock::Request;

/// The bearer token of a GitLab request.
pub fn bearer(request: &Request) -> Option<String> {
    gitlab_standin::gitlab::bearer(request).map(str::to_string)
}
