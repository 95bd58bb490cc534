//! Outlines kept by blob id and language within a memory budget, least recently used out, so
//! an outline followed by symbol reads of the same blob costs one parse. Counted in the
//! metrics (`outline_cache_*`). A blob without an id is parsed every time. What is kept is the
//! outline alone (its definitions, weighed by [`Outline::weight`]): the syntax tree is dropped
//! once walked, and after a large parse its memory is given back to the system. Each parse
//! may hold at most the cache's `parse_memory` bytes of tree ([`outline_until`]'s `memory`); a
//! parse stopped there is an error, and is not kept.

use std::sync::Arc;

use super::definition::Outline;
use super::language::Language;
use super::parse::{OutlineError, outline_until};
use crate::base::lru::SharedLru;
use crate::base::memory::{GIVE_BACK_BYTES, give_back};
use crate::metrics;

/// Bytes of outlines kept (a 600 KB source file's outline weighs about 0.5 MB).
pub(crate) const OUTLINE_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The shared outline cache, and the memory a parse may use.
#[derive(Debug)]
pub(crate) struct Outlines {
    cache: SharedLru<(String, Language), Arc<Outline>>,
    /// Bytes of syntax tree a parse may hold ([`outline_until`]'s `memory`).
    parse_memory: u64,
}

impl Outlines {
    /// Outlines kept within `budget` bytes, each parsed within `parse_memory` bytes of tree.
    pub(crate) fn new(budget: u64, parse_memory: u64) -> Self {
        Self {
            cache: SharedLru::new(budget),
            parse_memory,
        }
    }

    /// The outline of `text` (the blob `blob_id`) in `language`: the kept one, else parsed now
    /// (asking `go_on` as [`outline_until`] does: its error is the outer `Err`) and kept. The
    /// lock is not held while parsing (two calls missing at once both parse).
    pub(crate) fn get<E>(
        &self,
        blob_id: Option<&str>,
        language: Language,
        text: &str,
        go_on: impl FnMut() -> Result<(), E>,
    ) -> Result<Result<Arc<Outline>, OutlineError>, E> {
        let Some(id) = blob_id else {
            return Ok(parsed(text, language, self.parse_memory, go_on)?.map(Arc::new));
        };
        let key = (id.to_string(), language);
        let kept = self.cache.lock().get(&key).cloned();
        metrics::outline_lookup(kept.is_some());
        if let Some(kept) = kept {
            return Ok(Ok(kept));
        }
        let parsed = match parsed(text, language, self.parse_memory, go_on)? {
            Ok(parsed) => Arc::new(parsed),
            Err(e) => return Ok(Err(e)),
        };
        let mut cache = self.cache.lock();
        cache.insert(key, Arc::clone(&parsed), parsed.weight());
        metrics::outline_cache_state(cache.weight(), cache.len(), cache.evictions());
        Ok(Ok(parsed))
    }
}

/// [`outline_until`], and the memory of a large parse given back to the system once its tree
/// is dropped (also when it was stopped).
fn parsed<E>(
    text: &str,
    language: Language,
    memory: u64,
    go_on: impl FnMut() -> Result<(), E>,
) -> Result<Result<Outline, OutlineError>, E> {
    let outline = outline_until(text, language, memory, go_on);
    if text.len() >= GIVE_BACK_BYTES {
        give_back();
    }
    outline
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go_on() -> Result<(), ()> {
        Ok(())
    }

    #[test]
    fn one_parse_per_blob_and_language() {
        let outlines = Outlines::new(1 << 20, u64::MAX);
        let a = outlines
            .get(Some("b1"), Language::Python, "def f():\n    pass\n", go_on)
            .unwrap()
            .unwrap();
        // Same id: the kept outline, whatever the text (a blob id names its bytes).
        let b = outlines
            .get(Some("b1"), Language::Python, "", go_on)
            .unwrap()
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = outlines
            .get(Some("b1"), Language::Ruby, "def f\nend\n", go_on)
            .unwrap()
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        let d = outlines
            .get(None, Language::Python, "def f():\n    pass\n", go_on)
            .unwrap()
            .unwrap();
        assert_eq!(*d, *a);
    }

    #[test]
    fn the_budget_evicts() {
        let outlines = Outlines::new(1, u64::MAX);
        let a = outlines
            .get(Some("b1"), Language::Python, "def f(): pass\n", go_on)
            .unwrap()
            .unwrap();
        let b = outlines
            .get(Some("b1"), Language::Python, "def f(): pass\n", go_on)
            .unwrap()
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &b), "nothing fits in one byte");
    }

    #[test]
    fn a_stopped_parse_is_an_error_and_is_not_kept() {
        let outlines = Outlines::new(1 << 20, u64::MAX);
        let text = "def f():\n    pass\n".repeat(10_000);
        let mut asked = 0;
        let stopped = outlines.get(Some("b1"), Language::Python, &text, || {
            asked += 1;
            if asked < 3 { Ok(()) } else { Err("stop") }
        });
        assert_eq!(stopped.unwrap_err(), "stop");
        assert_eq!(asked, 3, "asked until it answered stop, then no more");
        // Not kept: the next call parses again, and finishes.
        let mut asked_again = 0;
        let again = outlines
            .get(Some("b1"), Language::Python, &text, || {
                asked_again += 1;
                Ok::<(), ()>(())
            })
            .unwrap()
            .unwrap();
        assert!(asked_again > 3, "{asked_again}");
        assert_eq!(again.definitions.len(), 10_000);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_parse_over_its_memory_is_refused_and_not_kept() {
        let outlines = Outlines::new(1 << 20, 100_000);
        let text = "def f():\n    pass\n".repeat(10_000);
        for _ in 0..2 {
            let refused = outlines.get(Some("b1"), Language::Python, &text, go_on);
            assert!(
                matches!(
                    refused,
                    Ok(Err(OutlineError::OverMemory {
                        budget: 100_000,
                        ..
                    }))
                ),
                "{refused:?}"
            );
        }
        assert_eq!(outlines.cache.lock().len(), 0);
    }
}
