//! `search_repository` on GitLab, each step with the caller's own credential: the commit a ref
//! names (the request that proves the caller may read the project), a directory's paths at that
//! commit, a blob's content through the blob cache (a file of the tree read as the single read
//! reads it: asked by path at the commit, its content verified and cached by oid), and the
//! files GitLab's code search proposes.

use super::shared::GitlabState;
use crate::config::Credential;
use crate::resolve::ProjectRef;
use crate::source::blob::{BlobKind, SourceError};
use crate::source::gitlab::content::keys::ContentKey;
use crate::source::gitlab::content::store::{Asked, FileAt};
use crate::source::gitlab::query::blob_query::{self, BlobRequest, PathsRequest};
use crate::source::gitlab::query::find::{code_search, tree_query};
use crate::source::gitlab::query::paths_query;
use crate::source::tree::{Proposed, RefCommit, Scope, TreeItem};
use crate::window::Extent;

/// The commit `scope`'s ref names.
pub(crate) async fn ref_commit(
    shared: &GitlabState,
    scope: &Scope,
    credential: Option<&Credential>,
) -> Result<RefCommit, SourceError> {
    let project = scope
        .project
        .clone()
        .unwrap_or(ProjectRef::Path(String::new()));
    let named = || SourceError::ProjectNotFound {
        project: project.to_string(),
        anonymous: credential.is_none(),
    };
    let answer = tree_query::ask_commit(&shared.connection, &project, &scope.git_ref, credential)
        .await
        .map_err(|e| SourceError::from(e).naming_ref(&scope.git_ref))?;
    let at = answer.ok_or_else(named)?;
    if at.sha.is_empty() {
        return Err(SourceError::RefNotFound {
            git_ref: scope.git_ref.clone(),
        });
    }
    Ok(at)
}

/// Every path under `path` at `at`'s commit; a file is itself (GitLab lists nothing for a
/// file or a missing path: a file is told apart by asking for its blob).
pub(crate) async fn tree(
    shared: &GitlabState,
    at: &RefCommit,
    path: &str,
    credential: Option<&Credential>,
) -> Result<Vec<TreeItem>, SourceError> {
    let items = tree_query::ask_tree(&shared.connection, at, path, credential).await?;
    if !items.is_empty() || path.is_empty() {
        return Ok(items);
    }
    let node = blob_node(shared, at, path, false, credential).await?;
    Ok(node
        .map(|n| TreeItem {
            path: path.into(),
            kind: crate::source::tree::ItemKind::Blob,
            oid: n.oid.into(),
            size: None,
            lfs: false,
        })
        .into_iter()
        .collect())
}

/// The blob at `path` at `at`'s commit, with or without content.
async fn blob_node(
    shared: &GitlabState,
    at: &RefCommit,
    path: &str,
    content: bool,
    credential: Option<&Credential>,
) -> Result<Option<crate::source::gitlab::query::graphql::BlobFields>, SourceError> {
    let project = ProjectRef::Path(at.project_path.clone().unwrap_or_default());
    let request = BlobRequest {
        project: &project,
        git_ref: &at.sha,
        path,
        ref_type: None,
        language: false,
        blame: None,
        base_ref: None,
    };
    let answer = blob_query::ask_file(&shared.connection, request, content, credential).await?;
    Ok(answer.and_then(|mut a| a.take_node(path)))
}

/// The content of `item`: from the cache by its oid, else read as the single read reads it.
pub(crate) async fn blob(
    shared: &GitlabState,
    at: &RefCommit,
    item: &TreeItem,
    credential: Option<&Credential>,
) -> Result<BlobKind, SourceError> {
    if let Some(kind) = shared.store.cached_whole(&item.oid) {
        return Ok(kind);
    }
    let content = !shared.store.holds(&ContentKey::Blob(item.oid.to_string()));
    let Some(node) = blob_node(shared, at, &item.path, content, credential).await? else {
        return Ok(BlobKind::NotRead);
    };
    let file_at = FileAt {
        project_id: at.project_id,
        path: &item.path,
        git_ref: &at.sha,
    };
    let asked = Asked {
        extent: Extent::Whole,
        content,
        held: false,
    };
    if let Some(read) = shared.store.read(node, file_at, asked, credential).await? {
        return Ok(read.kind);
    }
    // Asked without content and not cached after all: once more, with it.
    let Some(node) = blob_node(shared, at, &item.path, true, credential).await? else {
        return Ok(BlobKind::NotRead);
    };
    let asked = Asked {
        content: true,
        ..asked
    };
    let read = shared.store.read(node, file_at, asked, credential).await?;
    Ok(read.map_or(BlobKind::NotRead, |r| r.kind))
}

/// The contents of `items`: those the cache holds from it, the others asked for together
/// (`blobs(paths:)`, as many requests as the instance needs), each read as [`blob`] reads
/// one; a file the answer does not name is read alone.
pub(crate) async fn blobs(
    shared: &GitlabState,
    at: &RefCommit,
    items: &[&TreeItem],
    credential: Option<&Credential>,
) -> Vec<Result<BlobKind, SourceError>> {
    let missing: Vec<&str> = items
        .iter()
        .filter(|i| shared.store.cached_whole(&i.oid).is_none())
        .map(|i| &*i.path)
        .collect();
    let mut nodes = Vec::new();
    if missing.len() > 1 {
        let project = ProjectRef::Path(at.project_path.clone().unwrap_or_default());
        let request = PathsRequest {
            project: &project,
            git_ref: &at.sha,
            paths: &missing,
            ref_type: None,
            language: false,
            blame: None,
            base_ref: None,
        };
        if let Ok(Some(answer)) =
            paths_query::ask_paths(&shared.connection, request, true, credential).await
        {
            nodes = answer.nodes;
        }
    }
    let mut read = Vec::with_capacity(items.len());
    for item in items {
        let node = nodes
            .iter()
            .position(|n| *n.path == *item.path && *n.oid == *item.oid)
            .map(|i| nodes.swap_remove(i));
        read.push(match node {
            Some(node) => content(shared, at, item, node, credential).await,
            None => blob(shared, at, item, credential).await,
        });
    }
    read
}

/// The content of `item` from `node`, its blob answer asked with content.
async fn content(
    shared: &GitlabState,
    at: &RefCommit,
    item: &TreeItem,
    node: crate::source::gitlab::query::graphql::BlobFields,
    credential: Option<&Credential>,
) -> Result<BlobKind, SourceError> {
    let file_at = FileAt {
        project_id: at.project_id,
        path: &item.path,
        git_ref: &at.sha,
    };
    let asked = Asked {
        extent: Extent::Whole,
        content: true,
        held: false,
    };
    let read = shared.store.read(node, file_at, asked, credential).await?;
    Ok(read.map_or(BlobKind::NotRead, |r| r.kind))
}

/// The files GitLab's code search finds `literal` in.
pub(crate) async fn propose(
    shared: &GitlabState,
    at: &RefCommit,
    literal: &str,
    dir: &str,
    credential: Option<&Credential>,
) -> Proposed {
    code_search::propose(&shared.connection, at, literal, dir, credential).await
}
