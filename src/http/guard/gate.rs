//! The first checks of a request to `/mcp`, made on its headers alone (nothing is read yet):
//! [`admit`] (Origin, Host, declared size) and [`authenticate`] (the caller's token).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{StatusCode, header};

use super::admission::Admission;
use super::host::{HostProblem, host_allowed, request_host};
use super::mode::Mode;
use super::token::{bearer_text, hide_tokens, private_token, request_token};
use crate::auth::Oauth;
use crate::config::Credential;
use crate::http::wording;
use crate::http::wording::reply;
use crate::metrics::{self, Guard};

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
        tracing::warn!(
            origin = ?request.headers().get(header::ORIGIN),
            "{}",
            wording::LOG_ORIGIN_REFUSED
        );
        metrics::refused(Guard::Origin);
        return reply::plain(StatusCode::FORBIDDEN, wording::ORIGIN_FORBIDDEN);
    }
    let host = match host {
        Ok(host) => host,
        Err(problem) => {
            tracing::warn!(?problem, "{}", wording::LOG_HOST_MALFORMED);
            metrics::refused(Guard::Host);
            return reply::plain(StatusCode::BAD_REQUEST, host_problem(problem));
        }
    };
    if !host_allowed(&host, &a.allowed_hosts) {
        tracing::warn!(host = %host.name, "{}", wording::LOG_HOST_REFUSED);
        metrics::refused(Guard::Host);
        return reply::plain(StatusCode::FORBIDDEN, wording::HOST_FORBIDDEN);
    }
    if declared_length(&request).is_some_and(|n| n > a.max_body) {
        metrics::refused(Guard::BodySize);
        return reply::closing(
            StatusCode::PAYLOAD_TOO_LARGE,
            wording::too_large(a.max_body),
        );
    }
    next.run(request).await
}

/// With `--oauth`: the credential a live access token of this server carries, or (with
/// `--token-from-request` as well) a `PRIVATE-TOKEN`.
fn signed_in(
    oauth: &Oauth,
    private_allowed: bool,
    headers: &http::HeaderMap,
) -> Option<Credential> {
    match bearer_text(headers) {
        Some(token) => oauth.credential(token),
        None => private_token(headers).filter(|_| private_allowed),
    }
}

/// The 401 of a request [`signed_in`] found no credential in: its challenge names the
/// resource metadata (with `error="invalid_token"` when a token was sent); the connection
/// closes after it.
fn sign_in_first(oauth: &Oauth, request: &Request) -> Response {
    let sent = bearer_text(request.headers()).is_some();
    if sent {
        tracing::info!("{}", wording::LOG_BEARER_REFUSED);
    } else {
        tracing::debug!("{}", wording::LOG_NO_TOKEN);
    }
    metrics::refused(Guard::Token);
    let challenge = http::HeaderValue::from_str(&oauth.challenge(sent))
        .unwrap_or_else(|_| http::HeaderValue::from_static(reply::CHALLENGE));
    let message = if sent {
        wording::SIGN_IN_AGAIN
    } else {
        wording::SIGN_IN
    };
    let mut response = reply::challenged(request.method(), message, challenge);
    // The body is left unread, so the connection cannot serve another request; saying so
    // keeps a client from sending its discovery on a connection about to close.
    response
        .headers_mut()
        .insert(header::CONNECTION, http::HeaderValue::from_static("close"));
    response
}

fn host_problem(problem: HostProblem) -> &'static str {
    match problem {
        HostProblem::Missing => wording::HOST_MISSING,
        HostProblem::Duplicate => wording::HOST_DUPLICATE,
        HostProblem::Empty => wording::HOST_EMPTY,
        HostProblem::Malformed => wording::HOST_MALFORMED,
    }
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

/// Check 2: token headers are marked sensitive, so that no `Debug` of the request prints
/// them. With `--token-from-request`, the caller's token goes into the request's extensions
/// as a [`crate::config::Credential`] for the tool to read, or the request gets 401.
pub(crate) async fn authenticate(
    State(a): State<Arc<Admission>>,
    mut request: Request,
    next: Next,
) -> Response {
    hide_tokens(request.headers_mut());
    let credential = match &a.mode {
        Mode::ServerToken => return next.run(request).await,
        Mode::SignIn {
            oauth,
            private_tokens,
        } => match signed_in(oauth, *private_tokens, request.headers()) {
            Some(credential) => credential,
            None => return sign_in_first(oauth, &request),
        },
        Mode::RequestToken => match request_token(request.headers()) {
            Some(credential) => credential,
            None => {
                tracing::debug!("{}", wording::LOG_NO_TOKEN);
                metrics::refused(Guard::Token);
                return reply::unauthorized(request.method(), wording::UNAUTHORIZED);
            }
        },
    };
    request.extensions_mut().insert(credential);
    next.run(request).await
}
