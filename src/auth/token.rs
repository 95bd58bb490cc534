//! `POST /token`: the authorization code (PKCE verified; a code used twice, expired, for another
//! client or redirect URI, or with a wrong verifier: 400 `invalid_grant`) and the refresh token
//! (GitLab's refreshed once per refresh here; GitLab rotates its refresh token, and the new one
//! goes into this server's new refresh token). Access tokens are this server's own
//! ([`AccessGrant`]: audience `<public>/mcp`, carrying GitLab's token, expiring at
//! [`LIFETIME_SHARE`] of GitLab's remaining lifetime). Used codes are remembered in
//! [`super::state::UsedOnce`]. Both grants check, before anything else, that the client is
//! one this server knows (else 401 `invalid_client`, on which clients register anew: a
//! registration from before the keys changed) and that a `resource` asked for is this
//! server's (RFC 8707 §2.2: `invalid_target`).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Form;
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::authorize::client_hash;
use super::keys::{challenge_of, is_verifier};
use super::refusal::{TokenRefusal, no_store};
use super::sealed::{AccessGrant, AuthCode, GitlabTokens, RefreshGrant, now, open, seal};
use super::state::Oauth;
use super::upstream::UpstreamError;
use crate::metrics::{self, SignInStep};

/// The share of GitLab's remaining lifetime an access token of this server lives: it expires
/// well before GitLab's does, and the client refreshes while GitLab's refresh token is good.
pub(crate) const LIFETIME_SHARE: (u64, u64) = (3, 4);
/// How long this server's refresh token opens (GitLab's own do not expire).
const REFRESH_SECS: u64 = 90 * 24 * 3600;
/// `POST /token`.
pub(crate) async fn token(
    State(oauth): State<Arc<Oauth>>,
    Form(fields): Form<HashMap<String, String>>,
) -> Response {
    let field = |name: &str| fields.get(name).map(String::as_str);
    let outcome = match checked_client(&oauth, &field).await {
        Err(refusal) => Err(refusal),
        Ok(()) => grant(&oauth, &field).await,
    };
    match outcome {
        Ok((response, step)) => {
            metrics::sign_in(step);
            response
        }
        Err(refusal) => {
            tracing::info!(%refusal, "OAuth token request refused");
            metrics::sign_in(SignInStep::TokenRefused);
            refusal.into_response()
        }
    }
}

/// The checks both grants share: a `grant_type` this server has, a client it knows (named
/// by `client_id`, which public clients send with every grant), and this server as the
/// `resource`.
async fn checked_client<'a>(
    oauth: &Oauth,
    field: &impl Fn(&str) -> Option<&'a str>,
) -> Result<(), TokenRefusal> {
    if !matches!(
        field("grant_type"),
        Some("authorization_code" | "refresh_token")
    ) {
        return Err(TokenRefusal::UnsupportedGrantType);
    }
    let Some(client_id) = field("client_id") else {
        return Err(TokenRefusal::InvalidRequest("client_id is required"));
    };
    if let Err(problem) = super::register::client(oauth, client_id).await {
        return Err(problem.map_or(TokenRefusal::InvalidClient, TokenRefusal::ClientDocument));
    }
    match field("resource") {
        Some(resource) if !oauth.settings.is_resource(resource) => Err(TokenRefusal::InvalidTarget),
        _ => Ok(()),
    }
}

/// The grant asked for, and the step it counts as.
async fn grant<'a>(
    oauth: &Oauth,
    field: &impl Fn(&str) -> Option<&'a str>,
) -> Result<(Response, SignInStep), TokenRefusal> {
    match field("grant_type") {
        Some("authorization_code") => by_code(oauth, field)
            .await
            .map(|r| (r, SignInStep::CodeExchanged)),
        _ => by_refresh(oauth, field)
            .await
            .map(|r| (r, SignInStep::Refreshed)),
    }
}

async fn by_code<'a>(
    oauth: &Oauth,
    field: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Response, TokenRefusal> {
    let missing = TokenRefusal::InvalidRequest(
        "code, redirect_uri, client_id and code_verifier are required",
    );
    let (Some(code), Some(redirect_uri), Some(client_id), Some(verifier)) = (
        field("code"),
        field("redirect_uri"),
        field("client_id"),
        field("code_verifier"),
    ) else {
        return Err(missing);
    };
    let now = now();
    let bad = TokenRefusal::InvalidGrant(
        "the code is invalid, expired, already used, or was issued to another client or redirect URI",
    );
    let code: AuthCode = open(&oauth.settings.keys, code, now).ok_or(bad.clone())?;
    let request = &code.request;
    if request.client_id != client_id || request.redirect_uri != redirect_uri {
        return Err(bad);
    }
    if !is_verifier(verifier) || challenge_of(verifier) != request.code_challenge {
        return Err(TokenRefusal::InvalidGrant(
            "the code_verifier does not match the code_challenge",
        ));
    }
    if !oauth.used_codes.first_use(&code.id, code.exp, now) {
        tracing::warn!("OAuth code presented twice");
        return Err(bad);
    }
    let owner = code.owner();
    issue(oauth, client_id, code.gitlab, &owner)
}

async fn by_refresh<'a>(
    oauth: &Oauth,
    field: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Response, TokenRefusal> {
    let Some(refresh) = field("refresh_token") else {
        return Err(TokenRefusal::InvalidRequest("refresh_token is required"));
    };
    let bad = TokenRefusal::InvalidGrant("the refresh token is invalid or expired; sign in again");
    let grant: RefreshGrant = open(&oauth.settings.keys, refresh, now()).ok_or(bad.clone())?;
    if grant.aud != oauth.settings.resource() {
        return Err(bad);
    }
    let client_id = field("client_id").unwrap_or_default();
    if client_hash(client_id) != grant.client {
        return Err(TokenRefusal::InvalidGrant(
            "the refresh token was issued to another client",
        ));
    }
    match oauth
        .upstream
        .refresh(&oauth.settings, grant.gitlab_refresh.expose())
        .await
    {
        Ok(gitlab) => {
            tracing::info!("OAuth tokens refreshed");
            issue(oauth, client_id, gitlab, &grant.owner)
        }
        Err(failure @ UpstreamError::Refused { .. }) => {
            tracing::info!(%failure, "OAuth refresh refused by GitLab");
            Err(TokenRefusal::InvalidGrant(
                "GitLab refused to refresh the sign-in (revoked, or refreshed already); sign in again",
            ))
        }
        Err(failure) => {
            tracing::warn!(%failure, "OAuth refresh: GitLab's token endpoint failed");
            Err(TokenRefusal::GitlabUnavailable)
        }
    }
}

/// This server's token answer for `gitlab`'s tokens, acting for `owner`.
fn issue(
    oauth: &Oauth,
    client_id: &str,
    gitlab: GitlabTokens,
    owner: &str,
) -> Result<Response, TokenRefusal> {
    let now = now();
    let (num, den) = LIFETIME_SHARE;
    let lifetime = gitlab.expires_at.saturating_sub(now).saturating_mul(num) / den;
    let settings = &oauth.settings;
    let access = AccessGrant {
        aud: settings.resource(),
        client: client_hash(client_id),
        gitlab_token: gitlab.access_token,
        exp: now + lifetime,
        owner: owner.to_string(),
    };
    let access = seal(&settings.keys, &access).ok_or(TokenRefusal::Internal)?;
    let mut body = json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "scope": settings.scope,
    });
    if let Some(gitlab_refresh) = gitlab.refresh_token {
        let refresh = RefreshGrant {
            aud: settings.resource(),
            client: client_hash(client_id),
            gitlab_refresh,
            exp: now + REFRESH_SECS,
            owner: owner.to_string(),
        };
        body["refresh_token"] = seal(&settings.keys, &refresh)
            .ok_or(TokenRefusal::Internal)?
            .into();
    }
    Ok(no_store(Json(body).into_response()))
}
