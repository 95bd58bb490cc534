//! Sign in with GitLab (`serve --http --oauth`): this server is the OAuth 2.1 authorization
//! server of MCP clients and an OAuth client of GitLab (the MCP spec's third-party flow). It
//! stores nothing: registrations, consent, the sign-in in flight, codes and tokens are sealed
//! with the configured keys ([`keys`], [`sealed`]), so any replica holding them serves any
//! client; only the used-code set ([`token::UsedCodes`]) and the registration rate limit
//! ([`register::RegistrationLimit`]) are per process.
//!
//! The walk of a sign-in: discovery ([`metadata`]) → `/register` ([`register`]) →
//! `/authorize` and this server's consent ([`authorize`]) → GitLab's `/oauth/authorize` →
//! `/oauth/callback` ([`callback`], GitLab's code exchanged by [`upstream`]) → the client's
//! redirect URI with this server's code → `/token` ([`token`]) → `/mcp` with the access token,
//! which [`Oauth::credential`] opens into the GitLab token the rest of the house reads with.
//! Refusals are worded in [`refusal`]; redirect URIs checked in [`redirect`]; the flags and
//! variables in [`settings`].
//!
//! On the transports' floor beside `http/`, which uses it; it never imports `http/`.

mod authorize;
mod callback;
mod keys;
mod metadata;
mod redirect;
mod refusal;
mod register;
mod sealed;
mod settings;
mod token;
mod upstream;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use self::register::RegistrationLimit;
use self::sealed::{AccessGrant, now, open};
use self::settings::OauthSettings;
pub(crate) use self::settings::{OauthArgs, OauthStartError};
use self::token::UsedCodes;
use self::upstream::Upstream;
use crate::config::{Credential, GitlabConfig, Secret, TokenOrigin};

/// The largest body the sign-in endpoints read.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// The sign-in: its settings and the little it keeps per process.
#[derive(Debug)]
pub(crate) struct Oauth {
    settings: OauthSettings,
    upstream: Upstream,
    used_codes: UsedCodes,
    registrations: RegistrationLimit,
}

impl Oauth {
    /// The sign-in `args` ask for, checked: `None` without `--oauth`; `gitlab` is `None` when
    /// serving a local repository (refused).
    pub(crate) fn start(
        args: &OauthArgs,
        gitlab: Option<&GitlabConfig>,
    ) -> Result<Option<Arc<Self>>, OauthStartError> {
        if !args.oauth {
            return Ok(None);
        }
        let settings = OauthSettings::new(args, gitlab, |name| std::env::var(name).ok())?;
        let upstream = gitlab.map(Upstream::new).transpose()?;
        let upstream = upstream.ok_or(OauthStartError::LocalRepository)?;
        Ok(Some(Arc::new(Self {
            settings,
            upstream,
            used_codes: UsedCodes::default(),
            registrations: RegistrationLimit::default(),
        })))
    }

    /// The routes of the sign-in (discovery, registration, authorization, callback, token).
    pub(crate) fn router(self: &Arc<Self>) -> Router {
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
            .route(CALLBACK_PATH, get(callback::callback))
            .route(TOKEN_PATH, post(token::token))
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .with_state(Arc::clone(self))
    }

    /// The GitLab credential a bearer token of this server carries: `None` for anything else
    /// (a GitLab token, another kind of this server's tokens, one for another audience, an
    /// expired one).
    pub(crate) fn credential(&self, bearer: &str) -> Option<Credential> {
        let grant: AccessGrant = open(&self.settings.keys, bearer, now())?;
        if grant.aud != self.settings.resource() {
            return None;
        }
        Some(Credential {
            token: Secret::new(grant.gitlab_token)?,
            origin: TokenOrigin::SignIn,
        })
    }

    /// The `WWW-Authenticate` value of a 401 on `/mcp` (`token_sent`: with `invalid_token`).
    pub(crate) fn challenge(&self, token_sent: bool) -> String {
        metadata::challenge(&self.settings, token_sent)
    }

    /// The public URL's origin (allowed as `Origin`) and `host[:port]` (allowed as `Host`).
    pub(crate) fn public_origin_and_host(&self) -> (String, String) {
        (self.settings.public.clone(), self.settings.public_host())
    }
}

async fn resource_metadata(State(oauth): State<Arc<Oauth>>) -> Response {
    axum::Json(metadata::protected_resource(&oauth.settings)).into_response()
}

async fn server_metadata(State(oauth): State<Arc<Oauth>>) -> Response {
    axum::Json(metadata::authorization_server(&oauth.settings)).into_response()
}
