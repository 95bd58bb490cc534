//! What GitLab last said of each token, by fingerprint, for a short time: a token it accepted
//! for [`ACCEPTED_FOR`], one it refused for [`REFUSED_FOR`] (shorter, so a token just created
//! or fixed is not held refused for long). At most [`TOKENS_REMEMBERED`] tokens, the least recently
//! used forgotten first, so made-up tokens cannot grow it. Pure: the time is passed in.

use std::time::{Duration, Instant};

use crate::base::lru::SharedLru;
use crate::source::gitlab::TokenStanding;

/// How long an accepted token is believed without asking GitLab again.
pub(crate) const ACCEPTED_FOR: Duration = Duration::from_secs(60);
/// How long a refused token is refused without asking GitLab again.
pub(crate) const REFUSED_FOR: Duration = Duration::from_secs(10);
/// The most tokens remembered.
pub(crate) const TOKENS_REMEMBERED: u64 = 16_384;

/// Token fingerprint → what GitLab said and when.
#[derive(Debug)]
pub(crate) struct Verdicts {
    by_print: SharedLru<u64, (TokenStanding, Instant)>,
}

impl Default for Verdicts {
    fn default() -> Self {
        Self {
            by_print: SharedLru::new(TOKENS_REMEMBERED),
        }
    }
}

impl Verdicts {
    /// What GitLab said of the token `print` at most its standing's time before `now`.
    pub(crate) fn get(&self, print: u64, now: Instant) -> Option<TokenStanding> {
        let mut by_print = self.by_print.lock();
        let &(standing, said) = by_print.get(&print)?;
        if now.saturating_duration_since(said) < lasts(standing) {
            return Some(standing);
        }
        by_print.remove(&print);
        None
    }

    /// Records that GitLab said `standing` of the token `print` at `now`.
    pub(crate) fn put(&self, print: u64, standing: TokenStanding, now: Instant) {
        self.by_print.lock().insert(print, (standing, now), 1);
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

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_verdict_lasts_as_long_as_its_kind() {
        let verdicts = Verdicts::default();
        let t0 = Instant::now();
        assert_eq!(verdicts.get(1, t0), None);
        verdicts.put(1, TokenStanding::Accepted, t0);
        verdicts.put(2, TokenStanding::Refused, t0);
        assert_eq!(verdicts.get(1, t0), Some(TokenStanding::Accepted));
        assert_eq!(verdicts.get(2, t0), Some(TokenStanding::Refused));
        let later = t0 + REFUSED_FOR - SECOND;
        assert_eq!(verdicts.get(2, later), Some(TokenStanding::Refused));
        // A refusal is forgotten first; an acceptance lasts up to its own time, not past it.
        assert_eq!(verdicts.get(2, t0 + REFUSED_FOR), None);
        assert_eq!(
            verdicts.get(1, t0 + ACCEPTED_FOR - SECOND),
            Some(TokenStanding::Accepted)
        );
        assert_eq!(verdicts.get(1, t0 + ACCEPTED_FOR), None);
        // Expired entries are gone, not merely hidden: asking again later still misses.
        assert_eq!(verdicts.get(1, t0), None);
        // A new verdict replaces the old one.
        verdicts.put(1, TokenStanding::Refused, t0);
        assert_eq!(verdicts.get(1, t0), Some(TokenStanding::Refused));
    }

    #[test]
    fn at_most_the_remembered_number_of_tokens_are_kept() {
        let verdicts = Verdicts::default();
        let t0 = Instant::now();
        for print in 0..TOKENS_REMEMBERED + 10 {
            verdicts.put(print, TokenStanding::Refused, t0);
        }
        assert_eq!(verdicts.by_print.lock().len() as u64, TOKENS_REMEMBERED);
        // The oldest went first.
        assert_eq!(verdicts.get(0, t0), None);
        assert_eq!(
            verdicts.get(TOKENS_REMEMBERED + 9, t0),
            Some(TokenStanding::Refused)
        );
    }
}
