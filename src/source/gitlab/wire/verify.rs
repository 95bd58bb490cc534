//! Admission by proof: content is filed in the blob cache under a content address only when it
//! is shown to be the content of that address. Bytes from GitLab's REST raw endpoints are hashed
//! while they stream — a git blob id is `sha1("blob <len>\0" + bytes)` (40 hex) or sha256 of
//! the same (64 hex, SHA-256 repositories), an LFS object id the sha256 of the bytes alone —
//! and a blob's length is checked against the size GitLab's GraphQL answer named. GraphQL text,
//! whose bytes GitLab may have re-encoded, cannot be hashed to its oid; it is admitted only
//! when its length agrees with the answer's own metadata ([`graphql_text`]). Pure: no I/O.

use sha1::Sha1;
use sha2::{Digest, Sha256};

/// GitLab's GraphQL read limit (`MAX_DATA_DISPLAY_SIZE`): at most this many bytes of a blob
/// come back in `rawTextBlob`.
pub(crate) const READ_LIMIT: u64 = 10 * 1024 * 1024;

/// How far below [`READ_LIMIT`] GitLab's cut may end: it falls back to a UTF-8 character
/// boundary, at most 3 bytes.
const CUT_SLACK: u64 = 3;

/// What bytes must be to be admitted under an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expected {
    /// A git blob of `size` bytes (GraphQL's `size`) with this oid.
    GitBlob { oid: String, size: u64 },
    /// An LFS object with this sha256 (the pointer's `oid sha256:`, GraphQL's `lfsOid`) and,
    /// when GitLab named it, this size (the pointer's `size`, GraphQL's `rawSize`): a longer
    /// download stops one byte past it.
    Lfs { sha256: String, size: Option<u64> },
}

/// Why bytes are not the content they were asked for as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Problem {
    /// More bytes than the size the metadata names (the download stopped there).
    #[error("it is longer than the {expected} bytes GitLab's metadata names")]
    TooLong { expected: u64 },
    /// Fewer bytes than the size the metadata names.
    #[error("it is {got} bytes long, not the {expected} bytes GitLab's metadata names")]
    TooShort { expected: u64, got: u64 },
    /// The right length, other bytes.
    #[error("its bytes hash to {got}, not to {expected}")]
    Hash { expected: String, got: String },
    /// An address that is neither 40 nor 64 hex digits: nothing can be proven against it.
    #[error("'{address}' is not a content address this server can check")]
    Address { address: String },
}

/// GitLab's answer for `what` (`blob <oid> of '<path>'`, `the LFS object <sha256> of
/// '<path>'`) was not that content. Never cached, never served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "GitLab's answer did not match {what}: {problem}. Nothing of it was kept or returned. Call again; if it persists, something between this server and GitLab alters its answers."
)]
pub(crate) struct Mismatch {
    pub what: String,
    #[source]
    pub problem: Problem,
}

/// A file stored in LFS whose object GitLab does not have: asked for the object, it serves
/// the pointer. Permanent, unlike a download that went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "File '{path}' is stored in LFS, but GitLab does not have its LFS object (it serves only the pointer), so its content cannot be read. Calling again will not help; the object must be pushed to GitLab again (git lfs push)."
)]
pub(crate) struct LfsObjectMissing {
    pub path: String,
}

enum Hasher {
    Sha1(Sha1),
    Sha256(Sha256),
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
        }
    }

    fn hex(self) -> String {
        let digest = match self {
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
        };
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A hash being taken of bytes as they arrive, to be compared with what was expected.
pub(crate) struct Digesting {
    expected: Expected,
    hasher: Hasher,
    seen: u64,
}

impl std::fmt::Debug for Digesting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Digesting")
            .field("expected", &self.expected)
            .field("seen", &self.seen)
            .finish_non_exhaustive()
    }
}

impl Digesting {
    /// Starts the hash `expected` calls for (a blob's begins with git's object header).
    pub(crate) fn new(expected: Expected) -> Result<Self, Problem> {
        let address = match &expected {
            Expected::GitBlob { oid, .. } => oid,
            Expected::Lfs { sha256, .. } => sha256,
        };
        let hexadecimal = address.bytes().all(|b| b.is_ascii_hexdigit());
        let mut hasher = match (address.len(), &expected) {
            (40, Expected::GitBlob { .. }) if hexadecimal => Hasher::Sha1(Sha1::new()),
            (64, _) if hexadecimal => Hasher::Sha256(Sha256::new()),
            _ => {
                return Err(Problem::Address {
                    address: address.clone(),
                });
            }
        };
        if let Expected::GitBlob { size, .. } = &expected {
            hasher.update(format!("blob {size}\0").as_bytes());
        }
        Ok(Self {
            expected,
            hasher,
            seen: 0,
        })
    }

    /// The size the content must have, when it is known.
    pub(crate) fn expected_len(&self) -> Option<u64> {
        match &self.expected {
            Expected::GitBlob { size, .. } => Some(*size),
            Expected::Lfs { size, .. } => *size,
        }
    }

    /// Hashes the next bytes; content longer than its size is refused as soon as it is.
    pub(crate) fn update(&mut self, bytes: &[u8]) -> Result<(), Problem> {
        self.seen += bytes.len() as u64;
        if let Some(size) = self.expected_len()
            && self.seen > size
        {
            return Err(Problem::TooLong { expected: size });
        }
        self.hasher.update(bytes);
        Ok(())
    }

    /// Whether everything hashed is the expected content.
    pub(crate) fn finish(self) -> Result<(), Problem> {
        if let Some(size) = self.expected_len()
            && self.seen != size
        {
            return Err(Problem::TooShort {
                expected: size,
                got: self.seen,
            });
        }
        let expected = match self.expected {
            Expected::GitBlob { oid, .. } => oid,
            Expected::Lfs { sha256, .. } => sha256,
        };
        let got = self.hasher.hex();
        if got.eq_ignore_ascii_case(&expected) {
            Ok(())
        } else {
            Err(Problem::Hash { expected, got })
        }
    }
}

/// Whether `bytes` are the content `expected` names: the rule the cache admits REST and LFS
/// bytes by ([`Digesting`], which the downloads feed chunk by chunk), in one piece.
#[cfg(test)]
pub(crate) fn admit(expected: &Expected, bytes: &[u8]) -> Result<(), Problem> {
    let mut digesting = Digesting::new(expected.clone())?;
    digesting.update(bytes)?;
    digesting.finish()
}

/// What GraphQL text is, judged by the size the same answer names for the blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextFit {
    /// As long as the blob: the whole of it.
    Whole,
    /// The first part of a blob past the read limit, cut where GitLab cuts.
    Part,
    /// Neither: not admitted (the blob is read from REST by oid instead, and hashed).
    Inconsistent,
}

/// Judges GraphQL text of `decoded_len` bytes (UTF-8, decoded from `rawTextBlob`) against the
/// blob's `size`: whole when the lengths agree; a part only when the blob is past the read
/// limit and the text ends where GitLab's cut does (at the limit, or up to 3 bytes before it at
/// a character boundary); anything else is inconsistent.
pub(crate) fn graphql_text(decoded_len: u64, size: u64) -> TextFit {
    if decoded_len == size {
        TextFit::Whole
    } else if size > READ_LIMIT
        && decoded_len <= READ_LIMIT
        && decoded_len + CUT_SLACK >= READ_LIMIT
    {
        TextFit::Part
    } else {
        TextFit::Inconsistent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sha1_blob(bytes: &[u8]) -> String {
        let mut h = Sha1::new();
        h.update(format!("blob {}\0", bytes.len()).as_bytes());
        h.update(bytes);
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn sha256_of(parts: &[&[u8]]) -> String {
        let mut h = Sha256::new();
        for p in parts {
            h.update(p);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn blob(bytes: &[u8]) -> Expected {
        Expected::GitBlob {
            oid: sha1_blob(bytes),
            size: bytes.len() as u64,
        }
    }

    #[test]
    fn known_ids() {
        // `git hash-object` of an empty file and of "hello\n".
        let empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
        assert_eq!(sha1_blob(b""), empty);
        let hello = Expected::GitBlob {
            oid: "ce013625030ba8dba906f756967f9e9ca394464a".into(),
            size: 6,
        };
        assert_eq!(admit(&hello, b"hello\n"), Ok(()));
        // A SHA-256 repository's id of the same blob.
        let header = b"blob 6\0";
        let sha256 = Expected::GitBlob {
            oid: sha256_of(&[header, b"hello\n"]),
            size: 6,
        };
        assert_eq!(admit(&sha256, b"hello\n"), Ok(()));
        let lfs = Expected::Lfs {
            sha256: "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824".into(),
            size: Some(5),
        };
        assert_eq!(admit(&lfs, b"hello"), Ok(()));
    }

    #[test]
    fn wrong_length_and_bytes_are_named() {
        let e = blob(b"abc");
        assert_eq!(admit(&e, b"abcd"), Err(Problem::TooLong { expected: 3 }));
        assert_eq!(
            admit(&e, b"ab"),
            Err(Problem::TooShort {
                expected: 3,
                got: 2
            })
        );
        assert!(matches!(admit(&e, b"abd"), Err(Problem::Hash { .. })));
        // An LFS object whose size GitLab did not name is proven by its hash alone.
        let lfs = Expected::Lfs {
            sha256: sha256_of(&[b"abc"]),
            size: None,
        };
        assert!(matches!(admit(&lfs, b"abcd"), Err(Problem::Hash { .. })));
        // With the pointer's size, a longer download stops one byte past it (issue 35: an
        // object store streaming 1 GiB for a 92 KB pointer was read to --max-file-bytes).
        let lfs = Expected::Lfs {
            sha256: sha256_of(&[b"abc"]),
            size: Some(3),
        };
        let mut d = Digesting::new(lfs.clone()).unwrap();
        assert_eq!(d.update(b"abc"), Ok(()));
        assert_eq!(d.update(b"d"), Err(Problem::TooLong { expected: 3 }));
        assert_eq!(
            admit(&lfs, b"ab"),
            Err(Problem::TooShort {
                expected: 3,
                got: 2
            })
        );
    }

    #[test]
    fn addresses_that_cannot_be_checked_admit_nothing() {
        for oid in ["", "abc", &"g".repeat(40), &"a".repeat(41)] {
            let e = Expected::GitBlob {
                oid: oid.into(),
                size: 0,
            };
            assert!(
                matches!(admit(&e, b""), Err(Problem::Address { .. })),
                "{oid}"
            );
        }
        // An LFS id is a sha256: 40 hex is not one.
        let e = Expected::Lfs {
            sha256: "a".repeat(40),
            size: None,
        };
        assert!(matches!(admit(&e, b""), Err(Problem::Address { .. })));
    }

    #[test]
    fn the_mismatch_error_names_the_blob_first() {
        let m = Mismatch {
            what: "blob abc of 'a.txt'".into(),
            problem: Problem::TooShort {
                expected: 3,
                got: 2,
            },
        };
        assert!(
            m.to_string()
                .starts_with("GitLab's answer did not match blob abc of 'a.txt': it is 2 bytes long, not the 3 bytes"),
            "{m}"
        );
    }

    #[test]
    fn graphql_text_against_its_size() {
        assert_eq!(graphql_text(0, 0), TextFit::Whole);
        assert_eq!(graphql_text(5, 5), TextFit::Whole);
        // Shorter or longer than a blob within the limit: not the blob.
        assert_eq!(graphql_text(4, 5), TextFit::Inconsistent);
        assert_eq!(graphql_text(6, 5), TextFit::Inconsistent);
        // A blob past the limit: cut at the limit, or up to 3 bytes before it.
        let past = READ_LIMIT + 100;
        assert_eq!(graphql_text(READ_LIMIT, past), TextFit::Part);
        assert_eq!(graphql_text(READ_LIMIT - 3, past), TextFit::Part);
        assert_eq!(graphql_text(READ_LIMIT - 4, past), TextFit::Inconsistent);
        assert_eq!(graphql_text(READ_LIMIT + 1, past), TextFit::Inconsistent);
        assert_eq!(graphql_text(50, past), TextFit::Inconsistent);
        assert_eq!(graphql_text(past, past), TextFit::Whole);
        // A blob exactly at the limit comes whole.
        assert_eq!(
            graphql_text(READ_LIMIT - 1, READ_LIMIT),
            TextFit::Inconsistent
        );
    }

    /// A change to `bytes`: one byte altered, bytes cut off, or bytes added.
    #[derive(Debug, Clone)]
    enum Bend {
        Alter { at: usize, xor: u8 },
        Cut { keep: usize },
        Extend { more: Vec<u8> },
    }

    fn bend() -> impl Strategy<Value = Bend> {
        prop_oneof![
            (any::<usize>(), 1u8..).prop_map(|(at, xor)| Bend::Alter { at, xor }),
            any::<usize>().prop_map(|keep| Bend::Cut { keep }),
            proptest::collection::vec(any::<u8>(), 1..16).prop_map(|more| Bend::Extend { more }),
        ]
    }

    fn bent(bytes: &[u8], how: &Bend) -> Option<Vec<u8>> {
        let mut out = bytes.to_vec();
        match how {
            Bend::Alter { at, xor } if !bytes.is_empty() => out[at % bytes.len()] ^= xor,
            Bend::Cut { keep } if !bytes.is_empty() => out.truncate(keep % bytes.len()),
            Bend::Extend { more } => out.extend_from_slice(more),
            _ => return None,
        }
        Some(out)
    }

    proptest! {
        /// The blob's own bytes are admitted however they are chunked; any altered, cut or
        /// extended bytes are not, under either address.
        #[test]
        fn only_the_content_itself_is_admitted(
            bytes in proptest::collection::vec(any::<u8>(), 0..2048),
            chunk in 1usize..300,
            how in bend(),
        ) {
            let blob = blob(&bytes);
            let lfs = Expected::Lfs { sha256: sha256_of(&[&bytes]), size: Some(bytes.len() as u64) };
            for expected in [&blob, &lfs] {
                prop_assert_eq!(admit(expected, &bytes), Ok(()));
                let mut d = Digesting::new(expected.clone()).unwrap();
                for piece in bytes.chunks(chunk) {
                    d.update(piece).unwrap();
                }
                prop_assert_eq!(d.finish(), Ok(()));
                if let Some(other) = bent(&bytes, &how) {
                    prop_assert!(admit(expected, &other).is_err());
                }
            }
        }

        /// GraphQL text is whole only at the blob's size, a part only where GitLab cuts.
        #[test]
        fn graphql_text_is_admitted_only_when_consistent(len in 0u64..(READ_LIMIT * 2), size in 0u64..(READ_LIMIT * 2)) {
            match graphql_text(len, size) {
                TextFit::Whole => prop_assert_eq!(len, size),
                TextFit::Part => prop_assert!(len < size && size > READ_LIMIT && len <= READ_LIMIT && len + CUT_SLACK >= READ_LIMIT),
                TextFit::Inconsistent => prop_assert!(len != size),
            }
        }
    }
}
