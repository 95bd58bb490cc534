//! A least-recently-used map bounded by the total weight of its values: the blob cache weighs
//! entries in bytes, the small maps of what was last seen weigh each entry 1.
//!
//! [`Lru`] itself is not synchronised; [`SharedLru`] is one behind a mutex, for state every
//! call shares (its lock is never held across an `.await`). Every operation is O(log n).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard};

/// The map. `budget` is the most total weight it holds.
#[derive(Debug)]
pub(crate) struct Lru<K, V> {
    entries: HashMap<K, Slot<V>>,
    /// Use order: the oldest use first.
    order: BTreeMap<u64, K>,
    clock: u64,
    weight: u64,
    budget: u64,
    /// Entries evicted over the budget since the map was made.
    evicted: u64,
}

#[derive(Debug)]
struct Slot<V> {
    value: V,
    weight: u64,
    used: u64,
}

impl<K: Hash + Eq + Clone, V> Lru<K, V> {
    pub(crate) fn new(budget: u64) -> Self {
        Self {
            entries: HashMap::new(),
            order: BTreeMap::new(),
            clock: 0,
            weight: 0,
            budget,
            evicted: 0,
        }
    }

    /// The value for `key`, which becomes the most recently used.
    pub(crate) fn get(&mut self, key: &K) -> Option<&V> {
        let now = self.tick();
        let slot = self.entries.get_mut(key)?;
        self.order.remove(&slot.used);
        slot.used = now;
        self.order.insert(now, key.clone());
        Some(&slot.value)
    }

    /// Whether `key` is held, without counting as a use.
    pub(crate) fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    /// The value for `key`, without counting as a use.
    pub(crate) fn peek(&self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|slot| &slot.value)
    }

    /// Stores `value` under `key` (replacing any value there) as the most recently used, then
    /// evicts the least recently used entries until the total weight is within the budget.
    /// A value heavier than the whole budget is not stored (and any old value for `key` is
    /// removed): it returns `false`.
    pub(crate) fn insert(&mut self, key: K, value: V, weight: u64) -> bool {
        self.remove(&key);
        if weight > self.budget {
            return false;
        }
        let used = self.tick();
        self.order.insert(used, key.clone());
        self.entries.insert(
            key,
            Slot {
                value,
                weight,
                used,
            },
        );
        self.weight += weight;
        self.evict_over_budget();
        true
    }

    /// Removes `key`'s entry, if any.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let slot = self.entries.remove(key)?;
        self.order.remove(&slot.used);
        self.weight -= slot.weight;
        Some(slot.value)
    }

    /// The total weight held.
    pub(crate) fn weight(&self) -> u64 {
        self.weight
    }

    /// How many entries are held.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// How many entries were evicted over the budget since the map was made (a removal or a
    /// replacement is no eviction).
    pub(crate) fn evictions(&self) -> u64 {
        self.evicted
    }

    fn evict_over_budget(&mut self) {
        while self.weight > self.budget {
            let Some((_, oldest)) = self.order.pop_first() else {
                return;
            };
            if let Some(slot) = self.entries.remove(&oldest) {
                self.weight -= slot.weight;
                self.evicted += 1;
            }
        }
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

/// An [`Lru`] shared by concurrent calls.
#[derive(Debug)]
pub(crate) struct SharedLru<K, V>(Mutex<Lru<K, V>>);

impl<K: Hash + Eq + Clone, V> SharedLru<K, V> {
    pub(crate) fn new(budget: u64) -> Self {
        Self(Mutex::new(Lru::new(budget)))
    }

    /// The map, for one operation or a few in a row.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Lru<K, V>> {
        // Every operation on the map completes its bookkeeping before it could panic, so a
        // poisoned lock still holds a consistent map.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_first() {
        let mut lru: Lru<&str, u8> = Lru::new(10);
        assert!(lru.insert("a", 1, 4));
        assert!(lru.insert("b", 2, 4));
        assert_eq!(lru.get(&"a"), Some(&1)); // a is now the most recent
        assert!(lru.insert("c", 3, 4)); // 12 > 10: b goes
        assert!(!lru.contains(&"b"));
        assert!(lru.contains(&"a") && lru.contains(&"c"));
        assert_eq!(lru.weight(), 8);
    }

    #[test]
    fn replacing_a_key_reweighs_it() {
        let mut lru: Lru<&str, u8> = Lru::new(10);
        lru.insert("a", 1, 9);
        lru.insert("a", 2, 3);
        assert_eq!(lru.weight(), 3);
        assert_eq!(lru.get(&"a"), Some(&2));
    }

    #[test]
    fn a_value_heavier_than_the_budget_is_not_kept() {
        let mut lru: Lru<&str, u8> = Lru::new(10);
        lru.insert("a", 1, 5);
        assert!(!lru.insert("a", 2, 11));
        assert!(!lru.contains(&"a"));
        assert_eq!(lru.weight(), 0);
        assert!(lru.insert("b", 3, 10));
        assert_eq!(lru.weight(), 10);
    }

    #[test]
    fn one_heavy_insert_can_evict_many() {
        let mut lru: Lru<u32, ()> = Lru::new(10);
        for k in 0..10 {
            lru.insert(k, (), 1);
        }
        lru.insert(99, (), 7);
        assert_eq!(lru.weight(), 10);
        assert!((0..7).all(|k| !lru.contains(&k)));
        assert!((7..10).all(|k| lru.contains(&k)));
        assert_eq!((lru.len(), lru.evictions()), (4, 7));
        assert_eq!(lru.remove(&99), Some(()));
        assert_eq!(lru.weight(), 3);
        // A removal, a replacement and a refused heavy value evict nothing.
        lru.insert(7, (), 2);
        lru.insert(50, (), 11);
        assert_eq!((lru.len(), lru.evictions()), (3, 7));
    }
}
