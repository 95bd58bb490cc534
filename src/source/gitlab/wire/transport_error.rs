//! Why a request to GitLab failed ([`TransportError`], with [`NoAnswer`] when none came) and how
//! each failure is worded for the agent or the operator: what to check, whom it concerns (the
//! token, `GITLAB_URL`, the object storage an LFS download was sent to), and whether to try
//! again. Nothing here formats a token.

use std::fmt::{self, Display, Formatter};
use std::time::Duration;

use crate::base::cause::{Shared, chain};
use crate::config::TokenOrigin;

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
    /// The answer was larger than `limit` bytes (the transport's `MAX_BODY_BYTES`).
    TooLarge { endpoint: String, limit: usize },
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
        TokenOrigin::SignIn => "the sign-in with GitLab (sign in again)",
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
            T::TooLarge { endpoint, limit } => write!(
                f,
                "GitLab's answer from {endpoint} exceeded {} MiB; this is not a GitLab GraphQL answer this server can use.",
                limit / 1_048_576
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
                storage_no_answer(f, what, shown, why)
            }
            // `fmt` calls this for the three variants above only.
            _ => Ok(()),
        }
    }
}

/// `what` is the whole object named (`the LFS object <sha256> of '<path>' at '<ref>'`), so
/// every sentence names the storage, then `what`, and never "the LFS object of" it again.
fn storage_no_answer(
    f: &mut Formatter<'_>,
    what: &str,
    shown: &str,
    why: &NoAnswer,
) -> fmt::Result {
    let storage = format!("The object storage GitLab sent {what} to ({shown})");
    match why {
        NoAnswer::Timeout { cause } => write!(
            f,
            "{storage} did not send it in time ({}). The storage, not GitLab, is slow: try again; if it keeps happening, raise GITLAB_REQUEST_TIMEOUT.",
            chain(cause)
        ),
        NoAnswer::Connect { cause } => write!(
            f,
            "{storage} could not be reached ({}): this machine must reach the storage as well as GitLab (a proxy or firewall may stand between); try again later.",
            chain(cause)
        ),
        NoAnswer::Reset { retries } => write!(
            f,
            "{storage} closed the connection before sending it, and still did after {retries} retries; try again later."
        ),
        NoAnswer::Failed { cause } => write!(
            f,
            "{storage} did not send it whole ({}); try again later.",
            chain(cause)
        ),
    }
}

fn storage_redirect(
    f: &mut Formatter<'_>,
    what: &str,
    why: &super::storage::Unfollowed,
) -> fmt::Result {
    write!(
        f,
        "GitLab sent {what} to object storage, but {why}; the object was not downloaded. Ask the instance's administrator to serve LFS over https (or set `proxy_download: true`)."
    )
}

fn storage_status(f: &mut Formatter<'_>, status: u16, what: &str, shown: &str) -> fmt::Result {
    match status {
        403 => write!(
            f,
            "The object storage GitLab sent {what} to ({shown}) refused the download (HTTP 403): its pre-signed link has probably expired, or the storage's clock or policy rejects it. Call again: GitLab signs a fresh link each time."
        ),
        404 => write!(
            f,
            "The object storage GitLab sent {what} to ({shown}) has no such object (HTTP 404): it was never uploaded or was removed; `git lfs push --all` from a clone that has it restores it."
        ),
        _ if (300..400).contains(&status) => write!(
            f,
            "The object storage GitLab sent {what} to ({shown}) redirected again (HTTP {status}); only one redirect is followed."
        ),
        _ => write!(
            f,
            "The object storage GitLab sent {what} to ({shown}) answered HTTP {status}; try again later."
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
                what: "the LFS object abc of 'a.bin' at 'main'".into(),
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
        assert_eq!(
            storage(500),
            "The object storage GitLab sent the LFS object abc of 'a.bin' at 'main' to (https://s3.example/o) answered HTTP 500; try again later."
        );
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

    /// Whatever stops the download, the sentence names the object storage, not GitLab.
    #[test]
    fn a_storage_that_does_not_answer_is_named_whatever_the_failure() {
        let no_answer = |why| {
            TransportError::StorageNoAnswer {
                what: "the LFS object abc of 'a.bin' at 'main'".into(),
                shown: "https://s3.example/o".into(),
                why,
            }
            .to_string()
        };
        let reset = no_answer(NoAnswer::Reset { retries: 2 });
        assert_eq!(
            reset,
            "The object storage GitLab sent the LFS object abc of 'a.bin' at 'main' to (https://s3.example/o) closed the connection before sending it, and still did after 2 retries; try again later."
        );
        assert!(!reset.contains("GitLab at"), "{reset}");
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
}
