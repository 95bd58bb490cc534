//! Check 7 (session mode): an `initialize` naming no session (what rmcp opens a session for)
//! gets one only for a token GitLab accepts and within the caps, so a session costs memory
//! only once its token is known good. Other requests pass unchecked (a client on a protocol
//! without sessions is served statelessly and takes no slot).
//!
//! 1. With `--token-from-request`, GitLab is asked whether it accepts the caller's token
//!    (`currentUser`, one request, one at a time per token: concurrent first `initialize`s
//!    with a token wait for the one check in flight and share its outcome; its answer kept per
//!    token fingerprint, [`Verdicts`]). A
//!    token it refuses gets the 401 of a request without one; when GitLab cannot be asked
//!    (unreachable, 5xx after the retries) the request gets 502 with GitLab's failure, and
//!    nothing is remembered.
//! 2. A slot ([`Slots`]): at most `--max-sessions-per-token` per token and
//!    `--max-sessions` in all, else 503 with `Retry-After`. The slot is the session's once
//!    rmcp names it, and free again when it ends ([`super::counted_sessions`]).
//!
//! With `--oauth`, before both and whatever the mode: every `POST` with a signed-in token is
//! vouched for ([`Opening::vouch`]: the remembered verdict, or one check), and the request
//! whose call met GitLab's refusal of the token (its credential's note) is answered 401
//! itself, its SSE answer read to its end first ([`settled`]); the verdict is then "refused".
//!
//! Runs last, under the request's concurrency slot and deadline, so a token check is bounded
//! like any other request.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, Method, StatusCode};

use super::counted_sessions::CountedSessions;
use super::fingerprint::Fingerprints;
use super::session::Owners;
use super::session_slots::{Caps, Full, Slots};
use super::token_verdicts::Verdicts;
use crate::config::{Credential, TokenOrigin};
use crate::http::guard::mode::Mode;
use crate::http::wording::{self, reply};
use crate::metrics::{self, Guard};
use crate::reader::AnySource;
use crate::source::SourceError;
use crate::source::gitlab::{FlightRole, Flights, TokenStanding};

/// The header that names a session (MCP's streamable HTTP transport).
const SESSION_ID: &str = "mcp-session-id";
/// Seconds a client is told to wait after a full cap: sessions end by `DELETE` or by idling
/// out, which takes longer than a request in flight.
const SESSIONS_FULL_RETRY_AFTER_SECS: u64 = 30;

/// What the flags say of sessions (`HttpArgs::sessions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SessionSettings {
    /// Session mode (not `--stateless`).
    pub sessions_on: bool,
    /// `--max-sessions-per-token`, `--max-sessions`.
    pub caps: Caps,
    /// `--session-idle-secs`.
    pub idle: Duration,
}

/// What the app needs of sessions: who owns each (check 3), rmcp's session manager that
/// counts them out, and what their opening is checked against (check 7).
#[derive(Debug)]
pub(crate) struct Parts {
    pub owners: Arc<Owners>,
    pub manager: Arc<CountedSessions>,
    pub opening: Arc<Opening>,
}

impl Parts {
    /// The parts for a server with `settings`, reading from `source`, its callers as `mode`
    /// says (a sign-in's tokens are vouched for on every request).
    pub(crate) fn new(settings: SessionSettings, source: AnySource, mode: Mode) -> Self {
        let sessions_on = settings.sessions_on;
        let prints = Fingerprints::default();
        let owners = Arc::new(Owners::new(sessions_on, mode.per_caller(), prints.clone()));
        let slots = Slots::new(settings.caps);
        let manager = Arc::new(CountedSessions::new(
            settings.idle,
            Arc::clone(&slots),
            Arc::clone(&owners),
        ));
        let opening = Arc::new(Opening {
            sessions_on,
            mode,
            source,
            prints,
            verdicts: Verdicts::default(),
            checks: Flights::default(),
            slots,
            sessions: Arc::clone(&manager),
        });
        Self {
            owners,
            manager,
            opening,
        }
    }
}

/// What a session's opening is checked against.
#[derive(Debug)]
pub(crate) struct Opening {
    /// Session mode (else there are no sessions and nothing to check).
    sessions_on: bool,
    /// Whose token a call reads with: a caller's own is checked with GitLab before a session
    /// opens; a sign-in's on every `POST`.
    mode: Mode,
    source: AnySource,
    prints: Fingerprints,
    verdicts: Verdicts,
    /// The token checks in flight, by token fingerprint.
    checks: Flights<u64, Result<TokenStanding, SourceError>>,
    slots: Arc<Slots>,
    sessions: Arc<CountedSessions>,
}

/// Check 7: see the module doc.
pub(crate) async fn admit(State(o): State<Arc<Opening>>, request: Request, next: Next) -> Response {
    let signed_in = o.signed_in(&request);
    if let Some((credential, method)) = &signed_in
        && let Some(refusal) = o.vouch(credential, method).await
    {
        return refusal;
    }
    let response = open(&o, request, next).await;
    let Some((credential, method)) = signed_in else {
        return response;
    };
    // Whether GitLab refused the token during this request is known once the call has run:
    // an SSE answer (session mode) is read to its end first, so that its status can still
    // be the 401.
    let response = settled(response).await;
    if credential.refusal.is_marked() {
        // Revoked since its last check: this request and, from the verdict, the next ones.
        let print = o.prints.of(&credential);
        o.verdicts
            .put(print, TokenStanding::Refused, Instant::now());
        return o.refused(&method);
    }
    response
}

/// `response` with an SSE body read to its end (the stream of one `POST`'s answer ends after
/// it; what it holds is bounded by the tool's message bound), so nothing of it is sent yet.
async fn settled(response: Response) -> Response {
    let streaming = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streaming {
        return response;
    }
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => Response::from_parts(parts, Body::from(bytes)),
        Err(_) => reply::plain(StatusCode::BAD_GATEWAY, wording::ANSWER_UNREADABLE),
    }
}

/// The session opening of check 7, for a request that passed the sign-in's vouching.
async fn open(o: &Opening, request: Request, next: Next) -> Response {
    let may_open = o.sessions_on
        && request.method() == Method::POST
        && !request.headers().contains_key(SESSION_ID);
    if !may_open {
        return next.run(request).await;
    }
    // The body is in memory already (`body::receive`): reading it again copies nothing.
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return reply::closing(StatusCode::BAD_REQUEST, wording::BODY_UNREADABLE);
    };
    let opens = is_initialize(&bytes);
    let request = Request::from_parts(parts, Body::from(bytes));
    if !opens {
        return next.run(request).await;
    }
    let credential = request.extensions().get::<Credential>().cloned();
    let print = match credential.filter(|_| o.mode.per_caller()) {
        Some(credential) => match o.standing(&credential).await {
            Ok(TokenStanding::Accepted) => Some(o.prints.of(&credential)),
            Ok(TokenStanding::Refused) => {
                tracing::info!("{}", wording::LOG_TOKEN_REFUSED);
                metrics::refused(Guard::TokenRefused);
                return reply::unauthorized(request.method(), wording::TOKEN_REFUSED);
            }
            Err(failure) => {
                tracing::warn!(%failure, "{}", wording::LOG_TOKEN_UNCHECKED);
                metrics::refused(Guard::TokenCheck);
                return reply::plain(
                    StatusCode::BAD_GATEWAY,
                    wording::token_unchecked(&failure.to_string()),
                );
            }
        },
        None => None,
    };
    let reservation = match o.slots.reserve(print) {
        Ok(reservation) => reservation,
        Err(full) => return o.full(full),
    };
    let response = next.run(request).await;
    if let Some(session) = session_of(response.headers()) {
        reservation.bind(&session);
        // It may have ended before it was bound, and its end found no slot to free.
        if !o.sessions.holds(&session).await {
            o.slots.release(&session);
        }
        metrics::sessions_open(o.slots.open());
    }
    response
}

impl Opening {
    /// With `--oauth`, a `POST` carrying a signed-in token: the credential and the method.
    fn signed_in(&self, request: &Request) -> Option<(Credential, Method)> {
        self.mode.sign_in()?;
        if request.method() != Method::POST {
            return None;
        }
        let credential = request
            .extensions()
            .get::<Credential>()
            .filter(|c| c.origin == TokenOrigin::SignIn)?;
        Some((credential.clone(), request.method().clone()))
    }

    /// `None` if GitLab accepts the signed-in token (as far as the remembered verdict goes, a
    /// refusal met by an earlier call included), else the 401 (`invalid_token`) or 502.
    async fn vouch(&self, credential: &Credential, method: &Method) -> Option<Response> {
        match self.standing(credential).await {
            Ok(TokenStanding::Accepted) => None,
            Ok(TokenStanding::Refused) => Some(self.refused(method)),
            Err(failure) => {
                tracing::warn!(%failure, "{}", wording::LOG_TOKEN_UNCHECKED);
                metrics::refused(Guard::TokenCheck);
                Some(reply::plain(
                    StatusCode::BAD_GATEWAY,
                    wording::token_unchecked(&failure.to_string()),
                ))
            }
        }
    }

    /// The 401 for a signed-in token GitLab refused.
    fn refused(&self, method: &Method) -> Response {
        tracing::info!("{}", wording::LOG_TOKEN_REFUSED);
        metrics::refused(Guard::TokenRefused);
        let challenge = self
            .mode
            .sign_in()
            .and_then(|oauth| http::HeaderValue::from_str(&oauth.challenge(true)).ok())
            .unwrap_or_else(|| http::HeaderValue::from_static(reply::CHALLENGE));
        reply::challenged(method, wording::SIGN_IN_REFUSED, challenge)
    }

    /// What GitLab says of `credential`'s token: remembered, or asked now — once for
    /// concurrent callers with the token (a failure shared as well; a check whose caller went
    /// away leaves each follower to ask for itself).
    async fn standing(&self, credential: &Credential) -> Result<TokenStanding, SourceError> {
        let print = self.prints.of(credential);
        if let Some(standing) = self.verdicts.get(print, Instant::now()) {
            return Ok(standing);
        }
        match self.checks.join(print) {
            FlightRole::Lead(lead) => {
                let outcome = self.ask_standing(print, credential).await;
                lead.land(outcome.clone());
                outcome
            }
            FlightRole::Follow(follow) => match follow.outcome().await {
                Some(outcome) => outcome,
                None => self.ask_standing(print, credential).await,
            },
        }
    }

    /// Asks GitLab what it says of `credential`'s token (fingerprint `print`), and remembers it.
    async fn ask_standing(
        &self,
        print: u64,
        credential: &Credential,
    ) -> Result<TokenStanding, SourceError> {
        let standing = match &self.source {
            AnySource::Gitlab(gitlab) => gitlab.check_token(credential).await?,
            // A local repository has no tokens to check.
            AnySource::Local(_) => TokenStanding::Accepted,
        };
        self.verdicts.put(print, standing, Instant::now());
        Ok(standing)
    }

    /// 503 for the cap `full`.
    fn full(&self, full: Full) -> Response {
        let caps = self.slots.caps();
        let (guard, message) = match full {
            Full::Token => (
                Guard::SessionsPerToken,
                wording::sessions_per_token_full(caps.per_token),
            ),
            Full::Total => (Guard::SessionsTotal, wording::sessions_full(caps.total)),
        };
        tracing::info!(cap = ?full, "{}", wording::LOG_SESSIONS_FULL);
        metrics::refused(guard);
        reply::busy_for(&message, SESSIONS_FULL_RETRY_AFTER_SECS)
    }
}

/// Whether a JSON-RPC body is an `initialize` request. Pure.
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
        id: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Message<'_>>(body)
        .is_ok_and(|m| m.id.is_some() && m.method.as_deref() == Some("initialize"))
}

/// The session a response names.
fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_initialize_request_opens_a_session() {
        let opens = |body: &str| is_initialize(body.as_bytes());
        assert!(opens(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        ));
        assert!(opens(r#"{"method":"initialize","jsonrpc":"2.0","id":"a"}"#));
        // An escaped spelling is the same method.
        assert!(opens(
            r#"{"jsonrpc":"2.0","id":1,"method":"init\u0069alize"}"#
        ));
        for other in [
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"initialize"}}"#,
            r#"{"jsonrpc":"2.0","method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"initialize"}]"#,
            "not json",
            "",
        ] {
            assert!(!opens(other), "{other}");
        }
    }
}
