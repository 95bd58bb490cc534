//! Accepting connections and serving HTTP/1.1 on them with hyper, which bounds how long a
//! client may take to send a request's headers and how long a kept-alive connection may idle
//! (one timer: it runs from when the connection opens or its last response was sent).
//! `axum::serve` offers neither, hence this loop. Binding the listener is here too.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::wording;
use super::wording::start::StartError;

/// How long to wait after an accept error that is not about one connection (e.g. out of file
/// descriptors), so the loop does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// A listener on `addr`, and the address it is bound to (port 0 picks one).
pub(crate) async fn bind(addr: &str) -> Result<(tokio::net::TcpListener, SocketAddr), StartError> {
    let listener =
        tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|cause| StartError::CannotListen {
                addr: addr.to_string(),
                cause,
            })?;
    let local = listener
        .local_addr()
        .map_err(|cause| StartError::CannotReadBoundAddress {
            addr: addr.to_string(),
            cause,
        })?;
    Ok((listener, local))
}

/// Serves `app` on every connection `listener` accepts until `stop` fires; returns the open
/// connections, to be closed gracefully (each after the response it is sending, if any).
pub(crate) async fn accept_until(
    listener: TcpListener,
    app: Router,
    header_timeout: Duration,
    stop: CancellationToken,
) -> GracefulShutdown {
    let connections = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        match accepted {
            Ok((stream, peer)) => serve_connection(&http, &connections, stream, peer, app.clone()),
            Err(e) if is_about_one_connection(&e) => {}
            Err(e) => {
                tracing::error!(error = %e, "{}", wording::LOG_ACCEPT_FAILED);
                tokio::time::sleep(ACCEPT_PAUSE).await;
            }
        }
    }
    connections
}

fn serve_connection(
    http: &http1::Builder,
    connections: &GracefulShutdown,
    stream: TcpStream,
    peer: std::net::SocketAddr,
    app: Router,
) {
    // Answers are small and written whole; do not let Nagle hold them back.
    let _ = stream.set_nodelay(true);
    // The peer's address, for what counts per address (`--oauth`'s registrations).
    let app = tower::ServiceExt::map_request(app, move |mut request: http::Request<_>| {
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
        request
    });
    let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
    let watched = connections.watch(connection);
    let open = crate::metrics::connection_open();
    tokio::spawn(async move {
        let _open = open;
        if let Err(e) = watched.await {
            tracing::debug!(error = %e, "{}", wording::LOG_CONNECTION_ENDED);
        }
    });
}

/// Errors that end one connection before it was handed over; the next accept can succeed.
fn is_about_one_connection(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}
