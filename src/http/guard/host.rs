//! The host a request names (its one `Host` header, else the URI's authority) and whether it
//! is one this server answers to (DNS-rebinding protection). Pure.

use http::{HeaderMap, Uri, header};

/// The host of a request, lower-cased, without IPv6 brackets; with its port if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RequestHost {
    pub name: String,
    pub port: Option<u16>,
    /// The header's text as sent (`host[:port]`), for same-origin checks.
    pub authority: String,
}

/// Why a request names no usable host (400).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HostProblem {
    #[error("missing Host header")]
    Missing,
    /// Two or more `Host` headers (RFC 9112 §3.2: 400).
    #[error("more than one Host header")]
    Duplicate,
    #[error("empty Host header")]
    Empty,
    #[error("malformed Host header")]
    Malformed,
}

/// The request's host: exactly one non-empty, well-formed `Host` header, or (HTTP/2, no
/// header) the URI's authority.
pub(crate) fn request_host(headers: &HeaderMap, uri: &Uri) -> Result<RequestHost, HostProblem> {
    let mut values = headers.get_all(header::HOST).iter();
    let authority = match (values.next(), values.next()) {
        (Some(_), Some(_)) => return Err(HostProblem::Duplicate),
        (Some(value), None) => {
            let text = value.to_str().map_err(|_| HostProblem::Malformed)?.trim();
            if text.is_empty() {
                return Err(HostProblem::Empty);
            }
            http::uri::Authority::try_from(text).map_err(|_| HostProblem::Malformed)?
        }
        (None, _) => uri.authority().ok_or(HostProblem::Missing)?.clone(),
    };
    if authority.host().is_empty() || authority.as_str().contains('@') {
        return Err(HostProblem::Malformed);
    }
    Ok(RequestHost {
        name: normalize_host(authority.host()),
        port: authority.port_u16(),
        authority: authority.as_str().to_ascii_lowercase(),
    })
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// Whether `host` matches an entry: `name` matches any port, `name:port` only that port (the
/// rule rmcp applies too, so the two checks agree).
pub(crate) fn host_allowed(host: &RequestHost, allowed: &[String]) -> bool {
    allowed.iter().any(|entry| {
        let (name, port) = match http::uri::Authority::try_from(entry.as_str()) {
            Ok(a) => (normalize_host(a.host()), a.port_u16()),
            Err(_) => (normalize_host(entry), None),
        };
        name == host.name && port.is_none_or(|p| host.port == Some(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::flags::HttpArgs;

    fn host(name: &str, port: Option<u16>) -> RequestHost {
        RequestHost {
            name: name.to_string(),
            port,
            authority: String::new(),
        }
    }

    fn list(extra: &[&str]) -> Vec<String> {
        HttpArgs {
            allowed_hosts: extra.iter().map(|s| (*s).to_string()).collect(),
            ..HttpArgs::default()
        }
        .host_allow_list()
    }

    fn parse(values: &[&str]) -> Result<(String, Option<u16>), HostProblem> {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(header::HOST, v.parse().unwrap());
        }
        request_host(&headers, &Uri::from_static("/mcp")).map(|h| (h.name, h.port))
    }

    #[test]
    fn loopback_is_always_allowed_and_foreign_hosts_are_not() {
        let allowed = list(&[]);
        assert!(host_allowed(&host("localhost", Some(8080)), &allowed));
        assert!(host_allowed(&host("127.0.0.1", None), &allowed));
        assert!(host_allowed(&host("::1", Some(1)), &allowed));
        assert!(!host_allowed(&host("evil.example", Some(8080)), &allowed));
        assert!(!host_allowed(
            &host("127.0.0.1.evil.example", None),
            &allowed
        ));
    }

    #[test]
    fn allowed_host_entries_with_and_without_port() {
        let allowed = list(&["MCP.example.com", "other.example:8443"]);
        assert!(host_allowed(&host("mcp.example.com", Some(1234)), &allowed));
        assert!(host_allowed(&host("other.example", Some(8443)), &allowed));
        assert!(!host_allowed(&host("other.example", Some(80)), &allowed));
        assert!(!host_allowed(&host("other.example", None), &allowed));
    }

    #[test]
    fn host_header_parsing() {
        assert_eq!(parse(&["[::1]:80"]), Ok(("::1".into(), Some(80))));
        assert_eq!(parse(&["Example.COM"]), Ok(("example.com".into(), None)));
        assert_eq!(parse(&["bad host"]), Err(HostProblem::Malformed));
        assert_eq!(parse(&["user@host"]), Err(HostProblem::Malformed));
        assert_eq!(parse(&[":8080"]), Err(HostProblem::Malformed));
        assert_eq!(parse(&[""]), Err(HostProblem::Empty));
        assert_eq!(parse(&["  "]), Err(HostProblem::Empty));
        assert_eq!(
            parse(&["127.0.0.1:8080", "evil.example"]),
            Err(HostProblem::Duplicate)
        );
        assert_eq!(
            parse(&["127.0.0.1", "127.0.0.1"]),
            Err(HostProblem::Duplicate)
        );
        assert_eq!(parse(&[]), Err(HostProblem::Missing));
    }

    #[test]
    fn without_a_header_the_uri_authority_counts() {
        let uri = Uri::from_static("http://Example.com:81/mcp");
        let host = request_host(&HeaderMap::new(), &uri).unwrap();
        assert_eq!((host.name.as_str(), host.port), ("example.com", Some(81)));
        assert_eq!(host.authority, "example.com:81");
    }
}
