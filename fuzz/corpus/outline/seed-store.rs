//! A small key-value store with expiring entries.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

/// How long an entry lives when no lifetime is given.
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);

/// One stored value and when it expires.
#[derive(Debug, Clone)]
pub struct Entry<V> {
    value: V,
    expires: Instant,
}

/// Why a lookup found nothing.
#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    Absent,
    Expired { by: Duration },
}

/// Something that can be stored.
pub trait Storable: Clone {
    /// The size the value counts for.
    fn weight(&self) -> usize;

    fn describe(&self) -> String {
        format!("{} bytes", self.weight())
    }
}

pub type Key = String;

pub struct Store<V> {
    entries: HashMap<Key, Entry<V>>,
}

impl<V: Storable> Store<V> {
    /// An empty store.
    pub fn new() -> Self {
        Store {
            entries: HashMap::new(),
        }
    }

    /// Stores `value` under `key` for `ttl`.
    #[inline]
    pub fn put(&mut self, key: Key, value: V, ttl: Duration) {
        let expires = Instant::now() + ttl;
        self.entries.insert(key, Entry { value, expires });
    }

    pub fn get(&self, key: &str) -> Result<&V, Miss> {
        let entry = self.entries.get(key).ok_or(Miss::Absent)?;
        let now = Instant::now();
        if entry.expires < now {
            return Err(Miss::Expired { by: now - entry.expires });
        }
        Ok(&entry.value)
    }
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Miss::Absent => f.write_str("absent"),
            Miss::Expired { by } => write!(f, "expired {by:?} ago"),
        }
    }
}

pub mod sweep {
    use super::*;

    /// Drops every expired entry; returns how many went.
    pub fn sweep<V: Storable>(store: &mut Store<V>) -> usize {
        let before = store.entries.len();
        store.entries.retain(|_, e| e.expires >= Instant::now());
        before - store.entries.len()
    }
}

macro_rules! key {
    ($s:expr) => {
        String::from($s)
    };
}
