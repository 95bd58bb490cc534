//! GitLab's REST raw endpoints, for what the GraphQL answer cannot carry: a blob past GitLab's
//! 10 MiB read limit (`GET /projects/:id/repository/blobs/:oid/raw`, exact by content address)
//! and the object of a file stored in LFS (`GET /projects/:id/repository/files/:path/raw
//! ?ref=…&lfs=true`). Both stream the whole file; the download is bounded by the maximum file
//! size, hashed as it streams (a download that is not the content asked for is a
//! [`Download::Mismatch`]), and an LFS download stops as soon as its first bytes show it is
//! binary.
//!
//! Answers may come gzip-compressed; the limit, the hash and the binary sniff all see decoded
//! bytes, so a small compressed body that expands past the limit is refused (a zip bomb) after
//! at most the limit's worth of decoding.
//!
//! Same token header, same host (the URL is built from the configured instance), no redirects
//! and the same retries as GraphQL: all of it is [`Transport::get_raw`]. The one redirect
//! followed is the LFS download's to object storage ([`FollowRedirect::Storage`]), whose bytes are
//! held to the pointer's sha256 like any LFS body.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::config::Credential;
use crate::source::classify::{BINARY_SNIFF_LEN, looks_binary};
use crate::source::gitlab::wire::transport::{FollowRedirect, Transport};
use crate::source::gitlab::wire::transport_error::TransportError;
use crate::source::gitlab::wire::verify::{Digesting, Expected, Problem};

/// What is left unencoded in a path segment or query value: RFC 3986's unreserved characters.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a download found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Download {
    /// The whole file, proven to be the content asked for.
    Bytes(Vec<u8>),
    /// The file's first bytes hold a NUL: it is binary (the rest was neither downloaded nor
    /// hashed, so this verdict is not proven).
    Binary,
    /// The file is larger than the limit (the download stopped there): `at_least` bytes, by
    /// its Content-Length or by what had come.
    TooLarge { at_least: u64 },
    /// The bytes are not the content asked for (the download stopped as soon as that showed).
    Mismatch(Problem),
    /// Asked for an LFS object, GitLab sent its pointer: it does not have the object.
    LfsObjectMissing,
}

/// Whether to stop a download as soon as it shows a binary file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sniff {
    StopAtBinary,
    KeepAll,
}

/// The REST path of a blob's bytes by its oid.
pub(crate) fn blob_path(project_id: u64, oid: &str) -> String {
    format!(
        "projects/{project_id}/repository/blobs/{}/raw",
        utf8_percent_encode(oid, UNRESERVED)
    )
}

/// The REST path of a blob's bytes by its oid, in the project `project` named by its full path.
pub(crate) fn blob_path_in(project: &str, oid: &str) -> String {
    format!(
        "projects/{}/repository/blobs/{}/raw",
        utf8_percent_encode(project, UNRESERVED),
        utf8_percent_encode(oid, UNRESERVED)
    )
}

/// The REST path of the LFS object of the file at `path` and `git_ref`.
pub(crate) fn lfs_file_path(project_id: u64, path: &str, git_ref: &str) -> String {
    format!(
        "projects/{project_id}/repository/files/{}/raw?ref={}&lfs=true",
        utf8_percent_encode(path, UNRESERVED),
        utf8_percent_encode(git_ref, UNRESERVED)
    )
}

/// Downloads `path_and_query` (one of the paths above) with at most `max_bytes` of body,
/// hashing it as it streams against `expected` ([`verify`](crate::source::gitlab::wire::verify)).
pub(crate) async fn download(
    transport: &Transport,
    path_and_query: &str,
    what: &str,
    limits: (u64, Sniff),
    expected: Expected,
    credential: Option<&Credential>,
) -> Result<Download, TransportError> {
    let (max_bytes, sniff) = limits;
    let lfs_sha256 = match &expected {
        Expected::Lfs { sha256, .. } => Some(sha256.clone()),
        Expected::GitBlob { .. } => None,
    };
    let lfs_sha256 = lfs_sha256.as_deref();
    let mut digesting = match Digesting::new(expected) {
        Ok(digesting) => digesting,
        Err(problem) => return Ok(Download::Mismatch(problem)),
    };
    let follow = match lfs_sha256 {
        Some(_) => FollowRedirect::Storage,
        None => FollowRedirect::Nothing,
    };
    let mut body = transport
        .get_raw(path_and_query, what, follow, credential)
        .await?;
    if let Some(refused) = refuse_declared(body.declared_len(), digesting.expected_len(), max_bytes)
    {
        return Ok(refused);
    }
    // Pre-sized from Content-Length (at most `max_bytes`, checked just above).
    let capacity = usize::try_from(body.declared_len().unwrap_or(0)).unwrap_or(0);
    let mut bytes: Vec<u8> = Vec::with_capacity(capacity);
    while let Some(chunk) = body.chunk().await? {
        let at_least = (bytes.len() + chunk.len()) as u64;
        if at_least > max_bytes {
            return Ok(Download::TooLarge { at_least });
        }
        if let Err(problem) = digesting.update(&chunk) {
            // GitLab's pointer for an object it lacks may be longer than a tiny object.
            if at_least <= MAX_POINTER_BYTES {
                bytes.extend_from_slice(&chunk);
            }
            return Ok(not_the_content(&bytes, problem, lfs_sha256));
        }
        let sniffed_before = bytes.len() >= BINARY_SNIFF_LEN;
        bytes.extend_from_slice(&chunk);
        if sniff == Sniff::StopAtBinary && !sniffed_before && looks_binary(&bytes) {
            return Ok(Download::Binary);
        }
    }
    Ok(match digesting.finish() {
        Ok(()) => Download::Bytes(bytes),
        Err(problem) => not_the_content(&bytes, problem, lfs_sha256),
    })
}

/// What bytes that are not the content asked for are: GitLab's pointer to the LFS object
/// `lfs_sha256` (it lacks the object), or a mismatch.
fn not_the_content(bytes: &[u8], problem: Problem, lfs_sha256: Option<&str>) -> Download {
    match lfs_sha256 {
        Some(sha) if is_pointer_to(bytes, sha) => Download::LfsObjectMissing,
        _ => Download::Mismatch(problem),
    }
}

/// The longest LFS pointer (git-lfs's own limit on what it reads as one).
const MAX_POINTER_BYTES: u64 = 1024;

/// What a download is, from its declared length alone, before a byte is read: longer than the
/// content's known size is not the content (an object store declaring 1 TB for a 92 KB
/// pointer is refused, not reported as a 1 TB file), and longer than `max_bytes` too large.
/// A declared length up to [`MAX_POINTER_BYTES`] is read: it may be GitLab's pointer for an
/// object it lacks, which has its own error.
fn refuse_declared(
    declared: Option<u64>,
    expected: Option<u64>,
    max_bytes: u64,
) -> Option<Download> {
    let declared = declared?;
    match expected {
        Some(size) if declared > size && declared > MAX_POINTER_BYTES => {
            Some(Download::Mismatch(Problem::TooLong { expected: size }))
        }
        _ if declared > max_bytes => Some(Download::TooLarge { at_least: declared }),
        _ => None,
    }
}

/// Whether `bytes` are an LFS pointer to the object `sha256`: what GitLab's `lfs=true` serves
/// when it does not have the object.
fn is_pointer_to(bytes: &[u8], sha256: &str) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    text.starts_with("version https://git-lfs.github.com/spec/")
        && text.lines().any(|l| {
            l.strip_prefix("oid sha256:")
                .is_some_and(|o| o.eq_ignore_ascii_case(sha256))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_length_is_held_to_the_size_before_reading() {
        let mismatch = |size| Some(Download::Mismatch(Problem::TooLong { expected: size }));
        // No length declared, or one within the size and the limit: read.
        assert_eq!(refuse_declared(None, Some(10), 100), None);
        assert_eq!(refuse_declared(Some(10), Some(10), 100), None);
        assert_eq!(refuse_declared(Some(5), Some(10), 100), None);
        // Longer than the size: not the content, whatever the limit (1 TB for 92,236 bytes).
        assert_eq!(
            refuse_declared(Some(1 << 40), Some(92_236), 100_000_000),
            mismatch(92_236)
        );
        assert_eq!(
            refuse_declared(Some(2_000), Some(1_500), 100),
            mismatch(1_500)
        );
        // Pointer-sized answers are read (GitLab's pointer for a missing object).
        assert_eq!(refuse_declared(Some(130), Some(5), 100_000), None);
        assert_eq!(refuse_declared(Some(1_024), Some(5), 100_000), None);
        assert_eq!(refuse_declared(Some(1_025), Some(5), 100_000), mismatch(5));
        // No size known: only the limit.
        assert_eq!(
            refuse_declared(Some(101), None, 100),
            Some(Download::TooLarge { at_least: 101 })
        );
        assert_eq!(refuse_declared(Some(100), None, 100), None);
    }

    #[test]
    fn a_pointer_is_told_from_its_object() {
        let sha = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        let pointer =
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{sha}\nsize 5\n");
        assert!(is_pointer_to(pointer.as_bytes(), sha));
        assert!(!is_pointer_to(pointer.as_bytes(), &"0".repeat(64)));
        assert!(!is_pointer_to(b"hello", sha));
        assert!(!is_pointer_to(&[0xff, 0xfe], sha));
    }

    #[test]
    fn the_metrics_tell_the_two_endpoints_apart() {
        use crate::metrics::Endpoint;
        let lfs = lfs_file_path(7, "a&lfs=true", "b&lfs=true");
        assert_eq!(Endpoint::of_rest(&lfs), Endpoint::Lfs);
        let blob = blob_path(7, "x&lfs=true");
        assert_eq!(Endpoint::of_rest(&blob), Endpoint::RestRaw);
    }

    #[test]
    fn paths_are_encoded() {
        assert_eq!(
            blob_path(42, "3374e3dd"),
            "projects/42/repository/blobs/3374e3dd/raw"
        );
        assert_eq!(
            blob_path_in("grp/sub/proj", "3374e3dd"),
            "projects/grp%2Fsub%2Fproj/repository/blobs/3374e3dd/raw"
        );
        assert_eq!(
            lfs_file_path(7, "data/my file+é.csv", "refs/heads/feature/x"),
            "projects/7/repository/files/data%2Fmy%20file%2B%C3%A9.csv/raw?ref=refs%2Fheads%2Ffeature%2Fx&lfs=true"
        );
    }
}
