//! Where the bytes come from, behind one contract: a [`Source`] turns a call's arguments into
//! its own kind of lookup (`resolve`), and a lookup into a [`Fetched`] blob or a
//! [`SourceError`]. [`gitlab`] reads over GitLab's GraphQL API; [`local`] reads a git
//! repository on disk with gix. Both choose among a URL's candidate ref/path splits with the
//! same pure rule ([`crate::resolve::choice`]).
//!
//! Floors: the sources ([`gitlab`], [`local`]) above what they share ([`blob`], [`classify`],
//! [`listing`], [`suggest`], [`text`], a blob's text with its line index, and [`tree`], the contract `search_repository` reads through). May import `resolve`, `window`, `config`, `metrics` and `base`.

pub(crate) mod blob;
pub(crate) mod classify;
pub(crate) mod gitlab;
pub(crate) mod listing;
pub(crate) mod local;
pub(crate) mod suggest;
pub(crate) mod text;
pub(crate) mod tree;
pub(crate) mod views;

/// The throwaway repository the local source's and the classification's tests read.
#[cfg(test)]
#[path = "../../tests/it/support/git_fixture.rs"]
mod git_fixture;

pub(crate) use blob::{BlobKind, Fetched, SourceError, holds};

use crate::config::Credential;
use crate::resolve::args::ToolArgs;
use crate::resolve::{ResolveError, Target};
use crate::window::Extent;
use views::{Alongside, Also, Blamed, CommitPage, CommitWindow, FileCommit};

/// Whether a source's error says only that the file is not at that ref (the ref exists).
pub(crate) fn no_such_file(e: &SourceError) -> bool {
    matches!(
        e,
        SourceError::FileNotFound { .. }
            | SourceError::FileNotFoundNear { .. }
            | SourceError::IsDirectory { .. }
    )
}

/// One source of files. The lookup type is the source's own, so a GitLab lookup always names a
/// project and a local one never needs to.
pub(crate) trait Source {
    /// What this source needs to find a file.
    type Lookup;

    /// The call's arguments as this source's target (pure).
    fn resolve(&self, args: &ToolArgs) -> Result<Target<Self::Lookup>, ResolveError>;

    /// Reads the file `lookup` names, with the caller's credential where the source has
    /// access control; `extent` says how much of a large file is needed, and `held` the blob id
    /// the caller already holds (`if_none_match`): when the file is that blob, a source may
    /// leave its content unread ([`BlobKind::NotRead`]).
    async fn fetch(
        &self,
        lookup: &Self::Lookup,
        extent: Extent,
        held: Option<&str>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError>;

    /// The file `lookup` names, at `git_ref` instead (the diff view's other side of a file
    /// missing at its own ref); `None` when the lookup names no one file yet (a URL whose
    /// "ref/path" splits several ways).
    fn at_ref(&self, lookup: &Self::Lookup, git_ref: &str) -> Option<Self::Lookup>;

    /// Reads the file as [`Source::fetch`] does and, where the source can in the same
    /// request, what the view asks `also`; what it did not bring is `None` in [`Alongside`].
    async fn fetch_with(
        &self,
        wanted: Wanted<'_, Self::Lookup>,
        also: &Also,
        credential: Option<&Credential>,
    ) -> Result<(Fetched, Alongside), SourceError> {
        let _ = also;
        let fetched = self
            .fetch(wanted.lookup, wanted.extent, wanted.held, credential)
            .await?;
        Ok((fetched, Alongside::default()))
    }

    /// The page `window` of the commits that changed `file` up to its commit, newest first
    /// (the history view).
    async fn history(
        &self,
        file: &FileCommit,
        window: CommitWindow,
        credential: Option<&Credential>,
    ) -> Result<CommitPage, SourceError>;

    /// Who last changed each of the lines `first..=last` (1-indexed, within the file) of
    /// `file` at its commit (the blame view).
    async fn blame(
        &self,
        file: &FileCommit,
        lines: (u64, u64),
        credential: Option<&Credential>,
    ) -> Result<Blamed, SourceError>;

    /// The whole of `file` at another ref (the diff view's other side); `None` when the ref
    /// exists without such a file.
    async fn fetch_at(
        &self,
        file: &FileCommit,
        git_ref: &str,
        credential: Option<&Credential>,
    ) -> Result<Option<Fetched>, SourceError>;

    /// The bytes of `fetched`, a binary blob a fetch found with the same credential (its
    /// text has none): at most `max_bytes`, else [`SourceError::FileTooLarge`] with that
    /// limit. For a resource read, which serves a binary file whole.
    async fn bytes(
        &self,
        fetched: &Fetched,
        max_bytes: u64,
        credential: Option<&Credential>,
    ) -> Result<Vec<u8>, SourceError>;

    /// Reads the files of several lookups, each as [`Source::fetch`] would: one answer per
    /// lookup, in order. By default one `fetch` after the other; a source that can ask for
    /// many files at once groups them, each file still validated and read as `fetch` would.
    async fn fetch_many(
        &self,
        wanted: &[Wanted<'_, Self::Lookup>],
        credential: Option<&Credential>,
    ) -> Vec<Result<Fetched, SourceError>> {
        let mut fetched = Vec::with_capacity(wanted.len());
        for w in wanted {
            fetched.push(self.fetch(w.lookup, w.extent, w.held, credential).await);
        }
        fetched
    }
}

/// One file of a [`Source::fetch_many`]: what [`Source::fetch`] takes for it.
#[derive(Debug)]
pub(crate) struct Wanted<'a, L> {
    pub lookup: &'a L,
    pub extent: Extent,
    /// The blob id the caller holds (`if_none_match`).
    pub held: Option<&'a str>,
}

// Derived `Clone`/`Copy` would ask `L: Copy`; only the reference is copied.
impl<L> Clone for Wanted<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for Wanted<'_, L> {}
