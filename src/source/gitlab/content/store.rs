//! A blob's content, once GitLab's answer has said which blob the caller may read
//! ([`ContentStore::read`], the one way in): for a blob the caller holds, from the cache alone;
//! else from the cache when it holds that blob, else from the answer itself, else from GitLab's
//! REST raw endpoints ([`download`](super::download)) — past the 10 MiB read limit when the window
//! needs more than GraphQL returned, and for a file stored in LFS. Content is cached by its address
//! ([`ContentKey`]).

use std::sync::Arc;

use super::cache::{BlobCache, Cached};
use super::download::{Downloads, Get, text_kind, too_large};
use super::keys::ContentKey;
use super::raw::{self, Sniff};
use crate::config::Credential;
use crate::metrics::Endpoint;
use crate::source::blob::{BlobKind, SourceError};
use crate::source::classify::looks_binary;
use crate::source::gitlab::query::graphql::BlobFields;
use crate::source::gitlab::query::scalars::BlobText;
use crate::source::gitlab::wire::error::{GitlabError, ShapeProblem};
use crate::source::gitlab::wire::transport::Transport;
use crate::source::gitlab::wire::transport_error::TransportError;
use crate::source::gitlab::wire::verify::{self, Expected, TextFit};
use crate::source::holds;
use crate::source::text::Text;
use crate::window::Extent;

/// Where the blob lives, for the REST downloads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileAt<'a> {
    pub project_id: Option<u64>,
    pub path: &'a str,
    /// The ref as the REST API takes it (qualified when the lookup had a ref type).
    pub git_ref: &'a str,
}

/// What a round asked of a blob: how much of it the call needs, whether the request carried
/// content, and whether the answer named the blob the caller holds (`if_none_match`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asked {
    pub extent: Extent,
    pub content: bool,
    pub held: bool,
}

impl Asked {
    /// What a round asked of `node`, for a caller holding `held`.
    pub(crate) fn of(node: &BlobFields, extent: Extent, content: bool, held: Option<&str>) -> Self {
        Self {
            extent,
            content,
            held: holds(held, Some(&node.oid)),
        }
    }
}

/// A blob's content as read: its kind (with its text when it is text) and the size to report.
#[derive(Debug)]
pub(crate) struct ContentRead {
    pub kind: BlobKind,
    pub size_bytes: u64,
}

/// What the content step found.
#[derive(Debug)]
enum Content {
    /// The blob's kind, with its text when it is text.
    Ready(BlobKind),
    /// The answer carried no content (it was asked without) and the cache does not hold the
    /// blob it names: ask again with content.
    NotInAnswer,
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

/// The content step's state: the cache, the downloads, the size limit.
#[derive(Debug)]
pub(crate) struct ContentStore {
    cache: BlobCache,
    downloads: Downloads,
    max_file_bytes: u64,
}

impl ContentStore {
    pub(crate) fn new(transport: Transport, cache_bytes: u64, max_file_bytes: u64) -> Self {
        Self {
            cache: BlobCache::new(cache_bytes),
            downloads: Downloads::new(transport, max_file_bytes),
            max_file_bytes,
        }
    }

    /// Whether the content under `key` is cached (in any form), so it need not be asked for.
    pub(crate) fn holds(&self, key: &ContentKey) -> bool {
        self.cache.contains(key)
    }

    /// The whole text (or binary verdict) of the blob `oid` when the cache holds it, for a
    /// caller whose own request named that blob (a tree listing at a commit it may read).
    pub(crate) fn cached_whole(&self, oid: &str) -> Option<BlobKind> {
        let key = ContentKey::Blob(oid.to_string());
        let found = match self.cache.get(&key)? {
            Cached::Binary => Some(BlobKind::Binary),
            _ => self.at_hand(&key, Extent::Whole),
        };
        crate::metrics::cache_lookup(found.is_some());
        found
    }

    /// The content of `node` as `asked`: for a blob the caller holds, from the cache alone
    /// ([`BlobKind::NotRead`] when it cannot give it); else enough for the extent, from the
    /// cache, the answer or REST. `Ok(None)`: asked without content, and the blob named is not
    /// cached.
    pub(crate) async fn read(
        &self,
        node: BlobFields,
        at: FileAt<'_>,
        asked: Asked,
        credential: Option<&Credential>,
    ) -> Result<Option<ContentRead>, SourceError> {
        let reported = size_bytes(&node);
        let kind = if asked.held {
            self.at_hand(&ContentKey::of(&node), asked.extent)
                .unwrap_or(BlobKind::NotRead)
        } else {
            let oid = node.oid.clone();
            match self.content(node, at, asked.extent, credential).await? {
                Content::Ready(kind) => kind,
                Content::NotInAnswer if asked.content => self.binary(&oid),
                Content::NotInAnswer => return Ok(None),
            }
        };
        let size_bytes = proven_size(&kind, reported);
        Ok(Some(ContentRead { kind, size_bytes }))
    }

    /// The content of `node`, enough for `extent`. A file larger than the maximum file size is
    /// refused, whether GitLab sent it whole or not.
    async fn content(
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
        let cached = self.cache.get(&ContentKey::Blob(want.oid.to_string()));
        crate::metrics::cache_lookup(cached.is_some());
        if let Some(cached) = cached {
            return self.read_cached(cached, &want).await.map(Content::Ready);
        }
        let Some(raw) = raw else {
            return Ok(Content::NotInAnswer);
        };
        let text = decode_text(raw).await?;
        self.read_answer(text, &want).await.map(Content::Ready)
    }

    /// The content under `key` from the cache alone, when that needs no request: a whole
    /// text, or the first part of a long file that covers `extent`. `None` otherwise (not
    /// cached, a verdict, or a part the window reaches past).
    fn at_hand(&self, key: &ContentKey, extent: Extent) -> Option<BlobKind> {
        match self.cache.get(key)? {
            Cached::Full(text) => Some(text_kind(text, false)),
            Cached::Partial(text) if extent.covered_by_in(&text, Some(text.line_index())) => {
                Some(text_kind(text, true))
            }
            Cached::Partial(_) | Cached::Binary => None,
        }
    }

    /// The answer asked with content had none: GitLab's word for a binary blob, to this
    /// caller. Not cached: one answer proves nothing about the blob's bytes (and asking again
    /// with content costs no more than without, for a binary blob).
    fn binary(&self, oid: &str) -> BlobKind {
        tracing::debug!(oid, "GraphQL named a binary blob: served, not cached");
        BlobKind::Binary
    }

    async fn read_cached(&self, cached: Cached, want: &Want<'_>) -> Result<BlobKind, SourceError> {
        match cached {
            Cached::Full(text) => Ok(text_kind(text, false)),
            Cached::Binary => Ok(BlobKind::Binary),
            Cached::Partial(text) if want.extent.covered_by_in(&text, Some(text.line_index())) => {
                Ok(text_kind(text, true))
            }
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
        let text = Arc::new(Text::from(text));
        let key = ContentKey::Blob(want.oid.to_string());
        match verify::graphql_text(text.len() as u64, want.size) {
            TextFit::Whole => {
                self.cache.put(&key, Cached::Full(Arc::clone(&text)));
                return Ok(text_kind(text, false));
            }
            TextFit::Part if want.extent.covered_by_in(&text, Some(text.line_index())) => {
                self.cache.put(&key, Cached::Partial(Arc::clone(&text)));
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
        let key = ContentKey::Blob(oid.to_string());
        if let Some(Cached::Full(text)) = self.cache.get(&key) {
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
            self.cache.forget(&key);
            let (kind, _) = self
                .downloads
                .kind(&get, path, want.size, want.credential)
                .await?;
            self.cache.put(&key, cached_as(&kind));
            Ok(kind)
        };
        self.downloads
            .in_one_flight(&key, &get.what, download)
            .await
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
        let key = ContentKey::Lfs(sha256.to_string());
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
                size: node.raw_size.map(|s| s.0),
            },
        };
        let download = async {
            let (kind, proven) = self
                .downloads
                .kind(&get, at.path, size, want.credential)
                .await?;
            let kind = match kind {
                BlobKind::Binary => BlobKind::Lfs { storage },
                text => text,
            };
            // An early binary verdict is unproven (the object was not hashed whole): not cached.
            if proven {
                self.cache.put(&key, cached_as(&kind));
            }
            Ok(kind)
        };
        self.downloads
            .in_one_flight(&key, &get.what, download)
            .await
    }

    /// The bytes of the blob `oid` (GitLab's `size` bytes) at `path` in the project `project`
    /// (its full path), at most `max_bytes`: downloaded whole by oid from REST and hashed, not
    /// cached (the cache holds text).
    pub(crate) async fn bytes(
        &self,
        (project, path): (&str, &str),
        (oid, size): (&str, u64),
        max_bytes: u64,
        credential: Option<&Credential>,
    ) -> Result<Vec<u8>, SourceError> {
        if size > max_bytes {
            return Err(too_large(path, size, max_bytes));
        }
        let expected = Expected::GitBlob {
            oid: oid.to_string(),
            size,
        };
        let get = (raw::blob_path_in(project, oid), expected);
        self.downloads
            .bytes(get, (path, size), max_bytes, credential)
            .await
    }

    fn refuse_too_large(&self, path: &str, size: u64) -> Result<(), SourceError> {
        if size > self.max_file_bytes {
            return Err(too_large(path, size, self.max_file_bytes));
        }
        Ok(())
    }
}

/// `raw` decoded: off the async workers when it is large ([`crate::base::cpu::run`]), since up to
/// 10 MiB of text, escaped up to six bytes a character, takes milliseconds (seconds in a debug
/// build) to decode.
async fn decode_text(raw: BlobText) -> Result<String, GitlabError> {
    crate::base::cpu::run(raw.literal_len(), move |_| raw.decode())
        .await
        .map_err(|e| TransportError::Undecoded {
            cause: crate::base::cause::Shared::new(e),
        })?
        .map_err(GitlabError::Content)
}

/// The size GitLab reports: `rawSize` (for LFS the object's size), else `size`, else the
/// decoded length of the content it sent (0 without content).
fn size_bytes(node: &BlobFields) -> u64 {
    node.raw_size.or(node.size).map(|s| s.0).unwrap_or_else(|| {
        node.raw_text_blob
            .as_ref()
            .map_or(0, |t| t.decoded_len() as u64)
    })
}

/// The size to report of a blob of `kind` that GitLab said is `reported` bytes: a whole text's
/// own length (admitted only as the blob, so for an LFS object the real size even where the
/// pointer's size or `rawSize` is wrong), else what GitLab reported.
fn proven_size(kind: &BlobKind, reported: u64) -> u64 {
    match kind {
        BlobKind::Text {
            content,
            cut_by_read_limit: false,
        } => content.len() as u64,
        _ => reported,
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
    GitlabError::from(ShapeProblem::NoProjectId {
        path: path.to_string(),
    })
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::gitlab::query::scalars::{BigInt, BlobText};
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
            language: None,
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
        assert!(s.holds(&ContentKey::Blob("x".into())));
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
            assert!(!s.holds(&ContentKey::Blob(oid.into())));
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
        assert!(!s.holds(&ContentKey::Blob(oid.into())));
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
        assert!(!s.holds(&ContentKey::Blob("bin".into())));
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
