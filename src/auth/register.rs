//! Dynamic client registration (RFC 7591) at `/register`, stateless: the `client_id` is the
//! registration itself (name, redirect URIs), sealed ([`ClientRegistration`]). Every client is
//! public (`token_endpoint_auth_method: none`, PKCE). Registrations are rate-limited per peer
//! address in a bounded table ([`super::state::RegistrationLimit`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::redirect;
use super::refusal::{TokenRefusal, no_store};
use super::sealed::{ClientRegistration, now, open, seal};
use super::state::Oauth;
use crate::metrics::{self, SignInStep};

/// How long a registration lasts: a client registers again once it has expired.
const REGISTRATION_SECS: u64 = 180 * 24 * 3600;
const MAX_REDIRECT_URIS: usize = 10;
const MAX_URI_CHARS: usize = 2000;
const MAX_NAME_CHARS: usize = 100;

/// The metadata read from a registration request; the rest is ignored (RFC 7591 §2: the
/// server answers with what it registered).
#[derive(Debug, Deserialize)]
pub(crate) struct RegistrationRequest {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_name: Option<String>,
}

/// `POST /register`.
pub(crate) async fn register(
    state: State<Arc<Oauth>>,
    peer: ConnectInfo<SocketAddr>,
    body: Result<Json<RegistrationRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let response = register_client(state, peer, body);
    let step = if response.status() == StatusCode::CREATED {
        SignInStep::Registered
    } else {
        SignInStep::RegistrationRefused
    };
    metrics::sign_in(step);
    response
}

fn register_client(
    State(oauth): State<Arc<Oauth>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Result<Json<RegistrationRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let address = peer.ip();
    if !oauth.registrations.admit(address, now()) {
        tracing::info!(%address, "OAuth registration refused: rate limit");
        return TokenRefusal::TooManyRegistrations.into_response();
    }
    let Ok(Json(request)) = body else {
        return TokenRefusal::InvalidClientMetadata("the body is not JSON client metadata".into())
            .into_response();
    };
    let registration = match registration(request, now()) {
        Ok(r) => r,
        Err(refusal) => return refusal.into_response(),
    };
    let Some(client_id) = seal(&oauth.settings.keys, &registration) else {
        return TokenRefusal::Internal.into_response();
    };
    tracing::info!(client = %registration.client_name, "OAuth client registered");
    let body = json!({
        "client_id": client_id,
        "client_id_issued_at": registration.issued,
        "client_name": registration.client_name,
        "redirect_uris": registration.redirect_uris,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "scope": oauth.settings.scope,
    });
    no_store((StatusCode::CREATED, Json(body)).into_response())
}

/// The registration a request stands for, checked (pure).
fn registration(
    request: RegistrationRequest,
    now: u64,
) -> Result<ClientRegistration, TokenRefusal> {
    let bad = |why: &str| TokenRefusal::InvalidClientMetadata(why.to_string());
    if request.redirect_uris.is_empty() {
        return Err(bad("redirect_uris is required"));
    }
    if request.redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(bad("at most 10 redirect_uris"));
    }
    for uri in &request.redirect_uris {
        if uri.len() > MAX_URI_CHARS {
            return Err(bad("a redirect URI is over 2000 characters"));
        }
        redirect::check(uri).map_err(|problem| bad(&problem.to_string()))?;
    }
    let name: String = request
        .client_name
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect();
    let name = name.trim();
    Ok(ClientRegistration {
        client_name: if name.is_empty() {
            "An unnamed client".into()
        } else {
            name.into()
        },
        redirect_uris: request.redirect_uris,
        issued: now,
        exp: now.saturating_add(REGISTRATION_SECS),
    })
}

/// The registration a `client_id` is, if it is one and has not expired.
pub(crate) fn client(oauth: &Oauth, client_id: &str) -> Option<ClientRegistration> {
    open(&oauth.settings.keys, client_id, now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(uris: &[&str], name: Option<&str>) -> RegistrationRequest {
        RegistrationRequest {
            redirect_uris: uris.iter().map(|u| (*u).to_string()).collect(),
            client_name: name.map(str::to_string),
        }
    }

    #[test]
    fn registrations_are_checked() {
        let ok =
            registration(request(&["http://127.0.0.1/cb"], Some(" Claude\nCode ")), 5).unwrap();
        assert_eq!(ok.client_name, "ClaudeCode");
        assert_eq!(ok.exp, 5 + REGISTRATION_SECS);
        let unnamed = registration(request(&["https://a.example/cb"], None), 5).unwrap();
        assert_eq!(unnamed.client_name, "An unnamed client");
        for bad in [
            request(&[], Some("x")),
            request(&["http://evil.example/cb"], Some("x")),
            request(&["javascript:alert(1)"], Some("x")),
            request(&["https://a.example/cb"; 11], Some("x")),
        ] {
            assert!(matches!(
                registration(bad, 5),
                Err(TokenRefusal::InvalidClientMetadata(_))
            ));
        }
    }
}
