//! Redirect URIs (pure): which a client may register, and whether a request's URI is one it
//! registered. A client may register `https` URIs, plain `http` on a loopback host, and the
//! private-use schemes of native apps (RFC 8252 §7.1: reverse-DNS form such as
//! `com.example.app:/cb`, or one of the few MCP clients' own schemes that predate that advice,
//! [`NATIVE_SCHEMES`]); no control characters or spaces (which URL parsing would silently
//! drop). Everything else (`blob:`, `view-source:`, `ftp:`, `javascript:`, …) is refused.
//! Matching is exact, except that between two loopback IP literals
//! (`127.0.0.1`, `[::1]`) the port may differ (RFC 8252 §7.3), as GitLab's own Doorkeeper
//! does, and that `http://localhost` registered without a port stands for any port (clients'
//! metadata documents list `http://localhost/callback` and listen where they can).

use url::Url;

/// Private-use schemes of MCP clients that are not in reverse-DNS form (Cursor's; VS Code's
/// own, used by its extensions).
const NATIVE_SCHEMES: [&str; 3] = ["cursor", "vscode", "vscode-insiders"];

/// Why a redirect URI cannot be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RedirectProblem {
    #[error("a redirect URI is not an absolute URI")]
    NotAbsolute,
    #[error("a redirect URI has a fragment")]
    Fragment,
    #[error(
        "a redirect URI must be https, http on a loopback host, or a native app's private-use scheme in reverse-DNS form (com.example.app:/callback)"
    )]
    ForbiddenScheme,
    #[error("a redirect URI holds a control character or a space")]
    ControlCharacter,
    #[error("a plain http redirect URI must be on a loopback host (localhost, 127.0.0.1, [::1])")]
    PlainHttp,
}

/// Whether `uri` may be registered.
pub(crate) fn check(uri: &str) -> Result<(), RedirectProblem> {
    if uri.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(RedirectProblem::ControlCharacter);
    }
    let url = Url::parse(uri).map_err(|_| RedirectProblem::NotAbsolute)?;
    if url.fragment().is_some() || uri.contains('#') {
        return Err(RedirectProblem::Fragment);
    }
    let scheme = url.scheme();
    if !matches!(scheme, "https" | "http") && !is_private_use(scheme) {
        return Err(RedirectProblem::ForbiddenScheme);
    }
    if scheme == "http" && !url.host_str().is_some_and(is_loopback_name) {
        return Err(RedirectProblem::PlainHttp);
    }
    if (scheme == "http" || scheme == "https") && url.host_str().is_none() {
        return Err(RedirectProblem::NotAbsolute);
    }
    Ok(())
}

/// Whether `scheme` is a native app's private-use scheme: reverse-DNS (at least two labels,
/// none empty) or one of [`NATIVE_SCHEMES`].
fn is_private_use(scheme: &str) -> bool {
    NATIVE_SCHEMES.contains(&scheme)
        || (scheme.contains('.') && scheme.split('.').all(|label| !label.is_empty()))
}

/// Whether the requested `uri` is the `registered` one.
pub(crate) fn matches(registered: &str, uri: &str) -> bool {
    if registered == uri {
        return true;
    }
    let (Ok(mut a), Ok(mut b)) = (Url::parse(registered), Url::parse(uri)) else {
        return false;
    };
    let loopback_ip = |u: &Url| {
        matches!(u.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
            || matches!(u.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
    };
    // `localhost` registered without a port: any port (Claude Code's metadata document lists
    // `http://localhost/callback` and listens on a port of its choosing).
    let localhost = |u: &Url| u.host_str() == Some("localhost");
    let any_localhost_port = localhost(&a) && localhost(&b) && a.port().is_none();
    let loopback_ips = loopback_ip(&a) && loopback_ip(&b);
    if !(loopback_ips || any_localhost_port) {
        return false;
    }
    // Only the port may differ; `set_port` cannot fail on an http(s) URL with a host.
    if a.set_port(None).is_err() || b.set_port(None).is_err() {
        return false;
    }
    a == b && a.scheme() == "http"
}

/// The host a consent page names for `uri` (the whole URI for a scheme without a host).
pub(crate) fn shown_host(uri: &str) -> String {
    Url::parse(uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| uri.to_string())
}

/// Whether `host` names this machine's loopback: `localhost`, or a loopback IP (bracketed or not).
pub(crate) fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_be_registered() {
        for ok in [
            "http://localhost:33418/callback",
            "http://127.0.0.1/",
            "http://[::1]:8080/cb",
            "https://vscode.dev/redirect",
            "cursor://anysphere.cursor-retrieval/oauth/callback",
            "com.example.app:/oauth2redirect",
            "vscode://vscode.github-authentication/did-authenticate",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for scheme in [
            "blob:https://a.example/x",
            "view-source:https://a.example/",
            "ftp://a.example/cb",
            "data:text/html,x",
            "file:///etc/passwd",
            "about:blank",
            "ws://127.0.0.1/cb",
            "myapp:/cb",
            "com..example:/cb",
        ] {
            assert_eq!(
                check(scheme),
                Err(RedirectProblem::ForbiddenScheme),
                "{scheme}"
            );
        }
        for control in [
            "https://a.example/cb\r\nLocation: https://evil.example",
            "https://a.example/c\tb",
            "https://a.example/c b",
            "https://a.example/cb\u{7f}",
        ] {
            assert_eq!(
                check(control),
                Err(RedirectProblem::ControlCharacter),
                "{control:?}"
            );
        }
        assert_eq!(check("/callback"), Err(RedirectProblem::NotAbsolute));
        assert_eq!(
            check("https://a.example/cb#x"),
            Err(RedirectProblem::Fragment)
        );
        assert_eq!(
            check("javascript:alert(1)"),
            Err(RedirectProblem::ForbiddenScheme)
        );
        assert_eq!(
            check("http://evil.example/cb"),
            Err(RedirectProblem::PlainHttp)
        );
    }

    #[test]
    fn exact_match_but_for_loopback_ip_ports() {
        assert!(matches("https://a.example/cb", "https://a.example/cb"));
        assert!(!matches("https://a.example/cb", "https://a.example/cb/"));
        assert!(!matches("https://a.example/cb", "https://a.example:444/cb"));
        assert!(!matches("https://a.example/cb", "https://a.example/cb?x=1"));
        assert!(matches("http://127.0.0.1/cb", "http://127.0.0.1:51234/cb"));
        assert!(matches("http://127.0.0.1:1/cb", "http://127.0.0.1:2/cb"));
        assert!(matches("http://[::1]:1/cb", "http://[::1]:2/cb"));
        assert!(!matches("http://127.0.0.1/cb", "http://127.0.0.1:5/other"));
        // `localhost` is a name, not an IP literal: a port it was registered with must match;
        // registered without one, any port does.
        assert!(!matches("http://localhost:1/cb", "http://localhost:2/cb"));
        assert!(!matches("http://localhost:1/cb", "http://localhost/cb"));
        assert!(matches("http://localhost/cb", "http://localhost:55611/cb"));
        assert!(!matches(
            "http://localhost/cb",
            "http://localhost:55611/other"
        ));
        assert!(!matches(
            "https://localhost/cb",
            "https://localhost:55611/cb"
        ));
        assert!(!matches("http://localhost/cb", "http://127.0.0.1:55611/cb"));
        assert!(!matches("http://127.0.0.1/cb", "http://[::1]/cb"));
        assert_eq!(shown_host("https://a.example:8/cb"), "a.example");
        assert_eq!(shown_host("cursor://x/y"), "x");
    }
}
