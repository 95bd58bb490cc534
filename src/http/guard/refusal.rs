//! Every refusal of the HTTP layer, one value each ([`Refusal`]): what it answers (status,
//! sentence, `WWW-Authenticate` challenge, `Retry-After`, whether the connection closes), the
//! metric it counts and the log line it writes at which level. It is rendered in one place, its
//! [`IntoResponse`], as axum's rejection types are: a check says *which* refusal, never how it
//! is told. The sentences are [`crate::http::wording`]'s.

use std::borrow::Cow;
use std::time::Duration;

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use rmcp::model::ErrorCode;
use tracing::Level;

use super::host::HostProblem;
use crate::http::wording;
use crate::metrics::{self, Guard};
use crate::tool::jsonrpc::{Rejection, error_body};

/// The `WWW-Authenticate` challenge of a 401 without a sign-in.
pub(crate) const CHALLENGE: &str = "Bearer realm=\"gitlab-file-mcp\"";
/// The JSON-RPC error code of a 401's body: JSON-RPC leaves -32000 to -32099 to servers, and
/// -32001 is what MCP servers commonly answer for a missing credential.
const UNAUTHORIZED_CODE: ErrorCode = ErrorCode(-32001);
/// Seconds a client is told to wait after a 503 for want of a slot.
const BUSY_RETRY_AFTER_SECS: u64 = 1;
/// Seconds a client is told to wait after a full session cap: sessions end by `DELETE` or by
/// idling out, which takes longer than a request in flight.
const SESSIONS_FULL_RETRY_AFTER_SECS: u64 = 30;

/// One refusal of a request by the HTTP layer.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// An `Origin` not allowed (403).
    OriginForbidden { origin: Option<HeaderValue> },
    /// No, two, an empty or a malformed `Host` (400).
    HostUnusable(HostProblem),
    /// A `Host` not allowed (403).
    HostForbidden { host: String },
    /// A body, declared or received, over `--max-body-bytes` (413).
    TooLarge { limit: usize },
    /// A body whose framing is bad or whose connection broke (400).
    BodyUnreadable,
    /// A body not received within `--body-timeout-secs` (408).
    BodyTimedOut { limit: Duration },
    /// A JSON body that is no JSON-RPC message (400, a JSON-RPC error).
    NotJsonRpc(Rejection),
    /// Every `--max-concurrent` slot taken (503).
    Busy,
    /// No response within `--request-timeout-secs` (504).
    GatewayTimeout { limit: Duration },
    /// A session another token opened, or one not known (404, rmcp's own words).
    ForeignSession,
    /// `--token-from-request` and no token (401).
    NoToken { post: bool },
    /// `--oauth` and no live access token of this server (`sent`: a bearer token came), 401
    /// with the sign-in's `challenge`; the connection closes, the body left unread.
    SignInFirst {
        post: bool,
        sent: bool,
        challenge: HeaderValue,
    },
    /// A session's opening with a token GitLab refused (401).
    TokenRefused { post: bool },
    /// A signed-in token GitLab refused (401 `invalid_token`, with the sign-in's `challenge`).
    SignInRefused { post: bool, challenge: HeaderValue },
    /// GitLab could not be asked about the token (502, with its failure).
    TokenUnchecked { failure: String },
    /// A session's opening past `--max-sessions-per-token` (503).
    SessionsPerTokenFull { cap: u32 },
    /// A session's opening past `--max-sessions` (503).
    SessionsFull { cap: u32 },
    /// A body already received that could not be read again (400; never expected).
    BodyLost,
    /// The answer to a signed-in call broke off while it was read to its end (502).
    AnswerUnreadable,
    /// Any path not served, with `--token-from-request`: no OAuth here (404).
    NoOauth,
    /// `/metrics` when the metrics are off (404).
    MetricsOff,
}

/// What a refusal's body is.
enum Body {
    /// `text/plain`.
    Plain(Cow<'static, str>),
    /// A JSON-RPC error (`application/json`).
    Json(Vec<u8>),
}

impl Refusal {
    /// The HTTP status.
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Self::OriginForbidden { .. } | Self::HostForbidden { .. } => StatusCode::FORBIDDEN,
            Self::HostUnusable(_) | Self::BodyUnreadable | Self::NotJsonRpc(_) | Self::BodyLost => {
                StatusCode::BAD_REQUEST
            }
            Self::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BodyTimedOut { .. } => StatusCode::REQUEST_TIMEOUT,
            Self::Busy | Self::SessionsPerTokenFull { .. } | Self::SessionsFull { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::GatewayTimeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            Self::ForeignSession | Self::NoOauth | Self::MetricsOff => StatusCode::NOT_FOUND,
            Self::NoToken { .. }
            | Self::SignInFirst { .. }
            | Self::TokenRefused { .. }
            | Self::SignInRefused { .. } => StatusCode::UNAUTHORIZED,
            Self::TokenUnchecked { .. } | Self::AnswerUnreadable => StatusCode::BAD_GATEWAY,
        }
    }

    /// The sentence, from [`wording`] (a 400 for a non-message answers a JSON-RPC error
    /// instead).
    pub(crate) fn sentence(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Self::OriginForbidden { .. } => wording::ORIGIN_FORBIDDEN,
            Self::HostUnusable(problem) => host_problem(*problem),
            Self::HostForbidden { .. } => wording::HOST_FORBIDDEN,
            Self::TooLarge { limit } => return wording::too_large(*limit).into(),
            Self::BodyUnreadable | Self::BodyLost => wording::BODY_UNREADABLE,
            Self::BodyTimedOut { limit } => return wording::body_timed_out(*limit).into(),
            Self::NotJsonRpc(rejection) => return rejection.to_string().into(),
            Self::Busy => wording::BUSY,
            Self::GatewayTimeout { limit } => return wording::gateway_timeout(*limit).into(),
            Self::ForeignSession => wording::SESSION_NOT_FOUND,
            Self::NoToken { .. } => wording::UNAUTHORIZED,
            Self::SignInFirst { sent: true, .. } => wording::SIGN_IN_AGAIN,
            Self::SignInFirst { sent: false, .. } => wording::SIGN_IN,
            Self::TokenRefused { .. } => wording::TOKEN_REFUSED,
            Self::SignInRefused { .. } => wording::SIGN_IN_REFUSED,
            Self::TokenUnchecked { failure } => return wording::token_unchecked(failure).into(),
            Self::SessionsPerTokenFull { cap } => {
                return wording::sessions_per_token_full(*cap).into();
            }
            Self::SessionsFull { cap } => return wording::sessions_full(*cap).into(),
            Self::AnswerUnreadable => wording::ANSWER_UNREADABLE,
            Self::NoOauth => wording::NO_OAUTH,
            Self::MetricsOff => wording::METRICS_OFF,
        })
    }

    /// The check counted in `http_refused_requests`, if it is one.
    pub(crate) fn guard(&self) -> Option<Guard> {
        Some(match self {
            Self::OriginForbidden { .. } => Guard::Origin,
            Self::HostUnusable(_) | Self::HostForbidden { .. } => Guard::Host,
            Self::TooLarge { .. } => Guard::BodySize,
            Self::BodyUnreadable => Guard::BodyFraming,
            Self::BodyTimedOut { .. } => Guard::BodyTimeout,
            Self::NotJsonRpc(_) => Guard::JsonRpc,
            Self::Busy => Guard::Capacity,
            Self::GatewayTimeout { .. } => Guard::RequestTimeout,
            Self::ForeignSession => Guard::Session,
            Self::NoToken { .. } | Self::SignInFirst { .. } => Guard::Token,
            Self::TokenRefused { .. } | Self::SignInRefused { .. } => Guard::TokenRefused,
            Self::TokenUnchecked { .. } => Guard::TokenCheck,
            Self::SessionsPerTokenFull { .. } => Guard::SessionsPerToken,
            Self::SessionsFull { .. } => Guard::SessionsTotal,
            Self::BodyLost | Self::AnswerUnreadable | Self::NoOauth | Self::MetricsOff => {
                return None;
            }
        })
    }

    /// The log line's level and event, if it writes one.
    pub(crate) fn log_line(&self) -> Option<(Level, &'static str)> {
        Some(match self {
            Self::OriginForbidden { .. } => (Level::WARN, wording::LOG_ORIGIN_REFUSED),
            Self::HostUnusable(_) => (Level::WARN, wording::LOG_HOST_MALFORMED),
            Self::HostForbidden { .. } => (Level::WARN, wording::LOG_HOST_REFUSED),
            Self::BodyUnreadable => (Level::DEBUG, wording::LOG_BODY_UNREADABLE),
            Self::BodyTimedOut { .. } => (Level::INFO, wording::LOG_BODY_TIMED_OUT),
            Self::NotJsonRpc(_) => (Level::DEBUG, wording::LOG_NOT_JSON_RPC),
            Self::Busy => (Level::INFO, wording::LOG_BUSY),
            Self::GatewayTimeout { .. } => (Level::WARN, wording::LOG_GATEWAY_TIMEOUT),
            Self::ForeignSession => (Level::DEBUG, wording::LOG_FOREIGN_SESSION),
            Self::NoToken { .. } | Self::SignInFirst { sent: false, .. } => {
                (Level::DEBUG, wording::LOG_NO_TOKEN)
            }
            Self::SignInFirst { sent: true, .. } => (Level::INFO, wording::LOG_BEARER_REFUSED),
            Self::TokenRefused { .. } | Self::SignInRefused { .. } => {
                (Level::INFO, wording::LOG_TOKEN_REFUSED)
            }
            Self::TokenUnchecked { .. } => (Level::WARN, wording::LOG_TOKEN_UNCHECKED),
            Self::SessionsPerTokenFull { .. } | Self::SessionsFull { .. } => {
                (Level::INFO, wording::LOG_SESSIONS_FULL)
            }
            Self::TooLarge { .. }
            | Self::BodyLost
            | Self::AnswerUnreadable
            | Self::NoOauth
            | Self::MetricsOff => return None,
        })
    }

    /// What the log line says beside its event: the refused value or the limit (never a
    /// token: only `Origin` and `Host` are quoted).
    fn detail(&self) -> Option<String> {
        match self {
            Self::OriginForbidden { origin } => Some(format!("origin={origin:?}")),
            Self::HostUnusable(problem) => Some(format!("problem={problem:?}")),
            Self::HostForbidden { host } => Some(format!("host={host}")),
            Self::BodyTimedOut { limit } | Self::GatewayTimeout { limit } => {
                Some(format!("secs={}", limit.as_secs()))
            }
            Self::NotJsonRpc(rejection) => Some(format!("rejection={rejection:?}")),
            Self::TokenUnchecked { failure } => Some(format!("failure={failure}")),
            Self::SessionsPerTokenFull { .. } => Some("cap=Token".to_string()),
            Self::SessionsFull { .. } => Some("cap=Total".to_string()),
            _ => None,
        }
    }

    /// The `WWW-Authenticate` challenge of a 401.
    fn challenge(&self) -> Option<HeaderValue> {
        match self {
            Self::NoToken { .. } | Self::TokenRefused { .. } => {
                Some(HeaderValue::from_static(CHALLENGE))
            }
            Self::SignInFirst { challenge, .. } | Self::SignInRefused { challenge, .. } => {
                Some(challenge.clone())
            }
            _ => None,
        }
    }

    /// The seconds of `Retry-After`, for a 503.
    fn retry_after(&self) -> Option<u64> {
        match self {
            Self::Busy => Some(BUSY_RETRY_AFTER_SECS),
            Self::SessionsPerTokenFull { .. } | Self::SessionsFull { .. } => {
                Some(SESSIONS_FULL_RETRY_AFTER_SECS)
            }
            _ => None,
        }
    }

    /// Whether the connection closes after the answer (a body left unread or cut short).
    fn closes(&self) -> bool {
        matches!(
            self,
            Self::TooLarge { .. }
                | Self::BodyUnreadable
                | Self::BodyTimedOut { .. }
                | Self::BodyLost
                | Self::SignInFirst { .. }
        )
    }

    /// The body. A 401 to a `POST` (a JSON-RPC message) is a JSON-RPC error whose message is
    /// the sentence (`"id": null`: the body is not read yet), which the Python MCP SDK raises
    /// as the call's error; to anything else, the sentence as plain text.
    fn body(self) -> Body {
        match self {
            Self::NotJsonRpc(rejection) => Body::Json(rejection.reply()),
            Self::NoToken { post: true }
            | Self::SignInFirst { post: true, .. }
            | Self::TokenRefused { post: true }
            | Self::SignInRefused { post: true, .. } => Body::Json(error_body(
                None,
                UNAUTHORIZED_CODE,
                self.sentence().trim_end(),
            )),
            other => Body::Plain(other.sentence()),
        }
    }

    /// Writes the log line, if any.
    fn log(&self) {
        let Some((level, event)) = self.log_line() else {
            return;
        };
        let detail = self.detail();
        let detail = detail.as_deref();
        match level {
            Level::ERROR => tracing::error!(detail, "{event}"),
            Level::WARN => tracing::warn!(detail, "{event}"),
            Level::INFO => tracing::info!(detail, "{event}"),
            Level::DEBUG => tracing::debug!(detail, "{event}"),
            Level::TRACE => tracing::trace!(detail, "{event}"),
        }
    }
}

/// The one place a refusal is told: logged, counted, answered.
impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        self.log();
        if let Some(guard) = self.guard() {
            metrics::refused(guard);
        }
        let status = self.status();
        let challenge = self.challenge();
        let retry_after = self.retry_after();
        let closes = self.closes();
        let mut response = match self.body() {
            Body::Plain(text) => plain(status, text.into_owned()),
            Body::Json(body) => {
                (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
            }
        };
        let headers = response.headers_mut();
        if let Some(challenge) = challenge {
            headers.insert(header::WWW_AUTHENTICATE, challenge);
        }
        if let Some(secs) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if closes {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// `status` with a `text/plain` line.
pub(crate) fn plain(status: StatusCode, message: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message,
    )
        .into_response()
}

fn host_problem(problem: HostProblem) -> &'static str {
    match problem {
        HostProblem::Missing => wording::HOST_MISSING,
        HostProblem::Duplicate => wording::HOST_DUPLICATE,
        HostProblem::Empty => wording::HOST_EMPTY,
        HostProblem::Malformed => wording::HOST_MALFORMED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn text(refusal: Refusal) -> (StatusCode, http::HeaderMap, String) {
        let response = refusal.into_response();
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .expect("an in-memory body");
        (
            parts.status,
            parts.headers,
            String::from_utf8(bytes.to_vec()).expect("UTF-8"),
        )
    }

    #[tokio::test]
    async fn a_401_to_a_post_is_a_json_rpc_error_and_to_anything_else_a_line() {
        let (status, headers, body) = text(Refusal::NoToken { post: true }).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(headers[header::WWW_AUTHENTICATE], CHALLENGE);
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
        assert!(body.contains("-32001"), "{body}");
        assert!(!body.contains("\\n"), "{body}");
        let (_, headers, body) = text(Refusal::NoToken { post: false }).await;
        assert_eq!(headers[header::CONTENT_TYPE], "text/plain; charset=utf-8");
        assert_eq!(body, wording::UNAUTHORIZED);
        assert!(headers.get(header::CONNECTION).is_none());
    }

    #[tokio::test]
    async fn each_refusal_carries_its_headers() {
        let (status, headers, _) = text(Refusal::Busy).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(headers[header::RETRY_AFTER], "1");
        let (_, headers, body) = text(Refusal::SessionsFull { cap: 7 }).await;
        assert_eq!(headers[header::RETRY_AFTER], "30");
        assert_eq!(body, wording::sessions_full(7));
        let (status, headers, _) = text(Refusal::TooLarge { limit: 10 }).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(headers[header::CONNECTION], "close");
        let challenge = HeaderValue::from_static("Bearer resource_metadata=\"x\"");
        let (_, headers, body) = text(Refusal::SignInFirst {
            post: false,
            sent: true,
            challenge: challenge.clone(),
        })
        .await;
        assert_eq!(headers[header::WWW_AUTHENTICATE], challenge);
        assert_eq!(headers[header::CONNECTION], "close");
        assert_eq!(body, wording::SIGN_IN_AGAIN);
    }

    #[test]
    fn only_the_checks_count_a_refusal() {
        assert_eq!(Refusal::Busy.guard(), Some(Guard::Capacity));
        assert_eq!(Refusal::AnswerUnreadable.guard(), None);
        assert_eq!(Refusal::NoOauth.log_line(), None);
    }
}
