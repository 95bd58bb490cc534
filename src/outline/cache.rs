//! Outlines kept by blob id and language within a memory budget, least recently used out, so
//! an outline followed by symbol reads of the same blob costs one parse. Counted in the
//! metrics (`outline_cache_*`). A blob without an id is parsed every time.

use std::sync::Arc;

use super::definition::Outline;
use super::language::Language;
use super::parse::{OutlineError, outline};
use crate::lru::SharedLru;
use crate::metrics;

/// Bytes of outlines kept (a 600 KB source file's outline weighs about 0.5 MB).
pub(crate) const OUTLINE_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The shared outline cache.
#[derive(Debug)]
pub(crate) struct Outlines {
    cache: SharedLru<(String, Language), Arc<Outline>>,
}

impl Default for Outlines {
    fn default() -> Self {
        Self::new(OUTLINE_CACHE_BYTES)
    }
}

impl Outlines {
    pub(crate) fn new(budget: u64) -> Self {
        Self {
            cache: SharedLru::new(budget),
        }
    }

    /// The outline of `text` (the blob `blob_id`) in `language`: the kept one, else parsed now
    /// and kept. The lock is not held while parsing (two calls missing at once both parse).
    pub(crate) fn get(
        &self,
        blob_id: Option<&str>,
        language: Language,
        text: &str,
    ) -> Result<Arc<Outline>, OutlineError> {
        let Some(id) = blob_id else {
            return outline(text, language).map(Arc::new);
        };
        let key = (id.to_string(), language);
        let kept = self.cache.lock().get(&key).cloned();
        metrics::outline_lookup(kept.is_some());
        if let Some(kept) = kept {
            return Ok(kept);
        }
        let parsed = Arc::new(outline(text, language)?);
        let mut cache = self.cache.lock();
        cache.insert(key, Arc::clone(&parsed), parsed.weight());
        metrics::outline_cache_state(cache.weight(), cache.len(), cache.evictions());
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_parse_per_blob_and_language() {
        let outlines = Outlines::new(1 << 20);
        let a = outlines
            .get(Some("b1"), Language::Python, "def f():\n    pass\n")
            .unwrap();
        // Same id: the kept outline, whatever the text (a blob id names its bytes).
        let b = outlines.get(Some("b1"), Language::Python, "").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = outlines
            .get(Some("b1"), Language::Ruby, "def f\nend\n")
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        let d = outlines
            .get(None, Language::Python, "def f():\n    pass\n")
            .unwrap();
        assert_eq!(*d, *a);
    }

    #[test]
    fn the_budget_evicts() {
        let outlines = Outlines::new(1);
        let a = outlines
            .get(Some("b1"), Language::Python, "def f(): pass\n")
            .unwrap();
        let b = outlines
            .get(Some("b1"), Language::Python, "def f(): pass\n")
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &b), "nothing fits in one byte");
    }
}
