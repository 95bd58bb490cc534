//! What this server seals and hands out, one typed payload per kind, each with its expiry:
//! a client's registration (its `client_id`), a consent cookie, the sign-in in flight (the
//! `state` sent to GitLab), an authorization code, an access token and a refresh token. Each
//! kind is sealed under its own name ([`Sealable::KIND`], the AEAD's additional data), so one
//! kind can never be opened as another. Every token and verifier in them is a [`Secret`], so
//! no `Debug` of a payload shows one. Nothing is stored: any replica holding the keys opens
//! what another sealed.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::browser::Binding;
use super::keys::SealKeys;
use crate::config::Secret;

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A payload this server seals.
pub(crate) trait Sealable: Serialize + DeserializeOwned {
    /// The kind's name, sealed as additional data.
    const KIND: &'static str;
    /// When it stops opening, in seconds since the epoch.
    fn expires(&self) -> u64;
}

/// Seals `payload` (`None` only if the random source fails).
pub(crate) fn seal<T: Sealable>(keys: &SealKeys, payload: &T) -> Option<String> {
    let plain = serde_json::to_vec(payload).ok()?;
    keys.seal(T::KIND, &plain)
}

/// Opens `text` as a `T` that has not expired at `now`.
pub(crate) fn open<T: Sealable>(keys: &SealKeys, text: &str, now: u64) -> Option<T> {
    let plain = keys.open(T::KIND, text)?;
    let payload: T = serde_json::from_slice(&plain).ok()?;
    (payload.expires() > now).then_some(payload)
}

/// A dynamically registered client: its `client_id` is this, sealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClientRegistration {
    pub client_name: String,
    pub redirect_uris: Vec<String>,
    pub issued: u64,
    pub exp: u64,
}

impl Sealable for ClientRegistration {
    const KIND: &'static str = "gitlab-file-mcp/oauth/client/v1";
    fn expires(&self) -> u64 {
        self.exp
    }
}

/// A user's approval of one client, kept in a cookie of the browser that gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ConsentGrant {
    /// The approved client's id, hashed.
    pub client: String,
    pub exp: u64,
}

impl Sealable for ConsentGrant {
    const KIND: &'static str = "gitlab-file-mcp/oauth/consent/v1";
    fn expires(&self) -> u64 {
        self.exp
    }
}

/// What the client asked at `/authorize`, once checked: carried through the consent form and
/// the trip to GitLab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClientRequest {
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    /// The client's own `state`, given back with the code.
    pub state: Option<String>,
}

/// The consent form's hidden field: the request, bound to the browser the form was shown in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ConsentForm {
    pub request: ClientRequest,
    pub binding: Binding,
    pub exp: u64,
}

impl Sealable for ConsentForm {
    const KIND: &'static str = "gitlab-file-mcp/oauth/consent-form/v2";
    fn expires(&self) -> u64 {
        self.exp
    }
}

/// A sign-in on its way through GitLab: the `state` sent to GitLab's `/oauth/authorize`,
/// bound to the browser sent there (its id also names the sign-in, used once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PendingSignIn {
    pub request: ClientRequest,
    /// The PKCE verifier of this server's own request to GitLab.
    pub gitlab_verifier: Secret,
    pub binding: Binding,
    pub exp: u64,
}

impl Sealable for PendingSignIn {
    const KIND: &'static str = "gitlab-file-mcp/oauth/pending/v2";
    fn expires(&self) -> u64 {
        self.exp
    }
}

/// GitLab's tokens for one sign-in (never shown to the client).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GitlabTokens {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    /// When GitLab's access token expires, in seconds since the epoch.
    pub expires_at: u64,
}

/// This server's authorization code: single use (its `id`), short-lived, bound to the client,
/// its redirect URI and PKCE challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AuthCode {
    pub id: String,
    pub request: ClientRequest,
    pub gitlab: GitlabTokens,
    pub exp: u64,
    /// The GitLab user who signed in (`/oauth/token/info`), when GitLab said.
    #[serde(default)]
    pub user: Option<u64>,
}

impl AuthCode {
    /// Who the sign-in's tokens act for, to own its sessions: the GitLab user (the same across
    /// refreshes and sign-ins), else this sign-in alone.
    pub(crate) fn owner(&self) -> String {
        match self.user {
            Some(user) => format!("user:{user}"),
            None => format!("sign-in:{}", self.id),
        }
    }
}

impl Sealable for AuthCode {
    const KIND: &'static str = "gitlab-file-mcp/oauth/code/v1";
    fn expires(&self) -> u64 {
        self.exp
    }
}

/// This server's access token: for one audience (`<public-url>/mcp`), carrying GitLab's token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AccessGrant {
    pub aud: String,
    pub client: String,
    pub gitlab_token: Secret,
    pub exp: u64,
    /// Who it acts for ([`AuthCode::owner`]), the same across refreshes; empty in a token
    /// sealed before owners were named.
    #[serde(default)]
    pub owner: String,
}

impl Sealable for AccessGrant {
    const KIND: &'static str = "gitlab-file-mcp/oauth/access/v1";
    fn expires(&self) -> u64 {
        self.exp
    }
}

/// This server's refresh token, carrying GitLab's refresh token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RefreshGrant {
    pub aud: String,
    pub client: String,
    pub gitlab_refresh: Secret,
    pub exp: u64,
    /// Who it acts for, handed to the tokens it refreshes into.
    #[serde(default)]
    pub owner: String,
}

impl Sealable for RefreshGrant {
    const KIND: &'static str = "gitlab-file-mcp/oauth/refresh/v1";
    fn expires(&self) -> u64 {
        self.exp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> SealKeys {
        SealKeys::parse("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").unwrap()
    }

    #[test]
    fn a_payload_opens_as_its_own_kind_until_it_expires() {
        let keys = keys();
        let access = AccessGrant {
            aud: "https://mcp.example.com/mcp".into(),
            client: "c".into(),
            gitlab_token: Secret::new("glpat-secret").unwrap(),
            exp: 100,
            owner: "user:7".into(),
        };
        assert!(!format!("{access:?}").contains("glpat-secret"));
        let text = seal(&keys, &access).unwrap();
        assert!(!text.contains("glpat"));
        assert_eq!(open::<AccessGrant>(&keys, &text, 99), Some(access));
        assert_eq!(open::<AccessGrant>(&keys, &text, 100), None);
        // The same fields under another kind do not open.
        assert_eq!(open::<RefreshGrant>(&keys, &text, 0), None);
        let consent = seal(
            &keys,
            &ConsentGrant {
                client: "c".into(),
                exp: 100,
            },
        )
        .unwrap();
        assert_eq!(open::<ClientRegistration>(&keys, &consent, 0), None);
        assert!(open::<ConsentGrant>(&keys, &consent, 0).is_some());
    }
}
