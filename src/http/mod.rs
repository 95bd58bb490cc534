//! MCP over streamable HTTP, for one server shared by many users: the life of the process
//! (bind, serve, drain on SIGTERM/SIGINT); the parts each have a module, in floors: the app and
//! its routes ([`app`], [`flags`], [`left`], [`listen`], [`scrape`]) above the [`door`] (who
//! the caller is), above [`sessions`], above the checks before the tool and their refusals
//! ([`guard`]), above every sentence ([`wording`]).
//!
//! A request to `/mcp` passes these checks, the cheapest refusal first:
//! 1. [`guard::gate::admit`]: an `Origin` header must be the server's own address or an
//!    `--allowed-origin` ([`guard::origin`]), or 403; one well-formed `Host` or 400, an allowed one
//!    ([`guard::host`]) or 403; a declared body over the limit is 413 before it is read.
//! 2. [`door::identify`], the door's first half: the caller's credential as the serving mode
//!    asks for it (a request's own GitLab token with `--token-from-request` ([`guard::token`]),
//!    a live access token of this server with `--oauth`) goes into the request's extensions for
//!    the tool, or 401 with `WWW-Authenticate` (and, to a `POST`, a JSON-RPC error saying which
//!    headers carry it), before any GitLab request. Any path not served is then a 404 saying
//!    there is no OAuth (`app::no_oauth`), which is what clients that take the 401 for OAuth
//!    show.
//! 3. [`sessions::session::bind`] (sessions with `--token-from-request`): a request naming a
//!    session must carry the token that opened it, or 404 as for an unknown session.
//! 4. [`guard::body::receive`]: the whole body within `--body-timeout-secs` (408) and
//!    `--max-body-bytes` (413); bad framing is 400; a JSON body that is no JSON-RPC message is
//!    400 with a JSON-RPC error.
//! 5. [`guard::capacity::limit_concurrency`]: a free slot or 503 with `Retry-After`, never a queue;
//!    only now, so a stalled upload holds no slot. The slot is held until the response body is
//!    sent, and shutdown waits for all slots to come back.
//! 6. [`guard::capacity::deadline`]: 504 when no response has started in time (stateless); in
//!    session mode the tool's own time limit answers with a tool error.
//! 7. [`door::admit`], the door's second half: with `--oauth`, every `POST` with a signed-in
//!    token is vouched for (GitLab's remembered verdict on the token inside, or one
//!    `currentUser` request), else 401 `invalid_token`; and when GitLab refuses the token during
//!    the call (the credential's [`crate::config::RefusalNote`]), that request is answered 401
//!    too, an SSE answer read to its end first. In session mode, an `initialize` naming no
//!    session with a caller's own token opens one only for a token GitLab accepts (one
//!    `currentUser` request, remembered per fingerprint a short time: [`door::verdicts`]), else
//!    the 401 of check 2, or 502 when GitLab cannot be asked.
//! 8. [`sessions::session_open::admit`] (session mode, that `initialize`): a free session slot
//!    ([`sessions::session_slots`]: `--max-sessions-per-token`, `--max-sessions`) or 503 with
//!    `Retry-After`. A session's end (`DELETE`, `--session-idle-secs`) frees its slot
//!    ([`sessions::counted_sessions`]).
//! 9. [`left::watch`]: a `POST` carries a token the call it holds ends on (its work stopped)
//!    when the client leaves before the answer is sent whole.
//!
//! rmcp then checks `Host` again, `Accept` (406) and `Content-Type` (415). Headers have a read
//! deadline and idle connections are closed ([`listen`]). Every sentence is in [`wording`].
//!
//! `GET /metrics` ([`scrape`]) passes check 1 and nothing else (no token); with
//! `--metrics-addr` it is served on a listener of its own instead. Each refusal above is
//! counted where it is told, [`guard::refusal::Refusal`] (`crate::metrics`).
//!
//! Whose token: rmcp hands each request's own HTTP parts to the handler, so a call reads with the
//! token of the request that carries it, never with the one that opened the session, and a session
//! answers only the token that opened it ([`sessions::session`]); of a token, only that session's
//! keyed fingerprint is kept between requests.
//!
//! Shutdown: no new connections; in-flight calls get `--drain-timeout-secs` to finish; calls
//! still running then are answered that the server is shutting down (a tool error, never a
//! bare 500); then sessions and streams end and connections close.

mod app;
mod door;
mod flags;
mod guard;
mod left;
mod listen;
mod scrape;
mod sessions;
mod wording;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_util::sync::CancellationToken;

use self::app::Controls;
pub(crate) use self::flags::{DEFAULT_ADDR, HttpArgs};
pub(crate) use self::wording::call_timed_out;
pub(crate) use self::wording::start::StartError;
use crate::auth::Oauth;
use crate::config::Credential;
use crate::reader::Reader;

/// How long calls cut off at the drain deadline have to send their answer.
const ANSWER_GRACE: Duration = Duration::from_secs(5);
/// How long the server may take to close its connections once the calls have drained.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Serves until SIGTERM/SIGINT, then drains in-flight calls (bounded by
/// `--drain-timeout-secs`) and returns `Ok`. `Err` is a startup failure, worded for the user.
pub(crate) async fn serve(
    args: HttpArgs,
    reader: Reader,
    configured: Option<Credential>,
    oauth: Option<Arc<Oauth>>,
) -> Result<(), StartError> {
    args.check()?;
    // Before listening, so that a signal can never kill the process with calls in flight.
    let mut stop = StopSignal::install()?;
    let (listener, local) = bind(&args).await?;
    if !args.no_metrics {
        crate::metrics::install();
    }
    let stop_accepting = CancellationToken::new();
    scrape::serve_apart(&args, stop_accepting.clone()).await?;
    announce(&args, local, configured.is_some());
    let controls = Controls::new(args.slots());
    let app = app::router(&args, local, reader, configured, &controls, oauth);
    let mut accepting = tokio::spawn(listen::accept_until(
        listener,
        app,
        args.header_timeout(),
        stop_accepting.clone(),
    ));
    tokio::select! {
        ended = &mut accepting => {
            return Err(StartError::StoppedUnexpectedly { cause: ended.err() });
        }
        () = stop.received() => {}
    }
    tracing::info!("{}", wording::LOG_SHUTDOWN);
    stop_accepting.cancel();
    let connections = accepting
        .await
        .map_err(|e| StartError::StoppedUnexpectedly { cause: Some(e) })?;
    // Idle connections close now, busy ones once their response is sent.
    let closed = tokio::spawn(connections.shutdown());
    drain(&controls, args.slots(), args.drain_timeout()).await;
    match tokio::time::timeout(CLOSE_GRACE, closed).await {
        Ok(_) => tracing::info!("{}", wording::LOG_STOPPED),
        Err(_) => tracing::warn!("{}", wording::LOG_CONNECTIONS_LEFT_OPEN),
    }
    Ok(())
}

async fn bind(args: &HttpArgs) -> Result<(tokio::net::TcpListener, SocketAddr), StartError> {
    listen::bind(args.http.as_deref().unwrap_or(DEFAULT_ADDR)).await
}

/// Prints the bound address and warns about exposure.
fn announce(args: &HttpArgs, local: SocketAddr, has_configured_token: bool) {
    for warning in flags::exposure_warnings(args, local, has_configured_token) {
        tracing::warn!("{warning}");
    }
    if args.per_caller_tokens() && has_configured_token {
        tracing::info!("{}", wording::CONFIGURED_TOKEN_UNUSED);
    }
    // The one line scripts and tests wait for; printed whatever the log level.
    eprintln!("{}", wording::listening(local));
    tracing::info!(
        %local,
        stateless = args.stateless,
        token_from_request = args.token_from_request,
        oauth = args.oauth.oauth,
        "{}",
        wording::LOG_SERVING
    );
}

/// Waits for the calls in flight, at most `limit`; answers those still running that the
/// server is shutting down and gives them [`ANSWER_GRACE`] to send it; then ends rmcp's
/// sessions and streams. Once all slots are back they are kept, so nothing new starts: what
/// still arrives gets 503.
async fn drain(controls: &Controls, total: usize, limit: Duration) {
    let mut all_back = all_slots_back(&controls.slots, total, limit).await;
    if all_back.is_some() {
        tracing::info!("{}", wording::LOG_DRAINED);
    } else {
        let running = total.saturating_sub(controls.slots.available_permits());
        tracing::warn!(running, "{}", wording::LOG_DRAIN_TIMED_OUT);
        controls.calls_stop.cancel();
        all_back = all_slots_back(&controls.slots, total, ANSWER_GRACE).await;
        if all_back.is_none() {
            let abandoned = total.saturating_sub(controls.slots.available_permits());
            tracing::warn!(abandoned, "{}", wording::LOG_ABANDONED);
        }
    }
    controls.slots.close();
    controls.rmcp_stop.cancel();
    drop(all_back);
}

/// Every slot (no call in flight), if they all come back within `limit`.
async fn all_slots_back(
    slots: &Semaphore,
    total: usize,
    limit: Duration,
) -> Option<SemaphorePermit<'_>> {
    let all = u32::try_from(total).unwrap_or(u32::MAX);
    tokio::time::timeout(limit, slots.acquire_many(all))
        .await
        .ok()?
        .ok()
}

/// SIGTERM and SIGINT, registered as soon as this is built.
#[cfg(unix)]
struct StopSignal {
    term: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl StopSignal {
    fn install() -> Result<Self, StartError> {
        use tokio::signal::unix::{SignalKind, signal};
        let register = |kind: SignalKind, signal_name: &'static str| {
            signal(kind).map_err(|cause| StartError::CannotListenFor {
                signal: signal_name,
                cause,
            })
        };
        Ok(Self {
            term: register(SignalKind::terminate(), "SIGTERM")?,
            interrupt: register(SignalKind::interrupt(), "SIGINT")?,
        })
    }

    async fn received(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.interrupt.recv() => {}
        }
    }
}

/// Ctrl-C where there are no Unix signals.
#[cfg(not(unix))]
struct StopSignal;

#[cfg(not(unix))]
impl StopSignal {
    fn install() -> Result<Self, StartError> {
        Ok(Self)
    }

    async fn received(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}
