//! MCP over streamable HTTP, for one server shared by many users: the `serve --http` flags,
//! the axum app (`/mcp`: rmcp's streamable-HTTP service behind the guards below; `/healthz`),
//! and the life of the process (bind, serve, drain on SIGTERM/SIGINT).
//!
//! Every request to `/mcp` passes these guards, the cheapest refusal first:
//! 1. [`admit`]: the `Host` header must be allowed (DNS-rebinding protection) or 403; a declared
//!    body over the limit is 413 before it is read.
//! 2. [`authenticate`] (with `--token-from-request`): no caller token, 401 with
//!    `WWW-Authenticate`, before any GitLab request.
//! 3. [`limit_concurrency`]: a free slot or 503 with `Retry-After`, never a queue. The slot is
//!    held until the response body is sent, and shutdown waits for all slots to come back.
//! 4. [`deadline`]: 504 when no response has started in time. In stateless mode that bounds the
//!    whole call; in session mode the answer is an SSE stream whose 200 goes out first, so
//!    the tool's own call timeout ([`FileServer::with_call_timeout`]) answers with a tool error.
//!
//! rmcp then enforces the body limit while reading (413) and checks `Host` again.
//!
//! Whose token: [`Tokens`]. With `--token-from-request`, [`authenticate`] puts the caller's
//! [`Credential`] into the request's extensions for the tool. rmcp hands each request's own HTTP parts to the handler, so a call
//! reads with the token of the request that carries it, never with the one that opened the
//! session; nothing token-related is kept between requests.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use clap::Args;
use http::{HeaderValue, Method, StatusCode, header};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tower::ServiceBuilder;

use crate::config::{Credential, Secret, TokenOrigin};
use crate::reader::Reader;
use crate::tool::{FileServer, Tokens};

/// Where `--http` listens when given without an address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Default `--max-body-bytes`: 1 MiB, far above any tool call.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 1024 * 1024;
/// Default `--max-concurrent`.
pub const DEFAULT_MAX_CONCURRENT: u32 = 64;
/// Default `--request-timeout-secs`: room for GitLab's own timeout plus a retry.
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 60;
/// Default `--drain-timeout-secs`: under the 30 s a container orchestrator usually grants.
pub const DEFAULT_DRAIN_TIMEOUT_SECS: u64 = 25;
/// Hosts always accepted in the `Host` header.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
/// The `WWW-Authenticate` challenge of a 401.
pub const CHALLENGE: &str = "Bearer realm=\"gitlab-file-mcp\"";
/// Seconds a client is told to wait after a 503.
const RETRY_AFTER_SECS: &str = "1";
/// How long the server may take to close its connections once the calls have drained.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Flags of `serve` that concern HTTP.
#[derive(Debug, Clone, Args)]
pub struct HttpArgs {
    /// Serve MCP over streamable HTTP on this address (MCP at /mcp, health at /healthz).
    /// Port 0 picks a free port; the bound address is printed on stderr.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_ADDR)]
    pub http: Option<String>,

    /// Keep no session: each POST gets one JSON response, so replicas can sit behind any load
    /// balancer. Default: MCP sessions, held in this process's memory.
    #[arg(long, requires = "http")]
    pub stateless: bool,

    /// Read with each caller's own GitLab token (`Authorization: Bearer <token>` or
    /// `PRIVATE-TOKEN: <token>` on every request; 401 without one) instead of the server's.
    #[arg(long, requires = "http")]
    pub token_from_request: bool,

    /// Acknowledge that every caller reads with the server's own token when listening on a
    /// non-loopback address (silences the warning).
    #[arg(long, requires = "http", conflicts_with = "token_from_request")]
    pub allow_shared_token: bool,

    /// A host name (or host:port) clients use to reach this server, accepted in the Host
    /// header besides localhost, 127.0.0.1 and ::1 (others get 403). Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]", requires = "http")]
    pub allowed_hosts: Vec<String>,

    /// Largest request body accepted (413 above it).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_body_bytes: u64,

    /// Requests served at once; more are answered 503 with Retry-After, not queued.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONCURRENT, requires = "http",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_concurrent: u32,

    /// Seconds one MCP request may take (504, or a tool error in session mode). Each GitLab
    /// request inside it is bounded by --request-timeout.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_REQUEST_TIMEOUT_SECS, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_secs: u64,

    /// Seconds to let in-flight calls finish after SIGTERM/SIGINT before closing anyway.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_DRAIN_TIMEOUT_SECS, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub drain_timeout_secs: u64,
}

impl Default for HttpArgs {
    fn default() -> Self {
        Self {
            http: None,
            stateless: false,
            token_from_request: false,
            allow_shared_token: false,
            allowed_hosts: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            request_timeout_secs: DEFAULT_REQUEST_TIMEOUT_SECS,
            drain_timeout_secs: DEFAULT_DRAIN_TIMEOUT_SECS,
        }
    }
}

impl HttpArgs {
    /// The body limit as a `usize` (saturating on 32-bit targets).
    fn max_body(&self) -> usize {
        usize::try_from(self.max_body_bytes).unwrap_or(usize::MAX)
    }

    /// The concurrency limit; `u32` always fits a `usize` on the targets we build for.
    fn slots(&self) -> usize {
        usize::try_from(self.max_concurrent)
            .unwrap_or(usize::MAX)
            .max(1)
    }

    fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_secs.max(1))
    }

    fn drain_timeout(&self) -> Duration {
        Duration::from_secs(self.drain_timeout_secs.max(1))
    }

    /// Loopback names plus `--allowed-host`, lower-cased.
    pub fn host_allow_list(&self) -> Vec<String> {
        LOOPBACK_HOSTS
            .iter()
            .map(|h| (*h).to_string())
            .chain(
                self.allowed_hosts
                    .iter()
                    .map(|h| h.trim().to_ascii_lowercase()),
            )
            .filter(|h| !h.is_empty())
            .collect()
    }

    fn tokens(&self, configured: Option<Credential>) -> Tokens {
        if self.token_from_request {
            Tokens::FromRequest
        } else {
            Tokens::Configured(configured)
        }
    }
}

/// Serves until SIGTERM/SIGINT, then drains in-flight calls (bounded by
/// `--drain-timeout-secs`) and returns `Ok`. `Err` is a startup failure, worded for the user.
pub async fn serve(
    args: HttpArgs,
    reader: Reader,
    configured: Option<Credential>,
) -> Result<(), String> {
    check_allowed_hosts(&args.allowed_hosts)?;
    // Before listening, so that a signal can never kill the process with calls in flight.
    let mut stop = StopSignal::install()?;
    let (listener, local) = bind(&args).await?;
    announce(&args, local, configured.is_some());
    let rmcp_stop = CancellationToken::new();
    let slots = Arc::new(Semaphore::new(args.slots()));
    let app = router(
        &args,
        reader,
        configured,
        rmcp_stop.clone(),
        Arc::clone(&slots),
    );
    let stop_accepting = CancellationToken::new();
    let server =
        axum::serve(listener, app).with_graceful_shutdown(stop_accepting.clone().cancelled_owned());
    let mut server = tokio::spawn(std::future::IntoFuture::into_future(server));
    tokio::select! {
        ended = &mut server => {
            return Err(format!("the HTTP server stopped unexpectedly: {}", join_message(ended)));
        }
        () = stop.received() => {}
    }
    tracing::info!("shutdown requested: no new connections, draining in-flight calls");
    stop_accepting.cancel();
    drain(&slots, args.slots(), args.drain_timeout()).await;
    // Ends sessions and their open SSE streams, so the connections holding them can close.
    rmcp_stop.cancel();
    match tokio::time::timeout(CLOSE_GRACE, server).await {
        Ok(ended) => tracing::info!("stopped: {}", join_message(ended)),
        Err(_) => tracing::warn!("connections still open after the drain; exiting anyway"),
    }
    Ok(())
}

async fn bind(args: &HttpArgs) -> Result<(tokio::net::TcpListener, SocketAddr), String> {
    let addr = args.http.as_deref().unwrap_or(DEFAULT_ADDR);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the address bound for {addr}: {e}"))?;
    Ok((listener, local))
}

/// Prints the bound address and warns about exposure.
fn announce(args: &HttpArgs, local: SocketAddr, has_configured_token: bool) {
    for warning in exposure_warnings(args, local) {
        tracing::warn!("{warning}");
    }
    if args.token_from_request && has_configured_token {
        tracing::info!("--token-from-request: the configured GitLab token is not used");
    }
    // The one line scripts and tests wait for; printed whatever the log level.
    eprintln!("listening on http://{local}/mcp");
    tracing::info!(
        %local,
        stateless = args.stateless,
        token_from_request = args.token_from_request,
        "serving MCP over streamable HTTP"
    );
}

fn join_message(ended: Result<std::io::Result<()>, tokio::task::JoinError>) -> String {
    match ended {
        Ok(Ok(())) => "closed".to_string(),
        Ok(Err(e)) => e.to_string(),
        Err(e) => e.to_string(),
    }
}

/// Waits until every slot is free again (no call in flight), at most `limit`.
async fn drain(slots: &Semaphore, total: usize, limit: Duration) {
    let all = u32::try_from(total).unwrap_or(u32::MAX);
    match tokio::time::timeout(limit, slots.acquire_many(all)).await {
        Ok(Ok(_all_back)) => tracing::info!("in-flight calls drained"),
        Ok(Err(_closed)) => {}
        Err(_) => tracing::warn!(
            abandoned = total.saturating_sub(slots.available_permits()),
            "drain timed out (--drain-timeout-secs); closing with calls still in flight"
        ),
    }
}

/// SIGTERM and SIGINT, registered as soon as this is built.
#[cfg(unix)]
struct StopSignal {
    term: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl StopSignal {
    fn install() -> Result<Self, String> {
        use tokio::signal::unix::{SignalKind, signal};
        let register = |kind: SignalKind, name: &str| {
            signal(kind).map_err(|e| format!("cannot listen for {name}: {e}"))
        };
        Ok(Self {
            term: register(SignalKind::terminate(), "SIGTERM")?,
            interrupt: register(SignalKind::interrupt(), "SIGINT")?,
        })
    }

    async fn received(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.interrupt.recv() => {}
        }
    }
}

/// Ctrl-C where there are no Unix signals.
#[cfg(not(unix))]
struct StopSignal;

#[cfg(not(unix))]
impl StopSignal {
    fn install() -> Result<Self, String> {
        Ok(Self)
    }

    async fn received(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Each `--allowed-host` must be a host name or `host:port` as a `Host` header carries it, so
/// that a typo (a scheme, a path) fails at startup instead of refusing every client.
pub fn check_allowed_hosts(entries: &[String]) -> Result<(), String> {
    for entry in entries {
        let parsed = http::uri::Authority::try_from(entry.trim()).ok();
        if parsed.is_none_or(|a| a.host().is_empty() || a.as_str().contains('@')) {
            return Err(format!(
                "--allowed-host '{entry}' is not a host name or host:port (e.g. mcp.example.com or mcp.example.com:8443)"
            ));
        }
    }
    Ok(())
}

/// What an operator should hear about how exposed this server is, given where it listens.
pub fn exposure_warnings(args: &HttpArgs, local: SocketAddr) -> Vec<String> {
    if local.ip().is_loopback() {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    if !args.token_from_request && !args.allow_shared_token {
        warnings.push(format!(
            "listening on non-loopback {local} with the server's own GitLab token for every caller: \
             anyone who can reach it reads what that token can. Pass --token-from-request to use \
             each caller's token, or --allow-shared-token if this is intended."
        ));
    }
    if args.allowed_hosts.is_empty() {
        warnings.push(format!(
            "listening on non-loopback {local} but only loopback Host headers are allowed: remote \
             clients get 403 until you add --allowed-host <the name they use>."
        ));
    }
    warnings
}

/// State shared by the guards.
#[derive(Debug)]
struct Guards {
    allowed_hosts: Vec<String>,
    token_from_request: bool,
    max_body: usize,
    slots: Arc<Semaphore>,
    timeout: Duration,
}

/// The app: `/mcp` behind the guards, `/healthz` open. `rmcp_stop` ends rmcp's sessions and
/// streams; `slots` is the concurrency budget (shutdown drains it).
pub fn router(
    args: &HttpArgs,
    reader: Reader,
    configured: Option<Credential>,
    rmcp_stop: CancellationToken,
    slots: Arc<Semaphore>,
) -> Router {
    let guards = Arc::new(Guards {
        allowed_hosts: args.host_allow_list(),
        token_from_request: args.token_from_request,
        max_body: args.max_body(),
        slots,
        timeout: args.request_timeout(),
    });
    let mut handler = FileServer::new(reader, args.tokens(configured));
    // Stateless responses are bounded by `deadline` (504); see the module doc.
    if !args.stateless {
        let limit = args.request_timeout();
        handler = handler.with_call_timeout(limit, call_timed_out(limit));
    }
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!args.stateless)
        .with_json_response(args.stateless)
        .with_allowed_hosts(guards.allowed_hosts.clone())
        .with_max_request_body_bytes(guards.max_body)
        .with_cancellation_token(rmcp_stop);
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let guarded = ServiceBuilder::new()
        .layer(from_fn_with_state(Arc::clone(&guards), admit))
        .layer(from_fn_with_state(Arc::clone(&guards), authenticate))
        .layer(from_fn_with_state(Arc::clone(&guards), limit_concurrency))
        .layer(from_fn_with_state(guards, deadline));
    Router::new()
        .route_service("/mcp", mcp)
        .route_layer(guarded)
        .merge(Router::new().route("/healthz", get(healthz)))
}

async fn healthz() -> &'static str {
    "ok\n"
}

fn plain(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.into(),
    )
        .into_response()
}

/// Guard 1: an allowed `Host` (403), and a declared body within the limit (413).
async fn admit(State(g): State<Arc<Guards>>, request: Request, next: Next) -> Response {
    match request_host(&request) {
        None => {
            return plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: missing or invalid Host header\n",
            );
        }
        Some(host) if !host_allowed(&host, &g.allowed_hosts) => {
            tracing::warn!(host = %host.0, "refused a request for a Host not allowed (--allowed-host)");
            return plain(
                StatusCode::FORBIDDEN,
                "Forbidden: this Host is not served here (see --allowed-host)\n",
            );
        }
        Some(_) => {}
    }
    if declared_length(&request).is_some_and(|n| n > g.max_body) {
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: request body exceeds {} bytes\n",
                g.max_body
            ),
        );
    }
    next.run(request).await
}

/// Guard 2 (`--token-from-request`): a caller token or 401. Token headers are marked sensitive
/// so that no `Debug` of the request can print them.
async fn authenticate(State(g): State<Arc<Guards>>, mut request: Request, next: Next) -> Response {
    hide_tokens(request.headers_mut());
    let credential = request_token(request.headers());
    if g.token_from_request && credential.is_none() {
        tracing::debug!("refused a request without a caller token");
        let mut response = plain(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: send your GitLab token as 'Authorization: Bearer <token>' or 'PRIVATE-TOKEN: <token>'\n",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(CHALLENGE),
        );
        return response;
    }
    if let Some(credential) = credential.filter(|_| g.token_from_request) {
        request.extensions_mut().insert(credential);
    }
    next.run(request).await
}

/// Guard 3: a free slot or 503 with `Retry-After`. The slot travels with the response body so
/// it is held until the answer has been sent (SSE answers stream after the handler returns).
/// Standalone SSE streams (GET) hold no slot: they idle for a session's whole life.
async fn limit_concurrency(State(g): State<Arc<Guards>>, request: Request, next: Next) -> Response {
    if request.method() == Method::GET {
        return next.run(request).await;
    }
    let Ok(permit) = Arc::clone(&g.slots).try_acquire_owned() else {
        tracing::info!("busy: all --max-concurrent slots taken, answered 503");
        let mut response = plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: too many requests in flight, retry shortly\n",
        );
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from_static(RETRY_AFTER_SECS),
        );
        return response;
    };
    next.run(request).await.map(|body| {
        Body::new(Holding {
            body,
            _permit: permit,
        })
    })
}

/// Guard 4: 504 when no response has started within `--request-timeout-secs`. Dropping the
/// inner future cancels the call (and its GitLab request).
async fn deadline(State(g): State<Arc<Guards>>, request: Request, next: Next) -> Response {
    if request.method() == Method::GET {
        return next.run(request).await;
    }
    match tokio::time::timeout(g.timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(
                secs = g.timeout.as_secs(),
                "request timed out, answered 504"
            );
            plain(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "Gateway Timeout: the call did not finish within {} s; GitLab may be slow, try again\n",
                    g.timeout.as_secs()
                ),
            )
        }
    }
}

/// The host of a request: its `Host` header, else the URI's authority (HTTP/2), lower-cased,
/// without IPv6 brackets; with its port if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHost(pub String, pub Option<u16>);

fn request_host(request: &Request) -> Option<RequestHost> {
    let authority = match request.headers().get(header::HOST) {
        Some(value) => http::uri::Authority::try_from(value.to_str().ok()?).ok()?,
        None => request.uri().authority()?.clone(),
    };
    Some(RequestHost(
        normalize_host(authority.host()),
        authority.port_u16(),
    ))
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// Whether `host` matches an entry: `name` matches any port, `name:port` only that port (the
/// rule rmcp applies too, so the two checks agree).
pub fn host_allowed(host: &RequestHost, allowed: &[String]) -> bool {
    allowed.iter().any(|entry| {
        let (name, port) = match http::uri::Authority::try_from(entry.as_str()) {
            Ok(a) => (normalize_host(a.host()), a.port_u16()),
            Err(_) => (normalize_host(entry), None),
        };
        name == host.0 && port.is_none_or(|p| host.1 == Some(p))
    })
}

fn declared_length(request: &Request) -> Option<usize> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The caller's token from an HTTP request's headers: `Authorization: Bearer <t>` first, then
/// `PRIVATE-TOKEN: <t>`.
pub fn request_token(headers: &http::HeaderMap) -> Option<Credential> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(token)
        });
    let private = headers.get("private-token").and_then(|v| v.to_str().ok());
    bearer
        .or(private)
        .and_then(Secret::new)
        .map(|token| Credential {
            token,
            origin: TokenOrigin::Request,
        })
}

/// The tool error of a session-mode call over `--request-timeout-secs`.
fn call_timed_out(limit: Duration) -> String {
    format!(
        "The call did not finish within {} s (the server's --request-timeout-secs). GitLab may be slow; try again.",
        limit.as_secs()
    )
}

/// Marks token-bearing header values sensitive (`Debug` then prints `Sensitive`).
fn hide_tokens(headers: &mut http::HeaderMap) {
    for name in [
        header::AUTHORIZATION,
        http::HeaderName::from_static("private-token"),
    ] {
        if let http::header::Entry::Occupied(mut entry) = headers.entry(name) {
            for value in entry.iter_mut() {
                value.set_sensitive(true);
            }
        }
    }
}

/// A response body that holds a concurrency slot until it is sent or dropped.
struct Holding {
    body: Body,
    _permit: OwnedSemaphorePermit,
}

impl http_body::Body for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, port: Option<u16>) -> RequestHost {
        RequestHost(name.to_string(), port)
    }

    fn list(extra: &[&str]) -> Vec<String> {
        HttpArgs {
            allowed_hosts: extra.iter().map(|s| (*s).to_string()).collect(),
            ..HttpArgs::default()
        }
        .host_allow_list()
    }

    #[test]
    fn loopback_is_always_allowed_and_foreign_hosts_are_not() {
        let allowed = list(&[]);
        assert!(host_allowed(&host("localhost", Some(8080)), &allowed));
        assert!(host_allowed(&host("127.0.0.1", None), &allowed));
        assert!(host_allowed(&host("::1", Some(1)), &allowed));
        assert!(!host_allowed(&host("evil.example", Some(8080)), &allowed));
        assert!(!host_allowed(
            &host("127.0.0.1.evil.example", None),
            &allowed
        ));
    }

    #[test]
    fn allowed_host_entries_with_and_without_port() {
        let allowed = list(&["MCP.example.com", "other.example:8443"]);
        assert!(host_allowed(&host("mcp.example.com", Some(1234)), &allowed));
        assert!(host_allowed(&host("other.example", Some(8443)), &allowed));
        assert!(!host_allowed(&host("other.example", Some(80)), &allowed));
        assert!(!host_allowed(&host("other.example", None), &allowed));
    }

    #[test]
    fn host_header_parsing() {
        let req = |h: &str| {
            http::Request::builder()
                .uri("/mcp")
                .header(header::HOST, h)
                .body(Body::empty())
                .unwrap()
        };
        assert_eq!(request_host(&req("[::1]:80")), Some(host("::1", Some(80))));
        assert_eq!(
            request_host(&req("Example.COM")),
            Some(host("example.com", None))
        );
        assert_eq!(request_host(&req("bad host")), None);
    }

    #[test]
    fn exposure_warnings_only_off_loopback() {
        let args = HttpArgs::default();
        assert!(exposure_warnings(&args, "127.0.0.1:8080".parse().unwrap()).is_empty());
        assert!(exposure_warnings(&args, "[::1]:8080".parse().unwrap()).is_empty());
        let w = exposure_warnings(&args, "0.0.0.0:8080".parse().unwrap());
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("--token-from-request") && w[1].contains("--allowed-host"));
        let per_user = HttpArgs {
            token_from_request: true,
            allowed_hosts: vec!["mcp.example.com".into()],
            ..HttpArgs::default()
        };
        assert!(exposure_warnings(&per_user, "10.0.0.5:8080".parse().unwrap()).is_empty());
        let shared = HttpArgs {
            allow_shared_token: true,
            ..per_user
        };
        let shared = HttpArgs {
            token_from_request: false,
            ..shared
        };
        assert!(exposure_warnings(&shared, "10.0.0.5:8080".parse().unwrap()).is_empty());
    }

    #[test]
    fn allowed_host_typos_fail_at_startup() {
        let ok = |v: &[&str]| {
            check_allowed_hosts(&v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>())
        };
        assert!(
            ok(&[
                "mcp.example.com",
                "mcp.example.com:8443",
                "10.0.0.5",
                "[::1]:8080"
            ])
            .is_ok()
        );
        for bad in [
            "https://mcp.example.com",
            "mcp.example.com/mcp",
            "",
            "user@host",
            ":8080",
        ] {
            assert!(ok(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn token_headers_become_sensitive() {
        let mut headers = http::HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer glpat-xyz"),
        );
        headers.insert("private-token", HeaderValue::from_static("glpat-abc"));
        hide_tokens(&mut headers);
        let shown = format!("{headers:?}");
        assert!(!shown.contains("glpat"), "{shown}");
    }
}
