//! A file's commits, asked of GitLab: its history (`graphql/history.graphql`: pages of
//! `Repository.commits(ref:, path:)`, at most 100 commits each, asked until the window and one
//! commit past it are in hand, so a page within the first 100 costs one request), and the
//! blame of lines (`graphql/blame.graphql`: whatever the file's length, only those lines, in
//! requests of up to [`FIELDS`] aliased `blame` fields of [`LINES_PER_FIELD`] lines, GitLab's
//! most per field; the answer read into our own types, the aliases being one shape, its runs
//! merged where a field's end cut them).

use super::connection::Connection;
use super::graphql::{History, blame, history};
use crate::config::Credential;
use crate::source::blob::SourceError;
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::answer_data;
use crate::source::views::{Blamed, Commit, CommitPage, CommitWindow, FileCommit};
use graphql_client::GraphQLQuery;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// GitLab's largest page of a connection.
const PAGE: u64 = 100;

/// The page `window` of the commits that changed `file`, asked at its commit.
pub(crate) async fn history(
    connection: &Connection,
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
        let answer: GraphqlResponse<history::ResponseData> =
            connection.post(&body, credential).await?;
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
                .map(history_commit),
        );
        let next = connection.page_info;
        if commits.len() as u64 >= wanted || !next.has_next_page || next.end_cursor.is_none() {
            break;
        }
        after = next.end_cursor;
    }
    Ok(CommitPage::of(commits, window))
}

fn history_commit(node: history::HistoryProjectRepositoryCommitsNodes) -> Commit {
    Commit {
        sha: node.sha,
        title: node.title.unwrap_or_default(),
        author_name: node.author_name.unwrap_or_default(),
        authored_date: node.authored_date.unwrap_or_default(),
        parent_sha: node.parent_sha,
        web_url: Some(node.web_url),
    }
}

/// Lines GitLab blames per field at most.
pub(crate) const LINES_PER_FIELD: u64 = 100;
/// Aliased fields in the document (`b0`..`b7`): what an anonymous caller may ask at once.
pub(crate) const FIELDS: u64 = 8;

#[derive(Debug, Deserialize)]
struct Data {
    project: Option<Project>,
}

#[derive(Debug, Deserialize)]
struct Project {
    repository: Option<Repository>,
}

#[derive(Debug, Deserialize)]
struct Repository {
    blobs: Option<Blobs>,
}

#[derive(Debug, Deserialize)]
struct Blobs {
    nodes: Vec<Option<BTreeMap<String, Option<Field>>>>,
}

#[derive(Debug, Deserialize)]
struct Field {
    groups: Option<Vec<BlameGroup>>,
}

#[derive(Debug, Deserialize)]
struct BlameGroup {
    lineno: u64,
    span: u64,
    commit: CommitNode,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommitNode {
    sha: String,
    title: Option<String>,
    author_name: Option<String>,
    authored_date: Option<String>,
    parent_sha: Option<String>,
    web_url: Option<String>,
}

/// The blame of the lines `first..=last` of `file` at its commit: one request for every
/// [`FIELDS`] × [`LINES_PER_FIELD`] lines.
pub(crate) async fn blame(
    connection: &Connection,
    file: &FileCommit,
    (first, last): (u64, u64),
    credential: Option<&Credential>,
) -> Result<Blamed, SourceError> {
    let mut blamed = Blamed::default();
    let mut from = first;
    while from <= last {
        let to = last.min(from.saturating_add(FIELDS * LINES_PER_FIELD - 1));
        blamed.extend(blame_once(connection, file, (from, to), credential).await?);
        from = to.saturating_add(1);
    }
    Ok(blamed)
}

/// The blame of the lines `first..=last` (at most [`FIELDS`] × [`LINES_PER_FIELD`]), one request.
async fn blame_once(
    connection: &Connection,
    file: &FileCommit,
    (first, last): (u64, u64),
    credential: Option<&Credential>,
) -> Result<Blamed, SourceError> {
    let project = file.project.clone().unwrap_or_default();
    let body = json!({
        "query": blame::QUERY,
        "operationName": "Blame",
        "variables": variables(&project, file, first, last),
    });
    let answer: GraphqlResponse<Data> = connection.post(&body, credential).await?;
    let nodes = answer_data(answer)?
        .project
        .and_then(|p| p.repository)
        .ok_or_else(|| SourceError::ProjectNotFound {
            project,
            anonymous: credential.is_none(),
        })?
        .blobs
        .map(|b| b.nodes)
        .unwrap_or_default();
    let groups = nodes
        .into_iter()
        .flatten()
        .flat_map(|fields| fields.into_values())
        .flatten()
        .flat_map(|field| field.groups.unwrap_or_default())
        .map(|g| (g.lineno, g.span, commit_of(g.commit)))
        .collect();
    let blamed = Blamed::of_groups(groups);
    Ok(blamed.within(first, last))
}

/// The document's variables: each field's lines, the fields past the window left out.
fn variables(project: &str, file: &FileCommit, first: u64, last: u64) -> Value {
    let mut vars = Map::new();
    vars.insert("projectPath".into(), project.into());
    vars.insert("ref".into(), file.commit_sha.as_str().into());
    vars.insert("path".into(), file.path.as_str().into());
    for i in 0..FIELDS {
        let from = first + i * LINES_PER_FIELD;
        let used = from <= last;
        let to = (from + LINES_PER_FIELD - 1).min(last);
        vars.insert(format!("from{i}"), (if used { from } else { 1 }).into());
        vars.insert(format!("to{i}"), (if used { to } else { 1 }).into());
        if i > 0 {
            vars.insert(format!("with{i}"), used.into());
        }
    }
    Value::Object(vars)
}

fn commit_of(node: CommitNode) -> Commit {
    Commit {
        sha: node.sha,
        title: node.title.unwrap_or_default(),
        author_name: node.author_name.unwrap_or_default(),
        authored_date: node.authored_date.unwrap_or_default(),
        parent_sha: node.parent_sha,
        web_url: node.web_url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_cut_into_fields_of_100_lines() {
        let file = FileCommit {
            project: Some("g/p".into()),
            path: "x".into(),
            commit_sha: "c".repeat(40),
        };
        let v = variables("g/p", &file, 120, 345);
        assert_eq!(
            (v["from0"].as_u64(), v["to0"].as_u64()),
            (Some(120), Some(219))
        );
        assert_eq!(
            (v["from2"].as_u64(), v["to2"].as_u64()),
            (Some(320), Some(345))
        );
        assert_eq!(v["with2"], true);
        assert_eq!(v["with3"], false);
        assert!(blame::QUERY.matches("blame(fromLine").count() as u64 == FIELDS);
    }
}
