//! Checks 4 and 5, for requests already received whole: [`limit_concurrency`] (a free slot or
//! 503, never a queue) and [`deadline`] (504 when no response has started in time).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::Method;
use tokio::sync::OwnedSemaphorePermit;

use super::admission::Admission;
use super::refusal::Refusal;

/// Check 4: a free slot or 503 with `Retry-After`. The slot travels with the response body so
/// it is held until the answer has been sent (SSE answers stream after the handler returns).
/// Standalone SSE streams (GET) hold no slot: they idle for a session's whole life.
pub(crate) async fn limit_concurrency(
    State(a): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::GET {
        return next.run(request).await;
    }
    let Ok(slot) = Arc::clone(&a.slots).try_acquire_owned() else {
        return Refusal::Busy.into_response();
    };
    next.run(request)
        .await
        .map(|body| Body::new(SlotHeldUntilSent { body, _slot: slot }))
}

/// Check 5: 504 when no response has started within `--request-timeout-secs`. Dropping the
/// inner future cancels the call (and its GitLab request). In session mode the 200 of the SSE
/// answer goes out first, so the tool's own time limit answers there instead.
pub(crate) async fn deadline(
    State(a): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::GET {
        return next.run(request).await;
    }
    match tokio::time::timeout(a.request_timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => Refusal::GatewayTimeout {
            limit: a.request_timeout,
        }
        .into_response(),
    }
}

/// A response body that holds a concurrency slot until it is sent or dropped.
struct SlotHeldUntilSent {
    body: Body,
    _slot: OwnedSemaphorePermit,
}

impl http_body::Body for SlotHeldUntilSent {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
