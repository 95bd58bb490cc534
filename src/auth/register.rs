//! Dynamic client registration (RFC 7591) at `/register`, stateless: the `client_id` is the
//! registration itself (name, redirect URIs), sealed ([`ClientRegistration`]). Every client is
//! public (`token_endpoint_auth_method: none`, PKCE). Registrations are rate-limited per peer
//! address in a bounded table ([`super::state::RegistrationLimit`]); their metadata is checked
//! as a metadata document's is ([`ClientMetadata::checked`]). [`client`] finds the client a
//! `client_id` names, registered or named by a Client ID Metadata Document.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

use super::client::{ClientMetadata, ClientMetadataError, is_document_url};
use super::refusal::{TokenRefusal, no_store};
use super::sealed::{ClientRegistration, now, open, seal};
use super::state::Oauth;
use crate::metrics::{self, SignInStep};

/// How long a registration lasts: a client registers again once it has expired.
const REGISTRATION_SECS: u64 = 180 * 24 * 3600;

/// `POST /register`.
pub(crate) async fn register(
    state: State<Arc<Oauth>>,
    peer: ConnectInfo<SocketAddr>,
    body: Result<Json<ClientMetadata>, axum::extract::rejection::JsonRejection>,
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
    body: Result<Json<ClientMetadata>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let address = peer.ip();
    if let Err(retry_after) = oauth.registrations.admit(address) {
        tracing::info!(%address, "OAuth registration refused: rate limit");
        return TokenRefusal::TooManyRegistrations(retry_after).into_response();
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
fn registration(request: ClientMetadata, now: u64) -> Result<ClientRegistration, TokenRefusal> {
    request
        .checked(now, now.saturating_add(REGISTRATION_SECS))
        .map_err(|problem| match problem {
            ClientMetadataError::Redirect(_)
            | ClientMetadataError::NoRedirectUris
            | ClientMetadataError::TooManyRedirectUris
            | ClientMetadataError::LongRedirectUri => {
                TokenRefusal::InvalidRedirectUri(problem.to_string())
            }
            _ => TokenRefusal::InvalidClientMetadata(problem.to_string()),
        })
}

/// The client `client_id` names: a registration of this server's that has not expired, or a
/// Client ID Metadata Document (an https URL, fetched or cached; unless
/// `--oauth-no-client-metadata-documents`). `Err(None)`: no client of
/// this server; `Err(Some(_))`: a document that cannot be used, and why.
pub(crate) async fn client(
    oauth: &Oauth,
    client_id: &str,
) -> Result<ClientRegistration, Option<ClientMetadataError>> {
    if oauth.settings.client_documents && is_document_url(client_id) {
        return oauth.documents.client(client_id).await.map_err(Some);
    }
    open(&oauth.settings.keys, client_id, now()).ok_or(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(uris: &[&str], name: Option<&str>) -> ClientMetadata {
        ClientMetadata {
            redirect_uris: uris.iter().map(|u| (*u).to_string()).collect(),
            client_name: name.map(str::to_string),
            ..ClientMetadata::default()
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
        // RFC 7591 §3.2.2: a bad redirect URI is `invalid_redirect_uri`.
        for bad in [
            request(&[], Some("x")),
            request(&["http://evil.example/cb"], Some("x")),
            request(&["javascript:alert(1)"], Some("x")),
            request(&["blob:https://a.example/1"], Some("x")),
            request(&["view-source:https://a.example/"], Some("x")),
            request(&["ftp://a.example/cb"], Some("x")),
            request(&["https://a.example/cb\r\nSet-Cookie: x=1"], Some("x")),
            request(&["https://a.example/cb"; 11], Some("x")),
        ] {
            let refusal = registration(bad, 5).unwrap_err();
            assert!(
                matches!(refusal, TokenRefusal::InvalidRedirectUri(_)),
                "{refusal:?}"
            );
        }
    }
}
