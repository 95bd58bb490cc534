//! Per-call accounting of the time spent waiting on GitLab, so the server's own time per call
//! (total minus upstream) can be logged and measured. Upstream time is collected in a
//! task-local cell set up by [`measure`]; outside it, [`record_upstream`] does nothing.

use std::cell::Cell;
use std::future::Future;
use std::time::{Duration, Instant};

tokio::task_local! {
    static UPSTREAM: Cell<Duration>;
}

/// How long a call took, and how much of that was spent waiting on GitLab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallTiming {
    pub total: Duration,
    pub upstream: Duration,
}

impl CallTiming {
    /// The server's own time: total minus upstream (never negative).
    pub(crate) fn own(&self) -> Duration {
        self.total.saturating_sub(self.upstream)
    }
}

/// Runs `f`, returning its output and its timing.
pub(crate) async fn measure<F: Future>(f: F) -> (F::Output, CallTiming) {
    let start = Instant::now();
    let (output, upstream) = UPSTREAM
        .scope(Cell::new(Duration::ZERO), async {
            let output = f.await;
            (output, UPSTREAM.with(Cell::get))
        })
        .await;
    (
        output,
        CallTiming {
            total: start.elapsed(),
            upstream,
        },
    )
}

/// Adds `d` to the current call's upstream time (network and retry waits).
pub(crate) fn record_upstream(d: Duration) {
    let _ = UPSTREAM.try_with(|c| c.set(c.get() + d));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn upstream_is_subtracted_and_scoped() {
        let ((), t) = measure(async {
            record_upstream(Duration::from_millis(5));
            record_upstream(Duration::from_millis(7));
        })
        .await;
        assert_eq!(t.upstream, Duration::from_millis(12));
        assert!(t.total >= Duration::ZERO);
        assert_eq!(
            CallTiming {
                total: Duration::from_millis(3),
                upstream: Duration::from_millis(5)
            }
            .own(),
            Duration::ZERO
        );
        record_upstream(Duration::from_secs(1)); // outside a scope: ignored, no panic
    }
}
