//! What the sign-in holds while the process runs: its settings, GitLab's client, and the little
//! it keeps per process (the used codes and sign-in states, the registration rate limit, the
//! cache of client metadata documents); and the two things
//! `/mcp` asks of it: the credential inside an access token, and the challenge of a 401.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::client::ClientDocuments;
use super::metadata;
use super::sealed::{AccessGrant, now, open};
use super::settings::{OauthArgs, OauthSettings, OauthStartError};
use super::upstream::Upstream;
use crate::config::{Credential, GitlabConfig};

/// Registrations one address may make per [`WINDOW_SECS`].
// Evaluated at compile time: 30 is not zero, or the build fails.
pub(crate) const REGISTRATIONS_PER_WINDOW: NonZeroU32 = NonZeroU32::new(30).expect("not zero");
const WINDOW_SECS: u64 = 3600;
/// Addresses the registration limit's table holds before it is first pruned.
const ADDRESSES: usize = 10_000;
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

/// Registrations per address: [`REGISTRATIONS_PER_WINDOW`] at once, then one more each
/// [`WINDOW_SECS`] / [`REGISTRATIONS_PER_WINDOW`] seconds (a keyed GCRA limiter, [`governor`]).
/// An address whose allowance has been whole again for one period is as good as unseen: such
/// addresses are pruned from the table whenever it grows past twice its size after the last
/// pruning (and [`ADDRESSES`]), so a flood of addresses costs a walk of the table now and then,
/// not at every request.
#[derive(Debug)]
pub(crate) struct RegistrationLimit<C: Clock = DefaultClock> {
    limiter: RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, C, NoOpMiddleware<C::Instant>>,
    /// The table's size past which it is next pruned.
    prune_at: AtomicUsize,
}

impl Default for RegistrationLimit {
    fn default() -> Self {
        Self::with_clock(DefaultClock::default())
    }
}

impl<C: Clock> RegistrationLimit<C> {
    fn with_clock(clock: C) -> Self {
        let quota = Quota::with_period(Duration::from_secs(
            WINDOW_SECS / u64::from(REGISTRATIONS_PER_WINDOW.get()),
        ))
        .map(|quota| quota.allow_burst(REGISTRATIONS_PER_WINDOW))
        // The period is 120 s, never zero; a zero one would allow a whole window at once.
        .unwrap_or_else(|| Quota::per_hour(REGISTRATIONS_PER_WINDOW));
        Self {
            limiter: RateLimiter::new(quota, DefaultKeyedStateStore::default(), clock),
            prune_at: AtomicUsize::new(ADDRESSES),
        }
    }

    /// Counts one registration from `address`; past the limit, `Err` with the seconds until
    /// the address may register again.
    pub(crate) fn admit(&self, address: IpAddr) -> Result<(), u64> {
        let outcome = self.limiter.check_key(&address);
        self.prune();
        outcome.map_err(|not_until| {
            let wait = not_until.wait_time_from(self.limiter.clock().now());
            (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
        })
    }

    /// Forgets the addresses whose allowance is whole again, when the table has grown.
    fn prune(&self) {
        if self.limiter.len() <= self.prune_at.load(Ordering::Relaxed) {
            return;
        }
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
        let next = ADDRESSES.max(self.limiter.len().saturating_mul(2));
        self.prune_at.store(next, Ordering::Relaxed);
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
        Some(Credential::signed_in(grant.gitlab_token, &grant.owner))
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
    use governor::clock::FakeRelativeClock;

    #[test]
    fn a_code_id_is_used_once() {
        let used = UsedOnce::default();
        assert!(used.first_use("a", 10, 0));
        assert!(!used.first_use("a", 10, 0));
        assert!(used.first_use("b", 10, 0));
    }

    #[test]
    fn registrations_per_address_are_limited_per_window() {
        let clock = FakeRelativeClock::default();
        let limit = RegistrationLimit::with_clock(clock.clone());
        let a = IpAddr::from([10, 0, 0, 1]);
        let b = IpAddr::from([10, 0, 0, 2]);
        for _ in 0..REGISTRATIONS_PER_WINDOW.get() {
            assert_eq!(limit.admit(a), Ok(()));
        }
        // One more each 3600 / 30 = 120 s.
        assert_eq!(limit.admit(a), Err(120));
        assert_eq!(limit.admit(b), Ok(()));
        clock.advance(Duration::from_secs(119));
        assert_eq!(limit.admit(a), Err(1));
        clock.advance(Duration::from_secs(1));
        assert_eq!(limit.admit(a), Ok(()));
        assert_eq!(limit.admit(a), Err(120));
    }

    #[test]
    fn addresses_whose_allowance_is_whole_again_are_pruned() {
        let clock = FakeRelativeClock::default();
        let limit = RegistrationLimit::with_clock(clock.clone());
        let address = |i: usize| IpAddr::from(u32::try_from(i).unwrap().to_be_bytes());
        for i in 0..ADDRESSES {
            assert_eq!(limit.admit(address(i)), Ok(()));
        }
        assert_eq!(limit.limiter.len(), ADDRESSES);
        // Each of them could register 30 times again two minutes on; governor forgets an
        // address one period (120 s) after that. One more address then passes the size, and
        // the table forgets them.
        clock.advance(Duration::from_secs(241));
        assert_eq!(limit.admit(address(ADDRESSES)), Ok(()));
        assert!(limit.limiter.len() <= 1, "{}", limit.limiter.len());
        assert_eq!(limit.prune_at.load(Ordering::Relaxed), ADDRESSES);
    }
}
