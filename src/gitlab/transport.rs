//! One HTTP client for GitLab's GraphQL endpoint: posting a query, retrying what is worth
//! retrying, and turning every HTTP failure into a sentence that tells the agent what to do.
//!
//! Redirects are never followed, so the `Authorization` header only ever goes to the
//! configured instance. Nothing here formats the token.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::config::{Credential, GitlabConfig};

/// How many times a 429 or 5xx answer is retried before giving up.
pub const MAX_RETRIES: u32 = 2;
/// Longest `Retry-After` we are willing to sleep through inside one tool call.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(20);
/// First backoff when GitLab gives no `Retry-After`; doubled each retry.
pub const BASE_BACKOFF: Duration = Duration::from_millis(250);

/// One GraphQL error as GitLab reports it.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct GraphqlError {
    pub message: String,
    #[serde(default)]
    pub extensions: Option<serde_json::Value>,
    #[serde(default)]
    pub path: Option<Vec<serde_json::Value>>,
}

/// A GraphQL answer: data (possibly partial) and errors.
#[derive(Debug, serde::Deserialize)]
pub struct GraphqlResponse<T> {
    pub data: Option<T>,
    #[serde(default)]
    pub errors: Option<Vec<GraphqlError>>,
}

impl<T> GraphqlResponse<T> {
    /// The error messages, joined with `; `, or `None` when there were none.
    pub fn error_messages(&self) -> Option<String> {
        let errors = self.errors.as_ref()?;
        if errors.is_empty() {
            return None;
        }
        Some(
            errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
}

/// Why a request to GitLab failed, already worded for the agent by `Display`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    #[error("{0}")]
    Message(String),
}

/// The GraphQL client.
#[derive(Debug, Clone)]
pub struct Transport {
    client: reqwest::Client,
    endpoint: String,
    base: String,
}

impl Transport {
    /// Builds the client: timeouts from the config, no redirects, extra CA certificates if
    /// configured, proxies from `HTTPS_PROXY`/`NO_PROXY` (reqwest's default).
    pub fn new(config: &GitlabConfig) -> Result<Self, String> {
        install_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("gitlab-file-mcp/", env!("CARGO_PKG_VERSION")));
        if let Some(path) = &config.ca_file {
            let pem = std::fs::read(path)
                .map_err(|e| format!("cannot read GITLAB_CA_FILE '{}': {e}", path.display()))?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                format!(
                    "GITLAB_CA_FILE '{}' is not a PEM certificate bundle: {e}",
                    path.display()
                )
            })?;
            if certs.is_empty() {
                return Err(format!(
                    "GITLAB_CA_FILE '{}' holds no PEM certificate",
                    path.display()
                ));
            }
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        let client = builder
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Self {
            client,
            endpoint: config.graphql_url(),
            base: config.base_url.as_str().trim_end_matches('/').to_string(),
        })
    }

    /// Posts `body` and parses the answer as a GraphQL response, retrying 429 and 5xx at most
    /// [`MAX_RETRIES`] times (honouring `Retry-After`).
    pub async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        body: &B,
        credential: Option<&Credential>,
    ) -> Result<GraphqlResponse<T>, TransportError> {
        let mut attempt = 0;
        loop {
            let mut request = self.client.post(&self.endpoint).json(body);
            if let Some(credential) = credential {
                let mut value = HeaderValue::from_str(&format!("Bearer {}", credential.token.expose()))
                    .map_err(|_| {
                        TransportError::Message(format!(
                            "The GitLab token contains characters that cannot be sent in an HTTP header. Check {}.",
                            credential.origin.what_to_check()
                        ))
                    })?;
                value.set_sensitive(true);
                request = request.header(AUTHORIZATION, value);
            }
            let sent = std::time::Instant::now();
            let response = request.send().await;
            crate::timing::record_upstream(sent.elapsed());
            let response = response.map_err(|e| self.send_error(&e))?;
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
                let retry_after = retry_after(response.headers().get(RETRY_AFTER));
                if attempt < MAX_RETRIES && retry_after.is_none_or(|d| d <= MAX_RETRY_AFTER) {
                    let wait = retry_after.unwrap_or(BASE_BACKOFF * 2u32.pow(attempt));
                    tracing::warn!(%status, ?wait, attempt, "GitLab asked us to retry");
                    tokio::time::sleep(wait).await;
                    crate::timing::record_upstream(wait);
                    attempt += 1;
                    continue;
                }
                return Err(TransportError::Message(retry_exhausted(
                    status,
                    retry_after,
                    attempt,
                )));
            }
            return self.parse(response, credential).await;
        }
    }

    async fn parse<T: DeserializeOwned>(
        &self,
        response: reqwest::Response,
        credential: Option<&Credential>,
    ) -> Result<GraphqlResponse<T>, TransportError> {
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("none")
            .to_string();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("?")
                .to_string();
            return Err(TransportError::Message(format!(
                "GitLab at {} answered with a redirect (HTTP {}) to {location}. Redirects are not followed so the token never leaves the configured instance: set GITLAB_URL to the instance's final address.",
                self.base,
                status.as_u16()
            )));
        }
        let received = std::time::Instant::now();
        let bytes = read_body(response).await;
        crate::timing::record_upstream(received.elapsed());
        let bytes = match bytes {
            Ok(b) => b,
            Err(BodyError::Http(e)) => return Err(self.send_error(&e)),
            Err(BodyError::TooLarge) => {
                return Err(TransportError::Message(format!(
                    "GitLab's answer from {} exceeded {} MiB; this is not a GitLab GraphQL answer this server can use.",
                    self.endpoint,
                    MAX_BODY_BYTES / 1_048_576
                )));
            }
        };
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                let detail = first_message(&bytes).unwrap_or_default();
                let detail = if detail.is_empty() {
                    String::new()
                } else {
                    format!(": {detail}")
                };
                return Err(TransportError::Message(match credential {
                    Some(c) => format!(
                        "GitLab rejected the token (HTTP {}{detail}). Check {}: it must be a valid, unexpired token with the read_api scope for {}.",
                        status.as_u16(),
                        c.origin.what_to_check(),
                        self.base
                    ),
                    None => format!(
                        "GitLab requires authentication (HTTP {}{detail}). Set GITLAB_TOKEN to a token with the read_api scope for {}.",
                        status.as_u16(),
                        self.base
                    ),
                }));
            }
            StatusCode::NOT_FOUND => {
                return Err(TransportError::Message(format!(
                    "GitLab's GraphQL API was not found at {} (HTTP 404). Check GITLAB_URL: it must be the instance's base URL (with its relative root, if any), e.g. https://gitlab.example.com.",
                    self.endpoint
                )));
            }
            _ => {}
        }
        match serde_json::from_slice::<GraphqlResponse<T>>(&bytes) {
            Ok(parsed) => {
                if parsed.data.is_none() && parsed.errors.as_ref().is_none_or(Vec::is_empty) {
                    return Err(TransportError::Message(format!(
                        "GitLab answered HTTP {} without data or errors from {}. Check GITLAB_URL.",
                        status.as_u16(),
                        self.endpoint
                    )));
                }
                if !status.is_success() && parsed.data.is_none() {
                    let messages = parsed.error_messages().unwrap_or_default();
                    return Err(TransportError::Message(format!(
                        "GitLab answered HTTP {}: {messages}",
                        status.as_u16()
                    )));
                }
                Ok(parsed)
            }
            Err(e) if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_err() => {
                Err(TransportError::Message(format!(
                    "GitLab answered HTTP {} with a body that is not JSON (content-type {content_type}) from {}. Check GITLAB_URL: it must point at GitLab itself, not a login page or a proxy. ({e})",
                    status.as_u16(),
                    self.endpoint
                )))
            }
            Err(e) => Err(TransportError::Message(format!(
                "GitLab's answer (HTTP {}) was JSON but not shaped as expected: {e}. This GitLab version may not be supported.",
                status.as_u16()
            ))),
        }
    }

    fn send_error(&self, e: &reqwest::Error) -> TransportError {
        let cause = error_chain(e);
        TransportError::Message(if e.is_timeout() {
            format!(
                "GitLab at {} did not answer in time ({cause}). Try again; if it keeps happening, raise GITLAB_REQUEST_TIMEOUT or GITLAB_CONNECT_TIMEOUT.",
                self.base
            )
        } else if e.is_connect() {
            format!(
                "Cannot connect to GitLab at {} ({cause}). Check GITLAB_URL and the network (HTTPS_PROXY, or GITLAB_CA_FILE for a private certificate).",
                self.base
            )
        } else {
            format!("Request to GitLab at {} failed: {cause}", self.base)
        })
    }
}

/// Largest answer we read: GitLab sends at most 10 MiB of file content, which JSON escaping can
/// inflate (6 bytes for a control character); anything larger is not an answer we can use.
pub const MAX_BODY_BYTES: usize = 64 * 1_048_576;

enum BodyError {
    Http(reqwest::Error),
    TooLarge,
}

/// Reads a body chunk by chunk into one buffer sized from `Content-Length` when GitLab sends
/// it, so a 10 MiB answer is held once rather than as chunks plus a joined copy.
async fn read_body(mut response: reqwest::Response) -> Result<Vec<u8>, BodyError> {
    let expected = response.content_length().unwrap_or(0);
    if expected > MAX_BODY_BYTES as u64 {
        return Err(BodyError::TooLarge);
    }
    // Bounded by MAX_BODY_BYTES just above, so it fits in usize.
    let mut body = Vec::with_capacity(expected as usize);
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Http)? {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Installs rustls' ring provider once per process (reqwest is built without a default one).
fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // An Err means another provider is already installed, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `Retry-After` as a number of seconds (`"3"`); an HTTP date or garbage gives `None`.
pub fn retry_after(value: Option<&HeaderValue>) -> Option<Duration> {
    let secs: u64 = value?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
}

fn retry_exhausted(status: StatusCode, retry_after: Option<Duration>, retries: u32) -> String {
    let tried = if retries == 0 {
        "did not retry".to_string()
    } else {
        format!("still did after {retries} retries")
    };
    if status == StatusCode::TOO_MANY_REQUESTS {
        let wait = retry_after
            .map(|d| format!("{} s", d.as_secs()))
            .unwrap_or_else(|| "a minute".to_string());
        format!(
            "GitLab is rate-limiting requests (HTTP 429) and {tried}. Wait {wait} and call again."
        )
    } else {
        format!(
            "GitLab answered HTTP {} and {tried}. GitLab may be down or overloaded; try again later.",
            status.as_u16()
        )
    }
}

/// The first GraphQL/REST error message in a body, if it is JSON with one.
fn first_message(bytes: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let message = value
        .pointer("/errors/0/message")
        .or_else(|| value.get("message"))
        .or_else(|| value.get("error"))?;
    Some(match message {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// An error and its sources, joined with `: `.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with_ca(path: &std::path::Path) -> GitlabConfig {
        let args = crate::config::GitlabArgs {
            gitlab_url: Some("https://gitlab.example.com".into()),
            connect_timeout: 10,
            request_timeout: 30,
            ca_file: Some(path.to_path_buf()),
        };
        GitlabConfig::from_parts(&args, |_| None).unwrap()
    }

    #[test]
    fn ca_file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.pem");
        let e = Transport::new(&config_with_ca(&missing)).unwrap_err();
        assert!(
            e.contains("cannot read GITLAB_CA_FILE") && e.contains("nope.pem"),
            "{e}"
        );
        let garbage = dir.path().join("garbage.pem");
        std::fs::write(&garbage, "not a certificate\n").unwrap();
        let e = Transport::new(&config_with_ca(&garbage)).unwrap_err();
        assert!(
            e.contains("GITLAB_CA_FILE") && e.contains("garbage.pem"),
            "{e}"
        );
    }

    #[test]
    fn retry_after_seconds_only() {
        assert_eq!(
            retry_after(Some(&HeaderValue::from_static("3"))),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            retry_after(Some(&HeaderValue::from_static(" 0 "))),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_after(Some(&HeaderValue::from_static(
                "Wed, 21 Oct 2015 07:28:00 GMT"
            ))),
            None
        );
        assert_eq!(retry_after(None), None);
    }

    #[test]
    fn first_message_shapes() {
        assert_eq!(
            first_message(br#"{"errors":[{"message":"Invalid token"}]}"#).as_deref(),
            Some("Invalid token")
        );
        assert_eq!(
            first_message(br#"{"message":"401 Unauthorized"}"#).as_deref(),
            Some("401 Unauthorized")
        );
        assert_eq!(first_message(b"<html>"), None);
    }

    #[test]
    fn exhausted_wording() {
        let m = retry_exhausted(
            StatusCode::TOO_MANY_REQUESTS,
            Some(Duration::from_secs(60)),
            0,
        );
        assert!(
            m.contains("429") && m.contains("60 s") && m.contains("did not retry"),
            "{m}"
        );
        let m = retry_exhausted(StatusCode::BAD_GATEWAY, None, 2);
        assert!(m.contains("502") && m.contains("2 retries"), "{m}");
    }
}
