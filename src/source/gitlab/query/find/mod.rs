//! What `search_repository` asks GitLab: a ref's commit and a directory's paths
//! ([`tree_query`]), and the files GitLab's own code search finds a literal in
//! ([`code_search`]).

pub(crate) mod code_search;
pub(crate) mod tree_query;
