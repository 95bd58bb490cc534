//! What `search_repository` and completion ask GitLab: a ref's commit and a directory's paths
//! ([`tree_query`]), the files GitLab's own code search finds a literal in ([`code_search`]),
//! and the projects and refs a person's typing completes to ([`complete_query`]).

pub(crate) mod code_search;
pub(crate) mod complete_query;
pub(crate) mod tree_query;
