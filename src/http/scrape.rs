//! `GET /metrics`: the Prometheus exposition of [`crate::metrics`] in the text format
//! (version 0.0.4), with no token.
//!
//! On the `--http` listener it passes the same checks as `/mcp` before it
//! ([`super::guard::gate::admit`]: Origin, then Host). With `--metrics-addr` it is served on a
//! listener of its own instead (and not on the `--http` one, so the public port need not expose
//! it): that listener checks `Origin` only, because a scraper addresses a pod by an IP that no
//! `--allowed-host` can name in advance. What it shows carries no caller input: every label value
//! is one of a fixed set.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::header;
use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;
use tokio_util::sync::CancellationToken;

use super::flags::HttpArgs;
use super::guard::admission::Admission;
use super::guard::gate;
use super::guard::origin::OriginPolicy;
use super::guard::refusal::Refusal;
use super::listen;
use super::wording;
use super::wording::start::StartError;
use crate::metrics;

const PATH: &str = "/metrics";

/// `/metrics` for the `--http` listener, behind the checks `/mcp` starts with.
pub(crate) fn route(admission: Arc<Admission>) -> Router {
    Router::new()
        .route(PATH, get(exposition))
        .route_layer(from_fn_with_state(admission, gate::admit))
}

/// With `--metrics-addr`: binds it, says where on stderr, and serves `/metrics` there until
/// `stop` fires. `Err` is a startup failure, worded for the user.
pub(crate) async fn serve_apart(
    args: &HttpArgs,
    stop: CancellationToken,
) -> Result<(), StartError> {
    let Some(addr) = args.metrics_addr.as_deref() else {
        return Ok(());
    };
    let (listener, local) = listen::bind(addr).await?;
    let origins = Arc::new(OriginPolicy::new(&args.allowed_origins, local.port()));
    let app = Router::new()
        .route(PATH, get(exposition))
        .route_layer(from_fn_with_state(origins, admit_origin));
    eprintln!("{}", wording::metrics_apart(local));
    tokio::spawn(listen::accept_until(
        listener,
        app,
        args.header_timeout(),
        stop,
    ));
    Ok(())
}

/// The apart listener's one check: an allowed `Origin` or none, as for `/mcp`.
async fn admit_origin(
    State(origins): State<Arc<OriginPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    if !origins.admits(request.headers(), None) {
        let origin = request.headers().get(header::ORIGIN).cloned();
        return Refusal::OriginForbidden { origin }.into_response();
    }
    next.run(request).await
}

async fn exposition() -> Response {
    match metrics::render() {
        Some(text) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response(),
        None => Refusal::MetricsOff.into_response(),
    }
}
