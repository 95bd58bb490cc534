//! gitlab-file-mcp: an MCP server whose tools, `get_repository_file` and (for several files in
//! one call) `get_repository_files`, read a window of a file from a GitLab repository (or a
//! local git repository) without blowing the agent's context: GitLab's exact windowing,
//! metadata and error semantics; one GraphQL request per successful call (a batch: one per
//! project and ref), each file's content downloaded about once (a shared blob cache).
//!
//! A call flows one way: `args` → `resolve` (a `Target`) → a `source` (GitLab or local) →
//! [`window`] → `response` (the output); each error is worded beside its own type.
//! `reader` wires those steps, `batch` runs them for many files, and `tool` is the MCP face. [`cli`]
//! starts it over `stdio` or `http`; `jsonrpc` answers what rmcp cannot type and `cutoff` ends
//! calls that run too long. docs/development.md maps every module.
//!
//! The public surface is what the binary, the benches and the tests need: [`cli`], the pure
//! [`window`]ing and its [`limits`], and (hidden) the `fuzzing` and `testing` entry points.
pub mod cli;
pub mod limits;
#[doc(hidden)]
pub mod outline;
pub mod window;

mod base;
mod config;
mod http;
mod metrics;
mod reader;
mod resolve;
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
