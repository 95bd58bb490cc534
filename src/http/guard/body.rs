//! Check 3: a POST's body is received whole, under a deadline and the size limit, before the
//! request may take a concurrency slot, so a client that stalls mid-body holds a connection
//! but no capacity. A JSON body that is not a JSON-RPC message is answered here with the
//! JSON-RPC error rmcp would not give (400, see [`crate::tool::jsonrpc`]).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Method, header};
use http_body_util::BodyExt;

use super::admission::Admission;
use super::refusal::Refusal;
use crate::tool::jsonrpc;

/// Why a body could not be received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum Unreceived {
    /// More than the limit (413).
    #[error("the body is larger than the limit")]
    TooLarge,
    /// Malformed framing (a bad chunk size) or a broken connection (400).
    #[error("the body could not be read")]
    Unreadable,
}

pub(crate) async fn receive(
    State(a): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(a.body_timeout, collect(body, a.max_body)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(Unreceived::TooLarge)) => {
            return Refusal::TooLarge { limit: a.max_body }.into_response();
        }
        Ok(Err(Unreceived::Unreadable)) => return Refusal::BodyUnreadable.into_response(),
        Err(_) => {
            let limit = a.body_timeout;
            return Refusal::BodyTimedOut { limit }.into_response();
        }
    };
    // rmcp answers a body of another type 415 before reading it; leave that to it.
    if is_json(&parts.headers)
        && let Err(rejection) = jsonrpc::parse_message(&bytes)
    {
        return Refusal::NotJsonRpc(rejection).into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The whole body, at most `limit` bytes.
async fn collect(mut body: Body, limit: usize) -> Result<Bytes, Unreceived> {
    let mut collected = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| Unreceived::Unreadable)?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if data.len() > limit.saturating_sub(collected.len()) {
            return Err(Unreceived::TooLarge);
        }
        collected.extend_from_slice(&data);
    }
    Ok(Bytes::from(collected))
}

/// `Content-Type: application/json` (any parameters), the type rmcp parses.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body arriving in the given frames.
    struct Frames(std::collections::VecDeque<&'static [u8]>);

    impl http_body::Body for Frames {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
            let next = self.0.pop_front();
            std::task::Poll::Ready(next.map(|p| Ok(http_body::Frame::data(Bytes::from_static(p)))))
        }
    }

    fn chunks(parts: &[&'static [u8]]) -> Body {
        Body::new(Frames(parts.iter().copied().collect()))
    }

    #[tokio::test]
    async fn bodies_are_collected_within_the_limit() {
        let body = collect(chunks(&[b"12345", b"678"]), 8).await.unwrap();
        assert_eq!(&body[..], b"12345678");
        assert_eq!(
            collect(chunks(&[b"12345", b"6789"]), 8).await,
            Err(Unreceived::TooLarge)
        );
        assert_eq!(collect(Body::empty(), 8).await.unwrap().len(), 0);
    }

    #[test]
    fn json_content_types() {
        let typed = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, v.parse().unwrap());
            is_json(&h)
        };
        assert!(typed("application/json"));
        assert!(typed("Application/JSON; charset=utf-8"));
        assert!(!typed("text/plain"));
        assert!(!typed("application/json-seq"));
        assert!(!is_json(&HeaderMap::new()));
    }
}
