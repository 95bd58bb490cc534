//! What each caller read last, per file: the blob the caller's latest window of a (project,
//! ref, path) came from, so the next window can say when the file changed at that ref in
//! between. Bounded (least recently used out); callers are told apart by a keyed hash of their
//! token, so no token is kept.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use crate::config::Credential;
use crate::lru::SharedLru;

/// How many (caller, file) pairs are remembered.
pub(crate) const REMEMBERED: u64 = 16_384;

/// Who is calling: a hash of the token under a key drawn at random for this process (0 for a
/// call without a token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Caller(u64);

impl Caller {
    pub(crate) fn of(credential: Option<&Credential>) -> Caller {
        static KEY: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
        let key = KEY.get_or_init(std::collections::hash_map::RandomState::new);
        Caller(credential.map_or(0, |c| key.hash_one(c.token.expose()) | 1))
    }
}

/// The last blob each caller read of each file.
#[derive(Debug)]
pub(crate) struct History {
    last: SharedLru<(Caller, String), String>,
}

impl History {
    pub(crate) fn new() -> Self {
        Self {
            last: SharedLru::new(REMEMBERED),
        }
    }

    /// Records that `caller`'s window of `file` came from blob `blob_id`, and returns the blob
    /// the caller's previous window of `file` came from, when that was another one.
    pub(crate) fn record(&self, caller: Caller, file: &str, blob_id: &str) -> Option<String> {
        let mut last = self.last.lock();
        let key = (caller, file.to_string());
        let previous = last.get(&key).filter(|p| *p != blob_id).cloned();
        last.insert(key, blob_id.to_string(), 1);
        previous
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Secret, TokenOrigin};

    fn credential(token: &str) -> Credential {
        Credential {
            token: Secret::new(token).unwrap(),
            origin: TokenOrigin::Request,
        }
    }

    #[test]
    fn a_change_is_reported_once_per_caller() {
        let history = History::new();
        let (alice, bob) = (
            Caller::of(Some(&credential("alice"))),
            Caller::of(Some(&credential("bob"))),
        );
        assert_ne!(alice, bob);
        assert_eq!(Caller::of(Some(&credential("alice"))), alice);
        assert_ne!(Caller::of(None), alice);
        assert_eq!(history.record(alice, "p\0main\0a", "x"), None);
        assert_eq!(history.record(alice, "p\0main\0a", "x"), None);
        assert_eq!(history.record(bob, "p\0main\0a", "y"), None);
        assert_eq!(
            history.record(alice, "p\0main\0a", "y").as_deref(),
            Some("x")
        );
        assert_eq!(history.record(alice, "p\0main\0a", "y"), None);
        assert_eq!(history.record(alice, "p\0main\0b", "z"), None);
    }
}
