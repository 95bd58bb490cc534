//! Sign in with GitLab (`serve --http --oauth`): this server is the OAuth 2.1 authorization
//! server of MCP clients and an OAuth client of GitLab (the MCP spec's third-party flow). It
//! stores nothing: registrations, consent, the sign-in in flight, codes and tokens are sealed
//! with the configured keys ([`keys`], [`sealed`]), so any replica holding them serves any
//! client; only the used codes and sign-in states, the registration rate limit and the cache
//! of client metadata documents ([`state`]) are per process. Each browser step is bound to the
//! browser that took the step before it ([`browser`]).
//!
//! The walk of a sign-in: discovery ([`metadata`]) → `/register` ([`register`]), or a
//! `client_id` that is the URL of a Client ID Metadata Document ([`client`]) →
//! `/authorize` and this server's consent ([`authorize`]) → GitLab's `/oauth/authorize` →
//! `/oauth/callback` ([`authorize`] too, GitLab's code exchanged by [`upstream`]) → the client's
//! redirect URI with this server's code → `/token` ([`token`]) → `/mcp` with the access token,
//! which [`Oauth::credential`] opens into the GitLab token the rest of the house reads with.
//! Refusals are worded in [`refusal`]; client metadata and redirect URIs checked in
//! [`client`]; the flags and variables in [`settings`].
//!
//! On the transports' floor beside `http/`, which uses it; it never imports `http/`.

mod authorize;
mod browser;
mod client;
mod keys;
mod metadata;
mod refusal;
mod register;
mod sealed;
mod settings;
mod state;
mod token;
mod upstream;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

pub(crate) use self::settings::OauthArgs;
pub(crate) use self::state::Oauth;

/// The largest body the sign-in endpoints read.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// The routes of the sign-in (discovery, registration, authorization, callback, token).
pub(crate) fn router(oauth: &Arc<Oauth>) -> Router {
    use self::metadata::*;
    Router::new()
        .route(RESOURCE_METADATA_PATH, get(resource_metadata))
        .route(
            &format!("{RESOURCE_METADATA_PATH}/mcp"),
            get(resource_metadata),
        )
        .route(SERVER_METADATA_PATH, get(server_metadata))
        .route(OPENID_PATH, get(server_metadata))
        .route(REGISTER_PATH, post(register::register))
        .route(AUTHORIZE_PATH, get(authorize::authorize))
        .route(CONSENT_PATH, post(authorize::consent))
        .route(CALLBACK_PATH, get(authorize::callback))
        .route(TOKEN_PATH, post(token::token))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(Arc::clone(oauth))
}

async fn resource_metadata(State(oauth): State<Arc<Oauth>>) -> Response {
    axum::Json(metadata::protected_resource(&oauth.settings)).into_response()
}

async fn server_metadata(State(oauth): State<Arc<Oauth>>) -> Response {
    axum::Json(metadata::authorization_server(&oauth.settings)).into_response()
}
