//! The app: `/mcp` (rmcp's streamable-HTTP service behind the checks of [`super::guard::gate`],
//! the door's [`super::door::identify`], [`super::sessions::session`], [`super::guard::body`],
//! [`super::guard::capacity`], the door's [`super::door::admit`] and
//! [`super::sessions::session_open`], with its sessions counted by
//! [`super::sessions::counted_sessions`]), `/healthz` (open, for probes) and, unless it is served
//! apart or off, `/metrics` ([`super::scrape`]). With `--token-from-request`, any other path is a
//! `404` saying there is no OAuth here ([`no_oauth`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{Method, StatusCode};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceBuilder;

use super::door::mode::Mode;
use super::door::{self, Door};
use super::flags::HttpArgs;
use super::guard::admission::Admission;
use super::guard::origin::OriginPolicy;
use super::guard::refusal::Refusal;
use super::guard::{body, capacity, gate};
use super::scrape;
use super::sessions::{session, session_open};
use super::wording;
use crate::auth::Oauth;
use crate::config::Credential;
use crate::reader::{AnySource, Reader};
use crate::tool::FileServer;

/// What steers the server's shutdown.
#[derive(Debug, Clone)]
pub(crate) struct Controls {
    /// The concurrency budget: a request in progress holds one slot; shutdown drains them.
    pub slots: Arc<Semaphore>,
    /// Fires at the drain deadline: calls still running answer that the server shuts down.
    pub calls_stop: CancellationToken,
    /// Ends rmcp's sessions and their open SSE streams, so their connections can close.
    pub rmcp_stop: CancellationToken,
}

impl Controls {
    pub(crate) fn new(slots: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(slots)),
            calls_stop: CancellationToken::new(),
            rmcp_stop: CancellationToken::new(),
        }
    }
}

/// The app for a server listening on `local`.
pub(crate) fn router(
    args: &HttpArgs,
    local: SocketAddr,
    reader: Reader,
    configured: Option<Credential>,
    controls: &Controls,
    oauth: Option<Arc<Oauth>>,
) -> Router {
    // Who the caller is: decided here, once.
    let mode = Mode::new(args.token_from_request, oauth);
    let admission = admission(args, local, controls, &mode);
    let sessions = args.sessions();
    let parts = session_open::Parts::new(sessions, mode.per_caller());
    let door = Arc::new(Door::new(
        mode.clone(),
        configured,
        sessions.sessions_on,
        reader.backend().clone(),
    ));
    let handler = file_server(args, reader, controls);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!args.stateless)
        .with_json_response(args.stateless)
        .with_allowed_hosts(admission.allowed_hosts.clone())
        .with_max_request_body_bytes(admission.max_body)
        .with_cancellation_token(controls.rmcp_stop.clone());
    let mcp = StreamableHttpService::new(move || Ok(handler.clone()), parts.manager, config);
    // The cheapest refusal first; a request takes a slot only once its body is in.
    let checks = ServiceBuilder::new()
        .layer(axum::middleware::from_fn(session_ended))
        .layer(from_fn_with_state(Arc::clone(&admission), gate::admit))
        .layer(from_fn_with_state(Arc::clone(&door), door::identify))
        .layer(from_fn_with_state(parts.owners, session::bind))
        .layer(from_fn_with_state(Arc::clone(&admission), body::receive))
        .layer(from_fn_with_state(
            Arc::clone(&admission),
            capacity::limit_concurrency,
        ))
        .layer(from_fn_with_state(
            Arc::clone(&admission),
            capacity::deadline,
        ))
        .layer(from_fn_with_state(door, door::admit))
        .layer(from_fn_with_state(parts.opening, session_open::admit))
        .layer(axum::middleware::from_fn(super::left::watch));
    let mut router = Router::new()
        .route_service("/mcp", mcp)
        .route_layer(checks)
        .merge(Router::new().route("/healthz", get(healthz)));
    if args.metrics_on_main_listener() {
        router = router.merge(scrape::route(Arc::clone(&admission)));
    }
    match &mode {
        Mode::SignIn { oauth, .. } => router = router.merge(sign_in(oauth, &admission)),
        Mode::RequestToken => router = router.fallback(no_oauth),
        Mode::ServerToken => {}
    }
    router
}

/// `--oauth`'s routes, behind the same Origin and Host checks as `/mcp`.
fn sign_in(oauth: &Arc<Oauth>, admission: &Arc<Admission>) -> Router {
    crate::auth::router(oauth).layer(from_fn_with_state(Arc::clone(admission), gate::admit))
}

/// What every request to `/mcp` is checked against: the flags, and with `--oauth` the
/// public URL's host and origin allowed.
fn admission(
    args: &HttpArgs,
    local: SocketAddr,
    controls: &Controls,
    mode: &Mode,
) -> Arc<Admission> {
    let mut hosts = args.host_allow_list();
    let mut origins = args.allowed_origins.clone();
    if let Some(oauth) = mode.sign_in() {
        let (origin, host) = oauth.public_origin_and_host();
        origins.push(origin);
        hosts.push(host);
    }
    Arc::new(Admission {
        allowed_hosts: hosts,
        origins: OriginPolicy::new(&origins, local.port()),
        max_body: args.max_body(),
        body_timeout: args.body_timeout(),
        slots: Arc::clone(&controls.slots),
        request_timeout: args.request_timeout(),
    })
}

/// The tool server: cut off at the drain deadline; in session mode also at the request
/// timeout (stateless calls get a 504 from [`capacity::deadline`] instead). It reads with what
/// the door admitted into each request, never with a token of its own.
fn file_server(args: &HttpArgs, reader: Reader, controls: &Controls) -> FileServer {
    let local = matches!(reader.backend(), AnySource::Local(_));
    let server = FileServer::new(reader, None)
        .with_shutdown(controls.calls_stop.clone(), wording::SHUTTING_DOWN);
    if args.stateless {
        server
    } else {
        let limit = args.request_timeout();
        server
            .with_sessions()
            .with_call_timeout(limit, wording::call_timed_out(limit, local))
    }
}

/// A session's end (`DELETE /mcp`) answers `204 No Content`: rmcp answers `202 Accepted`,
/// which the Python MCP SDK takes for a failure ("Session termination failed: 202"); 200 and
/// 204 are what the clients accept. Every other answer passes unchanged.
async fn session_ended(request: Request, next: Next) -> Response {
    let ending = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if ending && response.status() == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    response
}

/// `404` for any path not served, with `--token-from-request`, saying there is no OAuth here:
/// clients that take the 401 for an OAuth challenge look for an authorization server and a
/// registration endpoint on this origin, and show this body when registration fails.
async fn no_oauth() -> Response {
    Refusal::NoOauth.into_response()
}

async fn healthz() -> &'static str {
    wording::HEALTHY
}
