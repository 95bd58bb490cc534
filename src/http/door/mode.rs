//! Who the caller is, decided once from the flags ([`Mode`]): the server's own token for every
//! caller, each request's own GitLab token (`--token-from-request`), or a sign-in with GitLab
//! (`--oauth`; with `--token-from-request` too, a `PRIVATE-TOKEN` is taken beside it). Every
//! check of `/mcp` and the tool server ask this one type, never the flags, and only the door
//! ([`super::Door`]) asks what it says of a request: which credential a request must carry
//! ([`super::credential`]), whether a session opens only for a token GitLab accepts, and
//! whether each signed-in call is vouched for. The app asks it whether sessions are bound to a
//! caller's token and which token the tool server reads with.

use std::sync::Arc;

use crate::auth::Oauth;

/// Whose token a call to `/mcp` reads with.
#[derive(Debug, Clone)]
pub(crate) enum Mode {
    /// The server's configured token (or none) for every caller.
    ServerToken,
    /// Each request's own GitLab token (`--token-from-request`).
    RequestToken,
    /// Each caller signed in with GitLab (`--oauth`): this server's access tokens, and, when
    /// `private_tokens`, a GitLab `PRIVATE-TOKEN` header too.
    SignIn {
        oauth: Arc<Oauth>,
        private_tokens: bool,
    },
}

impl Mode {
    /// The mode the flags ask for: `oauth` is `--oauth`'s sign-in, when given.
    pub(crate) fn new(token_from_request: bool, oauth: Option<Arc<Oauth>>) -> Self {
        match oauth {
            Some(oauth) => Self::SignIn {
                oauth,
                private_tokens: token_from_request,
            },
            None if token_from_request => Self::RequestToken,
            None => Self::ServerToken,
        }
    }

    /// Whether each caller reads with a token of its own (a request's or a sign-in's).
    pub(crate) fn per_caller(&self) -> bool {
        !matches!(self, Self::ServerToken)
    }

    /// The sign-in, in [`Mode::SignIn`].
    pub(crate) fn sign_in(&self) -> Option<&Arc<Oauth>> {
        match self {
            Self::SignIn { oauth, .. } => Some(oauth),
            _ => None,
        }
    }
}
