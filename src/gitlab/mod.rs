//! The GitLab blob source: GraphQL operations, the HTTP transport, and the logic that turns
//! GitLab's answers into a [`Blob`](crate::source::Blob) or a [`SourceError`](crate::source::SourceError).
pub mod json_text;
pub mod operations;
pub mod scalars;
pub mod source;
pub mod splits;
pub mod transport;
