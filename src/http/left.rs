//! The client leaving a request: every POST to `/mcp` carries a [`ClientLeft`] token in its
//! extensions, and the call it carries ends when the token fires, as on
//! `notifications/cancelled` (its GitLab request and its CPU work stopped). It fires when the
//! request's handling is dropped before its answer (the connection closed while rmcp waited
//! for the call: stateless mode) or when the answer's body is dropped before its end (the
//! connection closed mid-stream: session mode, where rmcp keeps the call running for a client
//! that would resume the stream, which none of this server's clients does). A body read to its
//! end fires nothing.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use http::Method;
use http_body::{Frame, SizeHint};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::tool::ClientLeft;

/// Gives a POST its [`ClientLeft`] token, fired unless its answer is sent whole.
pub(crate) async fn watch(mut request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let left = CancellationToken::new();
    request.extensions_mut().insert(ClientLeft(left.clone()));
    // Dropped with this future (the client left before the answer), it fires the token.
    let guard = left.drop_guard();
    let response = next.run(request).await;
    response.map(|inner| {
        Body::new(Watched {
            inner,
            guard: Some(guard),
        })
    })
}

/// An answer's body that fires its request's [`ClientLeft`] when dropped before its end.
struct Watched {
    inner: Body,
    /// Disarmed at the body's end.
    guard: Option<DropGuard>,
}

impl Watched {
    /// The body was sent whole: the client did not leave.
    fn ended(&mut self) {
        if let Some(guard) = self.guard.take() {
            guard.disarm();
        }
    }
}

impl http_body::Body for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.ended();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
