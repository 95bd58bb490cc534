//! The one door of `/mcp`: who the caller is, whether GitLab still accepts them, and the 401
//! and challenge of the serving mode, all decided by one type, [`Door`], built once from the
//! flags ([`mode::Mode`]). Nothing behind it (the sessions, the tool) asks the mode: they read
//! what the door admitted into the request ([`Admitted`]: the caller's own credential, or the
//! server's configured one, or none).
//!
//! The door stands at two points of the checks, so that the cheap refusal comes first and a
//! GitLab request is made only under a concurrency slot and its deadline:
//! 1. [`identify`], on the headers alone (nothing is read yet): token headers are marked
//!    sensitive; what the request reads with ([`credential`]) goes into its extensions, or it
//!    gets the mode's 401 with its challenge.
//! 2. [`admit`], once the body is in and a slot taken: GitLab's verdict on the credential's
//!    token ([`Door::standing`]: remembered per fingerprint a short time, or asked once, one
//!    check in flight per token: [`verdicts`]), for every `POST` of a sign-in and for an
//!    `initialize` opening a session with a caller's token; a refused token gets the 401, a
//!    GitLab that cannot be asked the 502. A signed-in call that met GitLab's refusal of its
//!    token (its credential's [`crate::config::RefusalNote`]) is answered 401 itself, its SSE
//!    answer read to its end first ([`settled`]), and the verdict becomes "refused".
//!
//! May import `sessions/`, `guard/` and `wording/`; never the app above it.

pub(super) mod credential;
pub(super) mod mode;
pub(super) mod verdicts;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method};

use self::mode::Mode;
use self::verdicts::Verdicts;
use super::guard::refusal::{CHALLENGE, Refusal};
use super::guard::token::hide_tokens;
use super::sessions::fingerprint::Fingerprints;
use super::sessions::session_open::opens_session;
use crate::config::{Admitted, Credential, TokenOrigin};
use crate::reader::AnySource;
use crate::source::SourceError;
use crate::source::gitlab::TokenStanding;

/// Who may pass into `/mcp`, and what GitLab said of their tokens.
#[derive(Debug)]
pub(crate) struct Door {
    /// Whose token a call reads with.
    mode: Mode,
    /// The server's own token, with [`Mode::ServerToken`].
    configured: Option<Credential>,
    /// Session mode: an `initialize` with a caller's token opens a session only for a token
    /// GitLab accepts.
    sessions_on: bool,
    source: AnySource,
    prints: Fingerprints,
    /// What GitLab said of each token, and the checks in flight.
    verdicts: Verdicts,
}

impl Door {
    /// The door of a server serving `mode` (with the server's own token `configured`, used
    /// only with [`Mode::ServerToken`]), with sessions when `sessions_on`, whose tokens
    /// `source` checks.
    pub(crate) fn new(
        mode: Mode,
        configured: Option<Credential>,
        sessions_on: bool,
        source: AnySource,
    ) -> Self {
        Self {
            mode,
            configured,
            sessions_on,
            source,
            prints: Fingerprints::default(),
            verdicts: Verdicts::default(),
        }
    }

    /// With `--oauth`, a `POST` carrying a signed-in token: the credential.
    fn signed_in(&self, request: &Request) -> Option<Credential> {
        self.mode.sign_in()?;
        if request.method() != Method::POST {
            return None;
        }
        own_token(request).filter(|c| c.origin == TokenOrigin::SignIn)
    }

    /// `None` if GitLab accepts `credential`'s token (as far as the remembered verdict goes,
    /// a refusal met by an earlier call included), else the 401 `refused` or the 502.
    async fn vouch(&self, credential: &Credential, refused: Refusal) -> Option<Refusal> {
        match self.standing(credential).await {
            Ok(TokenStanding::Accepted) => None,
            Ok(TokenStanding::Refused) => Some(refused),
            Err(failure) => Some(Refusal::TokenUnchecked {
                failure: failure.to_string(),
            }),
        }
    }

    /// The 401 for a signed-in token GitLab refused (`invalid_token`).
    fn sign_in_refused(&self, post: bool) -> Refusal {
        let challenge = match self.mode.sign_in() {
            Some(oauth) => credential::sign_in_challenge(oauth, true),
            None => HeaderValue::from_static(CHALLENGE),
        };
        Refusal::SignInRefused { post, challenge }
    }

    /// What GitLab says of `credential`'s token: remembered, or asked now — once for
    /// concurrent callers with the token (a failure shared as well; a check whose caller went
    /// away leaves the next to ask).
    async fn standing(&self, credential: &Credential) -> Result<TokenStanding, SourceError> {
        let print = self.prints.of(credential);
        let ask = async {
            match &self.source {
                AnySource::Gitlab(gitlab) => gitlab.check_token(credential).await,
                // A local repository has no tokens to check.
                AnySource::Local(_) => Ok(TokenStanding::Accepted),
            }
        };
        self.verdicts
            .standing(print, ask)
            .await
            .map_err(|failure| SourceError::clone(&failure))
    }

    /// Before a session opens (session mode, an `initialize` naming no session, a caller's
    /// own token): the refusal of a token GitLab does not accept. `request` is handed back,
    /// its body read into memory if it had to be looked at.
    async fn before_opening(&self, request: Request) -> (Request, Option<Refusal>) {
        let Some(credential) = own_token(&request).filter(|_| self.sessions_on) else {
            return (request, None);
        };
        let post = request.method() == Method::POST;
        let (request, opens) = match opens_session(request).await {
            Ok(opened) => opened,
            Err(refusal) => return (Request::new(Body::empty()), Some(refusal)),
        };
        if !opens {
            return (request, None);
        }
        let refusal = self
            .vouch(&credential, Refusal::TokenRefused { post })
            .await;
        (request, refusal)
    }
}

/// Check 1 of the door (check 2 of `/mcp`): see the module doc.
pub(crate) async fn identify(
    State(door): State<Arc<Door>>,
    mut request: Request,
    next: Next,
) -> Response {
    hide_tokens(request.headers_mut());
    let configured = door.configured.as_ref();
    match credential::of(&door.mode, configured, request.headers(), request.method()) {
        Ok(admitted) => {
            request.extensions_mut().insert(admitted);
        }
        Err(refusal) => return refusal.into_response(),
    }
    next.run(request).await
}

/// Check 2 of the door (check 7 of `/mcp`): see the module doc.
pub(crate) async fn admit(State(door): State<Arc<Door>>, request: Request, next: Next) -> Response {
    let signed_in = door.signed_in(&request);
    if let Some(credential) = &signed_in
        && let Some(refusal) = door.vouch(credential, door.sign_in_refused(true)).await
    {
        return refusal.into_response();
    }
    let (request, refusal) = door.before_opening(request).await;
    if let Some(refusal) = refusal {
        return refusal.into_response();
    }
    let response = next.run(request).await;
    let Some(credential) = signed_in else {
        return response;
    };
    // Whether GitLab refused the token during this request is known once the call has run:
    // an SSE answer (session mode) is read to its end first, so that its status can still
    // be the 401.
    let response = settled(response).await;
    if credential.refusal.is_marked() {
        // Revoked since its last check: this request and, from the verdict, the next ones.
        let print = door.prints.of(&credential);
        door.verdicts.put(print, TokenStanding::Refused).await;
        return door.sign_in_refused(true).into_response();
    }
    response
}

/// The caller's own credential the door admitted into `request`, if any.
fn own_token(request: &Request) -> Option<Credential> {
    request
        .extensions()
        .get::<Admitted>()
        .and_then(Admitted::own_token)
        .cloned()
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
        Err(_) => Refusal::AnswerUnreadable.into_response(),
    }
}
