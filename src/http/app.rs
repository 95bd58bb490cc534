//! The app: `/mcp` (rmcp's streamable-HTTP service behind the checks of [`super::guard::gate`],
//! [`super::sessions::session`], [`super::guard::body`], [`super::guard::capacity`] and
//! [`super::sessions::session_open`], with its sessions counted by
//! [`super::sessions::counted_sessions`]), `/healthz` (open, for probes) and, unless it is served
//! apart or off, `/metrics` ([`super::scrape`]). With `--token-from-request`, any other path is a
//! `404` saying there is no OAuth here ([`super::wording::reply::no_oauth`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceBuilder;

use super::flags::HttpArgs;
use super::guard::admission::Admission;
use super::guard::mode::Mode;
use super::guard::origin::OriginPolicy;
use super::guard::{body, capacity, gate};
use super::scrape;
use super::sessions::{session, session_open};
use super::wording;
use crate::auth::Oauth;
use crate::config::Credential;
use crate::reader::{AnySource, Reader};
use crate::tool::{FileServer, TokenSource};

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
    let parts = session_open::Parts::new(args.sessions(), reader.backend().clone(), mode.clone());
    let handler = file_server(args, reader, configured, controls, &mode);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!args.stateless)
        .with_json_response(args.stateless)
        .with_allowed_hosts(admission.allowed_hosts.clone())
        .with_max_request_body_bytes(admission.max_body)
        .with_cancellation_token(controls.rmcp_stop.clone());
    let mcp = StreamableHttpService::new(move || Ok(handler.clone()), parts.manager, config);
    // The cheapest refusal first; a request takes a slot only once its body is in.
    let checks = ServiceBuilder::new()
        .layer(axum::middleware::from_fn(
            super::wording::reply::session_ended,
        ))
        .layer(from_fn_with_state(Arc::clone(&admission), gate::admit))
        .layer(from_fn_with_state(
            Arc::clone(&admission),
            gate::authenticate,
        ))
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
        Mode::RequestToken => router = router.fallback(super::wording::reply::no_oauth),
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
        mode: mode.clone(),
        max_body: args.max_body(),
        body_timeout: args.body_timeout(),
        slots: Arc::clone(&controls.slots),
        request_timeout: args.request_timeout(),
    })
}

/// The tool server: cut off at the drain deadline; in session mode also at the request
/// timeout (stateless calls get a 504 from [`capacity::deadline`] instead).
fn file_server(
    args: &HttpArgs,
    reader: Reader,
    configured: Option<Credential>,
    controls: &Controls,
    mode: &Mode,
) -> FileServer {
    let tokens = if mode.per_caller() {
        TokenSource::FromRequest
    } else {
        TokenSource::Configured(configured)
    };
    let local = matches!(reader.backend(), AnySource::Local(_));
    let server = FileServer::new(reader, tokens)
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

async fn healthz() -> &'static str {
    wording::HEALTHY
}
