//! What the sign-in holds while the process runs: its settings, GitLab's client, and the little
//! it keeps per process (the used codes and sign-in states, the registration rate limit, the
//! cache of client metadata documents); and the two things
//! `/mcp` asks of it: the credential inside an access token, and the challenge of a 401.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::client::ClientDocuments;
use super::metadata;
use super::sealed::{AccessGrant, now, open};
use super::settings::{OauthArgs, OauthSettings, OauthStartError};
use super::upstream::Upstream;
use crate::base::lru::SharedLru;
use crate::config::{Credential, GitlabConfig, Secret, TokenOrigin};

/// Registrations one address may make per [`WINDOW_SECS`].
pub(crate) const REGISTRATIONS_PER_WINDOW: u32 = 30;
const WINDOW_SECS: u64 = 3600;
/// Addresses remembered at once (the least recently seen forgotten first).
const ADDRESSES: u64 = 10_000;
/// Ids remembered as used at once, per kind: codes live a minute and sign-in states ten, so
/// this is many sign-ins a second.
const USED_IDS: usize = 100_000;

/// The ids of what may be used once (codes exchanged, sign-in states completed), each until
/// it expires (this process's memory: replicas do not share it).
#[derive(Debug, Default)]
pub(crate) struct UsedOnce {
    by_id: Mutex<HashMap<String, u64>>,
}

impl UsedOnce {
    /// Marks `id` (expiring at `exp`) used; `false` if it was already, or the table is full of
    /// live ids.
    pub(crate) fn first_use(&self, id: &str, exp: u64, now: u64) -> bool {
        let mut by_id = self
            .by_id
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if by_id.len() >= USED_IDS {
            by_id.retain(|_, &mut e| e > now);
        }
        if by_id.len() >= USED_IDS || by_id.contains_key(id) {
            return false;
        }
        by_id.insert(id.to_string(), exp);
        true
    }
}

/// Registrations counted per address and window.
#[derive(Debug)]
pub(crate) struct RegistrationLimit {
    by_address: SharedLru<IpAddr, (u64, u32)>,
}

impl Default for RegistrationLimit {
    fn default() -> Self {
        Self {
            by_address: SharedLru::new(ADDRESSES),
        }
    }
}

impl RegistrationLimit {
    /// Counts one registration from `address` at `now`; past the limit, `Err` with the
    /// seconds until the address may register again.
    pub(crate) fn admit(&self, address: IpAddr, now: u64) -> Result<(), u64> {
        let mut table = self.by_address.lock();
        let (start, count) = match table.get(&address) {
            Some(&(start, count)) if now < start.saturating_add(WINDOW_SECS) => (start, count),
            _ => (now, 0),
        };
        if count >= REGISTRATIONS_PER_WINDOW {
            return Err(start.saturating_add(WINDOW_SECS).saturating_sub(now).max(1));
        }
        table.insert(address, (start, count + 1), 1);
        Ok(())
    }
}

/// The sign-in: its settings and the little it keeps per process.
#[derive(Debug)]
pub(crate) struct Oauth {
    pub(super) settings: OauthSettings,
    pub(super) upstream: Upstream,
    pub(super) used_codes: UsedOnce,
    /// Sign-ins completed: a `state` completes one callback at most.
    pub(super) used_states: UsedOnce,
    pub(super) registrations: RegistrationLimit,
    /// Client ID Metadata Documents, fetched and cached.
    pub(super) documents: ClientDocuments,
}

impl Oauth {
    /// The sign-in `args` ask for, checked: `None` without `--oauth`; `gitlab` is `None` when
    /// serving a local repository (refused).
    pub(crate) fn start(
        args: &OauthArgs,
        gitlab: Option<&GitlabConfig>,
    ) -> Result<Option<Arc<Self>>, OauthStartError> {
        if !args.oauth {
            return Ok(None);
        }
        let settings = OauthSettings::new(args, gitlab, |name| std::env::var(name).ok())?;
        let gitlab = gitlab.ok_or(OauthStartError::LocalRepository)?;
        let upstream = Upstream::new(gitlab)?;
        // The GitLab client's settings (its CA file among them), made safe for fetching URLs
        // anyone may name.
        let documents = ClientDocuments::new(
            crate::config::gitlab_client_builder(gitlab)?,
            args.oauth_allow_private_client_metadata,
        )
        .map_err(|cause| OauthStartError::HttpClient { cause })?;
        Ok(Some(Arc::new(Self {
            settings,
            upstream,
            used_codes: UsedOnce::default(),
            used_states: UsedOnce::default(),
            registrations: RegistrationLimit::default(),
            documents,
        })))
    }

    /// The GitLab credential a bearer token of this server carries: `None` for anything else
    /// (a GitLab token, another kind of this server's tokens, one for another audience, an
    /// expired one).
    pub(crate) fn credential(&self, bearer: &str) -> Option<Credential> {
        let grant: AccessGrant = open(&self.settings.keys, bearer, now())?;
        if grant.aud != self.settings.resource() {
            return None;
        }
        Some(Credential::new(
            Secret::new(grant.gitlab_token)?,
            TokenOrigin::SignIn,
        ))
    }

    /// The `WWW-Authenticate` value of a 401 on `/mcp` (`token_sent`: with `invalid_token`).
    pub(crate) fn challenge(&self, token_sent: bool) -> String {
        metadata::challenge(&self.settings, token_sent)
    }

    /// The public URL's origin (allowed as `Origin`) and `host[:port]` (allowed as `Host`).
    pub(crate) fn public_origin_and_host(&self) -> (String, String) {
        (self.settings.public.clone(), self.settings.public_host())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_id_is_used_once() {
        let used = UsedOnce::default();
        assert!(used.first_use("a", 10, 0));
        assert!(!used.first_use("a", 10, 0));
        assert!(used.first_use("b", 10, 0));
    }

    #[test]
    fn registrations_per_address_are_limited_per_window() {
        let limit = RegistrationLimit::default();
        let a = IpAddr::from([10, 0, 0, 1]);
        let b = IpAddr::from([10, 0, 0, 2]);
        for _ in 0..REGISTRATIONS_PER_WINDOW {
            assert_eq!(limit.admit(a, 100), Ok(()));
        }
        assert_eq!(limit.admit(a, 100), Err(WINDOW_SECS));
        assert_eq!(limit.admit(b, 100), Ok(()));
        assert_eq!(limit.admit(a, 100 + WINDOW_SECS - 1), Err(1));
        assert_eq!(limit.admit(a, 100 + WINDOW_SECS), Ok(()));
    }
}
