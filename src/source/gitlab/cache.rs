//! The blob cache: file contents by content address (a git blob oid, or `lfs:<sha256>` for an
//! LFS object), bounded by a byte budget, least recently used first out. A content address
//! never changes its bytes, so a cached entry is never wrong; who may read it is decided by
//! every call's own validating request, before the cache is consulted. One cache serves every
//! caller.
//!
//! Beside it, a small map (also bounded, least recently used out) of which blob a (project,
//! ref, path) named last time ([`LastBlobs`]), so a call can ask GitLab without content when that
//! blob is cached.

use std::sync::Arc;

use crate::lru::SharedLru;

/// A cached entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cached {
    /// The whole text of the blob.
    Full(Arc<String>),
    /// The first part of a blob longer than GitLab's 10 MiB read limit, as GraphQL returned it.
    Partial(Arc<String>),
    /// The blob is not text (so no content is asked for or downloaded again).
    Binary,
}

impl Cached {
    /// Bytes it holds (a verdict counts 64, so that many of them still cost something).
    fn weight(&self) -> u64 {
        match self {
            Cached::Full(t) | Cached::Partial(t) => t.len() as u64,
            Cached::Binary => 64,
        }
    }
}

/// The content cache. Thread-safe; no lock is held across an `.await`.
#[derive(Debug)]
pub(crate) struct BlobCache {
    entries: SharedLru<String, Cached>,
}

impl BlobCache {
    /// A cache of at most `budget_bytes`. An entry larger than the budget is not kept.
    pub(crate) fn new(budget_bytes: u64) -> Self {
        Self {
            entries: SharedLru::new(budget_bytes),
        }
    }

    /// The entry for `key`, now the most recently used.
    pub(crate) fn get(&self, key: &str) -> Option<Cached> {
        self.entries.lock().get(&key.to_string()).cloned()
    }

    /// Whether `key` is cached (not counted as a use).
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.entries.lock().contains(&key.to_string())
    }

    /// Stores `entry` under `key`, evicting the least recently used entries over the budget.
    pub(crate) fn put(&self, key: &str, entry: Cached) {
        let weight = entry.weight();
        let mut entries = self.entries.lock();
        if entries.insert(key.to_string(), entry, weight) {
            tracing::debug!(key, weight, held = entries.weight(), "blob cached");
        } else {
            tracing::debug!(
                key,
                weight,
                "blob larger than the whole cache budget: not cached"
            );
        }
    }

    /// Forgets `key` (to free a partial entry before its full download).
    pub(crate) fn forget(&self, key: &str) {
        self.entries.lock().remove(&key.to_string());
    }
}

/// The path-to-blob memory: which content (its cache key: a blob oid, or an LFS object) a
/// lookup (project, ref, path — or a URL's ref/path) named when last read, by anyone. Only a
/// hint: it decides whether a call asks GitLab for content; what is served comes from the oid
/// the call's own answer names.
#[derive(Debug)]
pub(crate) struct LastBlobs {
    seen: SharedLru<String, String>,
}

/// How many lookups [`LastBlobs`] remembers.
pub(crate) const HINTS: u64 = 4096;

impl LastBlobs {
    pub(crate) fn new() -> Self {
        Self {
            seen: SharedLru::new(HINTS),
        }
    }

    /// The oid `lookup` named last time, if remembered.
    pub(crate) fn get(&self, lookup: &str) -> Option<String> {
        self.seen.lock().get(&lookup.to_string()).cloned()
    }

    /// Remembers that `lookup` named `oid`.
    pub(crate) fn remember(&self, lookup: &str, oid: &str) {
        self.seen
            .lock()
            .insert(lookup.to_string(), oid.to_string(), 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_budget_evicts_least_recently_used() {
        let cache = BlobCache::new(10);
        cache.put("a", Cached::Full(Arc::new("12345".into())));
        cache.put("b", Cached::Partial(Arc::new("12345".into())));
        assert!(cache.get("a").is_some()); // a is the most recent now
        cache.put("c", Cached::Full(Arc::new("xyz".into())));
        assert!(!cache.contains("b") && cache.contains("a") && cache.contains("c"));
        assert_eq!(cache.entries.lock().weight(), 8);
        cache.put("huge", Cached::Full(Arc::new("x".repeat(11))));
        assert!(!cache.contains("huge"));
        cache.forget("a");
        assert_eq!(cache.entries.lock().weight(), 3);
    }

    #[test]
    fn hints_remember_the_latest_oid() {
        let hints = LastBlobs::new();
        assert_eq!(hints.get("p\0main\0a"), None);
        hints.remember("p\0main\0a", "x");
        hints.remember("p\0main\0a", "y");
        assert_eq!(hints.get("p\0main\0a").as_deref(), Some("y"));
    }
}
