//! The trees `search_repository` listed, kept by commit ([`TreeCache`]): a listing of a
//! directory at a commit never changes, so a second search of the same commit asks the source
//! only which commit the ref names. Bounded by the bytes of its entries (least recently used
//! out), published as `tree_cache_*` in `/metrics`.
//!
//! A listing is found for any caller who resolved the ref (with their own credential) to the
//! same commit of the same project: what it names, that caller may read. A directory's listing
//! is also cut out of a cached listing of the root or of a directory above it.

use std::sync::Arc;

use crate::base::lru::SharedLru;
use crate::source::tree::{ItemKind, Items, TreeItem};

/// The default budget: 64 MiB of entries (a 60,000-path tree weighs about 10 MB).
pub(crate) const DEFAULT_TREE_CACHE_BYTES: u64 = 64 << 20;

/// A listing's key: the project (its full path; empty locally), the commit, the directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct TreeKey {
    pub project: String,
    pub commit: String,
    pub dir: String,
}

/// The cache.
#[derive(Debug)]
pub(crate) struct TreeCache {
    lru: SharedLru<TreeKey, Items>,
}

impl TreeCache {
    pub(crate) fn new(budget_bytes: u64) -> Self {
        Self {
            lru: SharedLru::new(budget_bytes),
        }
    }

    /// The listing of `key.dir`: its own, or the part of an ancestor's (the root's first).
    pub(crate) fn get(&self, key: &TreeKey) -> Option<Items> {
        let mut lru = self.lru.lock();
        let found = lru.get(key).cloned().or_else(|| {
            ancestors(&key.dir).find_map(|dir| {
                let above = TreeKey { dir, ..key.clone() };
                lru.get(&above).map(|items| under(items, &key.dir))
            })
        });
        crate::metrics::tree_lookup(found.is_some());
        found
    }

    /// Keeps `items`, the listing of `key.dir`; a listing over the budget is served, not kept.
    pub(crate) fn put(&self, key: TreeKey, items: Items) {
        let weight = items.iter().map(TreeItem::weight).sum::<u64>() + 64;
        let mut lru = self.lru.lock();
        lru.insert(key, items, weight);
        crate::metrics::tree_cache_state(lru.weight(), lru.len(), lru.evictions());
    }
}

/// The directories above `dir`, the root first (none for the root itself).
fn ancestors(dir: &str) -> impl Iterator<Item = String> + '_ {
    let cuts = dir.match_indices('/').map(|(i, _)| i);
    let root = (!dir.is_empty()).then(String::new);
    root.into_iter()
        .chain(cuts.map(move |i| dir[..i].to_string()))
}

/// The items of a sorted listing that lie under `dir` (or `dir` itself, when it is a file),
/// as a listing of their own.
fn under(items: &Items, dir: &str) -> Items {
    if let Ok(i) = items.binary_search_by(|it| (*it.path).cmp(dir))
        && items[i].kind == ItemKind::Blob
    {
        return Arc::new(vec![items[i].clone()]);
    }
    let prefix = format!("{dir}/");
    let start = items.partition_point(|i| *i.path < *prefix.as_str());
    let picked = items[start..]
        .iter()
        .take_while(|i| i.path.starts_with(&prefix))
        .cloned()
        .collect();
    Arc::new(picked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(path: &str, kind: ItemKind) -> TreeItem {
        TreeItem::for_tests(path, kind)
    }

    fn key(dir: &str) -> TreeKey {
        TreeKey {
            project: "g/p".into(),
            commit: "c".into(),
            dir: dir.into(),
        }
    }

    #[test]
    fn a_directory_is_cut_out_of_the_root() {
        let cache = TreeCache::new(1 << 20);
        let root = vec![
            item("a", ItemKind::Tree),
            item("a-b.txt", ItemKind::Blob),
            item("a/x.rs", ItemKind::Blob),
            item("a/y", ItemKind::Tree),
            item("a/y/z.rs", ItemKind::Blob),
            item("b.md", ItemKind::Blob),
        ];
        cache.put(key(""), Arc::new(root));
        let a = cache.get(&key("a")).unwrap();
        let paths: Vec<&str> = a.iter().map(|i| &*i.path).collect();
        assert_eq!(paths, ["a/x.rs", "a/y", "a/y/z.rs"]);
        let file = cache.get(&key("b.md")).unwrap();
        assert_eq!(file.len(), 1);
        assert!(cache.get(&key("nope")).unwrap().is_empty());
        let other = TreeKey {
            commit: "d".into(),
            ..key("a")
        };
        assert!(cache.get(&other).is_none());
    }

    #[test]
    fn a_tree_of_60000_paths_weighs_less_than_10_mb() {
        // Paths of 60 characters (longer than most), 40-hex ids.
        let items: Vec<TreeItem> = (0..60_000)
            .map(|i| item(&format!("{:0>60}", i), ItemKind::Blob))
            .collect();
        let weight: u64 = items.iter().map(TreeItem::weight).sum();
        assert!(weight < 10_000_000, "{weight}");
    }

    #[test]
    fn ancestors_start_at_the_root() {
        let all: Vec<String> = ancestors("a/b/c").collect();
        assert_eq!(all, ["", "a", "a/b"]);
        assert_eq!(ancestors("").count(), 0);
    }
}
