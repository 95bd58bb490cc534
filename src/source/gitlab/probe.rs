//! The follow-up query after a blob query found nothing: does the ref exist, and is the path a
//! directory at it? Tells "ref not found" from "file not found" from "directory".
//! `Repository.commit(ref:)` answers on newer GitLab (`graphql/ref_commit.graphql`); older
//! instances, detected once, answer `tree(ref:) { lastCommit }` (`graphql/ref_tree.graphql`).

use graphql_client::GraphQLQuery;

use super::capabilities::COMMIT_FIELD;
use super::client::Client;
use super::error::{GitlabError, answer_data};
use super::graphql::{RefCommit, RefTree, ref_commit, ref_tree};
use crate::config::Credential;
use crate::resolve::{RefType, qualify_ref};
use crate::source::blob::SourceError;

/// What the follow-up query learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RefProbe {
    ref_exists: bool,
    is_dir: bool,
}

/// The error for a file GitLab did not find at `git_ref`: ref not found, a directory, or file
/// not found (or why the question could not be answered).
pub(crate) async fn why_missing(
    client: &Client,
    project_path: &str,
    git_ref: &str,
    path: &str,
    ref_type: Option<RefType>,
    credential: Option<&Credential>,
) -> SourceError {
    let qualified = qualify_ref(git_ref, ref_type);
    let probe = probe(client, project_path, &qualified, path, credential).await;
    let (git_ref, path) = (git_ref.to_string(), path.to_string());
    match probe {
        Ok(RefProbe {
            ref_exists: false, ..
        }) => SourceError::RefNotFound { git_ref },
        Ok(RefProbe { is_dir: true, .. }) => SourceError::IsDirectory { path, git_ref },
        Ok(_) => SourceError::FileNotFound { path, git_ref },
        Err(e) => e.into(),
    }
}

async fn probe(
    client: &Client,
    project_path: &str,
    git_ref: &str,
    path: &str,
    credential: Option<&Credential>,
) -> Result<RefProbe, GitlabError> {
    if client.caps().commit.worth_asking()
        && let Some(found) = by_commit(client, project_path, git_ref, path, credential).await?
    {
        return Ok(found);
    }
    by_tree(client, project_path, git_ref, path, credential).await
}

/// `Repository.commit(ref:)`; `Ok(None)` when the instance turns out not to have it.
async fn by_commit(
    client: &Client,
    project_path: &str,
    git_ref: &str,
    path: &str,
    credential: Option<&Credential>,
) -> Result<Option<RefProbe>, GitlabError> {
    let body = RefCommit::build_query(ref_commit::Variables {
        project_path: project_path.to_string(),
        ref_: git_ref.to_string(),
        path: path.to_string(),
    });
    let answer = client.post(&body, credential).await?;
    if answer.lacks_field(COMMIT_FIELD) {
        tracing::info!("this GitLab has no Repository.commit; using tree.lastCommit");
        client.caps().commit.record(false);
        return Ok(None);
    }
    client.caps().commit.record(true);
    let data: ref_commit::ResponseData = answer_data(answer)?;
    let repo = data.project.and_then(|p| p.repository);
    let ref_exists = repo.as_ref().is_some_and(|r| r.commit.is_some());
    let is_dir = repo
        .and_then(|r| r.dir)
        .is_some_and(|d| any_entry(&d.trees.nodes) || any_entry(&d.blobs.nodes));
    Ok(Some(RefProbe { ref_exists, is_dir }))
}

/// `tree(ref:) { lastCommit }`, for instances without `Repository.commit`.
async fn by_tree(
    client: &Client,
    project_path: &str,
    git_ref: &str,
    path: &str,
    credential: Option<&Credential>,
) -> Result<RefProbe, GitlabError> {
    let body = RefTree::build_query(ref_tree::Variables {
        project_path: project_path.to_string(),
        ref_: git_ref.to_string(),
        path: path.to_string(),
    });
    let data: ref_tree::ResponseData = answer_data(client.post(&body, credential).await?)?;
    let repo = data.project.and_then(|p| p.repository);
    let ref_exists = repo
        .as_ref()
        .and_then(|r| r.tree.as_ref())
        .is_some_and(|t| t.last_commit.is_some());
    let is_dir = repo
        .and_then(|r| r.dir)
        .is_some_and(|d| any_entry(&d.trees.nodes) || any_entry(&d.blobs.nodes));
    Ok(RefProbe { ref_exists, is_dir })
}

/// Whether a connection's `nodes` hold an entry: git stores no empty directories, so a path
/// with entries is a directory.
fn any_entry<T>(nodes: &Option<Vec<Option<T>>>) -> bool {
    nodes.iter().flatten().flatten().next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries() {
        assert!(!any_entry::<u8>(&None));
        assert!(!any_entry::<u8>(&Some(vec![])));
        assert!(!any_entry::<u8>(&Some(vec![None])));
        assert!(any_entry(&Some(vec![None, Some(1)])));
    }
}
