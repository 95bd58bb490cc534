//! The caller's GitLab token, read from an HTTP request's headers, and the marking that keeps
//! token headers out of any `Debug` print of a request. Pure.

use http::{HeaderMap, HeaderName, header};

use crate::config::{Credential, Secret, TokenOrigin};

/// `PRIVATE-TOKEN`, GitLab's own token header.
const PRIVATE_TOKEN: HeaderName = HeaderName::from_static("private-token");

/// The caller's token: `Authorization: Bearer <t>` first, then `PRIVATE-TOKEN: <t>`.
pub(crate) fn request_token(headers: &HeaderMap) -> Option<Credential> {
    bearer(headers).or_else(|| private_token(headers))
}

/// The token of `Authorization: Bearer <t>`, if any.
pub(crate) fn bearer_text(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then_some(token.trim())
        })
        .filter(|t| !t.is_empty())
}

fn bearer(headers: &HeaderMap) -> Option<Credential> {
    request_credential(bearer_text(headers))
}

/// The token of `PRIVATE-TOKEN: <t>`, if any.
pub(crate) fn private_token(headers: &HeaderMap) -> Option<Credential> {
    request_credential(headers.get(PRIVATE_TOKEN).and_then(|v| v.to_str().ok()))
}

fn request_credential(token: Option<&str>) -> Option<Credential> {
    token
        .and_then(Secret::new)
        .map(|token| Credential::new(token, TokenOrigin::Request))
}

/// Marks token-bearing header values sensitive (`Debug` then prints `Sensitive`).
pub(crate) fn hide_tokens(headers: &mut HeaderMap) {
    for name in [header::AUTHORIZATION, PRIVATE_TOKEN] {
        if let header::Entry::Occupied(mut entry) = headers.entry(name) {
            for value in entry.iter_mut() {
                value.set_sensitive(true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn token(pairs: &[(&'static str, &'static str)]) -> Option<String> {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        request_token(&headers).map(|c| c.token.expose().to_string())
    }

    #[test]
    fn bearer_first_then_private_token() {
        assert_eq!(
            token(&[("authorization", "Bearer abc")]),
            Some("abc".into())
        );
        assert_eq!(
            token(&[("authorization", "bearer  abc ")]),
            Some("abc".into())
        );
        assert_eq!(token(&[("private-token", "xyz")]), Some("xyz".into()));
        assert_eq!(
            token(&[("authorization", "Bearer abc"), ("private-token", "xyz")]),
            Some("abc".into())
        );
        assert_eq!(
            token(&[
                ("authorization", "Basic YWxpY2U6cHc="),
                ("private-token", "xyz")
            ]),
            Some("xyz".into())
        );
    }

    #[test]
    fn no_usable_token() {
        for pairs in [
            &[][..],
            &[("authorization", "Basic YWxpY2U6cHc=")],
            &[("authorization", "Bearer   ")],
            &[("authorization", "Bearer")],
            &[("private-token", "")],
        ] {
            assert_eq!(token(pairs), None, "{pairs:?}");
        }
    }

    #[test]
    fn token_headers_become_sensitive() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer glpat-xyz"),
        );
        headers.insert("private-token", HeaderValue::from_static("glpat-abc"));
        hide_tokens(&mut headers);
        let shown = format!("{headers:?}");
        assert!(!shown.contains("glpat"), "{shown}");
    }
}
