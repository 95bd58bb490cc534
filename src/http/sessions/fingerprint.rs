//! A token's fingerprint: a keyed 64-bit hash with a fresh key per process, the only form in
//! which the HTTP layer keeps a caller's token between requests (who opened a session, what
//! GitLab said of a token, how many sessions a token holds). It says nothing about the token
//! outside the process.

use std::hash::{BuildHasher, RandomState};

use crate::config::Credential;

/// The key tokens are hashed with; clones hash alike.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fingerprints {
    key: RandomState,
}

impl Fingerprints {
    /// The fingerprint of `credential`'s token.
    pub(crate) fn of(&self, credential: &Credential) -> u64 {
        self.key.hash_one(credential.token.expose())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Secret, TokenOrigin};

    fn token(t: &str) -> Credential {
        Credential::new(Secret::new(t).unwrap(), TokenOrigin::Request)
    }

    #[test]
    fn fingerprints_are_keyed_per_process() {
        let (one, two) = (Fingerprints::default(), Fingerprints::default());
        let t = token("same-token");
        assert_eq!(one.of(&t), one.of(&t));
        assert_eq!(one.of(&t), one.clone().of(&t));
        assert_ne!(one.of(&t), one.of(&token("other-token")));
        // Two keys: a fingerprint says nothing about the token outside the process.
        assert_ne!(one.of(&t), two.of(&t));
    }
}
