//! REST downloads of content, once GitLab's answer has named it: each content address downloaded
//! once at a time (a single flight per [`ContentKey`]), hashed as it streams ([`raw::download`]
//! with what [`verify`](crate::source::gitlab::wire::verify) expects), downloaded once more on a
//! mismatch, and turned into a blob's kind. What a flight hands on is a [`Landed`] outcome, which a
//! follower takes as its own only when it is about the same content.

use std::sync::Arc;

use super::flights::{FlightRole, Flights};
use super::keys::ContentKey;
use super::raw::{self, Download, Sniff};
use crate::config::Credential;
use crate::metrics::Endpoint;
use crate::source::blob::{BlobKind, SourceError};
use crate::source::classify::looks_binary;
use crate::source::gitlab::wire::error::GitlabError;
use crate::source::gitlab::wire::transport::Transport;
use crate::source::gitlab::wire::transport_error::TransportError;
use crate::source::gitlab::wire::verify::{Expected, LfsObjectMissing, Mismatch};
use crate::source::text::Text;

/// One REST download: where, named how in errors, and what its bytes must be.
#[derive(Debug)]
pub(crate) struct Get {
    pub path_and_query: String,
    pub what: String,
    pub sniff: Sniff,
    pub expected: Expected,
}

/// A flight's outcome as it hands it on: what it was about (`W`: the names its error would
/// use, or the content and path a first read named) and what came of it.
#[derive(Debug, Clone)]
pub(crate) struct Landed<W = String> {
    what: W,
    outcome: Result<BlobKind, SourceError>,
}

impl<W: PartialEq> Landed<W> {
    pub(crate) fn new(what: W, outcome: Result<BlobKind, SourceError>) -> Self {
        Self { what, outcome }
    }

    /// The failure a follower that wanted `what` takes as its own ([`Self::applies_to`]).
    pub(crate) fn failure_for(self, what: &W) -> Option<SourceError> {
        if !self.applies_to(what) {
            return None;
        }
        self.outcome.err()
    }

    /// Whether a follower that wanted `what` takes this outcome as its own: content always (it
    /// is proven, by address); a failure only when it names the same thing and is about the
    /// content or GitLab's answer, not about the leader's token.
    fn applies_to(&self, what: &W) -> bool {
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
        about_the_content && self.what == *what
    }
}

/// The downloads: the transport, the flights in progress, the size limit.
#[derive(Debug)]
pub(crate) struct Downloads {
    transport: Transport,
    flights: Flights<ContentKey, Landed>,
    max_file_bytes: u64,
}

impl Downloads {
    pub(crate) fn new(transport: Transport, max_file_bytes: u64) -> Self {
        Self {
            transport,
            flights: Flights::default(),
            max_file_bytes,
        }
    }

    /// Runs `download` (of `what`, filed under `key`) once for concurrent calls: the first
    /// leads, the others are handed its outcome when it lands — content always, a failure when
    /// it is about the content and names the same thing. A leader that failed on something of
    /// its own (its token) or was cancelled leaves each follower to download for itself.
    pub(crate) async fn in_one_flight(
        &self,
        key: &ContentKey,
        what: &str,
        download: impl Future<Output = Result<BlobKind, SourceError>>,
    ) -> Result<BlobKind, SourceError> {
        match self.flights.join(key.clone()) {
            FlightRole::Lead(lead) => {
                let outcome = download.await;
                lead.land(Landed::new(what.to_string(), outcome.clone()));
                outcome
            }
            FlightRole::Follow(follow) => match follow.outcome().await {
                Some(landed) if landed.applies_to(&what.to_string()) => landed.outcome,
                _ => download.await,
            },
        }
    }

    /// `get` downloaded and verified, as the kind of the blob at `path` that GitLab said is
    /// `size` bytes; and whether it is proven (hashed whole: an early binary verdict is not).
    pub(crate) async fn kind(
        &self,
        get: &Get,
        path: &str,
        size: u64,
        credential: Option<&Credential>,
    ) -> Result<(BlobKind, bool), SourceError> {
        let download = self.verified(get, self.max_file_bytes, credential).await?;
        let proven = matches!(download, Download::Bytes(_));
        Ok((self.text_or_binary(download, get, path, size)?, proven))
    }

    /// The blob `expected` names downloaded whole from `path_and_query` and verified, its
    /// bytes as they are, at most `max_bytes` (a binary blob served whole); the blob at `path`
    /// GitLab said is `size` bytes.
    pub(crate) async fn bytes(
        &self,
        (path_and_query, expected): (String, Expected),
        (path, size): (&str, u64),
        max_bytes: u64,
        credential: Option<&Credential>,
    ) -> Result<Vec<u8>, SourceError> {
        let get = Get {
            path_and_query,
            what: format!("the bytes of '{path}'"),
            sniff: Sniff::KeepAll,
            expected,
        };
        match self.verified(&get, max_bytes, credential).await? {
            Download::Bytes(bytes) => Ok(bytes),
            Download::TooLarge { at_least } => Err(too_large(path, size.max(at_least), max_bytes)),
            Download::LfsObjectMissing => Err(LfsObjectMissing {
                path: path.to_string(),
            }
            .into()),
            // `verified` returns no mismatch; a binary verdict needs `Sniff::StopAtBinary`, and
            // this download keeps all: both are here for the match alone.
            Download::Mismatch(problem) => Err(GitlabError::Mismatch(Mismatch {
                what: get.what,
                problem,
            })
            .into()),
            Download::Binary => Err(too_large(path, size, max_bytes)),
        }
    }

    /// Downloads `get`, hashed as it streams, at most `max_bytes`; bytes that are not the
    /// content asked for are downloaded once more, and a second mismatch is an error. Nothing
    /// unproven is returned but an early binary verdict ([`Download::Binary`]), which is never
    /// cached.
    async fn verified(
        &self,
        get: &Get,
        max_bytes: u64,
        credential: Option<&Credential>,
    ) -> Result<Download, SourceError> {
        let mut retried = false;
        loop {
            let download = raw::download(
                &self.transport,
                &get.path_and_query,
                &get.what,
                (max_bytes, get.sniff),
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

    fn text_or_binary(
        &self,
        download: Download,
        get: &Get,
        path: &str,
        size: u64,
    ) -> Result<BlobKind, SourceError> {
        match download {
            // GitLab's size may be wrong (an LFS pointer's): the bytes that came say more.
            Download::TooLarge { at_least } => {
                Err(too_large(path, size.max(at_least), self.max_file_bytes))
            }
            Download::LfsObjectMissing => Err(LfsObjectMissing {
                path: path.to_string(),
            }
            .into()),
            // `verified` returns no mismatch.
            Download::Mismatch(problem) => {
                let what = get.what.clone();
                Err(GitlabError::Mismatch(Mismatch { what, problem }).into())
            }
            Download::Binary => Ok(BlobKind::Binary),
            Download::Bytes(bytes) if looks_binary(&bytes) => Ok(BlobKind::Binary),
            Download::Bytes(bytes) => Ok(match String::from_utf8(bytes) {
                Ok(text) => text_kind(Arc::new(text.into()), false),
                Err(_) => BlobKind::Binary,
            }),
        }
    }
}

/// The refusal of a file of `size` bytes, past the `limit`.
pub(crate) fn too_large(path: &str, size: u64, limit: u64) -> SourceError {
    SourceError::FileTooLarge {
        path: path.to_string(),
        size_bytes: size,
        limit,
    }
}

pub(crate) fn text_kind(content: Arc<Text>, cut_by_read_limit: bool) -> BlobKind {
    BlobKind::Text {
        content,
        cut_by_read_limit,
    }
}
