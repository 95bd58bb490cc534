//! The tree contract `search_repository` reads through ([`TreeSource`]): where a search looks
//! ([`Scope`]), the commit a ref resolves to ([`RefCommit`]), the paths under a directory at
//! that commit ([`TreeItem`]s), one blob's text by its id, and (GitLab only) the files GitLab's
//! own search proposes for a literal ([`Proposed`]). Both sources implement it; the types are
//! pure.

use std::sync::Arc;

use super::blob::{BlobKind, SourceError};
use crate::config::Credential;
use crate::resolve::ProjectRef;

/// Where a search looks: a project (GitLab; `None` locally), a ref as given, a directory
/// (`""` = the root, no leading or trailing `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scope {
    pub project: Option<ProjectRef>,
    pub git_ref: String,
    pub path: String,
}

/// What a ref resolved to, for a caller that may read it: the commit, and on GitLab the
/// project (its full path and id) and its Duo context exclusion rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefCommit {
    pub sha: String,
    /// The project's full path (GitLab), the key of its cached trees with the commit.
    pub project_path: Option<String>,
    pub project_id: Option<u64>,
    /// The project's exclusion rules, when the instance has them.
    pub rules: Option<Vec<String>>,
}

/// A tree entry's kind, as `search_repository` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemKind {
    Blob,
    Tree,
}

impl ItemKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ItemKind::Blob => "blob",
            ItemKind::Tree => "tree",
        }
    }
}

/// One path of a tree (submodules are left out: their files live in another repository).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeItem {
    /// From the repository root, no leading `/` (boxed: a cached tree holds many).
    pub path: Box<str>,
    pub kind: ItemKind,
    /// The object id (a blob's is its content address).
    pub oid: Box<str>,
    /// The blob's size, where the source knows it (GitLab's tree does not).
    pub size: Option<u64>,
    /// Whether the blob is a Git LFS pointer (GitLab's tree says so; locally, unknown until
    /// read).
    pub lfs: bool,
}

impl TreeItem {
    /// The memory an item holds, roughly: what a cached tree is weighed by.
    pub(crate) fn weight(&self) -> u64 {
        (std::mem::size_of::<TreeItem>() + self.path.len() + self.oid.len()) as u64
    }

    /// An item of `kind` at `path`, for unit tests: a 40-hex id, no size, not LFS.
    #[cfg(test)]
    pub(crate) fn for_tests(path: &str, kind: ItemKind) -> Self {
        Self {
            path: path.into(),
            kind,
            oid: "0".repeat(40).into(),
            size: None,
            lfs: false,
        }
    }
}

/// Every path under a directory at a commit, recursively, sorted by path.
pub(crate) type Items = Arc<Vec<TreeItem>>;

/// What GitLab's search proposed for a literal, or why it could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Proposed {
    /// The paths GitLab found the literal in (case-insensitively; more files than hold a
    /// match); `complete` is false when there were more results than this server pages through.
    Paths { paths: Vec<String>, complete: bool },
    /// GitLab's search cannot be used here (a local repository, search turned off (403), rate
    /// limited (429)): why, for the answer, and how many files a scan may read instead.
    Unavailable { why: String, scan_limit: usize },
}

/// A source of trees: what `search_repository` needs of GitLab or a local repository.
pub(crate) trait TreeSource {
    /// The commit `scope`'s ref resolves to, proving the caller may read the project.
    async fn ref_commit(
        &self,
        scope: &Scope,
        credential: Option<&Credential>,
    ) -> Result<RefCommit, SourceError>;

    /// Every path under `path` at `at`, recursively, in any order; a `path` that is a file
    /// is that file alone, a missing one nothing. `Send`, so a long listing can go on in a
    /// task of its own.
    fn tree(
        &self,
        at: &RefCommit,
        path: &str,
        credential: Option<&Credential>,
    ) -> impl Future<Output = Result<Vec<TreeItem>, SourceError>> + Send;

    /// The content of `item`, a blob of the tree at `at`.
    async fn blob(
        &self,
        at: &RefCommit,
        item: &TreeItem,
        credential: Option<&Credential>,
    ) -> Result<BlobKind, SourceError>;

    /// The contents of several blobs of the tree at `at`, one answer per item, in order: by
    /// default one [`TreeSource::blob`] after the other; GitLab asks for many in a request.
    async fn blobs(
        &self,
        at: &RefCommit,
        items: &[&TreeItem],
        credential: Option<&Credential>,
    ) -> Vec<Result<BlobKind, SourceError>> {
        let mut read = Vec::with_capacity(items.len());
        for item in items {
            read.push(self.blob(at, item, credential).await);
        }
        read
    }

    /// The files under `path` at `at` whose text GitLab's search finds `literal` in.
    async fn propose(
        &self,
        at: &RefCommit,
        literal: &str,
        path: &str,
        credential: Option<&Credential>,
    ) -> Proposed;
}
