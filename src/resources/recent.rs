//! Completions answered a moment ago, per caller ([`Recent`]): a person typing asks again
//! for each key stroke, and the same prefix within [`FRESH_FOR`] is answered without asking
//! GitLab again. Keyed by the fingerprint of the caller's own token (SHA-256; anonymous
//! callers share the anonymous answers), so no caller is ever answered from another's.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::CompletionInfo;
use sha2::{Digest, Sha256};

use crate::config::Credential;

/// How long an answer is reused.
pub(crate) const FRESH_FOR: Duration = Duration::from_secs(30);

/// The most answers kept; past it the stale ones go, then all.
const MAX_KEPT: usize = 1024;

/// What a completion answered: whose, which variable, at which project, for what was typed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CompletionKey {
    caller: Option<[u8; 32]>,
    what: String,
}

impl CompletionKey {
    /// The key of `parts` asked by the holder of `credential`.
    pub(crate) fn new(credential: Option<&Credential>, parts: &[&str]) -> Self {
        let caller = credential.map(|c| Sha256::digest(c.token.expose().as_bytes()).into());
        Self {
            caller,
            what: parts.join("\u{1f}"),
        }
    }
}

/// The recent answers.
#[derive(Debug, Default)]
pub(crate) struct Recent {
    kept: Mutex<HashMap<CompletionKey, (Instant, CompletionInfo)>>,
}

impl Recent {
    /// The answer to `asked` if it is fresh.
    pub(crate) fn get(&self, asked: &CompletionKey, now: Instant) -> Option<CompletionInfo> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let (at, info) = kept.get(asked)?;
        (now.duration_since(*at) < FRESH_FOR).then(|| info.clone())
    }

    /// Keeps `info` as the answer to `asked`.
    pub(crate) fn put(&self, asked: CompletionKey, info: CompletionInfo, now: Instant) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= MAX_KEPT {
            kept.retain(|_, (at, _)| now.duration_since(*at) < FRESH_FOR);
            if kept.len() >= MAX_KEPT {
                kept.clear();
            }
        }
        kept.insert(asked, (now, info));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Secret, TokenOrigin};

    fn credential(token: &str) -> Credential {
        Credential::new(Secret::new(token).expect("a token"), TokenOrigin::Request)
    }

    #[test]
    fn an_answer_is_reused_by_its_caller_only_and_not_for_long() {
        let recent = Recent::default();
        let (alice, bob) = (credential("alice-token"), credential("bob-token"));
        let now = Instant::now();
        let asked = CompletionKey::new(Some(&alice), &["project", "gr"]);
        let info = super::super::complete::info(vec!["group/a".into()]);
        recent.put(asked.clone(), info.clone(), now);
        assert_eq!(recent.get(&asked, now), Some(info));
        let by_bob = CompletionKey::new(Some(&bob), &["project", "gr"]);
        assert_eq!(recent.get(&by_bob, now), None);
        assert_eq!(
            recent.get(&CompletionKey::new(None, &["project", "gr"]), now),
            None
        );
        assert_eq!(recent.get(&asked, now + FRESH_FOR), None);
    }
}
