//! CPU-bound work off the async workers: a job (rendering a view of a large blob — searching
//! it, windowing it — or parsing a large GraphQL answer) runs on tokio's blocking threads, at
//! most [`threads`] jobs at once (a semaphore in front of `spawn_blocking`; later jobs wait
//! their turn without holding a worker), so `/healthz`, `/metrics` and other callers are
//! answered while it runs.
//!
//! A job is told to stop when its caller gives up: dropping the future that awaits it (the
//! call's deadline passed, the server drains, the client left) sets the job's [`Stop`] flag,
//! which the job checks between steps (a search between blocks of lines), so its thread is free
//! within a step's time. Work on less than [`INLINE_BYTES`] runs where it is called: handing it
//! over would cost more than doing it.
//!
//! Shared fairly: a call runs as one caller ([`as_caller`], set by the tool for an HTTP caller
//! it can tell apart), and a caller holds at most [`per_caller`] of the slots at once, so one
//! caller's heavy calls queue behind their own, never in front of everyone's (issue 46: two
//! timed-out outlines of one caller made every other caller's pool work time out).
//!
//! Work that comes in small steps as a body streams (decoding gzip, hashing a download: a few
//! microseconds per chunk) stays on the async worker, but is [`Pace`]d: back-to-back chunks that
//! are already there never wait, so without a pause one poll could decode a whole body (a small
//! compressed answer that expands to megabytes); the stream yields to the other tasks after
//! every [`PACE_BYTES`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::Duration;

use tokio::sync::Semaphore;

/// Work on fewer bytes than this runs on the calling task (microseconds of work).
pub(crate) const INLINE_BYTES: usize = 64 * 1024;

/// The jobs that may run at once: one per core, at least 2.
static POOL: LazyLock<Arc<Semaphore>> = LazyLock::new(|| Arc::new(Semaphore::new(threads())));

tokio::task_local! {
    /// The caller the running call works for ([`as_caller`]).
    static CALLER: u64;
}

/// The slots each caller may hold, by caller; entries of callers with no job are dropped.
static CALLERS: LazyLock<Mutex<HashMap<u64, Weak<Semaphore>>>> = LazyLock::new(Mutex::default);

/// The most jobs one caller runs at once: all but one slot (at least 1), so another caller
/// always finds one.
pub(crate) fn per_caller() -> usize {
    threads().saturating_sub(1).max(1)
}

/// Runs `work` as the caller `key` (`None`: a caller not told apart, such as the one client
/// of a stdio server, whose jobs are bounded by the pool alone).
pub(crate) async fn as_caller<T>(key: Option<u64>, work: impl Future<Output = T>) -> T {
    match key {
        Some(key) => CALLER.scope(key, work).await,
        None => work.await,
    }
}

/// The slots of the caller the running call works for, when it has one.
fn caller_slots() -> Option<Arc<Semaphore>> {
    let key = CALLER.try_with(|key| *key).ok()?;
    // A poisoned lock only means another thread panicked holding it; the map is still whole.
    let mut callers = CALLERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(slots) = callers.get(&key).and_then(Weak::upgrade) {
        return Some(slots);
    }
    callers.retain(|_, slots| slots.strong_count() > 0);
    let slots = Arc::new(Semaphore::new(per_caller()));
    callers.insert(key, Arc::downgrade(&slots));
    Some(slots)
}

/// The most jobs running at once: the machine's cores, at least 2 (so one long job never holds
/// every slot of a one-core machine).
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

/// The job was told to stop: its caller gave up on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the work was stopped: its caller gave up on it")]
pub(crate) struct Stopped;

/// What a job asks between its steps: whether to go on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stop(Arc<AtomicBool>);

impl Stop {
    /// `Err(Stopped)` once the job's caller has given up.
    pub(crate) fn go_on(&self) -> Result<(), Stopped> {
        if self.0.load(Ordering::Relaxed) {
            Err(Stopped)
        } else {
            Ok(())
        }
    }

    fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Stops the job when dropped: the future awaiting it is gone (after the job's end, harmless).
struct StopOnDrop(Stop);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Why a job gave no result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CpuError {
    /// The job panicked (a bug); its panic was logged by tokio's hook.
    #[error("internal error: the work panicked")]
    Panicked(#[source] tokio::task::JoinError),
    /// The pool's semaphore was closed (never done).
    #[error("internal error: the work pool is closed")]
    Closed(#[source] tokio::sync::AcquireError),
}

/// Runs `job`, whose work is about `bytes` bytes, off the async workers (module doc), and
/// returns what it returns. Dropping the returned future tells the job to stop.
pub(crate) async fn run<T, J>(bytes: usize, job: J) -> Result<T, CpuError>
where
    T: Send + 'static,
    J: FnOnce(&Stop) -> T + Send + 'static,
{
    let stop = Stop::default();
    if !on_pool(bytes) {
        return Ok(job(&stop));
    }
    let _stop_on_drop = StopOnDrop(stop.clone());
    // The caller's own slot first: its queue is its own.
    let own = match caller_slots() {
        Some(slots) => Some(slots.acquire_owned().await.map_err(CpuError::Closed)?),
        None => None,
    };
    let permit = Arc::clone(&POOL)
        .acquire_owned()
        .await
        .map_err(CpuError::Closed)?;
    // The permit goes with the job: a stopped job holds its slot until it has stopped.
    let handle = tokio::task::spawn_blocking(move || {
        let _permits = (permit, own);
        job(&stop)
    });
    handle.await.map_err(CpuError::Panicked)
}

/// Whether [`run`] hands work of `bytes` bytes to the pool (else it runs where it is called).
pub(crate) fn on_pool(bytes: usize) -> bool {
    bytes >= INLINE_BYTES
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what a job's budget
/// counts, so a machine under load does not refuse work a quiet one accepts. Zero if the clock
/// cannot be read (never on Linux).
pub(crate) fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer to a local.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if read != 0 {
        return Duration::ZERO;
    }
    let secs = u64::try_from(now.tv_sec).unwrap_or_default();
    let nanos = u32::try_from(now.tv_nsec).unwrap_or_default();
    Duration::new(secs, nanos)
}

/// How many bytes a stream passes between two yields to the other tasks: a fraction of a
/// millisecond of gunzip and hashing in a release build.
pub(crate) const PACE_BYTES: usize = 256 * 1024;

/// Counts the bytes a stream has passed since it last yielded ([`Self::step`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Pace {
    since_yield: usize,
}

impl Pace {
    /// Counts `bytes` more; whether the stream is due to yield (then counts from zero again).
    fn due(&mut self, bytes: usize) -> bool {
        self.since_yield = self.since_yield.saturating_add(bytes);
        if self.since_yield < PACE_BYTES {
            return false;
        }
        self.since_yield = 0;
        true
    }

    /// Counts `bytes` more, and yields to the other tasks once every [`PACE_BYTES`].
    pub(crate) async fn step(&mut self, bytes: usize) {
        if self.due(bytes) {
            tokio::task::yield_now().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[tokio::test]
    async fn small_work_runs_inline_and_large_work_on_a_blocking_thread() {
        let here = std::thread::current().id();
        let small = run(INLINE_BYTES - 1, |_| std::thread::current().id()).await;
        assert_eq!(small.unwrap(), here);
        let large = run(INLINE_BYTES, |_| std::thread::current().id()).await;
        assert_ne!(large.unwrap(), here);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_callers_jobs_queue_behind_its_own_and_another_caller_runs() {
        // Issue 46: one caller's heavy calls held every slot of the pool.
        let running = Arc::new(AtomicU64::new(0));
        let most = Arc::new(AtomicU64::new(0));
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let heavy: Vec<_> = (0..threads() + 1)
            .map(|_| {
                let (running, most, release) = (running.clone(), most.clone(), release_rx.clone());
                tokio::spawn(as_caller(Some(4601), async move {
                    run(INLINE_BYTES, move |_| {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        let _ = release.lock().unwrap().recv();
                        running.fetch_sub(1, Ordering::SeqCst);
                    })
                    .await
                }))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        // Another caller's job runs while the first caller's are all held.
        let other = as_caller(Some(4602), run(INLINE_BYTES, |_| 7)).await;
        assert_eq!(other.unwrap(), 7);
        assert!(heavy.iter().all(|h| !h.is_finished()));
        for _ in 0..heavy.len() {
            release_tx.send(()).unwrap();
        }
        for h in heavy {
            h.await.unwrap().unwrap();
        }
        assert!(most.load(Ordering::SeqCst) <= per_caller() as u64);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_caller_stops_the_job_between_steps() {
        let steps = Arc::new(AtomicU64::new(0));
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let counted = Arc::clone(&steps);
        let job = run(INLINE_BYTES, move |stop: &Stop| {
            // Steps of about a millisecond until told to stop.
            while stop.go_on().is_ok() {
                std::thread::sleep(Duration::from_millis(1));
                counted.fetch_add(1, Ordering::Relaxed);
            }
            done_tx.send(()).unwrap();
        });
        let cut = tokio::time::timeout(Duration::from_millis(50), job).await;
        assert!(cut.is_err(), "the job never ends by itself");
        // Stopped within a step (a generous bound: the machine is shared).
        done_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let after = steps.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            steps.load(Ordering::Relaxed),
            after,
            "no step after the stop"
        );
    }

    #[test]
    fn a_thread_s_cpu_time_counts_its_work_not_its_sleep() {
        let start = thread_cpu_time();
        assert!(start > Duration::ZERO);
        // Work until this thread's clock has moved by 20 ms (a hash of many numbers). Only
        // moving it at all was not enough: a clock a few microseconds in could be passed by a
        // new thread's own start-up, and the test failed once in a warm CI run.
        let work = Duration::from_millis(20);
        let mut x: u64 = 1;
        while thread_cpu_time() < start + work {
            for i in 0..100_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
            }
        }
        std::hint::black_box(x);
        // Another thread's clock is its own: it counts its start-up, not this thread's work.
        let other = std::thread::spawn(thread_cpu_time).join().unwrap();
        assert!(other < work, "a new thread's clock read {other:?}");
        assert!(other < thread_cpu_time());
    }

    #[test]
    fn a_pace_is_due_once_per_pace_bytes_whatever_the_chunks() {
        let mut pace = Pace::default();
        // Nothing passed, nothing due; one byte short of the step, still nothing.
        assert!(!pace.due(0));
        assert!(!pace.due(PACE_BYTES - 1));
        // The byte that reaches the step: due, and counting starts again.
        assert!(pace.due(1));
        assert!(!pace.due(PACE_BYTES - 1));
        // A chunk larger than the step is one yield, not several.
        assert!(pace.due(10 * PACE_BYTES));
        assert!(!pace.due(1));
        // 4 KiB frames (reqwest's gzip decoder): one yield per 64 of them.
        let mut pace = Pace::default();
        let yields = (0..640).filter(|_| pace.due(4096)).count();
        assert_eq!(yields, 640 * 4096 / PACE_BYTES);
        // A count that would overflow saturates, and is due.
        let mut pace = Pace::default();
        assert!(!pace.due(PACE_BYTES - 1));
        assert!(pace.due(usize::MAX));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_step_that_is_due_lets_the_other_tasks_run() {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&ran);
        // On one thread, the other task runs only when this one yields.
        let other = tokio::spawn(async move { flag.store(true, Ordering::Relaxed) });
        let mut pace = Pace::default();
        pace.step(PACE_BYTES - 1).await;
        assert!(!ran.load(Ordering::Relaxed), "no yield before the step");
        pace.step(1).await;
        assert!(ran.load(Ordering::Relaxed), "the step yielded");
        other.await.unwrap();
    }

    #[tokio::test]
    async fn a_panicking_job_is_an_error() {
        let e = run(INLINE_BYTES, |_| -> () { panic!("a bug") })
            .await
            .unwrap_err();
        assert!(matches!(e, CpuError::Panicked(_)), "{e:?}");
        assert_eq!(e.to_string(), "internal error: the work panicked");
    }
}
