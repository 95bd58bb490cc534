//! This server as GitLab's OAuth client: the URL of GitLab's `/oauth/authorize` a browser is
//! sent to (PKCE S256, the configured scope, the sealed `state`), and the two requests to
//! GitLab's `/oauth/token`: a code exchanged, a refresh token refreshed (GitLab rotates it: the
//! answer's refresh token replaces the one sent). Nothing here logs a token.

use serde::Deserialize;

use super::sealed::{GitlabTokens, now};
use super::settings::{OauthSettings, OauthStartError};
use crate::config::GitlabConfig;

/// GitLab's access-token lifetime when its answer names none (it is fixed at two hours).
const DEFAULT_EXPIRES_IN: u64 = 7200;

/// Why GitLab gave no token.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpstreamError {
    /// GitLab refused the grant (`invalid_grant`: expired, revoked or already used).
    #[error("GitLab refused the grant ({error})")]
    Refused { error: String },
    /// GitLab could not be asked, or answered something that is no token.
    #[error("GitLab's token endpoint could not be used: {why}")]
    Unavailable { why: String },
}

/// GitLab's token endpoint's answer (RFC 6749 §5.1).
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    refresh_token: Option<String>,
    expires_in: Option<u64>,
}

/// Doorkeeper's error body.
#[derive(Deserialize)]
struct ErrorAnswer {
    error: String,
}

/// The HTTP client for GitLab's OAuth endpoints.
#[derive(Debug)]
pub(crate) struct Upstream {
    client: reqwest::Client,
}

impl Upstream {
    /// A client with the GitLab settings' timeouts and CA certificates; no redirects.
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, OauthStartError> {
        // An Err means a provider is installed already, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = crate::config::gitlab_client_builder(config)?
            .build()
            .map_err(|cause| OauthStartError::HttpClient { cause })?;
        Ok(Self { client })
    }

    /// GitLab's `/oauth/authorize` for a sign-in whose sealed state is `state`.
    pub(crate) fn authorize_url(settings: &OauthSettings, state: &str, verifier: &str) -> String {
        let mut url = format!("{}/oauth/authorize", settings.gitlab);
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", &settings.client_id)
            .append_pair("redirect_uri", &callback_url(settings))
            .append_pair("response_type", "code")
            .append_pair("scope", &settings.scope)
            .append_pair("state", state)
            .append_pair("code_challenge", &super::keys::challenge_of(verifier))
            .append_pair("code_challenge_method", "S256")
            .finish();
        url.push('?');
        url.push_str(&query);
        url
    }

    /// Exchanges GitLab's `code` (with this server's PKCE `verifier`).
    pub(crate) async fn exchange(
        &self,
        settings: &OauthSettings,
        code: &str,
        verifier: &str,
    ) -> Result<GitlabTokens, UpstreamError> {
        let callback = callback_url(settings);
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", callback.as_str()),
            ("code_verifier", verifier),
        ];
        self.ask(settings, &form).await
    }

    /// Refreshes with GitLab's `refresh_token`; GitLab answers with a new pair.
    pub(crate) async fn refresh(
        &self,
        settings: &OauthSettings,
        refresh_token: &str,
    ) -> Result<GitlabTokens, UpstreamError> {
        let callback = callback_url(settings);
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("redirect_uri", callback.as_str()),
        ];
        self.ask(settings, &form).await
    }

    async fn ask(
        &self,
        settings: &OauthSettings,
        form: &[(&str, &str)],
    ) -> Result<GitlabTokens, UpstreamError> {
        let mut fields: Vec<(&str, &str)> = form.to_vec();
        fields.push(("client_id", &settings.client_id));
        if let Some(secret) = &settings.client_secret {
            fields.push(("client_secret", secret.expose()));
        }
        let unavailable = |why: String| UpstreamError::Unavailable { why };
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&fields)
            .finish();
        let response = self
            .client
            .post(format!("{}/oauth/token", settings.gitlab))
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body)
            .send()
            .await
            // reqwest's error names the URL, never the form.
            .map_err(|e| unavailable(e.without_url().to_string()))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| unavailable(e.without_url().to_string()))?;
        if !status.is_success() {
            return Err(match serde_json::from_slice::<ErrorAnswer>(&body) {
                Ok(answer) if status.is_client_error() => UpstreamError::Refused {
                    error: answer.error.chars().take(64).collect(),
                },
                _ => unavailable(format!("HTTP {}", status.as_u16())),
            });
        }
        let answer: TokenAnswer = serde_json::from_slice(&body)
            .map_err(|_| unavailable("its answer names no access token".to_string()))?;
        Ok(GitlabTokens {
            access_token: answer.access_token,
            refresh_token: answer.refresh_token,
            expires_at: now().saturating_add(answer.expires_in.unwrap_or(DEFAULT_EXPIRES_IN)),
        })
    }
}

/// Where GitLab sends the browser back: `<public>/oauth/callback`.
pub(crate) fn callback_url(settings: &OauthSettings) -> String {
    format!("{}{}", settings.public, super::metadata::CALLBACK_PATH)
}
