//! gitlab-file-mcp: an MCP server whose tools, `get_repository_file` and (for several files in
//! one call) `get_repository_files`, read a window of a file from a GitLab repository (or a
//! local git repository) without blowing the agent's context: GitLab's exact windowing,
//! metadata and error semantics; one GraphQL request per successful call (a batch: one per
//! project and ref), each file's content downloaded about once (a shared blob cache).
//!
//! The modules stand in floors, each importing only its own floor and those below, never
//! back: [`cli`] starts the server over `stdio` or `http`; `tool` is the MCP face; `reader`
//! runs a call's steps once for one file or many; `view` renders what the call asks to see,
//! with `response`'s output and hints; a `source` (GitLab or local) brings the bytes of the
//! `Target` `resolve` makes of the arguments; [`outline`] and [`window`] are pure work on a
//! blob's text; `config`, [`limits`] and `metrics` are below them, and `base` under everything.
//! Each error is worded beside its own type. docs/development.md maps every module and
//! `tests/house_rules.rs` keeps the floors.
//!
//! The public surface is what the binary, the benches and the tests need: [`cli`], the pure
//! [`window`]ing and its [`limits`], and (hidden) the `fuzzing` and `testing` entry points.
pub mod cli;
pub mod limits;
#[doc(hidden)]
pub mod outline;
pub mod window;

mod auth;
mod base;
mod config;
mod find;
mod http;
mod metrics;
mod reader;
mod resolve;
mod resources;
mod response;
mod source;
mod stdio;
mod tool;
mod view;

#[doc(hidden)]
pub mod fuzzing;

/// What the integration tests check from outside that the binary does not show.
#[doc(hidden)]
pub mod testing {
    /// Every GraphQL document the server may send, named: the checked-in operations, their
    /// variants without optional fields, and the run-time URL-split documents (for validation
    /// against GitLab's full schema).
    pub fn graphql_documents() -> Vec<(String, String)> {
        crate::source::gitlab::all_documents()
    }
}
