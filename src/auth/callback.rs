//! `GET /oauth/callback`: GitLab sends the browser back here. The `state` must open as a
//! sign-in this server started ([`PendingSignIn`], else an error page: there is nowhere safe to
//! redirect); GitLab's code is exchanged at GitLab's `/oauth/token` (this server's PKCE
//! verifier); the browser then goes to the client's redirect URI with this server's own code
//! ([`AuthCode`]: sealed, single use, short-lived, bound to the client, its redirect URI and PKCE
//! challenge, carrying GitLab's tokens), the client's `state` and RFC 9207's `iss`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};

use super::Oauth;
use super::refusal::{PageRefusal, RedirectRefusal, found, with_query};
use super::sealed::{AuthCode, PendingSignIn, now, open, seal};
use super::upstream::UpstreamError;

/// How long this server's authorization code lives.
pub(crate) const CODE_SECS: u64 = 60;

/// `GET /oauth/callback`.
pub(crate) async fn callback(
    State(oauth): State<Arc<Oauth>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let keys = &oauth.settings.keys;
    let Some(pending) = query
        .get("state")
        .and_then(|s| open::<PendingSignIn>(keys, s, now()))
    else {
        tracing::info!("OAuth callback refused: unknown or expired state");
        return PageRefusal::StaleState.into_response();
    };
    let request = pending.request;
    let iss = oauth.settings.public.as_str();
    let back = |refusal: RedirectRefusal| {
        refusal.redirect(&request.redirect_uri, request.state.as_deref(), iss)
    };
    let Some(code) = query.get("code") else {
        tracing::info!(error = ?query.get("error"), "OAuth sign-in: GitLab sent no code");
        return back(RedirectRefusal::GitlabDenied);
    };
    let gitlab = match oauth
        .upstream
        .exchange(&oauth.settings, code, &pending.gitlab_verifier)
        .await
    {
        Ok(tokens) => tokens,
        Err(failure @ UpstreamError::Refused { .. }) => {
            tracing::info!(%failure, "OAuth sign-in: GitLab refused its code");
            return back(RedirectRefusal::GitlabDenied);
        }
        Err(failure) => {
            tracing::warn!(%failure, "OAuth sign-in: GitLab's token endpoint failed");
            return back(RedirectRefusal::GitlabUnavailable);
        }
    };
    let Some(id) = keys.random_text(16) else {
        return back(RedirectRefusal::Internal);
    };
    let code = AuthCode {
        id,
        request: request.clone(),
        gitlab,
        exp: now() + CODE_SECS,
    };
    let Some(sealed) = seal(keys, &code) else {
        return back(RedirectRefusal::Internal);
    };
    let mut pairs = vec![("code", sealed)];
    if let Some(state) = &request.state {
        pairs.push(("state", state.clone()));
    }
    pairs.push(("iss", iss.to_string()));
    tracing::info!("OAuth sign-in: code issued");
    found(&with_query(&request.redirect_uri, &pairs))
}
