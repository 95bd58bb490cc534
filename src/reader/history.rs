//! What each caller read last, per file: the blob the caller's latest window of a (project,
//! ref, path) came from, so the next window can say when the file changed at that ref in
//! between. Bounded (least recently used out). A caller is a client this server can tell apart
//! from every other: the one client of a process (stdio, `read`), or over HTTP a token sent
//! with the request and the MCP session, when there is one — by a keyed hash, so no token or
//! session id is kept. Calls over HTTP with the server's own token and no session cannot be
//! told apart, so they are not remembered at all: no call is ever told about another
//! client's reads.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use crate::base::lru::SharedLru;
use crate::config::Credential;

/// How many (caller, file) pairs are remembered.
pub(crate) const READS_REMEMBERED: u64 = 16_384;

/// Who is calling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    /// The one client of this process.
    Process,
    /// An HTTP client: a hash of its token and session under a key drawn at random for this
    /// process.
    Http(u64),
}

impl Caller {
    /// An HTTP call, told apart by `own_token` (a token the request carried, not the server's)
    /// and `session` (its MCP session id); `None` when it has neither.
    pub(crate) fn over_http(
        own_token: Option<&Credential>,
        session: Option<&str>,
    ) -> Option<Caller> {
        static KEY: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
        if own_token.is_none() && session.is_none() {
            return None;
        }
        let key = KEY.get_or_init(std::collections::hash_map::RandomState::new);
        let token = own_token.map(|c| c.token.expose());
        Some(Caller::Http(key.hash_one((token, session))))
    }
}

/// A file as a read named it: the project (as the answer named it), the ref and the path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct FileKey {
    pub project: String,
    pub git_ref: String,
    pub path: String,
}

/// The last blob each caller read of each file.
#[derive(Debug)]
pub(crate) struct History {
    last: SharedLru<(Caller, FileKey), String>,
}

impl History {
    pub(crate) fn new() -> Self {
        Self {
            last: SharedLru::new(READS_REMEMBERED),
        }
    }

    /// Records that `caller`'s window of `file` came from blob `blob_id`, and returns the blob
    /// the caller's previous window of `file` came from, when that was another one.
    pub(crate) fn record(&self, caller: Caller, file: FileKey, blob_id: &str) -> Option<String> {
        let mut last = self.last.lock();
        let key = (caller, file);
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
        Credential::new(Secret::new(token).unwrap(), TokenOrigin::Request)
    }

    fn file(path: &str) -> FileKey {
        FileKey {
            project: "p".into(),
            git_ref: "main".into(),
            path: path.into(),
        }
    }

    #[test]
    fn a_change_is_reported_once_per_caller() {
        let history = History::new();
        let (alice, bob) = (
            Caller::over_http(Some(&credential("alice")), None).unwrap(),
            Caller::over_http(Some(&credential("bob")), None).unwrap(),
        );
        assert_ne!(alice, bob);
        assert_eq!(
            Caller::over_http(Some(&credential("alice")), None),
            Some(alice)
        );
        assert_eq!(history.record(alice, file("a"), "x"), None);
        assert_eq!(history.record(alice, file("a"), "x"), None);
        assert_eq!(history.record(bob, file("a"), "y"), None);
        assert_eq!(history.record(alice, file("a"), "y").as_deref(), Some("x"));
        assert_eq!(history.record(alice, file("a"), "y"), None);
        assert_eq!(history.record(alice, file("b"), "z"), None);
    }

    #[test]
    fn callers_are_told_apart_by_token_and_session_or_not_at_all() {
        let alice = credential("alice");
        // The server's token and no session: nobody to tell apart.
        assert_eq!(Caller::over_http(None, None), None);
        let s1 = Caller::over_http(None, Some("session-1"));
        assert!(s1.is_some());
        assert_ne!(s1, Caller::over_http(None, Some("session-2")));
        assert_ne!(s1, Caller::over_http(Some(&alice), Some("session-1")));
        assert_ne!(
            Caller::over_http(Some(&alice), None),
            Caller::over_http(Some(&alice), Some("session-1"))
        );
        assert_ne!(s1, Some(Caller::Process));
    }
}
