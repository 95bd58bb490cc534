//! What a request reads with, as the serving [`Mode`] asks: the server's configured token, or
//! the caller's credential from the request's headers alone (nothing is read yet), or the 401
//! of a request without one. Pure but for the sign-in's opening of its own access token.

use http::{HeaderMap, HeaderValue, Method};

use super::mode::Mode;
use crate::auth::Oauth;
use crate::config::{Admitted, Credential};
use crate::http::guard::refusal::{CHALLENGE, Refusal};
use crate::http::guard::token::{bearer_text, private_token, request_token};

/// What a call reads with: `configured` (a copy with a refusal note of its own) with the
/// server's own token, else the caller's credential, or the refusal of a request that carries
/// none the mode takes.
pub(crate) fn of(
    mode: &Mode,
    configured: Option<&Credential>,
    headers: &HeaderMap,
    method: &Method,
) -> Result<Admitted, Refusal> {
    let post = method == Method::POST;
    let credential = match mode {
        Mode::ServerToken => {
            let fresh = |c: &Credential| Credential::new(c.token.clone(), c.origin);
            return Ok(Admitted {
                credential: configured.map(fresh),
            });
        }
        Mode::SignIn {
            oauth,
            private_tokens,
        } => signed_in(oauth, *private_tokens, headers)
            .ok_or_else(|| sign_in_first(oauth, headers, post))?,
        Mode::RequestToken => request_token(headers).ok_or(Refusal::NoToken { post })?,
    };
    Ok(Admitted {
        credential: Some(credential),
    })
}

/// With `--oauth`: the credential a live access token of this server carries, or (with
/// `--token-from-request` as well) a `PRIVATE-TOKEN`.
fn signed_in(oauth: &Oauth, private_allowed: bool, headers: &HeaderMap) -> Option<Credential> {
    match bearer_text(headers) {
        Some(token) => oauth.credential(token),
        None => private_token(headers).filter(|_| private_allowed),
    }
}

/// The 401 of a request [`signed_in`] found no credential in: its challenge names the
/// resource metadata (with `error="invalid_token"` when a token was sent).
fn sign_in_first(oauth: &Oauth, headers: &HeaderMap, post: bool) -> Refusal {
    let sent = bearer_text(headers).is_some();
    Refusal::SignInFirst {
        post,
        sent,
        challenge: sign_in_challenge(oauth, sent),
    }
}

/// The sign-in's challenge (`invalid_token`: a token was sent, or GitLab refused the one
/// inside), else the plain one.
pub(crate) fn sign_in_challenge(oauth: &Oauth, invalid_token: bool) -> HeaderValue {
    HeaderValue::from_str(&oauth.challenge(invalid_token))
        .unwrap_or_else(|_| HeaderValue::from_static(CHALLENGE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn the_mode_says_which_credential_a_request_must_carry() {
        let none = headers(&[]);
        let token = headers(&[("private-token", "glpat-x")]);
        let expose = |a: &Admitted| a.credential.as_ref().map(|c| c.token.expose().to_string());
        let served = of(&Mode::ServerToken, None, &token, &Method::POST).expect("served");
        assert_eq!(expose(&served), None);
        let configured = Credential::new(
            crate::config::Secret::new("server-own").unwrap(),
            crate::config::TokenOrigin::GitlabToken,
        );
        let served = of(&Mode::ServerToken, Some(&configured), &token, &Method::POST).unwrap();
        assert_eq!(expose(&served), Some("server-own".into()));
        // The server's own token tells no caller apart.
        assert!(served.own_token().is_none());
        let own = of(
            &Mode::RequestToken,
            Some(&configured),
            &token,
            &Method::POST,
        )
        .unwrap();
        assert_eq!(expose(&own), Some("glpat-x".into()));
        assert!(own.own_token().is_some());
        assert!(matches!(
            of(&Mode::RequestToken, None, &none, &Method::GET),
            Err(Refusal::NoToken { post: false })
        ));
    }
}
