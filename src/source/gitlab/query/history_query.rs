//! The commits that changed a file, newest first (`graphql/history.graphql`): pages of
//! `Repository.commits(ref:, path:)`, at most 100 commits each, asked until the window and one
//! commit past it (to know whether more follow) are in hand. A page of the first 100 commits
//! costs one request.

use graphql_client::GraphQLQuery;

use super::client::Client;
use super::graphql::{History, history};
use crate::config::Credential;
use crate::source::blob::SourceError;
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::answer_data;
use crate::source::views::{Commit, CommitPage, CommitWindow, FileCommit};

/// GitLab's largest page of a connection.
const PAGE: u64 = 100;

/// The page `window` of the commits that changed `file`, asked at its commit.
pub(crate) async fn history(
    client: &Client,
    file: &FileCommit,
    window: CommitWindow,
    credential: Option<&Credential>,
) -> Result<CommitPage, SourceError> {
    let project = file.project.clone().unwrap_or_default();
    let wanted = window.offset.saturating_add(window.limit).saturating_add(1);
    let mut commits: Vec<Commit> = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let first = (wanted - commits.len() as u64).min(PAGE);
        let body = History::build_query(history::Variables {
            project_path: project.clone(),
            ref_: file.commit_sha.clone(),
            path: file.path.clone(),
            first: first as i64,
            after: after.take(),
        });
        let answer: GraphqlResponse<history::ResponseData> = client.post(&body, credential).await?;
        let connection = answer_data(answer)?
            .project
            .and_then(|p| p.repository)
            .ok_or_else(|| SourceError::ProjectNotFound {
                project: project.clone(),
                anonymous: credential.is_none(),
            })?
            .commits;
        let Some(connection) = connection else { break };
        commits.extend(
            connection
                .nodes
                .into_iter()
                .flatten()
                .flatten()
                .map(commit_of),
        );
        let next = connection.page_info;
        if commits.len() as u64 >= wanted || !next.has_next_page || next.end_cursor.is_none() {
            break;
        }
        after = next.end_cursor;
    }
    Ok(CommitPage::of(commits, window))
}

fn commit_of(node: history::HistoryProjectRepositoryCommitsNodes) -> Commit {
    Commit {
        sha: node.sha,
        title: node.title.unwrap_or_default(),
        author_name: node.author_name.unwrap_or_default(),
        authored_date: node.authored_date.unwrap_or_default(),
        parent_sha: node.parent_sha,
        web_url: Some(node.web_url),
    }
}
