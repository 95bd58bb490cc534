//! Every sentence the HTTP layer says: refusals (status line texts, with the flag that governs
//! them), the tool errors of calls it cuts off, startup errors and warnings, and log events.
//! JSON-RPC errors are worded in [`crate::tool::jsonrpc`]. Beside them, what keeps the server
//! from starting ([`start`]), worded from here; the refusals are told by
//! `guard::refusal`.
//!
//! The bottom floor of the HTTP layer: imports nothing of it.

pub(super) mod start;

use std::net::SocketAddr;
use std::time::Duration;

// Refusals, one line each, ending with a newline (they are `text/plain` bodies).

pub(crate) const HOST_MISSING: &str = "Bad Request: missing Host header\n";
pub(crate) const HOST_DUPLICATE: &str = "Bad Request: more than one Host header\n";
pub(crate) const HOST_EMPTY: &str = "Bad Request: empty Host header\n";
pub(crate) const HOST_MALFORMED: &str = "Bad Request: malformed Host header\n";
pub(crate) const HOST_FORBIDDEN: &str =
    "Forbidden: this Host is not served here (see --allowed-host)\n";
/// `/metrics` when the metrics are off (never expected: the route is then not served).
pub(crate) const METRICS_OFF: &str = "Not Found: metrics are off (--no-metrics)\n";
pub(crate) const ORIGIN_FORBIDDEN: &str =
    "Forbidden: requests from this Origin are not served here (see --allowed-origin)\n";
pub(crate) const UNAUTHORIZED: &str = "Unauthorized: send your GitLab token as 'Authorization: Bearer <token>' or 'PRIVATE-TOKEN: <token>'\n";
/// The 401 of an `initialize` whose token GitLab refused (`currentUser` answered 401/403 or
/// null): the same challenge and shape as [`UNAUTHORIZED`], saying what happened.
pub(crate) const TOKEN_REFUSED: &str = "Unauthorized: GitLab refused this token. Send a valid GitLab token as 'Authorization: Bearer <token>' or 'PRIVATE-TOKEN: <token>'\n";
/// Any path not served, with `--token-from-request`: what a client that read the 401 as an
/// OAuth challenge finds where it looks for an authorization server and registers a client
/// (Claude Code and the Inspector show this body after "Dynamic Client Registration rejected
/// (HTTP 404):"; Claude Code tells the model the first 200 characters of that line, without
/// semicolons and angle brackets, hence short and without either).
/// The 401 of `/mcp` with `--oauth` and no token: the client signs in (its challenge names
/// where the resource metadata is).
pub(crate) const SIGN_IN: &str = "Unauthorized: sign in with GitLab (this server's OAuth; your MCP client starts it from this answer's WWW-Authenticate challenge)\n";
/// The 401 of `/mcp` with `--oauth` and a bearer token that is none of this server's live
/// access tokens (expired, from before a key rotation, or a GitLab token sent as is).
pub(crate) const SIGN_IN_AGAIN: &str = "Unauthorized: this access token is not one this server issued, or it has expired; refresh it or sign in with GitLab again (a GitLab token is not accepted as a Bearer token here)\n";
/// The 401 with `--oauth` when GitLab refuses the token a sign-in gave (revoked, expired).
pub(crate) const SIGN_IN_REFUSED: &str = "Unauthorized: GitLab refused the token of this sign-in (revoked or expired); sign in with GitLab again\n";
pub(crate) const NO_OAUTH: &str = "Not Found: this server has no OAuth. Send your GitLab token in an 'Authorization: Bearer' or a 'PRIVATE-TOKEN' header.\n";
pub(crate) const BODY_UNREADABLE: &str = "Bad Request: the request body could not be read (malformed chunked encoding, or the connection broke)\n";
/// 502 when the server's own answer to a signed-in call could not be read to its end (see
/// `sessions::session_open::settled`).
pub(crate) const ANSWER_UNREADABLE: &str =
    "Bad Gateway: the answer to this call broke off before it ended; try the call again\n";
pub(crate) const BUSY: &str = "Service Unavailable: too many requests in flight, retry shortly\n";
pub(crate) const HEALTHY: &str = "ok\n";
/// A session another token opened, or one not known: rmcp's own words for an unknown session,
/// so the answer tells nothing about whether it exists.
pub(crate) const SESSION_NOT_FOUND: &str = "Not Found: Session not found";

pub(crate) fn too_large(limit: usize) -> String {
    format!("Payload Too Large: request body exceeds {limit} bytes (see --max-body-bytes)\n")
}

pub(crate) fn body_timed_out(limit: Duration) -> String {
    format!(
        "Request Timeout: the request body did not arrive within {} s (see --body-timeout-secs)\n",
        limit.as_secs()
    )
}

pub(crate) fn gateway_timeout(limit: Duration) -> String {
    format!(
        "Gateway Timeout: the call did not finish within {} s; GitLab may be slow, try again\n",
        limit.as_secs()
    )
}

// Tool errors of calls the HTTP layer cuts off (session mode's time limit; the drain).

/// The tool error of a call past `limit`; `local`: the server reads a local repository, so the
/// time went to the file's own work, not to GitLab.
pub(crate) fn call_timed_out(limit: Duration, local: bool) -> String {
    let secs = limit.as_secs();
    if local {
        format!(
            "The call did not finish within {secs} s (the server's --request-timeout-secs): the work on the file took longer. Ask for less of it: a line range, a narrower pattern, or a smaller part of a large file."
        )
    } else {
        format!(
            "The call did not finish within {secs} s (the server's --request-timeout-secs). GitLab may be slow; try again."
        )
    }
}

pub(crate) const SHUTTING_DOWN: &str = "The server is shutting down and stopped this call before it finished. Call again: the request will reach a server that is running.";

// Startup.

pub(crate) fn bad_allowed_host(entry: &str) -> String {
    format!(
        "--allowed-host '{entry}' is not a host name or host:port (e.g. mcp.example.com or mcp.example.com:8443)"
    )
}

pub(crate) fn bad_allowed_origin(entry: &str) -> String {
    format!(
        "--allowed-origin '{entry}' is not an origin: give scheme://host[:port] with http or https and no path (e.g. https://app.example.com); 'null' is never allowed"
    )
}

pub(crate) fn cannot_listen(addr: &str, error: &std::io::Error) -> String {
    format!("cannot listen on {addr}: {error}")
}

pub(crate) fn cannot_read_bound_address(addr: &str, error: &std::io::Error) -> String {
    format!("cannot read the address bound for {addr}: {error}")
}

pub(crate) fn cannot_listen_for(signal: &str, error: &std::io::Error) -> String {
    format!("cannot listen for {signal}: {error}")
}

pub(crate) fn stopped_unexpectedly(why: &str) -> String {
    format!("the HTTP server stopped unexpectedly: {why}")
}

/// The one line scripts and tests wait for.
pub(crate) fn listening(local: SocketAddr) -> String {
    format!("listening on http://{local}/mcp")
}

/// Printed, before [`listening`], when `--metrics-addr` is up.
pub(crate) fn metrics_apart(local: SocketAddr) -> String {
    format!("metrics at http://{local}/metrics")
}

pub(crate) fn shared_token_exposed(local: SocketAddr) -> String {
    format!(
        "listening on non-loopback {local} with the server's own GitLab token for every caller: \
         anyone who can reach it reads what that token can. Pass --token-from-request to use \
         each caller's token, or --allow-shared-token if this is intended."
    )
}

pub(crate) fn only_loopback_hosts(local: SocketAddr) -> String {
    format!(
        "listening on non-loopback {local} but only loopback Host headers are allowed: remote \
         clients get 403 until you add --allowed-host <the name they use>."
    )
}

pub(crate) const CONFIGURED_TOKEN_UNUSED: &str =
    "--token-from-request: the configured GitLab token is not used";

// Log events.

pub(crate) const LOG_SERVING: &str = "serving MCP over streamable HTTP";
pub(crate) const LOG_HOST_REFUSED: &str =
    "refused a request for a Host not allowed (--allowed-host)";
pub(crate) const LOG_HOST_MALFORMED: &str =
    "refused a request with a missing, repeated or malformed Host";
pub(crate) const LOG_ORIGIN_REFUSED: &str =
    "refused a request from an Origin not allowed (--allowed-origin)";
pub(crate) const LOG_NO_TOKEN: &str = "refused a request without a caller token";
pub(crate) const LOG_FOREIGN_SESSION: &str =
    "refused a request naming a session its token did not open (or one not known)";
pub(crate) const LOG_BODY_TIMED_OUT: &str = "request body not received in time, answered 408";
pub(crate) const LOG_BODY_UNREADABLE: &str = "request body unreadable, answered 400";
pub(crate) const LOG_NOT_JSON_RPC: &str = "request body is not a JSON-RPC message, answered 400";
pub(crate) const LOG_BUSY: &str = "busy: all --max-concurrent slots taken, answered 503";
pub(crate) const LOG_GATEWAY_TIMEOUT: &str = "request timed out, answered 504";
pub(crate) const LOG_ACCEPT_FAILED: &str = "cannot accept a connection; pausing before the next";
pub(crate) const LOG_CONNECTION_ENDED: &str = "connection ended with an error";
pub(crate) const LOG_SHUTDOWN: &str =
    "shutdown requested: no new connections, draining in-flight calls";
pub(crate) const LOG_DRAINED: &str = "in-flight calls drained";
pub(crate) const LOG_DRAIN_TIMED_OUT: &str = "drain timed out (--drain-timeout-secs): calls still running are answered that the server is shutting down";
pub(crate) const LOG_ABANDONED: &str =
    "calls still running after the shutdown answer; closing anyway";
pub(crate) const LOG_STOPPED: &str = "stopped";
pub(crate) const LOG_CONNECTIONS_LEFT_OPEN: &str =
    "connections still open after the drain; exiting anyway";

// Opening a session (`session_open`): the token check and the session caps.

pub(crate) fn token_unchecked(failure: &str) -> String {
    format!(
        "Bad Gateway: no session was opened because GitLab could not be asked whether it accepts this token: {failure}\n"
    )
}

pub(crate) fn sessions_per_token_full(cap: u32) -> String {
    format!(
        "Service Unavailable: this token already holds {cap} open MCP sessions, the most one token may (see --max-sessions-per-token); end one (DELETE /mcp with its Mcp-Session-Id) or let one idle out, then retry\n"
    )
}

pub(crate) fn sessions_full(cap: u32) -> String {
    format!(
        "Service Unavailable: the server holds {cap} open MCP sessions, the most it may (see --max-sessions); retry later\n"
    )
}

pub(crate) const LOG_BEARER_REFUSED: &str =
    "a bearer token that is no live access token of this server; answered 401";
pub(crate) const LOG_TOKEN_REFUSED: &str =
    "GitLab refused the caller's token; no session opened, answered 401";
pub(crate) const LOG_TOKEN_UNCHECKED: &str =
    "GitLab could not be asked about the caller's token; no session opened, answered 502";
pub(crate) const LOG_SESSIONS_FULL: &str = "session cap reached; no session opened, answered 503";
