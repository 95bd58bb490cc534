//! The sign-in tokens GitLab refused while serving a call (`--oauth`): when a GitLab request
//! made with a signed-in user's token answers 401, the token is marked here, so that the HTTP
//! layer answers that request (when its answer is not streaming yet) and every later one with
//! 401 `invalid_token` instead of waiting for its remembered verdict to expire. Kept as
//! SHA-256 digests, at most [`REMEMBERED`], the least recently marked forgotten first.

use std::sync::LazyLock;

use sha2::{Digest, Sha256};

use super::lru::SharedLru;

/// The most tokens remembered.
pub(crate) const REMEMBERED: u64 = 16_384;

static REFUSED: LazyLock<SharedLru<[u8; 32], ()>> = LazyLock::new(|| SharedLru::new(REMEMBERED));

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Marks `token` refused by GitLab.
pub(crate) fn mark(token: &str) {
    REFUSED.lock().insert(digest(token), (), 1);
}

/// Whether GitLab refused `token` while serving a call.
pub(crate) fn is_marked(token: &str) -> bool {
    REFUSED.lock().contains(&digest(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_token_stays_marked() {
        assert!(!is_marked("refused-tokens-test-a"));
        mark("refused-tokens-test-a");
        assert!(is_marked("refused-tokens-test-a"));
        assert!(!is_marked("refused-tokens-test-b"));
    }
}
