//! Prometheus metrics of the HTTP server: what the tool calls, the GitLab requests, the blob
//! cache and the HTTP guards did, exposed at `GET /metrics` (see `http::scrape`).
//!
//! The metrics live in one process-wide [`Metrics`], installed by the HTTP server at startup
//! ([`install`]); stdio mode, `read` and `--no-metrics` install none, and then every recording
//! function below does nothing but find that out (one atomic load). The rest of the server
//! calls only these functions, one line per hook; each takes label values of the enums in
//! [`labels`], so no label can carry what a caller sent.
//!
//! Built on `prometheus-client`, the Prometheus project's own Rust client: typed label sets,
//! an explicit registry (no global recorder behind a facade), and the text format encoder.

mod labels;
mod registry;

use std::sync::OnceLock;
use std::time::Duration;

pub(crate) use labels::{Endpoint, ErrorKind, Guard, SignInStep};

use crate::base::tool_name::ToolName;
pub(crate) use registry::Metrics;

static INSTALLED: OnceLock<Metrics> = OnceLock::new();

/// Turns the metrics on for this process (once; later calls return the same ones).
pub(crate) fn install() -> &'static Metrics {
    INSTALLED.get_or_init(Metrics::new)
}

fn installed() -> Option<&'static Metrics> {
    INSTALLED.get()
}

/// The exposition text, if the metrics are on.
pub(crate) fn render() -> Option<String> {
    installed().map(Metrics::render)
}

/// A tool call answered (`error`: its tool error's kind), its total time and the part of it
/// spent waiting on GitLab.
pub(crate) fn tool_call(
    tool: ToolName,
    error: Option<ErrorKind>,
    total: Duration,
    gitlab: Duration,
) {
    if let Some(m) = installed() {
        m.calls.answered(tool, error, total, gitlab);
    }
}

/// A tool call answered with a tool error of `kind` without running to its end: cut off
/// (`Timeout`, `Shutdown`) or refused before it ran (`NoToken`). Counted, with no duration.
pub(crate) fn tool_call_not_run(tool: ToolName, kind: ErrorKind) {
    if let Some(m) = installed() {
        m.calls.not_run(tool, kind);
    }
}

/// A view rendered: on the CPU pool (`pooled`), or where the call runs.
pub(crate) fn view_render(pooled: bool) {
    if let Some(m) = installed() {
        match pooled {
            true => m.calls.renders_pooled.inc(),
            false => m.calls.renders_inline.inc(),
        };
    }
}

/// Counts a tool call as running until the returned guard is dropped.
pub(crate) fn call_running() -> Running {
    Running::new(installed().map(|m| &m.calls.in_flight))
}

/// One attempt of a request to GitLab: the answer's status, `None` when none came.
pub(crate) fn gitlab_request(endpoint: Endpoint, status: Option<u16>) {
    if let Some(m) = installed() {
        m.gitlab.request(endpoint, status);
    }
}

/// A request to GitLab about to be sent again.
pub(crate) fn gitlab_retry(endpoint: Endpoint) {
    if let Some(m) = installed() {
        m.gitlab.retry(endpoint);
    }
}

/// Body bytes received from GitLab.
pub(crate) fn gitlab_received(endpoint: Endpoint, bytes: usize) {
    if let Some(m) = installed() {
        m.gitlab.received(endpoint, bytes);
    }
}

/// A lookup of the blob cache by a call's content step.
pub(crate) fn cache_lookup(found: bool) {
    if let Some(m) = installed() {
        m.cache.lookup(found);
    }
}

/// The blob cache after a change: bytes held, entries, and its running total of evictions.
pub(crate) fn cache_state(bytes: u64, entries: usize, evictions: u64) {
    if let Some(m) = installed() {
        m.cache.state(bytes, entries, evictions);
    }
}

/// Content from `endpoint` that failed the cache's verification (not the blob it claimed to
/// be) and was refused.
pub(crate) fn cache_verification_failed(endpoint: Endpoint) {
    if let Some(m) = installed() {
        m.cache.verification_failed(endpoint);
    }
}

/// A lookup of the outline cache: `found`, or the blob was parsed.
pub(crate) fn outline_lookup(found: bool) {
    if let Some(m) = installed() {
        m.outlines.lookup(found);
    }
}

/// The outline cache after a change: bytes held, entries, and its running total of evictions.
pub(crate) fn outline_cache_state(bytes: u64, entries: usize, evictions: u64) {
    if let Some(m) = installed() {
        m.outlines.state(bytes, entries, evictions);
    }
}

/// A lookup of `search_repository`'s tree cache: `found`, or the tree was listed.
pub(crate) fn tree_lookup(found: bool) {
    if let Some(m) = installed() {
        m.trees.lookup(found);
    }
}

/// The tree cache after a change: bytes of entries held, listings, and its running total of
/// evictions.
pub(crate) fn tree_cache_state(bytes: u64, entries: usize, evictions: u64) {
    if let Some(m) = installed() {
        m.trees.state(bytes, entries, evictions);
    }
}

/// An HTTP request refused by `guard`.
pub(crate) fn refused(guard: Guard) {
    if let Some(m) = installed() {
        m.http.refused(guard);
    }
}

/// A step of `--oauth`'s sign-in.
pub(crate) fn sign_in(step: SignInStep) {
    if let Some(m) = installed() {
        m.http.sign_in(step);
    }
}

/// The MCP sessions open now.
pub(crate) fn sessions_open(open: usize) {
    if let Some(m) = installed() {
        m.http
            .open_sessions
            .set(i64::try_from(open).unwrap_or(i64::MAX));
    }
}

/// Counts an HTTP connection as open until the returned guard is dropped.
pub(crate) fn connection_open() -> Running {
    Running::new(installed().map(|m| &m.http.open_connections))
}

/// Holds one unit of a gauge (a call running, a connection open) until dropped.
#[derive(Debug)]
#[must_use = "the gauge goes back down when this is dropped"]
pub(crate) struct Running(Option<&'static prometheus_client::metrics::gauge::Gauge>);

impl Running {
    fn new(gauge: Option<&'static prometheus_client::metrics::gauge::Gauge>) -> Self {
        if let Some(g) = gauge {
            g.inc();
        }
        Self(gauge)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(g) = self.0 {
            g.dec();
        }
    }
}

#[cfg(test)]
mod tests;
