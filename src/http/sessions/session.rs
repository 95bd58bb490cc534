//! Check 3 (sessions with `--token-from-request` or `--oauth`): an MCP session belongs to the
//! token that opened it, or with `--oauth` to the GitLab user who signed in (so refreshes and
//! new sign-ins, each a new token, keep it). The `initialize` response's `Mcp-Session-Id` is recorded with a fingerprint of
//! that owner ([`Fingerprints::owner_of`]); a later request naming that session (a call, the
//! SSE stream, `DELETE`) must come with the same owner, or it gets the 404 rmcp gives a
//! session it does not know — so another user can neither use nor end it, nor learn that it
//! exists. Nothing is kept without `--token-from-request` (one token for everyone) or in
//! stateless mode (no sessions).
//!
//! Limits: at most [`MAX_SESSIONS`] sessions are remembered, the least recently used
//! forgotten first; a forgotten session's next request gets 404, and its client (as the MCP
//! transport asks) opens a new one; a session that ends (`DELETE`, or idle past
//! `--session-idle-secs`) is forgotten at once ([`super::counted_sessions`]). A token is kept
//! only as its [`Fingerprints`] hash, never as text.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Method};

use super::fingerprint::Fingerprints;
use crate::base::lru::SharedLru;
use crate::config::{Admitted, Credential};
use crate::http::guard::refusal::Refusal;

/// The most sessions whose owner is remembered.
pub(crate) const MAX_SESSIONS: u64 = 65_536;

/// The header that names a session (MCP's streamable HTTP transport).
const SESSION_ID: &str = "mcp-session-id";

/// Who opened each session: session id → token fingerprint.
#[derive(Debug)]
pub(crate) struct Owners {
    /// Sessions with per-request tokens: the check applies.
    active: bool,
    by_session: SharedLru<String, u64>,
    prints: Fingerprints,
}

impl Owners {
    /// The owners of a server with sessions (`sessions`) and per-request tokens
    /// (`token_from_request`), hashing tokens with `prints`; the check applies only with both.
    pub(crate) fn new(sessions: bool, token_from_request: bool, prints: Fingerprints) -> Self {
        Self {
            active: sessions && token_from_request,
            by_session: SharedLru::new(MAX_SESSIONS),
            prints,
        }
    }
}

/// What to do with a request that names a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Its token opened the session.
    Owner,
    /// Another token opened it, or it is not remembered: as if it did not exist.
    Unknown,
}

impl Owners {
    /// Records that `credential` opened `session`.
    pub(crate) fn opened(&self, session: &str, credential: &Credential) {
        let print = self.prints.owner_of(credential);
        self.by_session.lock().insert(session.to_string(), print, 1);
    }

    /// Whether `credential` may use `session`.
    pub(crate) fn judge(&self, session: &str, credential: &Credential) -> Verdict {
        let print = self.prints.owner_of(credential);
        match self.by_session.lock().get(&session.to_string()) {
            Some(&owner) if owner == print => Verdict::Owner,
            _ => Verdict::Unknown,
        }
    }

    /// Forgets `session` (its owner ended it, or it expired).
    pub(crate) fn ended(&self, session: &str) {
        self.by_session.lock().remove(&session.to_string());
    }
}

/// The session a request or response names.
fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Check 3: see the module doc. Runs after the door (`http::door::identify`), which put
/// the caller's [`Credential`] into the request.
pub(crate) async fn bind(
    State(owners): State<Arc<Owners>>,
    request: Request,
    next: Next,
) -> Response {
    let credential = request
        .extensions()
        .get::<Admitted>()
        .and_then(Admitted::own_token)
        .cloned();
    let Some(credential) = credential.filter(|_| owners.active) else {
        return next.run(request).await;
    };
    let Some(session) = session_of(request.headers()) else {
        let response = next.run(request).await;
        if let Some(opened) = session_of(response.headers()) {
            owners.opened(&opened, &credential);
        }
        return response;
    };
    if owners.judge(&session, &credential) == Verdict::Unknown {
        return Refusal::ForeignSession.into_response();
    }
    let ending = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if ending && response.status().is_success() {
        owners.ended(&session);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Secret, TokenOrigin};

    fn token(t: &str) -> Credential {
        Credential::new(Secret::new(t).unwrap(), TokenOrigin::Request)
    }

    #[test]
    fn a_session_is_its_openers_alone() {
        let owners = Owners::new(true, true, Fingerprints::default());
        let (alice, bob) = (token("alice-token"), token("bob-token"));
        owners.opened("s1", &alice);
        assert_eq!(owners.judge("s1", &alice), Verdict::Owner);
        assert_eq!(owners.judge("s1", &bob), Verdict::Unknown);
        // A session never seen is unknown to everyone.
        assert_eq!(owners.judge("s2", &alice), Verdict::Unknown);
        owners.ended("s1");
        assert_eq!(owners.judge("s1", &alice), Verdict::Unknown);
    }
}
