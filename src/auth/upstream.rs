//! This server as GitLab's OAuth client, on the `oauth2` crate: the URL of GitLab's
//! `/oauth/authorize` a browser is sent to (PKCE S256, the configured scope, the sealed
//! `state`); the two grants at GitLab's `/oauth/token`, a code exchanged and a refresh token
//! refreshed (GitLab rotates it: the answer's refresh token replaces the one sent); the adapter
//! that sends oauth2's requests with our reqwest client and tells GitLab's refusals from its
//! failures; and `/oauth/token/info` (no OAuth standard call, so plain reqwest), whose user a
//! sign-in's sessions belong to. Nothing here logs a token.

use std::future::Future;
use std::pin::Pin;

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AsyncHttpClient, AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken,
    EndpointNotSet, EndpointSet, HttpRequest, HttpResponse, PkceCodeChallenge, PkceCodeVerifier,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use serde::Deserialize;

use super::metadata::CALLBACK_PATH;
use super::sealed::{GitlabTokens, now};
use super::settings::{OauthSettings, OauthStartError};
use crate::config::{GitlabConfig, Secret};

/// GitLab's access-token lifetime when its answer names none (it is fixed at two hours).
const DEFAULT_EXPIRES_IN: u64 = 7200;

/// GitLab's application as oauth2 sees it: its authorize and token endpoints set.
type GitlabApp =
    BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// Why oauth2 got no token; the adapter's own failures are `UpstreamError`s already.
type GrantError = RequestTokenError<UpstreamError, BasicErrorResponse>;

/// Why GitLab gave no token.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpstreamError {
    /// GitLab refused (a Doorkeeper error with a 4xx: `invalid_grant`, the code or refresh
    /// token expired, revoked or already used; `invalid_client`, the application unknown).
    #[error("GitLab refused the grant ({error})")]
    Refused { error: String },
    /// GitLab could not be asked, failed (5xx), or answered something that is no token.
    #[error("GitLab's token endpoint could not be used: {why}")]
    Unavailable { why: String },
}

/// GitLab's `/oauth/token/info` answer (Doorkeeper's): the token's user.
#[derive(Deserialize)]
struct TokenInfo {
    resource_owner_id: u64,
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
        // oauth2 panics on a verifier outside RFC 7636's 43 to 128 characters; the one caller
        // (`authorize::to_gitlab`) makes it of 32 random bytes in base64url: 43 characters.
        let verifier = PkceCodeVerifier::new(verifier.to_string());
        let scopes = settings.scope.split_whitespace();
        let (url, _state) = app(settings)
            .authorize_url(|| CsrfToken::new(state.to_string()))
            .add_scopes(scopes.map(|scope| Scope::new(scope.to_string())))
            .set_pkce_challenge(PkceCodeChallenge::from_code_verifier_sha256(&verifier))
            .url();
        url.into()
    }

    /// Exchanges GitLab's `code` (with this server's PKCE `verifier`).
    pub(crate) async fn exchange(
        &self,
        settings: &OauthSettings,
        code: &str,
        verifier: &str,
    ) -> Result<GitlabTokens, UpstreamError> {
        let answer = app(settings)
            .exchange_code(AuthorizationCode::new(code.to_string()))
            .set_pkce_verifier(PkceCodeVerifier::new(verifier.to_string()))
            .request_async(self)
            .await;
        tokens(answer)
    }

    /// Refreshes with GitLab's `refresh_token`; GitLab answers with a new pair.
    pub(crate) async fn refresh(
        &self,
        settings: &OauthSettings,
        refresh_token: &str,
    ) -> Result<GitlabTokens, UpstreamError> {
        let refresh_token = RefreshToken::new(refresh_token.to_string());
        let answer = app(settings)
            .exchange_refresh_token(&refresh_token)
            .request_async(self)
            .await;
        tokens(answer)
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
}

/// oauth2's HTTP client: our reqwest client. The future is boxed as `Send` here, where its
/// lifetimes are concrete, so the axum handlers awaiting a grant stay `Send`.
impl<'c> AsyncHttpClient<'c> for Upstream {
    type Error = UpstreamError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, UpstreamError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(send(&self.client, request))
    }
}

/// oauth2's request sent with `client`. GitLab's answer goes back to oauth2 when oauth2 can
/// read it, a token (200) or an OAuth error (4xx); anything else is GitLab failing, said here,
/// so a 5xx whose body looks like an OAuth error is no refusal.
async fn send(
    client: &reqwest::Client,
    request: HttpRequest,
) -> Result<HttpResponse, UpstreamError> {
    // reqwest's error names the URL (dropped too), never the form.
    let failed = |e: reqwest::Error| unavailable(e.without_url().to_string());
    let request = reqwest::Request::try_from(request).map_err(failed)?;
    let response = client.execute(request).await.map_err(failed)?;
    let status = response.status();
    if status != http::StatusCode::OK && !status.is_client_error() {
        return Err(unavailable(format!("HTTP {}", status.as_u16())));
    }
    let headers = response.headers().clone();
    let body = response.bytes().await.map_err(failed)?;
    let mut answer = HttpResponse::new(body.to_vec());
    *answer.status_mut() = status;
    *answer.headers_mut() = headers;
    Ok(answer)
}

/// GitLab's application: this server's id (and secret, for a confidential application) sent in
/// the form, as GitLab's docs show them, not as HTTP Basic; GitLab's endpoints; the callback.
fn app(settings: &OauthSettings) -> GitlabApp {
    let gitlab = |path: &str| checked(format!("{}{path}", settings.gitlab));
    let app = BasicClient::new(ClientId::new(settings.client_id.clone()))
        .set_auth_type(AuthType::RequestBody)
        .set_auth_uri(AuthUrl::from_url(gitlab("/oauth/authorize")))
        .set_token_uri(TokenUrl::from_url(gitlab("/oauth/token")))
        .set_redirect_uri(RedirectUrl::from_url(checked(callback_url(settings))));
    match &settings.client_secret {
        Some(secret) => app.set_client_secret(ClientSecret::new(secret.expose().to_string())),
        None => app,
    }
}

/// One of the settings' URLs with an absolute path appended, parsed. Both are checked at
/// start-up: `gitlab` is an http(s) URL with a host and no user, query or fragment
/// (`config::parse_base_url`), `public` an http(s) origin (`settings::public_origin`), each
/// written as `url` writes it, without a trailing `/`; a path after such a URL leaves a URL,
/// so the `expect` cannot fire.
fn checked(url: String) -> url::Url {
    url::Url::parse(&url).expect("a checked URL with an absolute path appended")
}

/// GitLab's tokens from oauth2's answer, secrets from here on, or why there are none.
/// oauth2's answer needs a `token_type`, which GitLab's always has: Doorkeeper's
/// `OAuth::TokenResponse#body` writes it, `"Bearer"` (`"bearer"` in older versions; oauth2
/// reads either) from `AccessTokenMixin#token_type`. (../shared/gitlab/OAUTH.md names the
/// token endpoint's errors, §1.7, not its answer's fields.)
fn tokens(answer: Result<BasicTokenResponse, GrantError>) -> Result<GitlabTokens, UpstreamError> {
    let answer = answer.map_err(failure)?;
    let access_token = Secret::new(answer.access_token().secret().as_str())
        .ok_or_else(|| unavailable("its answer holds an empty access token"))?;
    let expires_in = answer
        .expires_in()
        .map_or(DEFAULT_EXPIRES_IN, |d| d.as_secs());
    Ok(GitlabTokens {
        access_token,
        refresh_token: answer
            .refresh_token()
            .and_then(|t| Secret::new(t.secret().as_str())),
        expires_at: now().saturating_add(expires_in),
    })
}

/// Why oauth2 got no token: GitLab refused (a 4xx with Doorkeeper's error), the adapter failed,
/// or GitLab's answer is neither a token nor an error (never quoted: it may hold a token).
fn failure(error: GrantError) -> UpstreamError {
    match error {
        RequestTokenError::ServerResponse(answer) => UpstreamError::Refused {
            error: error_code(answer.error().as_ref()),
        },
        RequestTokenError::Request(failure) => failure,
        RequestTokenError::Parse(..) => {
            unavailable("its answer is neither a token nor an OAuth error")
        }
        RequestTokenError::Other(why) => unavailable(why),
    }
}

fn unavailable(why: impl Into<String>) -> UpstreamError {
    UpstreamError::Unavailable { why: why.into() }
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
    format!("{}{}", settings.public, CALLBACK_PATH)
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
                "access_token": "gl-access", "token_type": "Bearer", "refresh_token": "gl-refresh",
                "expires_in": 7200
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

    /// The form of the one token request `server` received.
    async fn the_form(server: &MockServer) -> std::collections::HashMap<String, String> {
        let received = server.received_requests().await.expect("recording is on");
        assert_eq!(received.len(), 1);
        url::form_urlencoded::parse(&received[0].body)
            .into_owned()
            .collect()
    }

    #[tokio::test]
    async fn a_refresh_answers_a_new_pair_that_replaces_the_old() {
        let (server, config) = gitlab().await;
        Mock::given(method("POST"))
            .and(path("/oauth/token"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "access_token": "gl-access-2", "token_type": "Bearer",
                "refresh_token": "gl-refresh-2", "scope": "read_api", "created_at": 1_700_000_000u64
            })))
            .expect(1)
            .mount(&server)
            .await;
        let upstream = Upstream::new(&config).unwrap();
        let tokens = upstream
            .refresh(&settings(&config, Some("s3")), "gl-refresh-1")
            .await
            .unwrap();
        assert_eq!(tokens.access_token.expose(), "gl-access-2");
        assert_eq!(
            tokens.refresh_token.as_ref().map(Secret::expose),
            Some("gl-refresh-2")
        );
        // No `expires_in`: GitLab's two hours.
        assert!(tokens.expires_at >= now() + DEFAULT_EXPIRES_IN - 1);
        let form = the_form(&server).await;
        assert_eq!(form["grant_type"], "refresh_token");
        assert_eq!(form["refresh_token"], "gl-refresh-1");
        assert_eq!(form["client_id"], "app");
        assert_eq!(form["client_secret"], "s3");
        // RFC 6749 §6 and Doorkeeper's refresh read no redirect URI.
        assert!(!form.contains_key("redirect_uri"));
    }

    #[tokio::test]
    async fn a_public_client_sends_no_secret() {
        let (server, config) = gitlab().await;
        Mock::given(method("POST"))
            .and(path("/oauth/token"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "access_token": "gl-access", "token_type": "bearer", "expires_in": 60
            })))
            .mount(&server)
            .await;
        let upstream = Upstream::new(&config).unwrap();
        let tokens = upstream
            .exchange(&settings(&config, None), "gl-code", "v1")
            .await
            .unwrap();
        assert!(tokens.refresh_token.is_none());
        assert!(tokens.expires_at <= now() + 60);
        let form = the_form(&server).await;
        assert_eq!(form["client_id"], "app");
        assert!(!form.contains_key("client_secret"));
        assert_eq!(form["code_verifier"], "v1");
        assert_eq!(
            form["redirect_uri"],
            "https://mcp.example.com/oauth/callback"
        );
    }

    #[tokio::test]
    async fn a_503_is_unavailable_and_invalid_client_a_refusal() {
        let (server, config) = gitlab().await;
        let settings = settings(&config, Some("s3"));
        let upstream = Upstream::new(&config).unwrap();
        Mock::given(method("POST"))
            .and(path("/oauth/token"))
            .respond_with(ResponseTemplate::new(503).set_body_json(serde_json::json!({
                "error": "temporarily_unavailable"
            })))
            .mount(&server)
            .await;
        let failure = upstream.exchange(&settings, "gl-code", "v1").await;
        assert!(
            matches!(&failure, Err(UpstreamError::Unavailable { why }) if why == "HTTP 503"),
            "{failure:?}"
        );
        server.reset().await;
        Mock::given(method("POST"))
            .and(path("/oauth/token"))
            .respond_with(ResponseTemplate::new(401).set_body_json(serde_json::json!({
                "error": "invalid_client",
                "error_description": "Client authentication failed due to unknown client."
            })))
            .mount(&server)
            .await;
        let failure = upstream.exchange(&settings, "gl-code", "v1").await;
        assert!(
            matches!(&failure, Err(UpstreamError::Refused { error }) if error == "invalid_client"),
            "{failure:?}"
        );
    }

    #[tokio::test]
    async fn no_debug_holds_a_token() {
        let (server, config) = gitlab().await;
        let settings = settings(&config, Some("gl-secret"));
        let upstream = Upstream::new(&config).unwrap();
        let answers = [
            (
                200,
                r#"{"access_token":"gl-a","token_type":"Bearer","refresh_token":"gl-r"}"#,
            ),
            // Taken for no token (no `token_type`), the tokens it holds never quoted.
            (
                200,
                r#"{"access_token":"gl-a","refresh_token":"gl-r","expires_in":"gl-e"}"#,
            ),
            (400, r#"{"error":"gl-a","error_description":"gl-r"}"#),
            (400, r#"{"no error":"gl-a"}"#),
            (502, r#"{"error":"gl-a"}"#),
        ];
        for (status, body) in answers {
            server.reset().await;
            Mock::given(method("POST"))
                .and(path("/oauth/token"))
                .respond_with(ResponseTemplate::new(status).set_body_raw(body, "application/json"))
                .mount(&server)
                .await;
            for answer in [
                upstream.exchange(&settings, "gl-code", "gl-verifier").await,
                upstream.refresh(&settings, "gl-refresh").await,
            ] {
                let shown = format!("{answer:?}");
                assert!(!shown.contains("gl-"), "{shown}");
                if let Err(failure) = answer {
                    assert!(!failure.to_string().contains("gl-"), "{failure}");
                }
            }
        }
        assert!(!format!("{upstream:?} {settings:?}").contains("gl-"));
    }
}
