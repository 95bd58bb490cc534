//! Single flight with a shared outcome: of concurrent calls that would do the same work (keyed
//! by `K`), the first leads and does it, the others follow and are handed the leader's outcome
//! (`T`) the moment it lands: all at once, a failure as well as a success. A flight ends when
//! its leader lands or is dropped (a cancelled call); the next call for the key leads a fresh
//! one. Who may follow is the caller's decision, made before it asks ([`Flights::join`]).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

use tokio::sync::watch;

/// The flights in progress, one per key.
#[derive(Debug)]
pub(crate) struct Flights<K, T> {
    running: Mutex<HashMap<K, watch::Receiver<Option<T>>>>,
}

impl<K, T> Default for Flights<K, T> {
    fn default() -> Self {
        Self {
            running: Mutex::new(HashMap::new()),
        }
    }
}

/// A call's part in a flight.
#[derive(Debug)]
pub(crate) enum FlightRole<'a, K: Hash + Eq + Clone, T: Clone> {
    /// No flight was running: this call does the work, and lands its outcome.
    Lead(Lead<'a, K, T>),
    /// A flight was running: this call may wait for its outcome.
    Follow(Follow<T>),
}

/// The leader's handle; dropping it without landing ends the flight with no outcome.
#[derive(Debug)]
pub(crate) struct Lead<'a, K: Hash + Eq + Clone, T: Clone> {
    flights: &'a Flights<K, T>,
    key: K,
    sender: watch::Sender<Option<T>>,
}

/// A follower's handle.
#[derive(Debug)]
pub(crate) struct Follow<T> {
    receiver: watch::Receiver<Option<T>>,
}

impl<K: Hash + Eq + Clone, T: Clone> Flights<K, T> {
    /// Leads a flight for `key`, or follows the one running.
    pub(crate) fn join(&self, key: K) -> FlightRole<'_, K, T> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(receiver) = running.get(&key) {
            return FlightRole::Follow(Follow {
                receiver: receiver.clone(),
            });
        }
        let (sender, receiver) = watch::channel(None);
        running.insert(key.clone(), receiver);
        FlightRole::Lead(Lead {
            flights: self,
            key,
            sender,
        })
    }

    /// Whether a flight for `key` is running, for tests.
    #[cfg(test)]
    fn is_running(&self, key: &K) -> bool {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running.contains_key(key)
    }

    /// How many flights are running, for tests.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.running.lock().map(|r| r.len()).unwrap_or(0)
    }
}

impl<K: Hash + Eq + Clone, T: Clone> Lead<'_, K, T> {
    /// Ends the flight, handing `outcome` to every follower. A call joining from now on leads
    /// a fresh flight.
    pub(crate) fn land(self, outcome: T) {
        self.end();
        self.sender.send_replace(Some(outcome));
    }

    /// Takes the flight off the running ones (if it is still this one).
    fn end(&self) {
        let mut running = self
            .flights
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if running
            .get(&self.key)
            .is_some_and(|r| r.same_channel(&self.sender.subscribe()))
        {
            running.remove(&self.key);
        }
    }
}

impl<K: Hash + Eq + Clone, T: Clone> Drop for Lead<'_, K, T> {
    fn drop(&mut self) {
        self.end();
    }
}

impl<T: Clone> Follow<T> {
    /// The leader's outcome, once it lands; `None` when the leader was dropped without one.
    pub(crate) async fn outcome(mut self) -> Option<T> {
        match self.receiver.wait_for(Option::is_some).await {
            Ok(landed) => landed.clone(),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_leader_many_followers_one_outcome_and_no_leftovers() {
        let flights: Flights<&'static str, Result<u32, String>> = Flights::default();
        let FlightRole::Lead(lead) = flights.join("blob") else {
            panic!("the first call leads")
        };
        let mut followers = Vec::new();
        for _ in 0..8 {
            let FlightRole::Follow(follow) = flights.join("blob") else {
                panic!("a flight is running")
            };
            followers.push(tokio::spawn(follow.outcome()));
        }
        // Some followers are waiting, some not yet: all get the one outcome.
        tokio::task::yield_now().await;
        lead.land(Err("timed out".into()));
        for f in followers {
            assert_eq!(f.await.unwrap(), Some(Err("timed out".into())));
        }
        assert_eq!(flights.len(), 0);
        // The next call leads a fresh flight.
        assert!(matches!(flights.join("blob"), FlightRole::Lead(_)));
    }

    #[tokio::test]
    async fn a_dropped_leader_ends_the_flight_without_an_outcome() {
        let flights: Flights<u8, u8> = Flights::default();
        let FlightRole::Lead(lead) = flights.join(1) else {
            panic!("leads")
        };
        let FlightRole::Follow(follow) = flights.join(1) else {
            panic!("follows")
        };
        assert!(flights.is_running(&1) && !flights.is_running(&2));
        drop(lead);
        assert_eq!(follow.outcome().await, None);
        assert!(!flights.is_running(&1));
    }

    #[tokio::test]
    async fn other_keys_do_not_wait() {
        let flights: Flights<u8, ()> = Flights::default();
        let _a = flights.join(1);
        assert!(matches!(flights.join(2), FlightRole::Lead(_)));
    }
}
