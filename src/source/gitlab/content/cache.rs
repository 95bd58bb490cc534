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

use super::keys::{ContentKey, LookupKey};
use crate::base::lru::SharedLru;
use crate::source::text::Text;

/// A cached entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cached {
    /// The whole text of the blob.
    Full(Arc<Text>),
    /// The first part of a blob longer than GitLab's 10 MiB read limit, as GraphQL returned it.
    Partial(Arc<Text>),
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
    entries: SharedLru<ContentKey, Cached>,
}

impl BlobCache {
    /// A cache of at most `budget_bytes`. An entry larger than the budget is not kept.
    pub(crate) fn new(budget_bytes: u64) -> Self {
        Self {
            entries: SharedLru::new(budget_bytes),
        }
    }

    /// The entry for `key`, now the most recently used.
    pub(crate) fn get(&self, key: &ContentKey) -> Option<Cached> {
        self.entries.lock().get(key).cloned()
    }

    /// Whether `key` is cached (not counted as a use).
    pub(crate) fn contains(&self, key: &ContentKey) -> bool {
        self.entries.lock().contains(key)
    }

    /// Stores `entry` under `key`, evicting the least recently used entries over the budget.
    /// Only a part is ever replaced (by the whole): an entry is admitted only as proven
    /// content or a proven verdict, and none contradicts another.
    pub(crate) fn put(&self, key: &ContentKey, entry: Cached) {
        let weight = entry.weight();
        let mut entries = self.entries.lock();
        if entries
            .peek(key)
            .is_some_and(|held| !matches!(held, Cached::Partial(_)))
        {
            tracing::debug!(%key, "already held whole: kept");
            return;
        }
        if entries.insert(key.clone(), entry, weight) {
            tracing::debug!(%key, weight, held = entries.weight(), "blob cached");
        } else {
            tracing::debug!(
                %key,
                weight,
                "blob larger than the whole cache budget: not cached"
            );
        }
        crate::metrics::cache_state(entries.weight(), entries.len(), entries.evictions());
    }

    /// Forgets `key` (to free a partial entry before its full download).
    pub(crate) fn forget(&self, key: &ContentKey) {
        let mut entries = self.entries.lock();
        entries.remove(key);
        crate::metrics::cache_state(entries.weight(), entries.len(), entries.evictions());
    }
}

/// The path-to-blob memory: which content (its cache key: a blob oid, or an LFS object) a
/// lookup (project, ref, path — or a URL's ref/path) named when last read, by anyone. Only a
/// hint: it decides whether a call asks GitLab for content; what is served comes from the oid
/// the call's own answer names.
#[derive(Debug)]
pub(crate) struct LastBlobs {
    seen: SharedLru<LookupKey, ContentKey>,
}

/// How many lookups [`LastBlobs`] remembers.
pub(crate) const HINTS: u64 = 4096;

impl LastBlobs {
    pub(crate) fn new() -> Self {
        Self {
            seen: SharedLru::new(HINTS),
        }
    }

    /// The content `lookup` named last time, if remembered.
    pub(crate) fn get(&self, lookup: &LookupKey) -> Option<ContentKey> {
        self.seen.lock().get(lookup).cloned()
    }

    /// Remembers that `lookup` named `content`.
    pub(crate) fn remember(&self, lookup: &LookupKey, content: &ContentKey) {
        self.seen.lock().insert(lookup.clone(), content.clone(), 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::ProjectRef;

    fn blob(oid: &str) -> ContentKey {
        ContentKey::Blob(oid.into())
    }

    #[test]
    fn the_byte_budget_evicts_least_recently_used() {
        let cache = BlobCache::new(10);
        cache.put(&blob("a"), Cached::Full(Arc::new("12345".into())));
        cache.put(&blob("b"), Cached::Partial(Arc::new("12345".into())));
        assert!(cache.get(&blob("a")).is_some()); // a is the most recent now
        cache.put(&blob("c"), Cached::Full(Arc::new("xyz".into())));
        assert!(
            !cache.contains(&blob("b")) && cache.contains(&blob("a")) && cache.contains(&blob("c"))
        );
        assert_eq!(cache.entries.lock().weight(), 8);
        cache.put(&blob("huge"), Cached::Full(Arc::new("x".repeat(11).into())));
        assert!(!cache.contains(&blob("huge")));
        cache.forget(&blob("a"));
        assert_eq!(cache.entries.lock().weight(), 3);
    }

    #[test]
    fn a_whole_entry_is_never_replaced_but_a_part_is() {
        let cache = BlobCache::new(100);
        cache.put(&blob("a"), Cached::Partial(Arc::new("12".into())));
        cache.put(&blob("a"), Cached::Full(Arc::new("1234".into())));
        assert_eq!(
            cache.get(&blob("a")),
            Some(Cached::Full(Arc::new("1234".into())))
        );
        cache.put(&blob("a"), Cached::Binary);
        cache.put(&blob("a"), Cached::Partial(Arc::new("12".into())));
        assert_eq!(
            cache.get(&blob("a")),
            Some(Cached::Full(Arc::new("1234".into())))
        );
        cache.put(&blob("b"), Cached::Binary);
        cache.put(&blob("b"), Cached::Full(Arc::new("x".into())));
        assert_eq!(cache.get(&blob("b")), Some(Cached::Binary));
    }

    #[test]
    fn hints_remember_the_latest_oid() {
        let hints = LastBlobs::new();
        let a = LookupKey::Named {
            project: ProjectRef::Path("p".into()),
            git_ref: "main".into(),
            path: "a".into(),
        };
        assert_eq!(hints.get(&a), None);
        hints.remember(&a, &blob("x"));
        hints.remember(&a, &blob("y"));
        assert_eq!(hints.get(&a), Some(blob("y")));
    }
}
