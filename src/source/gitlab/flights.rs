//! Single flight: concurrent calls that would download the same thing take turns per key, so
//! the first downloads and the others, once it is done, find the result in the cache.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedMutexGuard;

/// One async lock per key, created on demand and dropped when no call holds or awaits it.
#[derive(Debug)]
pub(crate) struct Flights<K> {
    locks: Mutex<HashMap<K, Arc<tokio::sync::Mutex<()>>>>,
}

impl<K> Default for Flights<K> {
    fn default() -> Self {
        Self {
            locks: Mutex::new(HashMap::new()),
        }
    }
}

/// A turn for one key; the next waiting call gets its turn when this is dropped.
#[derive(Debug)]
pub(crate) struct Turn<'a, K: Hash + Eq + Clone> {
    flights: &'a Flights<K>,
    key: K,
    guard: Option<OwnedMutexGuard<()>>,
}

impl<K: Hash + Eq + Clone> Flights<K> {
    /// Waits for this key's turn.
    pub(crate) async fn turn(&self, key: K) -> Turn<'_, K> {
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
            Arc::clone(locks.entry(key.clone()).or_default())
        };
        let guard = lock.lock_owned().await;
        Turn {
            flights: self,
            key,
            guard: Some(guard),
        }
    }

    /// How many keys have a lock (held or awaited), for tests.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.locks.lock().map(|l| l.len()).unwrap_or(0)
    }
}

impl<K: Hash + Eq + Clone> Drop for Turn<'_, K> {
    fn drop(&mut self) {
        let mut locks = self.flights.locks.lock().unwrap_or_else(|p| p.into_inner());
        // Release first, then forget the lock if nobody else holds a handle to it (the map's
        // own handle is the only one left).
        drop(self.guard.take());
        if locks
            .get(&self.key)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            locks.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn one_key_one_turn_at_a_time_and_no_leftovers() {
        let flights: Arc<Flights<&'static str>> = Arc::default();
        let inside = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (flights, inside, most) = (flights.clone(), inside.clone(), most.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = flights.turn("blob").await;
                let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::task::yield_now().await;
                inside.fetch_sub(1, Ordering::SeqCst);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert_eq!(flights.len(), 0);
    }

    #[tokio::test]
    async fn other_keys_do_not_wait() {
        let flights: Flights<u8> = Flights::default();
        let _a = flights.turn(1).await;
        let _b = flights.turn(2).await;
        assert_eq!(flights.len(), 2);
    }
}
