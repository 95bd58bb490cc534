//! The GitLab source: reads a [`ProjectFile`] over GitLab's GraphQL API. This module is its
//! façade: the source, and what it hands each read to (`read::single` for one lookup,
//! `read::many` for a batch). Below it, five floors in the order of a read, each importing only
//! the floors under it: [`read`] (the call's loop) → [`content`] (a blob's bytes) → [`query`]
//! (asking GitLab) → [`rules`] (GitLab's rules, pure) → [`wire`] (HTTP).
//!
//! Every call asks GitLab, with the caller's own credential, whether the caller may read the file
//! at the ref now and which blob it is: the blob query (`query::blob_query`) for a file named by
//! ref and path, or the evidence query (`query::evidence_query`) for a URL whose "ref/path"
//! splits several ways (`read::answer`). That one request carries the content only when the blob
//! this lookup named last time is not cached (`content::cache`, keyed by `content::keys`):
//! windows after the first cost a request without content. Each reply is finished one way
//! (`read::finish`): a miss probed (`query::probe`, to tell a missing ref from a missing file or
//! a directory), the project's Duo exclusion rules applied (`rules::exclusion`; they ride along
//! in the first request where the instance has them), the project checked, the blob remembered.
//! The content comes from the cache, the answer, or the REST raw endpoints past GitLab's 10 MiB
//! read limit and for LFS objects (`content::store`, `content::download`, `content::raw`). A
//! second request happens only when the answer names a blob that is not cached (the file
//! changed), or on a miss. Which optional fields the instance knows is learned once
//! (`query::capabilities`). Apart from reads, `query::token_check` asks whether GitLab accepts a
//! token, for the HTTP server before it opens a session.

mod content;
mod query;
mod read;
mod rules;
mod wire;

/// The pure parts the fuzz targets check (through `crate::fuzzing`, nothing else).
pub(crate) mod pure {
    pub(crate) use super::rules::exclusion::{fnmatch, is_excluded, normalize_path};
    pub(crate) use super::wire::json_text::decode as decode_json_text;
}

use std::sync::Arc;

use query::find::complete_query;
pub(crate) use query::token_check::TokenStanding;
use query::{blob_query, commits_query, evidence_query, graphql, token_check};
use read::shared::GitlabState;
use read::{find, many, single};

use crate::config::{ConfigError, Credential, GitlabConfig};
use crate::resolve::args::ToolArgs;
use crate::resolve::{self, ProjectFile, ProjectRef, ResolveError, Target};
use crate::source::blob::{BlobKind, Fetched, SourceError};
use crate::source::tree::{Proposed, RefCommit, Scope, TreeItem, TreeSource};
use crate::source::views::{Alongside, Also, Blamed, CommitPage, CommitWindow, FileCommit};
use crate::source::{Source, Wanted};
use crate::window::Extent;

/// The GitLab source; cheap to clone and share across calls (and callers: the blob cache and
/// what was last seen are shared, every call still validates with its own credential).
#[derive(Debug, Clone)]
pub(crate) struct GitlabSource {
    base: ::url::Url,
    shared: Arc<GitlabState>,
}

impl Source for GitlabSource {
    type Lookup = ProjectFile;

    fn resolve(&self, args: &ToolArgs) -> Result<Target<ProjectFile>, ResolveError> {
        resolve::for_gitlab(args, self.base())
    }

    /// One lookup ([`single::fetch`]).
    async fn fetch(
        &self,
        lookup: &ProjectFile,
        extent: Extent,
        held: Option<&str>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        let wanted = Wanted {
            lookup,
            extent,
            held,
        };
        single::fetch(&self.shared, wanted, credential).await
    }

    /// Many lookups, grouped by project and ref ([`many::fetch_many`]).
    async fn fetch_many(
        &self,
        wanted: &[Wanted<'_, ProjectFile>],
        credential: Option<&Credential>,
    ) -> Vec<Result<Fetched, SourceError>> {
        many::fetch_many(&self.shared, wanted, credential).await
    }

    fn at_ref(&self, lookup: &ProjectFile, git_ref: &str) -> Option<ProjectFile> {
        let (project, path) = match lookup {
            ProjectFile::Named { project, path, .. } => (project.clone(), path.clone()),
            ProjectFile::Url {
                project_path,
                file: crate::resolve::Lookup::Exact { path, .. },
                ..
            } => (ProjectRef::Path(project_path.clone()), path.clone()),
            ProjectFile::Url { .. } => return None,
        };
        let git_ref = git_ref.to_string();
        Some(ProjectFile::Named {
            project,
            git_ref,
            path,
        })
    }

    /// One lookup, the same request blaming up to [`commits_query::LINES_PER_FIELD`] lines
    /// and reading the file at the other ref ([`single::fetch_with`]).
    async fn fetch_with(
        &self,
        wanted: Wanted<'_, ProjectFile>,
        also: &Also,
        credential: Option<&Credential>,
    ) -> Result<(Fetched, Alongside), SourceError> {
        let blame = also.blame.map(|(first, last)| {
            let most = first.saturating_add(commits_query::LINES_PER_FIELD - 1);
            (first, last.min(most))
        });
        let also = Also {
            blame,
            base_ref: also.base_ref.clone(),
        };
        single::fetch_with(&self.shared, wanted, &also, credential).await
    }

    /// `Repository.commits(ref:, path:)` at the file's commit ([`commits_query`]).
    async fn history(
        &self,
        file: &FileCommit,
        window: CommitWindow,
        credential: Option<&Credential>,
    ) -> Result<CommitPage, SourceError> {
        commits_query::history(&self.shared.connection, file, window, credential).await
    }

    /// `RepositoryBlob.blame` of the window's lines, one request ([`commits_query`]).
    async fn blame(
        &self,
        file: &FileCommit,
        lines: (u64, u64),
        credential: Option<&Credential>,
    ) -> Result<Blamed, SourceError> {
        commits_query::blame(&self.shared.connection, file, lines, credential).await
    }

    /// The blob's bytes by its oid from REST ([`content::store::ContentStore::bytes`]), in
    /// the project the fetch named, with the caller's credential.
    async fn bytes(
        &self,
        fetched: &Fetched,
        max_bytes: u64,
        credential: Option<&Credential>,
    ) -> Result<Vec<u8>, SourceError> {
        let blob = &fetched.blob;
        let (Some(project), Some(oid)) = (fetched.project.as_deref(), blob.id.as_deref()) else {
            // GitLab's answer names both for every blob it finds.
            let path = blob.path.clone();
            return Err(
                wire::error::GitlabError::from(wire::error::ShapeProblem::NoProjectId { path })
                    .into(),
            );
        };
        let at = (project, blob.path.as_str());
        self.shared
            .store
            .bytes(at, (oid, blob.size_bytes), max_bytes, credential)
            .await
    }

    /// The file at another ref, read as any whole file is (the blob cache, then GitLab).
    async fn fetch_at(
        &self,
        file: &FileCommit,
        git_ref: &str,
        credential: Option<&Credential>,
    ) -> Result<Option<Fetched>, SourceError> {
        let lookup = ProjectFile::Named {
            project: ProjectRef::Path(file.project.clone().unwrap_or_default()),
            git_ref: git_ref.to_string(),
            path: file.path.clone(),
        };
        let wanted = Wanted {
            lookup: &lookup,
            extent: Extent::Whole,
            held: None,
        };
        match single::fetch(&self.shared, wanted, credential).await {
            Ok(fetched) => Ok(Some(fetched)),
            Err(e) if crate::source::no_such_file(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// `search_repository`'s steps ([`find`]).
impl TreeSource for GitlabSource {
    async fn ref_commit(
        &self,
        scope: &Scope,
        credential: Option<&Credential>,
    ) -> Result<RefCommit, SourceError> {
        find::ref_commit(&self.shared, scope, credential).await
    }

    async fn tree(
        &self,
        at: &RefCommit,
        path: &str,
        credential: Option<&Credential>,
    ) -> Result<Vec<TreeItem>, SourceError> {
        find::tree(&self.shared, at, path, credential).await
    }

    async fn blob(
        &self,
        at: &RefCommit,
        item: &TreeItem,
        credential: Option<&Credential>,
    ) -> Result<BlobKind, SourceError> {
        find::blob(&self.shared, at, item, credential).await
    }

    async fn blobs(
        &self,
        at: &RefCommit,
        items: &[&TreeItem],
        credential: Option<&Credential>,
    ) -> Vec<Result<BlobKind, SourceError>> {
        find::blobs(&self.shared, at, items, credential).await
    }

    async fn propose(
        &self,
        at: &RefCommit,
        literal: &str,
        dir: &str,
        credential: Option<&Credential>,
    ) -> Proposed {
        find::propose(&self.shared, at, literal, dir, credential).await
    }
}

impl GitlabSource {
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, ConfigError> {
        Ok(Self {
            base: config.base_url.clone(),
            shared: Arc::new(GitlabState::new(config)?),
        })
    }

    /// The instance's base URL (file URLs must be on it).
    pub(crate) fn base(&self) -> &::url::Url {
        &self.base
    }

    /// Whether the instance accepts `credential` ([`token_check`]: one request, not cached
    /// here).
    pub(crate) async fn check_token(
        &self,
        credential: &Credential,
    ) -> Result<TokenStanding, SourceError> {
        token_check::check(&self.shared.connection, credential)
            .await
            .map_err(SourceError::from)
    }

    /// A template's project completed ([`complete_query::ask_projects`]): the caller's
    /// projects matching `typed`, and whether there are more; none when GitLab fails.
    pub(crate) async fn complete_projects(
        &self,
        typed: &str,
        credential: Option<&Credential>,
    ) -> (Vec<String>, bool) {
        let connection = &self.shared.connection;
        complete_query::ask_projects(connection, typed, credential)
            .await
            .unwrap_or_default()
    }

    /// A template's ref completed: `project`'s default branch, its branches and its tags
    /// starting with `typed` (two requests; none for a project the caller cannot read).
    pub(crate) async fn complete_refs(
        &self,
        project: &str,
        typed: &str,
        credential: Option<&Credential>,
    ) -> Option<CompletedRefs> {
        let connection = &self.shared.connection;
        let found = complete_query::ask_branches(connection, project, typed, credential).await;
        let (default_branch, branches) = found.ok().flatten()?;
        let tags = complete_query::ask_tags(connection, project, typed, credential).await;
        Some(CompletedRefs {
            default_branch,
            branches,
            tags,
        })
    }
}

/// The refs a completion found (each list at most [`complete_query::LIMIT`] + 1 long, so a
/// longer one says more exist).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CompletedRefs {
    pub default_branch: Option<String>,
    pub branches: Vec<String>,
    pub tags: Vec<String>,
}

/// Every GraphQL document this source may send, named: the checked-in operations, their
/// variants without optional fields, and the run-time URL-split documents (every batch size
/// and combination of optional fields).
pub(crate) fn all_documents() -> Vec<(String, String)> {
    use graphql::miss_probe;
    let mut documents = blob_query::documents();
    documents.push(("MissProbe".into(), miss_probe::QUERY.into()));
    documents.push(("CurrentUser".into(), graphql::current_user::QUERY.into()));
    documents.push(("History".into(), graphql::history::QUERY.into()));
    documents.push(("Blame".into(), graphql::blame::QUERY.into()));
    documents.extend(query::find::tree_query::documents());
    for count in 1..=evidence_query::MAX_PER_REQUEST {
        for i in 0..16 {
            let extras = evidence_query::Extras {
                rules: i & 1 != 0,
                commit: i & 2 != 0,
                content: true,
                language: true,
                permalink: i & 4 != 0,
                ref_type: i & 8 != 0,
            };
            documents.push((
                format!("BlobBySplits {count} {extras:?}"),
                evidence_query::document(count, 3, extras),
            ));
        }
    }
    documents
}
