//! gitlab-file-mcp: an MCP server whose one tool, `get_repository_file`, reads a window of a
//! file from a GitLab repository (or a local git repository) without blowing the agent's
//! context: GitLab's exact windowing, metadata and error semantics, one upstream request per
//! successful call.
//!
//! A call flows one way: [`args`] → [`resolve`] (a [`resolve::Target`]) → a source
//! ([`gitlab`] or [`source::local`]) → [`window`] → [`response`]; [`reader`] wires those steps
//! and [`tool`] is the MCP face. [`cli`] starts it over [`stdio`] or [`http`]; [`jsonrpc`]
//! answers what rmcp cannot type, [`cutoff`] ends calls that run too long.
pub mod args;
pub mod cli;
pub mod config;
pub mod cutoff;
pub mod exclusion;
pub mod gitlab;
pub mod http;
pub mod jsonrpc;
pub mod reader;
pub mod resolve;
pub mod response;
pub mod source;
pub mod stdio;
pub mod timing;
pub mod tool;
pub mod url;
pub mod window;
