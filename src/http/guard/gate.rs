//! The first check of a request to `/mcp`, made on its headers alone (nothing is read yet):
//! [`admit`] (Origin, Host, declared size). The caller's token is the door's (`http::door`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header;

use super::admission::Admission;
use super::host::{host_allowed, request_host};
use super::refusal::Refusal;

/// Check 1: an allowed `Origin` (403) before anything else, then one well-formed `Host` (400)
/// that is allowed (403, DNS-rebinding protection), then a declared body within the limit
/// (413, before it is read).
pub(crate) async fn admit(
    State(a): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request_host(request.headers(), request.uri());
    if !a.origins.admits(request.headers(), host.as_ref().ok()) {
        let origin = request.headers().get(header::ORIGIN).cloned();
        return Refusal::OriginForbidden { origin }.into_response();
    }
    let host = match host {
        Ok(host) => host,
        Err(problem) => return Refusal::HostUnusable(problem).into_response(),
    };
    if !host_allowed(&host, &a.allowed_hosts) {
        return Refusal::HostForbidden { host: host.name }.into_response();
    }
    if declared_length(&request).is_some_and(|n| n > a.max_body) {
        return Refusal::TooLarge { limit: a.max_body }.into_response();
    }
    next.run(request).await
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
