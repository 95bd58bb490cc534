//! What GitLab last said of each token, by fingerprint, for a short time: a token it accepted
//! for [`ACCEPTED_FOR`], one it refused for [`REFUSED_FOR`] (shorter, so a token just created
//! or fixed is not held refused for long). At most [`TOKENS_REMEMBERED`] tokens, so made-up
//! tokens cannot grow it. Concurrent askers about one token share one check in flight, a
//! failure as well (never remembered); a check whose asker went away leaves the next one to
//! ask.
//!
//! A [`moka`] cache (its expiry per entry, its bound and its single flight `try_get_with`);
//! [`Lasting`] is the policy it is given.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use moka::Expiry;
use moka::future::Cache;

use crate::source::gitlab::TokenStanding;

/// How long an accepted token is believed without asking GitLab again.
pub(crate) const ACCEPTED_FOR: Duration = Duration::from_secs(60);
/// How long a refused token is refused without asking GitLab again.
pub(crate) const REFUSED_FOR: Duration = Duration::from_secs(10);
/// The most tokens remembered.
pub(crate) const TOKENS_REMEMBERED: u64 = 16_384;

/// Token fingerprint → what GitLab said, until its standing's time is up.
#[derive(Debug, Clone)]
pub(crate) struct Verdicts {
    by_print: Cache<u64, TokenStanding>,
}

impl Default for Verdicts {
    fn default() -> Self {
        Self {
            by_print: Cache::builder()
                .max_capacity(TOKENS_REMEMBERED)
                .expire_after(Lasting)
                .build(),
        }
    }
}

impl Verdicts {
    /// What GitLab says of the token `print`: remembered, or `ask`ed now (once for concurrent
    /// askers, who share its outcome) and remembered when it answers.
    pub(crate) async fn standing<E>(
        &self,
        print: u64,
        ask: impl Future<Output = Result<TokenStanding, E>>,
    ) -> Result<TokenStanding, Arc<E>>
    where
        E: Send + Sync + 'static,
    {
        self.by_print.try_get_with(print, ask).await
    }

    /// Records that GitLab said `standing` of the token `print` (a refusal met by a call).
    pub(crate) async fn put(&self, print: u64, standing: TokenStanding) {
        self.by_print.insert(print, standing).await;
    }
}

/// How long each verdict is believed: from when it was said, as long as its kind lasts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lasting;

impl Expiry<u64, TokenStanding> for Lasting {
    fn expire_after_create(
        &self,
        _: &u64,
        standing: &TokenStanding,
        _: Instant,
    ) -> Option<Duration> {
        Some(lasts(*standing))
    }

    fn expire_after_update(
        &self,
        _: &u64,
        standing: &TokenStanding,
        _: Instant,
        _: Option<Duration>,
    ) -> Option<Duration> {
        Some(lasts(*standing))
    }
}

fn lasts(standing: TokenStanding) -> Duration {
    match standing {
        TokenStanding::Accepted => ACCEPTED_FOR,
        TokenStanding::Refused => REFUSED_FOR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_verdict_lasts_as_long_as_its_kind_from_when_it_was_said() {
        let now = Instant::now();
        let created = |s| Lasting.expire_after_create(&1, &s, now);
        assert_eq!(created(TokenStanding::Accepted), Some(ACCEPTED_FOR));
        assert_eq!(created(TokenStanding::Refused), Some(REFUSED_FOR));
        assert!(REFUSED_FOR < ACCEPTED_FOR);
        // A new verdict replaces the old one, with its own time (not what was left).
        let left = Some(Duration::from_secs(59));
        let updated = Lasting.expire_after_update(&1, &TokenStanding::Refused, now, left);
        assert_eq!(updated, Some(REFUSED_FOR));
    }

    #[tokio::test]
    async fn one_check_for_concurrent_askers_and_a_failure_is_not_remembered() {
        let verdicts = Verdicts::default();
        let asked = AtomicUsize::new(0);
        let ask = || async {
            asked.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
            Ok::<_, ()>(TokenStanding::Accepted)
        };
        let (a, b) = tokio::join!(verdicts.standing(7, ask()), verdicts.standing(7, ask()));
        assert_eq!(
            (a, b),
            (Ok(TokenStanding::Accepted), Ok(TokenStanding::Accepted))
        );
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        // Remembered: not asked again.
        assert_eq!(
            verdicts.standing(7, ask()).await,
            Ok(TokenStanding::Accepted)
        );
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        // A failure is handed back and not kept; a refusal met by a call replaces the verdict.
        let failed = verdicts
            .standing(8, async { Err::<TokenStanding, _>("down") })
            .await;
        assert_eq!(failed.map_err(|e| *e), Err("down"));
        assert_eq!(
            verdicts.standing(8, ask()).await,
            Ok(TokenStanding::Accepted)
        );
        verdicts.put(7, TokenStanding::Refused).await;
        assert_eq!(
            verdicts.standing(7, ask()).await,
            Ok(TokenStanding::Refused)
        );
    }

    #[tokio::test]
    async fn at_most_the_remembered_number_of_tokens_are_kept() {
        let verdicts = Verdicts::default();
        for print in 0..TOKENS_REMEMBERED + 10 {
            verdicts.put(print, TokenStanding::Refused).await;
        }
        verdicts.by_print.run_pending_tasks().await;
        assert!(verdicts.by_print.entry_count() <= TOKENS_REMEMBERED);
    }
}
