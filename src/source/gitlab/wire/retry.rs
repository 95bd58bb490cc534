//! Whether a failed request to GitLab is tried again, and after how long: 429 and 5xx answers
//! and connections GitLab reset are retried at most [`MAX_RETRIES`] times, after GitLab's
//! `Retry-After` or a doubling backoff. Pure but for reading the error's sources.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderValue, RETRY_AFTER};

use super::transport_error::{NoAnswer, TransportError};

/// How many times a 429 or 5xx answer is retried before giving up.
pub(crate) const MAX_RETRIES: u32 = 2;
/// Longest `Retry-After` we are willing to sleep through inside one tool call.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(20);
/// First backoff when GitLab gives no `Retry-After`; doubled each retry.
pub(crate) const BASE_BACKOFF: Duration = Duration::from_millis(250);
/// What to do with an answer's status.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Retry {
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
pub(super) fn retry_decision(
    status: StatusCode,
    headers: &reqwest::header::HeaderMap,
    attempt: u32,
) -> Retry {
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
pub(super) fn reset_decision(instance: &str, attempt: u32) -> Retry {
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
pub(super) fn is_reset(e: &reqwest::Error) -> bool {
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

pub(super) fn header_text(value: Option<&HeaderValue>) -> Option<&str> {
    value.and_then(|v| v.to_str().ok())
}

/// `Retry-After` as a number of seconds (`"3"`); an HTTP date or garbage gives `None`.
fn retry_after(value: Option<&HeaderValue>) -> Option<Duration> {
    let secs: u64 = header_text(value)?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

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
