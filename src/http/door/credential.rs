//! The caller's credential, as the serving [`Mode`] asks for it, from a request's headers alone
//! (nothing is read yet), or the 401 of a request without one. Pure but for the sign-in's
//! opening of its own access token.

use http::{HeaderMap, HeaderValue, Method};

use super::mode::Mode;
use crate::auth::Oauth;
use crate::config::Credential;
use crate::http::guard::refusal::{CHALLENGE, Refusal};
use crate::http::guard::token::{bearer_text, private_token, request_token};

/// The credential a call reads with: `None` with the server's own token, else the caller's,
/// or the refusal of a request that carries none the mode takes.
pub(crate) fn of(
    mode: &Mode,
    headers: &HeaderMap,
    method: &Method,
) -> Result<Option<Credential>, Refusal> {
    let post = method == Method::POST;
    match mode {
        Mode::ServerToken => Ok(None),
        Mode::SignIn {
            oauth,
            private_tokens,
        } => match signed_in(oauth, *private_tokens, headers) {
            Some(credential) => Ok(Some(credential)),
            None => Err(sign_in_first(oauth, headers, post)),
        },
        Mode::RequestToken => match request_token(headers) {
            Some(credential) => Ok(Some(credential)),
            None => Err(Refusal::NoToken { post }),
        },
    }
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
        let served = of(&Mode::ServerToken, &token, &Method::POST).expect("served");
        assert!(served.is_none());
        let own = of(&Mode::RequestToken, &token, &Method::POST).expect("a token");
        assert_eq!(
            own.map(|c| c.token.expose().to_string()),
            Some("glpat-x".into())
        );
        assert!(matches!(
            of(&Mode::RequestToken, &none, &Method::GET),
            Err(Refusal::NoToken { post: false })
        ));
    }
}
