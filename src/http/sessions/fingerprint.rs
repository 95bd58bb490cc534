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

    /// The fingerprint of who owns the sessions `credential` opens: for a sign-in's token who
    /// it acts for (refreshes bring new tokens), else its token.
    pub(crate) fn owner_of(&self, credential: &Credential) -> u64 {
        match &credential.owner {
            Some(owner) => self.key.hash_one(("owner", owner.expose())),
            None => self.of(credential),
        }
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

    #[test]
    fn an_owner_owns_across_its_tokens_and_no_token_is_an_owner() {
        let prints = Fingerprints::default();
        let signed = |t: &str, s: &str| Credential::signed_in(Secret::new(t).unwrap(), s);
        let (first, refreshed) = (signed("gl-1", "user:7"), signed("gl-2", "user:7"));
        assert_eq!(prints.owner_of(&first), prints.owner_of(&refreshed));
        assert_ne!(
            prints.owner_of(&first),
            prints.owner_of(&signed("gl-1", "user:8"))
        );
        // A plain token whose text is an owner's name is not that owner.
        assert_ne!(prints.owner_of(&token("user:7")), prints.owner_of(&first));
        // A token sealed before owners were named is owned by its token, as before.
        let unnamed = signed("gl-1", "");
        assert_eq!(prints.owner_of(&unnamed), prints.of(&token("gl-1")));
    }
}
