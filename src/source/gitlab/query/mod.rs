//! Asking GitLab: the GraphQL documents and their answers decoded. The connection every query
//! shares ([`connection`]) and what the instance supports ([`capabilities`]); the blob query
//! ([`blob_query`]), the evidence query of a URL's splits ([`evidence_query`]), many paths in
//! requests GitLab will answer ([`paths_query`], [`size_parts`]), the miss probe ([`probe`]),
//! the token check ([`token_check`]); `search_repository`'s questions ([`find`]); a file's history
//! and blame ([`commits_query`]); the generated types ([`graphql`], [`scalars`]).
//!
//! May import `rules/` and `wire/`; never `read/` or `content/`.

pub(super) mod blob_query;
pub(super) mod capabilities;
pub(super) mod commits_query;
pub(super) mod connection;
pub(super) mod evidence_query;
pub(super) mod find;
pub(super) mod graphql;
pub(super) mod paths_query;
pub(super) mod probe;
pub(super) mod scalars;
pub(super) mod size_parts;
pub(super) mod token_check;
