//! Which browser origins may call `/mcp`. MCP 2025-11-25 says servers MUST validate `Origin`
//! and answer an invalid one 403 (DNS rebinding, cross-site requests). Pure.
//!
//! A request without `Origin` is not from a browser page and is served. One with `Origin` is
//! served when that origin is:
//! - the server's own address as the request reached it: the same host and port as its
//!   `Host` header (which must itself be allowed), over http or https (behind a TLS proxy);
//! - a loopback name (`localhost`, `127.0.0.1`, `[::1]`) at the port the server listens on;
//! - an `--allowed-origin`.
//!
//! Anything else is refused: other sites, other local ports, `Origin: null` (sandboxed
//! frames, `file:` pages), a malformed value, or more than one `Origin` header.

use http::{HeaderMap, header};
use url::{Origin, Url};

use super::host::RequestHost;

const LOOPBACK_AUTHORITIES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];
const SCHEMES: [&str; 2] = ["http", "https"];

/// The origins allowed whatever the request's `Host`.
#[derive(Debug, Clone)]
pub(crate) struct OriginPolicy {
    allowed: Vec<Origin>,
}

impl OriginPolicy {
    /// `--allowed-origin` entries (checked at startup; one that does not parse allows nothing)
    /// and the loopback names at `own_port`.
    pub(crate) fn new(allowed_origins: &[String], own_port: u16) -> Self {
        let loopback = SCHEMES.iter().flat_map(|scheme| {
            LOOPBACK_AUTHORITIES
                .iter()
                .map(move |host| format!("{scheme}://{host}:{own_port}"))
        });
        let allowed = allowed_origins
            .iter()
            .cloned()
            .chain(loopback)
            .filter_map(|entry| parse_allowed(&entry))
            .collect();
        Self { allowed }
    }

    /// Whether a request with these headers may be served; `host` is its `Host` if usable.
    pub(crate) fn admits(&self, headers: &HeaderMap, host: Option<&RequestHost>) -> bool {
        let mut values = headers.get_all(header::ORIGIN).iter();
        let value = match (values.next(), values.next()) {
            (None, _) => return true,
            (Some(value), None) => value,
            (Some(_), Some(_)) => return false,
        };
        let Some(origin) = value.to_str().ok().and_then(parse_allowed) else {
            return false;
        };
        self.allowed.contains(&origin) || host.is_some_and(|h| same_origin(&origin, h))
    }
}

/// An origin as `scheme://host[:port]` (a trailing `/` is tolerated), http or https only.
/// `null` and anything with a path, query, fragment or user name is not one.
pub(crate) fn parse_allowed(text: &str) -> Option<Origin> {
    let text = text.trim();
    let url = Url::parse(text).ok()?;
    let plain = url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
        && url.host().is_some();
    (SCHEMES.contains(&url.scheme()) && plain).then(|| url.origin())
}

/// Whether `origin` is the address the request was sent to (its `Host`), in either scheme.
fn same_origin(origin: &Origin, host: &RequestHost) -> bool {
    let Origin::Tuple(scheme, _, _) = origin else {
        return false;
    };
    parse_allowed(&format!("{scheme}://{}", host.authority)).is_some_and(|own| &own == origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::guard::host::request_host;

    fn headers(host: &str, origins: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, host.parse().unwrap());
        for origin in origins {
            headers.append(header::ORIGIN, origin.parse().unwrap());
        }
        headers
    }

    fn admits(policy: &OriginPolicy, host: &str, origins: &[&str]) -> bool {
        let headers = headers(host, origins);
        let host = request_host(&headers, &http::Uri::from_static("/mcp")).ok();
        policy.admits(&headers, host.as_ref())
    }

    #[test]
    fn no_origin_is_served_and_foreign_or_null_origins_are_not() {
        let policy = OriginPolicy::new(&[], 8080);
        assert!(admits(&policy, "127.0.0.1:8080", &[]));
        for refused in [
            "http://evil.example",
            "null",
            "http://127.0.0.1:8080.evil.example",
            "file://",
            "not an origin",
            "http://localhost:3000",
            "http://127.0.0.1:8080/path",
        ] {
            assert!(!admits(&policy, "127.0.0.1:8080", &[refused]), "{refused}");
        }
        // Two Origin headers, even if one is fine.
        assert!(!admits(
            &policy,
            "127.0.0.1:8080",
            &["http://127.0.0.1:8080", "http://evil.example"]
        ));
    }

    #[test]
    fn the_servers_own_address_is_served() {
        let policy = OriginPolicy::new(&[], 8080);
        for own in [
            "http://127.0.0.1:8080",
            "http://localhost:8080",
            "http://LOCALHOST:8080",
            "http://[::1]:8080",
            "https://localhost:8080",
        ] {
            assert!(admits(&policy, "127.0.0.1:8080", &[own]), "{own}");
        }
        // Same origin as the Host the request names (the Host check is separate).
        assert!(admits(
            &policy,
            "mcp.example.com:8443",
            &["https://mcp.example.com:8443"]
        ));
        assert!(admits(
            &policy,
            "mcp.example.com",
            &["https://mcp.example.com"]
        ));
        assert!(admits(
            &policy,
            "mcp.example.com",
            &["http://mcp.example.com:80"]
        ));
        assert!(!admits(
            &policy,
            "mcp.example.com",
            &["https://mcp.example.com:8443"]
        ));
        assert!(!admits(
            &policy,
            "mcp.example.com",
            &["https://other.example.com"]
        ));
    }

    #[test]
    fn allowed_origins_are_served_exactly() {
        let policy = OriginPolicy::new(&["https://app.example.com/".into()], 8080);
        assert!(admits(
            &policy,
            "127.0.0.1:8080",
            &["https://app.example.com"]
        ));
        assert!(admits(
            &policy,
            "127.0.0.1:8080",
            &["https://app.example.com:443"]
        ));
        assert!(!admits(
            &policy,
            "127.0.0.1:8080",
            &["http://app.example.com"]
        ));
        assert!(!admits(
            &policy,
            "127.0.0.1:8080",
            &["https://app.example.com:8443"]
        ));
    }
}
