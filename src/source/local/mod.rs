//! The local-repository source: the source contract for a git repository on disk
//! ([`LocalSource`]: a lookup, a URL's candidate splits chosen like GitLab chooses them, a
//! blob), over the gix I/O of [`repo`]. Its own failures are [`LocalError`]s and
//! [`error::LocalRefError`]s.

mod error;
mod history;
mod repo;
mod tree;

use std::sync::Arc;

pub(crate) use error::LocalError;
pub(crate) use repo::LocalRepo;
use repo::OnMiss;

use super::blob::{Blob, Fetched, SourceError};
use crate::base::cause::Shared;
use crate::config::Credential;
use crate::resolve::args::ToolArgs;
use crate::resolve::choice::{Evidence, choose};
use crate::resolve::{self, Lookup, ResolveError, Target};
use crate::source::Source;
use crate::source::blob::BlobKind;
use crate::source::tree::{Proposed, RefCommit, Scope, TreeItem, TreeSource};
use crate::source::views::{Blamed, CommitPage, CommitWindow, FileCommit};
use crate::window::Extent;

/// The local repository as a source: reads a [`Lookup`] on a blocking thread (gix is
/// synchronous), choosing among a URL's candidate splits as GitLab would.
#[derive(Debug, Clone)]
pub(crate) struct LocalSource {
    repo: Arc<LocalRepo>,
}

impl Source for LocalSource {
    type Lookup = Lookup;

    fn resolve(&self, args: &ToolArgs) -> Result<Target<Lookup>, ResolveError> {
        resolve::for_local(args)
    }

    fn at_ref(&self, lookup: &Lookup, git_ref: &str) -> Option<Lookup> {
        let Lookup::Exact { path, .. } = lookup else {
            return None;
        };
        Some(Lookup::Exact {
            git_ref: git_ref.to_string(),
            path: path.clone(),
            ref_type: None,
        })
    }

    /// Reads the file `lookup` names on a blocking thread. The whole blob is read whatever the
    /// extent (a local read has no read limit), and also when the caller holds it: reading it
    /// costs no network, and gives the window's metadata.
    async fn fetch(
        &self,
        lookup: &Lookup,
        _extent: Extent,
        _held: Option<&str>,
        _credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        let repo = Arc::clone(&self.repo);
        let lookup = lookup.clone();
        blocking(move || repo.read_lookup(&lookup)).await
    }

    /// The commits that changed the file, from the commit graph, on a blocking thread.
    async fn history(
        &self,
        file: &FileCommit,
        window: CommitWindow,
        _credential: Option<&Credential>,
    ) -> Result<CommitPage, SourceError> {
        let repo = Arc::clone(&self.repo);
        let file = file.clone();
        blocking(move || repo.history(&file, window)).await
    }

    /// gix's blame of the lines, on a blocking thread.
    async fn blame(
        &self,
        file: &FileCommit,
        lines: (u64, u64),
        _credential: Option<&Credential>,
    ) -> Result<Blamed, SourceError> {
        let repo = Arc::clone(&self.repo);
        let file = file.clone();
        blocking(move || repo.blame(&file, lines)).await
    }

    /// The blob's bytes by its id, on a blocking thread.
    async fn bytes(
        &self,
        fetched: &Fetched,
        max_bytes: u64,
        _credential: Option<&Credential>,
    ) -> Result<Vec<u8>, SourceError> {
        let blob = fetched.blob.clone();
        self.blocking(move |repo| repo.bytes(&blob, max_bytes))
            .await
    }

    /// The file at another ref, on a blocking thread.
    async fn fetch_at(
        &self,
        file: &FileCommit,
        git_ref: &str,
        _credential: Option<&Credential>,
    ) -> Result<Option<Fetched>, SourceError> {
        let repo = Arc::clone(&self.repo);
        let lookup = Lookup::Exact {
            git_ref: git_ref.to_string(),
            path: file.path.clone(),
            ref_type: None,
        };
        match blocking(move || repo.read_lookup(&lookup)).await {
            Ok(fetched) => Ok(Some(fetched)),
            Err(e) if crate::source::no_such_file(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// What a local search tells the answer about GitLab's search.
const NO_SEARCH_INDEX: &str = "a local repository has no search index";

impl TreeSource for LocalSource {
    async fn ref_commit(
        &self,
        scope: &Scope,
        _credential: Option<&Credential>,
    ) -> Result<RefCommit, SourceError> {
        let git_ref = scope.git_ref.clone();
        self.blocking(move |repo| repo.commit_of(&git_ref)).await
    }

    async fn tree(
        &self,
        at: &RefCommit,
        path: &str,
        _credential: Option<&Credential>,
    ) -> Result<Vec<TreeItem>, SourceError> {
        let (sha, path) = (at.sha.clone(), path.to_string());
        self.blocking(move |repo| repo.items(&sha, &path)).await
    }

    async fn blob(
        &self,
        _at: &RefCommit,
        item: &TreeItem,
        _credential: Option<&Credential>,
    ) -> Result<BlobKind, SourceError> {
        let oid = item.oid.clone();
        self.blocking(move |repo| repo.blob_kind(&oid)).await
    }

    async fn propose(
        &self,
        _at: &RefCommit,
        _literal: &str,
        _path: &str,
        _credential: Option<&Credential>,
    ) -> Proposed {
        Proposed::Unavailable {
            why: NO_SEARCH_INDEX.to_string(),
            scan_limit: usize::MAX,
        }
    }
}

impl LocalSource {
    pub(crate) fn new(repo: LocalRepo) -> Self {
        Self {
            repo: Arc::new(repo),
        }
    }

    /// Runs `work` on the repository on a blocking thread (gix is synchronous).
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&LocalRepo) -> Result<T, SourceError> + Send + 'static,
    ) -> Result<T, SourceError> {
        let repo = Arc::clone(&self.repo);
        tokio::task::spawn_blocking(move || work(&repo))
            .await
            .unwrap_or_else(|e| {
                Err(SourceError::failed(LocalError::Task {
                    cause: Shared::new(e),
                }))
            })
    }
}

/// Runs `work` on a blocking thread (gix is synchronous); a task that fails is the source's
/// failure.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, SourceError> + Send + 'static,
) -> Result<T, SourceError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(SourceError::failed(LocalError::Task {
            cause: Shared::new(e),
        }))
    })
}

impl LocalRepo {
    /// The blocking half of [`LocalSource`]'s `fetch`. Errors name the ref as the caller gave
    /// it (`v1.0`), not as qualified for the lookup (`refs/tags/v1.0`).
    fn read_lookup(&self, lookup: &Lookup) -> Result<Fetched, SourceError> {
        match lookup {
            Lookup::Exact {
                git_ref,
                path,
                ref_type,
            } => Ok(Fetched {
                blob: self.read_as(git_ref, *ref_type, path, OnMiss::Suggest)?,
                project: None,
                split_fallback_from: None,
                web_url: None,
                language: None,
            }),
            Lookup::Candidates {
                candidates,
                ref_type,
            } => {
                let mut reads: Vec<Result<Blob, SourceError>> = candidates
                    .iter()
                    .map(|c| self.read_as(&c.git_ref, *ref_type, &c.path, OnMiss::NoSuggestions))
                    .collect();
                let evidence: Vec<Evidence> = candidates
                    .iter()
                    .zip(&reads)
                    .map(|(c, read)| Evidence {
                        ref_is_branch_or_tag: self.is_branch_or_tag(&c.git_ref),
                        blob_found: read.is_ok(),
                    })
                    .collect();
                // `choose` returns indexes into `evidence`, which has one entry per candidate.
                // Nothing found: GitLab's own split is read again, for its "Did you mean".
                let pick = choose(&evidence).pick().map_err(|gitlab| {
                    let c = &candidates[gitlab];
                    match self.read_as(&c.git_ref, *ref_type, &c.path, OnMiss::Suggest) {
                        Err(e) => e,
                        // Not found means this read failed; kept total all the same.
                        Ok(_) => SourceError::FileNotFound {
                            path: c.path.clone(),
                            git_ref: c.git_ref.clone(),
                        },
                    }
                })?;
                Ok(Fetched {
                    blob: reads.swap_remove(pick.used)?,
                    project: None,
                    split_fallback_from: pick.fallback_from.map(|g| candidates[g].git_ref.clone()),
                    web_url: None,
                    language: None,
                })
            }
        }
    }
}
