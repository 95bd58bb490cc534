//! This server as GitLab's OAuth client: the URL of GitLab's `/oauth/authorize` a browser is
//! sent to (PKCE S256, the configured scope, the sealed `state`), and the two requests to
//! GitLab's `/oauth/token`: a code exchanged, a refresh token refreshed (GitLab rotates it: the
//! answer's refresh token replaces the one sent), and `/oauth/token/info`, whose user a
//! sign-in's sessions belong to. Nothing here logs a token.

use serde::Deserialize;

use super::sealed::{GitlabTokens, now};
use super::settings::{OauthSettings, OauthStartError};
use crate::config::{GitlabConfig, Secret};

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

/// GitLab's token endpoint's answer (RFC 6749 §5.1), its tokens secrets from the start.
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Secret,
    refresh_token: Option<Secret>,
    expires_in: Option<u64>,
}

/// GitLab's `/oauth/token/info` answer (Doorkeeper's): the token's user.
#[derive(Deserialize)]
struct TokenInfo {
    resource_owner_id: u64,
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

    /// The GitLab user `access_token` acts for (`GET /oauth/token/info`), `None` when GitLab
    /// does not say (the sign-in is then its own owner).
    pub(crate) async fn user_of(
        &self,
        settings: &OauthSettings,
        access_token: &Secret,
    ) -> Option<u64> {
        let response = self
            .client
            .get(format!("{}/oauth/token/info", settings.gitlab))
            .bearer_auth(access_token.expose())
            .send()
            .await;
        let answer = match response {
            Ok(r) if r.status().is_success() => r.json::<TokenInfo>().await.ok(),
            Ok(r) => {
                tracing::info!(status = r.status().as_u16(), "GitLab's token info refused");
                None
            }
            Err(e) => {
                tracing::info!(error = %e.without_url(), "GitLab's token info failed");
                None
            }
        };
        answer.map(|info| info.resource_owner_id)
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
                    error: error_code(&answer.error),
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

/// An OAuth error code as GitLab sent it, kept to what such a code is made of (RFC 6749
/// §5.2: printable ASCII; in practice `invalid_grant` and its kin), at most 64 characters, so
/// nothing else it held reaches a log.
fn error_code(error: &str) -> String {
    error
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(64)
        .collect()
}

/// Where GitLab sends the browser back: `<public>/oauth/callback`.
pub(crate) fn callback_url(settings: &OauthSettings) -> String {
    format!("{}{}", settings.public, super::metadata::CALLBACK_PATH)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::settings::OauthSettings;
    use crate::config::GitlabArgs;
    use wiremock::matchers::{body_string_contains, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn settings(gitlab: &GitlabConfig, secret: Option<&str>) -> OauthSettings {
        OauthSettings::for_tests(gitlab, secret)
    }

    async fn gitlab() -> (MockServer, GitlabConfig) {
        let server = MockServer::start().await;
        let config = GitlabConfig::from_parts(&GitlabArgs::for_tests(&server.uri()), |_| None)
            .expect("a test configuration");
        (server, config)
    }

    #[tokio::test]
    async fn the_token_info_names_the_user_or_nothing() {
        let (server, config) = gitlab().await;
        let settings = settings(&config, None);
        Mock::given(method("GET"))
            .and(path("/oauth/token/info"))
            .and(wiremock::matchers::header(
                "authorization",
                "Bearer gl-good",
            ))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "resource_owner_id": 42, "scope": ["read_api"], "expires_in": 7000,
                "application": {"uid": "app"}, "created_at": 1_700_000_000u64
            })))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/oauth/token/info"))
            .respond_with(ResponseTemplate::new(401).set_body_json(serde_json::json!({
                "error": "invalid_token"
            })))
            .mount(&server)
            .await;
        let upstream = Upstream::new(&config).unwrap();
        let good = Secret::new("gl-good").unwrap();
        assert_eq!(upstream.user_of(&settings, &good).await, Some(42));
        let bad = Secret::new("gl-bad").unwrap();
        assert_eq!(upstream.user_of(&settings, &bad).await, None);
    }

    #[test]
    fn the_authorize_url_carries_pkce_s256_the_scope_and_the_callback() {
        let config =
            GitlabConfig::from_parts(&GitlabArgs::for_tests("https://gitlab.example.com"), |_| {
                None
            })
            .unwrap();
        let settings = settings(&config, None);
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let url = url::Url::parse(&Upstream::authorize_url(&settings, "st&ate", verifier)).unwrap();
        assert_eq!(
            url.as_str().split('?').next(),
            Some("https://gitlab.example.com/oauth/authorize")
        );
        let query: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(query["client_id"], "app");
        assert_eq!(
            query["redirect_uri"],
            "https://mcp.example.com/oauth/callback"
        );
        assert_eq!(query["scope"], "read_api");
        assert_eq!(query["state"], "st&ate");
        assert_eq!(
            query["code_challenge"],
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_eq!(query["code_challenge_method"], "S256");
        assert!(!url.as_str().contains(verifier));
    }

    #[tokio::test]
    async fn a_code_is_exchanged_with_the_verifier_and_the_secret() {
        let (server, config) = gitlab().await;
        Mock::given(method("POST"))
            .and(path("/oauth/token"))
            .and(body_string_contains("grant_type=authorization_code"))
            .and(body_string_contains("code=gl-code"))
            .and(body_string_contains("code_verifier=v1"))
            .and(body_string_contains("client_secret=s3"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "access_token": "gl-access", "refresh_token": "gl-refresh", "expires_in": 7200
            })))
            .expect(1)
            .mount(&server)
            .await;
        let upstream = Upstream::new(&config).unwrap();
        let tokens = upstream
            .exchange(&settings(&config, Some("s3")), "gl-code", "v1")
            .await
            .unwrap();
        assert_eq!(tokens.access_token.expose(), "gl-access");
        assert_eq!(
            tokens.refresh_token.as_ref().map(Secret::expose),
            Some("gl-refresh")
        );
        assert!(tokens.expires_at >= now() + 7199);
        assert!(!format!("{tokens:?}").contains("gl-access"));
    }

    #[tokio::test]
    async fn refusals_and_failures_are_told_apart_and_quote_no_body() {
        let (server, config) = gitlab().await;
        let settings = settings(&config, None);
        let upstream = Upstream::new(&config).unwrap();
        let answer = |status: u16, body: &str| {
            ResponseTemplate::new(status).set_body_raw(body.to_string(), "application/json")
        };
        let cases = [
            (
                answer(400, r#"{"error":"invalid_grant\n<token gl-x>"}"#),
                "refused",
            ),
            (answer(401, r#"{"error":"invalid_client"}"#), "refused"),
            (answer(500, r#"{"error":"server_error"}"#), "unavailable"),
            (answer(200, r#"{"token_type":"Bearer"}"#), "unavailable"),
            (answer(200, r#"{"access_token":""}"#), "unavailable"),
        ];
        for (template, kind) in cases {
            server.reset().await;
            Mock::given(method("POST"))
                .and(path("/oauth/token"))
                .respond_with(template)
                .mount(&server)
                .await;
            let failure = upstream.refresh(&settings, "gl-refresh").await.unwrap_err();
            let shown = failure.to_string();
            match kind {
                "refused" => assert!(matches!(failure, UpstreamError::Refused { .. }), "{shown}"),
                _ => assert!(
                    matches!(failure, UpstreamError::Unavailable { .. }),
                    "{shown}"
                ),
            }
            assert!(!shown.contains("gl-") && !shown.contains('<'), "{shown}");
        }
    }
}
