//! Check 8 (session mode): an `initialize` naming no session (what rmcp opens a session for)
//! gets one only within the caps, so sessions cannot grow without bound; a caller's own token
//! was vouched for by the door before (`door::admit`), so a session costs memory only once its
//! token is known good. Other requests pass unchecked (a client on a protocol without sessions
//! is served statelessly and takes no slot).
//!
//! A slot ([`Slots`]): at most `--max-sessions-per-token` per token and `--max-sessions` in
//! all, else 503 with `Retry-After`. The slot is the session's once rmcp names it, and free
//! again when it ends ([`super::counted_sessions`]).
//!
//! Whether a request opens a session is found once ([`opens_session`]) and kept in the
//! request, for the door and for this check.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Method};

use super::counted_sessions::CountedSessions;
use super::fingerprint::Fingerprints;
use super::session::Owners;
use super::session_slots::{Caps, Full, Slots};
use crate::config::Admitted;
use crate::http::guard::refusal::Refusal;
use crate::metrics;

/// The header that names a session (MCP's streamable HTTP transport).
const SESSION_ID: &str = "mcp-session-id";

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
/// counts them out, and what their opening is checked against (check 8).
#[derive(Debug)]
pub(crate) struct Parts {
    pub owners: Arc<Owners>,
    pub manager: Arc<CountedSessions>,
    pub opening: Arc<Opening>,
}

impl Parts {
    /// The parts for a server with `settings`; `per_caller`: each caller reads with a token of
    /// its own, and a session is bound to it.
    pub(crate) fn new(settings: SessionSettings, per_caller: bool) -> Self {
        let sessions_on = settings.sessions_on;
        let prints = Fingerprints::default();
        let owners = Arc::new(Owners::new(sessions_on, per_caller, prints.clone()));
        let slots = Slots::new(settings.caps);
        let manager = Arc::new(CountedSessions::new(
            settings.idle,
            Arc::clone(&slots),
            Arc::clone(&owners),
        ));
        let opening = Arc::new(Opening {
            sessions_on,
            prints,
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
    prints: Fingerprints,
    slots: Arc<Slots>,
    sessions: Arc<CountedSessions>,
}

/// Whether a request opens a session, once found.
#[derive(Debug, Clone, Copy)]
struct OpensSession(bool);

/// Whether `request` opens a session (a `POST` of an `initialize` naming no session), and the
/// request with its body in memory; found once, then kept in its extensions. The refusal of a
/// body that cannot be read again (never expected: `body::receive` read it whole).
pub(crate) async fn opens_session(request: Request) -> Result<(Request, bool), Refusal> {
    if let Some(&OpensSession(opens)) = request.extensions().get::<OpensSession>() {
        return Ok((request, opens));
    }
    let may_open = request.method() == Method::POST && !request.headers().contains_key(SESSION_ID);
    if !may_open {
        return Ok((request, false));
    }
    // The body is in memory already (`body::receive`): reading it again copies nothing.
    let (mut parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|_| Refusal::BodyLost)?;
    let opens = is_initialize(&bytes);
    parts.extensions.insert(OpensSession(opens));
    Ok((Request::from_parts(parts, Body::from(bytes)), opens))
}

/// Check 8: see the module doc.
pub(crate) async fn admit(State(o): State<Arc<Opening>>, request: Request, next: Next) -> Response {
    if !o.sessions_on {
        return next.run(request).await;
    }
    let (request, opens) = match opens_session(request).await {
        Ok(found) => found,
        Err(refusal) => return refusal.into_response(),
    };
    if !opens {
        return next.run(request).await;
    }
    let print = request
        .extensions()
        .get::<Admitted>()
        .and_then(Admitted::own_token)
        .map(|credential| o.prints.of(credential));
    let reservation = match o.slots.reserve(print) {
        Ok(reservation) => reservation,
        Err(full) => return o.full(full).into_response(),
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
    /// The 503 of the cap `full`.
    fn full(&self, full: Full) -> Refusal {
        let caps = self.slots.caps();
        match full {
            Full::Token => Refusal::SessionsPerTokenFull {
                cap: caps.per_token,
            },
            Full::Total => Refusal::SessionsFull { cap: caps.total },
        }
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
