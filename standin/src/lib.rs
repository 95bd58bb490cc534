//! GitLab stand-ins for the tests and benches of gitlab-file-mcp, each answering as GitLab does
//! (`../shared/gitlab/samples/`): [`gitlab_mock`] (wiremock helpers shaping GitLab's answers,
//! and the git blob id every stand-in names blobs by), [`faulty_gitlab`] (a blob cache's GitLab
//! with the faults of networks and proxies), [`deployed_gitlab`] (GitLab as deployed: gzip, LFS
//! on object storage, size and complexity limits, old instances), [`tree_gitlab`] (a repository's
//! trees and code search). `tests/it/support` re-exports them; the benches use them directly.

pub mod deployed_gitlab;
pub mod faulty_gitlab;
pub mod gitlab_mock;
pub mod tree_gitlab;
