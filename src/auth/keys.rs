//! The sealing keys (`GITLAB_FILE_MCP_OAUTH_KEYS`): one or more 32-byte keys, base64url without
//! padding, comma-separated. The first seals, every one opens, so a key is rotated by putting a
//! new one first and dropping the old one once what it sealed has expired.
//!
//! A sealed text is `base64url(nonce ‖ ciphertext ‖ tag)`, ChaCha20-Poly1305 (ring) with a
//! random 96-bit nonce; the additional data names what kind of thing was sealed, so that one
//! kind never opens as another ([`super::sealed`]). Beside them, PKCE's S256 (RFC 7636).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

/// Why `GITLAB_FILE_MCP_OAUTH_KEYS` was refused; its Display never quotes a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum KeyError {
    #[error(
        "GITLAB_FILE_MCP_OAUTH_KEYS is empty: give one or more keys, each 32 random bytes in base64url without padding (e.g. `head -c32 /dev/urandom | basenc --base64url | tr -d =`), comma-separated"
    )]
    Empty,
    #[error(
        "GITLAB_FILE_MCP_OAUTH_KEYS: key {position} is not base64url without padding (characters A-Z a-z 0-9 - _, no `=`)"
    )]
    NotBase64 { position: usize },
    #[error(
        "GITLAB_FILE_MCP_OAUTH_KEYS: key {position} is {bytes} bytes long once decoded; each key must be exactly 32 random bytes"
    )]
    WrongLength { position: usize, bytes: usize },
}

/// The keys, the sealing one first.
pub(crate) struct SealKeys {
    keys: Vec<LessSafeKey>,
    random: SystemRandom,
}

impl std::fmt::Debug for SealKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealKeys({} keys, [redacted])", self.keys.len())
    }
}

impl SealKeys {
    /// Parses the variable's value: comma-separated keys, blanks around them ignored.
    pub(crate) fn parse(value: &str) -> Result<Self, KeyError> {
        let mut keys = Vec::new();
        for (index, text) in value.split(',').map(str::trim).enumerate() {
            let position = index + 1;
            if text.is_empty() {
                continue;
            }
            let bytes = URL_SAFE_NO_PAD
                .decode(text)
                .map_err(|_| KeyError::NotBase64 { position })?;
            let wrong = KeyError::WrongLength {
                position,
                bytes: bytes.len(),
            };
            let unbound = UnboundKey::new(&CHACHA20_POLY1305, &bytes).map_err(|_| wrong)?;
            keys.push(LessSafeKey::new(unbound));
        }
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Self {
            keys,
            random: SystemRandom::new(),
        })
    }

    /// Seals `plain` with the first key, `kind` as additional data. `None` only if the system's
    /// random source fails.
    pub(crate) fn seal(&self, kind: &str, plain: &[u8]) -> Option<String> {
        let mut nonce = [0u8; NONCE_LEN];
        self.random.fill(&mut nonce).ok()?;
        let mut sealed = plain.to_vec();
        // `keys` is never empty (`parse`).
        let key = self.keys.first()?;
        key.seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(kind.as_bytes()),
            &mut sealed,
        )
        .ok()?;
        let mut text = nonce.to_vec();
        text.extend_from_slice(&sealed);
        Some(URL_SAFE_NO_PAD.encode(text))
    }

    /// Opens a text [`Self::seal`] made of `kind`, with whichever key sealed it.
    pub(crate) fn open(&self, kind: &str, text: &str) -> Option<Vec<u8>> {
        let bytes = URL_SAFE_NO_PAD.decode(text.trim()).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        self.keys.iter().find_map(|key| {
            let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
            let mut buffer = sealed.to_vec();
            let plain = key
                .open_in_place(nonce, Aad::from(kind.as_bytes()), &mut buffer)
                .ok()?;
            Some(plain.to_vec())
        })
    }

    /// `n` random bytes, base64url (for ids, verifiers and CSRF values).
    pub(crate) fn random_text(&self, n: usize) -> Option<String> {
        let mut bytes = vec![0u8; n];
        self.random.fill(&mut bytes).ok()?;
        Some(URL_SAFE_NO_PAD.encode(bytes))
    }
}

/// RFC 7636's S256: `BASE64URL(SHA256(verifier))`.
pub(crate) fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// RFC 7636 §4.1: 43 to 128 characters of `A-Z a-z 0-9 - . _ ~`.
pub(crate) fn is_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    const B: &str = "HxweHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE";

    #[test]
    fn keys_parse_or_say_which_one_is_wrong() {
        assert!(SealKeys::parse(A).is_ok());
        assert!(SealKeys::parse(&format!(" {A} , {B} ,")).is_ok());
        assert_eq!(SealKeys::parse("").unwrap_err(), KeyError::Empty);
        assert_eq!(SealKeys::parse(" , ").unwrap_err(), KeyError::Empty);
        assert_eq!(
            SealKeys::parse(&format!("{A},{A}=")).unwrap_err(),
            KeyError::NotBase64 { position: 2 }
        );
        assert_eq!(
            SealKeys::parse("AAEC").unwrap_err(),
            KeyError::WrongLength {
                position: 1,
                bytes: 3
            }
        );
        let shown = format!("{:?}", SealKeys::parse(A).unwrap());
        assert!(!shown.contains(A), "{shown}");
    }

    #[test]
    fn sealed_opens_only_with_its_kind_and_a_listed_key() {
        let old = SealKeys::parse(A).unwrap();
        let sealed = old.seal("code", b"hello").unwrap();
        assert_eq!(old.open("code", &sealed).as_deref(), Some(&b"hello"[..]));
        assert_eq!(old.open("access", &sealed), None);
        // Rotation: the new key first, the old one still opens.
        let rotated = SealKeys::parse(&format!("{B},{A}")).unwrap();
        assert_eq!(
            rotated.open("code", &sealed).as_deref(),
            Some(&b"hello"[..])
        );
        let newer = rotated.seal("code", b"x").unwrap();
        assert_eq!(old.open("code", &newer), None);
        // The old key dropped: what it sealed no longer opens.
        assert_eq!(SealKeys::parse(B).unwrap().open("code", &sealed), None);
        // Tampering, truncation, garbage.
        let mut bytes = sealed.into_bytes();
        let last = bytes.len() - 2;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(old.open("code", &String::from_utf8(bytes).unwrap()), None);
        for junk in ["", "abc", "glpat-xxxxxxxxxxxxxxxxxxxx", "!!!"] {
            assert_eq!(old.open("code", junk), None, "{junk}");
        }
        // Two seals of one text differ (random nonce).
        assert_ne!(old.seal("code", b"a"), old.seal("code", b"a"));
    }
    #[test]
    fn s256_as_rfc_7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert!(is_verifier(verifier));
        assert_eq!(
            challenge_of(verifier),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(!is_verifier("short"));
        assert!(!is_verifier(&"a".repeat(129)));
        assert!(!is_verifier(&format!("{}+", "a".repeat(43))));
    }
}
