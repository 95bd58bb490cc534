//! One HTTP client for GitLab: posting a GraphQL query or getting a REST raw endpoint, retrying
//! what is worth retrying (429, 5xx, a connection GitLab reset), and turning every HTTP failure
//! into a [`TransportError`].
//!
//! Redirects are not followed, so the `Authorization` header only ever goes to the configured
//! instance; the one exception is an LFS download's redirect to object storage
//! ([`Follow::Storage`], rules in [`storage`](super::storage)), followed once and without any
//! credential. Answers may come gzip-compressed (reqwest sends `Accept-Encoding: gzip` and
//! decodes), so every length, limit and hash downstream sees decoded bytes; a body limit is a
//! limit on decoded bytes, so a small compressed body that expands past it is refused. Reading
//! a body is paced ([`crate::base::cpu::Pace`]: decoding is microseconds per 4 KiB frame, but frames
//! of a small compressed answer are all there at once), and a GraphQL answer of 64 KiB or more
//! is parsed off the async workers ([`crate::base::cpu::run`]).
//! Nothing here formats the token, except into the one header.

use std::fmt::{self, Display, Formatter};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION, RETRY_AFTER};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::envelope::GraphqlResponse;
use crate::base::cause::{Shared, chain};
use crate::config::{ConfigError, Credential, GitlabConfig, TokenOrigin};
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

/// Why a request to GitLab failed. `instance` is the configured base URL, `endpoint` the URL
/// that was called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TransportError {
    /// The token holds characters an HTTP header cannot carry.
    TokenNotAHeader { origin: TokenOrigin },
    /// GitLab answered with a redirect, which is not followed; `storage` when it leads to
    /// what looks like a pre-signed object-storage URL (not a wrong `GITLAB_URL`).
    Redirect {
        instance: String,
        status: u16,
        location: String,
        storage: bool,
    },
    /// An LFS download's redirect to object storage that is not followed (`shown`: the
    /// target without its query).
    StorageRedirect {
        what: String,
        why: super::storage::Unfollowed,
    },
    /// The object storage an LFS download was redirected to answered a failing status.
    Storage {
        status: u16,
        what: String,
        shown: String,
    },
    /// No answer from the object storage an LFS download was redirected to.
    StorageNoAnswer {
        what: String,
        shown: String,
        why: NoAnswer,
    },
    /// The answer was larger than [`MAX_BODY_BYTES`].
    TooLarge { endpoint: String },
    /// 401 or 403; `origin` is where the token came from (`None`: no token was sent).
    Rejected {
        instance: String,
        status: u16,
        detail: Option<String>,
        origin: Option<TokenOrigin>,
    },
    /// 404: no GraphQL API at the endpoint.
    NoApi { endpoint: String },
    /// A JSON answer with neither data nor errors.
    Empty { status: u16, endpoint: String },
    /// A failing status with GraphQL errors and no data.
    Status { status: u16, messages: String },
    /// A body that is not JSON.
    NotJson {
        status: u16,
        content_type: String,
        endpoint: String,
        cause: Shared<serde_json::Error>,
    },
    /// JSON, but not shaped as a GraphQL answer we understand.
    Unexpected {
        status: u16,
        cause: Shared<serde_json::Error>,
    },
    /// The answer was not decoded: the work of decoding it, run off the async workers
    /// ([`crate::base::cpu`]), gave no result (it panicked, or the pool was closed).
    Undecoded {
        cause: Shared<crate::base::cpu::CpuError>,
    },
    /// No answer from the instance: it could not be reached, did not answer in time, or
    /// kept closing the connection.
    NoAnswer { instance: String, why: NoAnswer },
    /// A REST raw endpoint answered a failing status (`what` names the blob or file asked
    /// for).
    Raw { status: u16, what: String },
    /// 429 or 5xx after `retries` retries; `retry_after` as GitLab sent it.
    RetriesExhausted {
        status: u16,
        retry_after: Option<Duration>,
        retries: u32,
    },
}

/// What the agent or operator should check when GitLab rejects the token.
fn what_to_check(origin: TokenOrigin) -> &'static str {
    match origin {
        TokenOrigin::GitlabToken => "the GITLAB_TOKEN environment variable",
        TokenOrigin::PersonalAccessToken => "the GITLAB_PERSONAL_ACCESS_TOKEN environment variable",
        TokenOrigin::Request => {
            "the token sent with this request (Authorization or PRIVATE-TOKEN header)"
        }
    }
}

impl Display for TransportError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use TransportError as T;
        match self {
            T::TokenNotAHeader { origin } => write!(
                f,
                "The GitLab token contains characters that cannot be sent in an HTTP header. Check {}.",
                what_to_check(*origin)
            ),
            T::Redirect {
                instance,
                status,
                location,
                storage,
            } => redirect(f, instance, *status, location, *storage),
            T::StorageRedirect { .. } | T::Storage { .. } | T::StorageNoAnswer { .. } => {
                self.storage(f)
            }
            T::TooLarge { endpoint } => write!(
                f,
                "GitLab's answer from {endpoint} exceeded {} MiB; this is not a GitLab GraphQL answer this server can use.",
                MAX_BODY_BYTES / 1_048_576
            ),
            T::Rejected {
                instance,
                status,
                detail,
                origin,
            } => rejected(f, instance, *status, detail.as_deref(), *origin),
            T::NoApi { endpoint } => write!(
                f,
                "GitLab's GraphQL API was not found at {endpoint} (HTTP 404). Check GITLAB_URL: it must be the instance's base URL (with its relative root, if any), e.g. https://gitlab.example.com."
            ),
            T::Empty { status, endpoint } => write!(
                f,
                "GitLab answered HTTP {status} without data or errors from {endpoint}. Check GITLAB_URL."
            ),
            T::Status { status, messages } => {
                write!(f, "GitLab answered HTTP {status}: {messages}")
            }
            T::NotJson {
                status,
                content_type,
                endpoint,
                cause,
            } => not_json(f, *status, content_type, endpoint, cause),
            T::Unexpected { status, cause } => write!(
                f,
                "GitLab's answer (HTTP {status}) was JSON but not shaped as expected: {cause}. This GitLab version may not be supported."
            ),
            T::Undecoded { cause } => undecoded(f, cause),
            T::NoAnswer { instance, why } => no_answer(f, instance, why),
            T::RetriesExhausted {
                status,
                retry_after,
                retries,
            } => retries_exhausted(f, *status, *retry_after, *retries),
            T::Raw { status, what } => raw_status(f, *status, what),
        }
    }
}

fn undecoded(f: &mut Formatter<'_>, cause: &Shared<crate::base::cpu::CpuError>) -> fmt::Result {
    write!(
        f,
        "GitLab's answer was not decoded ({cause}); this is a bug in this server. Call again."
    )
}

fn raw_status(f: &mut Formatter<'_>, status: u16, what: &str) -> fmt::Result {
    if status == 404 {
        write!(
            f,
            "GitLab's raw file endpoint found nothing for {what} (HTTP 404). The file may have changed since the request that named it; call again."
        )
    } else {
        write!(
            f,
            "GitLab's raw file endpoint answered HTTP {status} for {what}; try again later."
        )
    }
}

impl TransportError {
    /// The wording of the object-storage errors.
    fn storage(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::StorageRedirect { what, why } => storage_redirect(f, what, why),
            TransportError::Storage {
                status,
                what,
                shown,
            } => storage_status(f, *status, what, shown),
            TransportError::StorageNoAnswer { what, shown, why } => {
                let cause = why
                    .cause()
                    .map(|c| chain(c))
                    .unwrap_or_else(|| "it kept closing the connection".to_string());
                write!(
                    f,
                    "The object storage GitLab sent the LFS object of {what} to ({shown}) could not be reached ({cause}); try again later."
                )
            }
            // `fmt` calls this for the three variants above only.
            _ => Ok(()),
        }
    }
}

fn storage_redirect(
    f: &mut Formatter<'_>,
    what: &str,
    why: &super::storage::Unfollowed,
) -> fmt::Result {
    write!(
        f,
        "GitLab sent the LFS object of {what} to object storage, but {why}; the object was not downloaded. Ask the instance's administrator to serve LFS over https (or set `proxy_download: true`)."
    )
}

fn storage_status(f: &mut Formatter<'_>, status: u16, what: &str, shown: &str) -> fmt::Result {
    match status {
        403 => write!(
            f,
            "The object storage GitLab sent the LFS object of {what} to ({shown}) refused the download (HTTP 403): its pre-signed link has probably expired, or the storage's clock or policy rejects it. Call again: GitLab signs a fresh link each time."
        ),
        404 => write!(
            f,
            "The object storage GitLab sent the LFS object of {what} to ({shown}) has no such object (HTTP 404): it was never uploaded or was removed; `git lfs push --all` from a clone that has it restores it."
        ),
        _ if (300..400).contains(&status) => write!(
            f,
            "The object storage GitLab sent the LFS object of {what} to ({shown}) redirected again (HTTP {status}); only one redirect is followed."
        ),
        _ => write!(
            f,
            "The object storage GitLab sent the LFS object of {what} to ({shown}) answered HTTP {status}; try again later."
        ),
    }
}

fn redirect(
    f: &mut Formatter<'_>,
    instance: &str,
    status: u16,
    location: &str,
    storage: bool,
) -> fmt::Result {
    if storage {
        return write!(
            f,
            "GitLab at {instance} redirected a download (HTTP {status}) to object storage ({location}). Only LFS objects are fetched from object storage; this redirect is not a GITLAB_URL problem but an unexpected answer for this route: try again, or report it with the instance's version."
        );
    }
    write!(
        f,
        "GitLab at {instance} answered with a redirect (HTTP {status}) to {location}. Redirects are not followed so the token never leaves the configured instance: set GITLAB_URL to the instance's final address."
    )
}

fn not_json(
    f: &mut Formatter<'_>,
    status: u16,
    content_type: &str,
    endpoint: &str,
    cause: &Shared<serde_json::Error>,
) -> fmt::Result {
    write!(
        f,
        "GitLab answered HTTP {status} with a body that is not JSON (content-type {content_type}) from {endpoint}. Check GITLAB_URL: it must point at GitLab itself, not a login page or a proxy. ({cause})"
    )
}

fn rejected(
    f: &mut Formatter<'_>,
    instance: &str,
    status: u16,
    detail: Option<&str>,
    origin: Option<TokenOrigin>,
) -> fmt::Result {
    let detail = detail.map(|d| format!(": {d}")).unwrap_or_default();
    match origin {
        Some(origin) => write!(
            f,
            "GitLab rejected the token (HTTP {status}{detail}). Check {}: it must be a valid, unexpired token with the read_api scope for {instance}.",
            what_to_check(origin)
        ),
        None => write!(
            f,
            "GitLab requires authentication (HTTP {status}{detail}). Set GITLAB_TOKEN to a token with the read_api scope for {instance}."
        ),
    }
}

fn retries_exhausted(
    f: &mut Formatter<'_>,
    status: u16,
    retry_after: Option<std::time::Duration>,
    retries: u32,
) -> fmt::Result {
    let tried = if retries == 0 {
        "did not retry".to_string()
    } else {
        format!("still did after {retries} retries")
    };
    if status == 429 {
        let wait = retry_after
            .map(|d| format!("{} s", d.as_secs()))
            .unwrap_or_else(|| "a minute".to_string());
        write!(
            f,
            "GitLab is rate-limiting requests (HTTP 429) and {tried}. Wait {wait} and call again."
        )
    } else {
        write!(
            f,
            "GitLab answered HTTP {status} and {tried}. GitLab may be down or overloaded; try again later."
        )
    }
}

/// Why no answer came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoAnswer {
    /// Not within the request timeout.
    Timeout { cause: Shared<reqwest::Error> },
    /// No connection could be made.
    Connect { cause: Shared<reqwest::Error> },
    /// The connection was reset or closed before an answer, `retries` times retried.
    Reset { retries: u32 },
    /// Any other failure of the request.
    Failed { cause: Shared<reqwest::Error> },
}

fn no_answer(f: &mut Formatter<'_>, instance: &str, why: &NoAnswer) -> fmt::Result {
    match why {
        NoAnswer::Timeout { cause } => write!(
            f,
            "GitLab at {instance} did not answer in time ({}). Try again; if it keeps happening, raise GITLAB_REQUEST_TIMEOUT or GITLAB_CONNECT_TIMEOUT.",
            chain(cause)
        ),
        NoAnswer::Connect { cause } => write!(
            f,
            "Cannot connect to GitLab at {instance} ({}). Check GITLAB_URL and the network (HTTPS_PROXY, or GITLAB_CA_FILE for a private certificate).",
            chain(cause)
        ),
        NoAnswer::Reset { retries } => write!(
            f,
            "GitLab at {instance} closed the connection before answering, and still did after {retries} retries. GitLab, or a proxy in front of it, may be restarting or overloaded; try again later."
        ),
        NoAnswer::Failed { cause } => {
            write!(
                f,
                "Request to GitLab at {instance} failed: {}",
                chain(cause)
            )
        }
    }
}

impl NoAnswer {
    /// The library error under this one, if any.
    fn cause(&self) -> Option<&Shared<reqwest::Error>> {
        match self {
            NoAnswer::Timeout { cause }
            | NoAnswer::Connect { cause }
            | NoAnswer::Failed { cause } => Some(cause),
            NoAnswer::Reset { .. } => None,
        }
    }
}

/// By hand: [`NoAnswer`] is worded with the instance it did not hear from, so it is no error of
/// its own, and the source of a [`TransportError::NoAnswer`] is the library error inside it.
impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TransportError::NotJson { cause, .. } | TransportError::Unexpected { cause, .. } => {
                Some(cause)
            }
            TransportError::Undecoded { cause } => Some(cause),
            TransportError::NoAnswer { why, .. } | TransportError::StorageNoAnswer { why, .. } => {
                why.cause().map(|c| c as _)
            }
            _ => None,
        }
    }
}

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
pub(crate) enum Follow {
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
        let mut builder = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("gitlab-file-mcp/", env!("CARGO_PKG_VERSION")));
        if let Some(path) = &config.ca_file {
            for cert in crate::config::read_ca_bundle(path)? {
                builder = builder.add_root_certificate(cert);
            }
        }
        let client = builder.build().map_err(|e| ConfigError::HttpClient {
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
        follow: Follow,
        credential: Option<&Credential>,
    ) -> Result<RawBody, TransportError> {
        let url = format!("{}/api/v4/{path_and_query}", self.instance);
        let endpoint = Endpoint::of_rest(path_and_query);
        let response = self
            .send(|| self.client.get(&url), endpoint, credential)
            .await?;
        if follow == Follow::Storage && response.status().is_redirection() {
            return self.download_from_storage(&response, endpoint, what).await;
        }
        self.refuse_redirect(&response)?;
        let status = response.status();
        if status.is_success() {
            let instance = self.instance.clone();
            return Ok(RawBody {
                response,
                instance,
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
            instance: self.instance.clone(),
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

/// The streaming body of a REST raw answer.
#[derive(Debug)]
pub(crate) struct RawBody {
    response: reqwest::Response,
    /// The configured instance, for errors (as every other [`TransportError`] names it).
    instance: String,
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
            TransportError::NoAnswer {
                instance: self.instance.clone(),
                why: if timeout {
                    NoAnswer::Timeout { cause }
                } else {
                    NoAnswer::Failed { cause }
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
    fn exhausted_wording() {
        let m = TransportError::RetriesExhausted {
            status: 429,
            retry_after: Some(std::time::Duration::from_secs(60)),
            retries: 0,
        }
        .to_string();
        assert!(
            m.contains("429") && m.contains("60 s") && m.contains("did not retry"),
            "{m}"
        );
        let m = TransportError::RetriesExhausted {
            status: 502,
            retry_after: None,
            retries: 2,
        }
        .to_string();
        assert!(m.contains("502") && m.contains("2 retries"), "{m}");
    }

    #[test]
    fn storage_wording_blames_neither_the_token_nor_gitlab_url() {
        let redirect = |storage| {
            TransportError::Redirect {
                instance: "https://g".into(),
                status: 302,
                location: "https://s3.example/o?X-Amz-Signature=[redacted]".into(),
                storage,
            }
            .to_string()
        };
        assert!(redirect(false).contains("set GITLAB_URL"));
        let m = redirect(true);
        assert!(
            m.contains("object storage") && m.contains("not a GITLAB_URL problem"),
            "{m}"
        );
        let storage = |status| {
            TransportError::Storage {
                status,
                what: "'a.bin' at 'main'".into(),
                shown: "https://s3.example/o".into(),
            }
            .to_string()
        };
        assert!(storage(403).contains("expired") && storage(403).contains("https://s3.example/o"));
        assert!(storage(404).contains("no such object"));
        assert!(storage(302).contains("only one redirect"));
        assert!(storage(500).contains("HTTP 500"));
        for m in [storage(403), storage(404)] {
            assert!(!m.contains("GITLAB_URL") && !m.contains("token"), "{m}");
        }
        let m = TransportError::StorageRedirect {
            what: "'a.bin' at 'main'".into(),
            why: super::super::storage::Unfollowed::Scheme {
                shown: "ftp://h/o".into(),
            },
        }
        .to_string();
        assert!(
            m.contains("ftp://h/o") && m.contains("not downloaded"),
            "{m}"
        );
    }

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

    #[tokio::test]
    async fn an_undecoded_answer_is_worded_once_with_its_cause() {
        let panicked = crate::base::cpu::run(crate::base::cpu::INLINE_BYTES, |_| -> () {
            panic!("a bug")
        })
        .await
        .unwrap_err();
        let e = TransportError::Undecoded {
            cause: Shared::new(panicked),
        };
        assert_eq!(
            e.to_string(),
            "GitLab's answer was not decoded (internal error: the work panicked); this is a bug in this server. Call again."
        );
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("internal error: the work panicked"));
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
