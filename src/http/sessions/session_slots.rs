//! How many MCP sessions are open, per token fingerprint and in all, and the caps on both
//! (`--max-sessions-per-token`, `--max-sessions`). A session takes its slot before
//! `initialize` runs ([`Slots::reserve`]), so concurrent initializes cannot pass a cap; the
//! slot is the session's once rmcp names it ([`Reservation::bind`]) and free again when the
//! session ends ([`Slots::release`], idempotent: rmcp reports an end more than once), or at
//! once when no session came of it (the [`Reservation`] is dropped). Pure.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caps {
    /// Sessions one token may hold (applies only to sessions opened with a caller's token).
    pub per_token: u32,
    /// Sessions the server holds in all.
    pub total: u32,
}

/// Which cap a session would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The token holds [`Caps::per_token`] sessions.
    Token,
    /// The server holds [`Caps::total`] sessions.
    Total,
}

#[derive(Debug, Default)]
struct State {
    /// Slots taken (sessions and reservations), by token fingerprint.
    per_print: HashMap<u64, u32>,
    /// Slots taken in all.
    total: u32,
    /// Open sessions: id → the fingerprint whose slot it holds (`None`: no caller token).
    sessions: HashMap<String, Option<u64>>,
}

impl State {
    fn free(&mut self, print: Option<u64>) {
        self.total = self.total.saturating_sub(1);
        if let Some(print) = print
            && let Some(held) = self.per_print.get_mut(&print)
        {
            *held = held.saturating_sub(1);
            if *held == 0 {
                self.per_print.remove(&print);
            }
        }
    }
}

/// The open sessions' slots.
#[derive(Debug)]
pub(crate) struct Slots {
    caps: Caps,
    state: Mutex<State>,
}

impl Slots {
    pub(crate) fn new(caps: Caps) -> Arc<Self> {
        Arc::new(Self {
            caps,
            state: Mutex::new(State::default()),
        })
    }

    pub(crate) fn caps(&self) -> Caps {
        self.caps
    }

    // A panic while the lock is held leaves the counts as they were: keep using them.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a session about to open with the token `print` (`None`: the server's own
    /// token, counted in the total only), or the cap it would pass.
    pub(crate) fn reserve(self: &Arc<Self>, print: Option<u64>) -> Result<Reservation, Full> {
        let mut state = self.state();
        if state.total >= self.caps.total {
            return Err(Full::Total);
        }
        if let Some(print) = print {
            let held = state.per_print.entry(print).or_insert(0);
            if *held >= self.caps.per_token {
                return Err(Full::Token);
            }
            *held += 1;
        }
        state.total += 1;
        Ok(Reservation {
            slots: Arc::clone(self),
            print,
            bound: false,
        })
    }

    /// Frees the slot of `session`, if it holds one; `true` if it did.
    pub(crate) fn release(&self, session: &str) -> bool {
        let mut state = self.state();
        let Some(print) = state.sessions.remove(session) else {
            return false;
        };
        state.free(print);
        true
    }

    /// Sessions open now.
    pub(crate) fn open(&self) -> usize {
        self.state().sessions.len()
    }
}

/// A slot taken for a session not yet opened; dropped unbound, it is free again.
#[derive(Debug)]
#[must_use = "the slot is free again when this is dropped"]
pub(crate) struct Reservation {
    slots: Arc<Slots>,
    print: Option<u64>,
    bound: bool,
}

impl Reservation {
    /// The slot is `session`'s until [`Slots::release`].
    pub(crate) fn bind(mut self, session: &str) {
        let mut state = self.slots.state();
        if let Some(old) = state.sessions.insert(session.to_string(), self.print) {
            // rmcp's ids are random: a repeat would be a second session under one id. Keep
            // one slot for it.
            state.free(old);
        }
        self.bound = true;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.bound {
            self.slots.state().free(self.print);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(per_token: u32, total: u32) -> Arc<Slots> {
        Slots::new(Caps { per_token, total })
    }

    #[test]
    fn a_token_holds_at_most_its_cap_and_an_end_frees_a_slot() {
        let s = slots(2, 10);
        s.reserve(Some(1)).unwrap().bind("a");
        s.reserve(Some(1)).unwrap().bind("b");
        assert_eq!(s.reserve(Some(1)).unwrap_err(), Full::Token);
        // Another token is not held back by the first one's cap.
        s.reserve(Some(2)).unwrap().bind("c");
        assert_eq!(s.open(), 3);
        assert!(s.release("a"));
        // Ends are reported more than once: the second frees nothing.
        assert!(!s.release("a"));
        assert!(!s.release("never-opened"));
        s.reserve(Some(1)).unwrap().bind("d");
        assert_eq!(s.reserve(Some(1)).unwrap_err(), Full::Token);
        assert_eq!(s.open(), 3);
    }

    #[test]
    fn the_total_cap_counts_every_token_and_the_servers_own() {
        let s = slots(64, 3);
        s.reserve(Some(1)).unwrap().bind("a");
        s.reserve(None).unwrap().bind("b");
        let pending = s.reserve(Some(2)).unwrap();
        // A reservation holds its slot before its session exists.
        assert_eq!(s.reserve(Some(3)).unwrap_err(), Full::Total);
        assert_eq!(s.reserve(None).unwrap_err(), Full::Total);
        drop(pending);
        s.reserve(Some(3)).unwrap().bind("c");
        assert_eq!(s.reserve(Some(4)).unwrap_err(), Full::Total);
        assert!(s.release("b"));
        s.reserve(None).unwrap().bind("d");
        assert_eq!(s.open(), 3);
    }

    #[test]
    fn a_reservation_dropped_unbound_frees_its_slot_at_once() {
        let s = slots(1, 1);
        drop(s.reserve(Some(1)).unwrap());
        s.reserve(Some(1)).unwrap().bind("a");
        assert_eq!(s.open(), 1);
        assert!(s.release("a"));
        assert_eq!(s.open(), 0);
        // Nothing is left behind for the token once its sessions are gone.
        assert!(s.state().per_print.is_empty());
        assert_eq!(s.state().total, 0);
    }

    #[test]
    fn a_repeated_session_id_keeps_one_slot() {
        let s = slots(5, 5);
        s.reserve(Some(1)).unwrap().bind("a");
        s.reserve(Some(1)).unwrap().bind("a");
        assert_eq!(s.open(), 1);
        assert_eq!(s.state().total, 1);
        assert_eq!(s.state().per_print.get(&1), Some(&1));
    }
}
