//! A blob's content, once GitLab's answer has said which blob the caller may read: from the
//! cache when it holds that blob, else from the answer itself, else from GitLab's REST raw
//! endpoints — past the 10 MiB read limit when the window needs more than GraphQL returned, and
//! for a file stored in LFS. Each blob is downloaded once (single flight per content address)
//! and cached by that address.

use std::sync::Arc;

use super::cache::{BlobCache, Cached};
use super::error::GitlabError;
use super::flights::{Flights, Role};
use super::graphql::BlobFields;
use super::raw::{self, Download, Sniff};
use super::transport::{Transport, TransportError};
use super::verify::{self, Expected, LfsObjectMissing, Mismatch, TextFit};
use crate::config::Credential;
use crate::metrics::Endpoint;
use crate::source::blob::{BlobKind, SourceError};
use crate::source::classify::looks_binary;
use crate::window::Extent;

/// Where the blob lives, for the REST downloads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileAt<'a> {
    pub project_id: Option<u64>,
    pub path: &'a str,
    /// The ref as the REST API takes it (qualified when the lookup had a ref type).
    pub git_ref: &'a str,
}

/// What the content step found.
#[derive(Debug)]
pub(crate) enum Content {
    /// The blob's kind, with its text when it is text.
    Ready(BlobKind),
    /// The answer carried no content (it was asked without) and the cache does not hold the
    /// blob it names: ask again with content.
    NotInAnswer,
}

/// One REST download: where, named how in errors, and what its bytes must be.
#[derive(Debug)]
struct Get {
    path_and_query: String,
    what: String,
    sniff: Sniff,
    expected: Expected,
}

/// A download's outcome as its flight hands it on: what was downloaded (the names its error
/// would use) and what came of it.
#[derive(Debug, Clone)]
pub(crate) struct Landed {
    what: String,
    outcome: Result<BlobKind, SourceError>,
}

impl Landed {
    pub(crate) fn new(what: String, outcome: Result<BlobKind, SourceError>) -> Self {
        Self { what, outcome }
    }

    /// The failure a follower that wanted `what` takes as its own ([`Self::applies_to`]).
    pub(crate) fn failure_for(self, what: &str) -> Option<SourceError> {
        if !self.applies_to(what) {
            return None;
        }
        self.outcome.err()
    }

    /// Whether a follower that wanted `what` takes this outcome as its own: content always (it
    /// is proven, by address); a failure only when it names the same thing and is about the
    /// content or GitLab's answer, not about the leader's token.
    fn applies_to(&self, what: &str) -> bool {
        let Err(e) = &self.outcome else {
            return true;
        };
        let about_the_content = match e {
            SourceError::Failed(cause) => cause.downcast_ref::<GitlabError>().is_some_and(|g| {
                !matches!(
                    g,
                    GitlabError::Transport(
                        TransportError::Rejected { .. }
                            | TransportError::Raw { .. }
                            | TransportError::TokenNotAHeader { .. }
                    )
                )
            }),
            SourceError::FileTooLarge { .. } => true,
            _ => false,
        };
        about_the_content && self.what == what
    }
}

/// What one call wants of a blob: which, where, how big, and how much of it.
#[derive(Debug, Clone, Copy)]
struct Want<'a> {
    oid: &'a str,
    at: FileAt<'a>,
    /// The size GitLab reports ([`size_bytes`]: for LFS the object's, else the blob's, which
    /// its bytes are checked against).
    size: u64,
    extent: Extent,
    credential: Option<&'a Credential>,
}

/// The content step's state: the cache, the downloads in flight, the size limit.
#[derive(Debug)]
pub(crate) struct ContentStore {
    transport: Transport,
    cache: BlobCache,
    downloads: Flights<String, Landed>,
    max_file_bytes: u64,
}

impl ContentStore {
    pub(crate) fn new(transport: Transport, cache_bytes: u64, max_file_bytes: u64) -> Self {
        Self {
            transport,
            cache: BlobCache::new(cache_bytes),
            downloads: Flights::default(),
            max_file_bytes,
        }
    }

    /// Whether the content under `key` ([`cache_key`]) is cached (in any form), so it need not
    /// be asked for.
    pub(crate) fn holds(&self, key: &str) -> bool {
        self.cache.contains(key)
    }

    /// The content of `node`, enough for `extent`. A file larger than the maximum file size is
    /// refused, whether GitLab sent it whole or not.
    pub(crate) async fn content(
        &self,
        mut node: BlobFields,
        at: FileAt<'_>,
        extent: Extent,
        credential: Option<&Credential>,
    ) -> Result<Content, SourceError> {
        let size = size_bytes(&node);
        // Taken out of the node, so the raw literal (up to 10 MiB) is freed once decoded.
        let raw = node.raw_text_blob.take();
        let want = Want {
            oid: &node.oid,
            at,
            size,
            extent,
            credential,
        };
        if node.stored_externally == Some(true) {
            return self.lfs(&node, &want).await.map(Content::Ready);
        }
        self.refuse_too_large(at.path, want.size)?;
        let cached = self.cache.get(want.oid);
        crate::metrics::cache_lookup(cached.is_some());
        if let Some(cached) = cached {
            return self.read_cached(cached, &want).await.map(Content::Ready);
        }
        let Some(raw) = raw else {
            return Ok(Content::NotInAnswer);
        };
        let text = raw.decode().map_err(GitlabError::Content)?;
        self.read_answer(text, &want).await.map(Content::Ready)
    }

    /// The content under `key` ([`cache_key`]) from the cache alone, when that needs no
    /// request: a whole text, or the first part of a long file that covers `extent`. `None`
    /// otherwise (not cached, a verdict, or a part the window reaches past).
    pub(crate) fn at_hand(&self, key: &str, extent: Extent) -> Option<BlobKind> {
        match self.cache.get(key)? {
            Cached::Full(text) => Some(text_kind(text, false)),
            Cached::Partial(text) if extent.covered_by(&text) => Some(text_kind(text, true)),
            Cached::Partial(_) | Cached::Binary => None,
        }
    }

    /// The answer asked with content had none: GitLab's word for a binary blob, to this
    /// caller. Not cached: one answer proves nothing about the blob's bytes (and asking again
    /// with content costs no more than without, for a binary blob).
    pub(crate) fn binary(&self, oid: &str) -> BlobKind {
        tracing::debug!(oid, "GraphQL named a binary blob: served, not cached");
        BlobKind::Binary
    }

    async fn read_cached(&self, cached: Cached, want: &Want<'_>) -> Result<BlobKind, SourceError> {
        match cached {
            Cached::Full(text) => Ok(text_kind(text, false)),
            Cached::Binary => Ok(BlobKind::Binary),
            Cached::Partial(text) if want.extent.covered_by(&text) => Ok(text_kind(text, true)),
            Cached::Partial(_) => self.whole_blob(want).await,
        }
    }

    /// GraphQL text, admitted by its length ([`verify::graphql_text`]): the whole blob, the
    /// first part of one past the read limit, or neither — then the blob is read from REST by
    /// oid and hashed.
    async fn read_answer(&self, text: String, want: &Want<'_>) -> Result<BlobKind, SourceError> {
        // GitLab sends no text for a blob it calls binary (a NUL in the first 8,000 bytes):
        // text that holds one is not what GitLab sends, so only the hashed bytes are trusted.
        if looks_binary(text.as_bytes()) {
            crate::metrics::cache_verification_failed(Endpoint::Graphql);
            tracing::warn!(
                oid = want.oid,
                "GraphQL text holds a NUL in its first bytes: reading the blob over REST"
            );
            drop(text);
            return self.whole_blob(want).await;
        }
        let text = Arc::new(text);
        match verify::graphql_text(text.len() as u64, want.size) {
            TextFit::Whole => {
                self.cache.put(want.oid, Cached::Full(Arc::clone(&text)));
                return Ok(text_kind(text, false));
            }
            TextFit::Part if want.extent.covered_by(&text) => {
                self.cache.put(want.oid, Cached::Partial(Arc::clone(&text)));
                return Ok(text_kind(text, true));
            }
            TextFit::Part => {}
            TextFit::Inconsistent => {
                crate::metrics::cache_verification_failed(Endpoint::Graphql);
                tracing::warn!(
                    oid = want.oid,
                    text_bytes = text.len(),
                    size = want.size,
                    "GraphQL text does not fit its blob's size: reading the blob over REST"
                );
            }
        }
        drop(text);
        self.whole_blob(want).await
    }

    /// The whole of a blob past the read limit, by oid from REST (downloaded once).
    async fn whole_blob(&self, want: &Want<'_>) -> Result<BlobKind, SourceError> {
        let (oid, path) = (want.oid, want.at.path);
        if let Some(Cached::Full(text)) = self.cache.get(oid) {
            return Ok(text_kind(text, false));
        }
        let project_id = want.at.project_id.ok_or_else(|| no_project_id(path))?;
        let get = Get {
            path_and_query: raw::blob_path(project_id, oid),
            what: format!("blob {oid} of '{path}'"),
            sniff: Sniff::KeepAll,
            expected: Expected::GitBlob {
                oid: oid.to_string(),
                size: want.size,
            },
        };
        let download = async {
            // The partial entry is superseded; freeing it first keeps one copy in memory.
            self.cache.forget(oid);
            let download = self.verified(&get, want.credential).await?;
            let kind = self.text_or_binary(download, path, want.size)?;
            self.cache.put(oid, cached_as(&kind));
            Ok(kind)
        };
        self.in_one_flight(oid, &get.what, download).await
    }

    /// Runs `download` (of `what`, filed under `key`) once for concurrent calls: the first
    /// leads, the others are handed its outcome when it lands — content always, a failure when
    /// it is about the content and names the same thing. A leader that failed on something of
    /// its own (its token) or was cancelled leaves each follower to download for itself.
    async fn in_one_flight(
        &self,
        key: &str,
        what: &str,
        download: impl Future<Output = Result<BlobKind, SourceError>>,
    ) -> Result<BlobKind, SourceError> {
        match self.downloads.join(key.to_string()) {
            Role::Lead(lead) => {
                let outcome = download.await;
                lead.land(Landed {
                    what: what.to_string(),
                    outcome: outcome.clone(),
                });
                outcome
            }
            Role::Follow(follow) => match follow.outcome().await {
                Some(landed) if landed.applies_to(what) => landed.outcome,
                _ => download.await,
            },
        }
    }

    /// Downloads `get`, hashed as it streams; bytes that are not the content asked for are
    /// downloaded once more, and a second mismatch is an error. Nothing unproven is returned
    /// but an early binary verdict ([`Download::Binary`]), which is never cached.
    async fn verified(
        &self,
        get: &Get,
        credential: Option<&Credential>,
    ) -> Result<Download, SourceError> {
        let mut retried = false;
        loop {
            let download = raw::download(
                &self.transport,
                &get.path_and_query,
                &get.what,
                (self.max_file_bytes, get.sniff),
                get.expected.clone(),
                credential,
            )
            .await
            .map_err(GitlabError::from)?;
            if let Download::Mismatch(_) = download {
                crate::metrics::cache_verification_failed(match get.expected {
                    Expected::GitBlob { .. } => Endpoint::RestRaw,
                    Expected::Lfs { .. } => Endpoint::Lfs,
                });
            }
            match download {
                Download::Mismatch(problem) if !retried => {
                    tracing::warn!(what = get.what, %problem, "GitLab's answer did not match: once more");
                    retried = true;
                }
                Download::Mismatch(problem) => {
                    let what = get.what.clone();
                    return Err(GitlabError::Mismatch(Mismatch { what, problem }).into());
                }
                other => return Ok(other),
            }
        }
    }

    /// A file stored in LFS: its object, cached by the object's sha256 (the pointer never
    /// reaches the agent). A binary object keeps the LFS error.
    async fn lfs(&self, node: &BlobFields, want: &Want<'_>) -> Result<BlobKind, SourceError> {
        let (at, size) = (want.at, want.size);
        let storage = node
            .external_storage
            .clone()
            .unwrap_or_else(|| "lfs".into());
        let Some(sha256) = node.lfs_oid.as_deref() else {
            return Ok(BlobKind::Lfs { storage });
        };
        let key = lfs_key(sha256);
        let cached = self.cache.get(&key);
        crate::metrics::cache_lookup(cached.is_some());
        match cached {
            Some(Cached::Full(text)) => return Ok(text_kind(text, false)),
            Some(_) => return Ok(BlobKind::Lfs { storage }),
            None => {}
        }
        self.refuse_too_large(at.path, size)?;
        let project_id = at.project_id.ok_or_else(|| no_project_id(at.path))?;
        let get = Get {
            path_and_query: raw::lfs_file_path(project_id, at.path, at.git_ref),
            what: format!(
                "the LFS object {sha256} of '{}' at '{}'",
                at.path, at.git_ref
            ),
            sniff: Sniff::StopAtBinary,
            expected: Expected::Lfs {
                sha256: sha256.to_string(),
            },
        };
        let download = async {
            let download = self.verified(&get, want.credential).await?;
            // An early binary verdict is unproven (the object was not hashed whole): not cached.
            let proven = matches!(download, Download::Bytes(_));
            let kind = match self.text_or_binary(download, at.path, size)? {
                BlobKind::Binary => BlobKind::Lfs { storage },
                text => text,
            };
            if proven {
                self.cache.put(&key, cached_as(&kind));
            }
            Ok(kind)
        };
        self.in_one_flight(&key, &get.what, download).await
    }

    fn text_or_binary(
        &self,
        download: Download,
        path: &str,
        size: u64,
    ) -> Result<BlobKind, SourceError> {
        match download {
            // GitLab's size may be wrong (an LFS pointer's): the bytes that came say more.
            Download::TooLarge { at_least } => Err(self.too_large(path, size.max(at_least))),
            Download::LfsObjectMissing => Err(LfsObjectMissing {
                path: path.to_string(),
            }
            .into()),
            // `verified` returns no mismatch.
            Download::Mismatch(problem) => Err(GitlabError::Shape {
                reason: problem.to_string(),
            }
            .into()),
            Download::Binary => Ok(BlobKind::Binary),
            Download::Bytes(bytes) if looks_binary(&bytes) => Ok(BlobKind::Binary),
            Download::Bytes(bytes) => Ok(match String::from_utf8(bytes) {
                Ok(text) => text_kind(Arc::new(text), false),
                Err(_) => BlobKind::Binary,
            }),
        }
    }

    fn refuse_too_large(&self, path: &str, size: u64) -> Result<(), SourceError> {
        if size > self.max_file_bytes {
            return Err(self.too_large(path, size));
        }
        Ok(())
    }

    fn too_large(&self, path: &str, size: u64) -> SourceError {
        SourceError::FileTooLarge {
            path: path.to_string(),
            size_bytes: size,
            limit: self.max_file_bytes,
        }
    }
}

/// The key a node's content is cached under: the LFS object's for a file stored in LFS (the
/// blob is only its pointer), else the blob's oid.
pub(crate) fn cache_key(node: &BlobFields) -> String {
    match (&node.lfs_oid, node.stored_externally) {
        (Some(sha256), Some(true)) => lfs_key(sha256),
        _ => node.oid.clone(),
    }
}

fn lfs_key(sha256: &str) -> String {
    format!("lfs:{sha256}")
}

/// The size GitLab reports: `rawSize` (for LFS the object's size), else `size`, else the
/// decoded length of the content it sent (0 without content).
pub(crate) fn size_bytes(node: &BlobFields) -> u64 {
    node.raw_size.or(node.size).map(|s| s.0).unwrap_or_else(|| {
        node.raw_text_blob
            .as_ref()
            .map_or(0, |t| t.decoded_len() as u64)
    })
}

/// The size to report of a blob of `kind` that GitLab said is `reported` bytes: a whole text's
/// own length (admitted only as the blob, so for an LFS object the real size even where the
/// pointer's size or `rawSize` is wrong), else what GitLab reported.
pub(crate) fn proven_size(kind: &BlobKind, reported: u64) -> u64 {
    match kind {
        BlobKind::Text {
            content,
            cut_by_read_limit: false,
        } => content.len() as u64,
        _ => reported,
    }
}

fn text_kind(content: Arc<String>, cut_by_read_limit: bool) -> BlobKind {
    BlobKind::Text {
        content,
        cut_by_read_limit,
    }
}

fn cached_as(kind: &BlobKind) -> Cached {
    match kind {
        BlobKind::Text { content, .. } => Cached::Full(Arc::clone(content)),
        // `NotRead` is never downloaded, so never cached; a verdict is the safe reading.
        BlobKind::Binary | BlobKind::Lfs { .. } | BlobKind::NotRead => Cached::Binary,
    }
}

fn no_project_id(path: &str) -> SourceError {
    GitlabError::Shape {
        reason: format!("the answer for '{path}' has no project id"),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::super::scalars::{BigInt, BlobText};
    use super::*;
    use crate::window::LineRequest;

    fn store(cache_bytes: u64) -> ContentStore {
        let args = crate::config::GitlabArgs::for_tests("http://127.0.0.1:9");
        let config = crate::config::GitlabConfig::from_parts(&args, |_| None).unwrap();
        ContentStore::new(Transport::new(&config).unwrap(), cache_bytes, 1 << 30)
    }

    fn literal(s: &str) -> BlobText {
        serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap()
    }

    fn node(oid: &str, text: Option<&str>, size: Option<u64>) -> BlobFields {
        BlobFields {
            oid: oid.into(),
            path: "a.txt".into(),
            permalink_path: None,
            size: size.map(BigInt),
            raw_size: size.map(BigInt),
            raw_text_blob: text.map(literal),
            stored_externally: Some(false),
            external_storage: None,
            lfs_oid: None,
        }
    }

    const AT: FileAt<'static> = FileAt {
        project_id: Some(42),
        path: "a.txt",
        git_ref: "main",
    };

    fn lines(offset: u64, limit: u64) -> LineRequest {
        LineRequest::OffsetLimit { offset, limit }
    }

    fn all() -> LineRequest {
        lines(0, 500)
    }

    async fn kind(store: &ContentStore, node: BlobFields, req: LineRequest) -> Option<BlobKind> {
        match store
            .content(node, AT, Extent::Lines(req), None)
            .await
            .unwrap()
        {
            Content::Ready(kind) => Some(kind),
            Content::NotInAnswer => None,
        }
    }

    #[tokio::test]
    async fn text_is_cached_by_oid_and_served_without_content_next_time() {
        let s = store(1 << 20);
        let first = kind(&s, node("x", Some("a\nb\n"), Some(4)), all()).await;
        assert!(matches!(
            first,
            Some(BlobKind::Text {
                cut_by_read_limit: false,
                ..
            })
        ));
        assert!(s.holds("x"));
        let again = kind(&s, node("x", None, Some(4)), all()).await;
        assert_eq!(first, again);
        // Another blob, asked without content and not cached: ask again.
        assert!(kind(&s, node("y", None, Some(4)), all()).await.is_none());
    }

    #[tokio::test]
    async fn a_cut_part_serves_windows_inside_it() {
        let s = store(1 << 30);
        // GitLab's cut of a blob past the read limit: exactly the limit's bytes.
        let part = "1\n2\n3\n4-cut\n".repeat(verify::READ_LIMIT as usize / 12);
        let part = format!(
            "{part}{}",
            "x".repeat(verify::READ_LIMIT as usize - part.len())
        );
        let size = Some(verify::READ_LIMIT + 1_000);
        let first = kind(&s, node("x", Some(&part), size), lines(0, 2)).await;
        assert!(matches!(
            first,
            Some(BlobKind::Text {
                cut_by_read_limit: true,
                ..
            })
        ));
        // Held as a part: a later window inside it is served too.
        let again = kind(&s, node("x", None, size), lines(1, 1)).await;
        assert!(matches!(
            again,
            Some(BlobKind::Text {
                cut_by_read_limit: true,
                ..
            })
        ));
    }

    #[tokio::test]
    async fn graphql_text_with_a_nul_in_its_first_bytes_is_never_admitted() {
        let s = store(1 << 20);
        let oid = "0123456789012345678901234567890123456789";
        // The right length, but a NUL first (or at byte 7,999): GitLab sends no text for such
        // a blob, so it is read over REST by oid (nothing listens here: the call fails).
        let late = format!("{}\0", "x".repeat(7_999));
        for text in ["\0abc", late.as_str()] {
            let got = s
                .content(
                    node(oid, Some(text), Some(text.len() as u64)),
                    AT,
                    Extent::Lines(all()),
                    None,
                )
                .await;
            assert!(got.is_err(), "{got:?}");
            assert!(s.at_hand(oid, Extent::Lines(all())).is_none());
        }
        // A NUL past the first 8,000 bytes is text, as GitLab has it.
        let text = format!("{}\0", "x".repeat(8_000));
        let got = s
            .content(
                node(oid, Some(&text), Some(text.len() as u64)),
                AT,
                Extent::Lines(all()),
                None,
            )
            .await;
        assert!(got.is_ok(), "{got:?}");
    }

    #[tokio::test]
    async fn graphql_text_that_does_not_fit_its_size_is_never_admitted() {
        let s = store(1 << 20);
        // Shorter than its size, and the size within the read limit: not the blob. It is read
        // over REST by oid instead (here: nothing listens, so the call fails), never served.
        let oid = "0123456789012345678901234567890123456789";
        let short = s
            .content(
                node(oid, Some("a\n"), Some(4)),
                AT,
                Extent::Lines(all()),
                None,
            )
            .await;
        assert!(short.is_err(), "{short:?}");
        // Longer than its size.
        let long = s
            .content(
                node(oid, Some("a\nbcd\n"), Some(4)),
                AT,
                Extent::Lines(all()),
                None,
            )
            .await;
        assert!(long.is_err(), "{long:?}");
        assert!(!s.holds(oid));
    }

    #[tokio::test]
    async fn a_size_missing_from_the_answer_is_the_decoded_length() {
        // GitLab sent null for size and rawSize: the content's decoded length (3), not the
        // literal's (8 with quotes and escapes), so the file is not taken for a cut one.
        let n = node("x", Some("a\nb"), None);
        assert_eq!(size_bytes(&n), 3);
        let s = store(1 << 20);
        let k = kind(&s, n, all()).await;
        assert!(matches!(
            k,
            Some(BlobKind::Text {
                cut_by_read_limit: false,
                ..
            })
        ));
    }

    #[tokio::test]
    async fn binary_verdicts_and_lfs_without_an_object_id() {
        let s = store(1 << 20);
        // GraphQL's word for a binary blob is served, and not cached: it is not proven.
        assert_eq!(s.binary("bin"), BlobKind::Binary);
        assert!(!s.holds("bin"));
        assert_eq!(kind(&s, node("bin", None, Some(9)), all()).await, None);
        let lfs = BlobFields {
            stored_externally: Some(true),
            external_storage: Some("lfs".into()),
            ..node("p", Some("version https://git-lfs…"), Some(1_575_078))
        };
        assert_eq!(
            kind(&s, lfs, all()).await,
            Some(BlobKind::Lfs {
                storage: "lfs".into()
            })
        );
    }

    #[tokio::test]
    async fn files_over_the_maximum_are_refused() {
        let args = crate::config::GitlabArgs::for_tests("http://127.0.0.1:9");
        let config = crate::config::GitlabConfig::from_parts(&args, |_| None).unwrap();
        let s = ContentStore::new(Transport::new(&config).unwrap(), 1 << 20, 3);
        let e = s
            .content(
                node("x", Some("a\nb\n"), Some(4)),
                AT,
                Extent::Lines(all()),
                None,
            )
            .await;
        assert!(matches!(
            e,
            Err(SourceError::FileTooLarge {
                size_bytes: 4,
                limit: 3,
                ..
            })
        ));
    }
}
