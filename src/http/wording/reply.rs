//! The HTTP layer's own answers: a status with a one-line text from [`crate::http::wording`], or a
//! JSON-RPC error body, plus the headers each refusal needs.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, StatusCode, header};
use rmcp::model::ErrorCode;

use crate::http::wording;
use crate::tool::jsonrpc::{Rejection, error_body};

/// The `WWW-Authenticate` challenge of a 401.
pub(crate) const CHALLENGE: &str = "Bearer realm=\"gitlab-file-mcp\"";
/// The JSON-RPC error code of a 401's body: JSON-RPC leaves -32000 to -32099 to servers, and
/// -32001 is what MCP servers commonly answer for a missing credential.
const UNAUTHORIZED_CODE: ErrorCode = ErrorCode(-32001);
/// Seconds a client is told to wait after a 503.
const BUSY_RETRY_AFTER_SECS: &str = "1";

/// `status` with a `text/plain` line.
pub(crate) fn plain(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.into(),
    )
        .into_response()
}

/// A refusal after which the rest of the connection cannot be trusted (a body left unread or
/// cut short): the connection is closed once it is sent.
pub(crate) fn closing(status: StatusCode, message: impl Into<String>) -> Response {
    let mut response = plain(status, message);
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// 401 with the challenge. Its body, to a `POST` (a JSON-RPC message), is a JSON-RPC error
/// whose message is `message` (`"id": null`: the body is not read yet), which the Python MCP
/// SDK raises as the call's error; to anything else, `message` as plain text. The challenge
/// carries no `error` attribute: RFC 6750 §3.1 asks for none when the request has no token.
pub(crate) fn unauthorized(method: &Method, message: &str) -> Response {
    challenged(method, message, HeaderValue::from_static(CHALLENGE))
}

/// 401 as [`unauthorized`], with `challenge` as its `WWW-Authenticate` (`--oauth`'s, naming
/// the resource metadata).
pub(crate) fn challenged(method: &Method, message: &str, challenge: HeaderValue) -> Response {
    let mut response = if method == Method::POST {
        let body = error_body(None, UNAUTHORIZED_CODE, message.trim_end());
        (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    } else {
        plain(StatusCode::UNAUTHORIZED, message)
    };
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    response
}

/// `404` for any path not served, with `--token-from-request`, saying there is no OAuth here:
/// clients that take the 401 for an OAuth challenge look for an authorization server and a
/// registration endpoint on this origin, and show this body when registration fails.
pub(crate) async fn no_oauth() -> Response {
    plain(StatusCode::NOT_FOUND, wording::NO_OAUTH)
}

/// 503 with `Retry-After`.
pub(crate) fn busy(message: &str) -> Response {
    let mut response = plain(StatusCode::SERVICE_UNAVAILABLE, message);
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(BUSY_RETRY_AFTER_SECS),
    );
    response
}

/// 503 with `Retry-After: <secs>`.
pub(crate) fn busy_for(message: &str, secs: u64) -> Response {
    let mut response = plain(StatusCode::SERVICE_UNAVAILABLE, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    response
}

/// A session's end (`DELETE /mcp`) answers `204 No Content`: rmcp answers `202 Accepted`,
/// which the Python MCP SDK takes for a failure ("Session termination failed: 202"); 200 and
/// 204 are what the clients accept. Every other answer passes unchanged.
pub(crate) async fn session_ended(request: Request, next: Next) -> Response {
    let ending = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if ending && response.status() == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    response
}

/// 400 with the JSON-RPC error for a body that is no message.
pub(crate) fn rejected(rejection: Rejection) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        rejection.reply(),
    )
        .into_response()
}
