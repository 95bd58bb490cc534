//! The `serve --http` flags, their defaults, and what is checked about them at startup.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

use super::guard::origin;
use super::sessions::session_open::SessionSettings;
use super::sessions::session_slots::Caps;
use super::wording;
use super::wording::start::StartError;

/// Where `--http` listens when given without an address.
pub(crate) const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Default `--max-body-bytes`: 1 MiB, far above any tool call.
pub(crate) const DEFAULT_MAX_BODY_BYTES: u64 = 1024 * 1024;
/// Default `--max-concurrent`.
pub(crate) const DEFAULT_MAX_CONCURRENT: u32 = 64;
/// Default `--request-timeout-secs`: room for GitLab's own timeout plus a retry.
pub(crate) const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 60;
/// Default `--drain-timeout-secs`: under the 30 s a container orchestrator usually grants.
pub(crate) const DEFAULT_DRAIN_TIMEOUT_SECS: u64 = 25;
/// Default `--header-timeout-secs`: hyper's own default; also how long a connection may idle.
pub(crate) const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 30;
/// Default `--body-timeout-secs`: a 1 MiB body at 35 KB/s; a tool call is a few hundred bytes.
pub(crate) const DEFAULT_BODY_TIMEOUT_SECS: u64 = 30;
/// Default `--max-sessions`.
pub(crate) const DEFAULT_MAX_SESSIONS: u32 = 10_000;
/// Default `--max-sessions-per-token`.
pub(crate) const DEFAULT_MAX_SESSIONS_PER_TOKEN: u32 = 64;
/// Default `--session-idle-secs`: rmcp's own keep-alive.
pub(crate) const DEFAULT_SESSION_IDLE_SECS: u64 = 300;
/// Hosts always accepted in the `Host` header.
pub(crate) const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Flags of `serve` that concern HTTP.
#[derive(Debug, Clone, Args)]
pub(crate) struct HttpArgs {
    /// Serve MCP over streamable HTTP on this address (MCP at /mcp, health at /healthz).
    /// Port 0 picks a free port; the bound address is printed on stderr.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_ADDR)]
    pub http: Option<String>,

    /// Keep no session: each POST gets one JSON response, so replicas can sit behind any load
    /// balancer. Default: MCP sessions, held in this process's memory.
    #[arg(long, requires = "http")]
    pub stateless: bool,

    /// Read with each caller's own GitLab token (`Authorization: Bearer <token>` or
    /// `PRIVATE-TOKEN: <token>` on every request; 401 without one) instead of the server's.
    #[arg(long, requires = "http")]
    pub token_from_request: bool,

    /// Acknowledge that every caller reads with the server's own token when listening on a
    /// non-loopback address (silences the warning).
    #[arg(long, requires = "http", conflicts_with = "token_from_request")]
    pub allow_shared_token: bool,

    /// A host name (or host:port) clients use to reach this server, accepted in the Host
    /// header besides localhost, 127.0.0.1 and ::1 (others get 403). Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]", requires = "http")]
    pub allowed_hosts: Vec<String>,

    /// A browser origin (scheme://host[:port]) allowed to call this server, besides the
    /// server's own address; a request with any other Origin header gets 403. Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub allowed_origins: Vec<String>,

    /// Largest request body accepted (413 above it).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_body_bytes: u64,

    /// Requests served at once, counted from when a request's body has arrived; more are
    /// answered 503 with Retry-After, not queued.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONCURRENT, requires = "http",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_concurrent: u32,

    /// Seconds a client has to send a request's headers, counted from when the connection
    /// opens or its previous response was sent; an idle connection is closed after it.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_HEADER_TIMEOUT_SECS, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,

    /// Seconds a client has to send a request's body once its headers arrived (408 after).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_BODY_TIMEOUT_SECS, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_secs: u64,

    /// Seconds one MCP request may take: over HTTP 504, or a tool error in session mode; over
    /// stdio a tool error. The call's work stops with it. Each GitLab request inside it is
    /// bounded by --request-timeout.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_REQUEST_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_secs: u64,

    /// Seconds to let in-flight calls finish after SIGTERM/SIGINT; calls still running then
    /// are answered that the server is shutting down.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_DRAIN_TIMEOUT_SECS, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub drain_timeout_secs: u64,

    /// MCP sessions held at once (session mode); an `initialize` past it is answered 503 with
    /// Retry-After until a session ends.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS, requires = "http",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_sessions: u32,

    /// MCP sessions one caller token may hold at once (with --token-from-request); an
    /// `initialize` past it is answered 503 with Retry-After until one of them ends.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS_PER_TOKEN, requires = "http",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_sessions_per_token: u32,

    /// Seconds an MCP session may go without a request before it is closed and its slot
    /// freed.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_SESSION_IDLE_SECS, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub session_idle_secs: u64,

    /// Serve Prometheus metrics at /metrics on this address (e.g. a pod-internal port)
    /// instead of on the --http listener. It checks Origin but not Host, so a scraper may
    /// address it by IP.
    #[arg(
        long,
        value_name = "ADDR",
        requires = "http",
        conflicts_with = "no_metrics"
    )]
    pub metrics_addr: Option<String>,

    /// No /metrics and no instrumentation at all.
    #[arg(long, requires = "http")]
    pub no_metrics: bool,

    #[command(flatten)]
    pub oauth: crate::auth::OauthArgs,
}

impl Default for HttpArgs {
    fn default() -> Self {
        Self {
            http: None,
            stateless: false,
            token_from_request: false,
            allow_shared_token: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            header_timeout_secs: DEFAULT_HEADER_TIMEOUT_SECS,
            body_timeout_secs: DEFAULT_BODY_TIMEOUT_SECS,
            request_timeout_secs: DEFAULT_REQUEST_TIMEOUT_SECS,
            drain_timeout_secs: DEFAULT_DRAIN_TIMEOUT_SECS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_token: DEFAULT_MAX_SESSIONS_PER_TOKEN,
            session_idle_secs: DEFAULT_SESSION_IDLE_SECS,
            metrics_addr: None,
            no_metrics: false,
            oauth: crate::auth::OauthArgs::default(),
        }
    }
}

impl HttpArgs {
    /// The body limit as a `usize` (saturating on 32-bit targets).
    pub(crate) fn max_body(&self) -> usize {
        usize::try_from(self.max_body_bytes).unwrap_or(usize::MAX)
    }

    /// The concurrency limit; `u32` always fits a `usize` on the targets we build for.
    pub(crate) fn slots(&self) -> usize {
        usize::try_from(self.max_concurrent)
            .unwrap_or(usize::MAX)
            .max(1)
    }

    pub(crate) fn header_timeout(&self) -> Duration {
        seconds(self.header_timeout_secs)
    }

    pub(crate) fn body_timeout(&self) -> Duration {
        seconds(self.body_timeout_secs)
    }

    pub(crate) fn request_timeout(&self) -> Duration {
        seconds(self.request_timeout_secs)
    }

    pub(crate) fn drain_timeout(&self) -> Duration {
        seconds(self.drain_timeout_secs)
    }

    /// Whether each caller reads with a token of its own (`--token-from-request`, `--oauth`).
    pub(crate) fn per_caller_tokens(&self) -> bool {
        self.token_from_request || self.oauth.oauth
    }

    /// What the flags say of sessions.
    pub(crate) fn sessions(&self) -> SessionSettings {
        SessionSettings {
            sessions_on: !self.stateless,
            caps: Caps {
                per_token: self.max_sessions_per_token,
                total: self.max_sessions,
            },
            idle: seconds(self.session_idle_secs),
        }
    }

    /// Whether `/metrics` is served on the `--http` listener (not off, not apart).
    pub(crate) fn metrics_on_main_listener(&self) -> bool {
        !self.no_metrics && self.metrics_addr.is_none()
    }

    /// Loopback names plus `--allowed-host`, lower-cased.
    pub(crate) fn host_allow_list(&self) -> Vec<String> {
        LOOPBACK_HOSTS
            .iter()
            .map(|h| (*h).to_string())
            .chain(
                self.allowed_hosts
                    .iter()
                    .map(|h| h.trim().to_ascii_lowercase()),
            )
            .filter(|h| !h.is_empty())
            .collect()
    }

    /// Rejects entries that would refuse every client, so a typo fails at startup.
    pub(crate) fn check(&self) -> Result<(), StartError> {
        check_allowed_hosts(&self.allowed_hosts)?;
        for entry in &self.allowed_origins {
            origin::parse_allowed(entry).ok_or_else(|| StartError::BadAllowedOrigin {
                entry: entry.clone(),
            })?;
        }
        Ok(())
    }
}

fn seconds(secs: u64) -> Duration {
    Duration::from_secs(secs.max(1))
}

/// Each `--allowed-host` must be a host name or `host:port` as a `Host` header carries it.
fn check_allowed_hosts(entries: &[String]) -> Result<(), StartError> {
    for entry in entries {
        let parsed = http::uri::Authority::try_from(entry.trim()).ok();
        if parsed.is_none_or(|a| a.host().is_empty() || a.as_str().contains('@')) {
            return Err(StartError::BadAllowedHost {
                entry: entry.clone(),
            });
        }
    }
    Ok(())
}

/// What an operator should hear about how exposed this server is, given where it listens and
/// whether a GitLab token is configured (without one, every caller reads as anonymous: public
/// projects only, so there is no token to share).
pub(crate) fn exposure_warnings(
    args: &HttpArgs,
    local: SocketAddr,
    has_configured_token: bool,
) -> Vec<String> {
    if local.ip().is_loopback() {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    if has_configured_token && !args.per_caller_tokens() && !args.allow_shared_token {
        warnings.push(wording::shared_token_exposed(local));
    }
    if args.allowed_hosts.is_empty() {
        warnings.push(wording::only_loopback_hosts(local));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposure_warnings_only_off_loopback() {
        let args = HttpArgs::default();
        let warn = |args: &HttpArgs, addr: &str, token: bool| {
            exposure_warnings(args, addr.parse().unwrap(), token)
        };
        assert!(warn(&args, "127.0.0.1:8080", true).is_empty());
        assert!(warn(&args, "[::1]:8080", true).is_empty());
        let w = warn(&args, "0.0.0.0:8080", true);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("--token-from-request") && w[1].contains("--allowed-host"));
        // No token configured: callers read as anonymous, there is no token to share.
        let w = warn(&args, "0.0.0.0:8080", false);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("--allowed-host"));
        let per_user = HttpArgs {
            token_from_request: true,
            allowed_hosts: vec!["mcp.example.com".into()],
            ..HttpArgs::default()
        };
        assert!(warn(&per_user, "10.0.0.5:8080", true).is_empty());
        let shared = HttpArgs {
            allow_shared_token: true,
            token_from_request: false,
            ..per_user
        };
        assert!(warn(&shared, "10.0.0.5:8080", true).is_empty());
    }

    #[test]
    fn allowed_host_typos_fail_at_startup() {
        let ok = |v: &[&str]| {
            check_allowed_hosts(&v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>())
        };
        assert!(
            ok(&[
                "mcp.example.com",
                "mcp.example.com:8443",
                "10.0.0.5",
                "[::1]:8080"
            ])
            .is_ok()
        );
        for bad in [
            "https://mcp.example.com",
            "mcp.example.com/mcp",
            "",
            "user@host",
            ":8080",
        ] {
            assert!(ok(&[bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn allowed_origin_typos_fail_at_startup() {
        let check = |origin: &str| {
            HttpArgs {
                allowed_origins: vec![origin.to_string()],
                ..HttpArgs::default()
            }
            .check()
        };
        for good in [
            "https://app.example.com",
            "http://localhost:3000",
            "https://app.example.com/",
        ] {
            assert!(check(good).is_ok(), "{good}");
        }
        for bad in [
            "null",
            "app.example.com",
            "ftp://app.example.com",
            "https://app.example.com/path",
            "https://user@app.example.com",
            "",
        ] {
            let error = check(bad).expect_err(bad).to_string();
            assert!(error.contains("--allowed-origin"), "{error}");
        }
    }
}
