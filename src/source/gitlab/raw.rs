//! GitLab's REST raw endpoints, for what the GraphQL answer cannot carry: a blob past GitLab's
//! 10 MiB read limit (`GET /projects/:id/repository/blobs/:oid/raw`, exact by content address)
//! and the object of a file stored in LFS (`GET /projects/:id/repository/files/:path/raw
//! ?ref=…&lfs=true`). Both stream the whole file; the download is bounded by the maximum file
//! size, and an LFS download stops as soon as its first bytes show it is binary.
//!
//! Same token header, same host (the URL is built from the configured instance), no redirects
//! and the same retries as GraphQL: all of it is [`Transport::get_raw`].

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::transport::{Transport, TransportError};
use crate::config::Credential;
use crate::source::classify::{BINARY_SNIFF_LEN, looks_binary};

/// What is left unencoded in a path segment or query value: RFC 3986's unreserved characters.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a download found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Download {
    /// The whole file.
    Bytes(Vec<u8>),
    /// The file's first bytes hold a NUL: it is binary (the rest was not downloaded).
    Binary,
    /// The file is larger than the limit (the download stopped there).
    TooLarge,
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

/// The REST path of the LFS object of the file at `path` and `git_ref`.
pub(crate) fn lfs_file_path(project_id: u64, path: &str, git_ref: &str) -> String {
    format!(
        "projects/{project_id}/repository/files/{}/raw?ref={}&lfs=true",
        utf8_percent_encode(path, UNRESERVED),
        utf8_percent_encode(git_ref, UNRESERVED)
    )
}

/// Whether `bytes` are the LFS object `sha256` names (lower-case hex, as in `lfsOid`).
pub(crate) fn is_lfs_object(bytes: &[u8], sha256: &str) -> bool {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex.eq_ignore_ascii_case(sha256)
}

/// Downloads `path_and_query` (one of the paths above) with at most `max_bytes` of body.
pub(crate) async fn download(
    transport: &Transport,
    path_and_query: &str,
    what: &str,
    max_bytes: u64,
    sniff: Sniff,
    credential: Option<&Credential>,
) -> Result<Download, TransportError> {
    let mut body = transport.get_raw(path_and_query, what, credential).await?;
    if body.declared_len().is_some_and(|n| n > max_bytes) {
        return Ok(Download::TooLarge);
    }
    // Pre-sized from Content-Length (at most `max_bytes`, checked just above).
    let capacity = usize::try_from(body.declared_len().unwrap_or(0)).unwrap_or(0);
    let mut bytes: Vec<u8> = Vec::with_capacity(capacity);
    while let Some(chunk) = body.chunk().await? {
        if (bytes.len() + chunk.len()) as u64 > max_bytes {
            return Ok(Download::TooLarge);
        }
        let sniffed_before = bytes.len() >= BINARY_SNIFF_LEN;
        bytes.extend_from_slice(&chunk);
        if sniff == Sniff::StopAtBinary && !sniffed_before && looks_binary(&bytes) {
            return Ok(Download::Binary);
        }
    }
    Ok(Download::Bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lfs_objects_are_checked_by_sha256() {
        let hello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        assert!(is_lfs_object(b"hello", hello));
        assert!(is_lfs_object(b"hello", &hello.to_uppercase()));
        assert!(!is_lfs_object(b"hellO", hello));
    }

    #[test]
    fn paths_are_encoded() {
        assert_eq!(
            blob_path(42, "3374e3dd"),
            "projects/42/repository/blobs/3374e3dd/raw"
        );
        assert_eq!(
            lfs_file_path(7, "data/my file+é.csv", "refs/heads/feature/x"),
            "projects/7/repository/files/data%2Fmy%20file%2B%C3%A9.csv/raw?ref=refs%2Fheads%2Ffeature%2Fx&lfs=true"
        );
    }
}
