//! One HTTP client for GitLab: posting a GraphQL query or getting a REST raw endpoint, retrying
//! what is worth retrying (429, 5xx, a connection GitLab reset), and turning every HTTP failure
//! into a [`TransportError`].
//!
//! Redirects are not followed, so the `Authorization` header only ever goes to the configured
//! instance; the one exception is an LFS download's redirect to object storage
//! ([`FollowRedirect::Storage`], rules in [`storage`](super::storage)), followed once and without
//! any credential. Answers may come gzip-compressed (reqwest sends `Accept-Encoding: gzip` and
//! decodes), so every length, limit and hash downstream sees decoded bytes; a body limit is a limit
//! on decoded bytes, so a small compressed body that expands past it is refused. Reading a body is
//! paced ([`crate::base::cpu::Pace`]: decoding is microseconds per 4 KiB frame, but frames of a
//! small compressed answer are all there at once), and a GraphQL answer of 64 KiB or more is parsed
//! off the async workers ([`crate::base::cpu::run`]). Nothing here formats the token, except into
//! the one header.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION, RETRY_AFTER};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::envelope::GraphqlResponse;
use super::transport_error::{NoAnswer, TransportError};
use crate::base::cause::Shared;
use crate::config::{ConfigError, Credential, GitlabConfig};
use crate::metrics::{self, Endpoint};

/// How many times a 429 or 5xx answer is retried before giving up.
pub(crate) const MAX_RETRIES: u32 = 2;
/// Longest `Retry-After` we are willing to sleep through inside one tool call.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(20);
/// First backoff when GitLab gives no `Retry-After`; doubled each retry.
pub(crate) const BASE_BACKOFF: Duration = Duration::from_millis(250);
/// Largest answer we read: GitLab sends at most 10 MiB of file content, which JSON escaping can
/// inflate (6 bytes for a control character); anything larger is not an answer we can use.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1_048_576;

/// The GraphQL client.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    client: reqwest::Client,
    endpoint: String,
    instance: String,
    /// The configured base URL (its scheme decides whether `http` storage may be followed).
    base: url::Url,
}

/// Whether a REST raw answer's redirect may be followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FollowRedirect {
    /// Never (every route but the LFS download).
    Nothing,
    /// One redirect to object storage, without any credential (the LFS download).
    Storage,
}

impl Transport {
    /// Builds the client: timeouts from the config, no redirects, extra CA certificates if
    /// configured, proxies from `HTTPS_PROXY`/`NO_PROXY` (reqwest's default).
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, ConfigError> {
        install_crypto_provider();
        let client = crate::config::gitlab_client_builder(config)?
            .build()
            .map_err(|e| ConfigError::HttpClient {
                cause: Shared::new(e),
            })?;
        Ok(Self {
            client,
            endpoint: config.graphql_url(),
            instance: config.base_url.as_str().trim_end_matches('/').to_string(),
            base: config.base_url.clone(),
        })
    }

    /// Posts `body` and parses the answer as a GraphQL response, retrying as [`Self::send`].
    pub(crate) async fn post<B: Serialize, T: DeserializeOwned + Send + 'static>(
        &self,
        body: &B,
        credential: Option<&Credential>,
    ) -> Result<GraphqlResponse<T>, TransportError> {
        let response = self
            .send(
                || self.client.post(&self.endpoint).json(body),
                Endpoint::Graphql,
                credential,
            )
            .await?;
        self.parse(response, credential).await
    }

    /// Gets `<instance>/api/v4/<path_and_query>` (a REST raw endpoint; `path_and_query` is
    /// already percent-encoded), retrying as [`Self::send`]; `what` names what is fetched, for
    /// errors; `follow` whether a storage redirect is followed. The answer's body is left to
    /// stream ([`RawBody`]).
    pub(crate) async fn get_raw(
        &self,
        path_and_query: &str,
        what: &str,
        follow: FollowRedirect,
        credential: Option<&Credential>,
    ) -> Result<RawBody, TransportError> {
        let url = format!("{}/api/v4/{path_and_query}", self.instance);
        let endpoint = Endpoint::of_rest(path_and_query);
        let response = self
            .send(|| self.client.get(&url), endpoint, credential)
            .await?;
        if follow == FollowRedirect::Storage && response.status().is_redirection() {
            return self.download_from_storage(&response, endpoint, what).await;
        }
        self.refuse_redirect(&response)?;
        let status = response.status();
        if status.is_success() {
            return Ok(RawBody {
                response,
                from: BodyFrom::Instance(self.instance.clone()),
                endpoint,
                pace: crate::base::cpu::Pace::default(),
            });
        }
        // 401/403 mean what they mean for GraphQL; anything else is about the file asked for.
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            let body = read_body(response).await.unwrap_or_default();
            self.refuse_status(status, &body, credential)?;
        }
        Err(TransportError::Raw {
            status: status.as_u16(),
            what: what.to_string(),
        })
    }

    /// Follows an LFS download's redirect to object storage, once, with no credential (no
    /// `Authorization`, no `PRIVATE-TOKEN`, no cookie: S3 refuses a second auth mechanism, and
    /// the token is GitLab's alone). The body is verified downstream like any LFS body.
    async fn download_from_storage(
        &self,
        redirect: &reqwest::Response,
        endpoint: Endpoint,
        what: &str,
    ) -> Result<RawBody, TransportError> {
        let location = header_text(redirect.headers().get(LOCATION));
        let target =
            super::storage::target(&self.base, redirect.url(), location).map_err(|why| {
                TransportError::StorageRedirect {
                    what: what.to_string(),
                    why,
                }
            })?;
        let shown = crate::base::quote::shown(&super::storage::shown(&target));
        tracing::info!(storage = %shown, "GitLab sent an LFS object to object storage; following once, without credentials");
        let response = self
            .send(|| self.client.get(target.clone()), endpoint, None)
            .await
            .map_err(|e| match e {
                TransportError::NoAnswer { why, .. } => TransportError::StorageNoAnswer {
                    what: what.to_string(),
                    shown: shown.clone(),
                    why,
                },
                // A 5xx or 429 of the storage, still failing after the retries: the storage's.
                TransportError::RetriesExhausted { status, .. } => TransportError::Storage {
                    status,
                    what: what.to_string(),
                    shown: shown.clone(),
                },
                other => other,
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(TransportError::Storage {
                status: status.as_u16(),
                what: what.to_string(),
                shown,
            });
        }
        Ok(RawBody {
            response,
            from: BodyFrom::Storage {
                what: what.to_string(),
                shown,
            },
            endpoint,
            pace: crate::base::cpu::Pace::default(),
        })
    }

    /// Sends the request `build` makes (again for each retry) with the caller's token, and
    /// returns the first answer that is not to be retried. 429 and 5xx, and a connection GitLab
    /// reset or closed, are retried at most [`MAX_RETRIES`] times ([`retry_decision`]).
    async fn send(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
        endpoint: Endpoint,
        credential: Option<&Credential>,
    ) -> Result<reqwest::Response, TransportError> {
        let authorization = credential.map(authorization).transpose()?;
        let mut attempt = 0;
        loop {
            let mut request = build();
            if let Some(value) = &authorization {
                request = request.header(AUTHORIZATION, value.clone());
            }
            let sent = std::time::Instant::now();
            let outcome = request.send().await;
            crate::base::timing::record_upstream(sent.elapsed());
            metrics::gitlab_request(endpoint, outcome.as_ref().ok().map(|r| r.status().as_u16()));
            let decision = match &outcome {
                Ok(response) => retry_decision(response.status(), response.headers(), attempt),
                Err(e) if is_reset(e) => reset_decision(&self.instance, attempt),
                Err(_) => Retry::No,
            };
            match decision {
                Retry::No => return outcome.map_err(|e| self.send_error(e)),
                Retry::After(wait) => {
                    tracing::warn!(?wait, attempt, "GitLab asked us to retry (status or reset)");
                    tokio::time::sleep(wait).await;
                    crate::base::timing::record_upstream(wait);
                    metrics::gitlab_retry(endpoint);
                    attempt += 1;
                }
                Retry::GiveUp(e) => return Err(e),
            }
        }
    }

    /// Reads an answer that is not to be retried: refuses redirects and error statuses, then
    /// decodes the GraphQL envelope.
    async fn parse<T: DeserializeOwned + Send + 'static>(
        &self,
        response: reqwest::Response,
        credential: Option<&Credential>,
    ) -> Result<GraphqlResponse<T>, TransportError> {
        let status = response.status();
        self.refuse_redirect(&response)?;
        let content_type = header_text(response.headers().get(CONTENT_TYPE)).unwrap_or("none");
        let content_type = content_type.to_string();
        let received = std::time::Instant::now();
        let bytes = read_body(response).await;
        crate::base::timing::record_upstream(received.elapsed());
        metrics::gitlab_received(Endpoint::Graphql, bytes.as_ref().map_or(0, Vec::len));
        let bytes = bytes.map_err(|e| match e {
            BodyError::Http(e) => self.send_error(e),
            BodyError::TooLarge => TransportError::TooLarge {
                endpoint: self.endpoint.clone(),
                limit: MAX_BODY_BYTES,
            },
        })?;
        self.refuse_status(status, &bytes, credential)?;
        // A multi-MB answer (a blob's `rawTextBlob`, a batch's) takes milliseconds to parse
        // (about 100 ms for 8 MB in a debug build): off the async workers, like every
        // CPU-bound step.
        let endpoint = self.endpoint.clone();
        crate::base::cpu::run(bytes.len(), move |_| {
            decode(status, &bytes, content_type, endpoint)
        })
        .await
        .map_err(|e| TransportError::Undecoded {
            cause: Shared::new(e),
        })?
    }

    fn refuse_redirect(&self, response: &reqwest::Response) -> Result<(), TransportError> {
        match response.status().is_redirection() {
            true => Err(self.redirect_error(response)),
            false => Ok(()),
        }
    }

    /// The error for a redirect that is not followed.
    fn redirect_error(&self, response: &reqwest::Response) -> TransportError {
        let location = header_text(response.headers().get(LOCATION));
        TransportError::Redirect {
            instance: self.instance.clone(),
            status: response.status().as_u16(),
            storage: location.is_some_and(|l| super::storage::looks_like_storage(&self.base, l)),
            // Quoted like any other input: secrets in it redacted, and cut.
            location: crate::base::quote::shown(&crate::base::redact::url(
                location.unwrap_or("?"),
                crate::base::redact::Query::KeysOnly,
            )),
        }
    }

    /// 401/403 (the token) and 404 (the endpoint) mean the same whatever the body says.
    fn refuse_status(
        &self,
        status: StatusCode,
        body: &[u8],
        credential: Option<&Credential>,
    ) -> Result<(), TransportError> {
        if status == StatusCode::UNAUTHORIZED
            && let Some(credential) = credential
        {
            // GitLab no longer takes the token (revoked): noted on this request's credential,
            // so that the HTTP layer answers this request 401 (`--oauth`).
            credential.refusal.mark();
        }
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(TransportError::Rejected {
                instance: self.instance.clone(),
                status: status.as_u16(),
                detail: first_message(body).filter(|d| !d.is_empty()),
                origin: credential.map(|c| c.origin),
            }),
            StatusCode::NOT_FOUND => Err(TransportError::NoApi {
                endpoint: self.endpoint.clone(),
            }),
            _ => Ok(()),
        }
    }

    fn send_error(&self, e: reqwest::Error) -> TransportError {
        let e = without_secret_url(e);
        let instance = self.instance.clone();
        let (timeout, connect) = (e.is_timeout(), e.is_connect());
        let cause = Shared::new(e);
        let why = if timeout {
            NoAnswer::Timeout { cause }
        } else if connect {
            NoAnswer::Connect { cause }
        } else {
            NoAnswer::Failed { cause }
        };
        TransportError::NoAnswer { instance, why }
    }
}

/// The GraphQL envelope of a body from `endpoint`, or why it is not one we can use. Pure: one
/// parse of the body (two when it is not the shape asked for).
fn decode<T: DeserializeOwned>(
    status: StatusCode,
    body: &[u8],
    content_type: String,
    endpoint: String,
) -> Result<GraphqlResponse<T>, TransportError> {
    let code = status.as_u16();
    let parsed = match serde_json::from_slice::<GraphqlResponse<T>>(body) {
        Ok(parsed) => parsed,
        Err(e) if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() => {
            return Err(TransportError::NotJson {
                status: code,
                content_type,
                endpoint,
                cause: Shared::new(e),
            });
        }
        Err(e) => {
            return Err(TransportError::Unexpected {
                status: code,
                cause: Shared::new(e),
            });
        }
    };
    if parsed.data.is_none() && parsed.errors().is_empty() {
        return Err(TransportError::Empty {
            status: code,
            endpoint,
        });
    }
    if !status.is_success() && parsed.data.is_none() {
        return Err(TransportError::Status {
            status: code,
            messages: parsed.error_messages().unwrap_or_default(),
        });
    }
    Ok(parsed)
}

/// `e` without the URL it names when that URL carries a query or user info (a storage link's
/// signature, GitLab's `ref`): the error is worded with the host it concerns instead.
fn without_secret_url(e: reqwest::Error) -> reqwest::Error {
    let secret = e
        .url()
        .is_some_and(|u| u.query().is_some() || !u.username().is_empty() || u.password().is_some());
    if secret { e.without_url() } else { e }
}

/// The `Authorization` header for a credential, marked sensitive so no `Debug` prints it.
fn authorization(credential: &Credential) -> Result<HeaderValue, TransportError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", credential.token.expose()))
        .map_err(|_| TransportError::TokenNotAHeader {
            origin: credential.origin,
        })?;
    value.set_sensitive(true);
    Ok(value)
}

/// What to do with an answer's status.
#[derive(Debug, PartialEq, Eq)]
enum Retry {
    /// Not a retryable status: read the answer.
    No,
    /// Retry after this wait.
    After(Duration),
    /// Retryable, but not again (or not within one call's patience).
    GiveUp(TransportError),
}

/// 429 and 5xx are retried at most [`MAX_RETRIES`] times, after GitLab's `Retry-After` (when it
/// is at most [`MAX_RETRY_AFTER`]) or else the backoff ([`backoff`]); a `Retry-After` shorter
/// than the backoff (`0`) waits the backoff, so a hurried answer cannot turn the retries into a
/// burst.
fn retry_decision(status: StatusCode, headers: &reqwest::header::HeaderMap, attempt: u32) -> Retry {
    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
        return Retry::No;
    }
    let retry_after = retry_after(headers.get(RETRY_AFTER));
    if attempt < MAX_RETRIES && retry_after.is_none_or(|d| d <= MAX_RETRY_AFTER) {
        return Retry::After(retry_after.unwrap_or_default().max(backoff(attempt)));
    }
    Retry::GiveUp(TransportError::RetriesExhausted {
        status: status.as_u16(),
        retry_after,
        retries: attempt,
    })
}

/// A connection reset or closed by GitLab is retried like a 502, with the same backoff.
fn reset_decision(instance: &str, attempt: u32) -> Retry {
    if attempt < MAX_RETRIES {
        Retry::After(backoff(attempt))
    } else {
        Retry::GiveUp(TransportError::NoAnswer {
            instance: instance.to_string(),
            why: NoAnswer::Reset { retries: attempt },
        })
    }
}

/// [`BASE_BACKOFF`] doubled per attempt already made.
fn backoff(attempt: u32) -> Duration {
    BASE_BACKOFF * 2u32.pow(attempt)
}

/// Whether a request failed because GitLab (or something on the way) reset or closed the
/// connection: an I/O error of that kind, or hyper's "connection closed before message
/// completed", anywhere in the error's sources. Timeouts are not resets.
fn is_reset(e: &reqwest::Error) -> bool {
    use std::io::ErrorKind;
    if e.is_timeout() {
        return false;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof
            )
        {
            return true;
        }
        if s.downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_incomplete_message)
        {
            return true;
        }
        source = s.source();
    }
    false
}

/// Who sends a [`RawBody`], for its errors: a body that stops coming is that sender's fault.
#[derive(Debug)]
enum BodyFrom {
    /// GitLab itself: the configured instance (as every other [`TransportError`] names it).
    Instance(String),
    /// The object storage an LFS download was redirected to: what was fetched, and the
    /// storage's URL without its query.
    Storage { what: String, shown: String },
}

/// The streaming body of a REST raw answer.
#[derive(Debug)]
pub(crate) struct RawBody {
    response: reqwest::Response,
    from: BodyFrom,
    endpoint: Endpoint,
    /// Yields between chunks that are already there (gzip frames), so decoding and hashing a
    /// large download never holds the worker long.
    pace: crate::base::cpu::Pace,
}

impl RawBody {
    /// The body's declared length, if GitLab sent one.
    pub(crate) fn declared_len(&self) -> Option<u64> {
        self.response.content_length()
    }

    /// The next chunk of the body; `None` at its end. Every [`crate::base::cpu::PACE_BYTES`] it
    /// first yields to the other tasks (the caller hashed what came before).
    pub(crate) async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, TransportError> {
        let received = std::time::Instant::now();
        let chunk = self.response.chunk().await;
        crate::base::timing::record_upstream(received.elapsed());
        let length = chunk
            .as_ref()
            .ok()
            .and_then(Option::as_ref)
            .map_or(0, |c| c.len());
        metrics::gitlab_received(self.endpoint, length);
        self.pace.step(length).await;
        chunk.map_err(|e| {
            let e = without_secret_url(e);
            // A body that stops coming is a timeout like an answer that never comes.
            let timeout = e.is_timeout();
            let cause = Shared::new(e);
            let why = if timeout {
                NoAnswer::Timeout { cause }
            } else {
                NoAnswer::Failed { cause }
            };
            match &self.from {
                BodyFrom::Instance(instance) => TransportError::NoAnswer {
                    instance: instance.clone(),
                    why,
                },
                BodyFrom::Storage { what, shown } => TransportError::StorageNoAnswer {
                    what: what.clone(),
                    shown: shown.clone(),
                    why,
                },
            }
        })
    }
}

/// Why an answer's body was not read whole.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error("reading the body failed")]
    Http(#[source] reqwest::Error),
    #[error("the body is larger than {MAX_BODY_BYTES} bytes")]
    TooLarge,
}

/// Reads a body chunk by chunk into one buffer sized from `Content-Length` when GitLab sends
/// it, so a 10 MiB answer is held once rather than as chunks plus a joined copy; paced
/// ([`crate::base::cpu::Pace`]), so a compressed answer is not decoded whole in one poll.
async fn read_body(mut response: reqwest::Response) -> Result<Vec<u8>, BodyError> {
    let expected = response.content_length().unwrap_or(0);
    if expected > MAX_BODY_BYTES as u64 {
        return Err(BodyError::TooLarge);
    }
    // Bounded by MAX_BODY_BYTES just above, so it fits in usize.
    let mut body = Vec::with_capacity(expected as usize);
    let mut pace = crate::base::cpu::Pace::default();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Http)? {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
        pace.step(chunk.len()).await;
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

fn header_text(value: Option<&HeaderValue>) -> Option<&str> {
    value.and_then(|v| v.to_str().ok())
}

/// `Retry-After` as a number of seconds (`"3"`); an HTTP date or garbage gives `None`.
fn retry_after(value: Option<&HeaderValue>) -> Option<Duration> {
    let secs: u64 = header_text(value)?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_tells_what_a_body_is_not() {
        let decoded = |status: u16, body: &str| {
            decode::<serde_json::Value>(
                StatusCode::from_u16(status).unwrap(),
                body.as_bytes(),
                "text/html".into(),
                "https://g/api/graphql".into(),
            )
        };
        let ok = decoded(200, r#"{"data":{"a":1}}"#).unwrap();
        assert_eq!(ok.data, Some(serde_json::json!({"a": 1})));
        // Data beside errors, even on a failing status: the data is used.
        assert!(decoded(500, r#"{"data":{"a":1},"errors":[{"message":"x"}]}"#).is_ok());
        assert!(matches!(
            decoded(200, "<html>"),
            Err(TransportError::NotJson { status: 200, ref content_type, .. }) if content_type == "text/html"
        ));
        assert!(matches!(
            decoded(200, r#"{"data":1,"errors":"no"}"#),
            Err(TransportError::Unexpected { status: 200, .. })
        ));
        assert_eq!(
            decoded(200, "{}").unwrap_err(),
            TransportError::Empty {
                status: 200,
                endpoint: "https://g/api/graphql".into()
            }
        );
        assert_eq!(
            decoded(502, r#"{"errors":[{"message":"a"},{"message":"b"}]}"#).unwrap_err(),
            TransportError::Status {
                status: 502,
                messages: "a; b".into()
            }
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
    fn retry_decisions() {
        let none = reqwest::header::HeaderMap::new();
        assert_eq!(retry_decision(StatusCode::OK, &none, 0), Retry::No);
        assert_eq!(retry_decision(StatusCode::NOT_FOUND, &none, 0), Retry::No);
        assert_eq!(
            retry_decision(StatusCode::BAD_GATEWAY, &none, 1),
            Retry::After(BASE_BACKOFF * 2)
        );
        let mut long = reqwest::header::HeaderMap::new();
        long.insert(RETRY_AFTER, HeaderValue::from_static("60"));
        assert!(matches!(
            retry_decision(StatusCode::TOO_MANY_REQUESTS, &long, 0),
            Retry::GiveUp(TransportError::RetriesExhausted {
                status: 429,
                retries: 0,
                ..
            })
        ));
        assert!(matches!(
            retry_decision(StatusCode::SERVICE_UNAVAILABLE, &none, MAX_RETRIES),
            Retry::GiveUp(TransportError::RetriesExhausted { retries: 2, .. })
        ));
        // Retry-After: 0 waits the backoff floor, not nothing.
        let mut zero = reqwest::header::HeaderMap::new();
        zero.insert(RETRY_AFTER, HeaderValue::from_static("0"));
        assert_eq!(
            retry_decision(StatusCode::TOO_MANY_REQUESTS, &zero, 0),
            Retry::After(BASE_BACKOFF)
        );
        assert_eq!(
            retry_decision(StatusCode::TOO_MANY_REQUESTS, &zero, 1),
            Retry::After(BASE_BACKOFF * 2)
        );
        let mut three = reqwest::header::HeaderMap::new();
        three.insert(RETRY_AFTER, HeaderValue::from_static("3"));
        assert_eq!(
            retry_decision(StatusCode::BAD_GATEWAY, &three, 0),
            Retry::After(Duration::from_secs(3))
        );
    }

    #[test]
    fn resets_are_retried_like_a_502() {
        assert_eq!(reset_decision("https://g", 0), Retry::After(BASE_BACKOFF));
        assert_eq!(
            reset_decision("https://g", 1),
            Retry::After(BASE_BACKOFF * 2)
        );
        assert_eq!(
            reset_decision("https://g", MAX_RETRIES),
            Retry::GiveUp(TransportError::NoAnswer {
                instance: "https://g".into(),
                why: NoAnswer::Reset {
                    retries: MAX_RETRIES
                }
            })
        );
    }
}
