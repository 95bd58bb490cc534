//! The integration tests, one crate: each crate under `tests/` links the library and all its
//! dependencies again, so the suite keeps two (this one and `tests/house_rules.rs`, which reads
//! the sources and needs nothing else). Run one subject with a filter:
//! `cargo test --test it tools::batch::` (or any part of a test's path).
//!
//! The subjects, each a folder:
//! - `tools`: what an agent sees of both tools over MCP, against a wiremock GitLab answering as
//!   GitLab does and a local repository: windows, URLs, searches, batches, outlines, errors.
//! - `gitlab`: GitLab as deployed and as networks bend it: the blob cache and paging, gzip,
//!   object storage, old schemas, query cost, our documents against GitLab's schema.
//! - `serving`: the transports and their guards: streamable HTTP, sessions, tokens, metrics,
//!   deadlines, the CPU pool.
//! - `contract`: what is published and promised: the `tools/list` snapshot, strict schemas, the
//!   README and docs, the command line.
//! - `models`: the pure parts against their references: the fuzz corpus and the search model.
//! - `oauth`: the sign-in with GitLab (`--oauth`): a scripted client and rmcp's own OAuth client
//!   against a GitLab stand-in answering as GitLab's OAuth provider does.
//!
//! `support` holds what they share: the binary spawned over stdio or HTTP, GitLab stand-ins,
//! git fixtures, the cleaned environment.

mod contract;
mod gitlab;
mod models;
mod oauth;
mod serving;
mod support;
mod tools;

/// The fuzz targets' own checks (`fuzz/src/checks/`), shared with the fuzz crate, so CI replays
/// the corpus and runs the search model on stable.
#[allow(dead_code)]
#[path = "../../fuzz/src/checks/mod.rs"]
mod checks;
